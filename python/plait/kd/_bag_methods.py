"""Koda's DataBag methods, and the DataSlice / JaggedShape methods that are
glue over registry operators, attached to the classes once.

A bag method that creates items (`bag.new`, `bag.list`, `bag.uu`,
`bag.named_schema`, ...) calls the registry operator of the same name and
moves what it made into the bag (`DataBag._adopt_made`, Rust): the bag must
be mutable (Koda's error otherwise), and the result is returned attached to
it. Nothing is computed here.
"""

import functools
import inspect

from plait import _plait
from plait.kd import qtypes, types
from plait.kd._operators import OPERATORS


class ContentsReprWrapper(str):
    """The text of `DataBag.contents_repr()` and friends: a str that prints
    (and shows in a REPL) as the text itself, as in Koda."""

    def __repr__(self):
        return str(self)


types.DataSlice.qtype = property(lambda self: qtypes.DATA_SLICE, doc="DATA_SLICE: the kind of value a DataSlice is.")
types.DataBag.qtype = property(lambda self: qtypes.DATA_BAG, doc="DATA_BAG: the kind of value a DataBag is.")
types.JaggedShape.qtype = property(lambda self: qtypes.JAGGED_SHAPE, doc="JAGGED_SHAPE: the kind of value a shape is.")
_plait.NullDataBag.qtype = property(lambda self: qtypes.DATA_BAG, doc="DATA_BAG: the null bag is a DataBag value.")


def _with_name(self, name):
    """Checks that `name` is a string and returns `self` unchanged (Koda's
    `kd.with_name` outside expressions)."""
    if not isinstance(name, str):
        raise ValueError("Name must be a string")
    return self


types.DataSlice.with_name = _with_name
types.DataBag.with_name = _with_name


# --- DataBag


def _bag_bool(self):
    raise TypeError(f"__bool__ disabled for {type(self).__module__}.{type(self).__qualname__}")


def _bag_getitem(self, sl):
    """Returns DataSlice `sl` with this bag attached."""
    if not isinstance(sl, types.DataSlice):
        raise TypeError(f"expected DataSlice, got {type(sl).__name__}")
    return sl.with_bag(self)


def _triples(which, doc):
    def method(self, *, triple_limit=1000):
        return ContentsReprWrapper(self._triples_repr(which, triple_limit))

    method.__doc__ = doc
    return method


types.DataBag.__bool__ = _bag_bool
types.DataBag.__getitem__ = _bag_getitem
types.DataBag.contents_repr = _triples(
    "all", "Returns the bag's contents as text: data triples, then schema triples (at most `triple_limit`).")
types.DataBag.data_triples_repr = _triples(
    "data", "Returns the bag's data triples as text (attributes, list items, dict entries), without schemas.")
types.DataBag.schema_triples_repr = _triples("schema", "Returns the bag's schema triples as text.")
types.DataBag.empty = staticmethod(functools.partial(_plait.new_bag, False))
types.DataBag.empty_mutable = staticmethod(functools.partial(_plait.new_bag, True))


# Keyword arguments that are no attribute values (left as they are).
_PARAMS = {"schema", "itemid", "overwrite_schema", "item_schema", "key_schema", "value_schema", "seed"}


# The methods whose refusal of an immutable bag Koda words as "cannot create
# Item(s)", caused by the immutable bag's error.
_CREATING_ITEMS = {"new", "new_like", "new_shaped", "obj", "obj_like", "obj_shaped"}


