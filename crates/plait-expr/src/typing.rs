//! Type inference over expressions: each node's type from its arguments'
//! types by its operator's type rule (`plait_ops::typing`), without
//! evaluating anything but operators whose arguments are all known.
//! A [`TypeEnv`] keeps the type of every node it has seen (one rule call
//! per node); an error names the node and the line that built it (tracing
//! tags each node with its source line).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use plait_core::error::Context;
use plait_core::typing::{Dim, RAGGED_PREFIX, RESERVED_PREFIX, SchemaType, Size, SliceType, parse_functor_type};
use plait_core::{Error, Result, Schema};
use plait_ops::slices::keys::FastMap;
use plait_ops::typing::{ArgType, SizeNames, TypeArgs, TypeValue};

use crate::expr::{Expr, NodeKind, source_location};
use crate::operator::{Builtin, OperatorKind, is_variadic};
use crate::value::ExprValue;

/// The declared types of a program's inputs, and the types inferred so far.
pub struct TypeEnv {
    inputs: HashMap<Arc<str>, TypeValue>,
    /// Shared with the environments of loop bodies, whose sizes are the
    /// program's too.
    names: Rc<SizeNames>,
    /// By node fingerprint (already a hash: a fast hasher will do).
    types: FastMap<u128, TypeValue>,
    /// The types of calls of typed functors, by the functor's id and the
    /// arguments' fingerprints.
    calls: RefCell<HashMap<Vec<u128>, TypeValue>>,
    /// How many function bodies (untyped functors called, loop bodies)
    /// enclose this environment's.
    depth: usize,
}

/// How deep the bodies of functors called from functors are typed; deeper
/// calls are unknown (a functor may call itself).
const MAX_BODY_DEPTH: usize = 8;

impl TypeEnv {
    /// An environment where input `name` has type `t` for each pair (other
    /// inputs are unknown). Sizes named with the reserved prefix are
    /// refused: inference names data-dependent sizes with it.
    pub fn new(inputs: impl IntoIterator<Item = (String, TypeValue)>) -> Result<TypeEnv> {
        let inputs: HashMap<Arc<str>, TypeValue> = inputs.into_iter().map(|(n, t)| (Arc::from(n.as_str()), t)).collect();
        let mut declared = Vec::new();
        for (name, t) in &inputs {
            for size in size_params(t) {
                if size.starts_with(RESERVED_PREFIX) {
                    return Err(Error::value(
                        "kd.typing",
                        format!("input `{name}`: size `{size}` uses the prefix `{RESERVED_PREFIX}`, which inference keeps for sizes it names"),
                    ));
                }
                declared.push(size);
            }
        }
        let names = Rc::new(SizeNames::new(declared.iter().map(String::as_str)));
        // Room for a traced function of a few hundred operations: growing
        // the table costs more than typing its nodes.
        let types = FastMap::with_capacity_and_hasher(512, Default::default());
        Ok(TypeEnv { inputs, names, types, calls: RefCell::new(HashMap::new()), depth: 0 })
    }

    /// The type of `expr`, inferring every node not seen yet (children
    /// first, iteratively: any depth of expression is fine; a node shared
    /// by several parents is typed once).
    pub fn infer(&mut self, expr: &Expr) -> Result<TypeValue> {
        self.add(expr)?;
        Ok(self.types[&expr.fingerprint()].clone())
    }

    /// The type inferred for `node`, when it was typed (by [`TypeEnv::infer`]
    /// of an expression holding it).
    pub fn node_type(&self, node: &Expr) -> Option<&TypeValue> {
        self.types.get(&node.fingerprint())
    }

    /// Types `expr` and every node below it not typed yet.
    fn add(&mut self, expr: &Expr) -> Result<()> {
        let mut stack = vec![(expr.clone(), false)];
        while let Some((node, children_typed)) = stack.pop() {
            if self.types.contains_key(&node.fingerprint()) {
                continue;
            }
            if !children_typed {
                stack.push((node.clone(), true));
                stack.extend(node.children().filter(|c| !self.types.contains_key(&c.fingerprint())).map(|c| (c.clone(), false)));
                continue;
            }
            let t = self.infer_node_in_context(&node)?;
            self.types.insert(node.fingerprint(), t);
        }
        Ok(())
    }

