//! `kd.curves.*`: piecewise linear curves (`pwl_curve`, `log_pwl_curve`,
//! `log_p1_pwl_curve`, `symmetric_log_p1_pwl_curve`).
//!
//! A curve is a list of control points `(x, y)` with strictly increasing `x`
//! (the rows of a rank-2 `adjustments` slice). A point `p` left of the first
//! control point gives the first `y`, right of the last gives the last `y`;
//! between two control points the curve is the line through them, drawn in
//! a transformed x space (`log(x)`, `log(x + 1)`, `sign(x) * log(|x| + 1)`
//! for the specialisations):
//!
//! ```text
//!   y |            *-------- (clamped)
//!     |         .-'
//!     |   *---*'               segment i: y = slope_i * T(p) + intercept_i
//!     |  /
//!   --*'  (clamped)
//!     +------------------- x
//! ```
//!
//! The curve is checked once (Koda's error codes: non-increasing x, x out of
//! the transform's domain, infinite ends), its segments are precomputed, and
//! each point costs one binary search over the control points.

use plait_core::cast::cast_to_narrow;
use plait_core::{Column, DataSlice, Error, Result, Schema, SliceData, Values};

use crate::kernel::build_vec;
use crate::registry::Registry;

/// The transformation of x a curve interpolates in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transform {
    /// `x`.
    Linear,
    /// `log(x)`: control x values must not be negative.
    Log,
    /// `log(x + 1)`: control x values must not be below -1.
    LogP1,
    /// `sign(x) * log(|x| + 1)`.
    SymmetricLogP1,
}

impl Transform {
    #[inline(always)]
    fn apply(self, x: f64) -> f64 {
        match self {
            Transform::Linear => x,
            Transform::Log => x.ln(),
            Transform::LogP1 => x.ln_1p(),
            Transform::SymmetricLogP1 => {
                if x < 0.0 {
                    -(-x).ln_1p()
                } else {
                    x.ln_1p()
                }
            }
        }
    }

    fn op(self) -> &'static str {
        match self {
            Transform::Linear => "kd.curves.pwl_curve",
            Transform::Log => "kd.curves.log_pwl_curve",
            Transform::LogP1 => "kd.curves.log_p1_pwl_curve",
            Transform::SymmetricLogP1 => "kd.curves.symmetric_log_p1_pwl_curve",
        }
    }
}

/// A checked curve: control points in original and transformed x, and the
/// line of each segment in transformed x.
#[derive(Clone, Debug)]
pub struct Curve {
    transform: Transform,
    /// Control x values (original space).
    xs: Vec<f64>,
    /// Control x values in transformed space.
    txs: Vec<f64>,
    ys: Vec<f64>,
    /// `(slope, intercept)` of segment `i` (between points `i` and `i + 1`).
    lines: Vec<(f64, f64)>,
}

impl Curve {
    /// Checks the control points as Koda does, in Koda's order, and
    /// precomputes the segments. Errors name `op`.
    pub fn new(op: &str, transform: Transform, points: &[(f64, f64)]) -> Result<Curve> {
        let fail = |code: &str| Err(Error::value(op, code.to_string()));
        let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
        let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
        let n = xs.len();
        if xs.windows(2).any(|w| w[1] <= w[0]) {
            return fail("X_VALUES_NOT_STRICTLY_MONOTONICALLY_INCREASING");
        }
        // A single point is a constant: its x is never transformed.
        match transform {
            Transform::Log if n > 1 && xs.iter().any(|&x| x < 0.0) => return fail("NEGATIVE_X_VALUE_FOUND"),
            Transform::LogP1 if n > 1 && xs.iter().any(|&x| x < -1.0) => return fail("X_VALUE_BELOW_MINUS_ONE_FOUND"),
            _ => {}
        }
        let txs: Vec<f64> = xs.iter().map(|&x| transform.apply(x)).collect();
        if n > 1 {
            if txs[0].is_infinite() || txs[n - 1].is_infinite() {
                return fail("UNSUPPORTED_HORIZONTAL_ASYMPTOTE");
            }
            let (first, last) = (ys[0], ys[n - 1]);
            if first.is_infinite() || last.is_infinite() {
                let same_sign_ends = first.is_infinite() && last.is_infinite() && first == last;
                let nan_inside = ys[1..n - 1].iter().any(|y| y.is_nan());
                return fail(if same_sign_ends || nan_inside { "WRONG_SIGN_INF_AT_END" } else { "UNSUPPORTED_VERTICAL_ASYMPTOTE" });
            }
            if ys[1..n - 1].iter().any(|y| y.is_infinite()) {
                return fail("INFINITE_INTERIOR_Y_COORDINATE");
            }
        }
        let lines = (1..n)
            .map(|i| {
                let slope = (ys[i] - ys[i - 1]) / (txs[i] - txs[i - 1]);
                (slope, ys[i - 1] - slope * txs[i - 1])
            })
            .collect();
        Ok(Curve { transform, xs, txs, ys, lines })
    }

