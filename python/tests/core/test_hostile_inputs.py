"""Hostile inputs end in a clear error: no crash, hang or silent corruption
(issue 19; the limits are listed in docs/limits.md).

Cases that crashed (SIGABRT, SIGSEGV) or hung before run in a subprocess
with a timeout: the child prints the exception's type and message and exits
normally, so a crash shows as a bad exit code rather than killing pytest.
"""

import os
import subprocess
import sys
import textwrap
import zlib

import numpy as np
import pyarrow as pa
import pytest

from plait import kd, kd_ext


def run_isolated(body, timeout=120):
    """Runs `body` (Python code ending in an expression statement `result =
    ...`) in a fresh interpreter; returns (exception type name or 'OK',
    message or repr)."""
    code = "\n".join([
        "from plait import kd, kd_ext",
        "try:",
        textwrap.indent(textwrap.dedent(body).strip(), "    "),
        "    print('OK')",
        "    print(repr(result)[:500])",
        "except Exception as e:",
        "    print(type(e).__name__)",
        "    print(str(e).splitlines()[0] if str(e) else '')",
    ])
    # Without the type checks: they read every result's schema, through
    # data of thousands of levels (tests of crashes and hangs, not types).
    env = dict(os.environ, PLAIT_CHECK_TYPES="0")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, f"the child died with code {proc.returncode}: {proc.stderr[-2000:]}"
    kind, _, message = proc.stdout.partition("\n")
    return kind, message.strip()


def assert_raises_isolated(body, kind, *words, timeout=120):
    got, message = run_isolated(body, timeout)
    assert got == kind, (got, message)
    for word in words:
        assert word in message, message


# --------------------------------------------------------------------- sizes


@pytest.mark.parametrize("body, op", [
    ("result = kd.strings.format('{x:>99999999999}', x=1)", "kd.strings.format"),
    ("result = kd.strings.format('{x:.99999999999f}', x=1.0)", "kd.strings.format"),
    ("result = kd.strings.printf('%99999999999d', 1)", "kd.strings.printf"),
    ("result = kd.strings.printf('%.99999999999f', 1.0)", "kd.strings.printf"),
    ("result = kd.strings.printf('%*d', 10**12, 5)", "kd.strings.printf"),
    # Widths of 20 digits and more were read as no width at all (found by the fuzzer).
    ("result = kd.strings.printf('%.18446744073709551616f', 1.0)", "kd.strings.printf"),
    ("result = kd.strings.printf('%18446744073709551616d', 1)", "kd.strings.printf"),
    ("result = kd.strings.format('{x:>18446744073709551616}', x=1)", "kd.strings.format"),
    ("result = kd.strings.format('{x:.99999999999999999999f}', x=1.0)", "kd.strings.format"),
])
def test_format_widths_past_the_maximum_raise(body, op):
    assert_raises_isolated(body, "ValueError", op, "maximum of 2147483647")


def test_large_but_possible_widths_and_precisions_format():
    assert len(kd.strings.format("{x:>100000}", x=1).to_py()) == 100000
    fixed = kd.strings.format("{x:.70000f}", x=0.5).to_py()  # past Rust's formatter limit
    assert fixed == "0.5" + "0" * 69999
    assert kd.strings.printf("%.70000e", 1.5).to_py() == "1.5" + "0" * 69999 + "e+00"
    assert kd.strings.printf("%.3g|%.100000g", 1234.5, 0.25).to_py() == "1.23e+03|0.25"
    assert kd.strings.printf("%.1000000d", 5).to_py() == "0" * 999999 + "5"