    /// [`TypeEnv::infer_node`], an error naming the node and the line that
    /// created it.
    fn infer_node_in_context(&self, node: &Expr) -> Result<TypeValue> {
        self.infer_node(node).map_err(|e| {
            let place = source_location(node).map(|l| format!(" (created at {l})")).unwrap_or_default();
            e.in_context(Context::Note(format!("while inferring the type of {}{place}", crate::text::expr_text(node))))
        })
    }

    /// The type of one node whose children have types.
    fn infer_node(&self, node: &Expr) -> Result<TypeValue> {
        let child = |e: &Expr| self.types.get(&e.fingerprint()).cloned().unwrap_or(TypeValue::Unknown);
        match node.kind() {
            NodeKind::Input(name) => Ok(self.inputs.get(name).cloned().unwrap_or(TypeValue::Unknown)),
            NodeKind::Variable(_) | NodeKind::Placeholder(_) => Ok(TypeValue::Unknown),
            NodeKind::Literal(v) => Ok(literal_type(v)),
            NodeKind::Op { op, args, kwarg_names } => {
                let (fixed, var_args, kwargs) = op.split_args(args, kwarg_names.len());
                let fixed_type = |i: usize| fixed.get(i).and_then(|a| a.as_ref()).map_or(TypeValue::Unknown, child);
                let positional = || var_args.iter().flatten().map(child).collect::<Vec<_>>();
                let named = || kwarg_names.iter().zip(kwargs).filter_map(|(n, a)| Some((n.as_ref(), child(a.as_ref()?)))).collect::<Vec<_>>();
                match &op.kind {
                    OperatorKind::Backend(backend) => {
                        // The children's types are lent to the rule, not copied.
                        let arg = |e: &Expr| match self.types.get(&e.fingerprint()) {
                            Some(t) => ArgType::Borrowed(t),
                            None => ArgType::Owned(TypeValue::Unknown),
                        };
                        let mut fixed = fixed.iter();
                        let values = backend
                            .params
                            .iter()
                            .map(|p| if is_variadic(p) { None } else { fixed.next().and_then(|a| a.as_ref().map(arg)) })
                            .collect();
                        let var_args = var_args.iter().flatten().map(arg).collect();
                        let var_kwargs = kwarg_names.iter().zip(kwargs).filter_map(|(n, a)| Some((n.to_string(), arg(a.as_ref()?)))).collect();
                        backend.infer(&TypeArgs::new(backend, values, var_args, var_kwargs, &self.names))
                    }
                    // A name does not change the value.
                    OperatorKind::Builtin(def) if def.role == Builtin::WithName => Ok(fixed_type(0)),
                    OperatorKind::Builtin(def) if def.name == "kd.tuples.tuple" => Ok(TypeValue::Tuple(args.iter().flatten().map(child).collect())),
                    // An item of a tuple (a functor's outputs).
                    OperatorKind::Builtin(def) if def.name == "kd.tuples.get_nth" => {
                        let n = match fixed_type(1).untagged() {
                            TypeValue::Slice(_, Some(n)) => n.int_item(),
                            _ => None,
                        };
                        Ok(match (fixed_type(0).untagged(), n) {
                            (TypeValue::Tuple(items), Some(n)) => {
                                usize::try_from(n).ok().and_then(|i| items.get(i)).cloned().unwrap_or(TypeValue::Unknown)
                            }
                            _ => TypeValue::Unknown,
                        })
                    }
                    // A fused group: its body typed with the inputs' types.
                    OperatorKind::Builtin(def) if def.name == crate::builtins::fused::FUSED => {
                        let Some(ExprValue::Data(plait_ops::registry::Value::Slice(body))) =
                            fixed.first().and_then(|a| a.as_ref()).and_then(|a| a.literal_value())
                        else {
                            return Ok(TypeValue::Unknown);
                        };
                        let body = crate::packed::unpack(body)?;
                        let inputs = positional()
                            .into_iter()
                            .enumerate()
                            .map(|(k, t)| (Arc::from(crate::builtins::fused::input_name(k).as_str()), t))
                            .collect();
                        self.nested(inputs).infer(&body)
                    }
                    OperatorKind::Builtin(def) if def.name == "kd.functor.if_" => {
                        // Both branches are typed with the arguments; where they
                        // agree (`INT64[sz + 1]` from both), the result has it.
                        let yes = self.call_type(&fixed_type(1), positional(), named())?;
                        let no = self.call_type(&fixed_type(2), positional(), named())?;
                        Ok(join_branches(yes, no))
                    }
                    OperatorKind::Builtin(def) if def.name == "kd.functor.while_" || def.name == "kd.functor.for_" => {
                        let fixed: Vec<TypeValue> = (0..fixed.len()).map(fixed_type).collect();
                        let state = named().into_iter().map(|(n, t)| (n.to_string(), t)).collect();
                        self.loop_type(def.name, &fixed, state)
                    }
                    OperatorKind::Builtin(def) if def.role == Builtin::Call => {
                        let callee = fixed_type(0);
                        // A call of one functor on the same arguments gives one
                        // value: its sizes are named once.
                        let key = match callee.untagged() {
                            TypeValue::Slice(_, Some(f)) => match f.get(0) {
                                Some(plait_core::ScalarRef::ItemId(id)) => {
                                    let mut key = vec![id.0];
                                    key.extend(var_args.iter().chain(kwargs).flatten().map(Expr::fingerprint));
                                    key.extend(kwarg_names.iter().map(|n| plait_core::itemid::UuidHasher::new(n).finish()));
                                    Some(key)
                                }
                                _ => None,
                            },
                            _ => None,
                        };
                        if let Some(t) = key.as_ref().and_then(|k| self.calls.borrow().get(k).cloned()) {
                            return Ok(t);
                        }
                        let t = self.call_type(&callee, positional(), named())?;
                        if let Some(key) = key {
                            self.calls.borrow_mut().insert(key, t.clone());
                        }
                        Ok(t)
                    }
                    _ => Ok(TypeValue::Unknown),
                }
            }
        }
    }
}

