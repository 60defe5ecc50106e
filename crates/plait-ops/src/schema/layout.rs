//! What a struct schema describes, read from the bag holding it: a list's
//! item schema, a dict's key and value schemas, or an entity's name and
//! attributes. Walks over data of a given schema (`kd.cast_to`'s deep cast,
//! `kd.from_py` under a schema) read each struct schema once here.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR, SCHEMA_NAME_ATTR};
use plait_core::{DataBag, ItemId, Schema};

use crate::objects::model::attr_schema;

/// What a struct schema describes.
pub enum Layout {
    List(Schema),
    Dict(Schema, Schema),
    /// An entity's name (a named schema's), attributes and their schemas.
    Entity(Option<String>, Vec<(String, Schema)>),
}

/// The layouts of the struct schemas of one bag, each read once.
pub struct Layouts<'a> {
    bag: Option<&'a DataBag>,
    known: RefCell<HashMap<ItemId, Rc<Layout>>>,
}

impl<'a> Layouts<'a> {
    pub fn new(bag: Option<&'a DataBag>) -> Layouts<'a> {
        Layouts { bag, known: RefCell::default() }
    }

    /// Whether there is a bag to read layouts from.
    pub fn has_bag(&self) -> bool {
        self.bag.is_some()
    }

    /// The layout of struct schema `id` (an entity without attributes when
    /// there is no bag to read it from).
    pub fn of(&self, id: ItemId) -> Rc<Layout> {
        if let Some(layout) = self.known.borrow().get(&id) {
            return layout.clone();
        }
        let layout = Rc::new(self.read(id));
        self.known.borrow_mut().insert(id, layout.clone());
        layout
    }

    fn read(&self, id: ItemId) -> Layout {
        let Some(bag) = self.bag else { return Layout::Entity(None, Vec::new()) };
        if let Some(items) = attr_schema(bag, id, LIST_ITEMS_ATTR) {
            return Layout::List(items);
        }
        if let Some(keys) = attr_schema(bag, id, DICT_KEYS_ATTR) {
            return Layout::Dict(keys, attr_schema(bag, id, DICT_VALUES_ATTR).unwrap_or(Schema::None));
        }
        // Koda's own attributes of a schema (its name, metadata) are dunders.
        let (mut name, mut attrs) = (None, Vec::new());
        for (n, v) in bag.attrs_of(id) {
            match v {
                plait_core::bag::Stored::String(text) if &*n == SCHEMA_NAME_ATTR => name = Some(text.to_string()),
                _ if n.starts_with("__") && n.ends_with("__") => {}
                v => attrs.extend(v.schema().map(|s| (n.to_string(), s))),
            }
        }
        Layout::Entity(name, attrs)
    }
}
