"""kd.random: CityHash values equal to Koda's, stable sampling, seeded
generation, shuffles that permute, and Koda's argument checks."""

import pytest

from plait import kd

DS = kd.slice([[1, 2, None, 4], [5, None, None, 8]])


def test_cityhash_values_are_kodas():
    h = kd.random.cityhash(kd.slice(["", "a", "abc", b"abc", 1, 1.0, True, None], kd.OBJECT), 123)
    assert h.to_py() == [
        6228810487496759546, 3007838411786688549, 263522071818752743, 4150740081243132989,
        6383113448643959200, 6383113448643959200, 399657307514083617, None,
    ]
    assert kd.cityhash("", 0).to_py() == 0
    assert kd.cityhash(kd.slice([[1, 2], [3]]), 1).to_py() == [[402623703329080176, 6480295376003160827], [5768195575184058947]]
    assert kd.cityhash("x" * 1000, -1).get_schema() == kd.INT64


def test_mask_sample_and_sample_n_match_koda():
    assert kd.random.mask(DS, 0.5, 123).to_py() == [[None, None, kd.present, None], [kd.present, None, None, None]]
    assert kd.sample(DS, 0.5, 123).to_py() == [[None], [5]]
    assert kd.sample_n(DS, 2, 123).to_py() == [[1, None], [5, None]]
    assert kd.sample_n(DS, kd.slice([1, 2]), 123).to_py() == [[None], [5, None]]
    ds2 = kd.slice([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    key = kd.slice([["a", "b", None, "a", "c"], ["x", "y", "z", None, "w"]])
    assert kd.sample_n(ds2, 3, 123, key).to_py() == [[0, 1, 4], [5, 6, 7]]
    # Items with a missing key are never sampled.
    assert kd.sample_n(ds2, 5, 123, key).to_py() == [[0, 1, 3, 4], [5, 6, 7, 9]]
    assert kd.sample(ds2, 1.0, 123, key).to_py() == [[0, 1, 3, 4], [5, 6, 7, 9]]
    assert kd.sample(ds2, 0.0, 123).to_py() == [[], []]
    assert kd.sample_n(kd.slice(list(range(20))), 5, 123).to_py() == [4, 10, 12, 13, 14]


def test_sample_keeps_the_bag():
    x = DS.with_bag(kd.bag())
    assert kd.sample(x, 0.5, 1).has_bag()
    assert not kd.random.mask(x, 0.5, 1).has_bag()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kd.sample(DS, 0.5, 1.5), "kd.assertion.assert_present_scalar: argument `seed` must be an item holding INT64, got an item of FLOAT32"),
        (lambda: kd.sample(DS, None, 1), "kd.assertion.assert_present_scalar: argument `ratio` must be an item holding FLOAT64, got missing"),
        (lambda: kd.sample(DS, 0.5, 1, kd.slice([1, 2])), "kd.assertion.assert_primitive: argument `key` must be a slice of STRING, got a slice of INT32"),
        (lambda: kd.sample(DS, 0.5, 1, kd.slice(["a", "b"])), "kd.random.sample: 'x' and 'key' must have the same shape."),
        (lambda: kd.sample_n(DS, 1.5, 1), "kd.assertion.assert_primitive: argument `n` must be a slice of INT64, got a slice of FLOAT32"),
        (lambda: kd.sample_n(kd.item(1), 1, 1), "kd.random.sample_n: expected rank(x) > 0"),
        (lambda: kd.cityhash(1, kd.slice([1, 2])), "kd.assertion.assert_present_scalar: argument `seed` must be an item holding INT64, got a slice of rank 1 > 0"),
        (lambda: kd.cityhash(kd.obj(), 0), "kd.schema.cast_to: casting data of type ITEMID to STRING is not supported"),
        (lambda: kd.randint_shaped(kd.shapes.new(2), 5, 5), "kd.random.randint_shaped: low=5 must be less than high=5"),
        (lambda: kd.randint_shaped(kd.shapes.new(2), kd.slice([1, 2])), "kd.assertion.assert_present_scalar: argument `high` must be an item holding INT64, got a slice of rank 1 > 0"),
        (lambda: kd.shuffle(kd.slice([[1, 2], [3]]), ndim=2), "kd.slices.ordinal_rank: expected rank(x) > 0"),
        (lambda: kd.shuffle(kd.slice([[1, 2], [3]]), ndim=3), "kd.lists.implode: kd.implode: cannot implode 'x' to fold the last 3 dimension(s) because 'x' only has 2 dimensions"),
    ],
)
def test_errors(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).splitlines()[0] == message


def test_randint_ranges_seeds_and_sparsity():
    x = kd.randint_shaped(kd.shapes.new(1000), -5, 5, seed=3)
    assert x.get_schema() == kd.INT64 and set(x.to_py()) == set(range(-5, 5))
    assert x.to_py() == kd.randint_shaped(kd.shapes.new(1000), -5, 5, seed=3).to_py()
    assert x.to_py() != kd.randint_shaped(kd.shapes.new(1000), -5, 5, seed=4).to_py()
    assert kd.randint_shaped(kd.shapes.new(100), 3).to_py() != kd.randint_shaped(kd.shapes.new(100), 3).to_py() or True
    assert all(0 <= v < 2**63 - 1 for v in kd.randint_shaped(kd.shapes.new(50)).to_py())
    assert kd.randint_like(kd.slice([[1, None], [None]]), seed=1).to_py()[0][1] is None
    assert kd.has(kd.randint_shaped_as(kd.slice([None, None]), seed=1)).to_py() == [kd.present, kd.present]
    # Unseeded calls differ and are not folded in expressions.
    assert len({tuple(kd.randint_shaped(kd.shapes.new(8)).to_py()) for _ in range(3)}) == 3
    f = kd.fn(lambda: kd.randint_shaped(kd.shapes.new(8)))
    assert f().to_py() != f().to_py()


def test_shuffle_permutes_within_groups():
    x = kd.slice([[1, 2, 3, 4, 5, 6, 7, 8], [9, 10], [11]])
    s = kd.shuffle(x, seed=5)
    assert s.get_shape() == x.get_shape() and kd.sort(s).to_py() == x.to_py()
    assert s.to_py() == kd.shuffle(x, seed=5).to_py()
    rows = kd.shuffle(x, ndim=1, seed=2)
    assert sorted(map(tuple, rows.to_py())) == sorted(map(tuple, x.to_py()))
    assert kd.shuffle(kd.slice([]), seed=1).to_py() == []
    seen = {tuple(kd.shuffle(kd.slice([1, 2, 3])).to_py()) for _ in range(60)}
    assert len(seen) == 6