impl TypeEnv {
    /// The type of a call of a functor (`kd.call`, a `@kd.trace_as_fn`
    /// function): for a functor traced with `input_types`, its signature
    /// instantiated with the arguments' types (seed 004): each size its
    /// inputs declare is bound to the argument's, an argument that does not
    /// fit the declared type is an error, and the output's dimensions are
    /// the declared ones with the bound sizes (other sizes, named inside
    /// the callee, get fresh names). Other callees: unknown.
    fn call_type(&self, callee: &TypeValue, positional: Vec<TypeValue>, named: Vec<(&str, TypeValue)>) -> Result<TypeValue> {
        const OP: &str = "kd.functor.call";
        let TypeValue::Slice(_, Some(functor)) = callee.untagged() else { return Ok(TypeValue::Unknown) };
        let declared = plait_ops::objects::access::get_attr(functor, "__type__", None)
            .ok()
            .filter(|t| matches!(t.get(0), Some(plait_core::ScalarRef::String(_))));
        let Some(type_item) = declared else { return self.body_call_type(functor, positional, named) };
        let Some(plait_core::ScalarRef::String(text)) = type_item.get(0) else { return Ok(TypeValue::Unknown) };
        let text = text.to_string();
        let mut k = 0;
        let (inputs, output) = parse_functor_type(&text, || {
            k += 1;
            // (A name that starts with a digit prints as `*`: an edge of
            // the callee's own.)
            Size::param(&format!("{RAGGED_PREFIX}{k}callee"))
        })
        .map_err(|e| Error::value(OP, format!("the functor's type {text:?} cannot be read: {e}")))?;
        let mut bound: HashMap<String, Size> = HashMap::new();
        let mut given = positional.into_iter();
        for (name, declared, value) in &inputs {
            let actual = match named.iter().find(|(n, _)| n == name) {
                Some((_, t)) => Some(t.clone()),
                None => given.next(),
            };
            match (value, actual.as_ref().map(TypeValue::untagged)) {
                // An integer argument standing for a declared size binds it.
                (Some(size), Some(actual)) => {
                    let given = match actual {
                        TypeValue::SizeItem(s) => Some(s.clone()),
                        TypeValue::Slice(_, Some(v)) => v.int_item().map(Size::constant),
                        _ => None,
                    };
                    if let (Some(p), Some(given)) = (size.as_param(), given) {
                        bind_size(p, given.clone(), &mut bound)
                            .map_err(|b| Error::value(OP, format!("argument `{name}`: size {p} is {b} already, the argument is {given}")))?;
                    }
                }
                (None, Some(TypeValue::Slice(actual, _))) => bind_argument(OP, name, declared, actual, &mut bound)?,
                _ => {}
            }
        }
        // Sizes the output names that no argument bound are the callee's own.
        let mut own: HashMap<String, Size> = HashMap::new();
        let mut rename = |d: &Dim| -> Result<Dim> {
            let size = match d {
                Dim::Uniform(s) => s,
                // A named edge an argument bound is the caller's edge
                // (`(x: FLOAT32[n, *a]) -> FLOAT32[n, *a]`); another is new.
                Dim::Ragged { total } => {
                    let bound_edge = total.as_param().and_then(|p| bound.get(p)).cloned();
                    return Ok(Dim::Ragged { total: bound_edge.map_or_else(|| self.names.fresh(OP, None), Ok)? });
                }
                Dim::Unknown => return Ok(Dim::Unknown),
            };
            for p in size.params() {
                if !bound.contains_key(p) && !own.contains_key(p) {
                    own.insert(p.to_string(), self.names.fresh(OP, None)?);
                }
            }
            let size = size.substitute(&|p: &str| bound.get(p).or_else(|| own.get(p)).cloned());
            size.map(Dim::Uniform).ok_or_else(|| Error::value(OP, "a size of the output overflows"))
        };
        TypeValue::of_output(&output, &mut rename)
    }
}

