"""Activations: relu/gelu/silu (+ in-place), softmax/log_softmax (dtype=, half_to_float), dropout."""
from opgen import T, call, vcall, layouts, SHAPES, DTYPES_ALL, DTYPES_FLOAT

POINTWISE = [("aten::relu", {}), ("aten::relu_", {}), ("aten::gelu", {}), ("aten::gelu", {"approximate": "tanh"}),
             ("aten::silu", {}), ("aten::silu_", {})]


def glu_calls():
    """glu: halves of an even dim (TensorIterator's layout of the two halves), odd and 0-dim errors."""
    for sizes in [[], [4], [2, 6], [2, 3, 4], [2, 0, 4], [4, 3, 2, 6], [3, 5]]:
        n = len(sizes)
        for x in layouts(sizes):
            for d in sorted({-1, 0, n - 1, 1 if n > 1 else 0}):
                yield call("aten::glu", x, d)
        yield call("aten::glu", T(sizes))
        yield call("aten::glu", T(sizes), n + 1)
    for d in DTYPES_ALL:
        yield call("aten::glu", T([2, 4], d))
    for x in layouts([2, 4, 6]):
        for d in [0, 1, -1]:
            yield vcall("aten::glu", x, d)
    for d in ["float64", "float16", "bfloat16", "int64"]:
        yield vcall("aten::glu", T([2, 4], d))


def calls():
    yield from glu_calls()
    yield from more_calls()
    # Pointwise activations.
    for op, kw in POINTWISE:
        for s in SHAPES:
            yield call(op, T(s), **kw)
        for s in [[3, 1], [2, 3, 4], [2, 3, 4, 5]]:
            for x in layouts(s):
                yield call(op, x, **kw)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), **kw)
        for v in [2.0, 3]:
            yield call(op, v, **kw)
    for ap in ["foo", "", "Tanh", "none"]:
        yield call("aten::gelu", T([2, 3]), approximate=ap)
    # Softmax family: dims in and out of range, dtype= and half_to_float.
    for name in ["softmax", "log_softmax"]:
        op = "aten::%s.int" % name
        for s in SHAPES:
            for dim in sorted({-1, 0, len(s) - 1, len(s), -len(s) - 1}):
                yield call(op, T(s), dim)
        for s in [[2, 3, 4], [2, 3, 4, 5]]:
            for x in layouts(s):
                for dim in [0, 1, -1]:
                    yield call(op, x, dim)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), 1)
            for out in ["float32", "float64", "float16", "bfloat16", "int64", "bool"]:
                yield call(op, T([2, 3], d), 1, dtype=_dt(out))
        yield call(op, 2.0, 0)
        op = "aten::_" + name
        for s in SHAPES:
            for dim in sorted({-1, 0, len(s) - 1, len(s)}):
                yield call(op, T(s), dim, False)
        for s in [[2, 3, 4], [2, 3, 4, 5]]:
            for x in layouts(s):
                for dim in [0, -1]:
                    yield call(op, x, dim, False)
        for d in DTYPES_ALL:
            for h in [False, True]:
                yield call(op, T([2, 3], d), 1, h)
        yield call(op, 2.0, 0, False)
    # Dropout: eval returns self; train keeps the layout; p out of range.
    for train in [False, True]:
        for s in SHAPES:
            yield call("aten::dropout", T(s), 0.5, train)
            yield call("aten::native_dropout", T(s), 0.5, train)
        for s in [[3, 1], [2, 3, 4], [2, 3, 4, 5]]:
            for x in layouts(s):
                yield call("aten::dropout", x, 0.3, train)
                yield call("aten::native_dropout", x, 0.3, train)
        for d in DTYPES_ALL:
            yield call("aten::dropout", T([2, 3], d), 0.5, train)
            yield call("aten::native_dropout", T([2, 3], d), 0.5, train)
        for p in [0.0, 1.0, 1.5, -0.5, 2]:
            yield call("aten::dropout", T([2, 3]), p, train)
            yield call("aten::native_dropout", T([2, 3]), p, train)
    yield call("aten::native_dropout", T([2, 3]), 0.5, None)
    yield call("aten::dropout", 1.0, 0.5, True)
    yield call("aten::native_dropout", 1.0, 0.5, True)

    # Reference kernels against PyTorch's values.
    for op, kw in POINTWISE:
        for x in layouts([2, 3, 4]):
            yield vcall(op, x, **kw)
        for d in DTYPES_ALL:
            yield vcall(op, T([2, 3], d), **kw)
    for name in ["softmax", "log_softmax"]:
        for x in layouts([2, 3, 4]):
            for dim in [0, -1]:
                yield vcall("aten::%s.int" % name, x, dim)
                yield vcall("aten::_" + name, x, dim, False)
        for d in DTYPES_ALL:
            yield vcall("aten::%s.int" % name, T([2, 3], d), 1)
            yield vcall("aten::%s.int" % name, T([2, 3], d), 1, dtype=_dt("float64"))
        yield vcall("aten::%s.int" % name, T([]), 0)
        yield vcall("aten::%s.int" % name, T([2, 0]), 1)
    for x in layouts([2, 3, 4]):
        # Eval-mode native_dropout returns the input itself under FakeTensorMode but a fresh dense copy
        # in eager mode; values are compared where both agree on the layout (dense inputs).
        dense = x.offset == 0 and 0 not in x.strides
        yield vcall("aten::dropout", x, 0.5, False)
        if dense:
            yield vcall("aten::native_dropout", x, 0.5, False)
        # p=0 and p=1 are deterministic in training mode too.
        for p in [0.0, 1.0]:
            yield vcall("aten::dropout", x, p, True)
            if dense or p == 1.0:
                yield vcall("aten::native_dropout", x, p, True)
    for d in DTYPES_FLOAT:
        yield vcall("aten::native_dropout", T([2, 3], d), 0.0, True)


