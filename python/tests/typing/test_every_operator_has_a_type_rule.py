"""Every registry operator is to have a type rule (issue 23). Until the
last one has, the operators without one are listed in
untyped_operators.txt: the list may only shrink, so an operator added
without a rule fails here, and one given a rule must leave the list."""

import os

from plait import _plait

BASELINE = os.path.join(os.path.dirname(__file__), "untyped_operators.txt")


def test_operators_without_a_type_rule_are_the_listed_ones():
    untyped = sorted(op.name for op in _plait.operators() if not op._has_type_rule)
    with open(BASELINE) as f:
        listed = [line.strip() for line in f if line.strip()]
    added = sorted(set(untyped) - set(listed))
    typed_now = sorted(set(listed) - set(untyped))
    assert not added, f"operators without a type rule (give them one): {added}"
    assert not typed_now, f"operators that have a type rule now (remove them from {os.path.basename(BASELINE)}): {typed_now}"
