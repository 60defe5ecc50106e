//! Type rules: what an operator gives, computed from what is known of its
//! arguments before anything runs (seed 000's abstract QTypes, seed 002's
//! symbolic shapes). Each operator's rule is registered beside its kernel
//! (`Registry::type_rule`); the families of rules operators share live in
//! [`rules`]. An argument whose value is known (a literal) is known exactly,
//! and an operator whose arguments are all known is run instead of
//! inferred ([`Operator::infer`]), so literal subexpressions are exact.

pub mod check;
mod operators;
pub mod rules;

pub(crate) use operators::register;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use plait_core::bag::text::{DICT_KEYS_ATTR, DICT_VALUES_ATTR, LIST_ITEMS_ATTR};
use plait_core::typing::{Dim, OutputType, SchemaType, Size, SliceType};
use plait_core::{DataBag, DataSlice, Error, Result, ScalarRef, Schema};

use crate::registry::{Operator, ParamKind, Value};

/// What is known of an argument or a result.
#[derive(Clone, Debug)]
pub enum TypeValue {
    /// A DataSlice of this type (shared: types are copied from node to
    /// node), and its value when known.
    Slice(Arc<SliceType>, Option<DataSlice>),
    /// A JaggedShape with these dimensions (`None`: rank unknown).
    Shape(Option<Vec<Dim>>),
    Bag,
    Tuple(Vec<TypeValue>),
    /// An INT64 item whose value is this size (`kd.typing.infer(f,
    /// kd.typing.size('sz'))`: seed 004's dimension arguments), so that
    /// `kd.range(sz + 1)` has `sz + 1` items.
    SizeItem(Size),
    /// A mask whose number of present items is to be called `name` where an
    /// operator's result has that many items (`kd.typing.count_named`; a tag:
    /// the value is the mask's).
    CountNamed {
        mask: Box<TypeValue>,
        name: Arc<str>,
    },
    /// A loop variable's initial value whose dimensions the loop may
    /// change (`kd.typing.resizable`, Catalyst's `allow_array_resizing`; a
    /// tag: the value is the argument's).
    Resizable(Box<TypeValue>),
    /// Anything.
    Unknown,
}

impl TypeValue {
    /// A DataSlice of type `ty`, value unknown.
    pub fn slice(ty: SliceType) -> TypeValue {
        TypeValue::Slice(Arc::new(ty), None)
    }

    /// The exact type of a value, which is kept.
    pub fn of_value(v: &Value) -> TypeValue {
        match v {
            Value::Slice(x) => TypeValue::Slice(Arc::new(type_of(x)), Some(x.clone())),
            Value::Shape(s) => TypeValue::Shape(Some(SliceType::dims_of(s))),
            Value::Bag(_) => TypeValue::Bag,
            Value::Tuple(items) => TypeValue::Tuple(items.iter().map(TypeValue::of_value).collect()),
            Value::Range { .. } | Value::Ellipsis => TypeValue::Unknown,
        }
    }

    /// The type a functor's type gives its output, each dimension mapped
    /// by `dim` (which renames the callee's sizes at a call).
    pub fn of_output(output: &OutputType, dim: &mut impl FnMut(&Dim) -> Result<Dim>) -> Result<TypeValue> {
        let mut dims = |ds: &Option<Vec<Dim>>| ds.as_ref().map(|ds| ds.iter().map(&mut *dim).collect::<Result<Vec<_>>>()).transpose();
        Ok(match output {
            OutputType::Unknown => TypeValue::Unknown,
            OutputType::Slice(t) => TypeValue::slice(SliceType { schema: t.schema.clone(), dims: dims(&t.dims)? }),
            OutputType::Shape(ds) => TypeValue::Shape(dims(ds)?),
            OutputType::Bag => TypeValue::Bag,
            OutputType::Tuple(items) => TypeValue::Tuple(items.iter().map(|o| TypeValue::of_output(o, dim)).collect::<Result<Vec<_>>>()?),
        })
    }

    /// The type without a count name.
    pub fn untagged(&self) -> &TypeValue {
        match self {
            TypeValue::CountNamed { mask, .. } => mask.untagged(),
            TypeValue::Resizable(value) => value.untagged(),
            other => other,
        }
    }

    /// The known value, as an operator argument.
    pub fn known(&self) -> Option<Value> {
        match self {
            TypeValue::Slice(_, Some(x)) => Some(Value::Slice(x.clone())),
            TypeValue::CountNamed { mask, .. } => mask.known(),
            TypeValue::Resizable(value) => value.known(),
            TypeValue::Tuple(items) => items.iter().map(TypeValue::known).collect::<Option<Vec<_>>>().map(Value::Tuple),
            _ => None,
        }
    }
}

