"""Walking nested data without recursion, for `kd.from_py`.

A conversion is a generator: to convert the level below it yields a
request and is sent the answer. `run_nested` keeps the running conversions
on a list, so a depth of data costs a list entry rather than a Python (or C)
stack frame."""


def run_nested(first, descend):
    """Runs generator `first` to its return value.

    Each request a conversion yields goes to `descend(request, depth)`
    (`depth`: how many conversions are running), which returns the generator
    that answers it, or raises (data too deep, a cycle)."""
    stack = [first]
    result = None
    while True:
        try:
            request = stack[-1].send(result)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            result = done.value
            continue
        stack.append(descend(request, len(stack)))
        result = None
