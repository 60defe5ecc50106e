"""Soundness of the type rules: random programs over the operators that have
rules, on random inputs. Where inference succeeds, evaluation gives a result
of the inferred schema and dimensions; where evaluation fails on a type
mismatch, inference has failed first; inference never refuses a program that
evaluates."""

import random

from plait import kd

T = kd.typing.SliceType
N_ROWS = 3

SCHEMAS = [kd.INT32, kd.INT64, kd.FLOAT32, kd.FLOAT64, kd.STRING, kd.BYTES, kd.MASK, kd.OBJECT, kd.NONE]


def _value(rng, schema, ragged):
    sizes = [rng.randint(0, 3) for _ in range(N_ROWS)] if ragged else None

    def item():
        if rng.random() < 0.2 or schema == kd.NONE:
            return None
        if schema == kd.STRING:
            return rng.choice(["a", "bc", ""])
        if schema == kd.BYTES:
            return rng.choice([b"a", b"bc", b""])
        if schema == kd.MASK:
            return kd.present
        return rng.randint(-5, 5) if schema in (kd.INT32, kd.INT64) else rng.uniform(-5, 5)

    if ragged:
        return kd.slice([[item() for _ in range(s)] for s in sizes], schema)
    return kd.slice([item() for _ in range(N_ROWS)], schema)


def _dict_values(x, y):
    return kd.dict(x, y).get_values()


def _explode_implode(x):
    return kd.explode(kd.implode(x))


UNARY = [kd.math.neg, kd.math.abs, kd.math.log, kd.math.floor, kd.math.is_nan, kd.has, kd.has_not, kd.agg_sum, kd.agg_max,
         kd.math.agg_mean, kd.agg_count, kd.math.cum_sum, kd.math.argmax, kd.agg_has, kd.strings.length, kd.strings.upper,
         kd.strings.strip, kd.strings.encode, kd.strings.decode, kd.strings.agg_join,
         lambda x: kd.strings.regex_match(x, "a"), lambda x: kd.strings.regex_replace_all(x, "a", "b"),
         kd.index, kd.slices.cum_count, kd.ordinal_rank, kd.dense_rank, kd.sort, kd.reverse, kd.size, kd.get_ndim, kd.is_empty,
         kd.slices.agg_size, kd.present_like, kd.slices.str, kd.schema.to_int64, kd.schema.to_object, kd.slices.float32,
         kd.unique, kd.implode, _explode_implode, kd.flatten, kd.collapse, kd.select_present, kd.group_by,
         lambda x: kd.zip(x, x), lambda x: kd.stack(x, x), lambda x: kd.repeat(x, 2), kd.bitwise.invert, kd.strings.split,
         lambda x: kd.strings.substr(x, 1), kd.strings.encode_base64, kd.math.sigmoid, lambda x: kd.take(x, 0)]
# Casts may fail on values (parsing text) or on pairs of schemas their rule
# does not list yet: a program using one only checks what inference says.
CASTS = {kd.schema.to_int64, kd.slices.float32}
EDGE_MAKERS = {kd.unique, kd.implode, _explode_implode, kd.flatten, kd.select_present, kd.group_by, kd.strings.split, kd.concat, _dict_values}
BINARY = [kd.math.add, kd.math.subtract, kd.math.multiply, kd.math.divide, kd.math.maximum, kd.less, kd.greater_equal,
          kd.equal, kd.apply_mask, kd.coalesce, kd.mask_and, kd.strings.contains, kd.strings.count,
          kd.expand_to, kd.val_like, lambda x, y: kd.cond(kd.has(x), x, y),
          kd.concat, kd.strings.join, kd.bitwise.bitwise_and, lambda x, y: kd.strings.find(x, y), kd.take,
          lambda x, y: kd.new(a=x, b=y).a, _dict_values]