/// `INT32[n, *]`, `JAGGED_SHAPE[n, *]`, `DATA_BAG`, `tuple<INT32[], ?>`, `?`.
impl fmt::Display for TypeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeValue::Slice(t, _) => write!(f, "{t}"),
            TypeValue::Shape(dims) => write!(f, "JAGGED_SHAPE{}", &SliceType { schema: SchemaType::Unknown, dims: dims.clone() }.to_string()[1..]),
            TypeValue::Bag => write!(f, "DATA_BAG"),
            TypeValue::Tuple(items) => {
                write!(f, "tuple<")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ">")
            }
            TypeValue::CountNamed { mask, .. } => write!(f, "{mask}"),
            TypeValue::Resizable(value) => write!(f, "{value}"),
            TypeValue::SizeItem(size) => write!(f, "INT64[] (the size {size})"),
            TypeValue::Unknown => write!(f, "?"),
        }
    }
}

/// The names of the sizes of one program: those its inputs declare, those
/// given with `kd.typing.count_named`, and those inference makes up for
/// data-dependent dimensions (`_pd_shp0`, `_pd_shp1`, ...).
#[derive(Debug, Default)]
pub struct SizeNames {
    taken: RefCell<HashSet<Arc<str>>>,
    next: Cell<u64>,
}

impl SizeNames {
    /// Names for a program whose inputs declare `declared`.
    pub fn new<'n>(declared: impl IntoIterator<Item = &'n str>) -> SizeNames {
        SizeNames { taken: RefCell::new(declared.into_iter().map(Arc::from).collect()), next: Cell::new(0) }
    }

    /// A new size: called `requested` (which no other size of the program
    /// may have), else a fresh reserved name.
    pub fn fresh(&self, op: &str, requested: Option<&str>) -> Result<Size> {
        match requested {
            Some(name) => {
                if !self.taken.borrow_mut().insert(Arc::from(name)) {
                    return Err(Error::value(op, format!("the size name '{name}' is declared twice in one program")));
                }
                Ok(Size::param(name))
            }
            None => {
                let k = self.next.get();
                self.next.set(k + 1);
                Ok(Size::param(&format!("{}{k}", plait_core::typing::RESERVED_PREFIX)))
            }
        }
    }
}

/// How deep the attributes of a concrete struct schema are described in
/// its type; deeper (or in a cycle: a tree's node schema) they are unknown.
const SCHEMA_DEPTH: usize = 6;

/// The exact type of a DataSlice: its schema (a struct schema described by
/// the attributes its bag gives it) and its dimensions.
pub fn type_of(x: &DataSlice) -> SliceType {
    SliceType::new(schema_type(x.schema(), x.bag(), SCHEMA_DEPTH), SliceType::dims_of(x.shape()))
}

/// The type of `schema` whose attributes `bag` holds.
pub fn schema_type(schema: Schema, bag: Option<&DataBag>, depth: usize) -> SchemaType {
    let (Schema::Struct(id), Some(bag)) = (schema, bag) else {
        return SchemaType::of_schema(schema);
    };
    if depth == 0 {
        return SchemaType::Unknown;
    }
    let attr = |name: &str| match bag.get_one(name, id).and_then(|v| v.schema()) {
        Some(s) => schema_type(s, Some(bag), depth - 1),
        None => SchemaType::Unknown,
    };
    if bag.get_one(LIST_ITEMS_ATTR, id).is_some() {
        return SchemaType::List(Box::new(attr(LIST_ITEMS_ATTR)));
    }
    if bag.get_one(DICT_KEYS_ATTR, id).is_some() {
        return SchemaType::Dict(Box::new(attr(DICT_KEYS_ATTR)), Box::new(attr(DICT_VALUES_ATTR)));
    }
    // Attributes named `__...__` are the schema's own (its name, ...).
    SchemaType::entity(bag.attr_names(id).into_iter().filter(|name| !name.starts_with("__")).map(|name| {
        let t = attr(&name);
        (Arc::from(name.as_str()), t)
    }))
}

/// The function of a [`TypeRule`].
type RuleFn = dyn Fn(&TypeArgs<'_>) -> Result<TypeValue> + Send + Sync;

/// A rule given as a plain function (the operators' own rules, in their
/// modules' `types.rs`).
pub type RuleFunction = fn(&TypeArgs<'_>) -> Result<TypeValue>;

/// A rule: the result's type from the arguments' types.
#[derive(Clone)]
pub struct TypeRule(Arc<RuleFn>, Batching);

/// How an operator meets leading batch dimensions (`kd.vmap`, seed 003's
/// prefix batch semantics), known from the family of its type rule: the
/// batching rule lives beside the type rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Batching {
    /// Item by item (broadcasting its arguments): batch dimensions lead
    /// the result as they lead the arguments.
    Items,
    /// Over the last dimensions (`agg_*`, `cum_*`, `sort` with `ndim`
    /// counted from the end): leading batch dimensions stay.
    Trailing,
    /// Over all dimensions to one item (`kd.sum`): per example, over all
    /// the dimensions after the batch ones.
    AllDims,
    /// Stated by `kd.vmap` for the operator by name, or none.
    ByName,
}

impl TypeRule {
    pub fn new(rule: impl Fn(&TypeArgs<'_>) -> Result<TypeValue> + Send + Sync + 'static) -> TypeRule {
        TypeRule(Arc::new(rule), Batching::ByName)
    }

    /// The rule, with operators of its family batched by `batching`.
    pub fn batched(self, batching: Batching) -> TypeRule {
        TypeRule(self.0, batching)
    }

    /// How operators with this rule meet leading batch dimensions.
    pub fn batching(&self) -> Batching {
        self.1
    }
}

impl fmt::Debug for TypeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypeRule")
    }
}

