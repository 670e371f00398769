"""Normalization: layer_norm, native_layer_norm, rms_norm, group_norm, native_group_norm,
batch_norm (eval) and _native_batch_norm_legit_no_training.

Shapes/normalized shapes, layouts (incl. channels-last), optional weight/bias, dtype mixes,
errors (normalized_shape mismatch, weight/bias shapes, groups, running stats), value calls."""
from opgen import odd_size1, T, call, vcall, layouts, DTYPES_ALL

FLOATS = ["float32", "float64", "float16", "bfloat16"]

LN_OK = [([2, 3, 4], [4]), ([2, 3, 4], [3, 4]), ([2, 3, 4], [2, 3, 4]), ([5], [5]), ([2, 0, 4], [4]), ([0, 4], [4]),
         ([2, 3, 0], [0]), ([1, 1], [1]), ([2, 3, 4, 5], [4, 5])]
LN_BAD = [([2, 3, 4], [3]), ([2, 3, 4], [4, 3]), ([2, 3, 4], []), ([4], [2, 4]), ([], [1]), ([2, 3, 4], [5])]


def gen_layer_norm(op, native):
    def c(*args, **kw):
        return call(op, *args, **kw)

    for x, ns in LN_OK:
        for wb in [(None, None), (T(ns), None), (None, T(ns)), (T(ns), T(ns))]:
            if native:
                yield c(T(x), ns, wb[0], wb[1], 1e-5)
            else:
                yield c(T(x), ns, wb[0], wb[1])
    for x in layouts([2, 3, 4]):
        for w in list(layouts([4]))[:3]:
            yield c(x, [4], w, T([4]), 1e-5) if native else c(x, [4], w, T([4]))
    for x in layouts([2, 3, 4, 5]):
        yield c(x, [5], None, None, 1e-5) if native else c(x, [5])
    for d in DTYPES_ALL:
        for dw in ["float32", d]:
            args = (T([2, 3], d), [3], T([3], dw), T([3], dw))
            yield c(*args, 1e-5) if native else c(*args)
    if not native:
        yield c(T([2, 3]), [3], eps=1e-3)
        yield c(T([2, 3]), [3], T([3]), bias=T([3]), eps=0.1, cudnn_enable=False)
    for x, ns in LN_BAD:
        yield c(T(x), ns, None, None, 1e-5) if native else c(T(x), ns)
    for w, b in [([3], None), (None, [3]), ([4, 1], None), ([], None), ([2, 4], [4])]:
        args = (T([2, 3, 4]), [4], None if w is None else T(w), None if b is None else T(b))
        yield c(*args, 1e-5) if native else c(*args)
    vc = lambda *a: vcall(op, *a, 1e-5) if native else vcall(op, *a)  # noqa: E731
    for x in layouts([2, 3, 4]):
        yield vc(x, [4], T([4]), T([4]))
    for x, ns in LN_OK[:6]:
        yield vc(T(x), ns, T(ns), None)
        yield vc(T(x), ns, None, T(ns))
    for d in ["float32", "float64"]:
        yield vc(T([2, 5], d), [5], T([5], d), T([5], d))


def gen_rms_norm():
    op = "aten::rms_norm"
    for x, ns in LN_OK:
        yield call(op, T(x), ns)
        yield call(op, T(x), ns, T(ns))
        yield call(op, T(x), ns, T(ns), 1e-3)
    for x in layouts([2, 3, 4]):
        for w in list(layouts([4]))[:3]:
            yield call(op, x, [4], w)
    for x in layouts([2, 3, 4, 5]):
        yield call(op, x, [5], None, 1e-6)
    for d in DTYPES_ALL:
        for dw in ["float32", d]:
            yield call(op, T([2, 3], d), [3], T([3], dw))
        yield call(op, T([2, 3], d), [3])
    yield call(op, T([2, 3]), [3], eps=0.5)
    for x, ns in LN_BAD:
        yield call(op, T(x), ns)
    for w in [[3], [4, 1], [], [2, 4]]:
        yield call(op, T([2, 3, 4]), [4], T(w))
    for x in layouts([2, 3, 4]):
        yield vcall(op, x, [4], T([4]))
    for x, ns in LN_OK[:6]:
        yield vcall(op, T(x), ns)
        yield vcall(op, T(x), ns, T(ns), 0.1)
    yield vcall(op, T([2, 5], "float64"), [5], T([5], "float64"))


