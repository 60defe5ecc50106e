"""A short tour of plait: slices, shapes, broadcasting, indexing and schemas.

Run with `make demo`.
"""

from plait import kd


def show(label, value):
    print(f"{label:<44} {value!r}")


print("== DataSlices: jagged, typed, with missing values ==")
x = kd.slice([[["a", "b"], ["c"]], [["d", "e", "f"]]])
show("x", x)
show("x.get_shape()", x.get_shape())
show("kd.get_ndim(x)", kd.get_ndim(x))
show("kd.slice([1, None, 3])", kd.slice([1, None, 3]))
show("kd.slice([1, 'a', 2.5])  (mixed: OBJECT)", kd.slice([1, "a", 2.5]))

print("\n== Shapes: uniform sizes or split points ==")
shape = kd.shapes.new(2, [2, 1], [2, 1, 3])
show("kd.shapes.new(2, [2, 1], [2, 1, 3])", shape)
show("kd.shapes.get_sizes(shape)", kd.shapes.get_sizes(shape))
show("kd.flatten(x)  (no copy)", kd.flatten(x))
show("kd.flatten(x, 1)", kd.flatten(x, 1))
show("kd.reshape(kd.flatten(x), kd.shapes.new(2, 3))", kd.reshape(kd.flatten(x), kd.shapes.new(2, 3)))

print("\n== Broadcasting: by prefix, unlike numpy ==")
queries = kd.slice(["query_1", "query_2"])
docs = kd.slice([["doc_1", "doc_2"], ["doc_3"]])
show("kd.expand_to(queries, docs)", kd.expand_to(queries, docs))
try:
    kd.expand_to(kd.slice(["a", "b", "c"]), docs)
except ValueError as error:
    print(f"{'kd.expand_to(3 items, docs) fails:':<44} {error}")

print("\n== Indexing with .S ==")
y = kd.slice([["a", "b"], ["c"], ["d", "e", "f"]])
show("y.S[2, 1]", y.S[2, 1])
show("y.S[2, ...]", y.S[2, ...])
show("y.S[1]  (last dimension, missing if absent)", y.S[1])
show("y.S[:, 1:]", y.S[:, 1:])

print("\n== Schemas and type promotion ==")
show("kd.slice([1, 2.0]).get_schema()", kd.slice([1, 2.0]).get_schema())
show("kd.slice([1, 2**40])", kd.slice([1, 2**40]))
show("common_schema([INT32, FLOAT64])", kd.schema.common_schema(kd.slice([kd.INT32, kd.FLOAT64])))
show("kd.int32(['1', '22'])", kd.int32(["1", "22"]))
show("kd.cast_to(kd.slice([1.7, -1.7]), kd.INT64)", kd.cast_to(kd.slice([1.7, -1.7]), kd.INT64))
try:
    kd.int32("abc")
except ValueError as error:
    print(f"{'kd.int32(abc) fails:':<44} {error}")

print("\n== Operators: broadcasting, promotion, missing items ==")
prices = kd.slice([[1.5, 2.0], [None], [4.0, 1.0, 3.0]])
show("prices", prices)
show("prices * 2", prices * 2)
show("kd.agg_sum(prices)", kd.agg_sum(prices))
show("kd.math.agg_max(prices, ndim=2)", kd.math.agg_max(prices, ndim=2))
show("prices & (prices > 1.5)", prices & (prices > 1.5))
show("kd.select(prices, prices > 1.5)", kd.select(prices, prices > 1.5))
show("kd.sort(prices, descending=True)", kd.sort(prices, descending=True))
try:
    kd.slice([1, 2]) + "a"
except ValueError as error:
    print(f"{'kd.slice([1, 2]) + a fails:':<44} {error}")

print("\n== Expressions: build once, evaluate many times ==")
I = kd.I
total = kd.lazy.math.agg_sum(I.prices * (1 + I.tax))
show("expression", total)
show("kd.eval(expression, ...)", kd.eval(total, prices=prices, tax=0.2))


@kd.optools.as_lambda_operator("discounted")
def discounted(x, rate=0.1):
    return x * (1 - rate)


show("discounted(I.p)", discounted(I.p))
show("prepared (inlined, folded)", kd.expr.prepare(discounted(I.p)))
show("kd.eval(discounted(I.p), p=prices)", kd.eval(discounted(I.p), p=prices))