@pytest.mark.parametrize("body, op", [
    ("result = kd.present_shaped(kd.shapes.new(10**12))", "kd.masking.present_shaped"),
    ("result = kd.empty_shaped(kd.shapes.new(10**12))", "kd.slices.empty_shaped"),
    ("result = kd.val_shaped(kd.shapes.new(10**12), 1)", "kd.slices.val_shaped"),
    ("result = kd.new_shaped(kd.shapes.new(10**12))", "kd.entities.shaped"),
    ("result = kd.obj_shaped(kd.shapes.new(10**12))", "kd.objs.shaped"),
    ("result = kd.list_shaped(kd.shapes.new(10**12))", "kd.lists.shaped"),
    ("result = kd.dict_shaped(kd.shapes.new(10**12))", "kd.dicts.shaped"),
    ("result = kd.new_itemid_shaped(kd.shapes.new(10**12))", "kd.allocation.new_itemid_shaped"),
    ("result = kd.tile(kd.slice([1, 2]), kd.shapes.new(10**12))", "kd.slices.tile"),
    ("result = kd.expand_to_shape(kd.item(1), kd.shapes.new(10**12))", "kd.shapes.expand_to_shape"),
    ("result = kd.range(10**12)", "kd.slices.range"),
    # Aborted the process (found by the fuzzer).
    ("result = kd.uuids_with_allocation_size(seed='s', size=2**40)", "kd.ids.uuids_with_allocation_size"),
    ("result = kd.repeat(kd.slice([1, 2]), kd.slice([2**62, 2**62]))", "kd.slices.repeat"),
    ("result = kd.strings.replace(kd.item('a' * 10**6), '', 'b' * 10**6)", "kd.strings.replace"),
    ("result = kd.strings.regex_replace_all(kd.item('a' * 10**6), '', 'b' * 10**6)", "kd.strings.regex_replace_all"),
    ("result = kd.strings.regex_replace_all(kd.item('ab' * 10**5), '(a*)', '\\\\1' * 10**6)", "kd.strings.regex_replace_all"),
])
def test_results_too_large_to_allocate_raise_before_allocating(body, op):
    assert_raises_isolated(body, "ValueError", op, "than this machine can allocate")


def test_large_regex_replacements_that_fit_are_exact():
    # Past 64 MiB the result is counted and reserved before it is written.
    text = kd.slice(["ab" * 1000, None, "xyz"])
    small = kd.strings.regex_replace_all(text, "(a|)", "<\\1>#").to_py()
    large = kd.strings.regex_replace_all(text, "(a|)", "<\\1>" + "-" * 70_000).to_py()
    assert len(large[0]) > 2**26
    assert large == [t.replace("#", "-" * 70_000) if t is not None else None for t in small]
    assert kd.strings.regex_replace_all(kd.item("ab"), "", "-").to_py() == "-a-b-"


def test_int_arguments_past_int64_wrap_as_in_koda():
    # Operator arguments are boxed as Koda boxes them: modulo 2**64 (seed 000).
    with pytest.raises(ValueError, match="kd.shapes.new: dimension 0 has a negative size"):
        kd.shapes.new(2**63)
    assert kd.shapes.new(2**64) == kd.shapes.new(0)
    assert kd.shapes.new(-(2**63) - 1) == kd.shapes.new(2**63 - 1)
    assert kd.shapes.new(10**30) == kd.shapes.new(5076944270305263616)
    # (koladata 0.0.4 crashes on this one.)
    with pytest.raises(ValueError, match="kd.shapes.reshape: shape size must be compatible with number of items"):
        kd.reshape(kd.slice([1, 2]), (10**30, 1))


def test_shape_sizes_are_checked_arithmetic():
    with pytest.raises(ValueError, match="more than 2\\*\\*63 items"):
        kd.shapes.new(2, [2**62, 2**62])
    with pytest.raises(ValueError, match="more than 2\\*\\*63 items"):
        kd.shapes.new(10**10, 10**10)
    huge = kd.shapes.new(10**12)  # a uniform shape is two numbers: fine by itself
    assert kd.shapes.size(huge) == 10**12


def test_rank_past_the_maximum_raises():
    with pytest.raises(ValueError, match="kd.shapes.new: a shape of 100000 dimensions, more than the maximum of 256"):
        kd.reshape(kd.slice([1]), tuple([1] * 100000))
    deep = kd.reshape(kd.slice([1]), tuple([1] * 256))
    with pytest.raises(ValueError, match="kd.shapes.flatten: a new dimension would make 257 dimensions"):
        kd.flatten(deep, 1, 1)
    assert kd.loads(kd.dumps(deep)).get_ndim() == 256


# --------------------------------------------------------------------- depth


def nested(depth, kind="list"):
    x = 1
    for _ in range(depth):
        x = [x] if kind == "list" else {"a": x}
    return x


def depth_of(x, kind="list"):
    n = 0
    while x != 1:
        x = x[0] if kind == "list" else x["a"]
        n += 1
    return n


