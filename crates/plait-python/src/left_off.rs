//! Values of a bag passed on without it: what a bag's creating method
//! (`bag.list([x])`, `bag.dict({'k': x})`, `bag.new(a=x)`) is given from the
//! bag itself needs no data brought along (it is there already), so the
//! operator making the new items gets it without the bag. Koda skips
//! adopting such values into their own bag; without this, building nested
//! data level by level in one bag (`cur = bag.list([cur])`) would copy
//! everything reachable from `cur` on each call.

use std::collections::HashMap;

use plait_core::DataBag;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::py_slice::{PyDataSlice, wrap};

/// `value` with every DataSlice whose bag is `bag` replaced by the same
/// slice without a bag, looking into exact Python lists, tuples and dicts
/// (keys and values) at any depth. Containers holding none are returned as
/// they are (the very object); those holding some are copied. A container
/// reached again from inside itself is left as it is (the conversion that
/// follows reports the cycle). Iterative: no depth of nesting reaches the
/// native stack.
pub fn without_bag(py: Python<'_>, value: &Bound<'_, PyAny>, bag: &DataBag) -> PyResult<Py<PyAny>> {
    if let Some(left_off) = slice_left_off(py, value, bag)? {
        return Ok(left_off);
    }
    let Some(root) = Container::of(value)? else {
        return Ok(value.clone().unbind());
    };
    // Containers already walked (shared ones are walked once), by address.
    let mut done: HashMap<usize, Py<PyAny>> = HashMap::new();
    let mut stack = vec![root];
    loop {
        let top = stack.last_mut().expect("the walk ends when the root is done");
        if top.next < top.children.len() {
            let child = top.children[top.next].clone();
            let address = child.as_ptr() as usize;
            let replaced = if let Some(left_off) = slice_left_off(py, &child, bag)? {
                Some(left_off)
            } else if let Some(walked) = done.get(&address) {
                Some(walked.clone_ref(py))
            } else if stack.iter().any(|frame| frame.address == address) {
                None
            } else if let Some(container) = Container::of(&child)? {
                stack.push(container);
                continue;
            } else {
                None
            };
            let top = stack.last_mut().expect("the frame just read");
            top.record(replaced);
            continue;
        }
        let finished = stack.pop().expect("the frame just read");
        let address = finished.address;
        let result = finished.rebuilt(py)?;
        match stack.last_mut() {
            None => return Ok(result),
            Some(parent) => {
                let same = result.as_ptr() as usize == address;
                done.insert(address, result.clone_ref(py));
                parent.record((!same).then_some(result));
            }
        }
    }
}

/// `value` without its bag when it is a DataSlice of `bag`.
fn slice_left_off(py: Python<'_>, value: &Bound<'_, PyAny>, bag: &DataBag) -> PyResult<Option<Py<PyAny>>> {
    match value.cast::<PyDataSlice>() {
        Ok(slice) if slice.get().inner.bag() == Some(bag) => Ok(Some(wrap(py, slice.get().inner.clone().with_bag(None))?)),
        _ => Ok(None),
    }
}

#[derive(Clone, Copy)]
enum Kind {
    List,
    Tuple,
    /// Children are keys and values in turn.
    Dict,
}

/// One container being walked: its children, how many are done, and the
/// replacements so far (None until the first child that changes).
struct Container<'py> {
    original: Bound<'py, PyAny>,
    address: usize,
    kind: Kind,
    children: Vec<Bound<'py, PyAny>>,
    next: usize,
    changed: Option<Vec<Py<PyAny>>>,
}

impl<'py> Container<'py> {
    /// `value` as a container to walk when it is an exact list, tuple or
    /// dict (subclasses are left to the conversion, which refuses them).
    fn of(value: &Bound<'py, PyAny>) -> PyResult<Option<Self>> {
        let (kind, children) = if value.is_exact_instance_of::<PyList>() {
            (Kind::List, value.cast::<PyList>()?.iter().collect())
        } else if value.is_exact_instance_of::<PyTuple>() {
            (Kind::Tuple, value.cast::<PyTuple>()?.iter().collect())
        } else if value.is_exact_instance_of::<PyDict>() {
            (Kind::Dict, value.cast::<PyDict>()?.iter().flat_map(|(k, v)| [k, v]).collect())
        } else {
            return Ok(None);
        };
        Ok(Some(Container { original: value.clone(), address: value.as_ptr() as usize, kind, children, next: 0, changed: None }))
    }

    /// The next child done: `replaced` by a new value, or kept (None).
    fn record(&mut self, replaced: Option<Py<PyAny>>) {
        if let Some(new) = replaced {
            let changed = self.changed.get_or_insert_with(|| self.children[..self.next].iter().map(|c| c.clone().unbind()).collect());
            changed.push(new);
        } else if let Some(changed) = &mut self.changed {
            changed.push(self.children[self.next].clone().unbind());
        }
        self.next += 1;
    }

    /// The container itself when no child changed, else a copy with the
    /// replacements.
    fn rebuilt(self, py: Python<'py>) -> PyResult<Py<PyAny>> {
        let Some(changed) = self.changed else {
            return Ok(self.original.unbind());
        };
        Ok(match self.kind {
            Kind::List => PyList::new(py, changed)?.into_any().unbind(),
            Kind::Tuple => PyTuple::new(py, changed)?.into_any().unbind(),
            Kind::Dict => {
                let dict = PyDict::new(py);
                for pair in changed.chunks_exact(2) {
                    dict.set_item(&pair[0], &pair[1])?;
                }
                dict.into_any().unbind()
            }
        })
    }
}
