//! `kd.core.with_timestamp`: a value paired with the time it was computed
//! (for measuring when the steps of a functor ran).

use std::time::{SystemTime, UNIX_EPOCH};

use plait_core::{DataSlice, Error, Result, ScalarRef, Schema};

use crate::registry::{Registry, Value};

/// Seconds since the Unix epoch, now, as a FLOAT64 item.
fn now() -> Result<DataSlice> {
    // A clock set before 1970 reads as negative seconds.
    let seconds = match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64(),
        Err(e) => -e.duration().as_secs_f64(),
    };
    DataSlice::item(Some(ScalarRef::Float64(seconds)), Schema::Float64)
}

pub(crate) fn register(r: &mut Registry) {
    r.add_value(
        "kd.core.with_timestamp",
        &["kd.with_timestamp"],
        "x",
        r#"Returns a tuple of x and the time the operator ran, in seconds since the Unix epoch.

The time is a FLOAT64 item. Inside a functor it is taken when the
evaluation reaches this operator (after x is computed), so timestamps of
several steps show when each ran. It is never cached or folded.

Args:
  x: any value (returned unchanged as the first item).

Examples:
  >>> x, t = kd.with_timestamp(kd.slice([1, 2]))
  >>> x
  DataSlice([1, 2], schema: INT32, present: 2/2)
  >>> t.get_schema()
  DataItem(FLOAT64, schema: SCHEMA)"#,
        |a| {
            let x = a.value("x").cloned().ok_or_else(|| Error::type_error(a.op_name(), "missing required argument: 'x'"))?;
            Ok(Value::Tuple(vec![x, Value::Slice(now()?)]))
        },
    );
    r.non_deterministic("kd.core.with_timestamp");
    r.type_rule(
        "kd.core.with_timestamp",
        crate::typing::TypeRule::new(|a| {
            let x = a.get("x").cloned().unwrap_or(crate::typing::TypeValue::Unknown);
            let time = plait_core::typing::SliceType::new(plait_core::typing::SchemaType::Named(plait_core::Schema::Float64), Vec::new());
            Ok(crate::typing::TypeValue::Tuple(vec![x, crate::typing::TypeValue::slice(time)]))
        }),
    );
}
