//! The bag operators: layering bags (`kd.bags.updated`, `kd.bags.enriched`),
//! attaching and removing them (`kd.with_bag`, `kd.no_bag`, `kd.updated`,
//! ...), and bags of attribute updates (`kd.attrs`, `kd.attr`). Their
//! kernels return [`Value`]s: a bag, or a slice with the bag they chose.

use plait_core::{DataBag, DataSlice, Error, Result, ScalarRef, Schema};

use crate::objects::update;
use crate::registry::{Args, Registry, Value};

/// One bag reading `bags`: the last one first when `last_first` (updates
/// win), else the first one first (enrichments fill in). Null bags are
/// skipped; none at all gives a new empty bag.
fn layered(bags: &[&DataBag], last_first: bool) -> DataBag {
    let bags: Vec<DataBag> = bags.iter().map(|b| (*b).clone()).collect();
    match bags.split_first() {
        Some((base, updates)) if last_first => DataBag::updated(base, updates),
        _ => DataBag::enriched(&bags),
    }
}

/// The `*bag(s)` arguments, without the null bags.
fn var_bags<'a>(a: &'a Args<'_>) -> Result<Vec<&'a DataBag>> {
    Ok(a.var_bags()?.into_iter().flatten().collect())
}

fn mask_item(yes: bool) -> Result<DataSlice> {
    DataSlice::item(yes.then_some(ScalarRef::Mask), Schema::Mask)
}

fn bag_value(bag: DataBag) -> Result<Value> {
    Ok(Value::Bag(Some(bag)))
}

fn slice_value(x: DataSlice) -> Result<Value> {
    Ok(Value::Slice(x))
}

/// `ds` with its own bag and `bags` layered (`updated`: `bags` win).
fn with_layers(a: &Args<'_>, last_first: bool) -> Result<Value> {
    let ds = a.slice("ds")?;
    let mut bags: Vec<&DataBag> = ds.bag().into_iter().collect();
    bags.extend(var_bags(a)?);
    slice_value(ds.clone().with_bag(Some(layered(&bags, last_first))))
}

fn attrs(a: &Args<'_>) -> Result<Value> {
    bag_value(update::attrs(a.slice("x")?, &a.named_slices()?, a.bool("overwrite_schema")?)?)
}

fn attr(a: &Args<'_>) -> Result<Value> {
    let value = a.slice("value")?.clone();
    let x = a.slice("x")?;
    update::one_attr_of_primitives(x)?;
    bag_value(update::attrs(x, &[(a.text("attr_name")?, value)], a.bool("overwrite_schema")?)?)
}

fn with_merged_bag(a: &Args<'_>) -> Result<Value> {
    let ds = a.slice("ds")?;
    let bag = ds.bag().ok_or_else(|| Error::value(a.op_name(), "expect the DataSlice to have a DataBag attached"))?;
    slice_value(ds.clone().with_bag(Some(bag.merged())))
}

pub(crate) fn register(r: &mut Registry) {
    register_layering(r);
    register_attaching(r);
    register_updates(r);
    // Type rules (see `crate::typing`).
    use crate::typing::rules::{Out, bag, item, like};
    use plait_core::Schema;
    for name in ["kd.bags.enriched", "kd.bags.updated", "kd.core.get_bag", "kd.core.freeze"] {
        r.type_rule(name, bag());
    }
    for name in ["kd.bags.is_null_bag", "kd.core.has_bag"] {
        r.type_rule(name, item(&[], Schema::Mask));
    }
    for name in ["kd.core.enriched", "kd.core.with_merged_bag", "kd.core.no_bag"] {
        r.type_rule(name, like("ds", Out::SameAs("ds")));
    }
    r.type_rule("kd.core.freeze_bag", like("x", Out::SameAs("x")));
    // Another bag may give the schema other attributes, an update other
    // schemas to the attributes it has.
    r.type_rule("kd.core.with_bag", like("ds", Out::Unknown));
    r.type_rule("kd.core.updated", like("ds", Out::Unknown));
}