GN_OK = [([2, 6, 4, 4], 3), ([2, 6, 4, 4], 1), ([2, 6, 4, 4], 6), ([2, 6], 2), ([2, 6, 5], 3), ([1, 4, 2, 2, 2], 2),
         ([0, 6, 4], 2), ([3, 4, 1, 1], 4)]
GN_BAD = [([2, 6, 4, 4], 4), ([2, 6, 4, 4], 0), ([2, 6, 4, 4], -1), ([6], 2), ([2, 6, 4, 4], 12), ([2, 0, 3], 1),
          ([2, 6, 0], 2), ([], 1)]


def gen_group_norm():
    op = "aten::group_norm"
    for x, g in GN_OK:
        c = x[1] if len(x) > 1 else 1
        yield call(op, T(x), g)
        yield call(op, T(x), g, T([c]), T([c]))
        yield call(op, T(x), g, T([c]))
        yield call(op, T(x), g, None, T([c]), 1e-3)
    for x in layouts([2, 6, 4, 4]):
        yield call(op, x, 3, T([6]), T([6]))
    for x in layouts([2, 6, 5]):
        yield call(op, x, 2)
    for d in DTYPES_ALL:
        for dw in ["float32", d]:
            yield call(op, T([2, 6, 3], d), 3, T([6], dw), T([6], dw))
    yield call(op, T([2, 6, 3]), 3, eps=0.1, cudnn_enabled=False)
    for x, g in GN_BAD:
        yield call(op, T(x), g)
    for w, b in [([4], None), (None, [4]), ([6, 1], None), ([2, 3], [6])]:
        yield call(op, T([2, 6, 3]), 3, None if w is None else T(w), None if b is None else T(b))
    for x in layouts([2, 4, 3]):
        yield vcall(op, x, 2, T([4]), T([4]))
    for x, g in GN_OK[:6]:
        c = x[1]
        yield vcall(op, T(x), g, T([c]), T([c]))
        yield vcall(op, T(x), g)
    yield vcall(op, T([2, 4, 3], "float64"), 2, T([4], "float64"), None)

    op = "aten::native_group_norm"
    for x, g in GN_OK:
        n, c = x[0], x[1]
        hw = 1
        for s in x[2:]:
            hw *= s
        yield call(op, T(x), None, None, n, c, hw, g, 1e-5)
        yield call(op, T(x), T([c]), T([c]), n, c, hw, g, 1e-5)
    for x in layouts([2, 6, 4, 4]):
        yield call(op, x, T([6]), T([6]), 2, 6, 16, 3, 1e-5)
    for d in DTYPES_ALL:
        yield call(op, T([2, 6, 3], d), T([6], d), T([6], d), 2, 6, 3, 3, 1e-5)
        yield call(op, T([2, 6, 3], d), T([6]), None, 2, 6, 3, 3, 1e-5)
    for args in [(2, 6, 16, 4), (2, 6, 16, 0), (2, 0, 16, 1), (2, 6, 0, 3), (2, 6, 15, 3), (3, 6, 16, 3),
                 (2, 6, 16, -2), (2, 12, 8, 3)]:
        yield call(op, T([2, 6, 4, 4]), None, None, *args, 1e-5)
    yield call(op, T([2, 6, 4, 4]), T([4]), None, 2, 6, 16, 3, 1e-5)
    yield call(op, T([2, 6, 4, 4]), None, T([4]), 2, 6, 16, 3, 1e-5)
    yield call(op, T([6]), None, None, 1, 6, 1, 3, 1e-5)
    for x in layouts([2, 4, 3]):
        yield vcall(op, x, T([4]), T([4]), 2, 4, 3, 2, 1e-5)
    yield vcall(op, T([2, 4, 3]), None, None, 2, 4, 3, 4, 0.1)