def _program(rng, n_ops):
    steps = []
    for i in range(n_ops):
        if rng.random() < 0.5:
            steps.append((rng.choice(UNARY), (rng.randrange(2 + i),)))
        else:
            steps.append((rng.choice(BINARY), (rng.randrange(2 + i), rng.randrange(2 + i))))

    def upto(k):
        # Only the steps the result depends on run: a traced function is
        # its result's expression, and a step nothing uses is not in it.
        live = {k + 1}
        for i in range(k - 1, -1, -1):
            if i + 2 in live:
                live.update(steps[i][1])

        def f(a, b):
            pool = [a, b]
            for i, (op, args) in enumerate(steps[:k]):
                pool.append(op(*(pool[j] for j in args)) if i + 2 in live else None)
            return pool[-1]

        return f

    return upto(len(steps)), steps, upto


def _object_on_the_way(upto, n_steps, ta, tb):
    """Whether a value of the program before its last step is typed OBJECT
    or unknown (what an operator then does depends on the items)."""
    for k in range(1, n_steps):
        try:
            t = kd.typing.infer(upto(k), ta, tb)
        except ValueError:
            continue  # (a step the whole program does not use)
        if t.schema in ("OBJECT", "?"):
            return True
    return False


def _dims_match(inferred, actual):
    if inferred.dims is None:
        return True
    if len(inferred.dims) != len(actual.dims):
        return False
    for d, a in zip(inferred.dims, actual.dims):
        if d == kd.typing.size("n"):
            d = N_ROWS
        if isinstance(d, int) and d != a:
            return False
        if a == 0:
            # No rows below: any size holds.
            return True
    return True


def _shape_error(e):
    return "shapes are not compatible" in str(e) or "cannot be expanded" in str(e)


def _uses_ragged_input(steps):
    """Whether the program reads `a`, declared with a ragged dimension:
    whether its rows fit another slice's uniform ones is up to the data."""
    return any(0 in args for _, args in steps)


def _makes_edges(steps):
    """Whether the program makes a dimension of its own (a ragged edge or a
    size of what it kept): whether it matches another is known when the
    program runs (`kd.unique(x) + x` runs where every item is distinct)."""
    return any(op in EDGE_MAKERS for op, _ in steps)


def _run_programs(seed, count):
    """Runs `count` random programs from `seed`: (how many evaluated, with
    the inferred types; how many failed, and inference failed first)."""
    rng = random.Random(seed)
    checked = refused = 0
    for _ in range(count):
        sa, sb = rng.choice(SCHEMAS), rng.choice(SCHEMAS)
        a, b = _value(rng, sa, ragged=True), _value(rng, sb, ragged=False)
        ta, tb = T(sa, ("n", kd.typing.RAGGED)), T(sb, ("n",))
        f, steps, upto = _program(rng, rng.randint(1, 5))
        try:
            inferred = kd.typing.infer(f, ta, tb)
            inference_error = None
        except ValueError as e:
            inferred, inference_error = None, e
        try:
            result = f(a, b)
        except ValueError as e:
            # A failure on the items of an OBJECT slice (an input, or what
            # coalesce makes of two kinds of items) depends on the data
            # (types say only OBJECT); every other failure of these operators
            # on these inputs is a type mismatch, which inference must find.
            data_dependent = (kd.OBJECT in (sa, sb) or any(op in CASTS for op, _ in steps)
                              or _object_on_the_way(upto, len(steps), ta, tb)
                              or (_shape_error(e) and (_makes_edges(steps) or _uses_ragged_input(steps))))
            assert inference_error is not None or data_dependent, (steps, sa, sb, e)
            refused += inference_error is not None
            continue
        assert inference_error is None, (steps, sa, sb, inference_error)
        actual = kd.typing.type_of(result)
        if inferred.schema != "?":
            assert inferred.schema == actual.schema, (steps, sa, sb, inferred, actual)
        assert _dims_match(inferred, actual), (steps, sa, sb, inferred, actual)
        checked += 1
    return checked, refused


def test_1000_well_typed_and_1000_ill_typed_programs():
    checked = refused = 0
    for seed in range(45):
        c, r = _run_programs(seed, 80)
        checked, refused = checked + c, refused + r
    assert checked >= 1000 and refused >= 1000, (checked, refused)
