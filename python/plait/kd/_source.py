"""Where the user's code is: the file and line of the first caller outside
plait, recorded on expression nodes built while tracing (so that an error
at evaluation can say which line of the traced function made the node)."""

import os
import sys

_PLAIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def location():
    """`path:line` of the innermost frame outside the plait package."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PLAIT_DIR):
        frame = frame.f_back
    if frame is None:
        return None
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"
