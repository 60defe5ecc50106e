//! Sizes: affine expressions `k + c1*p1 + ... + cn*pn` in named size
//! parameters (Pytato's shapes, seed 002), kept in a normal form — terms
//! sorted by name, no zero coefficient — so that equal expressions are
//! equal values: `2*n + 1` is `n + n + 1`, and `n` is not `m`. Affine
//! expressions keep equality decidable; a product of two parameters is not
//! a size (the caller treats it as unknown).

use std::fmt;
use std::sync::Arc;

/// Names of sizes that inference makes up for data-dependent dimensions
/// (`kd.select`'s count) start with this; users may not declare them.
pub const RESERVED_PREFIX: &str = "_pd_shp";

/// A term of a [`Size`]: a parameter and its coefficient.
type Term = (Arc<str>, i64);

/// Why `name` cannot name a size a user declares: it must be an identifier
/// outside the reserved prefix.
pub fn check_size_name(name: &str) -> Result<(), String> {
    let identifier = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !identifier {
        return Err(format!("a size name must be an identifier, got {name:?}"));
    }
    if name.starts_with(RESERVED_PREFIX) {
        return Err(format!("size names starting with {RESERVED_PREFIX:?} are reserved for the sizes inference names, got {name:?}"));
    }
    Ok(())
}

/// An affine expression in size parameters. Cloned from type to type as
/// operators pass dimensions on, so its terms are shared.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Size {
    /// `(parameter, coefficient)`, sorted by parameter, coefficients
    /// non-zero; `None` when there are none.
    terms: Option<Arc<[Term]>>,
    constant: i64,
}

impl Size {
    /// The constant `k`.
    pub fn constant(k: i64) -> Size {
        Size { terms: None, constant: k }
    }

    /// The parameter called `name`.
    pub fn param(name: &str) -> Size {
        Size { terms: Some(Arc::new([(Arc::from(name), 1)])), constant: 0 }
    }

    /// A size from terms already in normal form.
    fn from_parts(terms: Vec<Term>, constant: i64) -> Size {
        Size { terms: (!terms.is_empty()).then(|| Arc::from(terms)), constant }
    }

    fn terms(&self) -> &[Term] {
        self.terms.as_deref().unwrap_or_default()
    }

    /// The value, when the expression has no parameter.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_none().then_some(self.constant)
    }

    /// The parameter, when the expression is one parameter alone.
    pub fn as_param(&self) -> Option<&str> {
        match self.terms() {
            [(name, 1)] if self.constant == 0 => Some(name),
            _ => None,
        }
    }

    /// Whether the expression uses a size inference named for data (one
    /// with the reserved prefix).
    pub fn is_data_dependent(&self) -> bool {
        self.params().any(|p| p.starts_with(RESERVED_PREFIX))
    }

    /// The parameters the expression uses, in name order.
    pub fn params(&self) -> impl Iterator<Item = &str> {
        self.terms().iter().map(|(name, _)| name.as_ref())
    }

    /// The expression with each parameter `p` that `values` maps replaced
    /// by `values[p]` (still affine: each is multiplied by a constant);
    /// `None` when a coefficient overflows.
    pub fn substitute(&self, values: &impl Fn(&str) -> Option<Size>) -> Option<Size> {
        let mut out = Size::constant(self.constant);
        for (name, c) in self.terms() {
            let term = match values(name) {
                Some(v) => v.checked_scale(*c)?,
                None => Size::param(name).checked_scale(*c)?,
            };
            out = out.checked_add(&term)?;
        }
        Some(out)
    }

    /// `self + other`; `None` when a coefficient overflows.
    pub fn checked_add(&self, other: &Size) -> Option<Size> {
        self.combine(other, 1)
    }

    /// `self - other`; `None` when a coefficient overflows.
    pub fn checked_sub(&self, other: &Size) -> Option<Size> {
        self.combine(other, -1)
    }

    /// `self * k`; `None` when a coefficient overflows.
    pub fn checked_scale(&self, k: i64) -> Option<Size> {
        if k == 0 {
            return Some(Size::constant(0));
        }
        let terms = self.terms().iter().map(|(name, c)| Some((name.clone(), c.checked_mul(k)?))).collect::<Option<Vec<_>>>()?;
        Some(Size::from_parts(terms, self.constant.checked_mul(k)?))
    }

    /// `self * other` when one side is a constant (else the product is not
    /// affine); `None` otherwise or when a coefficient overflows.
    pub fn checked_mul(&self, other: &Size) -> Option<Size> {
        match (self.as_constant(), other.as_constant()) {
            (Some(k), _) => other.checked_scale(k),
            (_, Some(k)) => self.checked_scale(k),
            _ => None,
        }
    }

    /// `self + sign * other`, merging the sorted terms.
    fn combine(&self, other: &Size, sign: i64) -> Option<Size> {
        let mut terms = Vec::with_capacity(self.terms().len() + other.terms().len());
        let (mut a, mut b) = (self.terms().iter().peekable(), other.terms().iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some((x, cx)), Some((y, cy))) if x == y => {
                    let c = cx.checked_add(cy.checked_mul(sign)?)?;
                    let name = x.clone();
                    a.next();
                    b.next();
                    (name, c)
                }
                (Some((x, cx)), Some((y, _))) if x < y => {
                    let t = (x.clone(), *cx);
                    a.next();
                    t
                }
                (Some((x, cx)), None) => {
                    let t = (x.clone(), *cx);
                    a.next();
                    t
                }
                (_, Some((y, cy))) => {
                    let t = (y.clone(), cy.checked_mul(sign)?);
                    b.next();
                    t
                }
                (None, None) => break,
            };
            if next.1 != 0 {
                terms.push(next);
            }
        }
        Some(Size::from_parts(terms, self.constant.checked_add(other.constant.checked_mul(sign)?)?))
    }
}

