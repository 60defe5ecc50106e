"""Benchmark workloads of extension types (`kd.extension_type`): making a
value from slices, reading an attribute, `with_attrs`, and a functor taking
and returning an extension value. Each is a loop of calls on small values,
where the cost is per call (binding, casts, dispatch), not per item."""

from bench_common import on_both


def _classes(kd):
    """A point type and a functor moving a point, for library `kd`."""

    @kd.extension_type()
    class BenchPoint:
        x: kd.FLOAT32
        y: kd.FLOAT32

    def moved(p: BenchPoint):
        return BenchPoint(x=p.x + 1, y=p.y)

    return BenchPoint, kd.fn(moved)


def workloads(scale, pkd, kkd):
    calls = max(1, int(2_000 * scale))
    state = {}

    def prepare(kd, name):
        if name in state:
            return
        point, moved = _classes(kd)
        xs, ys = kd.slice([float(i) for i in range(100)]), kd.slice([float(-i) for i in range(100)])
        state[name] = (point, moved, xs, ys, point(x=xs, y=ys))

    def make(kd, s):
        point, _, xs, ys, _ = s
        for _ in range(calls):
            point(x=xs, y=ys)

    def read(kd, s):
        p = s[4]
        for _ in range(calls):
            p.x  # noqa: B018 - the attribute read is the work

    def with_attrs(kd, s):
        p, xs = s[4], s[2]
        for _ in range(calls):
            p.with_attrs(x=xs)

    def call(kd, s):
        moved, p = s[1], s[4]
        for _ in range(calls // 10):
            moved(p, return_type_as=p)

    both = on_both(state, pkd, kkd)
    yield f"extension value from slices x{calls}", both(make), prepare
    yield f"extension attribute read x{calls}", both(read), prepare
    yield f"extension with_attrs x{calls}", both(with_attrs), prepare
    yield f"functor on an extension value x{calls // 10}", both(call), prepare