impl TypeEnv {
    /// The type of a call of a functor without a declared type: its body
    /// typed on the arguments' types (bound to its parameters as a call
    /// binds them); unknown when they do not bind, or in calls nested
    /// deeper than [`MAX_BODY_DEPTH`] (a functor may call itself).
    fn body_call_type(&self, functor: &plait_core::DataSlice, positional: Vec<TypeValue>, named: Vec<(&str, TypeValue)>) -> Result<TypeValue> {
        if self.depth >= MAX_BODY_DEPTH {
            return Ok(TypeValue::Unknown);
        }
        let Ok(compiled) = crate::functor::compile_as("kd.functor.call", functor) else { return Ok(TypeValue::Unknown) };
        let keywords = named.into_iter().map(|(n, t)| (n.to_string(), t)).collect();
        let Ok(bound) = plait_ops::registry::try_bind(&compiled.params, positional, keywords, plait_ops::registry::BindOrder::Operator) else {
            return Ok(TypeValue::Unknown);
        };
        let inputs =
            compiled.params.iter().zip(bound.values).filter_map(|(p, v)| Some((Arc::from(p.name.as_str()), v?.untagged().clone()))).collect();
        let mut env = self.nested(inputs);
        env.infer(&compiled.body)
    }

    /// An environment for a body called from this one: its own inputs, the
    /// program's size names.
    fn nested(&self, inputs: HashMap<Arc<str>, TypeValue>) -> TypeEnv {
        TypeEnv { inputs, names: self.names.clone(), types: FastMap::default(), calls: RefCell::new(HashMap::new()), depth: self.depth + 1 }
    }

