"""What the differential tests share: running one call on a library and
comparing plait's outcome with koladata's."""

import re

_ID = re.compile(r"[$#][0-9A-Za-z]{4,}")
_PREFIX = re.compile(r"^(\[[A-Z_]+\]\s*)?((kd|DataBag|DataSlice|koda_internal)(\.[A-Za-z_0-9]+)+:\s*)?")
_MODULE = re.compile(r"(koladata\.types\.data_bag|plait\.types)\.DataBag")


def normalised(text):
    """`text` with item and bag ids masked and DataBag's module left out."""
    return _MODULE.sub("DataBag", _ID.sub("<id>", text))


def repr_outcome(kd, program):
    """("ok", normalised repr of `program(kd)`) or ("error", exception type,
    first message line without Koda's status or an operator prefix)."""
    try:
        result = program(kd)
    except (ValueError, TypeError, AttributeError, IndexError, KeyError, NotImplementedError) as error:
        return ("error", type(error).__name__, normalised(_PREFIX.sub("", str(error)).split("\n")[0]))
    return ("ok", normalised(repr(result)))


def message_outcome(kd, program):
    """As `repr_outcome`, but an error keeps its whole message (every line,
    ids masked): for errors whose details follow the first line."""
    try:
        result = program(kd)
    except (ValueError, TypeError, AttributeError, IndexError, KeyError, NotImplementedError) as error:
        return ("error", type(error).__name__, normalised(_PREFIX.sub("", str(error))))
    return ("ok", normalised(repr(result)))


def assert_same_repr_outcome(ours, theirs):
    """Asserts two `repr_outcome`s agree: the same repr, or the same error
    type and message, where plait's message may say more after Koda's (what
    was found)."""
    if ours[0] == "error" == theirs[0]:
        assert ours[1] == theirs[1] and ours[2].startswith(theirs[2]), (ours, theirs)
    else:
        assert ours == theirs


def outcome(fn):
    """("ok", result) or ("error", first line of the message)."""
    try:
        return "ok", fn()
    except (ValueError, TypeError, AttributeError) as error:
        return "error", str(error).split("\n")[0]


def same_outcome(ours_kind, ours, koda_kind, theirs):
    """Asserts both failed or both returned slices of one schema and shape;
    True when both returned (so the values remain to be compared)."""
    assert ours_kind == koda_kind, (ours, theirs)
    if ours_kind == "error":
        return False
    assert str(ours.get_schema()) == str(theirs.get_schema()), (ours, theirs)
    assert repr(ours.get_shape()) == repr(theirs.get_shape()), (ours, theirs)
    return True
