//! The families of type rules operators share: item-by-item operators
//! (broadcast, promoted), aggregations over the last dimensions, attribute
//! access. Broadcasting and promotion on types happen here only, as
//! `broadcast` and `promote` do them on data.

use plait_core::typing::{Dim, SchemaType, Size, SliceType, broadcast_dims};
use plait_core::{Error, Result, Schema};

use super::{Batching, TypeArgs, TypeRule, TypeValue};
use crate::promote::TypeClass;

/// How the result's schema follows from the arguments' common schema.
#[derive(Clone, Copy, Debug)]
pub enum Out {
    /// The common schema (`x + y`, `agg_max`).
    Common,
    /// The common schema, `schema` where it is NONE (`agg_sum` of nothing
    /// is 0 of INT32).
    CommonOr(Schema),
    /// The common schema made floating point: FLOAT64 stays, other numbers
    /// are FLOAT32, NONE stays NONE (`x / y`, `log`, `agg_mean`).
    Float,
    /// As `Float`, but NONE is FLOAT32 too (`sigmoid`, `softmax`, `cdf`).
    AlwaysFloat,
    /// Always this schema (`x < y` is MASK, `argmax` INT64).
    Fixed(Schema),
    /// The common schema joined with the named argument's, which is a
    /// parameter (`kd.strings.agg_join(x, sep)`).
    JoinedWith(&'static str),
    /// Not known before the items are (`kd.follow(x)`).
    Unknown,
    /// The schema of the named argument, the others being parameters
    /// (`kd.strings.strip(s, chars)` is `s`'s: NONE stays NONE).
    SameAs(&'static str),
}

impl Out {
    /// The result's schema from the arguments' `common` one (for
    /// [`Out::SameAs`], `args` give the argument's).
    fn schema(self, common: SchemaType, args: &[(&str, &SliceType)]) -> SchemaType {
        match (self, common) {
            (Out::Fixed(s), _) => SchemaType::Named(s),
            (Out::Unknown, _) => SchemaType::Unknown,
            (Out::SameAs(name), _) => args.iter().find(|(n, _)| *n == name).map_or(SchemaType::Unknown, |(_, t)| t.schema.clone()),
            (Out::Common, c) => c,
            (Out::JoinedWith(name), c) => {
                let other = args.iter().find(|(n, _)| *n == name).map_or(SchemaType::Unknown, |(_, t)| t.schema.clone());
                SchemaType::common(&c, &other).unwrap_or(SchemaType::Unknown)
            }
            (Out::CommonOr(s), SchemaType::Named(Schema::None)) => SchemaType::Named(s),
            (Out::CommonOr(_), c) => c,
            (Out::Float | Out::AlwaysFloat, SchemaType::Named(s)) if s.is_numeric() && s != Schema::Float64 => SchemaType::Named(Schema::Float32),
            (Out::AlwaysFloat, SchemaType::Named(Schema::None)) => SchemaType::Named(Schema::Float32),
            (Out::Float | Out::AlwaysFloat, c) => c,
        }
    }
}

/// The schema `out` gives a result computed item by item from `x` alone.
pub fn out_schema(out: Out, x: &SliceType) -> SchemaType {
    out.schema(x.schema.clone(), &[("x", x)])
}

/// The error for argument `arg` of a type `op` does not accept.
fn expected_error(op: &str, arg: &str, expected: &str, inferred: &SliceType) -> Error {
    Error::value(op, format!("argument `{arg}`: expected a slice of {expected}, inferred {inferred}"))
}

/// Checks argument `arg`'s schema against `class` (OBJECT and unknown
/// schemas pass: their items are known only by evaluation).
pub(crate) fn check_class(op: &str, arg: &str, t: &SliceType, class: TypeClass) -> Result<()> {
    let admitted = match &t.schema {
        SchemaType::Unknown | SchemaType::Named(Schema::Object) => true,
        SchemaType::Named(s) => class.admits(*s),
        _ => false,
    };
    if admitted { Ok(()) } else { Err(expected_error(op, arg, class.describe(), t)) }
}

/// The type of DataSlice argument `name`, checked against `class` when
/// one is given.
fn slice_of_class<'a>(a: &'a TypeArgs<'_>, name: &str, class: Option<TypeClass>) -> Result<&'a SliceType> {
    let t = a.slice(name)?;
    if let Some(class) = class {
        check_class(a.op_name(), name, t, class)?;
    }
    Ok(t)
}

/// The dimensions of `(name, type)` arguments broadcast together (unknown
/// when a rank is), or the error naming the two that differ.
pub fn broadcast(op: &str, args: &[(&str, &SliceType)]) -> Result<Option<Vec<Dim>>> {
    Ok(broadcast_borrowed(op, args)?.map(std::borrow::Cow::into_owned))
}

/// [`broadcast`], the dims borrowed from an argument when they are its
/// (most often they are one argument's, or all the same).
fn broadcast_borrowed<'t>(op: &str, args: &[(&str, &'t SliceType)]) -> Result<Option<std::borrow::Cow<'t, [Dim]>>> {
    let mut acc: Option<(&str, &SliceType, std::borrow::Cow<'t, [Dim]>)> = None;
    for &(name, t) in args {
        let Some(dims) = &t.dims else { return Ok(None) };
        acc = Some(match acc {
            None => (name, t, std::borrow::Cow::Borrowed(dims.as_slice())),
            Some((first, first_t, so_far)) if so_far.len() >= dims.len() && so_far.starts_with(dims) => (first, first_t, so_far),
            Some((first, first_t, so_far)) => match broadcast_dims(&so_far, dims) {
                Ok(out) => (first, first_t, std::borrow::Cow::Owned(out)),
                Err(i) => {
                    return Err(Error::value(
                        op,
                        format!(
                            "arguments `{first}` and `{name}` cannot be broadcast: inferred {first_t} and {t}, which differ in dimension {i} ({} and {})",
                            so_far[i], dims[i]
                        ),
                    ));
                }
            },
        });
    }
    Ok(acc.map(|(_, _, dims)| dims))
}

