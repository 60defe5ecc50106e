"""Lists changed in place (`l[i] = v`, `l[a:b] = v`, append, `del`, pop) on
many lists at once. Lists made together are one column; a change to them
writes a new column, or, when nothing else holds the column (a later change
on the same bag), moves the items within it. Whatever the path, every value
written must be read back, and nothing that saw the lists before may see a
change: views taken by explode or NumPy, forks made before or after, frozen
copies, the bag the lists were forked from. A Python model of the lists is
the reference."""

import random

import numpy as np
import pytest

from plait import kd
from plait.kd_ext import npkd


def lists_of(rows, dtype=None):
    flat = [v for row in rows for v in row]
    items = kd.slice(flat) if dtype is None else kd.slice(flat, dtype)
    return kd.implode(kd.reshape(items, kd.shapes.new(len(rows), kd.slice([len(r) for r in rows]))))


def apply(model, what, arg):
    """One change, as Python lists take it (indices out of range ignored)."""
    for row in model:
        n = len(row)
        if what == "set":
            k, v = arg
            if -n <= k < n:
                row[k] = v
        elif what == "append":
            row.append(arg)
        elif what == "del":
            del row[arg[0]:arg[1]]
        elif what == "pop":
            if -n <= arg < n:
                row.pop(arg)
        else:
            (a, b), v = arg
            row[a:b] = [v] * len(range(*slice(a, b).indices(n)))


def change(lists, what, arg):
    if what == "set":
        lists[arg[0]] = arg[1]
    elif what == "append":
        lists.append(arg)
    elif what == "del":
        del lists[arg[0]:arg[1]]
    elif what == "pop":
        lists.pop(arg)
    else:
        (a, b), v = arg
        lists[a:b] = v


def random_change(rng):
    what = rng.choice(["set", "append", "del", "pop", "range"])
    bounds = (rng.choice([None, 0, 1, -2]), rng.choice([None, 1, 3, -1]))
    value = rng.randint(-50, 50)
    return what, {"set": (rng.choice([0, 1, -1, 4]), value), "append": value, "del": bounds, "pop": rng.choice([0, -1, 2]),
                  "range": (bounds, value)}[what]


@pytest.mark.parametrize("seed", range(40))
def test_changes_in_a_row_read_back_and_never_leak(seed):
    rng = random.Random(seed)
    rows = [[rng.randint(0, 99) for _ in range(rng.randint(0, 6))] for _ in range(rng.choice([3, 70, 300]))]
    original = lists_of(rows, kd.INT64 if seed % 2 else None)
    model = [list(r) for r in rows]
    lists = original.fork_bag()
    seen = []  # (what was read then, as read then): must not change
    for _ in range(8):
        what, arg = random_change(rng)
        change(lists, what, arg)
        apply(model, what, arg)
        assert lists[:].to_py() == model, (what, arg)
        roll = rng.random()
        if roll < 0.2:
            seen.append((lists[:], [list(r) for r in model]))
        elif roll < 0.35:
            seen.append((lists.fork_bag()[:], [list(r) for r in model]))
        elif roll < 0.45:
            seen.append((lists.freeze_bag()[:], [list(r) for r in model]))
        elif roll < 0.55:
            flat = kd.explode(lists).flatten()
            seen.append((npkd.to_array(flat) if flat.get_size().to_py() else flat, [v for r in model for v in r]))
    assert kd.list_size(lists).to_py() == [len(r) for r in model]
    for then, expected in seen:
        got = then.tolist() if isinstance(then, np.ndarray) else then.to_py()
        assert got == expected
    assert original[:].to_py() == rows


def test_a_fork_made_after_a_change_keeps_its_lists():
    lists = lists_of([[1, 2, 3], [4, 5]]).fork_bag()
    lists[0] = 10  # the column is now this bag's own
    fork = lists.fork_bag()
    lists[1] = 20
    lists.append(6)
    del lists[0:1]
    assert fork[:].to_py() == [[10, 2, 3], [10, 5]]
    assert lists[:].to_py() == [[20, 3, 6], [20, 6]]
    fork.append(7)
    assert fork[:].to_py() == [[10, 2, 3, 7], [10, 5, 7]]
    assert lists[:].to_py() == [[20, 3, 6], [20, 6]]


def test_a_numpy_buffer_under_the_lists_never_changes():
    array = np.arange(10, dtype=np.int64)
    lists = kd.implode(kd.reshape(npkd.from_array(array), kd.shapes.new(2, 5))).fork_bag()
    for _ in range(3):
        lists[1] = 99
        lists.append(5)
        del lists[0:1]
    assert array.tolist() == list(range(10))
    assert lists[:].to_py() == [[99, 4, 5, 5, 5], [99, 9, 5, 5, 5]]


def test_lists_of_entities_text_and_missing_items_change_in_place_too():
    people = kd.new(name=kd.slice(["a", "b", "c", "d"]))
    lists = kd.implode(kd.reshape(people, kd.shapes.new(2, 2))).fork_bag()
    lists[0] = lists[1]
    lists.append(lists[0])
    assert lists[:].name.to_py() == [["b", "b", "b"], ["d", "d", "d"]]
    text = lists_of([["x", None], ["y"]]).fork_bag()
    for _ in range(2):
        text[0] = "z"
        text.append(None)
        text[1:2] = "w"
    assert text[:].to_py() == [["z", "w", None, None], ["z", "w", None]]


def test_a_list_given_twice_is_changed_twice():
    lists = lists_of([[1, 2, 3], [4, 5]]).fork_bag()
    twice = lists.S[kd.slice([0, 1, 0])]
    twice.append(kd.slice([7, 8, 9]))
    assert lists[:].to_py() == [[1, 2, 3, 7, 9], [4, 5, 8]]
    assert twice.pop(0).to_py() == [1, 4, 2]
    assert lists[:].to_py() == [[3, 7, 9], [5, 8]]
    del twice[-1]
    assert lists[:].to_py() == [[3], [5]]