@pytest.mark.no_type_checks
@pytest.mark.parametrize("kind", ["list", "dict"])
def test_from_py_and_to_py_of_10000_levels(kind):
    x = kd.from_py(nested(10000, kind))
    assert depth_of(x.to_py(max_depth=-1), kind) == 10000
    with pytest.raises(ValueError, match="kd.from_py: objects with depth > 10000 are not supported"):
        kd.from_py(nested(10005, kind))


def test_self_containing_values_raise():
    looped = []
    looped.append(looped)
    with pytest.raises(ValueError, match="kd.from_py: objects with depth > 10000"):
        kd.from_py(looped)
    db = kd.mutable_bag()
    x = db.obj(a=1)
    x.s = x
    # to_py converts each item once: a cycle gives values that refer to
    # themselves (as in Koda), at any depth.
    y = x.to_py(max_depth=-1)
    assert y.s is y and y.a == 1
    z = x.to_py(max_depth=2)
    assert z.s is z


def _doubling_cycle(wrap=lambda x: x):
    """A list holding itself twice (through `wrap`): each level of a walk
    of it has twice the values of the one above."""
    x = []
    x.extend([wrap(x), wrap(x)])
    return x


@pytest.mark.parametrize("convert", [
    lambda x: kd.from_py(x),
    lambda x: kd.from_py(x, schema=None),
    lambda x: kd.from_py(x, dict_as_obj=True, schema=None),
    lambda x: kd.from_py(x, schema=kd.list_schema(kd.OBJECT)),
    lambda x: kd.new(a=x),
    lambda x: kd.slice(x),
    lambda x: kd.list(x),
])
@pytest.mark.parametrize("through", ["list", "dict"])
def test_values_holding_themselves_twice_raise_at_once(convert, through):
    """Walked level by level, such values double each level: the walk finds
    the cycle within a few levels instead of filling memory."""
    x = _doubling_cycle((lambda v: {"a": v}) if through == "dict" else (lambda v: v))
    # (kd.slice refuses dicts before it looks deeper.)
    with pytest.raises(ValueError, match="itself|recursive|unsupported type: dict"):
        convert(x)


def chain(n):
    """A chain of n + 1 entities linked by `p` (built at once, not in O(n²))."""
    return f"""
        n = {n}
        e = kd.new(a=kd.range(n + 1), schema='Node')
        e = e.with_attrs(p=kd.slices.at(e, kd.range(1, n + 2)))
        x = e.S[0]
        """


def test_deep_uuid_dumps_and_loads_of_long_chains():
    body = chain(100_000) + """
        u = kd.deep_uuid(x)
        back = kd.loads(kd.dumps(x))
        assert kd.deep_uuid(back) == u and back.p.p.a == 2
        result = u
        """
    kind, text = run_isolated(body, timeout=300)
    assert kind == "OK" and text.startswith("DataItem(Entity:#"), (kind, text)


def test_to_py_of_an_11000_entity_chain():
    body = chain(11_000) + """
        y = x.to_py(max_depth=-1)
        for _ in range(11_000):
            y = y.p
        result = y.a
        """
    assert run_isolated(body, timeout=300) == ("OK", "11000")


def test_dumps_and_loads_of_100000_nested_list_schemas():
    body = """
        s = kd.INT32
        for _ in range(100_000):
            s = kd.list_schema(s)
        back = kd.loads(kd.dumps(s))
        u = kd.deep_uuid(back)
        del s, back
        result = u
        """
    kind, text = run_isolated(body, timeout=300)
    assert kind == "OK" and text.startswith("DataItem(Schema:#"), (kind, text)


def test_100000_node_expressions_evaluate_save_and_drop():
    body = """
        e = kd.I.x
        for _ in range(100_000):
            e = e + 1
        assert kd.eval(kd.loads(kd.dumps(e)), x=1) == 100_001
        del e
        result = 'dropped'
        """
    assert run_isolated(body, timeout=300) == ("OK", "'dropped'")


def test_deep_uuid_of_20000_schemas_made_one_by_one():
    # Each list_schema / dict_schema reads the previous one's bag: a walk
    # over the chain looked through every bag for each schema (O(n²), hours
    # for 20,000; found by the fuzzer). Walks now merge long chains first.
    body = """
        s = kd.INT32
        for i in range(20_000):
            s = kd.list_schema(s) if i % 2 else kd.dict_schema(kd.STRING, s)
        u = kd.deep_uuid(s)
        assert u == kd.deep_uuid(kd.loads(kd.dumps(s)))
        result = u
        """
    kind, text = run_isolated(body, timeout=300)
    assert kind == "OK" and text.startswith("DataItem(Schema:#"), (kind, text)


