"""kd.vmap: per-example functions over batches whose leading dimension may
be jagged (issue "kd.vmap", seed 003 "Vmap: Automatic Vectorization")."""

import pytest

from plait import kd


def rows(x):
    """The examples of batch `x`, one slice each (the per-example view)."""
    ndim = x.get_ndim().to_py() - 1
    lists = kd.implode(x, ndim=ndim)
    return [kd.explode(lists.S[i], ndim=ndim).no_bag() for i in range(lists.get_size().to_py())]


def test_the_issue_examples():
    add = kd.vmap(lambda a, b: a + b, in_axes=(0, None))
    assert add(kd.slice([[1, 2], [3, 4]]), kd.slice([10, 20])).to_py() == [[11, 22], [13, 24]]
    # Plain prefix broadcasting would give [[11, 12], [23, 24]].
    assert (kd.slice([[1, 2], [3, 4]]) + kd.slice([10, 20])).to_py() == [[11, 12], [23, 24]]
    assert kd.vmap(kd.sum)(kd.slice([[1, 2], [3], [4, 5, 6]])).to_py() == [3, 3, 15]
    assert kd.vmap(lambda x: kd.index(x, dim=0))(kd.slice([[5, 6], [7]])).to_py() == [[0, 1], [0]]
    assert kd.vmap(kd.vmap(kd.sum))(kd.slice([[[1, 2], [3]], [[4]]])).to_py() == [[3, 3], [4]]


def test_operators_see_one_example():
    x = kd.slice([[[1, 2], [3]], [[4]], []])
    f = kd.vmap(lambda e: (e.get_ndim(), kd.count(e), kd.agg_sum(e), kd.index(e, dim=1), kd.max(e)))
    ndim, count, agg, index, top = f(x)
    assert ndim.to_py() == [2, 2, 2]
    assert count.to_py() == [3, 1, 0]
    assert agg.to_py() == [[3, 3], [4], []]
    assert index.to_py() == [[[0, 1], [0]], [[0]], []]
    assert top.to_py() == [3, 4, None]
    flat = kd.vmap(lambda e: kd.flatten(e))(x)
    assert flat.to_py() == [[1, 2, 3], [4], []]
    sel = kd.vmap(lambda e: kd.select(e, e > 1) * 2)(kd.slice([[1, 2], [3]]))
    assert sel.to_py() == [[4], [6]]


def test_shapes_lists_and_implode_per_example():
    x = kd.slice([[[1, 2], [3]], [[4]], []])
    shape = lambda e: kd.get_shape(e)  # noqa: E731
    rank, size, reshaped = kd.vmap(lambda e: (kd.shapes.rank(shape(e)), kd.shapes.size(shape(e)),
                                               kd.reshape(kd.flatten(e) * 2, shape(e))))(x)
    assert rank.to_py() == [2, 2, 2]
    assert size.to_py() == [3, 1, 0]
    assert reshaped.to_py() == [[[2, 4], [6]], [[8]], []]
    # Nested: the rewrites have rules of their own.
    nested = kd.vmap(kd.vmap(lambda r: (kd.shapes.size(kd.get_shape(r)), kd.lists.size(kd.implode(r, ndim=-1)))))
    sizes, list_sizes = nested(kd.slice([[[1, 2], [3]], [[4]]]))
    assert sizes.to_py() == [[2, 1], [1]] and list_sizes.to_py() == [[2, 1], [1]]
    assert kd.vmap(lambda e: kd.implode(e, ndim=-1))(x).to_py() == [[[1, 2], [3]], [[4]], []]
    assert kd.vmap(lambda e: kd.explode(kd.implode(e)) + 1)(x).to_py() == [[[2, 3], [4]], [[5]], []]
    for e, expected in zip(rows(x), [3, 1, 0]):
        assert kd.shapes.size(kd.get_shape(e)).to_py() == expected


def test_entities_and_attributes_per_example():
    people = kd.new(age=kd.slice([[30, 40], [50]]), name=kd.slice([["a", "b"], ["c"]]))
    oldest = kd.vmap(lambda p: kd.max(p.age))(people)
    assert oldest.to_py() == [40, 50]


def test_unbatched_arguments_reach_every_example():
    x = kd.slice([[1, 2], [3]])
    f = kd.vmap(lambda e, w, s: kd.sum(e * s) + kd.sum(w), in_axes=(0, None, None))
    assert f(x, kd.slice([1, 2, 3]), 10).to_py() == [36, 36]
    # A dict of specs by argument name; keyword arguments are batched.
    g = kd.vmap(lambda e, w: e + kd.sum(w), in_axes={"w": None})
    assert g(x, kd.slice([5, 5])).to_py() == [[11, 12], [13]]