def _dt(name):
    import torch
    return getattr(torch, name)


# leaky_relu/hardtanh/elu/softplus: parameters are Scalars checked against self's Python type.
MORE = [("aten::leaky_relu", [(), (0.2,), (0,), (True,)], {"negative_slope": 0.3}),
        ("aten::leaky_relu_", [(), (0.2,), (2,)], {"negative_slope": 0.3}),
        ("aten::hardtanh", [(), (-2.0, 2.0), (0, 6), (1.0, -1.0), (-1,)], {"max_val": 0.5}),
        ("aten::hardtanh_", [(), (0, 6), (-0.5, 0.5)], {"min_val": 0.0}),
        ("aten::elu", [(), (0.5,), (1, 2, 3), (1.0, 1.0507, 1.0)], {"alpha": 2.0}),
        ("aten::elu_", [(), (0.5,), (1, 2, 3), (1.0, 1.0507, 1.0)], {"scale": 2.0}),
        ("aten::relu6", [()], {}),
        ("aten::softplus", [(), (2,), (1.0, 10.0), (0.5, 5)], {"threshold": 3})]


def more_calls():
    for op, argsets, kw in MORE:
        for s in SHAPES:
            yield call(op, T(s))
        for s in [[3, 1], [2, 3, 4], [2, 3, 4, 5]]:
            for x in layouts(s):
                yield call(op, x)
        for d in DTYPES_ALL:
            for args in argsets:
                yield call(op, T([2, 3], d), *args)
        yield call(op, T([2, 3]), **kw)
        yield call(op, 2.0)
        if argsets != [()]:  # a tensor where a Scalar goes (relu6 has no slot for it)
            yield call(op, T([2, 3]), T([]))
        for x in layouts([2, 3, 4]):
            for args in argsets:
                yield vcall(op, x, *args)
        for d in DTYPES_ALL:
            yield vcall(op, T([2, 3], d), *argsets[-1])
            yield vcall(op, T([2, 3], d))