fn register_layering(r: &mut Registry) {
    r.add_value(
        "kd.bags.updated",
        &["kd.updated_bag"],
        "*bags",
        r#"Returns one immutable bag that reads `bags`, the last one first.

Nothing is copied: the new bag keeps `bags` as fallbacks, so this is O(1).
Where several bags hold a value for the same attribute, the one from the
latest bag is read. `kd.updated_bag(a, b, c)` reads like
`kd.updated_bag(a, kd.updated_bag(b, c))`.

Args:
  *bags: the DataBags to read, lowest priority first.

Examples:
  >>> x = kd.new(a=1)
  >>> bag = kd.updated_bag(kd.attrs(x, a=2), kd.attrs(x, a=3))
  >>> x.with_bag(bag).a
  DataItem(3, schema: INT32, bag_id: $...)"#,
        |a| bag_value(layered(&var_bags(a)?, true)),
    );
    r.add_value(
        "kd.bags.enriched",
        &["kd.enriched_bag"],
        "*bags",
        r#"Returns one immutable bag that reads `bags`, the first one first.

Nothing is copied: the new bag keeps `bags` as fallbacks, so this is O(1).
Where several bags hold a value for the same attribute, the one from the
earliest bag is read; later bags only fill in what earlier ones lack.

Args:
  *bags: the DataBags to read, highest priority first.

Examples:
  >>> x = kd.new(a=1)
  >>> bag = kd.enriched_bag(kd.attrs(x, a=2), kd.attrs(x, a=3, b=4))
  >>> x.with_bag(bag)
  DataItem(Entity(a=2, b=4), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)"#,
        |a| bag_value(layered(&var_bags(a)?, false)),
    );
    r.add(
        "kd.bags.is_null_bag",
        &["kd.is_null_bag"],
        "bag",
        r#"Returns `kd.present` when `bag` is no bag at all.

A slice without a bag reports its bag as None in plait, and None counts
as the null bag here; any real DataBag, even an empty one, gives
`kd.missing`.

Args:
  bag: a DataBag, or None.

Examples:
  >>> kd.bags.is_null_bag(kd.item(1).get_bag())
  DataItem(present, schema: MASK)
  >>> kd.bags.is_null_bag(kd.new(a=1).get_bag())
  DataItem(missing, schema: MASK)"#,
        |a| mask_item(a.bag("bag")?.is_none()),
    );
    r.add_value(
        "kd.core.updated",
        &["kd.updated"],
        "ds, *bag",
        r#"Returns `ds` with its bag updated by `bag`s, whose values win.

The result gets a new immutable bag that reads the given bags (the last
one first) before the bag of `ds`; nothing is copied and `ds` itself is
left as it was. `x.updated(bag)` and `x << bag` do the same.

Args:
  ds: a DataSlice, with or without a bag.
  *bag: DataBags of updates, lowest priority first.

Examples:
  >>> x = kd.new(a=1)
  >>> kd.updated(x, kd.attrs(x, a=2, b='z'))
  DataItem(Entity(a=2, b='z'), schema: ENTITY(a=INT32, b=STRING), bag_id: $...)
  >>> kd.updated(x, kd.attrs(x, a=2), kd.attrs(x, a=3)).a
  DataItem(3, schema: INT32, bag_id: $...)"#,
        |a| with_layers(a, true),
    );
    r.add_value(
        "kd.core.enriched",
        &["kd.enriched"],
        "ds, *bag",
        r#"Returns `ds` with the given bags added behind its bag, so its own values win.

The result gets a new immutable bag that reads the bag of `ds` first and
then the given bags in order; they only supply what the earlier bags lack.
Nothing is copied. `x.enriched(bag)` and `x >> bag` do the same.

Args:
  ds: a DataSlice, with or without a bag.
  *bag: DataBags to fall back to, highest priority first.

Examples:
  >>> x = kd.new(a=1)
  >>> kd.enriched(x, kd.attrs(x, a=2, b=3))
  DataItem(Entity(a=1, b=3), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)"#,
        |a| with_layers(a, false),
    );
}