    /// The type of `kd.while_` / `kd.for_` (seed 004's loops): the body
    /// (and `finalize_fn`) is typed once on the loop variables' types; a
    /// variable it gives other dimensions (a growing or filtered slice) is
    /// an error unless its initial value is tagged `kd.typing.resizable`,
    /// and then its dimensions after the loop are unknown where they
    /// differ. The result is the `returns` variable's type.
    fn loop_type(&self, op: &str, fixed: &[TypeValue], initial: Vec<(String, TypeValue)>) -> Result<TypeValue> {
        // The parameters before `**initial_state`, as the signatures list them.
        let (bodies, results): (&[(usize, &str)], usize) =
            if op == "kd.functor.while_" { (&[(1, "body_fn")], 2) } else { (&[(1, "body_fn"), (2, "finalize_fn")], 4) };
        let mut state = initial;
        for (name, value) in ["returns", "yields", "yields_interleaved"].iter().zip(&fixed[results..]) {
            state.push((name.to_string(), value.clone()));
        }
        let returns_given = fixed.get(results).is_some_and(|t| !is_unspecified(t));
        let mut after: Vec<(String, TypeValue)> = state.clone();
        for &(i, role) in bodies {
            let Some(updates) = self.body_updates(op, fixed.get(i), &state)? else { continue };
            for (name, updated) in updates {
                let Some(k) = state.iter().position(|(n, _)| *n == name) else { continue };
                let before = &state[k].1;
                if changes_dims(before, &updated) && !matches!(before, TypeValue::Resizable(_)) {
                    return Err(Error::value(
                        op,
                        format!(
                            "loop variable `{name}` changes its dimensions in {role}: {} before a round, {updated} after; wrap its initial value in kd.typing.resizable(...) to allow that",
                            before.untagged()
                        ),
                    ));
                }
                after[k].1 = join_rounds(after[k].1.untagged(), &updated);
            }
        }
        if !returns_given {
            return Ok(TypeValue::Unknown);
        }
        Ok(after.into_iter().find(|(n, _)| n == "returns").map_or(TypeValue::Unknown, |(_, t)| t.untagged().clone()))
    }

    /// The types of the variables a loop body functor updates (the
    /// `kd.namedtuple` it returns), typed on the loop variables' types;
    /// `None` where the body is not a known functor returning one.
    fn body_updates(&self, op: &str, body: Option<&TypeValue>, state: &[(String, TypeValue)]) -> Result<Option<Vec<(String, TypeValue)>>> {
        let Some(TypeValue::Slice(_, Some(functor))) = body.map(TypeValue::untagged) else { return Ok(None) };
        if self.depth >= MAX_BODY_DEPTH {
            return Ok(None);
        }
        let Ok(compiled) = crate::functor::compile_as(op, functor) else { return Ok(None) };
        let mut root = compiled.body.clone();
        loop {
            let next = match root.kind() {
                NodeKind::Op { op, args, .. } if matches!(&op.kind, OperatorKind::Builtin(d) if d.role == Builtin::WithName) => {
                    args.first().cloned().flatten()
                }
                _ => None,
            };
            match next {
                Some(inner) => root = inner,
                None => break,
            }
        }
        let NodeKind::Op { op: tuple_op, args, kwarg_names } = root.kind() else { return Ok(None) };
        if !matches!(&tuple_op.kind, OperatorKind::Builtin(d) if d.name == "kd.tuples.namedtuple") {
            return Ok(None);
        }
        let mut env = self.nested(state.iter().map(|(n, t)| (Arc::from(n.as_str()), t.untagged().clone())).collect());
        let (_, _, kwargs) = tuple_op.split_args(args, kwarg_names.len());
        let mut updates = Vec::new();
        for (name, value) in kwarg_names.iter().zip(kwargs) {
            if let Some(value) = value {
                updates.push((name.to_string(), env.infer(value)?));
            }
        }
        Ok(Some(updates))
    }
}

/// The type of a loop variable of type `before` that a round may change
/// to `after` (the loop may run any number of rounds): what both have,
/// unknown where they differ (INT32 and FLOAT32 give an unknown schema).
fn join_rounds(before: &TypeValue, after: &TypeValue) -> TypeValue {
    let (TypeValue::Slice(b, _), TypeValue::Slice(a, _)) = (before, after.untagged()) else { return TypeValue::Unknown };
    let schema = if a.schema == b.schema { b.schema.clone() } else { SchemaType::Unknown };
    TypeValue::slice(SliceType { schema, dims: join_dims(&b.dims, &a.dims) })
}

/// Whether a loop argument was left unspecified.
fn is_unspecified(t: &TypeValue) -> bool {
    matches!(t.untagged(), TypeValue::Unknown)
}

