//! The registry entries of the shape operators, with their docstrings.

use plait_core::Result;

use super::*;
use crate::registry::{BagRule, Boxing, Registry};

pub(crate) fn register(r: &mut Registry) {
    register_shapes(r);
    register_reshaping(r);
    register_expanding(r);
}

fn register_shapes(r: &mut Registry) {
    r.add_value(
        "kd.shapes.new",
        &[],
        "*dimensions",
        r#"Returns a JaggedShape from its dimensions, outermost first.

Each dimension is an int (every parent has that many children), a list of
sizes (one per parent), or a DataSlice of sizes.

Args:
  *dimensions: the dimensions.

Examples:
  >>> kd.shapes.new(2, [2, 1], [2, 1, 3])
  JaggedShape(2, [2, 1], [2, 1, 3])
  >>> kd.shapes.new(2, kd.slice([1, 3]))
  JaggedShape(2, [1, 3])"#,
        |a| shape_from_dims(a.op_name(), a.var_args()).map(Value::Shape),
    );
    r.boxing("kd.shapes.new", Boxing::Lists);
    r.add_value(
        "kd.shapes.get_shape",
        &["kd.get_shape"],
        "x",
        r#"Returns the JaggedShape of DataSlice `x`.

A DataItem has the shape with no dimensions.

Args:
  x: a DataSlice.

Examples:
  >>> kd.get_shape(kd.slice([[1, 2], [3]]))
  JaggedShape(2, [2, 1])
  >>> kd.get_shape(kd.item(1))
  JaggedShape()"#,
        |a| shape_arg(a, "x").map(Value::Shape),
    );
    r.add(
        "kd.shapes.rank",
        &["kd.shapes.ndim"],
        "shape",
        r#"Returns the number of dimensions of a JaggedShape, as an INT64 DataItem.

`kd.shapes.ndim` is the same operator. A DataSlice is refused, as in
Koda (`kd.get_ndim` gives a DataSlice's rank).

Args:
  shape: a JaggedShape.

Examples:
  >>> kd.shapes.rank(kd.shapes.new(2, [2, 1]))
  DataItem(2, schema: INT64)
  >>> kd.shapes.rank(kd.shapes.new())
  DataItem(0, schema: INT64)"#,
        |a| int64_item(a.shape_read("shape")?.rank() as i64),
    );
    r.add(
        "kd.shapes.size",
        &[],
        "shape",
        r#"Returns the number of items a JaggedShape holds, as an INT64 DataItem.

That is the size of its last dimension (1 for the shape of a DataItem).
A DataSlice is refused, as in Koda (`kd.size` counts a DataSlice's items).

Args:
  shape: a JaggedShape.

Examples:
  >>> kd.shapes.size(kd.shapes.new(2, [2, 1]))
  DataItem(3, schema: INT64)
  >>> kd.shapes.size(kd.shapes.new())
  DataItem(1, schema: INT64)"#,
        |a| int64_item(a.shape_read("shape")?.size() as i64),
    );
    r.add(
        "kd.shapes.get_sizes",
        &[],
        "x",
        r#"Returns the row sizes of every dimension of a shape, as a 2-dimensional DataSlice.

Row i holds the sizes of dimension i. The result is INT64; for a DataItem
(rank 0) it is empty.

Args:
  x: a JaggedShape, or a DataSlice whose shape is used.

Examples:
  >>> kd.shapes.get_sizes(kd.slice([['a', 'b'], ['c']]))
  DataSlice([[2], [2, 1]], schema: INT64, present: 3/3)
  >>> kd.shapes.get_sizes(kd.shapes.new(2, [3, 1]))
  DataSlice([[2], [3, 1]], schema: INT64, present: 3/3)
  >>> kd.shapes.get_sizes(kd.item(1))
  DataSlice([], schema: INT64, present: 0/0)"#,
        |a| sizes_slice(&shape_arg(a, "x")?),
    );
    r.add(
        "kd.shapes.dim_sizes",
        &[],
        "shape, dim",
        r#"Returns the row sizes of dimension dim of shape.

Each item of dimension dim - 1 has one size: the number of its items in
dimension dim. The result is a flat INT64 slice, one size per item of
dimension dim - 1 (for dim 0, the one size of the first dimension). A
negative dim counts from the end.

Args:
  shape: a JaggedShape.
  dim: the dimension.

Examples:
  >>> shape = kd.shapes.new(2, [3, 1], [1, 2, 0, 2])
  >>> kd.shapes.dim_sizes(shape, 1)
  DataSlice([3, 1], schema: INT64, present: 2/2)
  >>> kd.shapes.dim_sizes(shape, 2)
  DataSlice([1, 2, 0, 2], schema: INT64, present: 4/4)
  >>> kd.shapes.dim_sizes(shape, 0)
  DataSlice([2], schema: INT64, present: 1/1)
  >>> kd.shapes.dim_sizes(shape, 3)
  Traceback (most recent call last):
  ...
  ValueError: kd.shapes.dim_sizes: expected rank > 3, but got rank = 3, when trying to get the edge at dim = 3"#,
        dim_sizes,
    );
    r.add(
        "kd.shapes.dim_mapping",
        &[],
        "shape, dim",
        r#"Returns, for each item of dimension dim of shape, the index of its parent.

The parent is the item of dimension dim - 1 the item belongs to (for
dimension 0, always 0), counted across that whole dimension. The result is a
flat INT64 slice, one index per item of dimension dim. A negative dim counts
from the end.

Args:
  shape: a JaggedShape.
  dim: the dimension.

Examples:
  >>> shape = kd.shapes.new(2, [3, 1], [1, 2, 0, 2])
  >>> kd.shapes.dim_mapping(shape, 1)
  DataSlice([0, 0, 0, 1], schema: INT64, present: 4/4)
  >>> kd.shapes.dim_mapping(shape, -1)
  DataSlice([0, 1, 1, 3, 3], schema: INT64, present: 5/5)"#,
        dim_mapping,
    );
    r.add(
        "kd.slices.get_ndim",
        &["kd.get_ndim"],
        "x",
        r#"Returns the number of dimensions of DataSlice `x`, as an INT64 DataItem.

A DataItem has 0 dimensions.

Args:
  x: a DataSlice.

Examples:
  >>> kd.get_ndim(kd.slice([[1, 2], [3]]))
  DataItem(2, schema: INT64)
  >>> kd.get_ndim(kd.item('a'))
  DataItem(0, schema: INT64)"#,
        |a| int64_item(a.slice("x")?.rank() as i64),
    );
}

fn register_reshaping(r: &mut Registry) {
    r.add_value(
        "kd.shapes.reshape",
        &["kd.reshape"],
        "x, shape",
        r#"Returns `x` with the same items, in the same order, under `shape`.

`shape` is a JaggedShape, or a tuple of dimensions as `kd.shapes.new`
takes them (ints, lists or DataSlices of sizes); one of them may be -1,
a uniform dimension whose size is inferred. Its size must equal the
number of items of `x`, or it raises.

Args:
  x: a DataSlice.
  shape: a JaggedShape or a tuple of dimensions.

Examples:
  >>> kd.reshape(kd.slice([1, 2, 3, 4]), kd.shapes.new(2, 2))
  DataSlice([[1, 2], [3, 4]], schema: INT32, present: 4/4)
  >>> kd.reshape(kd.slice([[1, 2], [3]]), (3,))
  DataSlice([1, 2, 3], schema: INT32, present: 3/3)
  >>> kd.reshape(kd.slice([1, 2, 3, 4, 5, 6]), (-1, 3))
  DataSlice([[1, 2, 3], [4, 5, 6]], schema: INT32, present: 6/6)
  >>> kd.reshape(kd.slice([1, 2, 3]), kd.shapes.new(2, 2))
  Traceback (most recent call last):
  ...
  ValueError: kd.shapes.reshape: shape size must be compatible with number of items: shape_size=4 != items_size=3"#,
        reshape,
    );
    r.boxing("kd.shapes.reshape", Boxing::Tuples);
    r.type_rule("kd.shapes.reshape", crate::typing::TypeRule::new(super::types::reshape));
    r.type_rule("kd.shapes.get_shape", crate::typing::rules::get_shape());
    r.add_value(
        "kd.shapes.reshape_as",
        &["kd.reshape_as"],
        "x, shape_from",
        r#"Returns `x` with the same items, in the same order, in the shape of `shape_from`.

`shape_from` must have as many items as `x` (missing ones included), or
it raises.

Args:
  x: a DataSlice.
  shape_from: a DataSlice whose shape to use.

Examples:
  >>> kd.reshape_as(kd.slice([1, 2, 3]), kd.slice([['a', 'b'], ['c']]))
  DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)
  >>> kd.reshape_as(kd.slice([[1], [2]]), kd.slice([None, 'x']))
  DataSlice([1, 2], schema: INT32, present: 2/2)"#,
        |a| reshaped(a.op_name(), a.slice("x")?, a.slice("shape_from")?.shape().clone()),
    );
    r.add_value(
        "kd.shapes.flatten",
        &["kd.flatten"],
        "x, from_dim=int64(0), to_dim=unspecified",
        r#"Returns `x` with dimensions `[from_dim:to_dim]` merged into one (no data copy).

Negative dims count from the end; `from_dim == to_dim` inserts a unit
dimension there. `x` may also be a JaggedShape (seed 000), which flattens
to a JaggedShape; Koda takes slices only.

Args:
  x: a DataSlice or a JaggedShape.
  from_dim: the first dimension to merge (0 by default).
  to_dim: the dimension after the last one to merge (all by default).

Examples:
  >>> kd.flatten(kd.slice([[1, 2], [3]]))
  DataSlice([1, 2, 3], schema: INT32, present: 3/3)
  >>> kd.flatten(kd.slice([[1, 2], [3]]), 1, 1)
  DataSlice([[[1, 2]], [[3]]], schema: INT32, present: 3/3)
  >>> kd.flatten(kd.slice([[[1], [2]], [[3]]]), -2)
  DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)
  >>> kd.shapes.flatten(kd.shapes.new(2, [2, 1]))
  JaggedShape(3)"#,
        flatten,
    );
    r.add_value(
        "kd.shapes.flatten_end",
        &["kd.flatten_end"],
        "x, n_times=int64(1)",
        r#"Returns `x` with its last `n_times + 1` dimensions merged into one.

The result has `n_times` fewer dimensions; `n_times=0` returns `x` as it
is. The items are not copied.

Args:
  x: a DataSlice.
  n_times: how many dimensions to remove, counting from the end (1 by
    default).

Examples:
  >>> x = kd.slice([[[1, 2], [3]], [[4]]])
  >>> kd.shapes.flatten_end(x)
  DataSlice([[1, 2, 3], [4]], schema: INT32, present: 4/4)
  >>> kd.shapes.flatten_end(x, n_times=2)
  DataSlice([1, 2, 3, 4], schema: INT32, present: 4/4)"#,
        flatten_end,
    );
}

