//! Dimensions of abstract slice types and prefix broadcasting on them.

use std::fmt;

use super::size::Size;

/// One dimension of a slice type. For the first dimension, a size is the
/// number of items; for a later one, the size of each row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Every row has this size.
    Uniform(Size),
    /// Row sizes vary; `total` is the number of items of the dimension (a
    /// size of its own). Dimensions whose total is the same parameter are
    /// one edge: a parameter is made for each ragged dimension declared or
    /// computed, and operators pass it on with the dimension.
    Ragged { total: Size },
    /// Nothing is known.
    Unknown,
}

/// Whether two dimensions are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    Same,
    /// Only evaluation can tell (a ragged dimension from another source, an
    /// unknown one).
    Unknown,
    Differ,
}

impl Dim {
    /// Whether `self` and `other` are one dimension. Uniform sizes are
    /// compared as expressions: declared sizes with different names differ
    /// (as JAX's symbolic dimensions do), whatever values they take later;
    /// a size inference named for data (`_pd_shp0`: what a filter keeps)
    /// may turn out to be any other, so only evaluation can tell.
    pub fn agreement(&self, other: &Dim) -> Agreement {
        match (self, other) {
            (Dim::Uniform(a), Dim::Uniform(b)) if a == b => Agreement::Same,
            (Dim::Uniform(a), Dim::Uniform(b)) if a.is_data_dependent() || b.is_data_dependent() => Agreement::Unknown,
            (Dim::Uniform(_), Dim::Uniform(_)) => Agreement::Differ,
            // A total that is a parameter names the edge; known totals only
            // tell edges apart (two edges of 10 items may differ).
            (Dim::Ragged { total: a }, Dim::Ragged { total: b }) => match (a.as_constant(), b.as_constant()) {
                (Some(x), Some(y)) if x != y => Agreement::Differ,
                (None, None) if a == b => Agreement::Same,
                _ => Agreement::Unknown,
            },
            _ => Agreement::Unknown,
        }
    }

    /// The more precise of two dimensions that may be the same: a uniform
    /// size over a ragged one (a ragged edge whose rows are all one size is
    /// that uniform edge), either over an unknown one.
    pub fn refine(&self, other: &Dim) -> Dim {
        match (self, other) {
            (Dim::Unknown, _) | (Dim::Ragged { .. }, Dim::Uniform(_)) => other.clone(),
            _ => self.clone(),
        }
    }

    /// The uniform size, if the dimension has one.
    pub fn size(&self) -> Option<&Size> {
        match self {
            Dim::Uniform(s) => Some(s),
            _ => None,
        }
    }
}

/// The prefix of the size parameters that are the totals of ragged edges
/// (`*3` made for each `*` read, `*a` for a named edge `*a`).
pub const RAGGED_PREFIX: &str = "*";

/// `3`, `2*n + 1`, `*` (ragged), `*a` (the ragged edge named `a`), `?`
/// (unknown).
impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Uniform(s) => write!(f, "{s}"),
            Dim::Ragged { total } => match total.as_param().and_then(|p| p.strip_prefix(RAGGED_PREFIX)) {
                Some(name) if name.starts_with(|c: char| c.is_alphabetic() || c == '_') => write!(f, "*{name}"),
                _ => write!(f, "*"),
            },
            Dim::Unknown => write!(f, "?"),
        }
    }
}

/// Koda's prefix broadcasting on dimensions: the dimensions of the argument
/// of lower rank must be the first ones of the other's, and the result has
/// the higher rank. Gives the result's dimensions (each shared one the more
/// precise of the two), or the index of the first dimension on which `a`
/// and `b` differ.
pub fn broadcast_dims(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, usize> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if long.starts_with(short) {
        return Ok(long.to_vec());
    }
    let mut out = Vec::with_capacity(long.len());
    for (i, (x, y)) in long.iter().zip(short).enumerate() {
        if x.agreement(y) == Agreement::Differ {
            return Err(i);
        }
        out.push(x.refine(y));
    }
    out.extend_from_slice(&long[short.len()..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(name: &str) -> Dim {
        Dim::Uniform(Size::param(name))
    }

    fn k(v: i64) -> Dim {
        Dim::Uniform(Size::constant(v))
    }

    fn ragged(total: &str) -> Dim {
        Dim::Ragged { total: Size::param(total) }
    }

    #[test]
    fn uniform_sizes_agree_as_expressions() {
        assert_eq!(broadcast_dims(&[u("n"), u("n")], &[u("n"), u("n")]), Ok(vec![u("n"), u("n")]));
        assert_eq!(broadcast_dims(&[k(10)], &[k(20)]), Err(0));
        assert_eq!(broadcast_dims(&[u("n")], &[u("m")]), Err(0));
        let two_m_1 = Dim::Uniform(Size::param("m").checked_scale(2).unwrap().checked_add(&Size::constant(1)).unwrap());
        let m_m_1 = Dim::Uniform(Size::param("m").checked_add(&Size::param("m")).unwrap().checked_add(&Size::constant(1)).unwrap());
        assert_eq!(two_m_1.agreement(&m_m_1), Agreement::Same);
    }

    #[test]
    fn prefix_broadcasting_keeps_the_longer_dims() {
        assert_eq!(broadcast_dims(&[u("n")], &[u("n"), ragged("t")]), Ok(vec![u("n"), ragged("t")]));
        assert_eq!(broadcast_dims(&[], &[k(3)]), Ok(vec![k(3)]));
        assert_eq!(broadcast_dims(&[u("n"), k(2)], &[u("n"), k(3)]), Err(1));
    }

    #[test]
    fn ragged_and_unknown_dims_are_refined_not_refused() {
        assert_eq!(ragged("a").agreement(&ragged("a")), Agreement::Same);
        assert_eq!(ragged("a").agreement(&ragged("b")), Agreement::Unknown);
        assert_eq!(ragged("a").agreement(&k(3)), Agreement::Unknown);
        let known = |t| Dim::Ragged { total: Size::constant(t) };
        assert_eq!(known(10).agreement(&known(10)), Agreement::Unknown);
        assert_eq!(known(10).agreement(&known(12)), Agreement::Differ);
        assert_eq!(known(10).agreement(&ragged("a")), Agreement::Unknown);
        assert_eq!(broadcast_dims(&[ragged("a")], &[k(3)]), Ok(vec![k(3)]));
        assert_eq!(broadcast_dims(&[k(3)], &[ragged("a")]), Ok(vec![k(3)]));
        assert_eq!(broadcast_dims(&[Dim::Unknown], &[ragged("a")]), Ok(vec![ragged("a")]));
        assert_eq!(broadcast_dims(&[ragged("a")], &[Dim::Unknown]), Ok(vec![ragged("a")]));
        assert_eq!(format!("{} {} {}", k(3), ragged("a"), Dim::Unknown), "3 * ?");
    }
}
