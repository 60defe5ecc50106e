//! `kd.cast_to` from one entity, list or dict schema to another (Koda's
//! deep cast). The items keep their ids and take the target schema; every
//! attribute, list item, dict key and dict value the target schema names is
//! cast to the target's schema for it, entities, lists and dicts again
//! deeply; what the target does not name is left behind. The schemas are
//! checked first, as Koda does: each attribute of the target must be one of
//! the source's, castable to the target's schema for it.
//!
//! The walk is iterative (a queue of ids and the schemas to cast them
//! between); where the target schemas form a cycle it visits each item once
//! per target schema, so cycles in the data end.

use std::collections::{HashMap, HashSet};

use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR, schema_text};
use plait_core::{DataBag, DataSlice, Error, ItemId, JaggedShape, Result, Schema, SliceData};

use crate::objects::model::{Ids, attr_schema, read_attr};

const OP: &str = "kd.schema.cast_to";

/// What a struct schema describes.
enum Layout {
    List(Schema),
    Dict(Schema, Schema),
    /// An entity's attributes and their schemas.
    Entity(Vec<(String, Schema)>),
}

fn layout(bag: Option<&DataBag>, id: ItemId) -> Layout {
    let Some(bag) = bag else { return Layout::Entity(Vec::new()) };
    if let Some(items) = attr_schema(bag, id, LIST_ITEMS_ATTR) {
        return Layout::List(items);
    }
    if let Some(keys) = attr_schema(bag, id, DICT_KEYS_ATTR) {
        return Layout::Dict(keys, attr_schema(bag, id, DICT_VALUES_ATTR).unwrap_or(Schema::None));
    }
    // Koda's own attributes of a schema (its name, metadata) are dunders.
    let attrs = bag.attr_names(id).into_iter().filter(|n| !(n.starts_with("__") && n.ends_with("__")));
    Layout::Entity(attrs.map(|n| (n.clone(), attr_schema(bag, id, &n).unwrap_or(Schema::None))).collect())
}

/// Whether values of schema `s` (in `sbag`) can be deeply cast to `t` (in
/// `tbag`); `seen` holds the pairs already being checked (cycles).
fn castable(s: Schema, sbag: Option<&DataBag>, t: Schema, tbag: Option<&DataBag>, seen: &mut HashSet<(Schema, Schema)>) -> bool {
    if s == t || s == Schema::None {
        return true;
    }
    match (s, t) {
        (Schema::Struct(si), Schema::Struct(ti)) => {
            if !seen.insert((s, t)) {
                return true;
            }
            match (layout(sbag, si), layout(tbag, ti)) {
                (Layout::List(a), Layout::List(b)) => castable(a, sbag, b, tbag, seen),
                (Layout::Dict(ka, va), Layout::Dict(kb, vb)) => castable(ka, sbag, kb, tbag, seen) && castable(va, sbag, vb, tbag, seen),
                (Layout::Entity(from), Layout::Entity(to)) => {
                    to.iter().all(|(name, t)| from.iter().find(|(n, _)| n == name).is_some_and(|(_, s)| castable(*s, sbag, *t, tbag, seen)))
                }
                _ => false,
            }
        }
        (Schema::Struct(_), _) | (_, Schema::Struct(_)) => false,
        // Only OBJECT is OBJECT, only ids are ids, only schemas schemas.
        (_, Schema::Object | Schema::ItemId | Schema::Schema) => false,
        (Schema::Object, _) => true,
        (s, t) => plait_core::cast::schema_castable(s, t),
    }
}

/// Koda's text for a schema in these errors: its structure and its id.
fn described(schema: Schema, bag: Option<&DataBag>) -> String {
    match schema {
        // Without its bag, a schema has no attributes to show.
        Schema::Struct(id) if bag.is_none() => format!("ENTITY() with id {}", id.repr()),
        Schema::Struct(id) => format!("{} with id {}", schema_text(schema, bag), id.repr()),
        other => other.to_string(),
    }
}

