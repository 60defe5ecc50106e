//! `kd.core.flatten_cyclic_references(x, max_recursion_depth=)`: a tree-like
//! copy of the data reachable from `x`.
//!
//! Every entity, object, list and dict reached gets a new id at each place it
//! is reached, so the copy has no shared items and no cycles: an item may
//! occur at most `max_recursion_depth + 1` times on the path from a root to a
//! leaf; a reference past that is missing in the copy. Schemas are kept (and
//! copied into the new bag); each copy of an object with an implicit schema
//! gets an implicit schema of its own.
//!
//! The walk is breadth first, a level at a time, and reads and writes each
//! attribute for all the items of a schema at once. Its size grows with the
//! number of paths, which can be exponential in the data: past
//! [`MAX_ITEMS`] items it stops with an error.

use std::collections::HashMap;

use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR};
use plait_core::bag::{SCHEMA_ATTR, SchemaAttrs};
use plait_core::column::SliceBuilder;
use plait_core::itemid::allocate;
use plait_core::{DataBag, DataSlice, Error, ItemId, ItemKind, Result, ScalarRef, Schema, SliceData};

use super::model::{ids_data, ids_of, schemas_data};
use crate::registry::Registry;

const OP: &str = "kd.core.flatten_cyclic_references";

/// The most items a tree-like copy may hold.
pub const MAX_ITEMS: usize = 100_000_000;

/// One item of the copy: which item it copies, and the copy it was reached
/// from (`NO_PARENT` for the items of `x`).
struct Node {
    src: ItemId,
    parent: u32,
}

const NO_PARENT: u32 = u32::MAX;

/// An item of the level being copied: its node, its new id and how its
/// schema is known (a struct schema, or OBJECT: its `__schema__`).
struct Pending {
    node: u32,
    to: ItemId,
    schema: Schema,
}

struct Flatten<'a> {
    src: &'a DataBag,
    out: DataBag,
    /// Each item may occur this many times on a path (depth + 1).
    max_occurrences: i64,
    nodes: Vec<Node>,
    /// The most nodes the copy may have.
    max_items: usize,
    /// Struct schemas to copy into `out`: (from, to).
    schemas: Vec<(ItemId, ItemId)>,
}

