"""The cases of the hostile-input fuzzer (issue 19; see docs/limits.md).

A case is one integer seed: `run_case(seed)` picks a family from the seed and
draws everything else from `random.Random(seed)`, so a seed always replays
the same case. A case raises `Bug` when plait answered wrongly (a result that
differs from its input, an error where the limits promise a result, a result
where they promise an error) or raised an exception that is a bug by itself
(see `bug_in`). Any other `Exception` a hostile input gets is fine: the
fuzzer looks for crashes, hangs, panics and silent corruption, which the
harness (`fuzz_harness.py`) catches by running cases in worker processes.

Families:

- deep: nesting far past what a recursive walk survives (from_py / to_py,
  expressions, bag chains, list schemas, functor recursion, linked chains
  through deep_uuid / extract / clone / dumps).
- huge: sizes, counts and widths from the user that no machine could hold;
  they must be a ValueError (or MemoryError / OverflowError) raised before
  allocating.
- shared: numpy and arrow memory imported and then written by the user,
  arrays with offsets and strides, buffers with bad offsets.
- fork: os.fork() and multiprocessing after (and during) parallel work.
- ops: every public `kd` operator and DataSlice method called with random
  hostile arguments.
"""

import gc
import inspect
import math
import os
import random
import signal
import sys
import threading
import time

import numpy as np
import pyarrow as pa

from plait import kd, kd_ext

# ------------------------------------------------------------------ plumbing


class Bug(Exception):
    """plait answered wrongly: reported by the harness like a crash."""


def _stderr_note(text):
    print(text, file=sys.stderr)


# The worker replaces this with a writer to the harness, so that the last note
# before a crash tells what the case was doing.
note = _stderr_note


def set_note(writer):
    global note
    note = writer


def short(value, limit=120):
    try:
        text = repr(value)
    except Exception as e:  # a repr that fails is reported by the case itself
        text = f"<repr failed: {type(e).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def bug_in(error):
    """Why `error` (raised by plait) is a bug by itself, or None."""
    if not isinstance(error, Exception):
        # pyo3's PanicException derives from BaseException.
        return f"{type(error).__module__}.{type(error).__name__} is not an Exception"
    text = str(error)
    if isinstance(error, SystemError):
        return f"SystemError: {text[:300]}"
    if "internal error in plait" in text or "panicked" in text:
        return f"a Rust panic reached Python: {type(error).__name__}: {text[:300]}"
    return None


def attempt(what, fn, /, *args, **kwargs):
    """Calls fn; returns (result, None) or (None, exception). Raises Bug for
    exceptions that are bugs themselves."""
    note(what)
    try:
        return fn(*args, **kwargs), None
    except BaseException as e:  # noqa: BLE001 - classified just below
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        why = bug_in(e)
        if why:
            raise Bug(f"{what}: {why}") from e
        return None, e


def expect_error(what, fn, /, *args, kinds=(ValueError, MemoryError, OverflowError), words=(), **kwargs):
    result, error = attempt(what, fn, *args, **kwargs)
    if error is None:
        raise Bug(f"{what}: expected an error, got {short(result)}")
    if not isinstance(error, kinds):
        raise Bug(f"{what}: expected {'/'.join(k.__name__ for k in kinds)}, got {type(error).__name__}: {str(error)[:300]}")
    for word in words:
        if word not in str(error):
            raise Bug(f"{what}: the error does not say {word!r}: {str(error)[:300]}")
    return error


def expect_ok(what, fn, /, *args, **kwargs):
    result, error = attempt(what, fn, *args, **kwargs)
    if error is not None:
        raise Bug(f"{what}: unexpected {type(error).__name__}: {str(error)[:300]}")
    return result