fn register_expanding(r: &mut Registry) {
    r.add(
        "kd.shapes.expand_to_shape",
        &["kd.expand_to_shape"],
        "x, shape, ndim=unspecified",
        r#"Expands `x` to `shape` by prefix broadcasting.

`shape` must start with the shape of `x`; with `ndim`, the last `ndim`
dimensions of `x` are kept and travel with each item.

Args:
  x: a DataSlice.
  shape: a JaggedShape.
  ndim: how many trailing dimensions of `x` travel with each item (0 by
    default).

Examples:
  >>> kd.shapes.expand_to_shape(kd.slice(['a', 'b']), kd.shapes.new(2, 3))
  DataSlice([['a', 'a', 'a'], ['b', 'b', 'b']], schema: STRING, present: 6/6)"#,
        expand_to_shape,
    );
    r.add(
        "kd.shapes.is_expandable_to_shape",
        &[],
        "x, target_shape, ndim=unspecified",
        r#"Returns `kd.present` if `x` can be expanded to `target_shape`, else `kd.missing`.

This is whether `kd.shapes.expand_to_shape(x, target_shape, ndim)`
would succeed: the shape of `x` (without its last `ndim` dimensions)
must be a prefix of `target_shape`.

Args:
  x: a DataSlice.
  target_shape: a JaggedShape.
  ndim: how many trailing dimensions of `x` travel with each item (0 by
    default).

Examples:
  >>> shape = kd.shapes.new(2, [2, 1])
  >>> kd.shapes.is_expandable_to_shape(kd.slice([1, 2]), shape)
  DataItem(present, schema: MASK)
  >>> kd.shapes.is_expandable_to_shape(kd.slice([1, 2, 3]), shape)
  DataItem(missing, schema: MASK)
  >>> kd.shapes.is_expandable_to_shape(kd.slice([[1, 2], [3]]), kd.shapes.new(2), ndim=1)
  DataItem(present, schema: MASK)"#,
        is_expandable_to_shape,
    );
    r.bag_rule("kd.shapes.is_expandable_to_shape", BagRule::Drop);
    r.add(
        "kd.slices.expand_to",
        &["kd.expand_to"],
        "x, target, ndim=unspecified",
        r#"Expands `x` to the shape of `target` (prefix broadcasting).

The shape of `x` (without its last `ndim` dimensions) must be a prefix of
the shape of `target`; each item is repeated for the items under it.

Args:
  x: a DataSlice.
  target: the DataSlice whose shape to expand to.
  ndim: how many trailing dimensions of `x` travel with each item (0 by
    default).

Examples:
  >>> kd.expand_to(kd.slice(['q1', 'q2']), kd.slice([['d1', 'd2'], ['d3']]))
  DataSlice([['q1', 'q1'], ['q2']], schema: STRING, present: 3/3)"#,
        |a: &Args<'_>| -> Result<DataSlice> { expand(a.op_name(), a.slice("x")?, a.slice("target")?.shape(), ndim_arg(a)?) },
    );
    // The result holds x's items: x's bag only, not the target's.
    r.bag_rule("kd.slices.expand_to", BagRule::From(&["x"]));
    r.add(
        "kd.slices._under_batch",
        &[],
        "x, like, ndim, x_ndim=0",
        r#"Returns `x` under the first `ndim` dimensions of `like`: each item there gets all of `x` (`kd.vmap`).

`x`'s own dimensions after its first `x_ndim` (which are batch dimensions
already, a prefix of `like`'s) travel with each item. An `x` with no such
dimension (a DataItem when `x_ndim` is 0) is returned as it is: it
broadcasts to any batch. This is how `kd.vmap` gives every example an
argument that is not batched.

Args:
  x: the value every example gets.
  like: a batched DataSlice.
  ndim: how many leading dimensions of `like` are the batch's.
  x_ndim: how many leading dimensions of `x` are batch dimensions.

Examples:
  >>> kd.slices._under_batch(kd.slice([1, 2]), kd.slice([[0, 0], [0]]), 1)
  DataSlice([[1, 2], [1, 2]], schema: INT32, present: 4/4)"#,
        |a: &Args<'_>| -> Result<DataSlice> {
            let x = a.slice("x")?;
            let like = a.slice("like")?;
            let (ndim, x_ndim) = (a.int("ndim")?, a.opt_int("x_ndim")?.unwrap_or(0));
            if ndim < 0 || ndim as usize > like.rank() {
                return Err(plait_core::Error::value(a.op_name(), format!("ndim must be between 0 and {}, got {ndim}", like.rank())));
            }
            if x_ndim < 0 || x_ndim > ndim || x_ndim as usize > x.rank() {
                return Err(plait_core::Error::value(
                    a.op_name(),
                    format!("x_ndim must be between 0 and {}, got {x_ndim}", ndim.min(x.rank() as i64)),
                ));
            }
            if x.rank() == x_ndim as usize {
                return Ok(x.clone());
            }
            plait_core::broadcast::expand_to_shape(a.op_name(), x, &like.shape().prefix(ndim as usize), x.rank() - x_ndim as usize)
        },
    );
    r.bag_rule("kd.slices._under_batch", BagRule::From(&["x"]));
    r.add(
        "kd.slices._example_rank",
        &[],
        "x, ndim, least, op",
        r#"Returns `x` when each of its examples (below its first `ndim` dimensions) has at least `least` dimensions (`kd.vmap`).

Otherwise a ValueError names the operator `op` that needs them: under
`kd.vmap`, an operator over the last dimension of a batch of single items
would reach the batch's own dimension.

Args:
  x: a batched DataSlice.
  ndim: how many leading dimensions of `x` are the batch's.
  least: the dimensions each example needs.
  op: the name of the operator that needs them.

Examples:
  >>> kd.slices._example_rank(kd.slice([[1, 2], [3]]), 1, 1, 'kd.sort')
  DataSlice([[1, 2], [3]], schema: INT32, present: 3/3)"#,
        |a: &Args<'_>| -> Result<DataSlice> {
            let x = a.slice("x")?;
            let (ndim, least) = (a.int("ndim")?, a.int("least")?);
            let rank = x.rank() as i64 - ndim;
            if rank < least {
                let op = a.slice("op")?;
                let op = match op.get(0) {
                    Some(plait_core::ScalarRef::String(s)) => s.to_string(),
                    _ => "an operator".to_string(),
                };
                return Err(plait_core::Error::value(
                    "kd.vmap",
                    format!("{op} needs examples of at least {least} dimension(s), but each example has {}", rank.max(0)),
                ));
            }
            Ok(x.clone())
        },
    );
    r.bag_rule("kd.slices._example_rank", BagRule::From(&["x"]));
    r.type_rule(
        "kd.slices._example_rank",
        crate::typing::TypeRule::new(|a: &crate::typing::TypeArgs<'_>| Ok(crate::typing::TypeValue::slice(a.slice("x")?.clone()))),
    );
    r.type_rule(
        "kd.slices._under_batch",
        crate::typing::TypeRule::new(|a: &crate::typing::TypeArgs<'_>| {
            let x = a.slice("x")?;
            Ok(crate::typing::TypeValue::slice(if x.rank() == Some(0) { x.clone() } else { x.with_unknown_dims() }))
        }),
    );
    r.add_value(
        "kd.slices.align",
        &["kd.align"],
        "*args",
        r#"Expands the given DataSlices to one common shape.

Every argument is expanded to the shape of the argument with the most
dimensions, so each shape must be a prefix of that one (a DataItem fits any
shape); otherwise ValueError is raised. Python values are boxed first. The
result is a tuple with one DataSlice per argument, in order.

Args:
  *args: DataSlices (or Python values) to align.

Examples:
  >>> x, y = kd.align(kd.slice([[1, 2], [3]]), kd.slice([10, 20]))
  >>> y
  DataSlice([[10, 10], [20]], schema: INT32, present: 3/3)
  >>> kd.align(kd.item('a'), kd.slice([1, 2]))
  (DataSlice(['a', 'a'], schema: STRING, present: 2/2), DataSlice([1, 2], schema: INT32, present: 2/2))"#,
        align,
    );
    r.type_rule("kd.slices.expand_to", crate::typing::rules::expand_to());
    r.type_rule("kd.slices.get_ndim", crate::typing::rules::aggregate_all(None, crate::typing::rules::Out::Fixed(plait_core::Schema::Int64)));
    use super::types;
    let typed: [(&str, crate::typing::RuleFunction); 9] = [
        ("kd.shapes.dim_sizes", types::dim_sizes),
        ("kd.shapes.dim_mapping", types::dim_mapping),
        ("kd.shapes.flatten", types::flatten),
        ("kd.shapes.flatten_end", types::flatten_end),
        ("kd.shapes.get_sizes", types::get_sizes),
        ("kd.shapes.new", types::new_shape),
        ("kd.shapes.reshape_as", types::reshape_as),
        ("kd.shapes.expand_to_shape", types::expand_to_shape),
        ("kd.slices.align", crate::slices::types::align),
    ];
    for (name, rule) in typed {
        r.type_rule(name, crate::typing::TypeRule::new(rule));
    }
    for name in ["kd.shapes.rank", "kd.shapes.size"] {
        r.type_rule(name, crate::typing::rules::item(&[], plait_core::Schema::Int64));
    }
    r.type_rule("kd.shapes.is_expandable_to_shape", crate::typing::rules::item(&[], plait_core::Schema::Mask));
}