/// The common schema of the arguments, or the error naming the first two
/// without one.
fn common_schema(op: &str, args: &[(&str, &SliceType)]) -> Result<SchemaType> {
    let mut common = SchemaType::Named(Schema::None);
    for (i, &(name, t)) in args.iter().enumerate() {
        common = SchemaType::common(&common, &t.schema).ok_or_else(|| {
            let (first, first_t) = args[..i].iter().find(|(_, f)| SchemaType::common(&f.schema, &t.schema).is_none()).copied().unwrap_or(args[0]);
            Error::value(op, format!("arguments `{first}` and `{name}` have no common schema: inferred {first_t} and {t}"))
        })?;
    }
    Ok(common)
}

/// An operator item by item over the named arguments: each admitted by
/// `class`, broadcast together, the result's schema by `out`.
pub fn elementwise(args: &'static [&'static str], class: TypeClass, out: Out) -> TypeRule {
    items_rule(args, Some(class), &[], out)
}

/// [`elementwise`] over arguments of any schemas that have a common one
/// (`kd.coalesce`).
pub fn elementwise_any(args: &'static [&'static str], out: Out) -> TypeRule {
    items_rule(args, None, &[], out)
}

/// [`elementwise`] with parameters: each admitted by its own class and
/// broadcast with the arguments, but not in their common schema
/// (`kd.strings.substr(x, start, end)`).
pub fn elementwise_params(args: &'static [&'static str], class: TypeClass, params: &'static [(&'static str, TypeClass)], out: Out) -> TypeRule {
    items_rule(args, Some(class), params, out)
}

fn items_rule(args: &'static [&'static str], class: Option<TypeClass>, params: &'static [(&'static str, TypeClass)], out: Out) -> TypeRule {
    items_rule_fn(args, class, params, out).batched(Batching::Items)
}

