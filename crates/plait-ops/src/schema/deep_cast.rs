//! `kd.cast_to` from one entity, list or dict schema to another (Koda's
//! deep cast). The items keep their ids and take the target schema; every
//! attribute, list item, dict key and dict value the target schema names is
//! cast to the target's schema for it, entities, lists and dicts again
//! deeply; what the target does not name is left behind. The schemas are
//! checked first, as Koda does: each attribute of the target must be one of
//! the source's, castable to the target's schema for it.
//!
//! Both walks are iterative: the schema check over pairs of schemas, the
//! copy over ids and the schemas to cast them between, visiting each item
//! once per target schema (shared and cyclic data end).

use std::collections::{HashMap, HashSet};

use plait_core::bag::SCHEMA_ATTR;
use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR, schema_text};
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, JaggedShape, Result, Schema, SliceData, Values};

use super::layout::{Layout, Layouts};
use crate::objects::model::{Ids, attr_schema, read_attr};

const OP: &str = "kd.schema.cast_to";

/// Whether values of schema `source` can be deeply cast to `target`
/// (schemas of `from` and `to`): every pair of schemas the two reach
/// together, checked once each.
fn castable(source: Schema, target: Schema, from: &Layouts<'_>, to: &Layouts<'_>) -> bool {
    let mut seen: HashSet<(Schema, Schema)> = HashSet::new();
    let mut pending = vec![(source, target)];
    while let Some((s, t)) = pending.pop() {
        if s == Schema::None || !seen.insert((s, t)) {
            continue;
        }
        match (s, t) {
            (Schema::Struct(si), Schema::Struct(ti)) => match (&*from.of(si), &*to.of(ti)) {
                (Layout::List(a), Layout::List(b)) => pending.push((*a, *b)),
                (Layout::Dict(ka, va), Layout::Dict(kb, vb)) => pending.extend([(*ka, *kb), (*va, *vb)]),
                // A named target takes only entities of its name.
                (Layout::Entity(_, _), Layout::Entity(Some(_), _)) if !same_name(&from.of(si), &to.of(ti)) => return false,
                (Layout::Entity(_, have), Layout::Entity(_, want)) => {
                    for (name, t) in want {
                        match have.iter().find(|(n, _)| n == name) {
                            Some((_, s)) => pending.push((*s, *t)),
                            None => return false,
                        }
                    }
                }
                _ => return false,
            },
            // Entities, lists and dicts are ids.
            (Schema::Struct(_), Schema::ItemId) => {}
            (Schema::Struct(_), _) | (_, Schema::Struct(_)) => return false,
            // Koda keeps no objects in a deep cast; schemas stay schemas
            // and ids stay ids.
            (_, Schema::Object) => return false,
            (s, t @ (Schema::Schema | Schema::ItemId)) if s != t => return false,
            (Schema::Object, _) => {}
            (s, t) if !plait_core::cast::schema_castable(s, t) => return false,
            _ => {}
        }
    }
    true
}

fn same_name(a: &Layout, b: &Layout) -> bool {
    matches!((a, b), (Layout::Entity(Some(x), _), Layout::Entity(Some(y), _)) if x == y)
}

/// `bag` as one layer when it reads through more than a few bags.
fn one_layer(bag: &DataBag) -> DataBag {
    if bag.fallbacks().len() > 4 { bag.merged() } else { bag.clone() }
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
    // Bags read through many others (values made one by one, then put
    // together) are read item by item here: each read would look through
    // every layer, so they are merged into one first.
    let (sbag, tbag) = (sbag.map(one_layer), tbag.map(one_layer));
    let (sbag, tbag) = (sbag.as_ref(), tbag.as_ref());
    let (from, to) = (Layouts::new(sbag), Layouts::new(tbag));
    if !castable(source, target_schema, &from, &to) {
        return Err(Error::value(
            OP,
            format!("DataSlice with schema {} cannot be cast to entity schema {}", described(source, sbag), described(target_schema, tbag)),
        ));
    }
    let out = DataBag::new_mutable();
    let bags = match sbag {
        None => Vec::new(),
        Some(sbag) => copy_cast(sbag, &to, &out, Ids::of(x), source, target_id).map_err(|e| {
            // Koda names the slice being cast after the value that failed.
            let header = plait_core::repr::Header { bag_id: false, ..plait_core::repr::Header::REPR };
            let slice = plait_core::repr::repr_with(x, &plait_core::repr::REPR, &header);
            e.with_clause(format!("when (deep) casting slice {slice} to entity schema {}", described(target_schema, tbag)))
        })?,
    };
    let out = out.fork(false);
    let bag = DataBag::combined([&out].into_iter().chain(bags.iter()).chain(tbag));
    Ok(x.with_schema(target_schema)?.with_bag(bag))
}