/// Whether a value of type `after` may have other dimensions than one of
/// type `before`: another rank, or a known dimension that is not the same
/// (`n` and `2*n`, `n` and the size of what a filter kept, a ragged edge
/// and a new one).
fn changes_dims(before: &TypeValue, after: &TypeValue) -> bool {
    let (TypeValue::Slice(b, _), TypeValue::Slice(a, _)) = (before.untagged(), after.untagged()) else { return false };
    match (&b.dims, &a.dims) {
        (Some(bd), Some(ad)) => bd.len() != ad.len() || bd.iter().zip(ad).any(|(x, y)| x != y && *x != Dim::Unknown && *y != Dim::Unknown),
        _ => false,
    }
}

/// Checks argument `name` of type `actual` against its declared type and
/// binds the sizes the declaration names (`n` in `INT32[n]`) to the
/// argument's.
fn bind_argument(op: &str, name: &str, declared: &SliceType, actual: &SliceType, bound: &mut HashMap<String, Size>) -> Result<()> {
    let mismatch = |why: String| Error::value(op, format!("argument `{name}`: expected {declared}, inferred {actual}: {why}"));
    if let (SchemaType::Named(d), SchemaType::Named(a)) = (&declared.schema, &actual.schema)
        && Schema::common(*a, *d) != Some(*d)
    {
        return Err(mismatch(format!("{a} is not {d}")));
    }
    let (Some(dd), Some(ad)) = (&declared.dims, &actual.dims) else { return Ok(()) };
    if dd.len() != ad.len() {
        return Err(mismatch(format!("rank {} is not {}", ad.len(), dd.len())));
    }
    for (i, (d, a)) in dd.iter().zip(ad).enumerate() {
        // A ragged edge the declaration names is the argument's edge.
        if let (Dim::Ragged { total: d }, Dim::Ragged { total: a }) = (d, a)
            && let Some(p) = d.as_param()
        {
            bind_size(p, a.clone(), bound).map_err(|_| mismatch(format!("dimension {i} is another ragged edge than the one {declared} names")))?;
            continue;
        }
        let (Dim::Uniform(d), Dim::Uniform(a)) = (d, a) else { continue };
        match (d.as_param(), d.as_constant()) {
            (Some(p), _) => bind_size(p, a.clone(), bound).map_err(|b| mismatch(format!("size {p} is {b} already, dimension {i} is {a}")))?,
            (None, Some(k)) if a.as_constant().is_some_and(|v| v != k) => return Err(mismatch(format!("dimension {i} is {a}, not {k}"))),
            _ => {}
        }
    }
    Ok(())
}

/// Binds size `p` to `given`; the size it is bound to already when that
/// differs.
fn bind_size(p: &str, given: Size, bound: &mut HashMap<String, Size>) -> std::result::Result<(), Size> {
    match bound.get(p) {
        Some(b) if *b != given => Err(b.clone()),
        Some(_) => Ok(()),
        None => {
            bound.insert(p.to_string(), given);
            Ok(())
        }
    }
}

/// The type of `kd.if_`'s result from its branches' types: their common
/// type, a dimension on which they differ (or a schema with no common one)
/// unknown.
fn join_branches(yes: TypeValue, no: TypeValue) -> TypeValue {
    let (TypeValue::Slice(y, _), TypeValue::Slice(n, _)) = (&yes, &no) else { return TypeValue::Unknown };
    if y == n {
        return TypeValue::slice(SliceType::clone(y));
    }
    let schema = SchemaType::common(&y.schema, &n.schema).unwrap_or(SchemaType::Unknown);
    TypeValue::slice(SliceType { schema, dims: join_dims(&y.dims, &n.dims) })
}

/// The dimensions two values that may be either one have: the ones they
/// share, unknown where they differ (and an unknown rank where theirs do).
fn join_dims(a: &Option<Vec<Dim>>, b: &Option<Vec<Dim>>) -> Option<Vec<Dim>> {
    match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => Some(a.iter().zip(b).map(|(a, b)| if a == b { a.clone() } else { Dim::Unknown }).collect()),
        _ => None,
    }
}