def test_pytrees_of_arguments_match_by_prefix():
    f = kd.vmap(lambda p: p[0] * p[1]["k"], in_axes=((0, {"k": None}),))
    assert f((kd.slice([[1, 2], [3, 4]]), {"k": kd.slice([10, 100])})).to_py() == [[10, 200], [30, 400]]


def test_in_axes_and_out_axes_move_uniform_dims():
    x = kd.slice([[1, 2, 3], [4, 5, 6]])
    assert kd.vmap(lambda c: kd.sum(c), in_axes=1)(x).to_py() == [5, 7, 9]
    assert kd.vmap(lambda r: r * 2, out_axes=1)(x).to_py() == [[2, 8], [4, 10], [6, 12]]
    with pytest.raises(ValueError, match="dimension 1 is jagged, so dimension 1 cannot be moved"):
        kd.vmap(lambda c: c, in_axes=1)(kd.slice([[1, 2], [3]]))
    with pytest.raises(ValueError, match="out_axes=None, but an output of .* depends on the batched arguments"):
        kd.vmap(lambda r: r * 2, out_axes=None)(x)
    same = kd.vmap(lambda r, w: w * 2, in_axes=(0, None), out_axes=None)(x, kd.slice([1, 2]))
    assert same.to_py() == [2, 4]


def test_outputs_that_do_not_depend_on_the_batch_are_repeated():
    assert kd.vmap(lambda r: kd.item(7))(kd.slice([[1], [2, 3]])).to_py() == [7, 7]
    assert kd.vmap(lambda r: kd.slice([1, 2]), in_axes=None, axis_size=2)(kd.item(0)).to_py() == [[1, 2], [1, 2]]


def test_errors_say_what_is_wrong():
    with pytest.raises(ValueError, match=r"different batch sizes \(a: 2, b: 3\)"):
        kd.vmap(lambda a, b: a + b)(kd.slice([1, 2]), kd.slice([1, 2, 3]))
    with pytest.raises(ValueError, match="argument x is a DataItem \\(rank 0\\)"):
        kd.vmap(lambda x: x)(kd.item(1))
    with pytest.raises(ValueError, match="all in_axes are None\\): give axis_size"):
        kd.vmap(lambda x: x, in_axes=None)(kd.slice([1]))
    with pytest.raises(ValueError, match="axis_size=3, but the batched arguments have batch size 2"):
        kd.vmap(lambda x: x, axis_size=3)(kd.slice([1, 2]))
    with pytest.raises(ValueError, match="in_axes has 1 entries for 2 positional arguments"):
        kd.vmap(lambda a, b: a, in_axes=(0,))(kd.slice([1]), kd.slice([1]))
    with pytest.raises(ValueError, match="in_axes entries must be ints, None"):
        kd.vmap(lambda a: a, in_axes="x")(kd.slice([1]))
    with pytest.raises(ValueError, match="out_axes must be an int or None"):
        kd.vmap(lambda a: a, out_axes="x")
    with pytest.raises(ValueError, match="has no batching rule"):
        kd.vmap(lambda a: kd.shapes.get_sizes(a))(kd.slice([[1], [2]]))


def test_map_if_and_nested_functors_per_example():
    x = kd.slice([[1, 2], [3, 4], []])
    f = lambda e: kd.if_(kd.sum(e) > 3, lambda v: v * 10, lambda v: v - 1, e)  # noqa: E731
    assert kd.vmap(f)(x).to_py() == [f(r).to_py() for r in rows(x)]
    g = lambda e: kd.map(lambda v: v * 2 + 1, e) + kd.max(e)  # noqa: E731
    assert kd.vmap(g)(x).to_py() == [g(r).to_py() for r in rows(x)]
    helper = kd.fn(lambda v, s=3: kd.agg_sum(v) * s)
    h = lambda e: helper(e * 2)  # noqa: E731
    assert kd.vmap(h)(kd.slice([[[1], [2, 3]], [[4]]])).to_py() == [h(r).to_py() for r in rows(kd.slice([[[1], [2, 3]], [[4]]]))]
    # A functor vmapped.
    assert kd.vmap(kd.fn(lambda e: kd.sum(e) * 2))(x).to_py() == [6, 14, 0]