/// The one explicit schema the objects of `x` (some present) have, as Koda
/// requires of objects cast to struct schema `target_id`.
fn common_object_schema(x: &DataSlice, target_id: ItemId) -> Result<Schema> {
    let during =
        format!("when validating equivalence of existing __schema__ attributes with the target schema during explicit cast to {}", target_id.repr());
    let Some(bag) = x.bag() else {
        return Err(Error::value(OP, format!("DataSlice with Objects must have a DataBag attached for get_obj_schema; {during}")));
    };
    // The objects' schemas in one read (a primitive's is its type); the
    // distinct ones, usually one.
    let stored = read_attr(bag, SCHEMA_ATTR, &Ids::of(x));
    let mut schemas = Vec::new();
    let mut add = |schema: Schema| {
        if !schemas.contains(&schema) {
            schemas.push(schema);
        }
    };
    for column in x.data().columns() {
        let Values::ItemId(bits) = &column.values else {
            add(column.values.dtype());
            continue;
        };
        for (i, bits) in bits.bits().iter().enumerate().filter(|(i, _)| column.is_present(*i)) {
            match stored.get(i) {
                Some(plait_core::ScalarRef::Schema(s)) => add(s),
                _ => return Err(Error::value(OP, format!("object {} is missing __schema__ attribute; {during}", ItemId(*bits as u128).repr()))),
            }
        }
    }
    match schemas[..] {
        [Schema::Struct(id)] if matches!(id.kind(), ItemKind::ImplicitSchema | ItemKind::NofollowImplicitSchema) => {
            Err(Error::value(OP, format!("DataSlice cannot have an implicit schema as its schema; {during}")))
        }
        [one] => Ok(one),
        [] => Ok(Schema::None),
        _ => Err(Error::value(OP, "cannot find a common schema")),
    }
}

/// The items a walk has cast to each target schema: a bitmap per
/// allocation and target (items of one allocation are dense), a set for
/// uuids and for ids far past what the bitmap has seen (a bitmap grows with
/// the items marked in it, not with the offsets of ids decoded by hand).
#[derive(Default)]
struct Visited {
    dense: HashMap<(u64, ItemId), Bitmap>,
    other: HashSet<(ItemId, ItemId)>,
}

#[derive(Default)]
struct Bitmap {
    words: Vec<u64>,
    marked: usize,
}

impl Bitmap {
    /// Marks bit `offset` when the bitmap may hold it; whether it was new
    /// (`None`: too far out, kept elsewhere).
    fn mark(&mut self, offset: u64) -> Option<bool> {
        let word = usize::try_from(offset / 64).ok()?;
        if word >= self.words.len() {
            // Room proportional to what is marked: 16 words (1,024 bits)
            // per item marked, and 1,024 words to start with.
            if word >= 1024 + 16 * (self.marked + 1) {
                return None;
            }
            self.words.resize(word + 1, 0);
        }
        let bit = 1 << (offset % 64);
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        self.marked += usize::from(new);
        Some(new)
    }
}