/// `x` (entities, lists or dicts, objects of one explicit schema, or
/// missing items) deeply cast to struct schema `target` (a schema item, with
/// the bag holding it).
pub fn deep_cast(x: &DataSlice, target: &DataSlice, target_schema: Schema) -> Result<DataSlice> {
    let Schema::Struct(target_id) = target_schema else { return Err(Error::internal("deep_cast to a struct schema")) };
    let (sbag, tbag) = (x.bag(), target.bag());
    let source = x.schema();
    if source == target_schema {
        return Ok(x.clone().with_bag(DataBag::combined(sbag.into_iter().chain(tbag))));
    }
    if source == Schema::None || x.present_count() == 0 {
        return Ok(DataSlice::missing(x.shape().clone(), target_schema).with_bag(tbag.cloned()));
    }
    if source == Schema::Object {
        let explicit = common_object_schema(x, target_id)?;
        return deep_cast(&x.with_schema(explicit)?, target, target_schema);
    }
    if !source.is_struct() {
        return Err(Error::value(
            OP,
            format!("(deep) casting from {source} to entity schema {} is currently not supported", described(target_schema, tbag)),
        ));
    }
    if !castable(source, sbag, target_schema, tbag, &mut HashSet::new()) {
        return Err(Error::value(
            OP,
            format!("DataSlice with schema {} cannot be cast to entity schema {}", described(source, sbag), described(target_schema, tbag)),
        ));
    }
    let out = DataBag::new_mutable();
    if let Some(sbag) = sbag {
        copy_cast(sbag, tbag, &out, Ids::of(x), source, target_id).map_err(|e| {
            // Koda names the slice being cast after the value that failed.
            let header = plait_core::repr::Header { bag_id: false, ..plait_core::repr::Header::REPR };
            let slice = plait_core::repr::repr_with(x, &plait_core::repr::REPR, &header);
            e.with_clause(format!("when (deep) casting slice {slice} to entity schema {}", described(target_schema, tbag)))
        })?;
    }
    let bag = DataBag::combined([&out.fork(false)].into_iter().chain(tbag));
    Ok(x.with_schema(target_schema)?.with_bag(bag))
}

/// The one explicit schema the objects of `x` (some present) have, as Koda
/// requires of objects cast to struct schema `target_id`.
fn common_object_schema(x: &DataSlice, target_id: ItemId) -> Result<Schema> {
    let during =
        format!("when validating equivalence of existing __schema__ attributes with the target schema during explicit cast to {}", target_id.repr());
    let mut common = None;
    for i in 0..x.size() {
        let schema = match x.get(i) {
            None => continue,
            Some(plait_core::ScalarRef::ItemId(id)) => {
                match x.bag().and_then(|bag| bag.get_one(plait_core::bag::SCHEMA_ATTR, id)).and_then(|v| v.schema()) {
                    Some(schema) => schema,
                    None => return Err(Error::value(OP, format!("object {} is missing __schema__ attribute; {during}", id.repr()))),
                }
            }
            Some(value) => value.dtype(),
        };
        if let Schema::Struct(id) = schema {
            if matches!(id.kind(), plait_core::ItemKind::ImplicitSchema | plait_core::ItemKind::NofollowImplicitSchema) {
                return Err(Error::value(OP, format!("DataSlice cannot have an implicit schema as its schema; {during}")));
            }
        }
        match common {
            None => common = Some(schema),
            Some(c) if c == schema => {}
            Some(_) => return Err(Error::value(OP, "cannot find a common schema")),
        }
    }
    Ok(common.unwrap_or(Schema::None))
}

/// The items a walk has cast to each target schema: a bitmap per
/// allocation and target (items of one allocation are dense), a set for
/// uuids and offsets too large for a bitmap.
#[derive(Default)]
struct Visited {
    dense: HashMap<(u64, ItemId), Vec<u64>>,
    other: HashSet<(ItemId, ItemId)>,
}

/// Offsets below this have a bit in a bitmap (8 MiB at most per
/// allocation and target); ids decoded by hand may have any offset.
const DENSE_OFFSETS: u64 = 1 << 26;

impl Visited {
    /// Marks `id` as cast to `target`; whether it is the first time.
    fn insert(&mut self, id: ItemId, target: ItemId) -> bool {
        match id.allocation() {
            Some(allocation) if id.offset() < DENSE_OFFSETS => {
                let bits = self.dense.entry((allocation, target)).or_default();
                let (word, bit) = ((id.offset() / 64) as usize, id.offset() % 64);
                if bits.len() <= word {
                    bits.resize(word + 1, 0);
                }
                let first = bits[word] & (1 << bit) == 0;
                bits[word] |= 1 << bit;
                first
            }
            _ => self.other.insert((id, target)),
        }
    }