/// The exact type of a literal: a value, or a tuple of values.
fn literal_type(v: &ExprValue) -> TypeValue {
    match v {
        ExprValue::Data(v) => TypeValue::of_value(v),
        ExprValue::Tuple(t) if t.names.is_none() => TypeValue::Tuple(t.items.iter().map(literal_type).collect()),
        _ => TypeValue::Unknown,
    }
}

/// The names of the size parameters in `t`'s dimensions.
fn size_params(t: &TypeValue) -> Vec<String> {
    let dims = match t {
        TypeValue::Slice(s, _) => s.dims.as_deref().unwrap_or_default(),
        TypeValue::Shape(dims) => dims.as_deref().unwrap_or_default(),
        TypeValue::Tuple(items) => return items.iter().flat_map(size_params).collect(),
        TypeValue::CountNamed { mask, .. } => return size_params(mask),
        TypeValue::Resizable(value) => return size_params(value),
        TypeValue::SizeItem(s) => return s.params().map(str::to_string).collect(),
        TypeValue::Bag | TypeValue::Unknown => &[],
    };
    dims.iter()
        .filter_map(|d| match d {
            plait_core::typing::Dim::Uniform(s) | plait_core::typing::Dim::Ragged { total: s } => Some(s),
            plait_core::typing::Dim::Unknown => None,
        })
        .flat_map(|s| s.params().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use plait_core::typing::{Dim, SchemaType, Size, SliceType};
    use plait_core::{DataSlice, ScalarRef, Schema};
    use plait_ops::registry::Value;

    use super::*;

    fn slice_type(schema: Schema, dims: Vec<Dim>) -> TypeValue {
        TypeValue::slice(SliceType::new(SchemaType::Named(schema), dims))
    }

    fn n() -> Dim {
        Dim::Uniform(Size::param("n"))
    }

    fn op(name: &str, args: Vec<Expr>) -> Expr {
        Expr::op(name, args.into_iter().map(Some).collect()).unwrap()
    }

    #[test]
    fn aggregation_drops_a_dimension_and_promotion_is_checked() {
        let ragged = Dim::Ragged { total: Size::param("t") };
        let mut env = TypeEnv::new([("x".to_string(), slice_type(Schema::Int32, vec![n(), ragged]))]).unwrap();
        let agg = op("kd.math.agg_sum", vec![Expr::input("x")]);
        assert_eq!(env.infer(&agg).unwrap().to_string(), "INT32[n]");
        let text = Expr::data(Value::Slice(DataSlice::item(Some(ScalarRef::String("abc")), Schema::String).unwrap()));
        let bad = op("kd.math.add", vec![agg, text]);
        let err = env.infer(&bad).unwrap_err();
        assert!(err.to_string().contains("no common primitive schema: inferred `x`: INT32[n], `y`: STRING[]"), "{err}");
        assert!(err.notes().iter().any(|n| n.starts_with("while inferring the type of")), "{:?}", err.notes());
    }

    #[test]
    fn known_arguments_are_computed() {
        let mut env = TypeEnv::new([]).unwrap();
        let e = op("kd.math.add", vec![crate::tracing::int32(1), crate::tracing::int32(2)]);
        let t = env.infer(&e).unwrap();
        assert_eq!(t.to_string(), "INT32[]");
        assert!(matches!(t, TypeValue::Slice(_, Some(v)) if v.get(0) == Some(ScalarRef::Int32(3))));
    }

    #[test]
    fn unknown_inputs_give_unknown_types_and_deep_chains_are_fine() {
        let mut env = TypeEnv::new([]).unwrap();
        let mut e = Expr::input("x");
        for _ in 0..100_000 {
            e = op("kd.math.neg", vec![e]);
        }
        assert_eq!(env.infer(&e).unwrap().to_string(), "?[...]");
    }

    #[test]
    fn reserved_size_names_are_refused() {
        let t = slice_type(Schema::Int32, vec![Dim::Uniform(Size::param("_pd_shp0"))]);
        assert!(TypeEnv::new([("x".to_string(), t)]).is_err());
    }
}