/// `2*n + m - 1`, `n`, `3`, `-n + 4`.
impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (name, c) in self.terms() {
            let (sign, c) = if *c < 0 { ("-", c.unsigned_abs()) } else { ("+", c.unsigned_abs()) };
            match (first, sign) {
                (true, "-") => write!(f, "-")?,
                (true, _) => {}
                (false, sign) => write!(f, " {sign} ")?,
            }
            if c != 1 {
                write!(f, "{c}*")?;
            }
            write!(f, "{name}")?;
            first = false;
        }
        match (first, self.constant) {
            (true, k) => write!(f, "{k}"),
            (false, 0) => Ok(()),
            (false, k) if k < 0 => write!(f, " - {}", k.unsigned_abs()),
            (false, k) => write!(f, " + {k}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n() -> Size {
        Size::param("n")
    }

    #[test]
    fn equal_expressions_have_one_normal_form() {
        let two_n_plus_one = n().checked_scale(2).unwrap().checked_add(&Size::constant(1)).unwrap();
        let n_n_one = n().checked_add(&n()).unwrap().checked_add(&Size::constant(1)).unwrap();
        assert_eq!(two_n_plus_one, n_n_one);
        assert_eq!(two_n_plus_one.to_string(), "2*n + 1");
        assert_ne!(n(), Size::param("m"));
        assert_eq!(n().checked_sub(&n()).unwrap(), Size::constant(0));
        assert_eq!(n().checked_sub(&n()).unwrap().as_constant(), Some(0));
    }

    #[test]
    fn text_orders_terms_by_name() {
        let s = Size::param("m").checked_sub(&n().checked_scale(3).unwrap()).unwrap().checked_sub(&Size::constant(4)).unwrap();
        assert_eq!(s.to_string(), "m - 3*n - 4");
        assert_eq!(Size::constant(0).checked_sub(&n()).unwrap().to_string(), "-n");
        assert_eq!(Size::constant(-2).to_string(), "-2");
        assert_eq!(n().as_param(), Some("n"));
        assert_eq!(n().checked_scale(2).unwrap().as_param(), None);
    }

    #[test]
    fn products_are_affine_only_with_a_constant() {
        assert_eq!(n().checked_mul(&Size::constant(3)).unwrap().to_string(), "3*n");
        assert!(n().checked_mul(&Size::param("m")).is_none());
        assert_eq!(n().checked_scale(0).unwrap(), Size::constant(0));
    }

    #[test]
    fn substitution_stays_affine() {
        let s = n().checked_scale(2).unwrap().checked_add(&Size::param("m")).unwrap();
        let values = |p: &str| (p == "n").then(|| Size::param("k").checked_add(&Size::constant(1)).unwrap());
        assert_eq!(s.substitute(&values).unwrap().to_string(), "2*k + m + 2");
        assert_eq!(Size::constant(3).substitute(&values).unwrap(), Size::constant(3));
    }

    #[test]
    fn overflow_is_none() {
        assert!(Size::constant(i64::MAX).checked_add(&Size::constant(1)).is_none());
        assert!(n().checked_scale(i64::MAX).unwrap().checked_add(&n()).is_none());
        assert!(Size::constant(i64::MIN).checked_sub(&Size::constant(1)).is_none());
    }
}
