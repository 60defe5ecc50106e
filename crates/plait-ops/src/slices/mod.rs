//! `kd.slices`: operators on the items and dimensions of slices.

mod concat;
mod counting;
mod filled;
pub(crate) mod gather;
mod group;
mod group_narrow;
pub mod keys;
mod rank;
mod repeat;
pub mod repr;
mod select;
mod shape_checks;
pub mod subslice;
mod take;
mod translate;
pub(crate) mod types;

pub use concat::{concat, stack, zip};
pub(crate) use counting::int64_slice;
pub use counting::{agg_count, agg_size, collapse, count, cum_count, index, is_empty, size};
pub use filled::{empty_shaped, val_like, val_shaped};
pub use group::{group_by, group_by_indices, unique};
pub use rank::{dense_rank, inverse_mapping, ordinal_rank, sort};
pub use repeat::{range, repeat, repeat_present, tile};
pub use select::{inverse_select, select, select_present};
pub use shape_checks::{is_expandable_to, is_shape_compatible};
pub use take::{reverse, take};
pub use translate::{isin, translate, translate_group};

use crate::registry::Registry;

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.slices.agg_count",
        &["kd.agg_count"],
        "x, ndim=unspecified",
        r#"Returns the number of present items along the last ndim dimensions.

The result is an INT64 slice with ndim fewer dimensions than x; a group
with no present item (or no item at all) counts 0.

Args:
  x: a DataSlice of any schema.
  ndim: how many trailing dimensions to count over (1 when unspecified).

