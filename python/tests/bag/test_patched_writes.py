"""Single writes into mutable bags (issue 19): an attribute written item by
item is kept as a patch over the column that `kd.new` / `kd.obj` made until
there are many, and list appends go to a tail of chunks. Whatever the layout,
every value written must be read back: by whole reads, by selections and item
by item, after folds, forks (copy-on-write keeps both sides independent),
freezes and layers of updates. A Python model of the expected values is the
reference."""

import random

import pytest

from plait import kd

# More than the fold threshold (1024 patches), so that folds happen too.
N = 3000


def select_every(x, k, start=0):
    """The items of x at positions start, start + k, ... (a selection)."""
    return kd.select(x, kd.slice(list(range(x.get_size().to_py()))) % k == start)


def check(x, model):
    assert x.a.to_py() == model
    half = select_every(x, 2)
    assert half.a.to_py() == model[::2]
    assert select_every(x, 3, 1).a.to_py() == model[1::3]
    for i in (0, 1, 7, N // 2, N - 1):
        assert x.S[i].a.to_py() == model[i]


def test_reads_after_interleaved_single_writes_on_entities():
    rng = random.Random(1)
    x = kd.new(a=kd.slice(list(range(N)))).fork_bag()
    write_randomly(x, list(range(N)), 2500, 97, lambda step: rng.randrange(-1000, 1000), rng)


def test_objects_take_values_of_other_types_item_by_item():
    rng = random.Random(2)
    x = kd.obj(a=kd.slice([f"t{i}" for i in range(N)])).fork_bag()
    write_randomly(x, [f"t{i}" for i in range(N)], 1500, 211, lambda step: rng.choice([rng.randrange(100), f"w{step}", None, 2.5]), rng)


def write_randomly(x, model, steps, check_every, value_at, rng):
    """`steps` single writes of `value_at(step)` to `.a` of a random item of
    `x`, mirrored in `model`; every write is read back every `check_every`
    steps and at the end."""
    for step in range(steps):
        i = rng.randrange(N)
        value = value_at(step)
        x.S[i].a = value
        model[i] = value
        if step % check_every == 0:
            check(x, model)
    check(x, model)


def test_text_written_over_text_and_set_attr():
    x = kd.new(t=kd.slice([f"v{i}" for i in range(N)])).fork_bag()
    model = [f"v{i}" for i in range(N)]
    for i in range(0, N, 37):
        x.S[i].set_attr("t", f"new{i}")
        model[i] = f"new{i}"
    assert x.t.to_py() == model
    assert select_every(x, 2).t.to_py() == model[::2]


@pytest.mark.parametrize("writes_before", [5, 1500])
def test_fork_of_a_patched_bag_is_independent_on_both_sides(writes_before):
    x = kd.new(a=kd.slice(list(range(N)))).fork_bag()
    model = list(range(N))
    for k in range(writes_before):
        i = (k * 7919) % N
        x.S[i].a = -k
        model[i] = -k
    y = x.fork_bag()
    frozen = x.freeze_bag()
    ours, theirs = list(model), list(model)
    for k in range(300):
        i, j = (k * 104729) % N, (k * 15485863) % N
        x.S[i].a = 10_000 + k
        ours[i] = 10_000 + k
        y.S[j].a = 20_000 + k
        theirs[j] = 20_000 + k
    check(x, ours)
    check(y, theirs)
    check(frozen, model)


def test_freeze_then_keep_writing():
    x = kd.new(a=kd.slice(list(range(N)))).fork_bag()
    model = list(range(N))
    snapshots = []
    for round_ in range(4):
        for k in range(50):
            i = (k * 31 + round_) % N
            x.S[i].a = round_ * 100 + k
            model[i] = round_ * 100 + k
        snapshots.append((x.freeze_bag(), list(model)))
    for frozen, expected in snapshots:
        check(frozen, expected)
    check(x, model)


def test_layers_over_a_patched_bag_read_the_patches():
    x = kd.new(a=kd.slice(list(range(N)))).fork_bag()
    model = list(range(N))
    for i in range(0, N, 11):
        x.S[i].a = -i
        model[i] = -i
    frozen = x.freeze_bag()
    # A layer updating every fifth item, over the patched column.
    part = select_every(frozen, 5)
    layered = frozen.updated(kd.attrs(part, a=part.a * 0 + 7))
    expected = [7 if i % 5 == 0 else v for i, v in enumerate(model)]
    check(layered, expected)
    # A layer holding another attribute only: `a` still comes from below.
    over = frozen.with_attrs(b=1)
    check(over, model)


def test_appends_after_forks_and_freezes():
    lst = kd.list(list(range(N))).fork_bag()
    model = list(range(N))
    for k in range(200):
        lst.append(k)
        model.append(k)
    other = lst.fork_bag()
    frozen = lst.freeze_bag()
    frozen_model = list(model)
    other_model = list(model)
    for k in range(300):
        lst.append(1000 + k)
        model.append(1000 + k)
        other.append(-k)
        other_model.append(-k)
    assert lst[:].to_py() == model
    assert other[:].to_py() == other_model
    assert frozen[:].to_py() == frozen_model
    assert lst[N + 250].to_py() == 1050
    assert other[-1].to_py() == -299


def test_text_appends_and_single_items_read_back():
    lst = kd.list([f"t{i}" for i in range(100)]).fork_bag()
    model = [f"t{i}" for i in range(100)]
    for k in range(1000):
        lst.append(f"a{k}")
        model.append(f"a{k}")
        if k % 123 == 0:
            assert lst[:].to_py() == model
            assert lst[-1].to_py() == model[-1]
    assert lst[:].to_py() == model


def test_writes_match_koladata(koda):
    values = list(range(64))
    ours = kd.obj(a=kd.slice(values)).fork_bag()
    theirs = koda.obj(a=koda.slice(values)).fork_bag()
    for k, i in enumerate([3, 60, 3, 17, 0]):
        value = "x" if k % 2 else k
        ours.S[i].a = value
        theirs.S[i].a = value
    assert ours.a.to_py() == theirs.a.to_py()
    assert select_every(ours, 2).a.to_py() == theirs.a.to_py()[::2]


def test_single_writes_that_keep_cast_or_change_the_attribute_schema():
    # A value of the attribute's schema is written as it is; any other goes
    # through the checks (cast for entities, a new schema for objects).
    e = kd.new(a=kd.int64(1), b="x").fork_bag()
    e.a = 2
    assert (e.a.to_py(), e.a.get_schema()) == (2, kd.INT64)
    e.b = "y"
    assert (e.b.to_py(), e.get_schema().b) == ("y", kd.STRING)
    with pytest.raises(ValueError, match="schema for attribute 'b' is incompatible"):
        e.b = 3
    e.b = None
    assert e.b.to_py() is None and e.get_schema().b == kd.STRING
    o = kd.obj(a=1).fork_bag()
    o.a = 5
    o.a = "five"
    assert (o.a.to_py(), o.get_obj_schema().a) == ("five", kd.STRING)
    with pytest.raises(ValueError, match="'__schema__' cannot be set directly"):
        o.set_attr("__schema__", kd.INT32)
    # An object with an explicit schema keeps it.
    explicit = kd.obj(kd.new(a=1)).fork_bag()
    explicit.a = 7
    assert explicit.a.to_py() == 7
    with pytest.raises(ValueError):
        explicit.a = "seven"
    # Appends: an item of the list's item schema as it is, others cast.
    lst = kd.list([kd.int64(1)]).fork_bag()
    lst.append(2)
    lst.append(kd.int64(3))
    assert (lst[:].to_py(), lst[:].get_schema()) == ([1, 2, 3], kd.INT64)
    with pytest.raises(ValueError):
        lst.append("x")
    frozen = kd.list([1])
    with pytest.raises(ValueError, match="immutable"):
        frozen.append(2)
    with pytest.raises(ValueError, match="immutable"):
        kd.new(a=1).a = 2