fn items_rule_fn(args: &'static [&'static str], class: Option<TypeClass>, params: &'static [(&'static str, TypeClass)], out: Out) -> TypeRule {
    TypeRule::new(move |a: &TypeArgs<'_>| {
        let op = a.op_name();
        let typed = args.iter().map(|&name| Ok((name, a.slice(name)?))).collect::<Result<Vec<_>>>()?;
        let mut shaped = Vec::new();
        if !params.is_empty() {
            shaped.extend_from_slice(&typed);
            for &(name, class) in params {
                let t = a.slice(name)?;
                check_class(op, name, t, class)?;
                shaped.push((name, t));
            }
        }
        if let Some(class) = class {
            for &(name, t) in &typed {
                check_class(op, name, t, class)?;
            }
        }
        let common = common_schema(op, &typed)?;
        // Primitives of different kinds meet at OBJECT, which an operator
        // computing on items refuses unless an argument is OBJECT already.
        let object_given = typed.iter().any(|(_, t)| matches!(t.schema, SchemaType::Named(Schema::Object) | SchemaType::Unknown));
        if class.is_some() && common == SchemaType::Named(Schema::Object) && !object_given {
            let shown: Vec<String> = typed.iter().map(|(name, t)| format!("`{name}`: {t}")).collect();
            return Err(Error::value(op, format!("arguments have no common primitive schema: inferred {}", shown.join(", "))));
        }
        // On OBJECT arguments, what a kernel gives depends on their items
        // (a mask stays a mask).
        let schema = if object_given && !matches!(out, Out::Fixed(Schema::Mask)) { SchemaType::Unknown } else { out.schema(common, &typed) };
        let dims = broadcast_borrowed(op, if params.is_empty() { &typed } else { &shaped })?;
        // A result of an argument's very type shares it (`x * 2`).
        for &(name, t) in &typed {
            if t.schema == schema
                && t.dims.as_deref() == dims.as_deref()
                && let Some(TypeValue::Slice(shared, _)) = a.get(name).map(TypeValue::untagged)
            {
                return Ok(TypeValue::Slice(shared.clone(), None));
            }
        }
        Ok(TypeValue::slice(SliceType { schema, dims: dims.map(std::borrow::Cow::into_owned) }))
    })
}

/// The rank `ndim` leaves of `x`'s dims (`None`: all of them), checked.
fn drop_dims(op: &str, x: &SliceType, ndim: Option<i64>) -> Result<Option<Vec<Dim>>> {
    let Some(dims) = &x.dims else { return Ok(None) };
    let ndim = match ndim {
        None => return Ok(Some(Vec::new())),
        Some(n) => n,
    };
    if ndim < 0 || ndim as usize > dims.len() {
        return Err(Error::value(op, format!("argument `x`: expected rank >= {ndim} (ndim={ndim}), inferred {x}")));
    }
    Ok(Some(dims[..dims.len() - ndim as usize].to_vec()))
}

/// An aggregation of `x` over its last `ndim` dimensions (1 unless given;
/// unknown when given but not known): `x` admitted by `class`, the result
/// typed by `out`.
pub fn aggregate(class: TypeClass, out: Out) -> TypeRule {
    aggregate_rule(Some(class), out)
}

/// [`aggregate`] of items of any schema (`agg_count`, `agg_has`).
pub fn aggregate_any(out: Out) -> TypeRule {
    aggregate_rule(None, out)
}

fn aggregate_rule(class: Option<TypeClass>, out: Out) -> TypeRule {
    aggregate_rule_fn(class, out).batched(Batching::Trailing)
}

fn aggregate_rule_fn(class: Option<TypeClass>, out: Out) -> TypeRule {
    TypeRule::new(move |a: &TypeArgs<'_>| {
        let op = a.op_name();
        let x = slice_of_class(a, "x", class)?;
        let dims = match (a.get("ndim"), a.known_int("ndim")?) {
            (None, _) => drop_dims(op, x, Some(1))?,
            (Some(_), Some(n)) => drop_dims(op, x, Some(n))?,
            (Some(_), None) => None,
        };
        let mut typed = vec![("x", x)];
        if let Out::JoinedWith(name) = out {
            typed.push((name, a.slice(name)?));
        }
        Ok(TypeValue::slice(SliceType { schema: out.schema(x.schema.clone(), &typed), dims }))
    })
}