def same(a, b):
    """Equality of converted values where NaN equals NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def check_same(what, got, want):
    if not same(got, want):
        raise Bug(f"{what}: got {short(got, 300)}, want {short(want, 300)}")


def log_int(rng, low, high):
    """An int in [low, high], spread evenly over orders of magnitude."""
    return min(high, max(low, int(math.exp(rng.uniform(math.log(max(low, 1)), math.log(high + 1))))))


# ------------------------------------------------------------------ deep


def nested(depth, kind):
    x = 1
    for i in range(depth):
        k = kind if kind != "mixed" else ("list", "dict")[i % 2]
        x = [x] if k == "list" else {"a": x}
    return x


def depth_of(x):
    n = 0
    while isinstance(x, (list, dict)):
        x = x[0] if isinstance(x, list) else x["a"]
        n += 1
    return n


def deep_from_py(rng):
    kind = rng.choice(["list", "dict", "mixed"])
    depth = rng.choice([rng.randint(1, 300), rng.randint(9990, 10010), log_int(rng, 1, 10500)])
    value = nested(depth, kind)
    if depth <= 10000:
        x = expect_ok(f"kd.from_py of {kind}s nested {depth} deep", kd.from_py, value)
        back = expect_ok("to_py(max_depth=-1)", x.to_py, max_depth=-1)
        if depth_of(back) != depth:
            raise Bug(f"from_py/to_py of {kind}s nested {depth} deep came back {depth_of(back)} deep")
        if rng.random() < 0.5:
            y = expect_ok("loads(dumps(...))", lambda: kd.loads(kd.dumps(x)))
            if expect_ok("deep_uuid", kd.deep_uuid, y) != kd.deep_uuid(x):
                raise Bug("deep_uuid changed through dumps/loads")
        else:
            attempt("repr", repr, x)
            attempt("extract", lambda: kd.extract(x).to_py(max_depth=-1))
    elif depth >= 10005:
        expect_error(f"kd.from_py of {kind}s nested {depth} deep", kd.from_py, value, words=("depth > 10000",))
    else:
        attempt(f"kd.from_py of {kind}s nested {depth} deep", kd.from_py, value)


def deep_self_reference(rng):
    depth = rng.randint(0, 50)
    inner = []
    value = nested(depth, "list")
    inner.append(value)
    inner.append(inner)  # a list that contains itself, under `depth` levels
    expect_error(f"kd.from_py of a self-containing list under {depth} levels", kd.from_py, [inner], words=("kd.from_py",))
    d = {}
    d["me"] = d
    expect_error("kd.from_py of a self-containing dict", kd.from_py, d, words=("kd.from_py",))


def deep_slice_rank(rng):
    depth = rng.choice([rng.randint(1, 256), rng.randint(257, 400), log_int(rng, 1, 5000)])
    value = nested(depth, "list")
    if depth <= 256:
        x = expect_ok(f"kd.slice of lists nested {depth} deep", kd.slice, value)
        if x.get_ndim() != depth:
            raise Bug(f"kd.slice of lists nested {depth} deep has {x.get_ndim()} dimensions")
        attempt("repr", repr, x)
        attempt("flatten(x, 1, 1)", kd.flatten, x, 1, 1)
    else:
        expect_error(f"kd.slice of lists nested {depth} deep", kd.slice, value, words=("256",))
    ones = tuple([1] * depth)
    if depth <= 256:
        expect_ok(f"kd.reshape to {depth} dimensions", kd.reshape, kd.slice([1]), ones)
    else:
        expect_error(f"kd.reshape to {depth} dimensions", kd.reshape, kd.slice([1]), ones, words=("256",))


def deep_expression(rng):
    n = log_int(rng, 1, 30000)
    e = kd.I.x
    total = 0
    for _ in range(n):
        k = rng.randint(-3, 3)
        if rng.random() < 0.5:
            e = e + k
            total += k
        else:
            e = e - k
            total -= k
    note(f"an expression of {n} additions")
    x = rng.randint(-100, 100)
    got = expect_ok("kd.eval", kd.eval, e, x=x)
    if got.to_py() != x + total:
        raise Bug(f"kd.eval of {n} additions gave {got.to_py()}, want {x + total}")
    step = rng.choice(["dumps", "repr", "hash", "sub", "leaves", "fn"])
    if step == "dumps":
        back = expect_ok("loads(dumps(expr))", lambda: kd.loads(kd.dumps(e)))
        if kd.eval(back, x=x).to_py() != x + total:
            raise Bug("a deep expression changed through dumps/loads")
    elif step == "repr":
        attempt("repr(expr)", repr, e)
    elif step == "hash":
        attempt("hash / equality", lambda: (hash(e), e.fingerprint if hasattr(e, "fingerprint") else None))
    elif step == "sub":
        attempt("kd.expr.sub_inputs", lambda: kd.eval(kd.expr.sub_inputs(e, x=kd.I.y), y=x))
    elif step == "leaves":
        attempt("kd.expr.get_input_names", kd.expr.get_input_names, e)
    else:
        f = expect_ok("kd.fn(expr)", kd.fn, e)
        if f(x=x).to_py() != x + total:
            raise Bug("a functor of a deep expression gave a different value")
    e = None  # dropped: a deep expression freed iteratively
    gc.collect()


def deep_bag_chain(rng):
    n = log_int(rng, 1, 3000)
    how = rng.choice(["updated", "enriched", "with_attrs", "fork"])
    x = kd.new(a=0, b=0)
    note(f"a chain of {n} bags ({how})")
    for i in range(1, n + 1):
        if how == "updated":
            x = x.updated(kd.attrs(x, a=i))
        elif how == "enriched":
            x = x.enriched(kd.attrs(x, b=i))
        elif how == "with_attrs":
            x = x.with_attrs(a=i)
        else:
            db = x.get_bag().fork(mutable=True)
            x = x.with_bag(db)
            x.a = i
            x = x.freeze_bag()
    want_a = n if how != "enriched" else 0
    want_b = 0
    check_same(f"x.a after a chain of {n} bags ({how})", expect_ok("x.a", lambda: x.a.to_py()), want_a)
    check_same("x.b", expect_ok("x.b", lambda: x.b.to_py()), want_b)
    step = rng.choice(["extract", "merge", "dumps", "clone"])
    if step == "extract":
        y = expect_ok("extract", kd.extract, x)
    elif step == "merge":
        y = expect_ok("with_merged_bag", x.with_merged_bag)
    elif step == "dumps":
        y = expect_ok("loads(dumps(...))", lambda: kd.loads(kd.dumps(x)))
    else:
        y = expect_ok("clone", kd.clone, x)
    check_same(f"x.a after {step}", y.a.to_py(), want_a)
    x = y = None
    gc.collect()


def deep_schema_chain(rng):
    n = log_int(rng, 1, 60000)
    kind = rng.choice(["list", "dict", "mixed"])
    s = kd.INT32
    note(f"{kind} schemas nested {n} deep")
    for i in range(n):
        k = kind if kind != "mixed" else ("list", "dict")[i % 2]
        s = kd.list_schema(s) if k == "list" else kd.dict_schema(kd.STRING, s)
    step = rng.choice(["dumps", "repr", "deep_uuid", "extract", "new"])
    if step == "dumps":
        back = expect_ok("loads(dumps(schema))", lambda: kd.loads(kd.dumps(s)))
        if expect_ok("deep_uuid", kd.deep_uuid, back) != kd.deep_uuid(s):
            raise Bug("a deep schema changed through dumps/loads")
    elif step == "repr":
        attempt("repr(schema)", repr, s)
    elif step == "deep_uuid":
        expect_ok("deep_uuid", kd.deep_uuid, s)
    elif step == "extract":
        expect_ok("extract", kd.extract, s)
    else:
        attempt("kd.new(schema=...)", kd.new, schema=s)
    s = None
    gc.collect()


def chain(n, cyclic):
    e = kd.new(a=kd.range(n + 1), schema="Node")
    succ = kd.range(1, n + 2) if not cyclic else kd.slice(list(range(1, n + 1)) + [0])
    e = e.with_attrs(p=kd.slices.at(e, succ))
    return e.S[0]


def deep_linked_chain(rng):
    n = log_int(rng, 1, 40000)
    cyclic = rng.random() < 0.3
    note(f"a {'cyclic ' if cyclic else ''}chain of {n} entities")
    x = expect_ok("building the chain", chain, n, cyclic)
    u = expect_ok("deep_uuid", kd.deep_uuid, x)
    step = rng.choice(["extract", "clone", "deep_clone", "shallow_clone", "dumps", "to_py", "obj"])
    if step == "extract":
        y = expect_ok("extract", kd.extract, x)
    elif step == "clone":
        y = expect_ok("clone", kd.clone, x)
    elif step == "deep_clone":
        y = expect_ok("deep_clone", kd.deep_clone, x)
    elif step == "shallow_clone":
        y = expect_ok("shallow_clone", kd.shallow_clone, x)
    elif step == "dumps":
        y = expect_ok("loads(dumps(...))", lambda: kd.loads(kd.dumps(x)))
    elif step == "obj":
        y = expect_ok("kd.obj(x)", kd.obj, x)
    else:
        if cyclic:
            expect_ok("to_py(max_depth=-1) of a cycle", x.to_py, max_depth=-1)
        elif n <= 20000:
            expect_ok("to_py(max_depth=-1)", x.to_py, max_depth=-1)
        y = x
    if step in ("extract", "dumps", "deep_clone", "clone", "obj") and n >= 2:
        # n + 1 entities; a cycle goes through all of them.
        check_same(f"{step}: .p.p.a", expect_ok(".p.p.a", lambda: y.p.p.a.to_py()), 2 % (n + 1))
    if step in ("extract", "dumps"):
        if expect_ok("deep_uuid", kd.deep_uuid, y) != u:
            raise Bug(f"deep_uuid of a chain of {n} changed through {step}")
    x = y = None
    gc.collect()


def deep_functor(rng):
    depth = rng.choice([rng.randint(1, 200), rng.randint(9990, 10010), log_int(rng, 1, 20000)])
    f = kd.fn(lambda n, me: kd.if_(n <= 0, lambda n, me: n, lambda n, me: kd.call(me, n - 1, me), n, me))
    note(f"a functor recursing {depth} deep through kd.if_")
    result, error = attempt(f"functor recursion {depth} deep", f, depth, f)
    if error is None:
        check_same("the recursion's result", result.to_py(), 0)
    elif not isinstance(error, (ValueError, RecursionError)):
        raise Bug(f"functor recursion {depth} deep raised {type(error).__name__}: {str(error)[:300]}")
    elif depth < 100:
        raise Bug(f"functor recursion only {depth} deep raised {type(error).__name__}: {str(error)[:300]}")
    if rng.random() < 0.3:
        g = kd.fn(lambda n, me: kd.call(me, n + 1, me))
        expect_error("a functor recursing forever", g, 0, g, kinds=(ValueError, RecursionError))


DEEP = [deep_from_py, deep_self_reference, deep_slice_rank, deep_expression, deep_bag_chain, deep_schema_chain, deep_linked_chain, deep_functor]


def family_deep(rng):
    rng.choice(DEEP)(rng)


# ------------------------------------------------------------------ huge


def huge_number(rng):
    return rng.choice([
        2**31, 2**32, 2**40, 10**12, 2**62, 2**63 - 1, 2**63, 2**64, 2**64 + 7, 10**30,
        log_int(rng, 2**34, 2**63 - 1),
    ])


def _shaped(op):
    return lambda n: op(kd.shapes.new(n))


HUGE = {
    # name: (call taking the huge number, whether a result is impossible)
    "strings.format width": (lambda n: kd.strings.format("{x:>" + str(n) + "}", x=1), True),
    "strings.format precision": (lambda n: kd.strings.format("{x:." + str(n) + "f}", x=1.5), True),
    "strings.format zero pad": (lambda n: kd.strings.format("{x:0" + str(n) + "d}", x=7), True),
    "strings.printf width": (lambda n: kd.strings.printf("%" + str(n) + "d", 1), True),
    "strings.printf precision": (lambda n: kd.strings.printf("%." + str(n) + "f", 1.0), True),
    "strings.printf star": (lambda n: kd.strings.printf("%*d", n, 5), True),
    "strings.printf star precision": (lambda n: kd.strings.printf("%.*e", n, 2.5), True),
    "strings.printf s": (lambda n: kd.strings.printf("%" + str(n) + "s", "a"), True),
    "shapes.new": (lambda n: kd.shapes.new(n), False),
    "shapes.new 2d": (lambda n: kd.shapes.new(n, n), False),
    "shapes.new split points": (lambda n: kd.shapes.new(2, [n, n]), False),
    "shapes.new slice": (lambda n: kd.shapes.new(kd.slice([n, n, n])), False),
    "present_shaped": (_shaped(kd.present_shaped), True),
    "empty_shaped": (_shaped(kd.empty_shaped), True),
    "val_shaped": (lambda n: kd.val_shaped(kd.shapes.new(n), 1), True),
    "new_shaped": (_shaped(kd.new_shaped), True),
    "obj_shaped": (_shaped(kd.obj_shaped), True),
    "list_shaped": (_shaped(kd.list_shaped), True),
    "dict_shaped": (_shaped(kd.dict_shaped), True),
    "new_itemid_shaped": (_shaped(kd.new_itemid_shaped), True),
    "new_listid_shaped": (_shaped(kd.new_listid_shaped), True),
    "new_dictid_shaped": (_shaped(kd.new_dictid_shaped), True),
    "tile": (lambda n: kd.tile(kd.slice([1, 2]), kd.shapes.new(n)), True),
    "expand_to_shape": (lambda n: kd.expand_to_shape(kd.item(1), kd.shapes.new(n)), True),
    "expand_to_shape 2d": (lambda n: kd.expand_to_shape(kd.slice([1, 2]), kd.shapes.new(2, n)), True),
    "range": (lambda n: kd.range(n), True),
    "range negative": (lambda n: kd.range(-n, n), True),
    "repeat": (lambda n: kd.repeat(kd.slice([1, 2]), n), True),
    "repeat slice": (lambda n: kd.repeat(kd.slice([1, 2]), kd.slice([n, n])), True),
    "repeat present": (lambda n: kd.repeat_present(kd.slice([1, 2]), n), True),
    "uuids_with_allocation_size": (lambda n: kd.uuids_with_allocation_size(seed="s", size=n), True),
    # Results of 10**10 bytes and more from inputs of at most a few MB (an
    # input of gigabytes is copied when boxed, which needs memory of its own).
    "strings.replace": (lambda n: kd.strings.replace(kd.item("a" * 10**5), "", "b" * min(n // 10**4, 10**6)), True),
    "strings.regex_replace_all empty": (lambda n: kd.strings.regex_replace_all(kd.item("a" * 10**5), "", "b" * min(n // 10**4, 10**6)), True),
    "strings.regex_replace_all group": (lambda n: kd.strings.regex_replace_all(kd.item("ab" * 10**5), "(a*)", r"\1" * min(n // 10**4, 10**6)), True),
    "strings.regex_replace_all many": (lambda n: kd.strings.regex_replace_all(kd.slice(["ab"] * 10**4), "", "c" * min(n // 10**4, 10**6)), True),
    "reshape": (lambda n: kd.reshape(kd.slice([1, 2]), (n, n)), True),
    "reshape_as": (lambda n: kd.reshape(kd.slice([1, 2]), kd.shapes.new(n)), True),
    "at": (lambda n: kd.slices.at(kd.slice([1, 2]), n), False),
    "subslice": (lambda n: kd.subslice(kd.slice([[1, 2], [3]]), slice(n, None)), False),
    "take": (lambda n: kd.take(kd.slice([1, 2]), kd.slice([n, -n])), False),
    "substr": (lambda n: kd.strings.substr(kd.slice(["abc"]), n, -n), False),
    "flatten": (lambda n: kd.flatten(kd.slice([[1]]), n, n), False),
    "agg ndim": (lambda n: kd.agg_sum(kd.slice([[1]]), ndim=n), False),
    "stack ndim": (lambda n: kd.stack(kd.slice([[1]]), ndim=n), False),
    "list get": (lambda n: kd.list([1, 2])[n], False),
    "item": (lambda n: kd.item(n), False),
    "int64": (lambda n: kd.int64(n), False),
    "math.pow": (lambda n: kd.math.pow(kd.item(2), n), False),
    "lists.shaped with items": (lambda n: kd.list_shaped(kd.shapes.new(n), [1, 2]), True),
    "strings.join many": (lambda n: kd.strings.join(*([kd.item("x" * 1000)] * min(n, 3))), False),
    "implode": (lambda n: kd.implode(kd.slice([[1]]), ndim=n), False),
    "explode": (lambda n: kd.explode(kd.list([[1]]), ndim=n), False),
}


def family_huge(rng):
    name = rng.choice(sorted(HUGE))
    call, impossible = HUGE[name]
    n = huge_number(rng)
    if rng.random() < 0.2:
        n = -n
    what = f"huge {name}({n})"
    # Python ints past INT64 wrap when boxed, as in Koda (kd.item(2**64) is 0).
    if impossible and 2**31 <= n < 2**63:
        expect_error(what, call, n)
    else:
        result, _ = attempt(what, call, n)
        if result is not None and name == "shapes.new" and kd.shapes.size(result) != n:
            raise Bug(f"{what}: a shape of size {kd.shapes.size(result)}")
    # Wide fields that fit alone but not together: the whole text is checked.
    if name.startswith("strings.") and rng.random() < 0.3:
        width = rng.choice([2**28, 2**29, 2**30])
        many = kd.slice(list(range(rng.randint(40, 100))))
        expect_error(f"kd.strings.format of {many.get_size()} fields {width} wide", kd.strings.format, "{x:>" + str(width) + "}", x=many)


# ------------------------------------------------------------------ shared memory

NUMPY_TYPES = [np.int32, np.int64, np.float32, np.float64, np.bool_, np.uint8, np.int8, np.int16, np.uint32]


def random_numpy(rng):
    dtype = rng.choice(NUMPY_TYPES)
    size = rng.choice([0, 1, rng.randint(2, 50), rng.randint(50, 5000)])
    r = np.random.default_rng(rng.randrange(2**32))
    if dtype == np.bool_:
        base = r.random(size) < 0.5
    elif np.issubdtype(dtype, np.floating):
        base = r.normal(size=size).astype(dtype)
        if size and rng.random() < 0.5:
            base[r.integers(0, size, size=max(1, size // 5))] = np.nan
    else:
        info = np.iinfo(dtype)
        base = r.integers(info.min, info.max, size=size, dtype=dtype, endpoint=True)
    return base


def numpy_view(rng, base):
    kind = rng.choice(["whole", "step", "reverse", "offset", "2d", "fortran", "readonly_view"])
    n = len(base)
    if kind == "step" and n:
        return base[rng.randint(0, n - 1)::rng.randint(1, 7)], kind
    if kind == "reverse":
        return base[::-rng.randint(1, 3)], kind
    if kind == "offset" and n:
        a = rng.randint(0, n)
        return base[a:rng.randint(a, n)], kind
    if kind == "2d" and n >= 4:
        rows = rng.choice([d for d in range(1, n + 1) if n % d == 0])
        return base.reshape(rows, n // rows).T, kind
    if kind == "fortran" and n >= 4:
        return np.asfortranarray(base[: n - n % 2].reshape(2, -1)), kind
    if kind == "readonly_view":
        v = base[:]
        v.flags.writeable = False
        return v, kind
    return base, "whole"


def mutate(rng, array):
    if array.size == 0:
        return
    if array.dtype == np.bool_:
        array[...] = ~array
    else:
        array[...] = array[::-1] if array.ndim == 1 else 0
        flat = array.reshape(-1) if array.flags.c_contiguous else None
        if flat is not None:
            flat[rng.randrange(flat.size)] = 1


def shared_numpy(rng):
    base = random_numpy(rng)
    view, kind = numpy_view(rng, base)
    note(f"npkd.from_array of a {kind} {view.dtype} view of shape {view.shape}")
    want = expect_ok("from_array(copy)", lambda: kd_ext.npkd.from_array(np.array(view, copy=True)).to_py())
    x = expect_ok(f"from_array({kind} view)", kd_ext.npkd.from_array, view)
    check_same("from_array of a view", x.to_py(), want)
    mutate(rng, base)
    check_same("from_array after the numpy array was written", x.to_py(), want)
    copy = expect_ok("npkd.to_array", kd_ext.npkd.to_array, x)
    if copy.size and copy.flags.writeable:  # a copy (booleans are repacked): writing it leaves x alone
        mutate(rng, copy)
        check_same("x after to_array's copy was written", x.to_py(), want)
    out = kd_ext.npkd.to_array(x)
    del x
    gc.collect()
    if np.asarray(out).size:
        check_same("to_array after the slice was dropped", kd_ext.npkd.from_array(np.array(out)).to_py(), want)


ARROW_MAKERS = ["numpy", "ints", "floats", "strings", "large_strings", "bools", "lists", "binary"]


def random_arrow(rng):
    kind = rng.choice(ARROW_MAKERS)
    n = rng.choice([0, 1, rng.randint(2, 40), rng.randint(40, 3000)])
    mask = [rng.random() < 0.2 for _ in range(n)]

    def maybe(values):
        return [None if m else v for v, m in zip(values, mask)]

    if kind == "numpy":
        base = random_numpy(rng)
        while base.dtype == np.bool_:
            base = random_numpy(rng)
        return pa.array(base), base, kind
    if kind == "ints":
        return pa.array(maybe([rng.randint(-(2**63), 2**63 - 1) for _ in range(n)]), type=pa.int64()), None, kind
    if kind == "floats":
        return pa.array(maybe([rng.choice([rng.random(), float("nan"), float("inf"), -0.0]) for _ in range(n)]), type=pa.float64()), None, kind
    if kind in ("strings", "large_strings"):
        words = maybe(["".join(rng.choice("abcé☃") for _ in range(rng.randint(0, 6))) for _ in range(n)])
        return pa.array(words, type=pa.string() if kind == "strings" else pa.large_string()), None, kind
    if kind == "binary":
        return pa.array(maybe([bytes(rng.randrange(256) for _ in range(rng.randint(0, 5))) for _ in range(n)]), type=pa.binary()), None, kind
    if kind == "bools":
        return pa.array(maybe([rng.random() < 0.5 for _ in range(n)]), type=pa.bool_()), None, kind
    # Missing items inside the lists; a missing list cannot be a dimension
    # (from_arrow refuses it, see its docstring).
    lists = [[None if rng.random() < 0.2 else rng.randint(-5, 5) for _ in range(rng.randint(0, 4))] for _ in range(n)]
    return pa.array(lists, type=pa.list_(pa.int64())), None, kind


def write_through(rng, array, base):
    """Writes into every mutable buffer the array (and its numpy base) uses."""
    if base is not None and base.size:
        mutate(rng, base)
    for buf in array.buffers():
        if buf is not None and buf.is_mutable and buf.size:
            view = memoryview(buf).cast("B")
            for i in range(0, buf.size, max(1, buf.size // 7)):
                view[i] = (view[i] + 1 + rng.randrange(255)) % 256
            del view
    for child in ([array.values] if pa.types.is_list(array.type) else []):
        write_through(rng, child, None)


def shared_arrow(rng):
    array, base, kind = random_arrow(rng)
    if len(array) and rng.random() < 0.6:
        a = rng.randint(0, len(array))
        array = array.slice(a, rng.randint(0, len(array) - a))
    note(f"arrow.from_arrow of {kind}, offset {array.offset}, length {len(array)}")
    want = array.to_pylist()
    x = expect_ok(f"from_arrow({kind})", kd_ext.arrow.from_arrow, array)
    got = x.to_py()
    if kind != "binary":
        check_same(f"from_arrow of {kind} with offset {array.offset}", got, want)
    write_through(rng, array, base)
    check_same("from_arrow after its buffers were written", x.to_py(), got)
    back = expect_ok("to_arrow", kd_ext.arrow.to_arrow, x)
    check_same("to_arrow of from_arrow", kd_ext.arrow.from_arrow(back).to_py(), got)
    # A second export, never written, outlives the slice below.
    kept = kd_ext.arrow.to_arrow(x)
    exported = kept.to_pylist()
    # Only buffers that are copies can be written (garbage offsets there
    # break `back` itself, not the slice).
    write_through(rng, back, None)
    check_same("x after to_arrow's writable buffers were written", x.to_py(), got)
    del x, back
    gc.collect()
    kd.slice(list(range(len(exported))))  # reuse freed memory, if any was freed too early
    check_same("to_arrow after the slice was dropped", kept.to_pylist(), exported)


def shared_bad_buffers(rng):
    kind = rng.choice(["string", "list", "validity", "short"])
    n = rng.randint(1, 20)
    words = ["".join(rng.choice("abc") for _ in range(rng.randint(0, 4))) for _ in range(n)]
    if kind in ("string", "validity", "short"):
        good = pa.array(words, type=pa.string())
        validity, offsets_buf, data = good.buffers()
    else:
        good = pa.array([[rng.randint(0, 9)] * rng.randint(0, 3) for _ in range(n)], type=pa.list_(pa.int64()))
        validity, offsets_buf = good.buffers()[:2]
    offsets = np.frombuffer(offsets_buf, dtype=np.int32).copy()
    length, offset = n, 0
    if kind in ("string", "list"):
        i = rng.randrange(len(offsets))
        offsets[i] = rng.choice([-1, -(2**31), 2**31 - 1, offsets[-1] + rng.randint(1, 50), rng.randint(0, max(1, offsets[-1]))])
    elif kind == "validity":
        validity = pa.py_buffer(b"\xff" * rng.randint(0, (n + 7) // 8 - 1)) if n > 8 else pa.py_buffer(b"")
    else:
        length = n + rng.randint(1, 100)
        offset = rng.choice([0, rng.randint(0, 2**40)])
    offsets_buf = pa.py_buffer(offsets.tobytes())
    note(f"arrow.from_arrow of a {kind} array with bad buffers: offsets {short(offsets.tolist(), 80)}, length {length}, offset {offset}")
    try:
        if kind == "list":
            bad = pa.ListArray.from_buffers(pa.list_(pa.int64()), length, [validity, offsets_buf], offset=offset, children=[good.values])
        else:
            bad = pa.Array.from_buffers(pa.string(), length, [validity, offsets_buf, data], offset=offset)
    except Exception:
        return  # pyarrow itself refused
    try:
        bad.validate(full=True)
        valid = True
    except Exception:
        valid = False
    x, error = attempt("from_arrow of the damaged array", kd_ext.arrow.from_arrow, bad)
    if valid and error is None:
        check_same("from_arrow of a valid array", x.to_py(), bad.to_pylist())
    elif not valid and error is None:
        raise Bug(f"from_arrow accepted an invalid {kind} array: {short(x)}")


def shared_export_lifetime(rng):
    n = rng.randint(0, 3000)
    values = [rng.randint(-1000, 1000) for _ in range(n)]
    x = kd.slice(values, schema=rng.choice([kd.INT32, kd.INT64, kd.FLOAT64]))
    want = x.to_py()
    arr = kd_ext.npkd.to_array(x)
    arrow = kd_ext.arrow.to_arrow(x)
    del x
    gc.collect()
    kd.slice(list(range(n)))  # reuse freed memory, if any was freed too early
    check_same("to_array after the slice was dropped", [v.item() for v in arr], want)
    check_same("to_arrow after the slice was dropped", arrow.to_pylist(), want)
    if n:
        expect_error("writing to to_array's view", arr.__setitem__, 0, 5, kinds=(ValueError,))


SHARED = [shared_numpy, shared_arrow, shared_bad_buffers, shared_export_lifetime]


def family_shared(rng):
    rng.choice(SHARED)(rng)


# ------------------------------------------------------------------ fork


def fork_workload(rng, n):
    """Operations spread over worker threads, and their results."""
    x = kd.slice(list(range(n)), schema=kd.INT64)
    words = kd.slice([f"w{i % 97}" for i in range(n)])
    steps = {
        "agg_sum": lambda: kd.agg_sum(x * 2).to_py(),
        "upper": lambda: kd.agg_count(kd.strings.upper(words)).to_py(),
        "sort": lambda: kd.sort(x * -1).S[0].to_py(),
        "regex": lambda: kd.agg_count(kd.strings.regex_match(words, "w1")).to_py(),
        "dict": lambda: kd.agg_sum(kd.dict(x, x * 2)[x]).to_py(),
        "format": lambda: kd.agg_count(kd.strings.format("{v}!", v=x)).to_py(),
        "uuid": lambda: kd.agg_count(kd.uuid(a=x)).to_py(),
        "new": lambda: kd.agg_sum(kd.new(a=x).a).to_py(),
    }
    names = rng.sample(sorted(steps), rng.randint(1, 4))
    return {k: steps[k] for k in names}


def wait_child(pid, what, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            if code != 0:
                raise Bug(f"{what}: the forked child exited with {code} ({'signal ' + signal.Signals(-code).name if code < 0 else 'wrong results' if code == 3 else 'an exception'})")
            return
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise Bug(f"{what}: the forked child hung for {timeout:.0f} s")


def run_in_child(steps, want, nested_fork):
    try:
        for name, step in steps.items():
            if step() != want[name]:
                os.write(2, f"child: {name} gave a different result\n".encode())
                os._exit(3)
        if nested_fork:
            pid = os.fork()
            if pid == 0:
                run_in_child(steps, want, False)
            wait_child(pid, "a nested fork")
        os._exit(0)
    except BaseException as e:  # noqa: BLE001 - reported through the exit code
        os.write(2, f"child: {type(e).__name__}: {e}\n".encode())
        os._exit(4)


def fork_after_parallel(rng):
    n = rng.choice([10, 1000, 200_000, 400_000])
    steps = fork_workload(rng, n)
    want = {name: step() for name, step in steps.items()}
    busy = rng.random() < 0.4
    nested_fork = rng.random() < 0.2
    note(f"fork after {sorted(steps)} over {n} items{' while a thread runs them' if busy else ''}{', nested fork' if nested_fork else ''}")
    stop = threading.Event()
    thread = None
    if busy:
        def spin():
            while not stop.is_set():
                for step in steps.values():
                    step()
        thread = threading.Thread(target=spin, daemon=True)
        thread.start()
        time.sleep(rng.random() * 0.05)
    try:
        pid = os.fork()
        if pid == 0:
            run_in_child(steps, want, nested_fork)
        wait_child(pid, f"fork after {sorted(steps)}")
    finally:
        stop.set()
        if thread is not None:
            thread.join()
    for name, step in steps.items():
        check_same(f"the parent's {name} after fork", step(), want[name])


def _pool_work(n):
    x = kd.slice(list(range(n)), schema=kd.INT64)
    return kd.agg_sum(x * 2).to_py(), kd.agg_sum(kd.dict(x, x * 2)[x]).to_py()


def fork_pool(rng):
    import multiprocessing as mp

    sizes = [rng.choice([10, 1000, 150_000, 300_000]) for _ in range(rng.randint(1, 4))]
    _pool_work(max(sizes))  # the parent's workers exist when the pool forks
    note(f"multiprocessing fork pool over {sizes}")
    with mp.get_context("fork").Pool(rng.randint(1, 2)) as pool:
        got = pool.map_async(_pool_work, sizes).get(timeout=60)
    check_same("the pool's results", got, [(n * (n - 1), n * (n - 1)) for n in sizes])


FORK = [fork_after_parallel, fork_pool]


def family_fork(rng):
    rng.choice(FORK)(rng)


# ------------------------------------------------------------------ random operator calls

# Operators that touch files, sleep, print or run the arguments as code.
SKIP = {
    "dump", "load", "dumps", "loads", "vis", "progress", "py_fn", "apply_py", "map_py", "map_py_on_cond", "map_py_on_selected",
    "trace_py_fn", "trace_as_fn", "with_print", "check_inputs", "check_output", "html", "set_trace", "sleep", "breakpoint",
    "eager", "optools", "iterables", "for_", "while_", "map", "if_", "register_py_fn", "lazy", "persistence",
}


def operators():
    """(qualified name, callable) of every public kd function."""
    found = {}
    for name in dir(kd):
        if name.startswith("_") or name in SKIP:
            continue
        value = getattr(kd, name)
        if inspect.ismodule(value) and value.__name__.startswith("plait."):
            for sub in dir(value):
                if sub.startswith("_") or sub in SKIP:
                    continue
                f = getattr(value, sub)
                if callable(f) and not inspect.isclass(f) and not inspect.ismodule(f):
                    found.setdefault(f"kd.{name}.{sub}", f)
        elif callable(value) and not inspect.isclass(value):
            found.setdefault(f"kd.{name}", value)
    return sorted(found.items())


def hostile_values(rng):
    """A fresh pool of hostile arguments."""
    db = kd.mutable_bag()
    e = db.new(a=1, b="x")
    o = db.obj(a=kd.slice([1, None, 3]))
    values = [
        None, True, False, 0, -1, 1, 2, 7, 2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63), 2**63, 2**64, 10**30,
        0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 1e308,
        "", "a", "abc", "\x00", "é☃😀", "a" * 1000, "{x}", "%d", "(", "[", "\\1", "*",
        b"", b"\xff\xfe", b"abc",
        [], [[]], [1, None], [1, "a", None, 2.5], [[1, 2], [3]], {}, {"a": 1}, {1: "x", None: 2}, (), (1, 2),
        slice(None), slice(2**63, None), Ellipsis, lambda *a, **k: 1,
        kd.item(None), kd.item(1), kd.item("a"), kd.item(b"b"), kd.item(2.5), kd.item(True), kd.present, kd.missing,
        kd.item(2**62, kd.INT64), kd.item(float("nan")), kd.item(-1),
        kd.slice([]), kd.slice([None, None]), kd.slice([1, 2, 3]), kd.slice([[1, 2], [3]]), kd.slice([[]]),
        kd.slice([1, "a", None, 2.5, b"x", kd.present]), kd.slice([[1, None], [], [None]]), kd.slice([True, False]),
        kd.slice(["a", "bc", None]), kd.slice([1.5, float("nan")]), kd.slice([2**62, -(2**62)], kd.INT64),
        kd.slice([1, 2], kd.OBJECT), kd.slice([None], kd.OBJECT), kd.slice([], kd.OBJECT), kd.slice([kd.present, None]),
        e, o, kd.new(a=kd.slice([1, 2])), kd.obj(x=1), kd.list([1, 2, 3]), kd.list([]), kd.dict({"a": 1}), kd.dict(),
        kd.list([[1], [2, 3]]), kd.slice([kd.list([1]), kd.list([2, 3])]), kd.new(), kd.uuid(a=1), kd.new_itemid(),
        kd.INT32, kd.INT64, kd.FLOAT32, kd.STRING, kd.BYTES, kd.OBJECT, kd.MASK, kd.BOOLEAN, kd.NONE, kd.ITEMID, kd.SCHEMA,
        kd.list_schema(kd.INT32), kd.dict_schema(kd.STRING, kd.OBJECT), kd.named_schema("S"), kd.named_schema("T", a=kd.INT32),
        kd.shapes.new(), kd.shapes.new(3), kd.shapes.new(2, [1, 2]), kd.shapes.new(0),
        kd.mutable_bag(), kd.bag(), db,
        kd.I.x, kd.I.x + 1, kd.V.v, kd.S, kd.fn(lambda x: x + 1), kd.fn(kd.I.self),
    ]
    return values


def random_args(rng, pool, names):
    args = [rng.choice(pool) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4]))]
    kwargs = {}
    if names and rng.random() < 0.4:
        for name in rng.sample(names, min(len(names), rng.randint(1, 2))):
            kwargs[name] = rng.choice(pool)
    return args, kwargs


def keyword_names(f):
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return []
    return [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def poke(rng, result, what):
    """Uses a result a little: its repr, a conversion and sometimes a round trip."""
    if isinstance(result, (kd.types.DataSlice, kd.types.DataBag)) or type(result).__name__ in ("DataItem", "JaggedShape", "Expr"):
        attempt(f"repr of {what}", repr, result)
        if isinstance(result, kd.types.DataSlice):
            attempt(f"to_py of {what}", result.to_py)
            if rng.random() < 0.3:
                attempt(f"dumps/loads of {what}", lambda: kd.loads(kd.dumps(result)))
            if rng.random() < 0.3:
                attempt(f"extract of {what}", kd.extract, result)


_OPERATORS = None


def family_ops(rng):
    global _OPERATORS
    if _OPERATORS is None:
        _OPERATORS = operators()
    pool = hostile_values(rng)
    for _ in range(rng.randint(5, 25)):
        if rng.random() < 0.8:
            name, f = rng.choice(_OPERATORS)
        else:
            target = rng.choice([v for v in pool if isinstance(v, kd.types.DataSlice)])
            m = rng.choice([m for m in dir(target) if not m.startswith("_") and m not in SKIP])
            name = f"{short(target, 40)}.{m}"
            f, error = attempt(f"getattr {name}", getattr, target, m)
            if error is not None or not callable(f):
                continue
        args, kwargs = random_args(rng, pool, keyword_names(f))
        what = f"{name}({', '.join([short(a, 40) for a in args] + [f'{k}={short(v, 40)}' for k, v in kwargs.items()])})"
        result, _ = attempt(what, f, *args, **kwargs)
        if result is not None:
            poke(rng, result, what)
            if isinstance(result, kd.types.DataSlice) and rng.random() < 0.3:
                pool.append(result)


# ------------------------------------------------------------------ cases

FAMILIES = {
    "deep": family_deep,
    "huge": family_huge,
    "shared": family_shared,
    "fork": family_fork,
    "ops": family_ops,
}
# Draws per family among every len(WHEEL) seeds: operator calls are the widest.
WHEEL = ["deep", "huge", "shared", "ops", "deep", "huge", "shared", "ops", "fork", "ops"]


class _NotAnException(BaseException):
    """What pyo3's PanicException looks like to Python."""


# Cases that fail on purpose, to test the harness (test_fuzz.py); only run
# when asked for by name.
SELF_TESTS = {
    "_abort": lambda rng: os.abort(),
    "_hang": lambda rng: time.sleep(3600),
    "_wrong": lambda rng: check_same("a wrong answer", 1, 2),
    "_panic": lambda rng: attempt("a panic", lambda: (_ for _ in ()).throw(_NotAnException("panicked"))),
    "_fine": lambda rng: attempt("a clean error", kd.slice, object()),
}


def family_of(seed, families=None):
    names = families or WHEEL
    return names[seed % len(names)]


def run_case(seed, families=None):
    """Runs the case of `seed` (drawn from `families`, all by default);
    raises Bug on a wrong answer."""
    family = family_of(seed, families)
    rng = random.Random(seed)
    note(f"case {seed}: {family}")
    (FAMILIES.get(family) or SELF_TESTS[family])(rng)
    return family
