"""DataSlice methods that are Koda operators with the slice as first argument
(`ds.get_attr('x')` is `kd.get_attr(ds, 'x')`), attached to the class once."""

from plait import _plait
from plait.kd import dicts, lists, slices, types
from plait.kd._operators import OPERATORS

# method name -> operator name
_METHODS = {
    "maybe": "kd.core.maybe",
    "has_attr": "kd.core.has_attr",
    "with_attrs": "kd.core.with_attrs",
    "with_attr": "kd.core.with_attr",
    "get_itemid": "kd.core.get_itemid",
    "get_obj_schema": "kd.schema.get_obj_schema",
    "explode": "kd.lists.explode",
    "implode": "kd.lists.implode",
    "list_size": "kd.lists.size",
    "get_item_schema": "kd.schema.get_item_schema",
    "dict_size": "kd.dicts.size",
    "get_keys": "kd.dicts.get_keys",
    "get_values": "kd.dicts.get_values",
    "is_dict": "kd.dicts.is_dict",
    "with_dict_update": "kd.dicts.with_dict_update",
    "get_key_schema": "kd.schema.get_key_schema",
    "get_value_schema": "kd.schema.get_value_schema",
    "is_dict_schema": "kd.schema.is_dict_schema",
    "is_list_schema": "kd.schema.is_list_schema",
    "is_entity_schema": "kd.schema.is_entity_schema",
    "is_struct_schema": "kd.schema.is_struct_schema",
    "select_present": "kd.slices.select_present",
    "take": "kd.slices.take",
    "repeat": "kd.slices.repeat",
    "is_empty": "kd.slices.is_empty",
    "with_list_append_update": "kd.lists.with_list_append_update",
    "is_list": "kd.lists.is_list",
    "is_primitive": "kd.core.is_primitive",
    "is_entity": "kd.core.is_entity",
    "extract": "kd.core.extract",
    "clone": "kd.core.clone",
    "shallow_clone": "kd.core.shallow_clone",
    "deep_clone": "kd.core.deep_clone",
    "stub": "kd.core.stub",
    "deep_uuid": "kd.ids.deep_uuid",
    "flatten": "kd.shapes.flatten",
    "flatten_end": "kd.shapes.flatten_end",
    "reshape": "kd.shapes.reshape",
    "reshape_as": "kd.shapes.reshape_as",
    "expand_to": "kd.slices.expand_to",
    "is_primitive_schema": "kd.schema.is_primitive_schema",
    "has_bag": "kd.core.has_bag",
    "updated": "kd.core.updated",
    "enriched": "kd.core.enriched",
    "with_merged_bag": "kd.core.with_merged_bag",
    "clone_as_full": "kd.core.clone_as_full",
    "extract_update": "kd.core.extract_update",
    "follow": "kd.core.follow",
    "ref": "kd.core.ref",
    "strict_with_attrs": "kd.core.strict_with_attrs",
    "with_schema_from_obj": "kd.schema.with_schema_from_obj",
    "get_dtype": "kd.schema.get_primitive_schema",
}


def _method(op):
    # A native descriptor: `ds.get_keys()` calls the operator with no Python
    # frame in between.
    method = _plait.OperatorMethod(op)
    method.__name__ = op.__name__
    method.__qualname__ = f"DataSlice.{op.__name__}"
    method.__doc__ = op.__doc__
    method.__signature__ = op.__signature__
    return method


for _name, _op in _METHODS.items():
    setattr(types.DataSlice, _name, _method(OPERATORS[_op]))

types.DataSlice.select = slices.select
types.DataSlice.select_items = lists.select_items
types.DataSlice.select_keys = dicts.select_keys
types.DataSlice.select_values = dicts.select_values


# `x << bag` is `x.updated(bag)`, `x >> bag` is `x.enriched(bag)`.
types.DataSlice.__lshift__ = _method(OPERATORS["kd.core.updated"])
types.DataSlice.__rshift__ = _method(OPERATORS["kd.core.enriched"])


def _to_pytree(self, max_depth=2, include_missing_attrs=True):
    """`kd.to_pytree(self, ...)`: the contents as Python lists and dicts."""
    from plait.kd import conversion

    return conversion.to_py(self, max_depth, True, include_missing_attrs)


types.DataSlice.to_pytree = _to_pytree


def _arrow_c_array(self, requested_schema=None):
    """The Arrow PyCapsule interface (needs pyarrow): the slice as
    `kd_ext.arrow.to_arrow` exports it, without copying values."""
    from plait.kd_ext.arrow import _arrow_c_array as export

    return export(self, requested_schema)


types.DataSlice.__arrow_c_array__ = _arrow_c_array


def _repr_html_(self):
    """Notebook display (see `plait.kd.html`)."""
    from plait.kd import html

    return html.slice_html(self)


def _bag_repr_html_(self):
    from plait.kd import html

    return html.bag_html(self)


types.DataSlice._repr_html_ = _repr_html_
types.DataBag._repr_html_ = _bag_repr_html_