/// An aggregation of `x` over all its dimensions (an item); `class`
/// `None` admits any items.
pub fn aggregate_all(class: Option<TypeClass>, out: Out) -> TypeRule {
    TypeRule::new(move |a: &TypeArgs<'_>| {
        let x = slice_of_class(a, "x", class)?;
        Ok(TypeValue::slice(SliceType::new(out.schema(x.schema.clone(), &[("x", x)]), Vec::new())))
    })
    .batched(Batching::AllDims)
}

/// An operator over the last dimension giving a slice of `x`'s dims
/// (`cum_sum`, `softmax`, `index`, `ordinal_rank`): `x` of rank at least 1
/// (at least `ndim` when that is given) admitted by `class` (any items when
/// `None`), the schema by `out`.
pub fn same_dims(class: Option<TypeClass>, out: Out) -> TypeRule {
    TypeRule::new(move |a: &TypeArgs<'_>| {
        let op = a.op_name();
        let x = slice_of_class(a, "x", class)?;
        let least = match a.get("ndim") {
            None => Some(1),
            Some(_) => a.known_int("ndim")?,
        };
        if let (Some(least), Some(rank)) = (least, x.rank())
            && (rank as i64) < least
        {
            return Err(Error::value(op, format!("argument `x`: expected rank >= {least}, inferred {x}")));
        }
        Ok(TypeValue::slice(x.with_schema(out.schema(x.schema.clone(), &[("x", x)]))))
    })
    .batched(Batching::Trailing)
}

/// `kd.get_attr(x, attr_name, default)`: the attribute's schema where
/// `x`'s entity schema is known to have it, an error where it is known not
/// to; a default's schema joins it, and its dims (and a slice of names')
/// broadcast with `x`'s.
pub fn get_attr() -> TypeRule {
    TypeRule::new(|a: &TypeArgs<'_>| {
        let op = a.op_name();
        let (x, names) = (a.slice("x")?, a.slice("attr_name")?);
        let default = a.get("default").map(|_| a.slice("default")).transpose()?;
        let mut shaped = vec![("x", x), ("attr_name", names)];
        shaped.extend(default.map(|d| ("default", d)));
        let dims = broadcast(op, &shaped)?;
        let name = a.known_item_text("attr_name");
        let schema = match (name, default) {
            (None, _) => SchemaType::Unknown,
            (Some(name), default) => match (x.schema.attr(&name), default) {
                (Some(schema), None) => schema,
                (Some(schema), Some(d)) => SchemaType::common(&schema, &d.schema).unwrap_or(SchemaType::Unknown),
                (None, Some(_)) => SchemaType::Unknown,
                (None, None) => return Err(Error::value(op, format!("argument `x`: the schema of {x} has no attribute '{name}'"))),
            },
        };
        Ok(TypeValue::slice(SliceType { schema, dims }))
    })
}

/// `kd.apply_mask(x, y)`: `x`'s items where MASK `y` is present, broadcast.
pub fn apply_mask() -> TypeRule {
    TypeRule::new(|a: &TypeArgs<'_>| {
        let op = a.op_name();
        let (x, y) = (a.slice("x")?, a.slice("y")?);
        check_class(op, "y", y, TypeClass::Mask)?;
        let dims = broadcast(op, &[("x", x), ("y", y)])?;
        Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims }))
    })
    .batched(Batching::Items)
}

/// An operator giving one item per item of `arg`, of `arg`'s dims and the
/// schema `out` says (casts, `index`, `present_like`, `reverse`).
pub fn like(arg: &'static str, out: Out) -> TypeRule {
    TypeRule::new(move |a: &TypeArgs<'_>| {
        let x = a.slice(arg)?;
        Ok(TypeValue::slice(x.with_schema(out.schema(x.schema.clone(), &[(arg, x)]))))
    })
    .batched(Batching::Items)
}

