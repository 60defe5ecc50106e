"""plait against koladata on random programs over bags (issue 18: updates are
never lost; bag layering, merge conflicts and clones agree with Koda).

Each program is plain Python data: 3-12 steps over a small environment of
values v0, v1, ... (entity / object / list / dict DataItems, DataSlices of
entities, and DataBags, mutable or not). The steps are kd.new / kd.obj /
kd.list / kd.dict with primitive and entity / object / list / dict values
(values that carry their own, possibly conflicting, bags included:
`kd.new(p=x, q=x.with_attrs(a=5))`), with_attrs (with updated versions of
the target or of its sub-entities among the values), kd.updated /
x.updated, kd.enriched / x.enriched, kd.attrs, `<<` / `>>`,
kd.updated_bag / kd.enriched_bag, clone / shallow_clone / deep_clone (of
slices repeating one entity too), expand_to, with_dict_update /
dict_update / `d[k] = v`, list appends (with_list_append_update,
kd.list_append_update, `.append`), fork_bag / freeze_bag /
kd.mutable_bag / bag.fork / bag.freeze / with_bag, writes into mutable
bags (`x.a = v`, set_attrs) after other values were built from them,
with_merged_bag, kd.slice / kd.stack / kd.concat of items with different
bags, get_attr and slice items.

The same program runs on both libraries through `run(kd, program)`. Every
step must succeed in both or fail in both with the same error (type and
message, see `same_error`); at the end every value of the environment is
read recursively by `read` (primitives by to_py, lists as lists, dicts as
(key, value) pairs sorted, entities and objects through
get_attr_names(intersection=True) + get_attr, four levels deep) and must be
equal. Item ids and bag ids differ between the libraries and are never
compared. The walk is used rather than `to_py(obj_as_dict=True)` because
to_py returns Python values that refer to themselves for cycles (writes
into a mutable bag make them), which `==` cannot compare, and plait's to_py
is slow in a debug build.

A failing test prints the program as Python (`python(program)`), ready to
paste after `from plait import kd` or `from koladata import kd`.

Two things in Koda are not deterministic, and the comparison leaves them
out: which of several conflicts a merge error names (`normalize` masks the
attribute and the values), and what a failed write into a mutable bag
leaves behind (the program ends at such a write, see `run`)."""

import random
import re

import pytest

from plait import kd

PROGRAMS = 2000
MAX_READ_DEPTH = 4

PRIM_NAMES = ["a", "b"]
REF_NAMES = ["p", "q"]
PRIMS = [1, 2, 5, 7] * 4 + ["x", None, 1.5, True]
KEYS = ["k", "m", "n", "k", "m", 1]


# --- generating programs (plain data, the same on both libraries)