fn register_attaching(r: &mut Registry) {
    r.add_value(
        "kd.core.get_bag",
        &["kd.get_bag"],
        "ds",
        r#"Returns the bag of `ds`, or the null bag when it has none.

The null bag prints as `DataBag(null)`; `kd.is_null_bag` tells it apart,
and attaching it (`kd.with_bag(x, kd.get_bag(y))`) removes the bag.

Args:
  ds: a DataSlice.

Examples:
  >>> x = kd.new(a=1)
  >>> kd.no_bag(x).with_bag(kd.get_bag(x)).a
  DataItem(1, schema: INT32, bag_id: $...)
  >>> kd.get_bag(kd.slice([1, 2]))
  DataBag(null)
  >>> kd.is_null_bag(kd.get_bag(kd.slice([1, 2])))
  DataItem(present, schema: MASK)"#,
        |a| Ok(Value::Bag(a.slice("ds")?.bag().cloned())),
    );
    r.add_value(
        "kd.core.with_bag",
        &["kd.with_bag"],
        "ds, bag",
        r#"Returns `ds` with `bag` attached in place of its own.

The bag is replaced, not merged: only what `bag` holds is readable.

Args:
  ds: a DataSlice.
  bag: the DataBag to attach.

Examples:
  >>> x = kd.new(a=1)
  >>> kd.with_bag(kd.no_bag(x), x.get_bag()).a
  DataItem(1, schema: INT32, bag_id: $...)
  >>> kd.with_bag(x, kd.attrs(x, a=5)).a
  DataItem(5, schema: INT32, bag_id: $...)"#,
        |a| slice_value(a.slice("ds")?.clone().with_bag(a.bag("bag")?.cloned())),
    );
    r.add_value(
        "kd.core.no_bag",
        &["kd.no_bag"],
        "ds",
        r#"Returns `ds` without a bag.

Entities and objects become bare references (their ItemIds), whose
attributes cannot be read until a bag is attached again.

Args:
  ds: a DataSlice.

Examples:
  >>> kd.no_bag(kd.new(a=1))
  DataItem($..., schema: $...)
  >>> kd.core.has_bag(kd.no_bag(kd.new(a=1)))
  DataItem(missing, schema: MASK)"#,
        |a| slice_value(a.slice("ds")?.clone().with_bag(None)),
    );
    r.add(
        "kd.core.has_bag",
        &["kd.has_bag"],
        "ds",
        r#"Returns `kd.present` when `ds` has a bag attached, else `kd.missing`.

Args:
  ds: a DataSlice.

Examples:
  >>> kd.core.has_bag(kd.new(a=1))
  DataItem(present, schema: MASK)
  >>> kd.core.has_bag(kd.slice([1, 2]))
  DataItem(missing, schema: MASK)"#,
        |a| mask_item(a.slice("ds")?.bag().is_some()),
    );
    r.add_value(
        "kd.core.freeze_bag",
        &["kd.freeze_bag"],
        "x",
        r#"Returns `x` with an immutable copy of its bag.

Later changes to the original (mutable) bag do not show in the result.
A slice without a bag is returned as it is.

Args:
  x: a DataSlice.

Examples:
  >>> x = kd.mutable_bag().new(a=1)
  >>> frozen = kd.freeze_bag(x)
  >>> frozen.get_bag().is_mutable()
  DataItem(missing, schema: MASK)
  >>> x.set_attr('a', 2)
  >>> frozen.a
  DataItem(1, schema: INT32, bag_id: $...)"#,
        |a| {
            let x = a.slice("x")?;
            slice_value(x.clone().with_bag(x.bag().map(|b| b.fork(false))))
        },
    );
    r.non_deterministic("kd.core.freeze_bag");
    r.add_value(
        "kd.core.freeze",
        &["kd.freeze"],
        "x",
        r#"Returns a frozen (immutable) version of bag `x`.

A mutable bag gets an immutable copy (O(1), copy-on-write): later changes to
`x` do not show in it. An immutable bag is returned as it is. (To freeze the
bag of a DataSlice, use `kd.freeze_bag`.)

Args:
  x: a DataBag.

Examples:
  >>> bag = kd.mutable_bag()
  >>> kd.freeze(bag).is_mutable()
  DataItem(missing, schema: MASK)
  >>> kd.freeze(kd.new(a=1))
  Traceback (most recent call last):
  ...
  ValueError: kd.core.freeze: expected DATA_BAG, got x: DATA_SLICE"#,
        |a| match a.value("x") {
            Some(Value::Bag(Some(bag))) => bag_value(if bag.is_mutable() { bag.fork(false) } else { bag.clone() }),
            Some(Value::Slice(_)) => Err(Error::value(a.op_name(), "expected DATA_BAG, got x: DATA_SLICE")),
            Some(other) => Err(Error::type_error(a.op_name(), format!("expected DATA_BAG, got x: {}", other.describe()))),
            None => Err(Error::type_error(a.op_name(), "missing required argument: 'x'")),
        },
    );
    r.non_deterministic("kd.core.freeze");
    r.add_value(
        "kd.core.with_merged_bag",
        &["kd.with_merged_bag"],
        "ds",
        r#"Returns `ds` with its bag and all its fallbacks merged into one new bag.

Layered bags (from `kd.updated`, `kd.enriched`, ...) are read through
their parts; this copies what they hold into a single immutable bag,
which can make later reads faster. Raises when `ds` has no bag.

Args:
  ds: a DataSlice with a bag.

Examples:
  >>> x = kd.new(a=1)
  >>> kd.with_merged_bag(kd.updated(x, kd.attrs(x, b=2)))
  DataItem(Entity(a=1, b=2), schema: ENTITY(a=INT32, b=INT32), bag_id: $...)
  >>> kd.with_merged_bag(kd.item(1))
  Traceback (most recent call last):
  ...
  ValueError: kd.core.with_merged_bag: expect the DataSlice to have a DataBag attached"#,
        with_merged_bag,
    );
}