    /// The curve's value at `p`.
    #[inline]
    pub fn eval(&self, p: f64) -> f64 {
        let n = self.xs.len();
        if n == 1 || p <= self.xs[0] {
            return self.ys[0];
        }
        if p >= self.xs[n - 1] {
            return self.ys[n - 1];
        }
        let t = self.transform.apply(p);
        // The first control point at or right of `t` ends the segment (a
        // point on a control point reads the segment on its left).
        let end = 1 + self.txs[1..n - 1].partition_point(|&x| x < t);
        let (slope, intercept) = self.lines[end - 1];
        slope * t + intercept
    }
}

/// The control points of `adjustments`: a rank-2 slice of present numbers
/// whose rows have two items each.
fn control_points(op: &str, adjustments: &DataSlice) -> Result<Vec<(f64, f64)>> {
    // Koda asks for present items first (a missing item is empty too).
    if adjustments.present_count() == 0 {
        return Err(Error::value(op, "curve adjustments must be non empty"));
    }
    let shape = adjustments.shape();
    if shape.rank() != 2 {
        return Err(Error::value(op, format!("curve adjustments must have rank=2 found: {}", shape.rank())));
    }
    let rows = &shape.edges()[1];
    if let Some(size) = (0..rows.parent_size()).map(|i| rows.size_of(i)).find(|&s| s != 2) {
        return Err(Error::value(op, format!("curve adjustment shape must be regular size=2, found: {size}")));
    }
    let values = cast_to_narrow(op, adjustments, Schema::Float64)?;
    if values.present_count() != values.size() {
        return Err(Error::value(op, "curve adjustments must be all present"));
    }
    let column = &values.data().columns()[0];
    let Values::Float64(v) = &column.values else { unreachable!("cast to FLOAT64") };
    Ok(v.chunks_exact(2).map(|c| (c[0], c[1])).collect())
}

/// `adjustments`' curve at every point of `p`, as FLOAT64 of `p`'s shape.
pub fn pwl_curve(transform: Transform, p: &DataSlice, adjustments: &DataSlice) -> Result<DataSlice> {
    let op = transform.op();
    let points = control_points(op, adjustments)?;
    let curve = Curve::new(op, transform, &points)?;
    let p = cast_to_narrow(op, p, Schema::Float64)?;
    let Some(column) = p.data().columns().first() else {
        return Ok(DataSlice::missing(p.shape().clone(), Schema::Float64));
    };
    let Values::Float64(values) = &column.values else { unreachable!("cast to FLOAT64") };
    let out = build_vec(values.len(), |chunk| {
        let range = chunk.range();
        chunk.write_all(values[range].iter().map(|&v| curve.eval(v)));
    });
    let column = Column::new(Values::Float64(out.into()), column.presence.clone());
    DataSlice::new(p.shape().clone(), SliceData::from_column(column), Schema::Float64)
}

/// The arguments and result, as every curve operator documents them.
macro_rules! args_doc {
    () => {
        "Args:
  p: a DataSlice of numbers: the points to evaluate the curve at.
  adjustments: a rank-2 DataSlice of numbers whose rows are the curve's
    control points `[x, y]` (each row has exactly 2 items), with strictly
    increasing x, e.g. [[1, 1.7], [2, 3.6], [7, 5.7]].

Returns:
  A FLOAT64 DataSlice of the shape of `p`."
    };
}

