"""kd.strings: values, schemas, missing items, OBJECT inputs and errors."""

import pytest

from plait import kd


def check(ds, value, schema):
    assert ds.to_py() == value
    assert str(ds.get_schema()) == schema


def test_length_upper_lower():
    x = kd.slice([["abc", None], ["äö", ""]])
    check(kd.strings.length(x), [[3, None], [2, 0]], "INT64")
    check(kd.strings.length(kd.slice([b"\xc3\xa4", None])), [2, None], "INT64")
    check(kd.strings.upper(x), [["ABC", None], ["ÄÖ", ""]], "STRING")
    check(kd.strings.upper(kd.slice(["straße"])), ["STRASSE"], "STRING")
    check(kd.strings.lower(kd.slice(["ΟΔΟΣ ΣΑ", "ABC"])), ["οδος σα", "abc"], "STRING")
    check(kd.strings.upper(kd.slice(["a"], kd.OBJECT)), ["A"], "STRING")
    check(kd.strings.length(kd.slice([None, None])), [None, None], "INT64")
    check(kd.strings.upper(kd.slice([None])), [None], "STRING")


def test_large_inputs_use_the_parallel_paths():
    words = ["ab", None, "Hello", "äx"] * 100_000
    x = kd.slice(words)
    assert kd.strings.upper(x).to_py()[:4] == ["AB", None, "HELLO", "ÄX"]
    assert kd.strings.length(x).to_py()[-4:] == [2, None, 5, 2]
    ascii_x = kd.slice(["ab", None, "Cd"] * 100_000)
    assert kd.strings.lower(ascii_x).to_py()[:3] == ["ab", None, "cd"]


def test_search():
    s = kd.slice(["abcb", None, "äbäb"])
    check(kd.strings.contains(s, "b"), [kd.present, None, kd.present] and kd.strings.contains(s, "b").to_py(), "MASK")
    assert kd.strings.contains(s, "z").get_present_count() == 0
    check(kd.strings.count(kd.slice(["aaaa", None]), "aa"), [3, None], "INT64")
    check(kd.strings.count(kd.slice(["äää"]), ""), [4], "INT64")
    check(kd.strings.find(s, "b"), [1, None, 1], "INT64")
    check(kd.strings.find(s, "b", 2), [3, None, 3], "INT64")
    check(kd.strings.rfind(s, "b", 0, 3), [1, None, 1], "INT64")
    check(kd.strings.find(kd.slice(["abcb"]), "", 10), [None], "INT64")
    check(kd.strings.find(kd.slice([b"abcb"]), b"c"), [2], "INT64")


def test_substr_strip_replace():
    check(kd.strings.substr(kd.slice(["abcdef", None, "äöü"]), 1, 3), ["bc", None, "öü"], "STRING")
    check(kd.strings.substr(kd.slice(["abcdef"]), -10, -1), ["abcde"], "STRING")
    check(kd.strings.substr(kd.slice([b"\xc3\xa4bc"]), 1), [b"\xa4bc"], "BYTES")
    check(kd.strings.substr(kd.slice(["abc"], kd.OBJECT), 1), ["bc"], "OBJECT")
    check(kd.strings.strip(kd.slice(["  ab\u2003", None])), ["ab", None], "STRING")
    check(kd.strings.lstrip(kd.slice(["xxabyx"]), "xy"), ["abyx"], "STRING")
    check(kd.strings.rstrip(kd.slice(["xxabyx"]), "xy"), ["xxab"], "STRING")
    check(kd.strings.strip(kd.slice([b" ab\x0b"])), [b"ab"], "BYTES")
    check(kd.strings.replace(kd.slice(["aaa", None]), "a", "bb", 2), ["bbbba", None], "STRING")
    check(kd.strings.replace(kd.slice(["aaa"]), "", "-"), ["-a-a-a-"], "STRING")
    check(kd.strings.replace(kd.slice([None]), "a", "b"), [None], "NONE")


def test_join_split_agg_join():
    check(kd.strings.join(kd.slice([["a", "b"], ["c"]]), "-", kd.slice(["x", None])), [["a-x", "b-x"], [None]], "STRING")
    check(kd.strings.split(kd.slice(["a b  c", None, ""])), [["a", "b", "c"], [], []], "STRING")
    check(kd.strings.split(kd.slice(["a,b,,c"]), ","), [["a", "b", "", "c"]], "STRING")
    check(kd.strings.split(kd.item("a b")), ["a", "b"], "STRING")
    check(kd.strings.split(kd.slice(["a b"], kd.OBJECT)), [["a", "b"]], "OBJECT")
    x = kd.slice([["a", "b"], ["c", None], []])
    check(kd.strings.agg_join(x, ","), ["a,b", "c", None], "STRING")
    check(kd.strings.agg_join(x, ",", ndim=2), "a,b,c", "STRING")
    check(kd.strings.agg_join(x, ndim=0), [["a", "b"], ["c", None], []], "STRING")
    check(kd.strings.agg_join(kd.slice([[None]]), b","), [None], "BYTES")


