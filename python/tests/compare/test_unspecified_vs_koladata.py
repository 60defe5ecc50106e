"""plait against koladata for Koda's `unspecified` passed as an argument (what
`kd.tuples.slice(1).step` returns): at a parameter whose default is
unspecified it is as if the argument were not given, eagerly and lazily; at
a required parameter, or one with a value as default, it is refused; as an
attribute value or a Python value to box it is an unsupported type. A
traced function's parameter defaults must be items (`y=None` is a missing
one). `S` not given to `kd.eval` is Koda's `self_not_specified` entity.

The outcomes must agree: the same repr, or the same exception type and
first message line (plait names the operator first)."""

import pytest

from plait import kd as pkd

from koda_compare import assert_same_repr_outcome, repr_outcome as outcome

kkd = pytest.importorskip("koladata.kd")


def _u(kd):
    return kd.tuples.slice(1).step


def _x(kd):
    return kd.slice([[1, 2], [3]])


PROGRAMS = {
    "repr": lambda kd: repr(_u(kd)),
    "type_name": lambda kd: type(_u(kd)).__name__,
    "optional_positional": lambda kd: kd.math.agg_sum(_x(kd), _u(kd)),
    "optional_keyword": lambda kd: kd.math.agg_sum(x=_x(kd), ndim=_u(kd)),
    "optional_after_given_one": lambda kd: kd.flatten(_x(kd), 0, _u(kd)),
    "optional_first_of_new": lambda kd: kd.new(_u(kd)).get_schema().is_entity_schema(),
    "slice_bound": lambda kd: kd.tuples.slice(kd.item(1), _u(kd)),
    "literal": lambda kd: kd.expr.literal(_u(kd)),
    "required_parameter": lambda kd: kd.range(_u(kd)),
    "required_dim": lambda kd: kd.index(_x(kd), _u(kd)),
    "value_default_parameter": lambda kd: kd.math.agg_std(kd.slice([1.0, 2.0]), unbiased=_u(kd)),
    "value_default_positional": lambda kd: kd.flatten(_x(kd), _u(kd)),
    "attribute_value": lambda kd: kd.obj(a=_u(kd)),
    "boxed_as_item": lambda kd: kd.item(_u(kd)),
    "boxed_as_slice": lambda kd: kd.slice(_u(kd)),
    "lazy_optional": lambda kd: kd.lazy.math.agg_sum(kd.I.x, _u(kd)),
    "lazy_optional_keyword": lambda kd: kd.lazy.math.agg_sum(kd.I.x, ndim=_u(kd)),
    "lazy_optional_evaluated": lambda kd: kd.lazy.math.agg_sum(kd.I.x, _u(kd)).eval(x=_x(kd)),
    "lazy_flatten_evaluated": lambda kd: kd.lazy.flatten(kd.I.x, 0, _u(kd)).eval(x=_x(kd)),
    # Parameter defaults of traced functions.
    "none_default": lambda kd: kd.fn(lambda x, y=None: y)(1),
    "none_default_given": lambda kd: kd.fn(lambda x, y=None: y)(1, 2),
    "none_defaults_only": lambda kd: kd.fn(lambda x=None, y=None: y)(),
    "none_default_signature": lambda kd: kd.fn(lambda x, y=None: y).get_attr("__signature__").parameters[:].default_value,
    "item_default": lambda kd: kd.fn(lambda x, y=2: x + y)(1),
    "slice_default": lambda kd: kd.fn(lambda x, y=kd.slice([1, 2]): x),
    "bag_default": lambda kd: kd.fn(lambda x, y=kd.bag(): x),
    "unspecified_default": lambda kd: kd.fn(lambda x, y=_u(kd): x),
    "list_default": lambda kd: kd.fn(lambda x, y=[1]: x),
    "object_default": lambda kd: kd.fn(lambda x, y=object(): x),
    "py_fn_none_default": lambda kd: kd.py_fn(lambda x, y=None: y)(1),
    # `S` not given to kd.eval: Koda's entity saying so, the same every time.
    "self_not_given": lambda kd: kd.eval(kd.S),
    "self_not_given_is_one_item": lambda kd: kd.eval(kd.S).get_itemid() == kd.eval(kd.S).get_itemid(),
    "self_not_given_says_so": lambda kd: kd.eval(kd.S.self_not_specified),
    "self_not_given_to_expr_fn": lambda kd: kd.functor.expr_fn(kd.S)(),
    "self_given_as_none": lambda kd: kd.eval(kd.S, None),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_unspecified_agrees(name):
    program = PROGRAMS[name]
    assert_same_repr_outcome(outcome(pkd, program), outcome(kkd, program))
