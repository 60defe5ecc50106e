"""plait against koladata on generated kd.strings calls: same value, schema and
shape, or both raise. Inputs avoid the documented differences
(docs/differences.md): regex error texts, alignment specs in `format`,
float formatting of FLOAT64 items, and empty regex patterns in
`regex_find_all` (which never returns in koladata 0.0.4)."""

import random

import pytest

from plait import kd
from koda_compare import outcome, same_outcome

SEEDS = range(1000)

WORDS = ["", "a", "ab", "abc", "hello world", "  pad  ", "a,b,,c", "äöü", "ΟΔΟΣ", "x1y22", "aaaa", "Straße", "\tx\n"]
BYTE_WORDS = [b"", b"a", b"ab", b"a,b", b"  b ", b"aGVsbG8=", b"YWI", b"!!", b"\xc3\xa4b"]
SUBS = ["", "a", "b", "ab", ",", "ä", "zz", " "]


def scalar(rng, kind):
    if rng.random() < 0.2:
        return None
    if kind in ("str", "object_str"):
        return rng.choice(WORDS)
    if kind == "bytes":
        return rng.choice(BYTE_WORDS)
    if kind == "sub":
        return rng.choice(SUBS)
    if kind == "int":
        return rng.choice([0, 1, 2, -1, -3, 5, 100])
    if kind == "object_mixed":
        return rng.choice(["a", b"b", 1])
    if kind == "none":
        return None
    raise AssertionError(kind)


def nested(rng, kind, depth):
    if depth == 0:
        return scalar(rng, kind)
    return [nested(rng, kind, depth - 1) for _ in range(rng.choice([0, 1, 2, 3]))]


def build(k, value, kind):
    if kind in ("object_str", "object_mixed"):
        return k.slice(value, k.OBJECT)
    return k.slice(value)


def text_input(rng, kinds=("str", "str", "str", "bytes", "object_str", "none", "object_mixed")):
    kind = rng.choice(kinds)
    depth = rng.choice([0, 1, 1, 2, 2, 3])
    return nested(rng, kind, depth), kind


def item(rng, kind):
    return scalar(rng, kind)


def call(k, seed):
    rng = random.Random(seed)
    op = rng.choice(["length", "upper", "lower", "contains", "count", "find", "rfind", "substr", "strip", "lstrip",
                     "rstrip", "replace", "join", "split", "agg_join", "encode", "decode", "encode_base64",
                     "decode_base64", "regex_match", "regex_extract", "regex_find_all", "regex_replace_all",
                     "format", "printf"])
    x, kx = text_input(rng)
    def s():
        return build(k, x, kx)
    bytes_mode = kx == "bytes"
    sub = scalar(rng, "sub")
    if bytes_mode and isinstance(sub, str) and rng.random() < 0.9:
        sub = sub.encode()
    if op in ("length", "upper", "lower", "encode", "decode", "encode_base64"):
        return lambda: getattr(k.strings, op)(s())
    if op in ("contains", "count"):
        return lambda: getattr(k.strings, op)(s(), sub)
    if op in ("find", "rfind"):
        start, end = scalar(rng, "int"), scalar(rng, "int")
        return lambda: getattr(k.strings, op)(s(), sub, start, end)
    if op == "substr":
        start, end = scalar(rng, "int"), scalar(rng, "int")
        return lambda: k.strings.substr(s(), start, end)
    if op in ("strip", "lstrip", "rstrip"):
        # koladata 0.0.4 aborts the process on BYTES items with bytes >= 0x80
        # stripped by given chars, so BYTES inputs strip whitespace only here.
        chars = rng.choice([None, "a", " a", "xä", b" a"] if not bytes_mode else [None])
        return lambda: getattr(k.strings, op)(s(), chars)
    if op == "replace":
        new = rng.choice(["-", "", "XY"]) if not bytes_mode else rng.choice([b"-", b""])
        max_subs = rng.choice([None, None, 0, 1, 2, -1])
        return lambda: k.strings.replace(s(), sub, new, max_subs)
    if op == "join":
        sep = rng.choice(["-", "", None]) if not bytes_mode else rng.choice([b"-", None])
        return lambda: k.strings.join(s(), sep, s())
    if op == "split":
        sep = rng.choice([None, None, ",", " ", "a"]) if not bytes_mode else rng.choice([None, b","])
        return lambda: k.strings.split(s(), sep)
    if op == "agg_join":
        sep = rng.choice([None, ",", ""]) if not bytes_mode else rng.choice([None, b","])
        kwargs = {"ndim": rng.randint(0, 3)} if rng.random() < 0.4 else {}
        return lambda: k.strings.agg_join(s(), sep, **kwargs)
    if op == "decode_base64":
        kwargs = {"on_invalid": rng.choice([None, b"?", "?"])} if rng.random() < 0.7 else {}
        return lambda: k.strings.decode_base64(s(), **kwargs)
    if op == "regex_match":
        pattern = rng.choice(["a", "^a", "b$", "[0-9]+", "(?i)A", "ä"])
        return lambda: k.strings.regex_match(s(), pattern)
    if op == "regex_extract":
        pattern = rng.choice(["(a)", "([0-9]+)", "(x)?b", "a(b*)", "[0-9]"])
        return lambda: k.strings.regex_extract(s(), pattern)
    if op == "regex_find_all":
        pattern = rng.choice(["(a)", "([a-z])([0-9])?", "[0-9]", "(ä|b)"])
        return lambda: k.strings.regex_find_all(s(), pattern)
    if op == "regex_replace_all":
        pattern = rng.choice(["a", "([a-z])([0-9])", "[0-9]+", "(b)"])
        rewrite = rng.choice(["#", "\\1", "<\\0>", "\\\\"])
        return lambda: k.strings.regex_replace_all(s(), pattern, rewrite)
    if op == "format":
        fmt = rng.choice(["{a}", "{a}-{b}", "x{b:03d}", "{c:.2f}|{a}", "{{a}}{b}", "{d}", "{b:x}"])
        a = scalar(rng, "str")
        b = rng.choice([None, 1, 7, 255])
        c = rng.choice([None, 1.5, 2.0, -0.25])
        d = rng.choice([True, False, 3])
        return lambda: k.strings.format(fmt, a=a, b=b, c=c, d=d)
    fmt = rng.choice(["%s", "%d-%s", "%5.2f", "%x|%o", "%v", "%05d", "%-4d|", "%e"])
    args = [rng.choice([None, 1, 10, 255, -3]), rng.choice([None, "q", "ab"])]
    if fmt in ("%s", "%v"):
        args = [rng.choice(["a", None, 7])]
    if fmt in ("%5.2f", "%e"):
        args = [rng.choice([1.5, 2, None])]
    return lambda: k.strings.printf(fmt, *args)


@pytest.mark.parametrize("seed", SEEDS)
def test_strings_operator(koda, seed):
    kind, ours = outcome(call(kd, seed))
    koda_kind, theirs = outcome(call(koda, seed))
    if not same_outcome(kind, ours, koda_kind, theirs):
        return
    assert same_values(ours.to_py(), theirs.to_py()), (ours, theirs)


def same_values(a, b):
    # MASK items come back as each library's `present` DataItem.
    try:
        if a == b:
            return True
    except (ValueError, TypeError):
        pass
    return repr(a) == repr(b)
