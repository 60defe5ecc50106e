"""Every name of Koda's API and every method of its classes, against
koladata (issue 21).

The two reference files in `reference/` list Koda's public API: every `kd`
name (koda_api.tsv) and every method of DataBag, DataSlice, DataItem,
ListItem, DictItem, SchemaItem, Expr and JaggedShape (koda_methods.tsv).
From them this file makes, per name:

- `test_name_exists`: plait has it (so a missing name fails a test);
- `test_examples_agree`: every example of plait's docstring for it, run on
  koladata too, gives the same outcome (value repr, schema, shape, or error
  type and message), with ids and addresses normalised.

Names not built yet are listed in NOT_YET, as strict xfails: building one
makes its test pass, which fails until it is taken off the list. Examples
that differ on purpose are listed in DIFFERENT, each with its reason (and
its entry in docs/differences.md).
"""

import os
import sys

import pytest

from plait import kd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts"))
import koda_diff  # noqa: E402

koda_kd = pytest.importorskip("koladata.kd", reason="koladata is not installed")

API = [row["name"] for row in koda_diff.reference_rows("koda_api.tsv")]
METHODS = [f"{row['class']}.{row['name']}" for row in koda_diff.reference_rows("koda_methods.tsv")]

# Names and methods plait does not have yet (issue 21 builds them).
NOT_YET = {
    "DataBag.__bool__",
    "DataBag.__getitem__",
    "DataBag.adopt",
    "DataBag.adopt_stub",
    "DataBag.concat_lists",
    "DataBag.data_triples_repr",
    "DataBag.dict",
    "DataBag.dict_like",
    "DataBag.dict_schema",
    "DataBag.dict_shaped",
    "DataBag.empty",
    "DataBag.empty_mutable",
    "DataBag.fingerprint",
    "DataBag.get_approx_size",
    "DataBag.implode",
    "DataBag.list",
    "DataBag.list_like",
    "DataBag.list_schema",
    "DataBag.list_shaped",
    "DataBag.merge_fallbacks",
    "DataBag.merge_inplace",
    "DataBag.named_schema",
    "DataBag.new_like",
    "DataBag.new_schema",
    "DataBag.new_shaped",
    "DataBag.obj_like",
    "DataBag.obj_shaped",
    "DataBag.qtype",
    "DataBag.schema_triples_repr",
    "DataBag.uu",
    "DataBag.uu_schema",
    "DataBag.uuobj",
    "DataBag.with_name",
    "DataItem.bind",
    "DataItem.clear",
    "DataItem.clone_as_full",
    "DataItem.display",
    "DataItem.embed_schema",
    "DataItem.extract_update",
    "DataItem.follow",
    "DataItem.from_vals",
    "DataItem.get_dtype",
    "DataItem.get_sizes",
    "DataItem.internal_as_arolla_value",
    "DataItem.internal_as_dense_array",
    "DataItem.internal_is_itemid_schema",
    "DataItem.new",
    "DataItem.pop",
    "DataItem.qtype",
    "DataItem.ref",
    "DataItem.set_schema",
    "DataItem.strict_with_attrs",
    "DataItem.with_name",
    "DataItem.with_schema_from_obj",
    "DataSlice.clear",
    "DataSlice.clone_as_full",
    "DataSlice.display",
    "DataSlice.embed_schema",
    "DataSlice.extract_update",
    "DataSlice.follow",
    "DataSlice.from_vals",
    "DataSlice.get_dtype",
    "DataSlice.get_sizes",
    "DataSlice.internal_as_arolla_value",
    "DataSlice.internal_as_dense_array",
    "DataSlice.internal_is_itemid_schema",
    "DataSlice.new",
    "DataSlice.pop",
    "DataSlice.qtype",
    "DataSlice.ref",
    "DataSlice.set_schema",
    "DataSlice.strict_with_attrs",
    "DataSlice.with_name",
    "DataSlice.with_schema_from_obj",
    "DictItem.bind",
    "DictItem.clear",
    "DictItem.clone_as_full",
    "DictItem.display",
    "DictItem.embed_schema",
    "DictItem.extract_update",
    "DictItem.follow",
    "DictItem.from_vals",
    "DictItem.get_dtype",
    "DictItem.get_sizes",
    "DictItem.internal_as_arolla_value",
    "DictItem.internal_as_dense_array",
    "DictItem.internal_is_itemid_schema",
    "DictItem.new",
    "DictItem.pop",
    "DictItem.qtype",
    "DictItem.ref",
    "DictItem.set_schema",
    "DictItem.strict_with_attrs",
    "DictItem.with_name",
    "DictItem.with_schema_from_obj",
    "Expr.L",
    "Expr.adopt",
    "Expr.adopt_stub",
    "Expr.bind",
    "Expr.clone_as_full",
    "Expr.concat_lists",
    "Expr.contents_repr",
    "Expr.data_triples_repr",
    "Expr.dict",
    "Expr.dict_like",
    "Expr.dict_schema",
    "Expr.dict_shaped",
    "Expr.display",
    "Expr.embed_schema",
    "Expr.empty",
    "Expr.empty_mutable",
    "Expr.equals",
    "Expr.extract_update",
    "Expr.follow",
    "Expr.fork",
    "Expr.freeze",
    "Expr.from_vals",
    "Expr.get_approx_size",
    "Expr.get_attr_names",
    "Expr.get_dtype",
    "Expr.get_nofollowed_schema",
    "Expr.get_present_count",
    "Expr.get_size",
    "Expr.get_sizes",
    "Expr.inputs",
    "Expr.internal_as_arolla_value",
    "Expr.internal_as_dense_array",
    "Expr.internal_is_itemid_schema",
    "Expr.is_dict_schema",
    "Expr.is_entity_schema",
    "Expr.is_leaf",
    "Expr.is_list_schema",
    "Expr.is_literal",
    "Expr.is_mutable",
    "Expr.is_operator",
    "Expr.is_placeholder",
    "Expr.is_primitive_schema",
    "Expr.is_struct_schema",
    "Expr.leaf_key",
    "Expr.list",
    "Expr.list_like",
    "Expr.list_schema",
    "Expr.list_shaped",
    "Expr.merge_fallbacks",
    "Expr.merge_inplace",
    "Expr.named_schema",
    "Expr.new",
    "Expr.new_like",
    "Expr.new_schema",
    "Expr.new_shaped",
    "Expr.obj",
    "Expr.obj_like",
    "Expr.obj_shaped",
    "Expr.placeholder_key",
    "Expr.qtype",
    "Expr.ref",
    "Expr.schema_triples_repr",
    "Expr.strict_new",
    "Expr.strict_with_attrs",
    "Expr.uu",
    "Expr.uu_schema",
    "Expr.uuobj",
    "Expr.with_schema_from_obj",
    "JaggedShape.__bool__",
    "JaggedShape.__getitem__",
    "JaggedShape.fingerprint",
    "JaggedShape.qtype",
    "ListItem.bind",
    "ListItem.clear",
    "ListItem.clone_as_full",
    "ListItem.display",
    "ListItem.embed_schema",
    "ListItem.extract_update",
    "ListItem.follow",
    "ListItem.from_vals",
    "ListItem.get_dtype",
    "ListItem.get_sizes",
    "ListItem.internal_as_arolla_value",
    "ListItem.internal_as_dense_array",
    "ListItem.internal_is_itemid_schema",
    "ListItem.new",
    "ListItem.pop",
    "ListItem.qtype",
    "ListItem.ref",
    "ListItem.set_schema",
    "ListItem.strict_with_attrs",
    "ListItem.with_name",
    "ListItem.with_schema_from_obj",
    "SchemaItem.bind",
    "SchemaItem.clear",
    "SchemaItem.clone_as_full",
    "SchemaItem.display",
    "SchemaItem.embed_schema",
    "SchemaItem.extract_update",
    "SchemaItem.follow",
    "SchemaItem.from_vals",
    "SchemaItem.get_dtype",
    "SchemaItem.get_nofollowed_schema",
    "SchemaItem.get_sizes",
    "SchemaItem.internal_as_arolla_value",
    "SchemaItem.internal_as_dense_array",
    "SchemaItem.internal_is_itemid_schema",
    "SchemaItem.new",
    "SchemaItem.pop",
    "SchemaItem.qtype",
    "SchemaItem.ref",
    "SchemaItem.set_schema",
    "SchemaItem.strict_new",
    "SchemaItem.strict_with_attrs",
    "SchemaItem.with_name",
    "SchemaItem.with_schema_from_obj",
    "kd.annotation.source_location",
    "kd.bitwise.bitwise_and",
    "kd.bitwise.bitwise_or",
    "kd.bitwise.bitwise_xor",
    "kd.bitwise.count",
    "kd.bitwise.invert",
    "kd.bitwise_and",
    "kd.bitwise_count",
    "kd.bitwise_invert",
    "kd.bitwise_or",
    "kd.bitwise_xor",
    "kd.cityhash",
    "kd.clear_eval_cache",
    "kd.clone_as_full",
    "kd.core.clone_as_full",
    "kd.core.extract_update",
    "kd.core.flatten_cyclic_references",
    "kd.core.follow",
    "kd.core.freeze",
    "kd.core.get_metadata",
    "kd.core.metadata",
    "kd.core.nofollow",
    "kd.core.ref",
    "kd.core.reify",
    "kd.core.strict_attrs",
    "kd.core.strict_with_attrs",
    "kd.core.with_metadata",
    "kd.core.with_timestamp",
    "kd.curves.log_p1_pwl_curve",
    "kd.curves.log_pwl_curve",
    "kd.curves.pwl_curve",
    "kd.curves.symmetric_log_p1_pwl_curve",
    "kd.del_attr",
    "kd.duck_dict",
    "kd.duck_list",
    "kd.duck_type",
    "kd.embed_schema",
    "kd.expr_quote",
    "kd.extension_type",
    "kd.extension_types.NullableMixin",
    "kd.extension_types.dynamic_cast",
    "kd.extension_types.extension_type",
    "kd.extension_types.get_annotations",
    "kd.extension_types.get_attr",
    "kd.extension_types.get_attr_qtype",
    "kd.extension_types.get_extension_cls",
    "kd.extension_types.get_extension_qtype",
    "kd.extension_types.has_attr",
    "kd.extension_types.is_koda_extension",
    "kd.extension_types.is_koda_extension_type",
    "kd.extension_types.is_null",
    "kd.extension_types.make",
    "kd.extension_types.make_null",
    "kd.extension_types.override",
    "kd.extension_types.unwrap",
    "kd.extension_types.virtual",
    "kd.extension_types.with_attrs",
    "kd.extension_types.wrap",
    "kd.extract_update",
    "kd.follow",
    "kd.freeze",
    "kd.from_json",
    "kd.from_proto",
    "kd.from_proto_bytes",
    "kd.from_proto_json",
    "kd.functor.FunctorFactory",
    "kd.functor.call_and_update_namedtuple",
    "kd.functor.fstr_fn",
    "kd.functor.map_py_fn",
    "kd.functor.register_py_fn",
    "kd.functor.signature_utils",
    "kd.get_metadata",
    "kd.get_nofollowed_schema",
    "kd.get_proto_attr",
    "kd.get_repr",
    "kd.is_expr",
    "kd.json.from_json",
    "kd.json.to_json",
    "kd.metadata",
    "kd.named_container",
    "kd.nofollow",
    "kd.nofollow_schema",
    "kd.optools.WITH_PY_FUNCTION_TO_PY_OBJECT",
    "kd.optools.add_to_registry_as_overload",
    "kd.optools.add_to_registry_as_overloadable",
    "kd.optools.as_qvalue",
    "kd.optools.as_qvalue_or_expr",
    "kd.optools.constraints",
    "kd.optools.eager",
    "kd.optools.equiv_to_op",
    "kd.optools.fix_non_deterministic_tokens",
    "kd.optools.unified_non_deterministic_arg",
    "kd.optools.unified_non_deterministic_kwarg",
    "kd.proto.from_proto_bytes",
    "kd.proto.from_proto_json",
    "kd.proto.get_proto_attr",
    "kd.proto.get_proto_field_custom_default",
    "kd.proto.get_proto_full_name",
    "kd.proto.schema_from_proto_path",
    "kd.proto.to_proto_bytes",
    "kd.proto.to_proto_json",
    "kd.pwl_curve",
    "kd.py_reference",
    "kd.randint_like",
    "kd.randint_shaped",
    "kd.randint_shaped_as",
    "kd.random.cityhash",
    "kd.random.mask",
    "kd.random.randint_like",
    "kd.random.randint_shaped",
    "kd.random.randint_shaped_as",
    "kd.random.sample",
    "kd.random.sample_n",
    "kd.random.shuffle",
    "kd.ref",
    "kd.register_py_fn",
    "kd.reify",
    "kd.sample",
    "kd.sample_n",
    "kd.schema.get_nofollowed_schema",
    "kd.schema.internal_maybe_named_schema",
    "kd.schema.nofollow_schema",
    "kd.schema.to_expr",
    "kd.schema_from_proto",
    "kd.schema_from_proto_path",
    "kd.set_attr",
    "kd.set_attrs",
    "kd.set_schema",
    "kd.shuffle",
    "kd.signature_utils",
    "kd.slices.expr_quote",
    "kd.slices.get_repr",
    "kd.slices.internal_is_compliant_attr_name",
    "kd.slices.internal_select_by_slice",
    "kd.static_when_tracing",
    "kd.strict_attrs",
    "kd.strict_with_attrs",
    "kd.to_expr",
    "kd.to_json",
    "kd.to_proto",
    "kd.to_proto_bytes",
    "kd.to_proto_json",
    "kd.to_pytree",
    "kd.tuples.slice",
    "kd.update_schema",
    "kd.with_metadata",
    "kd.with_timestamp",
}

