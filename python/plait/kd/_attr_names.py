"""`kd.dir` and `kd.get_attr_names`: Python functions in Koda too, glue over
`DataSlice.get_attr_names` (which reads the names in Rust)."""


def dir(x):  # noqa: A001 - Koda's name
    """Returns the sorted names of the attributes that all items of x have.

    For entities the names come from their schema; for objects, from each
    object's own schema, keeping only the names common to all of them.
    Primitives in OBJECT data are skipped. The result is a Python list of str;
    x must have a DataBag. The same as kd.get_attr_names(x, intersection=True).

    Args:
      x: a DataSlice with a DataBag.

    Examples:
      >>> kd.dir(kd.new(b=1, a='x'))
      ['a', 'b']
      >>> kd.dir(kd.slice([kd.obj(a=1, b=2), kd.obj(a=3, c=4)]))
      ['a']
    """
    return x.get_attr_names(intersection=True)


def get_attr_names(x, *, intersection):
    """Returns the sorted attribute names of the items of x.

    For entities the names come from their schema; for objects, from each
    object's own schema, and `intersection` chooses between the names all
    objects share and the names any object has. Primitives in OBJECT data are
    skipped. The result is a Python list of str; x must have a DataBag.

    Args:
      x: a DataSlice with a DataBag.
      intersection: True for the names common to all items, False for the
        names of any item (keyword only, required).

    Examples:
      >>> x = kd.slice([kd.obj(a=1, b=2), kd.obj(a=3, c=4)])
      >>> kd.get_attr_names(x, intersection=True)
      ['a']
      >>> kd.get_attr_names(x, intersection=False)
      ['a', 'b', 'c']
    """
    return x.get_attr_names(intersection=intersection)
