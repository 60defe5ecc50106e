//! Expressions as EXPR items (`kd.expr.pack_expr` / `unpack_expr`): the
//! quoted form plait-core stores in slices and bags, so that functors can
//! keep their bodies as attributes.

use std::any::Any;
use std::sync::Arc;

use plait_core::{DataSlice, Error, ErrorKind, Quoted, QuotedExpr, Result, ScalarRef, Schema};

use crate::expr::Expr;
use crate::text::expr_text;

#[derive(Debug)]
struct Packed(Expr);

impl QuotedExpr for Packed {
    fn fingerprint(&self) -> u128 {
        self.0.fingerprint()
    }

    fn text(&self) -> String {
        expr_text(&self.0)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `expr` as a quoted value (what an EXPR column holds).
pub fn quote(expr: &Expr) -> Quoted {
    Quoted(Arc::new(Packed(expr.clone())))
}

/// The expression a quoted value holds (`None` for a missing slot's filler).
pub fn expr_of(quoted: &Quoted) -> Option<Expr> {
    quoted.0.as_any().downcast_ref::<Packed>().map(|p| p.0.clone())
}

/// `expr` as an EXPR DataItem.
pub fn pack(expr: &Expr) -> DataSlice {
    let quoted = quote(expr);
    DataSlice::item(Some(ScalarRef::Expr(&quoted)), Schema::Expr).expect("an EXPR item")
}

/// The expression in EXPR DataItem `x` (Koda's error otherwise).
pub fn unpack(x: &DataSlice) -> Result<Expr> {
    let packed = match (x.is_item(), x.get(0)) {
        (true, Some(ScalarRef::Expr(quoted))) => quoted.0.as_any().downcast_ref::<Packed>().map(|p| p.0.clone()),
        _ => None,
    };
    packed.ok_or_else(|| Error::new(ErrorKind::Value, "only present EXPR DataItems can be unpacked"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_and_unpack() {
        let e = Expr::op("kd.math.add", vec![Some(Expr::input("a")), Some(Expr::input("b"))]).unwrap();
        let item = pack(&e);
        assert_eq!(item.schema(), Schema::Expr);
        assert_eq!(plait_core::repr::repr_slice(&item), "DataItem(I.a + I.b, schema: EXPR)");
        assert_eq!(unpack(&item).unwrap(), e);
        let not_expr = DataSlice::item(Some(ScalarRef::Int32(1)), Schema::Int32).unwrap();
        assert!(unpack(&not_expr).is_err());
    }
}