# Docstring examples whose outcome differs from koladata's on purpose, each
# with its reason (see docs/differences.md): example source -> reason.
DIFFERENT = {
    "kd.get_bag(kd.slice([1, 2])) is None": "the bag of a slice without one is None, not a null DataBag object",
    "kd.get_keys(kd.dict({'a': 1, 'b': 2}))": "dict keys in insertion order; Koda's hash order is arbitrary",
    "kd.get_values(d)": "dict values in insertion order; Koda's hash order is arbitrary",
    "kd.get_values(d, kd.slice(['b', 'x']))": "same as kd.get_values(d)",
    "kd.stub(a, kd.slice(['y'])).y.get_itemid() == a.y.get_itemid()": "koladata 0.0.4 raises UNIMPLEMENTED for stub attrs",
    "kd.loads(kd.dumps(kd.obj(a=1, b='x'), compression='lz4')).to_py()": "plait's format takes a compression option",
    "kd.loads(b'not plait data')": "plait's own file format and its message",
    "kd.encode_itemid(kd.slice([kd.uuid(x=1), None]))": "uuids are derived with plait's own hash",
}


def _params(names):
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="not built yet (issue 21)")) if n in NOT_YET else n
        for n in names
    ]


def _method(label):
    cls, _, name = label.rpartition(".")
    return getattr(koda_diff.method_owner(kd, cls), name)


