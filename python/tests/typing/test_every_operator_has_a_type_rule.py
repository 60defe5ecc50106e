"""Every registry operator has a type rule (issue 23): an operator added
without one fails here. (The test suite checks each rule against the
results of the calls it makes: PLAIT_CHECK_TYPES, docs/typing.md.)"""

from plait import _plait


def test_every_operator_has_a_type_rule():
    operators = _plait.operators()
    assert len(operators) > 300
    untyped = sorted(op.name for op in operators if not op._has_type_rule)
    assert not untyped, f"operators without a type rule (give them one beside their kernel): {untyped}"
