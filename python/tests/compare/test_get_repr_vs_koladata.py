"""plait against koladata on `kd.get_repr` (every option, HTML included) and
on `repr` / `str` where the options' defaults matter (item limits of
entities, lists and dicts; long text; large slices of entities printed as
their attribute names): the same text, ids and bag ids normalised."""

import re

import pytest

from plait import kd

from koda_compare import outcome

SETUP = """
x = kd.slice([[1, 2, 3], [4]])
o = kd.new(a=kd.new(b=kd.new(c='hello world')), l=kd.list([1, 2, 3]))
e = kd.new(a=1, b=2, c=3, d=4, e=5)
# Values their schema cannot read (INT32 stored, INT64 declared): the whole
# text shows ids.
u = kd.set_schema(kd.mutable_bag().new(x=kd.slice([1, 2]), y='a'), kd.schema.new_schema(x=kd.INT64, y=kd.STRING))
w = u.get_bag().new(z=u.S[0], w=3)
"""

OPTIONS = [
    {}, dict(item_limit=2), dict(item_limit=3), dict(item_limit_per_dimension=1), dict(depth=0), dict(depth=1),
    dict(depth=2), dict(depth=-1), dict(show_databag_id=True), dict(show_shape=True), dict(show_schema=True),
    dict(show_present_count=True), dict(format_html=True), dict(item_limit=0), dict(item_limit=-1),
    dict(max_str_len=3), dict(show_attributes=False), dict(show_item_id=True),
    dict(show_schema=True, show_item_id=True, show_databag_id=True, show_shape=True, show_present_count=True),
    dict(depth=1, format_html=True), dict(item_limit=1, format_html=True), dict(show_attributes=False, format_html=True),
]

VALUES = [
    "x", "o", "e", "u", "w", "kd.slice(list(range(30)))", "kd.slice(list(range(300)))", "kd.slice([list(range(30))] * 3)",
    "kd.list(list(range(40)))", "kd.dict({'a': 1})", "kd.obj(a=1, b=None)", "kd.slice([None, 'x'])",
    "kd.item('a' * 300)", "kd.slice([kd.new(a=1), None])", "kd.new(a=1).get_schema()", "kd.item('<b>&')",
    "kd.slice(['<b>&\"\\''])", "kd.obj(kd.list([kd.obj(a=1)]))", "kd.slice([e, e, e])", "kd.list([e, e, e])",
    "kd.dict({'a': kd.list([1, 2, 3, 4])})", "kd.item(1)", "kd.list([1])", "kd.obj(a=1)", "kd.item(None)",
    "kd.slice([])", "kd.new(a=kd.slice(list(range(25))))", "kd.slice([kd.obj(a=1)] * 12 + [kd.obj(b=1)] * 13)",
    "kd.slice([1.5, None])", "kd.slice([[1, 2], [3, 4], [5, 6]])", "kd.slice(['a' * 40] * 3)",
    "kd.slice(['abcdefg', b'abcdefgh', 'абвгдеж'])",
]

# Koda prints an all-missing NONE slice without a bag from `item_limit`
# items on as `DataSlice(attrs: )`; plait prints its items (a documented
# difference, as for `repr`).
NONE_WITHOUT_BAG = {"kd.item(None)", "kd.slice([])"}
CASES = [
    f"kd.get_repr({v}, **{kw!r}).to_py()"
    for v in VALUES
    for kw in OPTIONS
    if not (v in NONE_WITHOUT_BAG and kw.get("item_limit", 2) < 2)
]
CASES += [f"kd.get_repr(kd.slice(['abcdefg', b'abcdefgh', 'абвгдеж']), max_str_len={m})" for m in [0, 3, 4, 5, -1]]
CASES += [f"kd.get_repr(kd.slice([1]), {arg})" for arg in
          ["depth='a'", "format_html=1", "depth=kd.slice([1])", "show_schema=None", "item_limit=None"]]
REPRS = [
    "kd.new(a=kd.slice(list(range(25))))", "kd.obj(a=kd.slice(list(range(25))))",
    "kd.slice([kd.obj(a=1)] * 12 + [1] * 13)", "kd.slice([kd.obj(b=1, c=2)] * 12 + [None] * 13)",
    "kd.new_like(kd.slice(list(range(25))))", "kd.new(**{f'a{i}': i for i in range(25)})", "kd.new(a='x' * 300)",
    "kd.obj(kd.list_like(kd.slice(list(range(25)))))", "kd.list(list(range(30)))",
    "kd.dict({i: i for i in range(30)}).get_size()", "kd.new(a=kd.slice(list(range(25)))).no_bag()",
    "u", "u.S[0]", "w", "u.get_bag().list([u.S[0]])", "u.get_bag().dict({'k': u.S[0]})",
]
CASES += [f"repr({v})" for v in REPRS] + [f"str({v})" for v in REPRS]


def norm(text):
    text = re.sub(r"[$#][0-9A-Za-z]{22}", "$ID", text)
    return re.sub(r"bag_id: \$[0-9a-f]+", "bag_id: $B", text)


def run(lib, source):
    env = {"kd": lib}
    exec(SETUP, env)
    kind, value = outcome(lambda: eval(source, env))
    return kind, norm(str(value) if kind == "error" else repr(value))


@pytest.mark.parametrize("source", CASES)
def test_same_as_koladata(koda, source):
    assert run(kd, source) == run(koda, source)
