"""A Python list, tuple or dict given as an attribute value (`kd.new(a=[1,
2])`, `kd.obj(d={'x': 1})`) or assigned in place (`e.a = [1, 2]`,
`d['k'] = {'x': 1}`, `l.append([1])`) becomes one Koda list or dict item,
by Koda's rule for such values (not `kd.from_py`'s):

- a list or tuple is `kd.list(x)`: its items as `kd.slice` takes them
  (nested lists become lists of lists; a dict among them is refused);
- a dict is `kd.dict(keys, values)` of its keys and its values, each
  converted first (a list or tuple among them by this same rule, item by
  item, a dict as a dict), then taken together as `kd.slice` takes
  DataItems: the schemas of containers side by side must agree exactly;
  primitives are taken as `kd.slice` takes them (1 and 2.5 make FLOAT32,
  1 and 'a' OBJECT).

Most values never come here: where the containers side by side agree,
kd.from_py's inference gives what this rule does and makes them natively
(`container_item` of py_operator.rs). Glue only: the items are made by
registry operators. The walk is iterative and bounded (a dict that
contains itself is an error, not a crash). The flat lists and dicts
(holding no lists or dicts) under one container, the bulk of most values,
are made together, in one bag, when their schemas agree; one at a time
otherwise, which gives Koda's error.
"""

import itertools

from plait import _plait

_MAX_DEPTH = 256
_END = object()
_CONTAINERS = (list, tuple, dict)


def container_item(x, op):
    """`x` (exactly a list, tuple or dict) as one Koda list or dict item."""
    from plait.kd import lists

    # (Flat lists, and dicts where kd.from_py's inference gives what Koda's
    # rule does, are converted natively before this is called:
    # `container_item` of py_operator.rs.)
    if type(x) is not dict:
        return lists.new(x)
    return _converted(x, op)


def _children(x):
    return itertools.chain(x.keys(), x.values()) if type(x) is dict else iter(x)


def _is_flat(x):
    return not any(type(child) in _CONTAINERS for child in _children(x))


def _made(x, converted):
    """The list or dict item of container `x` whose elements (for a dict,
    its keys, then its values) are `converted`."""
    from plait.kd import dicts, lists

    if type(x) is dict:
        n = len(converted) // 2
        return dicts.new(_plait.slice(converted[:n], None), _plait.slice(converted[n:], None))
    return lists.implode(_plait.slice(converted, None))


def _made_together(flat, op):
    """The items of flat containers `flat` (all lists and tuples, or all
    dicts): made at once where their schemas agree."""
    from plait.kd import dicts, lists

    if type(flat[0]) is dict:
        keys = _plait.slice_of_rows(op, [list(d.keys()) for d in flat])
        values = _plait.slice_of_rows(op, [list(d.values()) for d in flat])
        made = None if keys is None or values is None else dicts.new(keys, values)
    else:
        rows = _plait.slice_of_rows(op, [list(x) for x in flat])
        made = None if rows is None else lists.implode(rows)
    if made is None:
        return [_made(x, list(_children(x))) for x in flat]
    return list(made.L)


def _with_flat_made(converted, flat_at, op):
    """`converted` with the flat containers at positions `flat_at` made."""
    for kind in ((list, tuple), (dict,)):
        at = [i for i in flat_at if type(converted[i]) in kind]
        if at:
            for i, made in zip(at, _made_together([converted[i] for i in at], op)):
                converted[i] = made
    return converted


def _converted(root, op):
    """`root` converted after its elements, without recursion. A frame is
    (container, its children left, those converted, the positions of its
    flat children among them, made when it is)."""
    stack = [(root, _children(root), [], [])]
    while True:
        node, children, converted, flat_at = stack[-1]
        child = next(children, _END)
        if child is _END:
            stack.pop()
            made = _made(node, _with_flat_made(converted, flat_at, op))
            if not stack:
                return made
            stack[-1][2].append(made)
        elif type(child) not in _CONTAINERS:
            converted.append(child)
        elif _is_flat(child):
            flat_at.append(len(converted))
            converted.append(child)
        else:
            if len(stack) >= _MAX_DEPTH:
                raise ValueError(f"{op}: {_plait.RECURSIVE_CONTAINER} (or one nested more than {_MAX_DEPTH} levels deep)")
            stack.append((child, _children(child), [], []))
