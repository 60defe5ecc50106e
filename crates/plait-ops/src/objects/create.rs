//! Creating entities and objects: `kd.new` (entities with an explicit
//! schema) and `kd.obj` (objects, each with an implicit schema).

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::SCHEMA_NAME_ATTR;
use plait_core::broadcast::{common_shape, expand_to_shape};
use plait_core::itemid::{UuidHasher, allocate};
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, JaggedShape, Result, ScalarRef, Schema, SliceData};

use super::model::{
    Ids, Target, bag_made_for, fresh_allocation, fresh_ids, ids_data, ids_of, implicit_schemas_of, made_for, new_bag_over, refuse_schema_attr,
    same_schema_data, schemas_data, whole_allocation, write_attrs,
};
use crate::registry::Registry;

const NEW: &str = "kd.entities.new";
const OBJ: &str = "kd.objs.new";
const UU: &str = "kd.entities.uu";
const UUOBJ: &str = "kd.objs.uu";

/// The attribute values expanded to their common shape, and that shape.
fn aligned(op: &str, attrs: &[(String, DataSlice)], base: Option<&JaggedShape>) -> Result<(JaggedShape, Vec<(String, DataSlice)>)> {
    let mut shapes: Vec<&JaggedShape> = attrs.iter().map(|(_, v)| v.shape()).collect();
    shapes.extend(base);
    let shape = match base {
        Some(b) => b.clone(),
        None => common_shape(op, &shapes)?,
    };
    let attrs =
        attrs.iter().map(|(n, v)| Ok((n.clone(), expand_to_shape(op, v, &shape, 0)?.with_bag(v.bag().cloned())))).collect::<Result<Vec<_>>>()?;
    Ok((shape, attrs))
}

