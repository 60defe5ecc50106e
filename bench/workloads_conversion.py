"""Benchmark workloads for Python conversion (issue "DataBag"): kd.from_py
of nested Python data and to_py back. No target in the issue; figures are
reported against koladata."""


def workloads(scale, pkd, kkd):
    n = max(int(100_000 * scale), 1)
    records = [{"a": i, "b": f"s{i % 100}", "c": [i, i + 1]} for i in range(n)]
    # Python containers given as attribute values: one dict of lists, one of
    # small dicts (Koda's rule converts each value, then checks they agree).
    dict_of_lists = {f"k{i}": [i, i + 1] for i in range(n // 10)}
    dict_of_dicts = {f"k{i}": {"x": i, "y": f"s{i % 100}"} for i in range(n // 10)}
    # Jagged text: each value a list of text lists (siblings converted one
    # by one, then checked to agree).
    dict_of_text_lists = {f"k{i}": [[f"t{i}"], [f"u{i % 7}", "w"]] for i in range(n // 30)}
    # A list of records whose values agree (Koda's rule asks it), under a key.
    list_of_records = {"rows": [{"x": [i], "y": [i + 1, i + 2]} for i in range(n // 10)]}
    ints = list(range(10 * n))
    state = {}

    def prepare(kd, name):
        state[name] = {"objects": kd.from_py(records, dict_as_obj=True, from_dim=1)}

    def entries(make):
        impls = {"plait": lambda: make(pkd, "plait")}
        if kkd is not None:
            impls["koladata"] = lambda: make(kkd, "koladata")
        return impls

    yield f"from_py {n:,} dicts of 3 keys (dicts)", entries(lambda kd, name: kd.from_py(records, from_dim=1)), prepare
    yield f"from_py {n:,} dicts as objects", entries(lambda kd, name: kd.from_py(records, dict_as_obj=True, from_dim=1)), None
    yield f"from_py {10 * n:,} ints, from_dim=1", entries(lambda kd, name: kd.from_py(ints, from_dim=1)), None
    yield f"from_py one list of {10 * n:,} ints", entries(lambda kd, name: kd.from_py(ints)), None
    yield f"kd.new(a=dict of {n // 10:,} lists)", entries(lambda kd, name: kd.new(a=dict_of_lists)), None
    yield f"kd.new(a=dict of {n // 10:,} dicts)", entries(lambda kd, name: kd.new(a=dict_of_dicts)), None
    yield f"kd.new(a=dict of {n // 30:,} lists of text lists)", entries(lambda kd, name: kd.new(a=dict_of_text_lists)), None
    yield f"kd.new(a={{'rows': {n // 10:,} dicts of lists}})", entries(lambda kd, name: kd.new(a=list_of_records)), None
    yield f"to_py {n:,} objects (obj_as_dict)", entries(lambda kd, name: state[name]["objects"].to_py(obj_as_dict=True)), None