@pytest.mark.parametrize("name", _params(API))
def test_name_exists(name):
    ours = koda_diff.resolve(kd, name)
    theirs = koda_diff.resolve(koda_kd, name)
    assert callable(ours) == callable(theirs), f"{name}: callable in one library only"


@pytest.mark.parametrize("label", _params(METHODS))
def test_method_exists(label):
    _method(label)


def _differences(obj):
    return [d for d in koda_diff.compare_examples(obj.__doc__, kd, koda_kd) if d[0] not in DIFFERENT]


@pytest.mark.parametrize("name", [n for n in API if n not in NOT_YET])
def test_examples_agree(name):
    obj = koda_diff.resolve(kd, name)
    if not callable(obj):
        # A constant (kd.INT32, kd.present) prints as Koda's; a namespace
        # (kd.math, kd.I) has nothing to compare beyond its names.
        theirs = koda_diff.resolve(koda_kd, name)
        if isinstance(theirs, koda_kd.types.DataSlice):
            assert koda_diff.normalise(repr(obj)) == koda_diff.normalise(repr(theirs))
        return
    differences = _differences(obj)
    assert not differences, "\n".join(f">>> {s}\n  plait:    {a}\n  koladata: {b}" for s, a, b in differences)


@pytest.mark.parametrize("label", [m for m in METHODS if m not in NOT_YET])
def test_method_examples_agree(label):
    method = _method(label)
    if not callable(method):
        return
    differences = _differences(method)
    assert not differences, "\n".join(f">>> {s}\n  plait:    {a}\n  koladata: {b}" for s, a, b in differences)


def test_lists_are_current():
    """NOT_YET names only names of the reference files, and every example in
    DIFFERENT is still an example of some docstring."""
    known = set(API) | set(METHODS)
    assert not (NOT_YET - known)
    sources = set()
    for name in API:
        obj = koda_diff.resolve(kd, name) if name not in NOT_YET else None
        if callable(obj):
            sources.update(s.strip() for s in koda_diff.examples(obj.__doc__))
    assert not (set(DIFFERENT) - sources)