fn register_updates(r: &mut Registry) {
    r.add_value(
        "kd.core.attrs",
        &["kd.attrs"],
        "x, /, *, overwrite_schema=False, **attrs",
        r#"Returns a new bag holding the attributes `attrs` of `x`.

`x` itself is not changed: apply the bag with `kd.updated(x, bag)`.
Values broadcast to the shape of `x`. An attribute that already exists
keeps its schema: a value that cannot be cast to it raises, unless `x`
is an OBJECT or `overwrite_schema` is True.

Args:
  x: entities or objects (a DataSlice with a bag).
  overwrite_schema: whether to replace the schemas of existing attributes.
  **attrs: the attribute values, by name.

Examples:
  >>> x = kd.new(a=1)
  >>> kd.updated(x, kd.attrs(x, a=2, b='z'))
  DataItem(Entity(a=2, b='z'), schema: ENTITY(a=INT32, b=STRING), bag_id: $...)
  >>> kd.attrs(x, a='s')
  Traceback (most recent call last):
  ...
  ValueError: kd.core.attrs: the schema for attribute 'a' is incompatible...
  >>> kd.updated(x, kd.attrs(x, a='s', overwrite_schema=True)).a
  DataItem('s', schema: STRING, bag_id: $...)"#,
        attrs,
    );
    r.add_value(
        "kd.core.strict_attrs",
        &["kd.strict_attrs"],
        "x, /, **attrs",
        r#"Returns a new bag holding the attributes `attrs` of entities `x`, which their schema must have.

Like `kd.attrs` without `overwrite_schema`: every attribute must already be
in x's entity schema, and each value must fit the attribute's schema. Apply
the bag with `kd.updated(x, bag)`.

Args:
  x: a DataSlice of entities (an entity schema).
  **attrs: the attribute values, by name.

Examples:
  >>> x = kd.new(a=1, b='z')
  >>> kd.updated(x, kd.strict_attrs(x, a=2))
  DataItem(Entity(a=2, b='z'), schema: ENTITY(a=INT32, b=STRING), bag_id: $...)
  >>> kd.strict_attrs(x, c=1)
  Traceback (most recent call last):
  ...
  ValueError: kd.core.strict_attrs: attribute 'c' not found in schema: ENTITY(a=INT32, b=STRING)
  >>> kd.strict_attrs(kd.item(1), a=1)
  Traceback (most recent call last):
  ...
  ValueError: kd.core.strict_attrs: primitives do not have attributes, got INT32"#,
        |a| bag_value(update::strict_attrs(a.slice("x")?, &a.named_slices()?)?),
    );
    r.add_value(
        "kd.core.attr",
        &["kd.attr"],
        "x, attr_name, value, overwrite_schema=False",
        r#"Returns a new bag holding the attribute `attr_name` of `x`.

Like `kd.attrs` with a single attribute, whose name is given as a string,
so it may be any text (`'full name'`, `'1'`).

Args:
  x: entities or objects (a DataSlice with a bag).
  attr_name: the name of the attribute.
  value: its value, broadcast to the shape of `x`.
  overwrite_schema: whether to replace the schema of an existing attribute.

Examples:
  >>> x = kd.new(a=1)
  >>> kd.updated(x, kd.attr(x, 'full name', 'Ann')).get_attr('full name')
  DataItem('Ann', schema: STRING, bag_id: $...)
  >>> kd.updated(x, kd.attr(x, 'a', 'one', overwrite_schema=True)).a
  DataItem('one', schema: STRING, bag_id: $...)"#,
        attr,
    );
}