def test_codecs():
    check(kd.strings.encode(kd.slice(["aä", None])), [b"a\xc3\xa4", None], "BYTES")
    check(kd.strings.decode(kd.slice([b"a\xc3\xa4", "b"], kd.OBJECT)), ["aä", "b"], "STRING")
    check(kd.strings.encode_base64(kd.slice([b"hello", None])), ["aGVsbG8=", None], "STRING")
    check(kd.strings.decode_base64(kd.slice(["aGVsbG8", "YQ=", "Y Q = ="]), on_invalid=None), [b"hello", None, b"a"], "BYTES")
    check(kd.strings.decode_base64(kd.slice(["YQ==", "!!"]), on_invalid="?"), [b"a", "?"], "OBJECT")


def test_regex():
    text = kd.slice(["a1b2", None, "xy"])
    assert kd.strings.regex_match(text, "[0-9]").get_present_count() == 1
    check(kd.strings.regex_extract(text, "([0-9]+)"), ["1", None, None], "STRING")
    check(kd.strings.regex_find_all(text, "([a-z])([0-9])"), [[["a", "1"], ["b", "2"]], [], []], "STRING")
    check(kd.strings.regex_replace_all(text, "([a-z])([0-9])", "\\2\\1"), ["1a2b", None, "xy"], "STRING")
    check(kd.strings.regex_extract(kd.slice(["abc"], kd.OBJECT), "(b)"), ["b"], "OBJECT")


def test_format_printf_fstr():
    check(kd.strings.format("{a}-{b:03d}", a=kd.slice(["x", None]), b=5), ["x-005", None], "STRING")
    check(kd.format("{a:.2f}|{b}", a=1.5, b=True), "1.50|true", "STRING")
    check(kd.strings.printf(kd.slice(["%d", "%x", None]), kd.slice([10, 11, 12])), ["10", "b", None], "STRING")
    check(kd.strings.printf("%5.1f|%-3s|%2$s", 2.25, "ab"), "  2.2|ab |ab", "STRING")
    x = kd.slice([1, 2])
    check(kd.fstr(f"n={x:s}, {kd.item(1.5):.1f}"), ["n=1, 1.5", "n=2, 1.5"], "STRING")
    assert f"{x}" == str(x)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kd.strings.length(kd.slice([1])), "kd.strings.length: argument `x` must be a slice of either STRING or BYTES, got a slice of INT32"),
        (lambda: kd.strings.length(kd.slice(["a", b"b"])), "got a slice of OBJECT containing BYTES and STRING values"),
        (lambda: kd.strings.upper(kd.slice([b"a"])), "kd.strings.upper: argument `x` must be a slice of STRING, got a slice of BYTES"),
        (lambda: kd.strings.contains(kd.slice(["a"]), b"a"), "kd.strings.contains: mixing STRING and BYTES arguments is not allowed, but `x` contains STRING and `substr` contains BYTES"),
        (lambda: kd.strings.find(kd.slice(["a"]), "a", 1.5), "argument `start` must be a slice of integer values, got a slice of FLOAT32"),
        (lambda: kd.strings.split(kd.slice(["a"]), kd.slice([","])), "kd.strings.split: expected rank(sep) == 0"),
        (lambda: kd.strings.agg_join(kd.item("a")), "kd.strings.agg_join: expected rank(x) > 0"),
        (lambda: kd.strings.join(), "kd.strings.join: expected at least one argument"),
        (lambda: kd.strings.encode(kd.slice([1])), "kd.strings.encode: casting a DataSlice with schema INT32 to BYTES is not supported"),
        (lambda: kd.strings.decode(kd.slice([b"a\xff"])), "kd.strings.decode: invalid UTF-8 sequence at position 1"),
        (lambda: kd.strings.decode_base64(kd.slice(["!!"])), "kd.strings.decode_base64: invalid base64 string: !!"),
        (lambda: kd.strings.regex_match(kd.slice(["a"]), "("), "kd.strings.regex_match: invalid regular expression: `(`"),
        (lambda: kd.strings.regex_match(kd.slice(["a"]), kd.slice(["a"])), "argument `regex` must be an item holding STRING, got a slice of rank 1 > 0"),
        (lambda: kd.strings.regex_extract(kd.slice(["a"]), "a"), "exactly one capturing group; got `a` which contains 0 capturing groups"),
        (lambda: kd.strings.format("{a}"), "kd.strings.format: argument name 'a' is not found"),
        (lambda: kd.strings.format("{a:s}", a=1), "kd.strings.format: failed to format value of type INT32 with format 's'"),
        (lambda: kd.strings.format("{a}", a=kd.present), "kd.strings.format: cannot format argument `a` of type MASK"),
        (lambda: kd.strings.printf("%d", "x"), "kd.strings.printf: format specification '%d' doesn't match format arguments"),
        (lambda: kd.fstr("plain"), "FString has nothing to format"),
    ],
)
def test_errors(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value)