impl Visited {
    /// `ids` without those already cast to `target`, now marked: a whole
    /// allocation none of which was visited stays whole.
    fn first_visits(&mut self, ids: Ids, target: ItemId) -> Ids {
        if let Ids::Whole { allocation, len } = ids {
            match self.dense.get(&(allocation, target)) {
                None => {
                    let mut words = vec![u64::MAX; len / 64];
                    if len % 64 != 0 {
                        words.push((1 << (len % 64)) - 1);
                    }
                    self.dense.insert((allocation, target), Bitmap { words, marked: len });
                    return ids;
                }
                // All visited already: nothing left.
                Some(bitmap) if bitmap.marked >= len && (0..len).all(|i| bitmap.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)) => {
                    return Ids::List(Vec::new());
                }
                Some(_) => {}
            }
        }
        // Ids of one allocation usually come in runs: one map lookup a run.
        let mut current: Option<(u64, &mut Bitmap)> = None;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids.to_list().iter() {
            let Some(id) = *id else {
                out.push(None);
                continue;
            };
            let first = match id.allocation() {
                Some(allocation) => {
                    if current.as_ref().is_none_or(|(a, _)| *a != allocation) {
                        current = Some((allocation, self.dense.entry((allocation, target)).or_default()));
                    }
                    let (_, bitmap) = current.as_mut().expect("set above");
                    match bitmap.mark(id.offset()) {
                        Some(new) => new,
                        None => self.other.insert((id, target)),
                    }
                }
                None => self.other.insert((id, target)),
            };
            out.push(first.then_some(id));
        }
        Ids::List(out)
    }
}

/// Writes into `out` the data of `ids` (of schema `source` in `sbag`) that
/// target schema `target_id` names, cast, and of everything it reaches.
/// Returns the bags holding what schema values (SCHEMA attributes) reach.
fn copy_cast(sbag: &DataBag, to: &Layouts<'_>, out: &DataBag, ids: Ids, source: Schema, target_id: ItemId) -> Result<Vec<DataBag>> {
    let mut work = vec![(ids, source, target_id)];
    let mut visited = Visited::default();
    let mut schema_bags = Vec::new();
    while let Some((ids, source, target_id)) = work.pop() {
        let ids = visited.first_visits(ids, target_id);
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
            let n = values.len();
            if let Schema::Struct(next) = t {
                let values = DataSlice::new(JaggedShape::flat(n), values, Schema::ItemId)?;
                work.push((Ids::of(&values), s, next));
                return Ok(values.data().clone());
            }
            let values = DataSlice::new(JaggedShape::flat(n), values, s)?;
            if t == Schema::Schema {
                // Schemas bring their attributes along.
                let reached = crate::objects::graph::extract(&values.clone().with_bag(Some(sbag.clone())), None)?;
                schema_bags.extend(reached.bag().cloned());
            }
            let cast = if s.is_struct() { values.with_schema(Schema::ItemId)? } else { plait_core::cast::cast_to(OP, &values, t)? };
            Ok(cast.data().clone())
        };
        match &*to.of(target_id) {
            Layout::Entity(_, attrs) => {
                for (name, t) in attrs {
                    let values = cast(read_attr(sbag, name, &ids), held(name), *t)?;
                    match &ids {
                        Ids::Whole { allocation, .. } => out.set_attr_of_allocation(OP, name, *allocation, &values)?,
                        Ids::List(ids) => out.set_attr(OP, name, ids, &values)?,
                    }
                }
            }
            Layout::List(t) => {
                let ids = ids.to_list();
                let (edge, items) = sbag.explode(&ids)?;
                let items = cast(items, held(LIST_ITEMS_ATTR), *t)?;
                out.set_lists(OP, &ids, &edge, &items)?;
            }
            Layout::Dict(tk, tv) => {
                let ids = ids.to_list();
                let (edge, keys, values) = sbag.dict_entries(&ids)?;
                let keys = cast(keys, held(DICT_KEYS_ATTR), *tk)?;
                let values = cast(values, held(DICT_VALUES_ATTR), *tv)?;
                out.fill(|w| w.set_dicts(&ids, &edge, &keys, &values));
            }
        }
    }
    Ok(schema_bags)
}