impl Flatten<'_> {
    /// How many times `id` occurs on the path ending at node `parent`.
    fn occurrences(&self, id: ItemId, mut parent: u32) -> i64 {
        let mut count = 0;
        while parent != NO_PARENT {
            let node = &self.nodes[parent as usize];
            count += i64::from(node.src == id);
            parent = node.parent;
        }
        count
    }

    fn add_node(&mut self, src: ItemId, parent: u32) -> Result<u32> {
        if self.nodes.len() >= self.max_items {
            return Err(Error::value(
                OP,
                format!("the tree-like copy would hold more than {} items; use a smaller max_recursion_depth", self.max_items),
            ));
        }
        self.nodes.push(Node { src, parent });
        Ok((self.nodes.len() - 1) as u32)
    }

    /// `values` (of `schema`, held by the items whose nodes are `owners`,
    /// one per value) with each entity, object, list or dict replaced by a
    /// new copy, or missing where it occurs too often on its path; the
    /// copies are added to `next`.
    fn copy_values(&mut self, values: &SliceData, schema: Schema, owners: &[u32], next: &mut Vec<Pending>) -> Result<SliceData> {
        let follows = match schema {
            Schema::Object => true,
            Schema::Struct(id) => !id.is_nofollow(),
            _ => false,
        };
        if !follows || !values.dtypes().any(|t| t == Schema::ItemId) {
            return Ok(values.clone());
        }
        // The copies, grouped by kind so that each kind is one allocation.
        let mut copies: Vec<Option<(u32, ItemKind)>> = Vec::with_capacity(values.len());
        let mut per_kind: HashMap<ItemKind, usize> = HashMap::new();
        for (i, &owner) in owners.iter().enumerate() {
            let copy = match values.get(i) {
                Some(ScalarRef::ItemId(id)) if self.occurrences(id, owner) < self.max_occurrences => {
                    *per_kind.entry(id.kind()).or_default() += 1;
                    Some((self.add_node(id, owner)?, id.kind()))
                }
                _ => None,
            };
            copies.push(copy);
        }
        let mut fresh: HashMap<ItemKind, std::vec::IntoIter<ItemId>> =
            per_kind.into_iter().map(|(kind, n)| (kind, allocate(kind, n).1.into_iter())).collect();
        let mut b = SliceBuilder::with_capacity(values.len());
        for (i, copy) in copies.into_iter().enumerate() {
            match (copy, values.get(i)) {
                (Some((node, kind)), _) => {
                    let to = fresh.get_mut(&kind).and_then(Iterator::next).expect("one new id per copy");
                    next.push(Pending { node, to, schema });
                    b.push(Some(ScalarRef::ItemId(to)));
                }
                // An item past the limit is missing; primitives (of an
                // OBJECT attribute) stay.
                (None, Some(ScalarRef::ItemId(_))) => b.push(None),
                (None, other) => b.push(other),
            }
        }
        Ok(b.finish())
    }

    /// Copies one level of items; returns the next.
    fn copy_level(&mut self, level: Vec<Pending>) -> Result<Vec<Pending>> {
        let mut next = Vec::new();
        // Objects: their struct schema is their `__schema__`.
        let objects: Vec<usize> = (0..level.len()).filter(|&i| level[i].schema == Schema::Object).collect();
        let mut struct_of: Vec<Option<ItemId>> = level.iter().map(|p| if let Schema::Struct(id) = p.schema { Some(id) } else { None }).collect();
        if !objects.is_empty() {
            let from: Vec<Option<ItemId>> = objects.iter().map(|&i| Some(self.nodes[level[i].node as usize].src)).collect();
            let held = self.src.get_attr(SCHEMA_ATTR, &from);
            let mut to_ids = Vec::with_capacity(objects.len());
            let mut to_schemas = Vec::with_capacity(objects.len());
            for (k, &i) in objects.iter().enumerate() {
                let Some(ScalarRef::Schema(Schema::Struct(schema))) = held.get(k) else { continue };
                // A copy of an object with an implicit schema gets its own.
                let own = if schema.kind() == ItemKind::ImplicitSchema {
                    let own = level[i].to.with_kind(ItemKind::ImplicitSchema);
                    self.schemas.push((schema, own));
                    own
                } else {
                    schema
                };
                struct_of[i] = Some(schema);
                to_ids.push(Some(level[i].to));
                to_schemas.push(Some(Schema::Struct(own)));
            }
            let data = schemas_data(to_schemas);
            self.out.fill(|w| w.set_attr(SCHEMA_ATTR, &to_ids, &data));
        }
        let mut groups: HashMap<ItemId, Vec<usize>> = HashMap::new();
        for (i, schema) in struct_of.iter().enumerate() {
            if let Some(schema) = schema {
                if !schema.is_nofollow() {
                    groups.entry(*schema).or_default().push(i);
                }
            }
        }
        let mut groups: Vec<(ItemId, Vec<usize>)> = groups.into_iter().collect();
        groups.sort_by_key(|(schema, _)| *schema);
        for (schema, members) in groups {
            self.schemas.push((schema, schema));
            let from: Vec<Option<ItemId>> = members.iter().map(|&i| Some(self.nodes[level[i].node as usize].src)).collect();
            let to: Vec<Option<ItemId>> = members.iter().map(|&i| Some(level[i].to)).collect();
            let nodes: Vec<u32> = members.iter().map(|&i| level[i].node).collect();
            let attrs = SchemaAttrs::of(self.src, schema);
            if let Some(item_schema) = attrs.schema(LIST_ITEMS_ATTR) {
                let (edge, items) = self.src.explode(&from)?;
                let owners = per_row(&nodes, &edge);
                let items = self.copy_values(&items, item_schema, &owners, &mut next)?;
                self.out.fill(|w| w.set_lists(&to, &edge, &items));
            } else if attrs.schema(DICT_KEYS_ATTR).is_some() {
                let value_schema = attrs.schema(DICT_VALUES_ATTR).unwrap_or(Schema::Object);
                let (edge, keys, values) = self.src.dict_entries(&from)?;
                let owners = per_row(&nodes, &edge);
                let values = self.copy_values(&values, value_schema, &owners, &mut next)?;
                self.out.fill(|w| w.set_dicts(&to, &edge, &keys, &values));
            } else {
                for (name, value_schema) in attrs.data() {
                    let values = self.src.get_attr(name, &from);
                    let values = self.copy_values(&values, value_schema.unwrap_or(Schema::Object), &nodes, &mut next)?;
                    self.out.fill(|w| w.set_attr(name, &to, &values));
                }
            }
        }
        Ok(next)
    }

    /// Copies the attributes of the schemas met (and of the schemas they
    /// name) into `out`.
    fn copy_schemas(&mut self) {
        let mut seen = std::collections::HashSet::new();
        let mut pending = std::mem::take(&mut self.schemas);
        while let Some((from, to)) = pending.pop() {
            if !seen.insert(to) {
                continue;
            }
            for name in self.src.attr_names(from) {
                let value = self.src.get_attr(&name, &[Some(from)]);
                self.out.fill(|w| w.set_attr(&name, &[Some(to)], &value));
                if let Some(ScalarRef::Schema(Schema::Struct(nested))) = value.get(0) {
                    pending.push((nested, nested));
                }
            }
        }
    }
}

