"""kd.from_json of text that does not parse, against koladata: the same
message, in full (where reading stopped, what was read since the last
string or number began, and what the parser expected)."""

import pytest

from plait import kd as pkd

from koda_compare import normalised

kkd = pytest.importorskip("koladata.kd")

TEXTS = [
    # values
    "", "   ", "x", "  x", "tru", "nulll", "falsy", "+1", ".5", "NaN", "Infinity", "abc def", "\t\n x", "\r\n\r\nx",
    # numbers
    "-", "1.", "1e", "1.5e+", "01", "-01", "[-]", "[1.5e]", "1e999", "-1e999", "[1e999]", "[1e999, x]", "[x, 1e999]",
    '{"a":1e400}',
    # strings
    '"abc', '"\\x"', '"a\nb"', '"a\x01"', '"a\x1f"', '"\x00"', '"\\u12"', '"\\ud800"', '"\\ud800\\u0041"', '"\\udc00"',
    '"\\u00e9"x',
    # arrays and objects
    "[1,", "[1 2]", "[1,]", "[1,,2]", "[null nul]", "[true, fals]", "[" + "true," * 30 + "x]", '["a" "b"]', "[1", "[[[[",
    "[", "]", "}", "{", '{"a" 1}', '{"a":}', '{"a":1,}', "{1:2}", '{"a":1 "b":2}', '{"a"', '{"a":', '{"a":1',
    '{"a":[1,2}', '{"k": [1, 2, {"z": }]}', '{"a":{"b":{"c":',
    # after the value
    "1 2", '"abc"x', "[1]x", '{"a":1}}', "[1]]", "true false", "1.0e-5 x", "[true]   false", '{"a": 1}\n\n}', "[1,\n2,\nx]",
    "\ufeffx",
]

VALID = ["\ufeff1", "1\x00xyz", "-0", "123456789012345678901234567890"]


def _outcome(kd, text):
    try:
        return "ok", normalised(repr(kd.from_json(text)))
    except ValueError as error:
        return "error", str(error).split("\n")[0]


@pytest.mark.parametrize("text", TEXTS)
def test_invalid_json_message_is_koda(text):
    ours, theirs = _outcome(pkd, text), _outcome(kkd, text)
    assert theirs[0] == "error"
    assert ours == theirs


@pytest.mark.parametrize("text", VALID)
def test_text_koda_reads_as_json_is_read(text):
    assert _outcome(pkd, text) == _outcome(kkd, text)