    /// `ids` without those already cast to `target`, now marked: a whole
    /// allocation none of which was visited stays whole.
    fn first_visits(&mut self, ids: Ids, target: ItemId) -> Ids {
        if let Ids::Whole { allocation, len } = ids {
            let mut whole = vec![u64::MAX; len / 64];
            if len % 64 != 0 {
                whole.push((1 << (len % 64)) - 1);
            }
            match self.dense.get(&(allocation, target)) {
                _ if len as u64 >= DENSE_OFFSETS => {}
                None => {
                    self.dense.insert((allocation, target), whole);
                    return ids;
                }
                // All visited already: nothing left.
                Some(bits) if whole.iter().enumerate().all(|(i, w)| bits.get(i).is_some_and(|b| b & w == *w)) => return Ids::List(Vec::new()),
                Some(_) => {}
            }
        }
        Ids::List(ids.to_list().iter().map(|id| id.filter(|id| self.insert(*id, target))).collect())
    }
}

/// Whether the struct schemas reachable from `target_id` (in `bag`) form a
/// cycle: only then can the data reach an item twice, and the walk keeps
/// what it visited.
fn schema_cyclic(bag: Option<&DataBag>, target_id: ItemId) -> bool {
    let children = |id: ItemId| -> Vec<ItemId> {
        let schemas = match layout(bag, id) {
            Layout::List(items) => vec![items],
            Layout::Dict(keys, values) => vec![keys, values],
            Layout::Entity(attrs) => attrs.into_iter().map(|(_, s)| s).collect(),
        };
        schemas.into_iter().filter_map(|s| if let Schema::Struct(id) = s { Some(id) } else { None }).collect()
    };
    // Depth-first, iteratively: a schema met again while on the path is a
    // cycle.
    let (mut on_path, mut finished) = (HashSet::new(), HashSet::new());
    let mut stack = vec![(target_id, children(target_id))];
    on_path.insert(target_id);
    while let Some((id, pending)) = stack.last_mut() {
        match pending.pop() {
            Some(next) if on_path.contains(&next) => return true,
            Some(next) if !finished.contains(&next) => {
                on_path.insert(next);
                let grand = children(next);
                stack.push((next, grand));
            }
            Some(_) => {}
            None => {
                let id = *id;
                on_path.remove(&id);
                finished.insert(id);
                stack.pop();
            }
        }
    }
    false
}

/// Writes into `out` the data of `ids` (of schema `source` in `sbag`) that
/// target schema `target_id` names, cast, and of everything it reaches.
fn copy_cast(sbag: &DataBag, tbag: Option<&DataBag>, out: &DataBag, ids: Ids, source: Schema, target_id: ItemId) -> Result<()> {
    let mut work = vec![(ids, source, target_id)];
    let mut visited: Option<Visited> = schema_cyclic(tbag, target_id).then(Visited::default);
    while let Some((ids, source, target_id)) = work.pop() {
        let ids = match &mut visited {
            Some(visited) => visited.first_visits(ids, target_id),
            None => ids,
        };
        if (0..ids.len()).all(|i| !ids.is_present(i)) {
            continue;
        }
        let held = |attr: &str| match source {
            Schema::Struct(id) => attr_schema(sbag, id, attr).unwrap_or(Schema::None),
            _ => Schema::None,
        };
        // Values of source schema `s`, as target schema `t` has them; ids
        // to visit next for a struct `t`.
        let mut cast = |values: SliceData, s: Schema, t: Schema| -> Result<SliceData> {
            if let Schema::Struct(next) = t {
                let values = DataSlice::new(JaggedShape::flat(values.len()), values, Schema::ItemId)?;
                work.push((Ids::of(&values), s, next));
                return Ok(values.data().clone());
            }
            let values = DataSlice::new(JaggedShape::flat(values.len()), values, s)?;
            Ok(plait_core::cast::cast_to(OP, &values, t)?.data().clone())
        };
        match layout(tbag, target_id) {
            Layout::Entity(attrs) => {
                for (name, t) in attrs {
                    let values = cast(read_attr(sbag, &name, &ids), held(&name), t)?;
                    match &ids {
                        Ids::Whole { allocation, .. } => out.set_attr_of_allocation(OP, &name, *allocation, &values)?,
                        Ids::List(ids) => out.set_attr(OP, &name, ids, &values)?,
                    }
                }
            }
            Layout::List(t) => {
                let ids = ids.to_list();
                let (edge, items) = sbag.explode(&ids)?;
                let items = cast(items, held(LIST_ITEMS_ATTR), t)?;
                out.set_lists(OP, &ids, &edge, &items)?;
            }
            Layout::Dict(tk, tv) => {
                let ids = ids.to_list();
                let (edge, keys, values) = sbag.dict_entries(&ids)?;
                let keys = cast(keys, held(DICT_KEYS_ATTR), tk)?;
                let values = cast(values, held(DICT_VALUES_ATTR), tv)?;
                out.fill(|w| w.set_dicts(&ids, &edge, &keys, &values));
            }
        }
    }
    Ok(())
}