BN_OK = [[2, 3, 4, 4], [2, 3], [2, 3, 5], [1, 3, 2, 2, 2], [0, 3, 4], [4, 1, 2]]


def gen_batch_norm():
    for op in ["aten::batch_norm", "aten::_native_batch_norm_legit_no_training"]:
        legit = "legit" in op

        def c(x, w, b, rm, rv, momentum=0.1, eps=1e-5, values=False):
            f = vcall if values else call
            if legit:
                return f(op, x, w, b, rm, rv, momentum, eps)
            return f(op, x, w, b, rm, rv, False, momentum, eps, False)

        for s in BN_OK:
            ch = s[1]
            yield c(T(s), T([ch]), T([ch]), T([ch]), T([ch]))
            yield c(T(s), None, None, T([ch]), T([ch]))
            yield c(T(s), T([ch]), None, T([ch]), T([ch]), 0.5, 1e-3)
        for x in layouts([2, 3, 4, 4]):
            yield c(x, T([3]), T([3]), T([3]), T([3]))
        for x in layouts([2, 3, 5]):
            yield c(x, None, T([3]), T([3]), T([3]))
        for d in DTYPES_ALL:
            for ds in ["float32", d]:
                yield c(T([2, 3, 4], d), T([3], ds), T([3], ds), T([3], ds), T([3], ds))
        yield c(T([2, 3, 4], "float16"), T([3]), T([3]), T([3], "float64"), T([3], "float64"))
        # errors
        for s, ch in [([2, 3, 4], 4), ([2, 3, 4], 2), ([3], 3), ([], 1)]:
            yield c(T(s), T([ch]), T([ch]), T([ch]), T([ch]))
        yield c(T([2, 3, 4]), T([3]), T([3]), T([4]), T([3]))
        yield c(T([2, 3, 4]), T([3]), T([3]), T([3]), T([2]))
        yield c(T([2, 3, 4]), T([3, 1]), T([3]), T([3]), T([3]))
        yield c(T([2, 3, 4]), T([3]), T([5]), T([3]), T([3]))
        if not legit:
            yield c(T([2, 3, 4]), T([3]), T([3]), None, None)
            yield c(T([2, 3, 4]), T([3]), T([3]), T([3]), None)
        # Eager CPU batch norm returns permuted (transposed) inputs' results contiguous while
        # FakeTensorMode keeps the permutation; value calls use the layouts where both agree.
        for x in layouts([2, 3, 4]):
            if x.strides == sorted(x.strides, reverse=True):
                yield c(x, T([3]), T([3]), T([3]), T([3], fill=("index", 5)), values=True)
        for s in BN_OK[:4]:
            yield c(T(s), None, None, T([s[1]]), T([s[1]], fill=("index", 5)), 0.1, 0.5, values=True)
        yield c(T([2, 3, 4], "float64"), T([3], "float64"), T([3], "float64"), T([3], "float64"),
                T([3], "float64", fill=("index", 4)), values=True)


def calls():
    for x in odd_size1():
        n = x.sizes[-1:]
        yield call("aten::layer_norm", x, n)
        yield call("aten::layer_norm", x, n, T(n), T(n), 1e-6)
        yield call("aten::native_layer_norm", x, n, T(n), T(n), 1e-5)
    yield from gen_layer_norm("aten::layer_norm", False)
    yield from gen_layer_norm("aten::native_layer_norm", True)
    yield from gen_rms_norm()
    yield from gen_group_norm()
    yield from gen_batch_norm()