def test_entity_schemas_nested_20000_deep_make_entities_and_cast():
    # Copying a schema's schemas went one native frame per level (a crash
    # at ~10,000), and so did the deep cast's schema check.
    body = """
        def chain(leaf, depth):
            bag = kd.mutable_bag()
            s = bag.new_schema(v=leaf)
            for _ in range(depth):
                outer = bag.new_schema()
                outer.a = s
                s = outer
            return bag, s
        bag, source = chain(kd.INT32, 20_000)
        _, target = chain(kd.INT64, 20_000)
        x = bag.new(schema=source)
        y = kd.new(schema=source)
        cast = kd.cast_to(x, target)
        result = (cast.get_schema() == target, kd.has(y))
        """
    kind, text = run_isolated(body, timeout=300)
    assert kind == "OK" and text == "(DataItem(present, schema: MASK), DataItem(present, schema: MASK))", (kind, text)


def test_functor_recursing_forever_raises():
    body = """
        f = kd.fn(lambda n, me: kd.call(me, n + 1, me))
        result = f(0, f)
        """
    assert_raises_isolated(body, "ValueError", "kd.functor.call", "functor calls nested more than 10000 deep")


def test_functor_recursing_through_if_100000_times_raises():
    body = """
        def body(n, me):
            return kd.if_(n <= 0, lambda n, me: n, lambda n, me: kd.call(me, n - 1, me), n, me)
        f = kd.fn(body)
        assert f(100, f) == 0
        result = f(100_000, f)
        """
    got, message = run_isolated(body, timeout=300)
    assert got in ("ValueError", "RecursionError"), (got, message)


# --------------------------------------------------------------------- shared memory


def test_arrow_import_does_not_share_writable_numpy_memory():
    a = np.arange(5)
    array = pa.array(a)
    assert array.buffers()[1].address == a.ctypes.data  # pyarrow shares numpy's memory
    x = kd_ext.arrow.from_arrow(array)
    a[:] = -1
    assert x.to_py() == [0, 1, 2, 3, 4]


def test_arrow_import_does_not_share_writable_arrow_memory():
    array = pa.array([1, 2, 3])
    x = kd_ext.arrow.from_arrow(array)
    memoryview(array.buffers()[1]).cast("q")[0] = 99
    assert x.to_py() == [1, 2, 3] and array.to_pylist()[0] == 99


def test_arrow_import_keeps_immutable_buffers_in_place():
    frozen = np.arange(4, dtype=np.int64)
    frozen.flags.writeable = False
    array = pa.array(frozen)
    x = kd_ext.arrow.from_arrow(array)
    assert kd_ext.npkd.to_array(x).__array_interface__["data"][0] == frozen.ctypes.data


def test_numpy_import_copies():
    a = np.arange(5, dtype=np.int64)
    x = kd_ext.npkd.from_array(a)
    a[:] = -1
    assert x.to_py() == [0, 1, 2, 3, 4]
    view = kd_ext.npkd.to_array(x)
    with pytest.raises(ValueError):
        view[0] = 5  # plait's data is exported read-only


def test_arrow_import_does_not_share_slices_of_writable_buffers():
    # pyarrow marks a slice of a writable buffer immutable: a sliced string
    # array cast to large_string shares the validity bitmap that way, and
    # plait used it in place (found by the fuzzer).
    array = pa.array(["a", None, "c"] * 20)
    x = kd_ext.arrow.from_arrow(array.slice(16, 30))
    want = x.to_py()
    bitmap = memoryview(array.buffers()[0]).cast("B")
    for i in range(len(bitmap)):
        bitmap[i] = 0xFF ^ bitmap[i]
    assert x.to_py() == want
    # List offsets in a slice of a writable buffer are copied too.
    offsets = np.array([0, 1, 3, 6], dtype=np.int64)
    lists = pa.LargeListArray.from_buffers(pa.large_list(pa.int64()), 3, [None, pa.py_buffer(offsets).slice(0, 32)],
                                           children=[pa.array(range(6))])
    assert not lists.buffers()[1].is_mutable
    y = kd_ext.arrow.from_arrow(lists)
    offsets[1:] = [6, 6, 6]
    assert y.to_py() == [[0], [1, 2], [3, 4, 5]]
    # Offsets pyarrow allocated (writable through a memoryview) are copied
    # before they are checked, and the copy is what the shape keeps.
    made = pa.LargeListArray.from_arrays(pa.array([0, 1, 3, 6], pa.int64()), pa.array(range(6)))
    z = kd_ext.arrow.from_arrow(made)
    memoryview(made.buffers()[1]).cast("q")[1] = 5
    assert z.to_py() == [[0], [1, 2], [3, 4, 5]]


