"""Elementwise binary ops: broadcasting, promotion, layouts, Python scalars, errors."""
from opgen import T, call, vcall, layouts, broadcast_pairs, DTYPES_ALL


def calls():
    ok, bad = broadcast_pairs()
    for op in ["aten::add.Tensor", "aten::mul.Tensor"]:
        for a, b in ok:
            yield call(op, T(a), T(b))
        for a, b in bad:
            yield call(op, T(a), T(b))
        for x in layouts([2, 3, 4]):
            for y in layouts([2, 3, 4]):
                yield call(op, x, y)
        for da in DTYPES_ALL:
            for db in DTYPES_ALL:
                yield call(op, T([2, 3], da), T([3], db))
        for s in [2, 2.5, True]:
            for d in DTYPES_ALL:
                yield call(op, T([2, 3], d), s)
    for alpha in [2, 0.5, True]:
        for d in ["float32", "int64", "bool"]:
            yield call("aten::add.Tensor", T([2, 3], d), T([2, 3], d), alpha=alpha)
    # Reference kernels against PyTorch's values.
    for op in ["aten::add.Tensor", "aten::mul.Tensor"]:
        for x in layouts([2, 3, 4]):
            yield vcall(op, x, T([3, 4]))
        for d in DTYPES_ALL:
            yield vcall(op, T([2, 3], d), T([3], "float32"))
            yield vcall(op, T([2, 3], d), 3)
