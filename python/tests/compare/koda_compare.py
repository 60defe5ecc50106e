"""What the differential tests share: running one call on a library and
comparing plait's outcome with koladata's."""


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
