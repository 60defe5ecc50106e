//! The operators of `kd.typing`: tags for inference that leave values as
//! they are (seed 002: tags never change what is computed).

use std::sync::Arc;

use plait_core::Error;

use super::{TypeArgs, TypeRule, TypeValue};
use crate::registry::{BagRule, Registry};

const COUNT_NAMED: &str = "kd.typing.count_named";
const RESIZABLE: &str = "kd.typing.resizable";

/// `name`, when a user may give it to a size.
fn checked_name(name: &str) -> plait_core::Result<&str> {
    plait_core::typing::check_size_name(name).map_err(|why| Error::value(COUNT_NAMED, format!("argument `name`: {why}")))?;
    Ok(name)
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        COUNT_NAMED,
        &[],
        "mask, name",
        r#"Returns `mask` unchanged, naming its number of present items for type inference.

A tag for `kd.typing.infer`: where an operator filters by this mask (`kd.select`),
the dimension of its result is the size `name` instead of a name inference makes
up. The value is `mask` itself. A name may be given to one size of a program only
(an input's declared size included).

Args:
  mask: a MASK DataSlice.
  name: the size's name, an identifier.

Examples:
  >>> kd.typing.count_named(kd.slice([kd.present, None]), 'n_selected')
  DataSlice([present, missing], schema: MASK, present: 1/2)
  >>> T = kd.typing.SliceType
  >>> kd.typing.infer(lambda x: kd.select(x, kd.typing.count_named(x > 0, 'n_pos')), T(kd.INT32, ('n',)))
  INT32[n_pos]"#,
        |a| {
            let mask = a.slice("mask")?;
            if mask.schema() != plait_core::Schema::Mask && mask.schema() != plait_core::Schema::Object {
                return Err(Error::value(COUNT_NAMED, format!("argument `mask`: expected a slice of MASK, got {}", crate::describe(mask))));
            }
            checked_name(&a.text("name")?)?;
            Ok(mask.clone())
        },
    );
    r.bag_rule(COUNT_NAMED, BagRule::PassThrough);
    r.type_rule(
        COUNT_NAMED,
        TypeRule::new(|a: &TypeArgs<'_>| {
            let Some(name) = a.known_item_text("name") else {
                return Err(Error::value(COUNT_NAMED, "argument `name`: expected a constant STRING, the size's name"));
            };
            let mask = a.get("mask").map(TypeValue::untagged).cloned().unwrap_or(TypeValue::Unknown);
            Ok(TypeValue::CountNamed { mask: Box::new(mask), name: Arc::from(checked_name(&name)?) })
        }),
    );
    r.add(
        RESIZABLE,
        &[],
        "x",
        r#"Returns `x` unchanged, marking a loop variable whose dimensions may change.

A tag for type inference (Catalyst's `allow_array_resizing`): the initial
value of a `kd.while_` / `kd.for_` variable is typed as its dimensions; a body
that gives the variable other dimensions (a growing list, a filter) is a
tracing-time error unless the initial value is wrapped in this tag, and then
the loop's result has the dimensions the body may give it (unknown where they
differ). The value is `x` itself.

Args:
  x: the loop variable's initial value.

Examples:
  >>> kd.typing.resizable(kd.slice([1, 2]))
  DataSlice([1, 2], schema: INT32, present: 2/2)
  >>> T = kd.typing.SliceType
  >>> double = lambda returns: kd.namedtuple(returns=kd.concat(returns, returns))
  >>> grow = lambda x: kd.while_(lambda returns: kd.size(returns) < 5, double, returns=kd.typing.resizable(x))
  >>> kd.typing.infer(grow, T(kd.INT32, ('n',)))
  INT32[?]
  >>> kd.typing.infer(lambda x: kd.while_(lambda returns: kd.size(returns) < 5, double, returns=x), T(kd.INT32, ('n',)))
  Traceback (most recent call last):
  ...
  ValueError: kd.functor.while_: loop variable `returns` changes its dimensions in body_fn: INT32[n] before a round, INT32[2*n] after; ..."#,
        |a| Ok(a.slice("x")?.clone()),
    );
    r.bag_rule(RESIZABLE, BagRule::PassThrough);
    r.type_rule(
        RESIZABLE,
        TypeRule::new(|a: &TypeArgs<'_>| {
            Ok(TypeValue::Resizable(Box::new(a.get("x").map(TypeValue::untagged).cloned().unwrap_or(TypeValue::Unknown))))
        }),
    );
}