def test_composes_with_compile_both_ways():
    x = kd.slice([[1, 2], [3]])
    a = kd.compile(kd.vmap(lambda e: kd.sum(e * 2) + 1))
    b = kd.vmap(kd.compile(lambda e: kd.sum(e * 2) + 1))
    assert a(x).to_py() == b(x).to_py() == [7, 7]
    assert a(kd.slice([[5], [6]])).to_py() == [11, 13]
    assert "kd.core._fused" in a.lower(x) or "kd.math" in a.lower(x)


def test_vmap_inside_a_traced_function():
    f = kd.fn(lambda x: kd.vmap(kd.sum)(x) + 1)
    assert f(kd.slice([[1, 2], [3]])).to_py() == [4, 4]


def test_what_cannot_be_vectorized_says_so():
    x = kd.slice([[3, 1, 2], [5], [7, 4]])
    with pytest.raises(ValueError, match="kd.random.mask has no batching rule"):
        kd.vmap(lambda r: kd.random.mask(r, 0.5, 42))(x)
    with pytest.raises(ValueError, match="kd.shapes.dim_sizes has no batching rule"):
        kd.vmap(lambda r: kd.shapes.dim_sizes(kd.get_shape(r), 0))(x)
    with pytest.raises(ValueError, match="a JaggedShape given as a constant is one example's shape"):
        kd.vmap(lambda r: kd.shapes.expand_to_shape(r, kd.shapes.new(3)))(kd.slice([1, 2, 3]))
    with pytest.raises(ValueError, match="kd.curves.pwl_curve has no batching rule"):
        kd.vmap(kd.curves.pwl_curve, in_axes=(0, None))(kd.slice([0.5, 1.5]), kd.slice([[0, 0], [1, 10], [3, 30]]))
    # Operators over the last dimension of examples that are single items.
    items = kd.slice([3, 1, 2])
    for f in (kd.reverse, kd.sort, kd.unique, lambda r: kd.select(r, r > 1), kd.agg_sum, kd.math.cum_sum):
        with pytest.raises(ValueError, match="needs examples of at least 1 dimension"):
            kd.vmap(f)(items)
    with pytest.raises(ValueError, match="needs examples of at least 2 dimension"):
        kd.vmap(lambda r: kd.agg_sum(r, ndim=2))(kd.slice([[1, 2], [3]]))


def test_out_axes_beyond_one_and_in_traced_functions():
    u = kd.slice([[[0, 1], [2, 3], [4, 5]], [[6, 7], [8, 9], [10, 11]]])  # 2 x 3 x 2
    moved = kd.vmap(lambda e: e, out_axes=2)(u)
    assert moved.to_py() == [[[0, 6], [1, 7]], [[2, 8], [3, 9]], [[4, 10], [5, 11]]]
    assert kd.vmap(lambda e: e, in_axes=2)(u).to_py() == [[[0, 2, 4], [6, 8, 10]], [[1, 3, 5], [7, 9, 11]]]
    with pytest.raises(ValueError, match="inside a traced function, out_axes must be 0 or None"):
        kd.fn(lambda x: kd.vmap(lambda a: a, out_axes=1)(x))(kd.slice([[1, 2], [3, 4]]))
    assert kd.vmap(lambda r: kd.stack(r, r * 2))(kd.slice([1, 2])).to_py() == [[1, 2], [2, 4]]


def test_entities_objects_and_uuids_are_made_per_item():
    # One entity, object or id per item, as a loop over the examples makes
    # them (uuids: the same ids; a new entity schema: one for the batch).
    x = kd.slice([[1, 2], [3]])
    rows = [x.L[i] for i in range(2)]
    for f in (lambda v: kd.obj(a=v, b="s"), lambda v: kd.new(a=v), lambda v: kd.uu(a=v), lambda v: kd.uuobj(a=v),
              lambda v: kd.agg_size(kd.obj(a=v)), lambda v: kd.new(a=v).a * 2):
        assert kd.vmap(f)(x).to_py(obj_as_dict=True) == [f(r).to_py(obj_as_dict=True) for r in rows]
    for f in (kd.uuid, kd.uuid_for_list, kd.uuid_for_dict, lambda **kw: kd.uu(**kw).get_itemid()):
        assert kd.vmap(lambda v: f(a=v))(x).to_py() == [f(a=r).to_py() for r in rows]
    made = kd.vmap(lambda v: kd.new(a=v))(x)
    assert made.get_schema().a == kd.INT32