/// The argument types of one call, bound to the operator's parameters.
pub struct TypeArgs<'a> {
    op: &'a Operator,
    /// One per parameter that is not `*args` / `**kwargs`: the given type,
    /// else the default's (known) one, else `None` (unspecified).
    values: Vec<Option<ArgType<'a>>>,
    var_args: Vec<ArgType<'a>>,
    var_kwargs: Vec<(String, ArgType<'a>)>,
    names: &'a SizeNames,
}

/// An argument's type: borrowed from where inference keeps it (no clone
/// per call), or made for the call (a default's).
pub type ArgType<'a> = std::borrow::Cow<'a, TypeValue>;

/// Nothing known of a slice.
static UNKNOWN_SLICE: SliceType = SliceType { schema: SchemaType::Unknown, dims: None };

/// The type of an INT64 item.
static INT64_ITEM: SliceType = SliceType { schema: SchemaType::Named(Schema::Int64), dims: Some(Vec::new()) };

impl<'a> TypeArgs<'a> {
    /// Arguments bound as an expression node binds them (one per named
    /// parameter, `None` where unspecified); defaults are filled in.
    pub fn new(
        op: &'a Operator,
        values: Vec<Option<ArgType<'a>>>,
        var_args: Vec<ArgType<'a>>,
        var_kwargs: Vec<(String, ArgType<'a>)>,
        names: &'a SizeNames,
    ) -> TypeArgs<'a> {
        let values = values
            .into_iter()
            .zip(&op.params)
            .map(|(v, p)| v.or_else(|| p.default.clone().flatten().map(|d| ArgType::Owned(TypeValue::of_value(&Value::Slice(d))))))
            .collect();
        TypeArgs { op, values, var_args, var_kwargs, names }
    }

    /// A new data-dependent size: the count name of argument `counted`
    /// when it has one, else a fresh reserved name.
    pub fn fresh_size(&self, counted: &str) -> Result<Size> {
        let requested = match self.get(counted) {
            Some(TypeValue::CountNamed { name, .. }) => Some(name.as_ref()),
            _ => None,
        };
        self.names.fresh(self.op.name, requested)
    }

    /// A new data-dependent size, with a fresh reserved name.
    pub fn new_size(&self) -> Result<Size> {
        self.names.fresh(self.op.name, None)
    }