def _creating(name, make, left_off=()):
    """The bag method `name`: `make(*args, **kwargs)` (a registry operator
    or its glue), moved into this mutable bag.

    The arguments named in `left_off` (positions and names; `_ATTRS`: every
    keyword argument that is an attribute value) are passed with the
    DataSlices of this bag in them left without it (`DataBag._left_off`):
    their data is here already, so what is made need not bring it along, and
    building nested data level by level in one bag stays linear. Should that
    call fail, the arguments as given are tried, so that errors read as
    they would."""
    op = f"DataBag.{name}"

    @functools.wraps(make)
    def method(self, *args, **kwargs):
        if name in _CREATING_ITEMS and not self.is_mutable():
            try:
                self._check_mutable(op)
            except ValueError as e:
                raise ValueError(f"{op}: cannot create Item(s)") from e
        self._check_mutable(op)
        made = None
        given_args, given_kwargs = _left_off(self, left_off, args, kwargs)
        if given_args is not args or given_kwargs is not kwargs:
            try:
                made = make(*given_args, **given_kwargs)
            except Exception:
                made = None
        if made is None:
            made = make(*args, **kwargs)
        return self._adopt_made(op, made, overwrite_schemas=bool(kwargs.get("overwrite_schema")))

    method.__name__ = name
    method.__qualname__ = f"DataBag.{name}"
    try:
        method.__signature__ = inspect.signature(make)
    except (TypeError, ValueError):
        pass
    return method


# `left_off` of `_creating`: every attribute value.
_ATTRS = "attrs"


def _left_off(bag, left_off, args, kwargs):
    """`args` and `kwargs` with the arguments `left_off` names passed through
    `bag._left_off`; the very objects given when none changes."""
    new_args, new_kwargs = args, kwargs
    if left_off == _ATTRS:
        for k, v in kwargs.items():
            if k not in _PARAMS and (w := bag._left_off(v)) is not v:
                new_kwargs = new_kwargs if new_kwargs is not kwargs else dict(kwargs)
                new_kwargs[k] = w
        return new_args, new_kwargs
    for position, param in left_off:
        if position < len(args):
            if (w := bag._left_off(args[position])) is not args[position]:
                new_args = new_args if new_args is not args else list(args)
                new_args[position] = w
        elif param in kwargs and (w := bag._left_off(kwargs[param])) is not kwargs[param]:
            new_kwargs = new_kwargs if new_kwargs is not kwargs else dict(kwargs)
            new_kwargs[param] = w
    return new_args, new_kwargs


def _attach_creating():
    from plait import kd

    items = ((0, "items"),)
    shaped_items = ((1, "items"),)
    entries = ((0, "items_or_keys"), (1, "values"))
    shaped_entries = ((1, "items_or_keys"), (2, "values"))
    makers = {
        "new": (kd.new, _ATTRS),
        "new_like": (kd.new_like, _ATTRS),
        "new_shaped": (kd.new_shaped, _ATTRS),
        "obj": (kd.obj, _ATTRS),
        "obj_like": (kd.obj_like, _ATTRS),
        "obj_shaped": (kd.obj_shaped, _ATTRS),
        "uu": (kd.uu, _ATTRS),
        "uuobj": (kd.uuobj, _ATTRS),
        "list": (kd.list, items),
        "list_like": (kd.list_like, shaped_items),
        "list_shaped": (kd.list_shaped, shaped_items),
        "dict": (kd.dict, entries),
        "dict_like": (kd.dict_like, shaped_entries),
        "dict_shaped": (kd.dict_shaped, shaped_entries),
        "implode": (kd.implode, ((0, "x"),)),
        "concat_lists": (kd.concat_lists, ()),
        "named_schema": (kd.named_schema, ()),
        "new_schema": (OPERATORS["kd.schema.new_schema"], ()),
        "uu_schema": (kd.uu_schema, ()),
        "list_schema": (kd.list_schema, ()),
        "dict_schema": (kd.dict_schema, ()),
    }
    for name, (make, left_off) in makers.items():
        setattr(types.DataBag, name, _creating(name, make, left_off))


# --- DataSlice



def _get_sizes(self):
    """Returns the sizes of the slice's shape, one row per dimension (an
    INT64 DataSlice of rank 2; empty for a DataItem)."""
    return self.get_shape().get_sizes()


