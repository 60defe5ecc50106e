"""kd.curves: interpolation (bit for bit as Koda computes it: slope * x +
intercept per segment), clamping, transforms and Koda's error codes."""

import math
import random

import pytest

from plait import kd

ADJ = kd.slice([[1, 1.7], [2, 3.6], [7, 5.7]])


def test_pwl_curve_values_and_schema():
    r = kd.curves.pwl_curve(kd.slice([0, 1, 1.5, 2, 5, 7, 10, None]), ADJ)
    assert r.get_schema() == kd.FLOAT64
    assert r.to_py()[:4] == [1.7000000476837158, 1.7000000476837158, 2.649999976158142, 3.5999999046325684]
    assert r.to_py()[4:] == [4.8599998474121096, 5.699999809265137, 5.699999809265137, None]
    assert kd.pwl_curve(kd.slice([[1, 2], [3]]), ADJ).get_shape() == kd.slice([[1, 2], [3]]).get_shape()
    assert math.isnan(kd.pwl_curve(float("nan"), ADJ).to_py())
    assert repr(kd.pwl_curve(None, ADJ)) == "DataItem(None, schema: FLOAT64)"


def test_matches_the_formula_bit_for_bit():
    rng = random.Random(0)
    xs = sorted(rng.uniform(-10, 10) for _ in range(6))
    ys = [rng.uniform(-10, 10) for _ in range(6)]
    adj = kd.slice([[x, y] for x, y in zip(xs, ys)], kd.FLOAT64)
    for p in (rng.uniform(-11, 11) for _ in range(200)):
        got = kd.pwl_curve(kd.float64(p), adj).to_py()
        if p <= xs[0]:
            assert got == ys[0]
        elif p >= xs[-1]:
            assert got == ys[-1]
        else:
            i = next(i for i in range(1, 6) if xs[i] >= p)
            slope = (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1])
            assert got == slope * p + (ys[i - 1] - slope * xs[i - 1])


def test_transforms():
    adj = kd.slice([[1.0, 2.0], [2.0, 3.0], [3.0, 7.0]], kd.FLOAT64)
    p = kd.slice([-1.0, 1.5, 2.5, 5.0], kd.FLOAT64)
    assert kd.curves.log_pwl_curve(p, adj).to_py() == [2.0, 2.584962500721156, 5.2013588528528345, 7.0]
    assert kd.curves.log_p1_pwl_curve(p, adj).to_py() == [2.0, 2.5503397132132086, 5.143347738195899, 7.0]
    sym = kd.slice([[-1.0, 1.0], [1.0, 2.0]], kd.FLOAT64)
    assert kd.curves.symmetric_log_p1_pwl_curve(kd.slice([0.0, 0.5], kd.FLOAT64), sym).to_py() == [1.5, 1.792481250360578]


@pytest.mark.parametrize(
    "op, adj, code",
    [
        ("pwl_curve", [[2, 1], [1, 2]], "X_VALUES_NOT_STRICTLY_MONOTONICALLY_INCREASING"),
        ("pwl_curve", [[1, 3], [2, float("inf")], [3, 4]], "INFINITE_INTERIOR_Y_COORDINATE"),
        ("pwl_curve", [[1, 1], [2, float("inf")]], "UNSUPPORTED_VERTICAL_ASYMPTOTE"),
        ("pwl_curve", [[1, float("inf")], [2, 3], [3, float("inf")]], "WRONG_SIGN_INF_AT_END"),
        ("pwl_curve", [[float("-inf"), 0], [2, 3]], "UNSUPPORTED_HORIZONTAL_ASYMPTOTE"),
        ("log_pwl_curve", [[-1, 1], [1, 2]], "NEGATIVE_X_VALUE_FOUND"),
        ("log_pwl_curve", [[0, 1], [1, 2]], "UNSUPPORTED_HORIZONTAL_ASYMPTOTE"),
        ("log_p1_pwl_curve", [[-3, 1], [1, 2]], "X_VALUE_BELOW_MINUS_ONE_FOUND"),
    ],
)
def test_error_codes(op, adj, code):
    with pytest.raises(ValueError, match=f"kd.curves.{op}: {code}"):
        getattr(kd.curves, op)(1.5, kd.slice(adj, kd.FLOAT64))


@pytest.mark.parametrize(
    "adj, message",
    [
        (kd.slice([[1, 2, 3]]), "curve adjustment shape must be regular size=2, found: 3"),
        (kd.slice([1, 2]), "curve adjustments must have rank=2 found: 1"),
        (kd.slice([[1, None], [2, 2]]), "curve adjustments must be all present"),
        (kd.slice([["a", "b"]]), "unsupported narrowing cast to FLOAT64 for the given STRING DataSlice"),
    ],
)
def test_adjustment_errors(adj, message):
    with pytest.raises(ValueError, match="kd.curves.pwl_curve: " + message):
        kd.pwl_curve(1, adj)