    /// The operator's name, for errors.
    pub fn op_name(&self) -> &'static str {
        self.op.name
    }

    /// The type of argument `name` (with its count name, see
    /// [`TypeValue::untagged`]); `None` when unspecified.
    pub fn get(&self, name: &str) -> Option<&TypeValue> {
        let i = self.op.params.iter().position(|p| p.name == name && !matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword));
        i.and_then(|i| self.values[i].as_deref())
    }

    /// The type of DataSlice argument `name` (unknown when its type is, or
    /// when unspecified); an argument known to be something else is a
    /// TypeError.
    pub fn slice(&self, name: &str) -> Result<&SliceType> {
        match self.get(name).map(TypeValue::untagged) {
            Some(TypeValue::Slice(t, _)) => Ok(t),
            Some(TypeValue::SizeItem(_)) => Ok(&INT64_ITEM),
            None | Some(TypeValue::Unknown) => Ok(&UNKNOWN_SLICE),
            Some(other) => Err(Error::type_error(self.op.name, format!("argument `{name}`: expected a DataSlice, inferred {other}"))),
        }
    }

    /// The value of DataSlice argument `name`, when known.
    pub fn known(&self, name: &str) -> Option<&DataSlice> {
        match self.get(name).map(TypeValue::untagged) {
            Some(TypeValue::Slice(_, x)) => x.as_ref(),
            _ => None,
        }
    }

    /// The integer item argument `name`: `Ok(None)` when not known (or
    /// missing), an error when known to be something else.
    pub fn known_int(&self, name: &str) -> Result<Option<i64>> {
        let Some(x) = self.known(name) else { return Ok(None) };
        if let Some(v) = x.int_item() {
            return Ok(Some(v));
        }
        match (x.is_item(), x.get(0)) {
            // Koda reads a boolean as an index (`ndim=True` is 1).
            (true, Some(ScalarRef::Boolean(v))) => Ok(Some(v as i64)),
            (true, None) => Ok(None),
            _ => Err(Error::value(self.op.name, format!("argument `{name}`: expected an integer item, got {}", crate::describe(x)))),
        }
    }

    /// The value of integer item argument `name` as a size: a size item's,
    /// or a known integer's.
    pub fn size_value(&self, name: &str) -> Option<Size> {
        match self.get(name).map(TypeValue::untagged) {
            Some(TypeValue::SizeItem(s)) => Some(s.clone()),
            _ => self.known_int(name).ok().flatten().map(Size::constant),
        }
    }

    /// The text item argument `name`, when known (and an item).
    pub fn known_item_text(&self, name: &str) -> Option<String> {
        let x = self.known(name).filter(|x| x.is_item())?;
        match x.get(0) {
            Some(ScalarRef::String(s)) => Some(s.to_string()),
            _ => None,
        }
    }

    /// The `*args` types.
    pub fn var_args(&self) -> &[ArgType<'a>] {
        &self.var_args
    }

    /// The types of the `*args`, which are to be DataSlices (unknown ones
    /// where only evaluation knows; anything else is a TypeError).
    pub fn var_arg_slices(&self) -> Result<Vec<&SliceType>> {
        self.var_args.iter().map(|v| self.var_slice(v)).collect()
    }

    /// The type of a `*args` / `**kwargs` value that is to be a DataSlice.
    pub fn var_slice<'v>(&self, v: &'v TypeValue) -> Result<&'v SliceType> {
        match v.untagged() {
            TypeValue::Slice(t, _) => Ok(t),
            TypeValue::Unknown | TypeValue::SizeItem(_) => Ok(&UNKNOWN_SLICE),
            other => Err(Error::type_error(self.op.name, format!("expected DataSlices, inferred {other}"))),
        }
    }

    /// The `**kwargs` types, by name.
    pub fn var_kwargs(&self) -> &[(String, ArgType<'a>)] {
        &self.var_kwargs
    }

    /// The dimensions of JaggedShape argument `name` (`None`: unknown); an
    /// argument known to be something else is a TypeError.
    pub fn shape(&self, name: &str) -> Result<Option<Vec<Dim>>> {
        match self.get(name).map(TypeValue::untagged) {
            Some(TypeValue::Shape(dims)) => Ok(dims.clone()),
            None | Some(TypeValue::Unknown) => Ok(None),
            Some(other) => Err(Error::type_error(self.op.name, format!("argument `{name}`: expected a JaggedShape, inferred {other}"))),
        }
    }

    /// The schema item argument `name` as a type: what it names when known
    /// (a struct schema with the attributes its bag gives it), else
    /// unknown.
    pub fn known_schema(&self, name: &str) -> SchemaType {
        match self.known(name) {
            Some(x) if x.is_item() && x.schema() == Schema::Schema => match x.get(0) {
                Some(ScalarRef::Schema(s)) => schema_type(s, x.bag(), SCHEMA_DEPTH),
                _ => SchemaType::Unknown,
            },
            _ => SchemaType::Unknown,
        }
    }

    /// Every argument's value when all are known.
    fn all_known(&self) -> Option<KnownArgs> {
        let values = self
            .values
            .iter()
            .map(|v| match v {
                None => Some(None),
                Some(t) => t.known().map(Some),
            })
            .collect::<Option<Vec<_>>>()?;
        let var_args = self.var_args.iter().map(|v| v.known()).collect::<Option<Vec<_>>>()?;
        let var_kwargs = self.var_kwargs.iter().map(|(n, v)| Some((n.clone(), v.known()?))).collect::<Option<Vec<_>>>()?;
        Some(KnownArgs { values, var_args, var_kwargs })
    }
}

/// The values of all the arguments of a call, bound as
/// [`Operator::call_bound`] takes them.
struct KnownArgs {
    values: Vec<Option<Value>>,
    var_args: Vec<Value>,
    var_kwargs: Vec<(String, Value)>,
}

impl Operator {
    /// The type of the result on arguments of types `args`: an operator
    /// that always gives the same result on the same arguments is run when
    /// all of them are known; else its type rule; else unknown.
    pub fn infer(&self, args: &TypeArgs<'_>) -> Result<TypeValue> {
        if self.deterministic
            && let Some(known) = args.all_known()
        {
            return self.call_bound(known.values, known.var_args, known.var_kwargs).map(|v| TypeValue::of_value(&v));
        }
        match &self.type_rule {
            Some(rule) => (rule.0)(args),
            None => Ok(TypeValue::Unknown),
        }
    }
}
