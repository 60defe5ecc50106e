"""Runs the code blocks of docs/guide.md in order, so the guide stays
true."""

import os
import re

GUIDE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "guide.md")


def test_the_guide_runs():
    text = open(GUIDE).read()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 8
    scope = {}
    for block in blocks:
        exec(compile(block, "docs/guide.md", "exec"), scope)  # noqa: S102 - our own documentation