/// The owner of each item of rows `edge` (one row per owner).
fn per_row(owners: &[u32], edge: &plait_core::Edge) -> Vec<u32> {
    owners.iter().enumerate().flat_map(|(i, &owner)| std::iter::repeat_n(owner, edge.child_range(i).len())).collect()
}

/// `kd.core.flatten_cyclic_references(x, max_recursion_depth=)`.
pub fn flatten_cyclic_references(x: &DataSlice, max_recursion_depth: i64) -> Result<DataSlice> {
    flatten_with_limit(x, max_recursion_depth, MAX_ITEMS)
}

/// [`flatten_cyclic_references`] making at most `max_items` items.
fn flatten_with_limit(x: &DataSlice, max_recursion_depth: i64, max_items: usize) -> Result<DataSlice> {
    let Some(bag) = x.bag() else {
        return Err(Error::value(OP, "cannot unroll without a DataBag"));
    };
    let schema = x.schema();
    let follows = match schema {
        Schema::Object => true,
        Schema::Struct(id) => !id.is_nofollow(),
        _ => false,
    };
    if !follows {
        return Ok(x.clone());
    }
    let src = bag.for_walk();
    let mut walk = Flatten {
        src: &src,
        out: DataBag::new_immutable(),
        max_occurrences: max_recursion_depth.saturating_add(1),
        nodes: Vec::new(),
        max_items,
        schemas: Vec::new(),
    };

    // The items of x are always copied (with a negative depth, as new
    // items without attributes).
    let roots = ids_of(x);
    let mut per_kind: HashMap<ItemKind, usize> = HashMap::new();
    for id in roots.iter().flatten() {
        *per_kind.entry(id.kind()).or_default() += 1;
    }
    let mut fresh: HashMap<ItemKind, std::vec::IntoIter<ItemId>> =
        per_kind.into_iter().map(|(kind, n)| (kind, allocate(kind, n).1.into_iter())).collect();
    let mut level = Vec::new();
    let mut new_roots = Vec::with_capacity(roots.len());
    for id in &roots {
        let Some(id) = *id else {
            new_roots.push(None);
            continue;
        };
        let to = fresh.get_mut(&id.kind()).and_then(Iterator::next).expect("one new id per root");
        let node = walk.add_node(id, NO_PARENT)?;
        if walk.max_occurrences >= 1 {
            level.push(Pending { node, to, schema });
        }
        new_roots.push(Some(to));
    }
    while !level.is_empty() {
        level = walk.copy_level(level)?;
    }
    walk.copy_schemas();
    Ok(DataSlice::new(x.shape().clone(), ids_data(&new_roots), schema)?.with_bag(Some(walk.out)))
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.core.flatten_cyclic_references",
        &[],
        "x, *, max_recursion_depth",
        r#"Returns a tree-like copy of x: every item reached gets a new id at each place it is reached.

Entities, objects, lists and dicts reachable from x are copied (with new
ItemIds) as a tree: an item shared by two parents becomes two copies, and a
cycle is unrolled until the same item would occur more than
`max_recursion_depth + 1` times on the path from x, where the copy has a
missing value. Schemas are kept. The copy can be exponentially larger than
the data; past 100,000,000 items it raises ValueError.

Args:
  x: a DataSlice with a bag.
  max_recursion_depth: how many times an item may repeat on a path.

Examples:
  >>> a = kd.mutable_bag().new(x=1)
  >>> a.next = a
  >>> t = kd.core.flatten_cyclic_references(a, max_recursion_depth=1)
  >>> t.next.x
  DataItem(1, schema: INT32, bag_id: $...)
  >>> t.next.next.x
  DataItem(None, schema: INT32, bag_id: $...)
  >>> z = kd.new(v=1)
  >>> t = kd.core.flatten_cyclic_references(kd.new(a=z, b=z), max_recursion_depth=0)
  >>> t.a.get_itemid() == t.b.get_itemid()
  DataItem(missing, schema: MASK)"#,
        |a| flatten_cyclic_references(a.slice("x")?, a.int("max_recursion_depth")?),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::create::{SchemaArg, new};

    /// A chain of `levels` entities, each with two attributes referring to
    /// the next: its tree-like copy has 2**(levels + 1) - 1 items.
    fn diamonds(levels: usize) -> DataSlice {
        let mut x = new(&[], SchemaArg::Fresh, false, None, None).unwrap();
        for _ in 0..levels {
            x = new(&[("a".into(), x.clone()), ("b".into(), x)], SchemaArg::Fresh, false, None, None).unwrap();
        }
        x
    }

    #[test]
    fn copies_every_path() {
        let copy = flatten_with_limit(&diamonds(3), 0, 100).unwrap();
        assert_eq!(copy.size(), 1);
        let err = flatten_with_limit(&diamonds(10), 0, 100).unwrap_err();
        assert!(err.message.contains("would hold more than 100 items"), "{}", err.message);
    }
}