pub(crate) fn register(r: &mut Registry) {
    r.add(
        "kd.curves.pwl_curve",
        &["kd.pwl_curve"],
        "p, adjustments",
        concat!(
            "Piecewise Linear (PWL) curve interpolation operator.

Points left of the first control point give its y, points right of the last
give the last y, and points in between lie on the line through the two
control points around them. Missing points stay missing, NaN gives NaN.
Invalid curves raise a ValueError with Koda's error code
(X_VALUES_NOT_STRICTLY_MONOTONICALLY_INCREASING, INFINITE_INTERIOR_Y_COORDINATE,
UNSUPPORTED_VERTICAL_ASYMPTOTE, ...).

",
            args_doc!(),
            "

Examples:
  >>> kd.curves.pwl_curve(kd.slice([0, 1.5, 2, 4.5, None, 10]), kd.slice([[1, 1.5], [2, 3.5], [7, 6.0]]))
  DataSlice([1.5, 2.5, 3.5, 4.75, None, 6.0], schema: FLOAT64, present: 5/6)
  >>> kd.pwl_curve(kd.slice([1, 2]), kd.slice([[2, 1], [1, 2]]))
  Traceback (most recent call last):
  ...
  ValueError: kd.curves.pwl_curve: X_VALUES_NOT_STRICTLY_MONOTONICALLY_INCREASING"
        ),
        |a| pwl_curve(Transform::Linear, a.slice("p")?, a.slice("adjustments")?),
    );
    r.add(
        "kd.curves.log_pwl_curve",
        &[],
        "p, adjustments",
        concat!(
            "Specialization of PWLCurve with log(x) transformation.

As `kd.curves.pwl_curve`, with the line between two control points drawn in
log(x): the control x values must not be negative (else
NEGATIVE_X_VALUE_FOUND), and a first x of 0 is refused
(UNSUPPORTED_HORIZONTAL_ASYMPTOTE).

",
            args_doc!(),
            "

Examples:
  >>> kd.curves.log_pwl_curve(kd.slice([0.5, 2, 10, 200]), kd.slice([[1, 0], [100, 2]]))
  DataSlice([0.0, 0.30102999566398114, 0.9999999999999999, 2.0], schema: FLOAT64, present: 4/4)"
        ),
        |a| pwl_curve(Transform::Log, a.slice("p")?, a.slice("adjustments")?),
    );
    r.add(
        "kd.curves.log_p1_pwl_curve",
        &[],
        "p, adjustments",
        concat!(
            "Specialization of PWLCurve with log(x + 1) transformation.

As `kd.curves.pwl_curve`, with the line between two control points drawn in
log(x + 1): the control x values must not be below -1 (else
X_VALUE_BELOW_MINUS_ONE_FOUND).

",
            args_doc!(),
            "

Examples:
  >>> kd.curves.log_p1_pwl_curve(kd.slice([0, 1, 3, 9]), kd.slice([[0, 0], [3, 2]]))
  DataSlice([0.0, 1.0, 2.0, 2.0], schema: FLOAT64, present: 4/4)"
        ),
        |a| pwl_curve(Transform::LogP1, a.slice("p")?, a.slice("adjustments")?),
    );
    r.add(
        "kd.curves.symmetric_log_p1_pwl_curve",
        &[],
        "p, adjustments",
        concat!(
            "Specialization of PWLCurve with symmetric log(x + 1) transformation.

As `kd.curves.pwl_curve`, with the line between two control points drawn in
sign(x) * log(|x| + 1), which is defined for every x.

",
            args_doc!(),
            "

Examples:
  >>> kd.curves.symmetric_log_p1_pwl_curve(kd.slice([-3, 0, 1, 5]), kd.slice([[-3, -1], [3, 1]]))
  DataSlice([-1.0, 0.0, 0.5, 1.0], schema: FLOAT64, present: 4/4)"
        ),
        |a| pwl_curve(Transform::SymmetricLogP1, a.slice("p")?, a.slice("adjustments")?),
    );

    // Type rules (see `crate::typing`): FLOAT64 of `p`'s shape.
    for name in ["kd.curves.pwl_curve", "kd.curves.log_pwl_curve", "kd.curves.log_p1_pwl_curve", "kd.curves.symmetric_log_p1_pwl_curve"] {
        r.type_rule(
            name,
            // The adjustments are the curve, not items beside `p`: no
            // batching rule (a batch would get them under each example).
            crate::typing::rules::elementwise(
                &["p"],
                crate::promote::TypeClass::Numeric,
                crate::typing::rules::Out::Fixed(plait_core::Schema::Float64),
            )
            .batched(crate::typing::Batching::ByName),
        );
    }
}