/// `kd.cond(condition, yes, no)`: the three broadcast, the common schema
/// of `yes` and `no`.
pub fn cond() -> TypeRule {
    TypeRule::new(|a: &TypeArgs<'_>| {
        let op = a.op_name();
        let (condition, yes, no) = (a.slice("condition")?, a.slice("yes")?, a.slice("no")?);
        check_class(op, "condition", condition, TypeClass::Mask)?;
        let schema = common_schema(op, &[("yes", yes), ("no", no)])?;
        let dims = broadcast(op, &[("condition", condition), ("yes", yes), ("no", no)])?;
        Ok(TypeValue::slice(SliceType { schema, dims }))
    })
    .batched(Batching::Items)
}

/// `kd.expand_to(x, target)`: `x`'s schema on `target`'s dims (which must
/// start with `x`'s); unknown dims when `ndim` is given.
pub fn expand_to() -> TypeRule {
    TypeRule::new(|a: &TypeArgs<'_>| {
        let op = a.op_name();
        let (x, target) = (a.slice("x")?, a.slice("target")?);
        if a.get("ndim").is_some() {
            return Ok(TypeValue::slice(x.with_unknown_dims()));
        }
        expandable(op, ("x", x), ("target", target))?;
        Ok(TypeValue::slice(SliceType { schema: x.schema.clone(), dims: x.dims.as_ref().and(target.dims.clone()) }))
    })
}

/// `kd.val_like(x, val)`: `val`'s schema on `x`'s dims (`val` expanded to
/// them, so its dims must start theirs).
pub fn val_like() -> TypeRule {
    TypeRule::new(|a: &TypeArgs<'_>| {
        let op = a.op_name();
        let (x, val) = (a.slice("x")?, a.slice("val")?);
        expandable(op, ("val", val), ("x", x))?;
        Ok(TypeValue::slice(x.with_schema(val.schema.clone())))
    })
    .batched(Batching::Items)
}

/// Checks that `from` can be expanded to `to`: its dims are the first of
/// `to`'s.
pub(crate) fn expandable(op: &str, from: (&str, &SliceType), to: (&str, &SliceType)) -> Result<()> {
    if let (Some(rf), Some(rt)) = (from.1.rank(), to.1.rank())
        && rf > rt
    {
        return Err(Error::value(
            op,
            format!("argument `{}` of rank {rf} cannot be expanded to `{}` of rank {rt}: inferred {} and {}", from.0, to.0, from.1, to.1),
        ));
    }
    broadcast(op, &[from, to]).map(|_| ())
}

/// `kd.get_shape(x)`: a JaggedShape of `x`'s dims.
pub fn get_shape() -> TypeRule {
    TypeRule::new(|a: &TypeArgs<'_>| Ok(TypeValue::Shape(a.slice("x")?.dims.clone())))
}

/// How [`size_arithmetic`] combines two sizes.
#[derive(Clone, Copy, Debug)]
pub enum SizeOp {
    Add,
    Subtract,
    Multiply,
}

/// `rule`, except that on an item whose value is a size (see
/// [`TypeValue::SizeItem`]) and an integer item, or two of them, the
/// result is the size `x op y` (`sz + 1`), when it is affine.
pub fn size_arithmetic(op: SizeOp, rule: TypeRule) -> TypeRule {
    let batching = rule.batching();
    TypeRule::new(move |a: &TypeArgs<'_>| {
        let symbolic = ["x", "y"].iter().any(|n| matches!(a.get(n).map(TypeValue::untagged), Some(TypeValue::SizeItem(_))));
        if symbolic && let (Some(x), Some(y)) = (a.size_value("x"), a.size_value("y")) {
            let size = match op {
                SizeOp::Add => x.checked_add(&y),
                SizeOp::Subtract => x.checked_sub(&y),
                SizeOp::Multiply => x.checked_mul(&y),
            };
            if let Some(size) = size {
                return Ok(TypeValue::SizeItem(size));
            }
        }
        (rule.0)(a)
    })
    .batched(batching)
}