Examples:
  >>> kd.agg_count(kd.slice([[1, None, 3], [None], []]))
  DataSlice([2, 0, 0], schema: INT64, present: 3/3)
  >>> kd.agg_count(kd.slice([[1, None], [3]]), ndim=2)
  DataItem(2, schema: INT64)"#,
        |a| agg_count(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.slices.agg_size",
        &["kd.agg_size"],
        "x, ndim=unspecified",
        r#"Returns the number of items along the last ndim dimensions.

Missing items are counted too (see `kd.agg_count` for present items only).
The result is an INT64 slice with ndim fewer dimensions than x.

Args:
  x: a DataSlice of any schema.
  ndim: how many trailing dimensions to count over (1 when unspecified).

Examples:
  >>> kd.agg_size(kd.slice([[1, None, 3], [None], []]))
  DataSlice([3, 1, 0], schema: INT64, present: 3/3)
  >>> kd.agg_size(kd.slice([[1, None], [3]]), ndim=2)
  DataItem(3, schema: INT64)"#,
        |a| agg_size(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.slices.count",
        &["kd.count"],
        "x",
        r#"Returns the number of present items.

Counts over all dimensions of x and returns an INT64 DataItem.

Args:
  x: a DataSlice of any schema.

Examples:
  >>> kd.count(kd.slice([[1, None], [3]]))
  DataItem(2, schema: INT64)
  >>> kd.count(kd.item(None))
  DataItem(0, schema: INT64)"#,
        |a| count(a.slice("x")?),
    );
    r.add(
        "kd.slices.size",
        &["kd.size"],
        "x",
        r#"Returns the number of items.

Counts every item over all dimensions, missing ones included, and returns
an INT64 DataItem (see `kd.count` for present items only).

Args:
  x: a DataSlice of any schema.

Examples:
  >>> kd.size(kd.slice([[1, None], [3]]))
  DataItem(3, schema: INT64)
  >>> kd.size(kd.item(None))
  DataItem(1, schema: INT64)"#,
        |a| size(a.slice("x")?),
    );
    r.add(
        "kd.slices.cum_count",
        &["kd.cum_count"],
        "x, ndim=unspecified",
        r#"Returns running counts of present items along the last ndim dimensions.

Each present item gets the number of present items up to and including it
within its group (counting from 1); missing items stay missing. The result
has the shape of x and schema INT64.

Args:
  x: a DataSlice with at least one dimension.
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.cum_count(kd.slice([[1, None, 3, 4], [None, 5]]))
  DataSlice([[1, None, 2, 3], [None, 1]], schema: INT64, present: 4/6)
  >>> kd.cum_count(kd.slice([[1, None], [3, 4]]), ndim=2)
  DataSlice([[1, None], [2, 3]], schema: INT64, present: 3/4)"#,
        |a| cum_count(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.slices.index",
        &["kd.index"],
        "x, dim=-1",
        r#"Returns the index of each present item along dimension dim.

Each item gets its position within its group of dimension dim (a negative
dim counts from the end). The result has the shape of x and schema INT64;
it is missing where x has no present item below that position.

Args:
  x: a DataSlice with at least one dimension.
  dim: the dimension whose positions to return (-1, the last, by default).

Examples:
  >>> kd.index(kd.slice([[1, None, 3], [4]]))
  DataSlice([[0, None, 2], [0]], schema: INT64, present: 3/4)
  >>> kd.index(kd.slice([[1, None, 3], [4]]), dim=0)
  DataSlice([[0, 0, 0], [1]], schema: INT64, present: 4/4)"#,
        |a| {
            // Koda checks x's rank before reading `dim`.
            let x = a.slice("x")?;
            counting::index_rank(x)?;
            index(x, a.int("dim")?)
        },
    );
    r.add(
        "kd.slices.collapse",
        &["kd.collapse"],
        "x, ndim=unspecified",
        r#"Returns the common value of each group, or missing when the items differ.

Groups are formed over the last ndim dimensions. Missing items are ignored,
so a group whose present items are all equal collapses to that value, and a
group with no present item collapses to missing. The result keeps the schema
of x and has ndim fewer dimensions.

Args:
  x: a DataSlice.
  ndim: how many trailing dimensions to collapse (1 when unspecified).

Examples:
  >>> kd.collapse(kd.slice([[1, 1, None], [2, 3], [None]]))
  DataSlice([1, None, None], schema: INT32, present: 1/3)
  >>> kd.collapse(kd.slice([[1, 1], [1, None]]), ndim=2)
  DataItem(1, schema: INT32)"#,
        |a| collapse(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.slices.is_empty",
        &["kd.is_empty"],
        "x",
        r#"Returns present if x has no present item.

The result is a MASK DataItem; a DataItem or slice of only missing items is
empty.

Args:
  x: a DataSlice of any schema.

Examples:
  >>> kd.is_empty(kd.slice([None, None]))
  DataItem(present, schema: MASK)
  >>> kd.is_empty(kd.slice([None, 1]))
  DataItem(missing, schema: MASK)"#,
        |a| is_empty(a.slice("x")?),
    );
    r.add(
        "kd.slices.empty_shaped",
        &["kd.empty_shaped"],
        "shape, schema=MASK",
        r#"Returns an all-missing slice of the given shape.

Args:
  shape: a JaggedShape.
  schema: the schema of the result (MASK by default).

Examples:
  >>> kd.empty_shaped(kd.shapes.new(2))
  DataSlice([missing, missing], schema: MASK, present: 0/2)
  >>> kd.empty_shaped(kd.shapes.new(2, [1, 2]), schema=kd.INT32)
  DataSlice([[None], [None, None]], schema: INT32, present: 0/3)"#,
        |a| empty_shaped(a.shape("shape")?, a.schema("schema")?),
    );
    r.add(
        "kd.slices.empty_shaped_as",
        &["kd.empty_shaped_as"],
        "shape_from, schema=MASK",
        r#"Returns an all-missing slice of the shape of shape_from.

Only the shape of shape_from is used, not its values or schema.

Args:
  shape_from: a DataSlice whose shape the result takes.
  schema: the schema of the result (MASK by default).

Examples:
  >>> kd.empty_shaped_as(kd.slice([[1], [2, 3]]))
  DataSlice([[missing], [missing, missing]], schema: MASK, present: 0/3)
  >>> kd.empty_shaped_as(kd.slice([1, 2]), schema=kd.STRING)
  DataSlice([None, None], schema: STRING, present: 0/2)"#,
        |a| empty_shaped(a.slice("shape_from")?.shape(), a.schema("schema")?),
    );
    r.add(
        "kd.slices.val_like",
        &["kd.val_like"],
        "x, val",
        r#"Returns val where x is present.

val is broadcast to the shape of x and kept only where x is present; the
result has the schema of val.

Args:
  x: the DataSlice whose shape and presence to use.
  val: the value(s) to fill in, broadcastable to x.

Examples:
  >>> kd.val_like(kd.slice([[1, None], [3]]), 'a')
  DataSlice([['a', None], ['a']], schema: STRING, present: 2/3)
  >>> kd.val_like(kd.slice([[1, None], [3]]), kd.slice([10, 20]))
  DataSlice([[10, None], [20]], schema: INT32, present: 2/3)"#,
        |a| val_like(a.slice("x")?, a.slice("val")?),
    );
    r.add(
        "kd.slices.val_shaped",
        &["kd.val_shaped"],
        "shape, val",
        r#"Returns val expanded to the given shape.

Args:
  shape: a JaggedShape.
  val: the value(s) to fill in; their shape must be a prefix of shape.

Examples:
  >>> kd.val_shaped(kd.shapes.new(2, [1, 2]), 0)
  DataSlice([[0], [0, 0]], schema: INT32, present: 3/3)
  >>> kd.val_shaped(kd.shapes.new(2, [1, 2]), kd.slice(['a', 'b']))
  DataSlice([['a'], ['b', 'b']], schema: STRING, present: 3/3)"#,
        |a| val_shaped(a.shape("shape")?, a.slice("val")?),
    );
    r.add(
        "kd.slices.val_shaped_as",
        &["kd.val_shaped_as"],
        "x, val",
        r#"Returns val expanded to the shape of x.

Unlike `kd.val_like`, the result is filled at every item, whether x is
present there or not.

Args:
  x: the DataSlice whose shape to use.
  val: the value(s) to fill in, broadcastable to x.

Examples:
  >>> kd.val_shaped_as(kd.slice([[1, None], [3]]), 'x')
  DataSlice([['x', 'x'], ['x']], schema: STRING, present: 3/3)
  >>> kd.val_shaped_as(kd.slice([[1, None], [3]]), kd.slice([1, 2]))
  DataSlice([[1, 1], [2]], schema: INT32, present: 3/3)"#,
        |a| val_shaped(a.slice("x")?.shape(), a.slice("val")?),
    );
    register_selection(r);
    register_ordering(r);
    register_construction(r);
    register_lookup(r);
    subslice::register(r);
    repr::register(r);
    // Operators that pass the items of one argument through keep its bag
    // on any result (and only its bag), as in Koda.
    let item_sources: [(&str, &'static [&'static str]); 17] = [
        ("kd.slices.collapse", &["x"]),
        ("kd.slices.group_by", &["x"]),
        ("kd.slices.repeat", &["x"]),
        ("kd.slices.repeat_present", &["x"]),
        ("kd.slices.reverse", &["ds"]),
        ("kd.slices.select", &["ds"]),
        ("kd.slices.select_present", &["ds"]),
        ("kd.slices.inverse_select", &["ds"]),
        ("kd.slices.sort", &["x"]),
        ("kd.slices.take", &["x"]),
        ("kd.slices.unique", &["x"]),
        ("kd.slices.val_like", &["val"]),
        ("kd.slices.val_shaped", &["val"]),
        ("kd.slices.val_shaped_as", &["val"]),
        ("kd.slices.tile", &["x"]),
        ("kd.slices.translate", &["values_from"]),
        ("kd.slices.translate_group", &["values_from"]),
    ];
    for (name, source) in item_sources {
        r.bag_rule(name, crate::registry::BagRule::From(source));
    }
    // The ones that combine several inputs merge their bags.
    for name in ["kd.slices.concat", "kd.slices.stack", "kd.slices.zip"] {
        r.bag_rule(name, crate::registry::BagRule::Merge);
    }
    // Type rules (see `crate::typing`).
    use crate::typing::rules::{Out, aggregate_all, aggregate_any};
    r.type_rule("kd.slices.agg_count", aggregate_any(Out::Fixed(plait_core::Schema::Int64)));
    r.type_rule("kd.slices.count", aggregate_all(None, Out::Fixed(plait_core::Schema::Int64)));
    {
        use crate::promote::TypeClass::Orderable;
        use crate::typing::rules::{self, like};
        use plait_core::Schema;
        for name in ["kd.slices.index", "kd.slices.cum_count"] {
            r.type_rule(name, rules::same_dims(None, Out::Fixed(Schema::Int64)));
        }
        for name in ["kd.slices.ordinal_rank", "kd.slices.dense_rank"] {
            r.type_rule(name, rules::same_dims(Some(Orderable), Out::Fixed(Schema::Int64)));
        }
        r.type_rule("kd.slices.sort", rules::same_dims(Some(Orderable), Out::SameAs("x")));
        r.type_rule("kd.slices.reverse", like("ds", Out::SameAs("ds")));
        r.type_rule("kd.slices.size", aggregate_all(None, Out::Fixed(Schema::Int64)));
        r.type_rule("kd.slices.is_empty", aggregate_all(None, Out::Fixed(Schema::Mask)));
        r.type_rule("kd.slices.agg_size", aggregate_any(Out::Fixed(Schema::Int64)));
        r.type_rule("kd.slices.val_like", rules::val_like());
        r.type_rule("kd.slices.range", rules::range());
        let typed: [(&str, crate::typing::RuleFunction); 16] = [
            ("kd.slices.concat", types::concat),
            ("kd.slices.stack", types::stack),
            ("kd.slices.zip", types::zip),
            ("kd.slices.repeat", types::repeat),
            ("kd.slices.repeat_present", types::repeat),
            ("kd.slices.take", types::take),
            ("kd.slices.tile", types::tile),
            ("kd.slices.unique", types::unique),
            ("kd.slices.group_by", types::group_by),
            ("kd.slices.group_by_indices", types::group_by_indices),
            ("kd.slices.translate", types::translate),
            ("kd.slices.translate_group", types::translate),
            ("kd.slices.inverse_select", types::inverse_select),
            ("kd.slices.val_shaped", types::val_shaped),
            ("kd.slices.empty_shaped", types::empty_shaped),
            ("kd.slices.empty_shaped_as", types::empty_shaped_as),
        ];
        for (name, rule) in typed {
            r.type_rule(name, crate::typing::TypeRule::new(rule));
        }
        r.type_rule("kd.slices.isin", crate::typing::TypeRule::new(types::isin));
        r.type_rule("kd.slices.val_shaped_as", rules::val_like());
        r.type_rule("kd.slices.collapse", aggregate_any(Out::Common));
        r.type_rule("kd.slices.inverse_mapping", rules::same_dims(Some(crate::promote::TypeClass::Integer), Out::Common));
        for name in ["kd.slices.is_expandable_to", "kd.slices.is_shape_compatible"] {
            r.type_rule(name, rules::item(&[], Schema::Mask));
        }
    }
}

fn register_selection(r: &mut Registry) {
    r.add(
        "kd.slices.select",
        &["kd.select", "kd.slices.internal_select_by_slice"],
        "ds, fltr, expand_filter=True",
        r#"Creates a new DataSlice by filtering out missing items in fltr.

By default fltr is broadcast to the shape of ds and the last dimension of ds
keeps only the items where fltr is present. With expand_filter=False, fltr
filters the dimension it ends at, so whole sub-slices of ds are kept or
dropped. ds must not be a DataItem.

Args:
  ds: the DataSlice to filter.
  fltr: a MASK DataSlice (or OBJECT of masks) telling what to keep.
  expand_filter: broadcast fltr to ds and filter the last dimension (True,
    the default), or filter the dimension of fltr (False).

Examples:
  >>> x = kd.slice([[1, 2, 3], [4, 5]])
  >>> kd.select(x, x > 2)
  DataSlice([[3], [4, 5]], schema: INT32, present: 3/3)
  >>> kd.select(x, kd.slice([kd.present, kd.missing]))
  DataSlice([[1, 2, 3], []], schema: INT32, present: 3/3)
  >>> kd.select(x, kd.slice([kd.present, kd.missing]), expand_filter=False)
  DataSlice([[1, 2, 3]], schema: INT32, present: 3/3)"#,
        |a| select(a.slice("ds")?, a.slice("fltr")?, a.bool("expand_filter")?),
    );
    r.add(
        "kd.slices.select_present",
        &["kd.select_present"],
        "ds",
        r#"Creates a new DataSlice by removing missing items.

The last dimension keeps only the present items; the other dimensions are
unchanged. ds must not be a DataItem.

Args:
  ds: the DataSlice to filter.

Examples:
  >>> kd.select_present(kd.slice([[1, None, 3], [None]]))
  DataSlice([[1, 3], []], schema: INT32, present: 2/2)"#,
        |a| select_present(a.slice("ds")?),
    );
    r.add(
        "kd.slices.inverse_select",
        &["kd.slices.reverse_select", "kd.inverse_select", "kd.reverse_select"],
        "ds, fltr",
        r#"Creates a DataSlice by putting items in ds to present positions in fltr.

This undoes `kd.select`: the k-th item of each group of ds goes to the k-th
present position of fltr, and the other positions are missing. ds and fltr
must have the same rank, and the shape of ds must be the shape of the present
items of fltr. The result has the shape of fltr.

Args:
  ds: the DataSlice of items to put back (not a DataItem).
  fltr: a MASK DataSlice (or OBJECT of masks) marking the positions.

Examples:
  >>> kd.inverse_select(kd.slice([10, 20]), kd.slice([1, None, 3]) > 0)
  DataSlice([10, None, 20], schema: INT32, present: 2/3)
  >>> fltr = kd.slice([[1, 5], [7]]) > 2
  >>> kd.inverse_select(kd.select(kd.slice([['a', 'b'], ['c']]), fltr), fltr)
  DataSlice([[None, 'b'], ['c']], schema: STRING, present: 2/3)"#,
        |a| inverse_select(a.slice("ds")?, a.slice("fltr")?),
    );
    r.add(
        "kd.slices.take",
        &["kd.slices.at", "kd.take", "kd.at"],
        "x, indices",
        r#"Returns a new DataSlice with items at provided indices.

Each index selects an item of the matching group of the last dimension of
x; negative indices count from the end, and missing or out-of-range indices
give missing items. The shape of x without its last dimension and the shape
of indices must broadcast; the result has the larger of the two. `kd.at` is
the same operator.

Args:
  x: a DataSlice with at least one dimension.
  indices: integer positions in the last dimension of x.

Examples:
  >>> kd.take(kd.slice([[1, 2, 3], [4]]), kd.slice([[0, -1], [0, 5]]))
  DataSlice([[1, 3], [4, None]], schema: INT32, present: 3/4)
  >>> kd.take(kd.slice([[1, 2, 3], [4]]), 1)
  DataSlice([2, None], schema: INT32, present: 1/2)"#,
        |a| take(a.slice("x")?, a.slice("indices")?),
    );
    r.add(
        "kd.slices.reverse",
        &["kd.reverse"],
        "ds",
        r#"Returns a DataSlice with items reversed on the last dimension.

Each group of the last dimension is reversed on its own; missing items move
with the others. A DataItem is returned as it is.

Args:
  ds: a DataSlice.

Examples:
  >>> kd.reverse(kd.slice([[1, 2, None], [3]]))
  DataSlice([[None, 2, 1], [3]], schema: INT32, present: 3/4)
  >>> kd.reverse(kd.item(1))
  DataItem(1, schema: INT32)"#,
        |a| reverse(a.slice("ds")?),
    );
    r.type_rule("kd.slices.select", crate::typing::TypeRule::new(types::select));
    r.type_rule("kd.slices.select_present", crate::typing::TypeRule::new(types::select_present));
}

fn register_ordering(r: &mut Registry) {
    r.add(
        "kd.slices.sort",
        &["kd.sort"],
        "x, sort_by=unspecified, descending=False",
        r#"Sorts the items in `x` over the last dimension.

Each group of the last dimension is sorted on its own (stable, smallest
first unless descending); missing items go last and NaN goes after every
number. With sort_by, x is ordered by the keys of sort_by instead, which
must have the shape of x and be present wherever x is.

Args:
  x: a DataSlice with at least one dimension.
  sort_by: a DataSlice of orderable keys of the shape of x (x itself when
    unspecified).
  descending: sort largest first when True.

Examples:
  >>> kd.sort(kd.slice([[3, None, 1], [2, 5, 4]]))
  DataSlice([[1, 3, None], [2, 4, 5]], schema: INT32, present: 5/6)
  >>> kd.sort(kd.slice([[3, None, 1], [2, 5, 4]]), descending=True)
  DataSlice([[3, 1, None], [5, 4, 2]], schema: INT32, present: 5/6)
  >>> kd.sort(kd.slice(['a', 'b', 'c']), sort_by=kd.slice([2, 3, 1]))
  DataSlice(['c', 'a', 'b'], schema: STRING, present: 3/3)"#,
        |a| sort(a.slice("x")?, a.opt_slice("sort_by")?, a.bool("descending")?),
    );
    r.add(
        "kd.slices.ordinal_rank",
        &["kd.ordinal_rank"],
        "x, tie_breaker=unspecified, descending=False, ndim=unspecified",
        r#"Returns ordinal ranks of items in `x` over the last `ndim` dimensions.

Each group's items get the distinct ranks 0, 1, 2, ... in sorted order
(largest first with descending=True). Equal values are ordered by
tie_breaker, then by position. Missing items, and items whose tie_breaker is
missing, get missing ranks; NaN ranks after every number. The result is
INT64 with the shape of x.

Args:
  x: a DataSlice of orderable values (numbers, strings or bytes).
  tie_breaker: integers (broadcast to x) ordering equal values, smallest
    first.
  descending: rank the largest value 0 when True.
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.ordinal_rank(kd.slice([[30, 10, 20, 10], [None, 5]]))
  DataSlice([[3, 0, 2, 1], [None, 0]], schema: INT64, present: 5/6)
  >>> kd.ordinal_rank(kd.slice([30, 10, 20, 10]), tie_breaker=kd.slice([0, 1, 0, -1]))
  DataSlice([3, 1, 2, 0], schema: INT64, present: 4/4)
  >>> kd.ordinal_rank(kd.slice([[3, 1], [2]]), ndim=2)
  DataSlice([[2, 0], [1]], schema: INT64, present: 3/3)"#,
        |a| ordinal_rank(a.slice("x")?, a.opt_slice("tie_breaker")?, a.bool("descending")?, a.agg_ndim()?),
    );
    r.add(
        "kd.slices.dense_rank",
        &["kd.dense_rank"],
        "x, descending=False, ndim=unspecified",
        r#"Returns dense ranks of items in `x` over the last `ndim` dimensions.

Equal values share a rank, and the ranks of each group are consecutive
integers from 0 (smallest first, or largest first with descending=True).
Missing items get missing ranks; each NaN gets a rank of its own, after
every number. The result is INT64 with the shape of x.

Args:
  x: a DataSlice of orderable values (numbers, strings or bytes).
  descending: rank the largest value 0 when True.
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.dense_rank(kd.slice([[30, 10, 20, 10], [None, 5]]))
  DataSlice([[2, 0, 1, 0], [None, 0]], schema: INT64, present: 5/6)
  >>> kd.dense_rank(kd.slice([30, 10, 20, 10]), descending=True)
  DataSlice([0, 2, 1, 2], schema: INT64, present: 4/4)
  >>> kd.dense_rank(kd.slice([[3, 1], [3]]), ndim=2)
  DataSlice([[1, 0], [1]], schema: INT64, present: 3/3)"#,
        |a| {
            // A given `ndim`, then `x`, then `descending`: Koda's order.
            let (x, ndim) = (a.slice("x")?, a.agg_ndim()?);
            keys::sortable_dtype("kd.slices.dense_rank", "x", x)?;
            dense_rank(x, a.bool("descending")?, ndim)
        },
    );
    r.add(
        "kd.slices.inverse_mapping",
        &["kd.inverse_mapping"],
        "x, ndim=unspecified",
        r#"Returns inverse permutations of indices over the last `ndim` dimension.

Each group of the last ndim dimensions must hold a permutation of 0..n-1
(n being the size of the group), with missing items allowed: the result puts
at position v the index of the item holding v, and is missing at positions
no item points to. Values out of range or repeated raise an error. The
result keeps the integer schema of x.

Args:
  x: a DataSlice of integers.
  ndim: how many trailing dimensions form a group (1 when unspecified).

Examples:
  >>> kd.inverse_mapping(kd.slice([2, 0, 1]))
  DataSlice([1, 2, 0], schema: INT32, present: 3/3)
  >>> kd.inverse_mapping(kd.slice([[1, None, 0], [0]]))
  DataSlice([[2, 0, None], [0]], schema: INT32, present: 3/4)
  >>> kd.inverse_mapping(kd.slice([[1, 2], [0]]), ndim=2)
  DataSlice([[2, 0], [1]], schema: INT32, present: 3/3)"#,
        |a| inverse_mapping(a.slice("x")?, a.agg_ndim()?),
    );
    r.add(
        "kd.slices.unique",
        &["kd.unique"],
        "x, sort=False",
        r#"Returns a DataSlice with unique values within each dimension.

Each group of the last dimension keeps one item per distinct value, in order
of first appearance (sorted with sort=True); missing items are dropped. Only
the size of the last dimension changes. Numbers of different types are
distinct (1 and 1.0 are both kept), and a DataItem is returned as it is.

Args:
  x: a DataSlice.
  sort: sort the unique values of each group (they must all be of one type).

Examples:
  >>> kd.unique(kd.slice([[1, 2, 1, None, 3, 2], [5, 5]]))
  DataSlice([[1, 2, 3], [5]], schema: INT32, present: 4/4)
  >>> kd.unique(kd.slice([3, 1, 2, 1]), sort=True)
  DataSlice([1, 2, 3], schema: INT32, present: 3/3)"#,
        |a| {
            // An item is its own unique value, whatever `sort` is (Koda
            // reads `sort` only for slices).
            let x = a.slice("x")?;
            if x.is_item() {
                return Ok(x.clone());
            }
            unique(x, a.bool("sort")?)
        },
    );
    r.add(
        "kd.slices.group_by",
        &["kd.group_by"],
        "x, *keys, sort=False",
        r#"Returns `x` with values in last dimension grouped using a new dimension.

Items of each group of the last dimension are grouped by equal values of
keys (by x itself when no key is given). Groups come in order of first
appearance (sorted by key with sort=True), and items keep their order inside
a group. Items where some key is missing are left out; every NaN key forms a
group of its own.

Args:
  x: a DataSlice with at least one dimension.
  *keys: DataSlices of the shape of x to group by (x itself when none).
  sort: order the groups by their keys instead of by first appearance.

Examples:
  >>> kd.group_by(kd.slice([1, 2, 1, None, 3, 2]))
  DataSlice([[1, 1], [2, 2], [3]], schema: INT32, present: 5/5)
  >>> kd.group_by(kd.slice(['a', 'b', 'c', 'd']), kd.slice([2, 1, 2, None]), sort=True)
  DataSlice([['b'], ['a', 'c']], schema: STRING, present: 3/3)
  >>> kd.group_by(kd.slice([1, 2, 3, 4]), kd.slice(['x', 'y', 'x', 'x']), kd.slice([0, 0, 0, 1]))
  DataSlice([[1, 3], [2], [4]], schema: INT32, present: 4/4)"#,
        |a| group_by(a.slice("x")?, &a.var_slices()?, a.bool("sort")?),
    );
    r.add(
        "kd.slices.group_by_indices",
        &["kd.group_by_indices"],
        "*keys, sort=False",
        r#"Returns an indices DataSlice that describes the order of `group_by` result.

For each group of equal key tuples in the last dimension, the result holds
the positions of its items in a new dimension, so
`kd.take(x, kd.group_by_indices(k))` is `kd.group_by(x, k)`. Positions with
a missing key are left out. The result is INT64.

Args:
  *keys: DataSlices of one shape (at least one dimension) to group by.
  sort: order the groups by their keys instead of by first appearance.

Examples:
  >>> kd.group_by_indices(kd.slice([1, 2, 1, None, 3, 2]))
  DataSlice([[0, 2], [1, 5], [4]], schema: INT64, present: 5/5)
  >>> kd.group_by_indices(kd.slice([3, 1, 3, 2]), sort=True)
  DataSlice([[1], [3], [0, 2]], schema: INT64, present: 4/4)
  >>> kd.group_by_indices(kd.slice([[1, 2, 1], [3, 3]]))
  DataSlice([[[0, 2], [1]], [[0, 1]]], schema: INT64, present: 5/5)"#,
        |a| group_by_indices(&a.var_slices()?, a.bool("sort")?),
    );
}

fn register_construction(r: &mut Registry) {
    r.add(
        "kd.slices.concat",
        &["kd.concat"],
        "*args, ndim=1",
        r#"Returns the concatenation of the given DataSlices on dimension `rank-ndim`.

All arguments must have the same rank (at least 1) and the same shape up to
the concatenation dimension. Under each item before that dimension, the
subtrees of the arguments are placed one after another. Arguments of
different schemas are cast to their common schema.

Args:
  *args: DataSlices of one rank.
  ndim: which dimension to concatenate on, counted from the end (1, the
    last dimension, by default).

Examples:
  >>> kd.concat(kd.slice([[1, 2], [3]]), kd.slice([[4], [5, 6]]))
  DataSlice([[1, 2, 4], [3, 5, 6]], schema: INT32, present: 6/6)
  >>> kd.concat(kd.slice([[1, 2], [3]]), kd.slice([[4], [5, 6]]), ndim=2)
  DataSlice([[1, 2], [3], [4], [5, 6]], schema: INT32, present: 6/6)
  >>> kd.concat(kd.slice([1, 2]), kd.slice(['a']))
  DataSlice([1, 2, 'a'], schema: OBJECT, present: 3/3)"#,
        |a| concat(&a.var_slices()?, a.int("ndim")?),
    );
    r.add(
        "kd.slices.stack",
        &["kd.stack"],
        "*args, ndim=0",
        r#"Stacks the given DataSlices, creating a new dimension at index `rank-ndim`.

All arguments must have the same rank and the same shape in their first
rank-ndim dimensions. With ndim=0 the new dimension is last and holds one
item of each argument; with ndim=rank the arguments become the items of a
new first dimension. Arguments of different schemas are cast to their common
schema.

Args:
  *args: DataSlices of one rank (DataItems stack into a 1-dimensional slice).
  ndim: how many trailing dimensions go below the new one (0 by default).

Examples:
  >>> kd.stack(kd.slice([1, 2]), kd.slice([3, 4]))
  DataSlice([[1, 3], [2, 4]], schema: INT32, present: 4/4)
  >>> kd.stack(kd.slice([1, 2]), kd.slice([3, 4]), ndim=1)
  DataSlice([[1, 2], [3, 4]], schema: INT32, present: 4/4)
  >>> kd.stack(kd.item(1), kd.item(2), kd.item(3))
  DataSlice([1, 2, 3], schema: INT32, present: 3/3)"#,
        |a| stack(&a.var_slices()?, a.int("ndim")?),
    );
    r.add(
        "kd.slices.zip",
        &["kd.zip"],
        "*args",
        r#"Zips the given DataSlices into a new DataSlice with a new last dimension.

The arguments are first broadcast to a common shape (so they may have
different ranks), then stacked: each item of the result holds one item of
every argument. Arguments of different schemas are cast to their common
schema.

Args:
  *args: DataSlices whose shapes broadcast together.

Examples:
  >>> kd.zip(kd.slice([1, 2]), kd.slice([3, 4]))
  DataSlice([[1, 3], [2, 4]], schema: INT32, present: 4/4)
  >>> kd.zip(kd.slice([[1, 2], [3]]), kd.slice([10, 20]))
  DataSlice([[[1, 10], [2, 10]], [[3, 20]]], schema: INT32, present: 6/6)
  >>> kd.zip(kd.slice([1, 2]), 'a')
  DataSlice([[1, 'a'], [2, 'a']], schema: OBJECT, present: 4/4)"#,
        |a| zip(&a.var_slices()?),
    );
    r.add(
        "kd.slices.range",
        &["kd.range"],
        "start, end=unspecified",
        r#"Returns a DataSlice of INT64s with range [start, end).

With end unspecified the range is [0, start). start and end broadcast
against each other, and each pair gives the integers from start up to end in
a new last dimension; the range is empty when end <= start or when either is
missing.

Args:
  start: integers where the ranges begin (where they end when end is
    unspecified).
  end: integers where the ranges end (exclusive).

Examples:
  >>> kd.range(3)
  DataSlice([0, 1, 2], schema: INT64, present: 3/3)
  >>> kd.range(1, 4)
  DataSlice([1, 2, 3], schema: INT64, present: 3/3)
  >>> kd.range(kd.slice([0, 2, None]), 4)
  DataSlice([[0, 1, 2, 3], [2, 3], []], schema: INT64, present: 6/6)"#,
        |a| range(a.slice("start")?, a.opt_slice("end")?),
    );
    r.add(
        "kd.slices.repeat",
        &["kd.repeat"],
        "x, sizes",
        r#"Returns `x` with values repeated according to `sizes`.

x and sizes broadcast against each other; each item is repeated sizes times
in a new last dimension. Missing items are repeated as missing items (see
`kd.repeat_present` to drop them). sizes must be present and non-negative.

Args:
  x: a DataSlice (or DataItem) to repeat.
  sizes: integers, how many times to repeat each item.

Examples:
  >>> kd.repeat(kd.slice([1, None, 3]), 2)
  DataSlice([[1, 1], [None, None], [3, 3]], schema: INT32, present: 4/6)
  >>> kd.repeat(kd.slice([1, None, 3]), kd.slice([1, 2, 0]))
  DataSlice([[1], [None, None], []], schema: INT32, present: 1/3)
  >>> kd.repeat(kd.item('a'), 3)
  DataSlice(['a', 'a', 'a'], schema: STRING, present: 3/3)"#,
        |a| repeat(a.slice("x")?, a.slice("sizes")?),
    );
    r.add(
        "kd.slices.repeat_present",
        &["kd.repeat_present"],
        "x, sizes",
        r#"Returns `x` with present values repeated according to `sizes`.

Like `kd.repeat`, but a missing item of x gets an empty group in the new
last dimension instead of missing repetitions.

Args:
  x: a DataSlice (or DataItem) to repeat.
  sizes: integers, how many times to repeat each present item.

Examples:
  >>> kd.repeat_present(kd.slice([1, None, 3]), 2)
  DataSlice([[1, 1], [], [3, 3]], schema: INT32, present: 4/4)
  >>> kd.repeat_present(kd.slice([1, None, 3]), kd.slice([1, 2, 3]))
  DataSlice([[1], [], [3, 3, 3]], schema: INT32, present: 4/4)"#,
        |a| repeat_present(a.slice("x")?, a.slice("sizes")?),
    );
    r.add(
        "kd.slices.tile",
        &["kd.tile"],
        "x, shape",
        r#"Nests the whole `x` under `shape`.

The result repeats all of x (with its dimensions) under every item of shape,
so its shape is shape followed by the dimensions of x.

Args:
  x: the DataSlice to repeat.
  shape: a JaggedShape.

Examples:
  >>> kd.tile(kd.slice([1, 2]), kd.shapes.new(3))
  DataSlice([[1, 2], [1, 2], [1, 2]], schema: INT32, present: 6/6)
  >>> kd.tile(kd.item(7), kd.shapes.new(2, [1, 2]))
  DataSlice([[7], [7, 7]], schema: INT32, present: 3/3)"#,
        |a| tile(a.slice("x")?, a.shape("shape")?),
    );
}

fn register_lookup(r: &mut Registry) {
    r.add(
        "kd.slices.translate",
        &["kd.translate"],
        "keys_to, keys_from, values_from",
        r#"Translates `keys_to` based on `keys_from`->`values_from` mapping.

Each item of keys_to is replaced by the value of values_from at the position
of the equal key in keys_from, or missing when there is none. The last
dimension of keys_from is the lookup table; its other dimensions must
broadcast to keys_to, so one table can serve many groups. Keys must be
unique within each table (see `kd.translate_group` otherwise) and cannot be
floats. values_from broadcasts to keys_from.

Args:
  keys_to: the keys to translate.
  keys_from: the keys of the mapping (at least one dimension).
  values_from: the values of the mapping.

Examples:
  >>> kd.translate(kd.slice(['a', 'c', None, 'b']), kd.slice(['a', 'b']), kd.slice([1, 2]))
  DataSlice([1, None, None, 2], schema: INT32, present: 2/4)
  >>> kd.translate(kd.slice([['a', 'b'], ['a']]), kd.slice([['a', 'b'], ['b', 'a']]),
  ...              kd.slice([[1, 2], [3, 4]]))
  DataSlice([[1, 2], [4]], schema: INT32, present: 3/3)"#,
        |a| translate(a.slice("keys_to")?, a.slice("keys_from")?, a.slice("values_from")?),
    );
    r.add(
        "kd.slices.translate_group",
        &["kd.translate_group"],
        "keys_to, keys_from, values_from",
        r#"Translates `keys_to` based on `keys_from`->`values_from` mapping.

Unlike `kd.translate`, a key may appear several times in keys_from: each
item of keys_to gets all the values of its key, in order, in a new last
dimension (empty when the key is missing or not found). keys_from and
values_from must have the same shape; the last dimension of keys_from is the
lookup table, and its other dimensions must broadcast to keys_to.

Args:
  keys_to: the keys to translate.
  keys_from: the keys of the mapping (at least one dimension).
  values_from: the values of the mapping, of the shape of keys_from.

Examples:
  >>> kd.translate_group(kd.slice(['a', 'c', None]), kd.slice(['a', 'b', 'a']), kd.slice([1, 2, 3]))
  DataSlice([[1, 3], [], []], schema: INT32, present: 2/2)"#,
        |a| translate_group(a.slice("keys_to")?, a.slice("keys_from")?, a.slice("values_from")?),
    );
    r.add(
        "kd.slices.isin",
        &["kd.isin"],
        "x, y",
        r#"Returns a DataItem indicating whether DataItem x is present in y.

The result is present when some item of y (any dimension) equals x, and
missing otherwise, including when x is missing. x must be a DataItem.

Args:
  x: the DataItem to look for.
  y: the DataSlice to look in.

Examples:
  >>> kd.isin(kd.item(2), kd.slice([[1, 2], [3]]))
  DataItem(present, schema: MASK)
  >>> kd.isin(kd.item('a'), kd.slice([[1, 2], [3]]))
  DataItem(missing, schema: MASK)"#,
        |a| isin(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.slices.is_shape_compatible",
        &["kd.is_shape_compatible"],
        "x, y",
        r#"Returns present if the shapes of `x` and `y` are compatible.

Shapes are compatible when one of them is a prefix of the other, so that
either slice can be broadcast to the other. The answer is a MASK DataItem.

Args:
  x: a DataSlice.
  y: a DataSlice.

Examples:
  >>> kd.is_shape_compatible(kd.slice([1, 2]), kd.slice([[1], [2, 3]]))
  DataItem(present, schema: MASK)
  >>> kd.is_shape_compatible(kd.slice([1, 2]), kd.slice([1, 2, 3]))
  DataItem(missing, schema: MASK)
  >>> kd.is_shape_compatible(kd.item(1), kd.slice([1, 2, 3]))
  DataItem(present, schema: MASK)"#,
        |a| is_shape_compatible(a.slice("x")?, a.slice("y")?),
    );
    r.add(
        "kd.slices.is_expandable_to",
        &["kd.is_expandable_to"],
        "x, target, ndim=unspecified",
        r#"Returns true if `x` is expandable to `target`.

x (without its last ndim dimensions) is expandable when its shape is a
prefix of the shape of target, i.e. it broadcasts to target. The answer is a
MASK DataItem.

Args:
  x: the DataSlice to expand.
  target: the DataSlice whose shape to expand to.
  ndim: how many trailing dimensions of x to leave out (0 when unspecified).

Examples:
  >>> kd.is_expandable_to(kd.slice([1, 2]), kd.slice([[1], [2, 3]]))
  DataItem(present, schema: MASK)
  >>> kd.is_expandable_to(kd.slice([[1], [2, 3]]), kd.slice([1, 2]))
  DataItem(missing, schema: MASK)
  >>> kd.is_expandable_to(kd.slice([[1], [2, 3]]), kd.slice([1, 2]), ndim=1)
  DataItem(present, schema: MASK)"#,
        |a| is_expandable_to(a.slice("x")?, a.slice("target")?, a.ndim()?),
    );
}