class Gen:
    """A program generator; `env` models the kinds of the environment's
    values as the program is built ("ent", "obj", "list", "dict", "slice",
    "bag"), so that steps mostly make sense (they may still fail: both
    libraries must then fail alike)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        # {"kind", "attrs": {name: kind}, "n" (slice size), "mut" (mutable bag),
        #  "layered" (bag with fallbacks), "family" (entity schema lineage)}
        self.env = []

    def pick(self, *kinds, mut=None, layered=None):
        """An environment index of one of `kinds`, often a recent one."""
        idx = [i for i, e in enumerate(self.env) if e["kind"] in kinds and (mut is None or e["mut"] == mut)
               and (layered is None or e["layered"] == layered)]
        if not idx:
            return None
        return self.rng.choice(idx[-2:] if self.rng.random() < 0.4 else idx)

    def has(self, *kinds):
        return self.pick(*kinds) is not None

    def kind_of(self, v):
        tag = v[0]
        if tag == "p":
            return "prim"
        if tag == "r":
            return self.env[v[1]]["kind"]
        if tag in ("wa", "clone"):
            return self.kind_of(v[1])
        if tag == "ga":
            base = self.kind_of(v[1])
            return self.attrs_of(v[1]).get(v[2], "prim") if base in ("ent", "obj") else "prim"
        if tag == "new":
            return "ent"
        if tag == "obj":
            return "obj"
        if tag in ("list", "dict"):
            return tag
        if tag == "ps":
            return "prim"
        return "prim"

    def attrs_of(self, v):
        tag = v[0]
        if tag == "r":
            return self.env[v[1]].get("attrs", {})
        if tag in ("wa", "clone"):
            out = dict(self.attrs_of(v[1]))
            out.update({name: self.kind_of(x) for name, x in v[2].items()})
            return out
        if tag in ("new", "obj"):
            return {name: self.kind_of(x) for name, x in v[1].items()}
        if tag == "ga":
            return {}
        return {}

    def item_ref(self):
        """An existing item (or a sub-entity of one) as a value expression."""
        i = self.pick("ent", "obj", "list", "dict")
        if i is None:
            return None
        v = ("r", i)
        subs = [n for n, k in self.env[i].get("attrs", {}).items() if k in ("ent", "obj", "list", "dict")]
        if subs and self.rng.random() < 0.3:
            v = ("ga", v, self.rng.choice(subs))
        return v

    def prim(self):
        return ("p", self.rng.choice(PRIMS))

    def value(self, depth=0, n=None, target=None):
        """A value expression: a primitive, an existing item, an updated
        version of one (of the target itself, often), a new nested item, or
        with `n` a slice of `n` primitives."""
        rng = self.rng
        r = rng.random()
        if n is not None and r < 0.15:
            return ("ps", [rng.choice(PRIMS[:4]) for _ in range(n)])
        if r < 0.35:
            return self.prim()
        if r < 0.55:
            v = self.item_ref()
            if v is not None:
                return v
        if r < 0.75:
            # An updated version of an existing item, of the target, or of a
            # sub-entity of the target: its bag conflicts with the original's
            # when an attribute changes.
            base = target if target is not None and rng.random() < 0.6 else self.item_ref()
            if base is not None and self.kind_of(base) in ("ent", "obj"):
                subs = [nm for nm, k in self.attrs_of(base).items() if k in ("ent", "obj")]
                if subs and rng.random() < 0.4:
                    base = ("ga", base, rng.choice(subs))
                return ("wa", base, {rng.choice(PRIM_NAMES): self.prim()})
        if r < 0.8 and depth < 2:
            base = self.item_ref()
            if base is not None and self.kind_of(base) in ("ent", "obj"):
                return ("clone", base, {})
        if depth < 2 and r < 0.93:
            return (rng.choice(["new", "obj"]), self.attrs(depth + 1))
        if depth < 2:
            if rng.random() < 0.5:
                return ("list", self.items(rng.randint(0, 2), depth + 1))
            keys = [rng.choice(KEYS[:3]) for _ in range(2)]
            return ("dict", list(zip(keys, self.items(rng.randint(0, 2), depth + 1))))
        return self.prim()

    def items(self, count, depth):
        """Values for one list or dict: ints, or versions of one existing
        item (updated ones conflict), or new objects."""
        rng = self.rng
        mode = rng.choice(["prim", "prim", "item", "item", "item", "obj", "obj", "any"])
        base = self.item_ref() if mode == "item" else None
        out = []
        for _ in range(count):
            if mode == "prim":
                out.append(("p", rng.choice(PRIMS[:4])))
            elif base is not None:
                kind = self.kind_of(base)
                out.append(("wa", base, {rng.choice(PRIM_NAMES): self.prim()})
                           if kind in ("ent", "obj") and rng.random() < 0.4 else base)
            elif mode == "any":
                out.append(self.value(depth))
            else:
                out.append(("obj", self.attrs(depth)))
        return out

    def attrs(self, depth=0, n=None, target=None, min_count=1):
        """Attributes: primitives under PRIM_NAMES and items under REF_NAMES
        (and now and then the other way round: schema conflicts)."""
        out = {}
        for _ in range(self.rng.randint(min_count, 3)):
            v = self.value(depth, n, target)
            names = PRIM_NAMES if self.kind_of(v) == "prim" else REF_NAMES
            if self.rng.random() < 0.05:
                names = PRIM_NAMES + REF_NAMES
            out[self.rng.choice(names)] = v
        return out

    def bag_expr(self):
        rng = self.rng
        r = rng.random()
        j = self.pick("bag")
        if j is not None and r < 0.5:
            return ("r", j)
        base = self.item_ref()
        if base is None:
            return ("empty",)
        if self.kind_of(base) in ("ent", "obj"):
            if r < 0.8:
                return ("attrs", base, {rng.choice(PRIM_NAMES): self.prim()})
            if r < 0.9:
                base = ("wa", base, {rng.choice(PRIM_NAMES): self.prim()})
        return ("bag_of", base)

    def add(self, kind, attrs=None, n=None, mut=False, layered=False):
        # "family": values sharing an entity schema (versions of one entity).
        self.env.append({"kind": kind, "attrs": dict(attrs or {}), "n": n, "mut": mut, "layered": layered,
                         "family": len(self.env)})

    def like(self, i, **changes):
        e = dict(self.env[i])
        e["attrs"] = dict(e.get("attrs", {}))
        e.update(changes)
        self.env.append(e)

    def step(self, first=False):
        rng = self.rng
        ops = ["new"] * 12 + ["obj"] * 8
        if not first:
            ops += (["list"] * 4 + ["dict"] * 4 + ["with_attrs"] * 14 + ["updated"] * 6 + ["enriched"] * 5 + ["attrs"] * 4 + ["bag_op"] * 4
                    + ["get_bag"] * 2 + ["mutable_bag"] * 2 + ["bag_fork"] * 2 + ["with_bag"] * 3
                    + ["clone"] * 7 + ["expand_to"] * 4 + ["dict_update"] * 5 + ["setitem"] * 4
                    + ["list_append"] * 4 + ["append"] * 3 + ["fork_bag"] * 8 + ["freeze_bag"] * 2
                    + ["setattr"] * 7 + ["set_attrs"] * 3 + ["merged"] * 3 + ["slice"] * 5 + ["concat"] * 2
                    + ["get_attr"] * 4 + ["slice_item"] * 2)
        while True:
            op = rng.choice(ops)
            spec = self.make(op, first)
            if spec is not None:
                return spec

    def make(self, op, first):
        rng = self.rng
        if op in ("new", "obj"):
            attrs = {n: self.prim() for n in rng.sample(PRIM_NAMES, rng.randint(1, 2))} if first else self.attrs()
            self.add("ent" if op == "new" else "obj", {n: self.kind_of(v) for n, v in attrs.items()})
            return (op, attrs)
        if op == "list":
            items = self.items(rng.randint(0, 3), 1)
            self.add("list")
            return ("list", items)
        if op == "dict":
            entries = list(zip([rng.choice(KEYS) for _ in range(3)], self.items(rng.randint(0, 3), 1)))
            self.add("dict")
            return ("dict", entries)
        if op == "with_attrs":
            i = self.pick("ent", "obj", "slice")
            if i is None:
                return None
            n = self.env[i]["n"]
            attrs = self.attrs(n=n, target=("r", i))
            self.like(i, attrs={**self.env[i]["attrs"], **{k: self.kind_of(v) for k, v in attrs.items()}},
                      mut=False, layered=True)
            return ("with_attrs", i, attrs, rng.random() < 0.5)
        if op in ("updated", "enriched"):
            i = self.pick("ent", "obj", "list", "dict", "slice")
            if i is None:
                return None
            bags = [self.bag_expr() for _ in range(rng.choice([1, 1, 1, 2]))]
            self.like(i, mut=False, layered=True)
            return (op, i, bags, rng.random() < 0.5)
        if op == "attrs":
            i = self.pick("ent", "obj")
            if i is None:
                return None
            spec = self.attrs(target=("r", i))
            self.add("bag")
            return ("attrs", i, spec)
        if op == "bag_op":
            if not self.has("bag"):
                return None
            j, k = self.pick("bag"), self.pick("bag")
            self.add("bag", layered=True)
            return ("bag_op", rng.choice(["<<", ">>", "updated_bag", "enriched_bag"]), j, k)
        if op == "get_bag":
            i = self.pick("ent", "obj", "list", "dict", "slice")
            if i is None:
                return None
            self.add("bag", mut=self.env[i]["mut"], layered=self.env[i]["layered"])
            return ("get_bag", i)
        if op == "mutable_bag":
            self.add("bag", mut=True)
            return ("mutable_bag",)
        if op == "bag_fork":
            j = self.pick("bag")
            if j is None:
                return None
            fork = rng.random() < 0.7
            self.add("bag", mut=fork, layered=self.env[j]["layered"])
            return ("bag_fork" if fork else "bag_freeze", j)
        if op == "with_bag":
            i, j = self.pick("ent", "obj", "list", "dict", "slice"), self.pick("bag")
            if i is None or j is None:
                return None
            self.like(i, mut=self.env[j]["mut"], layered=self.env[j]["layered"])
            return ("with_bag", i, j)
        if op == "clone":
            i = self.pick("ent", "obj", "slice", "list", "dict")
            if i is None:
                return None
            fn = rng.choice(["clone", "shallow_clone", "deep_clone"])
            overrides = {}
            if self.env[i]["kind"] in ("ent", "obj", "slice") and rng.random() < 0.3:
                overrides = {rng.choice(PRIM_NAMES): self.prim()}
            self.like(i, mut=False, layered=False)
            return ("clone", i, fn, overrides, rng.random() < 0.5)
        if op == "expand_to":
            i = self.pick("ent", "obj", "list", "dict")
            if i is None:
                return None
            n = rng.randint(2, 3)
            self.like(i, kind="slice" if self.env[i]["kind"] in ("ent", "obj") else "items", n=n)
            return ("expand_to", i, n)
        if op == "dict_update":
            i = self.pick("dict")
            if i is None:
                return None
            style = rng.choice(["kd", "method", "bag"])
            key, v = rng.choice(KEYS), self.value(1)
            if style == "bag":
                self.add("bag")
            else:
                self.like(i, mut=False, layered=True)
            return ("dict_update", i, key, v, style)
        if op == "setitem":
            i = self.pick("dict", mut=True)
            i = self.pick("dict") if i is None and rng.random() < 0.1 else i
            if i is None:
                return None
            return ("setitem", i, rng.choice(KEYS), self.value(1))
        if op == "list_append":
            i = self.pick("list")
            if i is None:
                return None
            style = rng.choice(["method", "bag"])
            v = self.value(1)
            if style == "bag":
                self.add("bag")
            else:
                self.like(i, mut=False, layered=True)
            return ("list_append", i, v, style)
        if op == "append":
            i = self.pick("list", mut=True)
            i = self.pick("list") if i is None and rng.random() < 0.1 else i
            if i is None:
                return None
            return ("append", i, self.value(1))
        if op in ("fork_bag", "freeze_bag"):
            # Koda cannot fork a bag with fallbacks (with_attrs results...).
            kinds = ("ent", "obj", "list", "dict", "slice")
            i = self.pick(*kinds, layered=False) if op == "fork_bag" and rng.random() < 0.85 else None
            i = self.pick(*kinds) if i is None else i
            if i is None:
                return None
            self.like(i, mut=op == "fork_bag", layered=self.env[i]["layered"] and op == "freeze_bag")
            return (op, i)
        if op in ("setattr", "set_attrs"):
            i = self.pick("ent", "obj", "slice", mut=True)
            i = self.pick("ent", "obj", "slice") if i is None and rng.random() < 0.1 else i
            if i is None:
                return None
            attrs = self.attrs(n=self.env[i]["n"], target=("r", i))
            self.env[i]["attrs"].update({k: self.kind_of(v) for k, v in attrs.items()})
            if op == "setattr":
                name, v = next(iter(attrs.items()))
                return ("setattr", i, name, v)
            return ("set_attrs", i, attrs)
        if op == "merged":
            i = self.pick("ent", "obj", "list", "dict", "slice")
            if i is None:
                return None
            self.like(i, mut=False, layered=False)
            return ("merged", i)
        if op == "slice":
            i = self.pick("ent", "obj")
            if i is None:
                return None
            kind = self.env[i]["kind"]
            items = [("r", i)]
            for _ in range(rng.randint(1, 2)):
                r = rng.random()
                if r < 0.5:
                    # Another version of the same entity (entities of
                    # different schemas do not mix), or any object.
                    family = [j for j, e in enumerate(self.env) if e["kind"] == kind
                              and (kind == "obj" or e["family"] == self.env[i]["family"])]
                    items.append(("r", rng.choice(family)))
                elif r < 0.9:
                    items.append(("wa", ("r", i), {rng.choice(PRIM_NAMES): self.prim()}))
                else:
                    items.append(("new" if kind == "ent" else "obj", self.attrs(1)))
            rng.shuffle(items)
            fn = rng.choice(["slice", "slice", "stack"])
            self.add("slice", self.env[i]["attrs"], n=len(items), layered=True)
            return ("slice", fn, items)
        if op == "concat":
            i, j = self.pick("slice"), self.pick("slice")
            if i is None:
                return None
            self.like(i, n=self.env[i]["n"] + self.env[j]["n"])
            return ("concat", i, j)
        if op == "get_attr":
            cands = [(i, n) for i, e in enumerate(self.env) if e["kind"] in ("ent", "obj", "slice")
                     for n, k in e["attrs"].items() if k in ("ent", "obj", "list", "dict")]
            if not cands:
                return None
            i, name = rng.choice(cands)
            kind = self.env[i]["attrs"][name]
            if self.env[i]["kind"] == "slice":
                self.add("slice" if kind in ("ent", "obj") else "items", n=self.env[i]["n"], layered=True)
            else:
                self.add(kind, layered=True)
            return ("get_attr", i, name)
        if op == "slice_item":
            i = self.pick("slice")
            if i is None:
                return None
            idx = rng.randrange(self.env[i]["n"])
            self.like(i, kind="ent", n=None)
            return ("slice_item", i, idx)
        raise AssertionError(op)


def make_program(seed):
    """3-12 steps; the first makes an entity or an object of primitives, so
    that every program has a value to read."""
    gen = Gen(seed)
    count = gen.rng.randint(3, 12)
    return [gen.step(first=k < 1) for k in range(count)]


# --- running a program on one library

class Skip(Exception):
    """A step that uses a value an earlier step failed to make."""


def value(k, env, v):
    tag = v[0]
    if tag == "p":
        return v[1]
    if tag == "r":
        if env[v[1]] is None:
            raise Skip()
        return env[v[1]]
    if tag == "ps":
        return k.slice(v[1])
    if tag == "wa":
        return value(k, env, v[1]).with_attrs(**{n: value(k, env, x) for n, x in v[2].items()})
    if tag == "ga":
        return value(k, env, v[1]).get_attr(v[2])
    if tag == "clone":
        return value(k, env, v[1]).clone()
    if tag == "new":
        return k.new(**{n: value(k, env, x) for n, x in v[1].items()})
    if tag == "obj":
        return k.obj(**{n: value(k, env, x) for n, x in v[1].items()})
    if tag == "list":
        return k.list([value(k, env, x) for x in v[1]])
    if tag == "dict":
        return k.dict({key: value(k, env, x) for key, x in v[1]})
    raise AssertionError(v)


def bag(k, env, b):
    tag = b[0]
    if tag == "r":
        return value(k, env, b)
    if tag == "empty":
        return k.bag()
    if tag == "attrs":
        return k.attrs(value(k, env, b[1]), **{n: value(k, env, x) for n, x in b[2].items()})
    if tag == "bag_of":
        return value(k, env, b[1]).get_bag()
    raise AssertionError(b)


def attrs(k, env, spec):
    return {n: value(k, env, x) for n, x in spec.items()}


def execute(k, env, step):
    """Runs one step; returns the value it adds to the environment, or
    NOTHING for writes into a mutable bag."""
    op = step[0]
    if op in ("new", "obj"):
        return getattr(k, op)(**attrs(k, env, step[1]))
    if op == "list":
        return k.list([value(k, env, x) for x in step[1]])
    if op == "dict":
        entries = {}
        for key, x in step[1]:
            entries[key] = value(k, env, x)
        return k.dict(entries)
    if op == "with_attrs":
        _, i, spec, method = step
        x = value(k, env, ("r", i))
        return x.with_attrs(**attrs(k, env, spec)) if method else k.with_attrs(x, **attrs(k, env, spec))
    if op in ("updated", "enriched"):
        _, i, bags, method = step
        x = value(k, env, ("r", i))
        bags = [bag(k, env, b) for b in bags]
        return getattr(x, op)(*bags) if method else getattr(k, op)(x, *bags)
    if op == "attrs":
        return k.attrs(value(k, env, ("r", step[1])), **attrs(k, env, step[2]))
    if op == "bag_op":
        _, how, j, m = step
        b1, b2 = value(k, env, ("r", j)), value(k, env, ("r", m))
        if how == "<<":
            return b1 << b2
        if how == ">>":
            return b1 >> b2
        return getattr(k, how)(b1, b2)
    if op == "get_bag":
        return value(k, env, ("r", step[1])).get_bag()
    if op == "mutable_bag":
        return k.mutable_bag()
    if op == "bag_fork":
        return value(k, env, ("r", step[1])).fork()
    if op == "bag_freeze":
        return value(k, env, ("r", step[1])).freeze()
    if op == "with_bag":
        return value(k, env, ("r", step[1])).with_bag(value(k, env, ("r", step[2])))
    if op == "clone":
        _, i, fn, overrides, method = step
        x = value(k, env, ("r", i))
        over = attrs(k, env, overrides)
        return getattr(x, fn)(**over) if method else getattr(k, fn)(x, **over)
    if op == "expand_to":
        return value(k, env, ("r", step[1])).expand_to(k.slice([0] * step[2]))
    if op == "dict_update":
        _, i, key, v, style = step
        d, v = value(k, env, ("r", i)), value(k, env, v)
        if style == "kd":
            return k.with_dict_update(d, key, v)
        if style == "method":
            return d.with_dict_update(key, v)
        return k.dict_update(d, key, v)
    if op == "setitem":
        _, i, key, v = step
        value(k, env, ("r", i))[key] = value(k, env, v)
        return NOTHING
    if op == "list_append":
        _, i, v, style = step
        lst, v = value(k, env, ("r", i)), value(k, env, v)
        return lst.with_list_append_update(v) if style == "method" else k.list_append_update(lst, v)
    if op == "append":
        value(k, env, ("r", step[1])).append(value(k, env, step[2]))
        return NOTHING
    if op == "fork_bag":
        return value(k, env, ("r", step[1])).fork_bag()
    if op == "freeze_bag":
        return value(k, env, ("r", step[1])).freeze_bag()
    if op == "setattr":
        _, i, name, v = step
        setattr(value(k, env, ("r", i)), name, value(k, env, v))
        return NOTHING
    if op == "set_attrs":
        value(k, env, ("r", step[1])).set_attrs(**attrs(k, env, step[2]))
        return NOTHING
    if op == "merged":
        return k.with_merged_bag(value(k, env, ("r", step[1])))
    if op == "slice":
        _, fn, items = step
        items = [value(k, env, x) for x in items]
        return k.slice(items) if fn == "slice" else k.stack(*items)
    if op == "concat":
        return k.concat(value(k, env, ("r", step[1])), value(k, env, ("r", step[2])))
    if op == "get_attr":
        return value(k, env, ("r", step[1])).get_attr(step[2])
    if op == "slice_item":
        return value(k, env, ("r", step[1])).S[step[2]]
    raise AssertionError(op)


NOTHING = object()
WRITES = ("setitem", "append", "setattr", "set_attrs")  # steps that add no value


def run(k, program):
    """Runs `program` on library `k` (plait's or koladata's `kd`). Returns
    the outcome of every step ("ok", "skip" or a failure) and the values
    the program ended with, read by `read`, as (index in the environment,
    value) pairs."""
    env, outcomes = [], []
    for n, step in enumerate(program):
        result = None
        try:
            result = execute(k, env, step)
            outcomes.append(("ok",))
        except Skip:
            outcomes.append(("skip",))
        except Exception as e:  # noqa: BLE001 - any error must be matched
            outcomes.append(failure(e))
            if step[0] in WRITES:
                # Koda leaves a failed write into a mutable bag half done
                # (x.set_attrs(a=2, q=y) with a conflict in y's bag writes a
                # and part of y's bag, which part depending on the ids): the
                # program ends, and the values read are those before it.
                return outcomes, run(k, program[:n])[1]
        if step[0] not in WRITES:
            env.append(result)
    reads = []
    for i, x in enumerate(env):
        if x is None or type(x).__name__ == "DataBag":
            continue
        reads.append((i, guarded(lambda: read(k, x))))
    return outcomes, reads


def guarded(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return failure(e)


def read(k, x, depth=0):
    """A value as plain Python data, recursively: no ids, dicts sorted."""
    if depth > MAX_READ_DEPTH:
        return "<deep>"
    if x.get_ndim().to_py() > 0:
        return [guarded(lambda item=item: read(k, item, depth)) for item in x.L]
    if x.is_primitive().to_py():
        return x.to_py()
    if not x.get_present_count().to_py():
        return None
    if x.is_list().to_py():
        return ("list", [guarded(lambda item=item: read(k, item, depth + 1)) for item in x[:].L])
    if x.is_dict().to_py():
        keys, values = x.get_keys().L, x.get_values().L
        entries = [(key.to_py(), guarded(lambda v=v: read(k, v, depth + 1))) for key, v in zip(keys, values)]
        return ("dict", sorted(entries, key=repr))
    tag = "obj" if str(x.get_schema()) == "OBJECT" else "ent"
    names = sorted(x.get_attr_names(intersection=True))
    return (tag, {name: guarded(lambda name=name: read(k, x.get_attr(name), depth + 1)) for name in names})


# --- comparing

_STATUS = re.compile(r"^(\s*\[[A-Z_]+\])+\s*")  # Koda's "[FAILED_PRECONDITION] "
_OPERATOR = re.compile(r"^kd(\.[A-Za-z_0-9]+)+:\s*")  # plait's "kd.core.with_attrs: "
_ID = re.compile(r"(?:(?:Entity\(\)|Entity|Object|Obj|Schema|ItemId|List|Dict):)?[$#][0-9A-Za-z]{2,}")


_CONFLICT = [  # the details of a merge conflict
    (re.compile(r"(attribute|key) '[^'\n]*'"), r"\1 '…'"),
    (re.compile(r"^conflicting (\w+ )*values for \w+ for"), "conflicting values for … for"),
    (re.compile(r": [^\n]* vs [^\n]*$", re.M), ": … vs …"),
    (re.compile(r"^(The conflicting [^:\n]*): [^\n]*$", re.M), r"\1: …"),
]


def normalize(message):
    """A message without status or operator prefixes, with ids masked, and
    for a merge conflict without the attribute (key) and the values named:
    when several attributes conflict, Koda names one of them in an order
    that depends on the ids, so it changes from run to run."""
    message = _ID.sub("<id>", _OPERATOR.sub("", _STATUS.sub("", message.strip())))
    if "cannot merge DataBags" in message or message.startswith("conflicting "):
        for pattern, replacement in _CONFLICT:
            message = pattern.sub(replacement, message)
    return message.strip()


def failure(error):
    """An exception as data: ("error", type name, the normalized messages of
    it and its __cause__ chain)."""
    kind, chain = type(error).__name__, []
    while error is not None and len(chain) < 8:
        chain.append(normalize(str(error)))
        error = error.__cause__
    return ("error", kind, tuple(chain))


def same_error(ours, theirs):
    """Whether plait's failure matches Koda's (both from `failure`).

    The exception types must be the same, and plait's message (its chain
    joined by newlines) must be one of the messages of Koda's chain, or all
    of them joined, or contain the first and the last line of the longest
    message of Koda's chain. Koda wraps causes in operator context
    ("cannot create Item(s)" <- "cannot merge DataBags due to an exception
    encountered when merging entities. ... The cause is the values of
    attribute 'a' are different: 1 vs 5" <- "conflicting values for a for
    Entity:$...: 1 vs 5"; "the schema for attribute 'a' is incompatible.
    ... To fix this, ..." <- "the schema for attribute 'a' is incompatible:
    expected INT32, assigned STRING"), and plait may give any one level or
    the key sentences of the detailed one."""
    if ours[1] != theirs[1]:
        return False
    mine, chain = "\n".join(ours[2]), theirs[2]
    if mine in chain or mine == "\n".join(chain):
        return True
    lines = max(chain, key=len).splitlines()
    return lines[0] in mine and lines[-1] in mine


def same(ours, theirs):
    """Equal read values or outcomes (errors as in `same_error`)."""
    if isinstance(ours, tuple) and ours[:1] == ("error",):
        return isinstance(theirs, tuple) and theirs[:1] == ("error",) and same_error(ours, theirs)
    if isinstance(ours, (list, tuple)):
        return (type(theirs) is type(ours) and len(ours) == len(theirs)
                and all(same(a, b) for a, b in zip(ours, theirs)))
    if isinstance(ours, dict):
        return (isinstance(theirs, dict) and sorted(ours) == sorted(theirs)
                and all(same(ours[n], theirs[n]) for n in ours))
    return type(ours) is type(theirs) and ours == theirs


def mismatch(program, ours, theirs):
    """None when plait's run agrees with Koda's, else what differs."""
    for n, (a, b) in enumerate(zip(ours[0], theirs[0])):
        if not same(a, b):
            return f"step {n} ({python(program).splitlines()[n]}):\n  plait: {a!r}\n  koda:  {b!r}"
    if [i for i, _ in ours[1]] != [i for i, _ in theirs[1]]:
        return f"values read: plait {[i for i, _ in ours[1]]}, koda {[i for i, _ in theirs[1]]}"
    for (i, a), (_, b) in zip(ours[1], theirs[1]):
        if not same(a, b):
            return f"v{i}:\n  plait: {a!r}\n  koda:  {b!r}"
    return None


# --- programs as Python (failure messages, repros)

def _py_value(v):
    tag = v[0]
    if tag == "p":
        return repr(v[1])
    if tag == "r":
        return f"v{v[1]}"
    if tag == "ps":
        return f"kd.slice({v[1]!r})"
    if tag == "wa":
        return f"{_py_value(v[1])}.with_attrs({_py_attrs(v[2])})"
    if tag == "ga":
        return f"{_py_value(v[1])}.{v[2]}"
    if tag == "clone":
        return f"{_py_value(v[1])}.clone()"
    if tag in ("new", "obj"):
        return f"kd.{tag}({_py_attrs(v[1])})"
    if tag == "list":
        return f"kd.list([{', '.join(_py_value(x) for x in v[1])}])"
    if tag == "dict":
        return "kd.dict({" + ", ".join(f"{key!r}: {_py_value(x)}" for key, x in v[1]) + "})"
    raise AssertionError(v)


def _py_attrs(spec):
    return ", ".join(f"{name}={_py_value(x)}" for name, x in spec.items())


def _py_bag(b):
    if b[0] == "r":
        return f"v{b[1]}"
    if b[0] == "empty":
        return "kd.bag()"
    if b[0] == "attrs":
        return f"kd.attrs({_py_value(b[1])}, {_py_attrs(b[2])})"
    return f"{_py_value(b[1])}.get_bag()"


def _py_step(step):
    op = step[0]
    if op in ("new", "obj"):
        return f"kd.{op}({_py_attrs(step[1])})"
    if op == "list":
        return _py_value(step)
    if op == "dict":
        return _py_value(step)
    if op == "with_attrs":
        _, i, spec, method = step
        return f"v{i}.with_attrs({_py_attrs(spec)})" if method else f"kd.with_attrs(v{i}, {_py_attrs(spec)})"
    if op in ("updated", "enriched"):
        _, i, bags, method = step
        bags = ", ".join(_py_bag(b) for b in bags)
        return f"v{i}.{op}({bags})" if method else f"kd.{op}(v{i}, {bags})"
    if op == "attrs":
        return f"kd.attrs(v{step[1]}, {_py_attrs(step[2])})"
    if op == "bag_op":
        _, how, j, m = step
        return f"v{j} {how} v{m}" if how in ("<<", ">>") else f"kd.{how}(v{j}, v{m})"
    if op == "get_bag":
        return f"v{step[1]}.get_bag()"
    if op == "mutable_bag":
        return "kd.mutable_bag()"
    if op in ("bag_fork", "bag_freeze"):
        return f"v{step[1]}.{op[4:]}()"
    if op == "with_bag":
        return f"v{step[1]}.with_bag(v{step[2]})"
    if op == "clone":
        _, i, fn, overrides, method = step
        args = _py_attrs(overrides)
        return f"v{i}.{fn}({args})" if method else f"kd.{fn}(v{i}{', ' + args if args else ''})"
    if op == "expand_to":
        return f"v{step[1]}.expand_to(kd.slice({[0] * step[2]!r}))"
    if op == "dict_update":
        _, i, key, v, style = step
        fn = {"kd": "kd.with_dict_update", "bag": "kd.dict_update"}.get(style)
        return f"{fn}(v{i}, {key!r}, {_py_value(v)})" if fn else f"v{i}.with_dict_update({key!r}, {_py_value(v)})"
    if op == "setitem":
        return f"v{step[1]}[{step[2]!r}] = {_py_value(step[3])}"
    if op == "list_append":
        _, i, v, style = step
        return f"v{i}.with_list_append_update({_py_value(v)})" if style == "method" else \
            f"kd.list_append_update(v{i}, {_py_value(v)})"
    if op == "append":
        return f"v{step[1]}.append({_py_value(step[2])})"
    if op in ("fork_bag", "freeze_bag"):
        return f"v{step[1]}.{op}()"
    if op == "setattr":
        return f"v{step[1]}.{step[2]} = {_py_value(step[3])}"
    if op == "set_attrs":
        return f"v{step[1]}.set_attrs({_py_attrs(step[2])})"
    if op == "merged":
        return f"kd.with_merged_bag(v{step[1]})"
    if op == "slice":
        _, fn, items = step
        items = ", ".join(_py_value(x) for x in items)
        return f"kd.slice([{items}])" if fn == "slice" else f"kd.stack({items})"
    if op == "concat":
        return f"kd.concat(v{step[1]}, v{step[2]})"
    if op == "get_attr":
        return f"v{step[1]}.{step[2]}"
    if op == "slice_item":
        return f"v{step[1]}.S[{step[2]}]"
    raise AssertionError(op)


def python(program):
    """The steps as Python statements, one a line ("v3 = v1.with_attrs(a=2)")."""
    env_size, lines = 0, []
    for step in program:
        code = _py_step(step)
        if step[0] in WRITES:
            lines.append(code)
        else:
            lines.append(f"v{env_size} = {code}")
            env_size += 1
    return "\n".join(lines)


FORK_WITH_FALLBACKS = "forking with fallbacks is not supported. Please merge fallbacks instead."


def extension_step(ours, theirs):
    """The first step where plait does what Koda refuses by design, or None.

    plait forks a bag that has fallbacks (the fork copies the bag's own
    layer and reads the same fallbacks, O(1)); Koda raises "forking with
    fallbacks is not supported" (docs/bags.md). The program is compared up
    to that step."""
    for n, (a, b) in enumerate(zip(ours[0], theirs[0])):
        if a == ("ok",) and b[:2] == ("error", "ValueError") and FORK_WITH_FALLBACKS in b[2]:
            return n
    return None


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_bag_layering_program(koda, seed):
    program = make_program(seed)
    ours, theirs = run(kd, program), run(koda, program)
    cut = extension_step(ours, theirs)
    if cut is not None and cut > 0:
        program = program[:cut]
        ours, theirs = run(kd, program), run(koda, program)
    # Something is always compared: the first step makes a value in both.
    assert theirs[0][0] == ("ok",) and theirs[1] and theirs[1][0][0] == 0, program
    problem = mismatch(program, ours, theirs)
    if problem:
        pytest.fail(f"seed {seed}:\n{python(program)}\n{problem}", pytrace=False)