/// `kd.range(start, end)`: INT64 items, `end - start` of them where both
/// are sizes (or `start` of them without `end`).
pub fn range() -> TypeRule {
    TypeRule::new(|a: &TypeArgs<'_>| {
        let count = match a.get("end") {
            None => a.size_value("start"),
            Some(_) => a.size_value("end").zip(a.size_value("start")).and_then(|(e, s)| e.checked_sub(&s)),
        };
        let ranks = [a.slice("start")?.rank(), if a.get("end").is_some() { a.slice("end")?.rank() } else { Some(0) }];
        if ranks != [Some(0), Some(0)] {
            return Ok(TypeValue::slice(SliceType { schema: SchemaType::Named(Schema::Int64), dims: None }));
        }
        // `kd.range(5, 2)` is empty.
        let count = count.map(|c| if c.as_constant().is_some_and(|k| k < 0) { Size::constant(0) } else { c });
        let dim = count.map_or(Dim::Unknown, Dim::Uniform);
        Ok(TypeValue::slice(SliceType::new(SchemaType::Named(Schema::Int64), vec![dim])))
    })
}

/// An item of schema `schema` (`kd.is_entity`, `kd.full_equal`), the
/// slice arguments `args` broadcast together when given.
pub fn item(args: &'static [&'static str], schema: Schema) -> TypeRule {
    TypeRule::new(move |a: &TypeArgs<'_>| {
        let typed = args.iter().map(|&name| Ok((name, a.slice(name)?))).collect::<Result<Vec<_>>>()?;
        broadcast(a.op_name(), &typed)?;
        Ok(TypeValue::slice(SliceType::new(SchemaType::Named(schema), Vec::new())))
    })
}

/// A slice of schema `schema` on the dims of JaggedShape argument `shape`
/// (`kd.present_shaped`, `kd.new_itemid_shaped`).
pub fn shaped(shape: &'static str, schema: Schema) -> TypeRule {
    TypeRule::new(move |a: &TypeArgs<'_>| Ok(TypeValue::slice(SliceType { schema: SchemaType::Named(schema), dims: a.shape(shape)? })))
}

/// A DataBag (`kd.attrs`, `kd.get_bag`, `kd.bags.updated`).
pub fn bag() -> TypeRule {
    TypeRule::new(|_| Ok(TypeValue::Bag))
}

/// The slices `x` and `*args` / `**kwargs` broadcast together (those of
/// them known to be slices); for an operator whose result has their
/// shape (`kd.strings.format(fmt, **kwargs)`, `kd.new(**attrs)`).
pub fn broadcast_with_var(a: &TypeArgs<'_>, named: &[&str]) -> Result<Option<Vec<Dim>>> {
    let mut typed: Vec<(&str, &SliceType)> = named.iter().map(|&name| Ok((name, a.slice(name)?))).collect::<Result<Vec<_>>>()?;
    typed.extend(a.var_arg_slices()?.into_iter().map(|t| ("*args", t)));
    for (name, v) in a.var_kwargs() {
        typed.push((name.as_str(), a.var_slice(v)?));
    }
    broadcast(a.op_name(), &typed)
}

/// `dims` and one more dimension of `size` rows: of a new data-dependent
/// size when not given (uniform below an item, else ragged with that
/// total), as `kd.repeat`, `kd.unique`, `kd.explode`, `kd.strings.split`
/// make.
pub fn with_new_dim(a: &TypeArgs<'_>, mut dims: Vec<Dim>, size: Option<Size>) -> Result<Vec<Dim>> {
    dims.push(match size {
        Some(size) => Dim::Uniform(size),
        None if dims.is_empty() => Dim::Uniform(a.new_size()?),
        None => Dim::Ragged { total: a.new_size()? },
    });
    Ok(dims)
}
