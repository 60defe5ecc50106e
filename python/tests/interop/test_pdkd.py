"""kd_ext.pdkd (issue 8): DataSlices to and from pandas DataFrames, as
Koda's pdkd (nullable dtypes, MultiIndex for jagged slices)."""

import re

import pytest

pd = pytest.importorskip("pandas")

from plait import kd  # noqa: E402
from plait.kd_ext import pdkd  # noqa: E402


def bagless(text):
    return re.sub(r", bag_id: \$[0-9a-f]+", "", text)


def test_to_dataframe():
    e = kd.new(a=kd.slice([1, 2]), b=kd.slice(["x", None]), c=kd.slice([1.5, None]), d=kd.slice([True, None]),
               m=kd.slice([kd.present, None]))
    df = pdkd.to_dataframe(e)
    assert [str(t) for t in df.dtypes] == ["Int32", "string", "Float32", "boolean", "boolean"]
    assert df["a"].tolist() == [1, 2] and df["b"][1] is pd.NA and df["m"].tolist() == [True, pd.NA]
    assert list(pdkd.to_dataframe(e, cols=["a", kd.S.b]).columns) == ["a", "S.b"]
    assert list(pdkd.to_dataframe(e, include_self=True).columns) == ["a", "b", "c", "d", "m", "self_"]
    jagged = pdkd.to_dataframe(kd.slice([[1, 2], [3]]))
    assert jagged.index.tolist() == [(0, 0), (0, 1), (1, 0)] and jagged["self_"].tolist() == [1, 2, 3]
    assert pdkd.to_dataframe(kd.item(1))["self_"].tolist() == [1]
    assert pdkd.to_dataframe(kd.obj(a=kd.slice([1, 2])))["a"].tolist() == [1, 2]
    with pytest.raises(ValueError, match="Cannot evaluate I.q"):
        pdkd.to_dataframe(e, cols=[kd.I.q])


def test_from_dataframe():
    df = pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    assert bagless(repr(pdkd.from_dataframe(df))) == (
        "DataSlice([Entity(x=1, y='a'), Entity(x=2, y='b')], schema: ENTITY(x=INT64, y=STRING), present: 2/2)")
    assert bagless(repr(pdkd.from_dataframe(df, as_obj=True))) == (
        "DataSlice([Obj(x=1, y='a'), Obj(x=2, y='b')], schema: OBJECT, present: 2/2)")
    assert bagless(repr(pdkd.from_dataframe(pd.DataFrame({"x": [1.5, None]})))) == (
        "DataSlice([Entity(x=1.5), Entity(x=None)], schema: ENTITY(x=FLOAT64), present: 2/2)")
    assert bagless(repr(pdkd.from_dataframe(pd.DataFrame({"x": pd.array([1, None], dtype="Int32")})))) == (
        "DataSlice([Entity(x=1), Entity(x=None)], schema: ENTITY(x=INT32), present: 2/2)")
    multi = pd.DataFrame({"x": [1, 2, 3]}, index=pd.MultiIndex.from_tuples([(0, 0), (0, 1), (1, 0)]))
    assert pdkd.from_dataframe(multi).x.to_py() == [[1, 2], [3]]
    with pytest.raises(ValueError, match="DataFrame has no columns."):
        pdkd.from_dataframe(pd.DataFrame())


def test_round_trip():
    e = kd.new(a=kd.slice([[1, 2], [3]]), b=kd.slice([["x", None], ["z"]]))
    back = pdkd.from_dataframe(pdkd.to_dataframe(e))
    assert back.a.to_py() == [[1, 2], [3]] and back.b.to_py() == [["x", None], ["z"]]


def test_same_as_koda(koda):
    koda_pdkd = pytest.importorskip("koladata.ext.pdkd")
    for make in [lambda k: k.new(a=k.slice([1, 2]), b=k.slice(["x", None])), lambda k: k.slice([[1.5, None], [3.0]])]:
        ours, theirs = pdkd.to_dataframe(make(kd)), koda_pdkd.to_dataframe(make(koda))
        assert list(ours.columns) == list(theirs.columns)
        assert [str(t) for t in ours.dtypes] == [str(t) for t in theirs.dtypes]
        assert ours.astype(object).where(ours.notna(), None).values.tolist() == (
            theirs.astype(object).where(theirs.notna(), None).values.tolist())