@pytest.mark.parametrize("n", [0, 1, 3, 2_000_000])
def test_arrow_copies_of_writable_numbers_are_aligned(n):
    # Writable buffers are copied (in parallel chunks past 4 MiB); an empty
    # copy must still be aligned for FLOAT32 (found by the fuzzer).
    values = np.arange(n, dtype=np.float32)
    array = pa.array(values)
    assert array.buffers()[1].is_mutable
    x = kd_ext.arrow.from_arrow(array)
    values[:1] = -1
    assert x.get_size().to_py() == n and (n == 0 or x.S[0].to_py() == 0.0)
    assert kd_ext.arrow.from_arrow(pa.LargeListArray.from_arrays(pa.array([0, n], pa.int64()), array)).get_size().to_py() == n


def test_arrow_list_offsets_are_validated():
    values = pa.array([1, 2, 3])
    for offsets in ([0, 5, 1], [0, 2, 1]):
        bad = pa.ListArray.from_buffers(pa.list_(pa.int64()), 2, [None, pa.py_buffer(np.array(offsets, dtype=np.int32))],
                                        children=[values])
        with pytest.raises(ValueError, match="kd_ext.arrow.from_arrow: list offsets"):
            kd_ext.arrow.from_arrow(bad)
    sliced = pa.array([[1, 2], [3], [4, 5]])[1:]
    assert kd_ext.arrow.from_arrow(sliced).to_py() == [[3], [4, 5]]


# --------------------------------------------------------------------- files


def test_load_refuses_devices_directories_and_fifos(tmp_path):
    for path in ["/dev/zero", str(tmp_path)]:
        assert_raises_isolated(f"result = kd.load({path!r})", "ValueError", "kd.load", "is not a regular file", timeout=60)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert_raises_isolated(f"result = kd.load({str(fifo)!r})", "ValueError", "is not a regular file", timeout=60)


def test_load_checks_the_header_against_the_file_size(tmp_path):
    path = tmp_path / "x.kd"
    kd.dump(kd.slice([1, 2]), path)
    assert kd.load(path).to_py() == [1, 2]
    data = bytearray(path.read_bytes())
    data[14:22] = (10**12).to_bytes(8, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="kd.load: .*the header declares a payload of 1000000000000 bytes"):
        kd.load(path)


def test_overlapping_columns_are_rejected():
    data = bytearray(kd.dumps(kd.slice([1, "a"]), compression=None))
    payload = data[22:-4]
    # The INT32 column's presence bitmap (after its values), then the
    # STRING column's (the last byte before the bag tag): both made 0b11.
    at = payload.index(b"\x01\x01\x08\x02")
    payload[at + 1] = 3
    payload[-2] = 3
    hostile = bytes(data[:22] + payload + zlib.crc32(bytes(payload)).to_bytes(4, "little"))
    with pytest.raises(ValueError, match="kd.loads: invalid data: columns overlap"):
        kd.loads(hostile)


def test_dim_sizes_and_mapping_of_huge_uniform_shapes_raise():
    with pytest.raises(ValueError, match="kd.shapes.dim_mapping: the result would have 1000000000000 items"):
        kd.shapes.dim_mapping(kd.shapes.new(10**12), 0)
    with pytest.raises(ValueError, match="kd.shapes.dim_sizes: the result would have 1000000000000 items"):
        kd.shapes.dim_sizes(kd.shapes.new(10**12, 1), 1)


def test_repr_of_data_shared_along_many_paths_is_bounded():
    # 2**30 paths: each entity or schema is expanded at most 10,000 times in
    # one text (then printed as its id), so any depth prints promptly.
    x = kd.new(v=1)
    s = kd.schema.new_schema(v=kd.INT32)
    for _ in range(30):
        x = kd.new(a=x, b=x)
        s = kd.schema.new_schema(a=s, b=s)
    for value in (x, s):
        text = kd.get_repr(value, depth=-1).to_py()
        assert text.count("=$") > 0 and len(text) < 10_000_000