def _internal_is_itemid_schema(self):
    """Returns present iff this is the ITEMID schema."""
    from plait import kd

    is_itemid = self.is_item() and bool(self.get_schema() == kd.SCHEMA) and bool(self.no_bag() == kd.ITEMID)
    return kd.present if is_itemid else kd.missing


def _schema_new(self, **attrs):
    """Returns a new entity with this schema and the given attributes
    (`kd.new(schema=self, **attrs)`)."""
    from plait import kd

    if not (self.is_item() and bool(self.get_schema() == kd.SCHEMA)):
        raise NotImplementedError("only Schema can create new Entities using .new(...)")
    if self._bag() is None:
        raise ValueError("only SchemaItems with DataBags can be used for creating Entities")
    return kd.new(schema=self, **attrs)


def _from_vals(x, /, schema=None):
    """Returns a DataSlice created from Python value `x` (`kd.slice`)."""
    from plait import kd

    return kd.slice(x, schema)


def _item_from_vals(x, /, schema=None):
    """Returns a DataItem created from Python scalar `x` (`kd.item`)."""
    from plait import kd

    return kd.item(x, schema)


def _embed_schema(self):
    """Returns this slice with OBJECT schema, its entities' schemas embedded
    (`kd.embed_schema`)."""
    from plait.kd import _mutation

    return _mutation.embed_schema(self)


def _set_schema(self, schema, /):
    """Returns a copy of this slice with `schema` (`kd.set_schema`)."""
    from plait.kd import _mutation

    return _mutation.set_schema(self, schema)


def _display(self, options=None):
    """Shows the slice as an HTML table in a notebook (`kd.html`); prints
    its repr elsewhere."""
    try:
        from IPython import get_ipython  # type: ignore[import-not-found]
        from IPython.display import HTML, display  # type: ignore[import-not-found]
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(repr(self))
        return
    display(HTML(self._repr_html_()))


def _bind(self, *args, return_type_as=None, **kwargs):
    """Returns a functor that calls this functor with `args` and `kwargs`
    bound (`kd.functor.bind`)."""
    from plait.kd import functor

    if not functor.is_fn(self):
        raise ValueError(f"bind() expects a functor, got {self}")
    return functor.bind(self, *args, return_type_as=return_type_as, **kwargs)


def _arolla_only(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(
            f"DataSlice.{name} converts to an Arolla value; plait has no Arolla (docs/differences.md): "
            "use to_py(), kd_ext.npkd or kd_ext.arrow instead")

    method.__name__ = name
    return method


types.DataSlice.get_sizes = _get_sizes
types.DataSlice.internal_is_itemid_schema = _internal_is_itemid_schema
types.DataSlice.new = _schema_new
types.DataSlice.from_vals = staticmethod(_from_vals)
types.DataItem.from_vals = staticmethod(_item_from_vals)
types.DataSlice.embed_schema = _embed_schema
types.DataSlice.set_schema = _set_schema
types.DataSlice.display = _display
types.DataItem.bind = _bind
types.DataSlice.internal_as_arolla_value = _arolla_only("internal_as_arolla_value")
types.DataSlice.internal_as_dense_array = _arolla_only("internal_as_dense_array")


def _schema_strict_new(self, **attrs):
    """Returns a new entity with this schema and the given attributes,
    checking that they are the schema's (`kd.strict_new(schema=self, ...)`)."""
    from plait import kd

    if self._bag() is None:
        raise ValueError("only SchemaItems with DataBags can be used for creating Entities")
    return kd.strict_new(schema=self, **attrs)


def _get_nofollowed_schema(self):
    """Returns the schema a nofollow schema wraps (`kd.get_nofollowed_schema`)."""
    from plait import kd

    return kd.get_nofollowed_schema(self)


types.SchemaItem.strict_new = _schema_strict_new
types.SchemaItem.get_nofollowed_schema = _get_nofollowed_schema