/// How `kd.new` was told the schema.
pub enum SchemaArg<'a> {
    /// A new explicit schema.
    Fresh,
    /// `schema='Name'`: the named schema (a uuid of the name).
    Named(&'a str),
    /// A schema item.
    Given(&'a DataSlice),
    /// The uu schema of the attributes' schemas (`kd.uu` without a schema):
    /// its id, its attributes written from the values.
    Derived(ItemId),
}

/// The named schema `name`: the same id for the same name.
pub fn named_schema_id(name: &str) -> ItemId {
    let mut h = UuidHasher::new("named_schema");
    h.write_str(name);
    ItemId::uuid(ItemKind::Schema, h.finish())
}

/// `kd.new(**attrs, schema=..., overwrite_schema=..., itemid=...)`.
pub fn new(
    attrs: &[(String, DataSlice)],
    schema: SchemaArg<'_>,
    overwrite_schema: bool,
    itemid: Option<&DataSlice>,
    shape: Option<&JaggedShape>,
) -> Result<DataSlice> {
    let (shape, attrs) = aligned(NEW, attrs, shape.or(itemid.map(|i| i.shape())))?;
    let (ids, ids_column) = item_ids(NEW, ItemKind::Object, &shape, itemid)?;
    let mut inputs: Vec<&DataSlice> = attrs.iter().map(|(_, v)| v).collect();
    let (schema_id, named) = match &schema {
        SchemaArg::Fresh => (allocate(ItemKind::Schema, 1).1[0], None),
        SchemaArg::Named(name) => (named_schema_id(name), Some(*name)),
        SchemaArg::Derived(id) => (*id, None),
        SchemaArg::Given(s) => {
            inputs.push(s);
            match s.get(0) {
                Some(ScalarRef::Schema(Schema::Struct(id))) if s.is_item() => {
                    crate::schema::slice_schema(NEW, Schema::Struct(id))?;
                    (id, None)
                }
                _ => {
                    return Err(Error::value(NEW, format!("cannot create Item(s) with the provided schema: {}", plait_core::repr::format_items(s))));
                }
            }
        }
    };
    let bag = new_bag_over(NEW, &inputs)?;
    if let Some(name) = named {
        let text = plait_core::column::SliceData::from_column(string_column(name));
        bag.fill(|w| w.set_attr(SCHEMA_NAME_ATTR, &[Some(schema_id)], &text));
    }
    if let (SchemaArg::Fresh, Ids::Whole { allocation, .. }) = (&schema, &ids) {
        // A new schema has no attributes to check the values against: each
        // takes its value's schema, written with the values in one pass.
        write_fresh(&bag, schema_id, *allocation, &attrs)?;
        return Ok(made_for(DataSlice::new(shape, ids_column, Schema::Struct(schema_id))?.with_bag(Some(bag))));
    }
    write_attrs(NEW, &bag, &ids, &Target::Struct(schema_id), &attrs, overwrite_schema, true).map_err(|e| {
        if matches!(schema, SchemaArg::Given(_)) && e.message.contains("incompatible") {
            Error::value(
                NEW,
                format!(
                    "cannot create Item(s) with the provided schema: {}",
                    plait_core::bag::text::schema_text(Schema::Struct(schema_id), Some(&bag))
                ),
            )
        } else {
            e
        }
    })?;
    Ok(made_for(DataSlice::new(shape, ids_column, Schema::Struct(schema_id))?.with_bag(Some(bag))))
}

/// The attributes of entities of a new schema `schema_id` (no attribute
/// yet), all of them new allocation `allocation`: each attribute's schema
/// and values (expanded to the entities' shape).
fn write_fresh(bag: &plait_core::DataBag, schema_id: ItemId, allocation: u64, attrs: &[(String, DataSlice)]) -> Result<()> {
    for (name, _) in attrs {
        refuse_schema_attr(NEW, name)?;
    }
    bag.fill(|w| {
        for (name, value) in attrs {
            w.set_attr(name, &[Some(schema_id)], &schemas_data(vec![Some(value.schema())]));
            w.set_attr_of_allocation(name, allocation, value.data());
        }
    });
    Ok(())
}

fn string_column(s: &str) -> plait_core::Column {
    let mut b = plait_core::column::ColumnBuilder::new(Schema::String, 1);
    b.push(ScalarRef::String(s));
    b.finish()
}

/// New ids for every item of `shape`, or the ids given as `itemid`; and the
/// same ids as the result's column.
fn item_ids(op: &str, kind: ItemKind, shape: &JaggedShape, itemid: Option<&DataSlice>) -> Result<(Ids, SliceData)> {
    match itemid {
        None => Ok(fresh_ids(kind, shape.size())),
        // As Koda: ITEMID, every item present.
        Some(x) if x.schema() == Schema::ItemId && x.present_count() == x.size() => {
            let x = expand_to_shape(op, x, shape, 0)?;
            let ids = ids_of(&x);
            // Two items with one id would be one item written twice.
            if super::model::whole_allocation(x.data()).is_none() && !all_distinct(&ids) {
                return Err(Error::value(op, "cannot create Item(s): `itemid` gives the same id to several items"));
            }
            let column = ids_data(&ids);
            Ok((Ids::List(ids), column))
        }
        Some(x) => {
            Err(Error::value(op, format!("cannot create Item(s): `itemid` must be ITEMID with every item present, got {}", crate::describe(x))))
        }
    }
}

/// Whether the present ids of `ids` are all different.
fn all_distinct(ids: &[Option<ItemId>]) -> bool {
    let mut sorted: Vec<u128> = ids.iter().flatten().map(|id| id.0).collect();
    sorted.sort_unstable();
    sorted.windows(2).all(|w| w[0] != w[1])
}

/// `kd.obj(**attrs, itemid=...)`: objects whose implicit schemas are stored
/// in `__schema__` (one per object, named after the object).
pub fn obj(attrs: &[(String, DataSlice)], itemid: Option<&DataSlice>, shape: Option<&JaggedShape>) -> Result<DataSlice> {
    let (shape, attrs) = aligned(OBJ, attrs, shape.or(itemid.map(|i| i.shape())))?;
    let (ids, ids_column) = item_ids(OBJ, ItemKind::Object, &shape, itemid)?;
    let inputs: Vec<&DataSlice> = attrs.iter().map(|(_, v)| v).collect();
    let bag = new_bag_over(OBJ, &inputs)?;
    // Each object's implicit schema has the object's allocation and offset.
    let schema_ids = match &ids {
        Ids::Whole { allocation, len } => {
            let (schema_ids, schemas) = implicit_schemas_of(*allocation, *len);
            bag.fill(|w| w.set_attr_of_allocation(SCHEMA_ATTR, *allocation, &schemas));
            schema_ids
        }
        Ids::List(list) => {
            let schema_ids: Vec<Option<ItemId>> = list.iter().map(|id| id.map(|i| i.with_kind(ItemKind::ImplicitSchema))).collect();
            let schemas = schemas_data(schema_ids.iter().map(|s| s.map(Schema::Struct)).collect());
            bag.fill(|w| w.set_attr(SCHEMA_ATTR, list, &schemas));
            Ids::List(schema_ids)
        }
    };
    write_attrs(OBJ, &bag, &ids, &Target::PerItem(schema_ids), &attrs, false, true)?;
    Ok(made_for(DataSlice::new(shape, ids_column, Schema::Object)?.with_bag(Some(bag))))
}

/// `n` new objects, each with only the attributes given for it (what
/// `kd.from_py(..., dict_as_obj=True)` makes of dicts with differing keys):
/// entry `k` sets attribute `names[k]` of object `rows[k]` to item `k` of
/// `values` (a 1-D slice). Each object has its own implicit schema. Objects
/// with the same attribute names, in order, are made together, in an
/// allocation of their own: each attribute is one column over it, and the
/// bag's index of names by allocation then tells readers (to_py, to_json,
/// clone) which objects have which attributes.
pub fn objects_with_attrs_at(n: usize, rows: &[usize], names: &[String], values: &DataSlice) -> Result<DataSlice> {
    let bag = new_bag_over(OBJ, &[values])?;
    let ids = write_objects_with_attrs_at(&bag, n, rows, names, values)?;
    let ids_column = SliceData::from_column(plait_core::Column::full(plait_core::Values::ItemId(ids.into())));
    Ok(made_for(DataSlice::new(JaggedShape::flat(n), ids_column, Schema::Object)?.with_bag(Some(bag))))
}

/// Writes the objects of [`objects_with_attrs_at`] into `bag` (being
/// built); returns their ids.
pub(super) fn write_objects_with_attrs_at(
    bag: &plait_core::DataBag,
    n: usize,
    rows: &[usize],
    names: &[String],
    values: &DataSlice,
) -> Result<Vec<i128>> {
    if rows.len() != names.len() || names.len() != values.size() || values.rank() != 1 || rows.iter().any(|&r| r >= n) {
        return Err(Error::value(OBJ, "objects_with_attrs_at: expected one row below `n` and one value per attribute name"));
    }
    if names.iter().any(|name| name == SCHEMA_ATTR) {
        // A dict's `__schema__` key (`kd.from_py(..., dict_as_obj=True)`):
        // Koda's words (the values are OBJECT here).
        return Err(Error::value("kd.from_py", "only schemas can be assigned to the '__schema__' attribute, got OBJECT"));
    }
    // The entries of each row, row after row (`starts[r]..starts[r + 1]`
    // of `entries`), and each entry's name as a number: one buffer each,
    // not a list per row.
    let mut starts = vec![0usize; n + 1];
    for &row in rows {
        starts[row + 1] += 1;
    }
    for r in 0..n {
        starts[r + 1] += starts[r];
    }
    let mut next = starts.clone();
    let mut entries = vec![0usize; rows.len()];
    for (k, &row) in rows.iter().enumerate() {
        entries[next[row]] = k;
        next[row] += 1;
    }
    let mut name_numbers: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let numbered: Vec<u32> = entries
        .iter()
        .map(|&k| {
            let count = name_numbers.len() as u32;
            *name_numbers.entry(names[k].as_str()).or_insert(count)
        })
        .collect();
    // The rows of each list of names, lists in the order they first come.
    let mut group_of: std::collections::HashMap<&[u32], usize> = std::collections::HashMap::new();
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for row in 0..n {
        let g = *group_of.entry(&numbered[starts[row]..starts[row + 1]]).or_insert_with(|| {
            groups.push((row, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(row);
    }
    let mut ids = vec![0i128; n];
    for (first, members) in groups {
        let (allocation, _) = fresh_allocation(ItemKind::Object, members.len());
        let (schema_ids, schemas) = implicit_schemas_of(allocation, members.len());
        bag.fill(|w| w.set_attr_of_allocation(SCHEMA_ATTR, allocation, &schemas));
        for (at, &row) in members.iter().enumerate() {
            ids[row] = (Ids::base(allocation) + at as u128) as i128;
        }
        let object_ids = Ids::Whole { allocation, len: members.len() };
        // The group's names are those of its first row, in order.
        let attrs = (0..starts[first + 1] - starts[first])
            .map(|j| {
                let at: Vec<usize> = members.iter().map(|&row| entries[starts[row] + j]).collect();
                let held = DataSlice::new(JaggedShape::flat(at.len()), values.data().take(&at), values.schema())?.with_bag(values.bag().cloned());
                Ok((names[entries[starts[first] + j]].clone(), held))
            })
            .collect::<Result<Vec<_>>>()?;
        write_attrs(OBJ, bag, &object_ids, &Target::PerItem(schema_ids), &attrs, false, true)?;
    }
    Ok(ids)
}

/// `x` with its bag, or with a new empty bag: `kd.new(x)` / `kd.obj(x)`
/// always return a bag, as in Koda.
fn with_a_bag(x: DataSlice) -> DataSlice {
    match x.bag() {
        Some(_) => x,
        None => x.with_bag(Some(plait_core::DataBag::new_immutable())),
    }
}

/// `kd.new(x)` of a DataSlice `x`: its items (the same ids) in a new bag
/// that holds what they reach, cast to `schema` when one is given, as in
/// Koda.
fn new_of_slice(x: &DataSlice, schema: SchemaArg<'_>) -> Result<DataSlice> {
    let (x, schema_item) = match schema {
        SchemaArg::Fresh => (x.clone(), None),
        SchemaArg::Given(s) => {
            let target = crate::registry::schema_item_arg(NEW, "schema", s)?;
            (crate::schema::casts::explicit(NEW, x, target)?, Some(s))
        }
        SchemaArg::Named(_) => return Err(Error::value(NEW, "a DataSlice given to kd.new takes a schema item, not a schema name")),
        // (Only `kd.uu` derives its schema, from attributes: none here.)
        SchemaArg::Derived(_) => return Err(Error::internal("kd.new of a DataSlice with a derived schema")),
    };
    if x.schema().is_primitive() && x.schema() != Schema::Schema {
        return Ok(with_a_bag(x));
    }
    // The given schema's bag comes along: missing items (`kd.new(None,
    // schema=s)`) have no bag of their own to hold its attributes.
    let inputs: Vec<&DataSlice> = std::iter::once(&x).chain(schema_item).collect();
    Ok(x.clone().with_bag(Some(new_bag_over(NEW, &inputs)?)))
}

/// `kd.obj(x)` of a slice: see [`to_object`]. Schemas are not embedded.
pub fn obj_of(x: &DataSlice) -> Result<DataSlice> {
    if x.schema() == Schema::Schema {
        return Err(Error::value(OBJ, "schema embedding is only supported for a DataSlice with primitive, entity, list or dict schemas, got SCHEMA"));
    }
    to_object(OBJ, x)
}

/// What [`to_object_in`] did.
pub enum Embedded {
    /// The objects, their schema embedded in the bag.
    Made(DataSlice),
    /// Nothing: the values read another bag, or an immutable one.
    NotThere,
    /// Nothing: an item has another schema embedded there already.
    Conflicting,
}

/// `x` (entities, lists or dicts of one struct schema) as objects, their
/// schema embedded in `bag`, the mutable bag `x` reads (a value assigned
/// in place and made there, `d['k'] = {'x': 1}`): nothing to make over
/// `x` and merge back, as Koda embeds it in the target.
pub fn to_object_in(x: &DataSlice, bag: &DataBag) -> Result<Embedded> {
    let Schema::Struct(schema_id) = x.schema() else { return Ok(Embedded::NotThere) };
    if x.bag() != Some(bag) || !bag.is_mutable() {
        return Ok(Embedded::NotThere);
    }
    let schema = Schema::Struct(schema_id);
    let ids = ids_of(x);
    let embedded = bag.get_attr(SCHEMA_ATTR, &ids);
    if (0..embedded.len()).any(|i| embedded.get(i).is_some_and(|s| s != ScalarRef::Schema(schema))) {
        return Ok(Embedded::Conflicting);
    }
    embed_schema_into(bag, x, schema);
    Ok(Embedded::Made(x.with_schema(Schema::Object)?))
}

/// Writes `schema` into `bag` as the embedded schema (`__schema__`) of
/// `x`'s items: for all of one allocation (entities as `kd.new` made them),
/// one column of one schema, with no list of ids.
fn embed_schema_into(bag: &DataBag, x: &DataSlice, schema: Schema) {
    let as_column = whole_allocation(x.data())
        .is_some_and(|(allocation, n)| bag.fill(|w| w.set_attr_column(SCHEMA_ATTR, allocation, &same_schema_data(schema, n), None)));
    if !as_column {
        let ids = ids_of(x);
        let schemas = schemas_data(ids.iter().map(|id| id.map(|_| schema)).collect());
        bag.fill(|w| w.set_attr(SCHEMA_ATTR, &ids, &schemas));
    }
}

/// `x` as OBJECT (`kd.obj(x)`, `kd.to_object`, `kd.cast_to(x, kd.OBJECT)`):
/// primitives and schemas keep their values; entities, lists and dicts become
/// objects whose `__schema__` (written in a new bag over x's) is their schema.
pub fn to_object(op: &str, x: &DataSlice) -> Result<DataSlice> {
    match x.schema() {
        Schema::Struct(schema_id) => {
            let bag = new_bag_over(op, &[x])?;
            embed_schema_into(&bag, x, Schema::Struct(schema_id));
            // Everything the bag reads is reachable from x's items only
            // when x brought its bag along whole.
            let whole = bag_made_for(x);
            let result = x.with_schema(Schema::Object)?.with_bag(Some(bag));
            Ok(if whole { made_for(result) } else { result })
        }
        Schema::ItemId => Err(Error::value(op, "ITEMID DataSlices cannot be converted to objects; use with_schema")),
        _ => plait_core::cast::cast_to(op, x, Schema::Object),
    }
}

/// The `schema=` argument of the `kd.new` family: none, a name, or a schema.
fn schema_arg<'a>(a: &'a crate::registry::Args<'_>) -> Result<SchemaArg<'a>> {
    match a.opt_slice("schema")?.filter(|s| s.present_count() > 0) {
        None => Ok(SchemaArg::Fresh),
        Some(s) if s.schema() == Schema::String => match s.get(0) {
            Some(ScalarRef::String(name)) if s.is_item() => Ok(SchemaArg::Named(name)),
            _ => Err(Error::type_error(NEW, "`schema` must be a schema item or a name")),
        },
        Some(s) => Ok(SchemaArg::Given(s)),
    }
}

/// `made` (entities or objects of the shape of `from`), missing where `from`
/// is, its bag kept.
fn masked_like(made: DataSlice, from: &DataSlice) -> Result<DataSlice> {
    let bag = made.bag().cloned();
    Ok(crate::masking::apply_mask(&made, &crate::masking::has(from)?)?.with_bag(bag))
}

/// The seed of `kd.uu` / `kd.uuobj` (operator `op`): a text item, empty
/// when None.
fn uu_seed(op: &str, a: &crate::registry::Args<'_>) -> Result<String> {
    match a.opt_given("seed")? {
        None => Ok(String::new()),
        Some(seed) => crate::checks::string_item(op, "seed", seed).map(str::to_string),
    }
}

/// `kd.uu(seed, schema=..., overwrite_schema=..., **attrs)`: entities whose
/// ids are the uuids of `seed` and the attributes, of `schema` or else of
/// the uu schema of the attributes' schemas (so the same content is the same
/// entity, with the same schema).
pub fn uu(seed: &str, attrs: &[(String, DataSlice)], schema: Option<&DataSlice>, overwrite_schema: bool) -> Result<DataSlice> {
    let itemid = super::uuids::uuids(UU, ItemKind::Object, seed, attrs)?;
    let schema = match schema {
        Some(s) => {
            crate::registry::schema_item_arg(UU, "schema", s)?;
            SchemaArg::Given(s)
        }
        None => {
            let fields = attrs.iter().map(|(name, v)| Ok((name.clone(), crate::schema::get_schema(v)?))).collect::<Result<Vec<_>>>()?;
            SchemaArg::Derived(super::uuids::uu_schema_id(seed, &fields)?)
        }
    };
    new(attrs, schema, overwrite_schema, Some(&itemid), None).map_err(|e| e.raised_by(NEW, UU))
}

/// `kd.uuobj(seed, **attrs)`: objects whose ids are the uuids of `seed` and
/// the attributes.
pub fn uuobj(seed: &str, attrs: &[(String, DataSlice)]) -> Result<DataSlice> {
    let itemid = super::uuids::uuids(UUOBJ, ItemKind::Object, seed, attrs)?;
    obj(attrs, Some(&itemid), None).map_err(|e| e.raised_by(OBJ, UUOBJ))
}

/// The operators making entities and objects from attribute values.
pub(super) const CREATORS: [&str; 10] = [
    "kd.entities.new",
    "kd.entities.shaped",
    "kd.entities.shaped_as",
    "kd.entities.like",
    "kd.objs.new",
    "kd.objs.shaped",
    "kd.objs.shaped_as",
    "kd.objs.like",
    UU,
    UUOBJ,
];

pub(crate) fn register(r: &mut Registry) {
    register_creators(r);
    // Python lists and dicts as attribute values are Koda lists and dicts.
    for name in CREATORS {
        r.boxing(name, crate::registry::Boxing::Containers);
    }
}

fn register_creators(r: &mut Registry) {
    r.add(
        UU,
        &["kd.uu"],
        "seed='', *, schema=unspecified, overwrite_schema=False, **attrs",
        r#"Creates entities whose ids are derived from `seed` and the attribute values.

The same seed, attribute names and values give the same entity (its id is
the uuid of them, as `kd.uuid` computes it), in any bag or process. The
values are aligned and one entity is made per item; a Python list, tuple or
dict value is one Koda list or dict (as `kd.new` takes them). The schema is
`schema` when given, else the uu schema of the attributes' schemas (so equal
content also has the same schema).

Args:
  seed: a text that separates entities made from the same values (empty
    when None).
  schema: the entity schema of the result; the uu schema of the values'
    schemas when None.
  overwrite_schema: whether a value may replace the schema of its
    attribute in `schema`.
  **attrs: the attribute values.

Examples:
  >>> kd.uu(x=1, y='a')
  DataItem(Entity(x=1, y='a'), schema: ENTITY(x=INT32, y=STRING), bag_id: $...)
  >>> kd.uu(x=1).get_itemid() == kd.uu(x=1).get_itemid()
  DataItem(present, schema: MASK)
  >>> kd.uu('other', x=1).get_itemid() == kd.uu(x=1).get_itemid()
  DataItem(missing, schema: MASK)"#,
        |a| uu(&uu_seed(UU, a)?, &a.named_slices()?, a.opt_given("schema")?, a.bool("overwrite_schema")?),
    );
    r.add(
        UUOBJ,
        &["kd.uuobj"],
        "seed='', **attrs",
        r#"Creates objects whose ids are derived from `seed` and the attribute values.

The same seed, attribute names and values give the same object (its id is
the uuid of them, as `kd.uuid` computes it), in any bag or process. The
values are aligned and one object is made per item, with the OBJECT schema;
a Python list, tuple or dict value is one Koda list or dict.

Args:
  seed: a text that separates objects made from the same values (empty
    when None).
  **attrs: the attribute values.

Examples:
  >>> kd.uuobj(x=kd.slice([1, 2]), y='a')
  DataSlice([Obj(x=1, y='a'), Obj(x=2, y='a')], schema: OBJECT, present: 2/2, bag_id: $...)
  >>> kd.uuobj(x=1).get_itemid() == kd.uuobj(x=1).get_itemid()
  DataItem(present, schema: MASK)
  >>> kd.uuobj(x=1).get_itemid() == kd.uuobj('other', x=1).get_itemid()
  DataItem(missing, schema: MASK)"#,
        |a| uuobj(&uu_seed(UUOBJ, a)?, &a.named_slices()?),
    );
    r.add(
        "kd.entities.new",
        &["kd.new"],
        "arg=unspecified, /, *, schema=unspecified, overwrite_schema=False, itemid=unspecified, **attrs",
        r#"Creates entities with the given attributes and an explicit schema.

The attribute values are aligned to a common shape and one entity is made per
item of it; a Python list, tuple or dict value is one Koda list or dict (as
`kd.from_py` makes it), which the other values must then not broadcast to
more items. Without `schema`, a new schema is made from the values' schemas;
`schema='Name'` stands for `kd.named_schema('Name')`, and a given schema makes
values be cast to its attribute schemas (attributes it lacks are added). A
value that cannot be cast raises unless overwrite_schema=True, which replaces
that attribute's schema. The result's bag is immutable.

Args:
  arg: a DataSlice (or Python value) returned with a new bag holding what its
    items reach, cast to `schema` when given (no attributes may be given
    with it).
  schema: an entity schema item or a schema name; a new schema when None.
  overwrite_schema: whether a value may replace the schema of its attribute.
  itemid: ITEMID to use as the ids of the entities; new ids when None.
  **attrs: the attribute values.

Examples:
  >>> kd.new(x=1, y='a')
  DataItem(Entity(x=1, y='a'), schema: ENTITY(x=INT32, y=STRING), bag_id: $...)
  >>> kd.new(x=kd.slice([1, 2]), y=0, schema='Point')
  DataSlice([Entity(x=1, y=0), Entity(x=2, y=0)], schema: Point(x=INT32, y=INT32), present: 2/2, bag_id: $...)
  >>> kd.new(x=1.5, schema=kd.named_schema('P', x=kd.INT32), overwrite_schema=True).get_schema()
  DataItem(P(x=FLOAT32), schema: SCHEMA, bag_id: $...)
  >>> kd.new(a=[1, 2], d={'k': 'v'}).a
  DataItem(List[1, 2], schema: LIST[INT32], bag_id: $...)"#,
        |a| {
            if let Some(arg) = a.opt_slice("arg")? {
                if !a.var_kwargs().is_empty() {
                    return Err(Error::value(NEW, "attributes cannot be given together with a positional argument"));
                }
                return new_of_slice(arg, schema_arg(a)?);
            }
            let itemid = a.opt_given("itemid")?;
            new(&a.named_slices()?, schema_arg(a)?, a.bool("overwrite_schema")?, itemid, None)
        },
    );
    r.add(
        "kd.entities.strict_new",
        &["kd.strict_new"],
        "*, schema, overwrite_schema=False, itemid=unspecified, **attrs",
        r#"Returns new entities of `schema`, refusing attributes it does not declare.

Like `kd.new(schema=schema, ...)`, but an attribute missing from the
schema raises instead of being added to it. Declared attributes that are
not given stay missing. The attribute values broadcast together.

Args:
  schema: the entity schema of the result.
  overwrite_schema: whether to replace the schema of an attribute whose
    value has another schema.
  itemid: ITEMIDs to use for the entities.
  **attrs: the attribute values.

Examples:
  >>> s = kd.named_schema('Point', x=kd.INT32, y=kd.INT32)
  >>> kd.entities.strict_new(x=kd.slice([1, 2]), schema=s)
  DataSlice([Entity(x=1, y=None), Entity(x=2, y=None)], schema: Point(x=INT32, y=INT32), present: 2/2, bag_id: $...)
  >>> kd.entities.strict_new(x=1, z=2, schema=s)
  Traceback (most recent call last):
  ...
  ValueError: cannot create a new entity with attribute 'z' not defined in the schema"#,
        |a| {
            let schema = a.slice("schema")?;
            let declared = super::access::attr_names(schema, true)?;
            let attrs = a.named_slices()?;
            if let Some((name, _)) = attrs.iter().find(|(name, _)| !declared.contains(name)) {
                // Koda's message, without the operator's name.
                return Err(Error::new(
                    plait_core::ErrorKind::Value,
                    format!("cannot create a new entity with attribute '{name}' not defined in the schema"),
                ));
            }
            let itemid = a.opt_given("itemid")?;
            new(&attrs, SchemaArg::Given(schema), a.bool("overwrite_schema")?, itemid, None)
        },
    );
    r.add(
        "kd.objs.new",
        &["kd.obj"],
        "arg=unspecified, /, *, itemid=unspecified, **attrs",
        r#"Creates objects with the given attributes, each with its own implicit schema.

The attribute values are aligned to a common shape and one object is made per
item of it (a Python list, tuple or dict value is one Koda list or dict, as
for `kd.new`). The result has schema OBJECT; each object's schema is stored in
the bag, so objects of one slice may hold values of different types. Given a
positional argument instead, primitives become OBJECT and entities become
objects keeping their schema.

Args:
  arg: a DataSlice to convert to objects (no attributes may be given with it).
  itemid: ITEMID to use as the ids of the objects; new ids when None.
  **attrs: the attribute values.

Examples:
  >>> kd.obj(x=1, y='a')
  DataItem(Obj(x=1, y='a'), schema: OBJECT, bag_id: $...)
  >>> o = kd.obj(x=kd.slice([1, 'a']))
  >>> o.x
  DataSlice([1, 'a'], schema: OBJECT, present: 2/2, bag_id: $...)
  >>> kd.obj(kd.new(x=1)).get_obj_schema()
  DataItem(ENTITY(x=INT32), schema: SCHEMA, bag_id: $...)"#,
        |a| {
            if let Some(arg) = a.opt_slice("arg")? {
                if !a.var_kwargs().is_empty() {
                    return Err(Error::value(OBJ, "attributes cannot be given together with a positional argument"));
                }
                return obj_of(arg).map(with_a_bag);
            }
            let itemid = a.opt_given("itemid")?;
            obj(&a.named_slices()?, itemid, None)
        },
    );
    r.add(
        "kd.entities.shaped",
        &["kd.new_shaped"],
        "shape, /, *, schema=unspecified, overwrite_schema=False, itemid=unspecified, **attrs",
        r#"Creates entities of the given shape.

One entity is made per item of `shape`; attribute values are broadcast to it.
The schema arguments work as in `kd.new`.

Args:
  shape: a JaggedShape.
  schema: an entity schema item or a schema name; a new schema when None.
  overwrite_schema: whether a value may replace the schema of its attribute.
  itemid: ITEMID of the shape to use as the ids; new ids when None.
  **attrs: the attribute values (broadcast to shape).

Examples:
  >>> kd.new_shaped(kd.shapes.new(2), x=1)
  DataSlice([Entity(x=1), Entity(x=1)], schema: ENTITY(x=INT32), present: 2/2, bag_id: $...)
  >>> kd.new_shaped(kd.shapes.new(2, [2, 1]), x=kd.slice([1, 2]), schema='Pt')
  DataSlice([[Entity(x=1), Entity(x=1)], [Entity(x=2)]], schema: Pt(x=INT32), present: 3/3, bag_id: $...)"#,
        |a| new(&a.named_slices()?, schema_arg(a)?, a.bool("overwrite_schema")?, a.opt_given("itemid")?, Some(a.shape("shape")?)),
    );
    r.add(
        "kd.entities.shaped_as",
        &["kd.new_shaped_as"],
        "shape_from, /, *, schema=unspecified, overwrite_schema=False, itemid=unspecified, **attrs",
        r#"Creates entities of the shape of shape_from.

One entity is made per item of `shape_from`, missing or not; attribute values
are broadcast to its shape. The schema arguments work as in `kd.new`.

Args:
  shape_from: a DataSlice whose shape the result takes.
  schema: an entity schema item or a schema name; a new schema when None.
  overwrite_schema: whether a value may replace the schema of its attribute.
  itemid: ITEMID of that shape to use as the ids; new ids when None.
  **attrs: the attribute values (broadcast to the shape).

Examples:
  >>> kd.new_shaped_as(kd.slice([[1, None], [3]]), x=0)
  DataSlice([[Entity(x=0), Entity(x=0)], [Entity(x=0)]], schema: ENTITY(x=INT32), present: 3/3, bag_id: $...)
  >>> kd.new_shaped_as(kd.slice([[1, 2], [3]]), x=kd.slice([10, 20]))
  DataSlice([[Entity(x=10), Entity(x=10)], [Entity(x=20)]], schema: ENTITY(x=INT32), present: 3/3, bag_id: $...)"#,
        |a| new(&a.named_slices()?, schema_arg(a)?, a.bool("overwrite_schema")?, a.opt_given("itemid")?, Some(a.slice("shape_from")?.shape())),
    );
    r.add(
        "kd.entities.like",
        &["kd.new_like"],
        "shape_and_mask_from, /, *, schema=unspecified, overwrite_schema=False, itemid=unspecified, **attrs",
        r#"Creates entities of the shape of shape_and_mask_from, missing where it is.

Attribute values are broadcast to the shape of `shape_and_mask_from`; items
where it is missing are missing in the result. The schema arguments work as in
`kd.new`.

Args:
  shape_and_mask_from: a DataSlice whose shape and missing items the result
    takes.
  schema: an entity schema item or a schema name; a new schema when None.
  overwrite_schema: whether a value may replace the schema of its attribute.
  itemid: ITEMID of that shape to use as the ids; new ids when None.
  **attrs: the attribute values (broadcast to the shape).

Examples:
  >>> kd.new_like(kd.slice([1, None, 3]), x=0)
  DataSlice([Entity(x=0), None, Entity(x=0)], schema: ENTITY(x=INT32), present: 2/3, bag_id: $...)
  >>> kd.new_like(kd.slice([1, None, 3]), x=kd.slice([7, 8, 9])).x
  DataSlice([7, None, 9], schema: INT32, present: 2/3, bag_id: $...)"#,
        |a| {
            let from = a.slice("shape_and_mask_from")?;
            let made = new(&a.named_slices()?, schema_arg(a)?, a.bool("overwrite_schema")?, a.opt_given("itemid")?, Some(from.shape()))?;
            masked_like(made, from)
        },
    );
    r.add(
        "kd.objs.like",
        &["kd.obj_like"],
        "shape_and_mask_from, /, *, itemid=unspecified, **attrs",
        r#"Creates objects of the shape of shape_and_mask_from, missing where it is.

Attribute values are broadcast to the shape of `shape_and_mask_from`; items
where it is missing are missing in the result. Each object has its own implicit
schema.

Args:
  shape_and_mask_from: a DataSlice whose shape and missing items the result
    takes.
  itemid: ITEMID of that shape to use as the ids; new ids when None.
  **attrs: the attribute values (broadcast to the shape).

Examples:
  >>> kd.obj_like(kd.slice([1, None, 3]), x=kd.slice([7, 8, 9]))
  DataSlice([Obj(x=7), None, Obj(x=9)], schema: OBJECT, present: 2/3, bag_id: $...)
  >>> kd.obj_like(kd.slice([1, None]), x=0).get_obj_schema()
  DataSlice([IMPLICIT_ENTITY(x=INT32), None], schema: SCHEMA, present: 1/2, bag_id: $...)"#,
        |a| {
            let from = a.slice("shape_and_mask_from")?;
            masked_like(obj(&a.named_slices()?, a.opt_given("itemid")?, Some(from.shape()))?, from)
        },
    );
    r.add(
        "kd.objs.shaped",
        &["kd.obj_shaped"],
        "shape, /, *, itemid=unspecified, **attrs",
        r#"Creates objects of the given shape.

One object is made per item of `shape`, each with its own implicit schema;
attribute values are broadcast to the shape. The result has schema OBJECT.

Args:
  shape: a JaggedShape.
  itemid: ITEMID of the shape to use as the ids; new ids when None.
  **attrs: the attribute values (broadcast to shape).

Examples:
  >>> kd.obj_shaped(kd.shapes.new(2), x=1)
  DataSlice([Obj(x=1), Obj(x=1)], schema: OBJECT, present: 2/2, bag_id: $...)
  >>> kd.obj_shaped(kd.shapes.new(2, [2, 1]), x=kd.slice([1, 'a']))
  DataSlice([[Obj(x=1), Obj(x=1)], [Obj(x='a')]], schema: OBJECT, present: 3/3, bag_id: $...)"#,
        |a| obj(&a.named_slices()?, a.opt_given("itemid")?, Some(a.shape("shape")?)),
    );
    r.add(
        "kd.objs.shaped_as",
        &["kd.obj_shaped_as"],
        "shape_from, /, *, itemid=unspecified, **attrs",
        r#"Creates objects of the shape of shape_from.

One object is made per item of `shape_from`, missing or not, each with its own
implicit schema; attribute values are broadcast to the shape.

Args:
  shape_from: a DataSlice whose shape the result takes.
  itemid: ITEMID of that shape to use as the ids; new ids when None.
  **attrs: the attribute values (broadcast to the shape).

Examples:
  >>> kd.obj_shaped_as(kd.slice([[1, None], [3]]), x=0)
  DataSlice([[Obj(x=0), Obj(x=0)], [Obj(x=0)]], schema: OBJECT, present: 3/3, bag_id: $...)"#,
        |a| obj(&a.named_slices()?, a.opt_given("itemid")?, Some(a.slice("shape_from")?.shape())),
    );
}
