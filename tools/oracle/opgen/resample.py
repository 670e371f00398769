"""Resampling and layout helpers real exported programs record: adaptive_avg_pool1d (wav2vec2-style
poolers), pad (constant mode; Swin/ConvNeXt), upsample_bilinear2d.vec (BEiT's position bias
interpolation), im2col (F.unfold: ConvBERT), numpy_T (`x.T` on a non-matrix), meshgrid.indexing
(relative position tables)."""
import torch

from opgen import T, call, vcall, layouts, SHAPES, DTYPES_ALL


def adaptive_avg_pool1d_calls():
    op = "aten::adaptive_avg_pool1d"
    for s in [[2, 3, 8], [3, 8], [2, 3, 7], [1, 4, 1]]:
        for x in layouts(s):
            for o in [[1], [2], [3], [s[-1]], [s[-1] + 2]]:
                yield call(op, x, o)
    for d in DTYPES_ALL:
        yield call(op, T([2, 3, 8], d), [2])
    yield call(op, T([2, 3, 4, 8]), [2])
    yield call(op, T([8]), [2])
    yield call(op, T([2, 3, 8]), [2, 2])
    yield call(op, T([2, 0, 8]), [2])
    yield call(op, T([2, 3, 0]), [2])
    for x in layouts([2, 3, 7]):
        for o in [[1], [3], [5]]:
            yield vcall(op, x, o)
    yield vcall(op, T([3, 8], "float64"), [3])


def pad_calls():
    op = "aten::pad"
    for s in [[2, 3], [2, 3, 4], [1, 2, 3, 4]]:
        for x in layouts(s):
            for p in [[1, 1], [0, 2], [1, 2, 3, 0], [2, 0, 0, 1], [-1, 1], [0, 0]]:
                yield call(op, x, p)
                yield call(op, x, p, "constant", 1.5)
    for d in DTYPES_ALL:
        yield call(op, T([2, 3], d), [1, 1], "constant", 0.0)
    yield call(op, T([2, 3]), [1, 1, 1, 1, 1, 1])
    yield call(op, T([2, 3]), [1])
    yield call(op, T([2, 3]), [-2, -2])
    # Only mode="constant" is declared: PyTorch's other modes decompose into reflection_pad*/
    # replication_pad* ops, which are separate registry entries when a program needs them.
    for x in layouts([2, 3, 4]):
        yield vcall(op, x, [1, 2, 0, 1])
        yield vcall(op, x, [-1, 1], "constant", 2.0)
    yield vcall(op, T([2, 3], "int64"), [1, 1], "constant", 7.0)
    yield vcall(op, T([2, 3], "bool"), [1, 0])


def constant_pad_nd_calls():
    """constant_pad_nd (what pad's constant mode is, and what run_decompositions() records)."""
    op = "aten::constant_pad_nd"
    for s in [[2, 3], [2, 3, 4], [1, 2, 3, 4]]:
        for x in layouts(s):
            for p in [[1, 1], [0, 2], [1, 2, 3, 0], [-1, 1], [0, 0], [-1, -1]]:
                yield call(op, x, p)
                yield call(op, x, p, 1.5)
    for d in DTYPES_ALL:
        yield call(op, T([2, 3], d), [1, 1], 0)
    yield call(op, T([2, 3]), [1, 1, 1, 1, 1, 1])
    yield call(op, T([2, 3]), [1])
    yield call(op, T([2, 3]), [-2, -2])
    for x in layouts([2, 3, 4]):
        yield vcall(op, x, [1, 2, 0, 1])
        yield vcall(op, x, [-1, 1], 2.0)
    yield vcall(op, T([2, 3], "int64"), [1, 1], 7)
    yield vcall(op, T([2, 3], "bool"), [1, 0])


def upsample_calls():
    op = "aten::upsample_bilinear2d.vec"
    for x in layouts([1, 2, 3, 4]):
        for size, ac in [([6, 8], False), ([6, 8], True), ([2, 3], False), ([3, 4], False), ([5, 7], True)]:
            yield call(op, x, size, ac, None)
        for sf, ac in [([2.0, 2.0], False), ([1.5, 0.5], True)]:
            yield call(op, x, None, ac, sf)
    for d in ["float32", "float64", "float16", "bfloat16", "int64", "uint8"]:
        yield call(op, T([1, 2, 3, 4], d), [6, 8], False, None)
    yield call(op, T([2, 3, 4]), [6, 8], False, None)
    yield call(op, T([1, 2, 3, 4]), [6], False, None)
    yield call(op, T([1, 2, 3, 4]), None, False, None)
    yield call(op, T([1, 2, 3, 4]), [6, 8], False, [2.0, 2.0])
    for x in layouts([1, 2, 3, 4]):
        for size, ac in [([6, 8], False), ([5, 7], True), ([2, 3], False)]:
            yield vcall(op, x, size, ac, None)
        yield vcall(op, x, None, False, [1.5, 2.0])
    yield vcall(op, T([2, 1, 4, 4], "float64"), [7, 7], False, None)


def numpy_t_calls():
    op = "aten::numpy_T"
    for s in SHAPES:
        for x in layouts(s):
            yield call(op, x)
    yield vcall(op, T([2, 3, 4]))
    yield call(op, 3)  # a Python number is not a tensor


def meshgrid_calls():
    op = "aten::meshgrid.indexing"
    for idx in ["ij", "xy"]:
        for shapes in [[[3], [4]], [[3], [4], [2]], [[5]], [[2], [0]], [[], [3]]]:
            yield call(op, [T(s, "int64") for s in shapes], indexing=idx)
        yield call(op, [T([3]), T([4], "float64")], indexing=idx)
        yield vcall(op, [T([3], "int64"), T([4], "int64")], indexing=idx)
    yield call(op, [], indexing="ij")
    yield call(op, [T([3]), T([4])], indexing="yx")


def im2col_calls():
    """im2col (F.unfold; ConvBERT's [k, 1] kernel over [B, C, L, 1]): its metadata is torch._decomp's
    im2col run on FakeTensors, so layouts, size-1 dims and an empty batch are sampled."""
    op = "aten::im2col"
    params = [([3, 1], [1, 1], [1, 0], [1, 1]), ([2, 2], [1, 1], [0, 0], [1, 1]), ([2, 3], [1, 2], [1, 1], [2, 1]),
              ([1, 1], [1, 1], [0, 0], [1, 1]), ([3, 3], [2, 1], [2, 0], [1, 3])]
    for s in [[2, 3, 5, 6], [1, 4, 5, 1], [3, 5, 6], [1, 1, 6, 6]]:
        for x in layouts(s):
            for k, d, p, st in params:
                yield call(op, x, k, d, p, st)
    for dt in DTYPES_ALL:
        yield call(op, T([2, 3, 5, 6], dt), [2, 2], [1, 1], [0, 0], [1, 1])
    yield call(op, T([0, 3, 5, 6]), [2, 2], [1, 1], [0, 0], [1, 1])
    # Errors, in the decomposition's order.
    yield call(op, T([2, 3, 5, 6]), [0, 2], [1, 1], [0, 0], [1, 1])
    yield call(op, T([2, 3, 5, 6]), [2, 2], [1, 0], [0, 0], [1, 1])
    yield call(op, T([2, 3, 5, 6]), [2, 2], [1, 1], [0, 0], [1, -1])
    yield call(op, T([3, 5]), [2, 2], [1, 1], [0, 0], [1, 1])
    yield call(op, T([2, 0, 5, 6]), [2, 2], [1, 1], [0, 0], [1, 1])
    yield call(op, T([3, 5, 0]), [2, 2], [1, 1], [0, 0], [1, 1])
    yield call(op, T([2, 3, 5, 6]), [6, 2], [1, 1], [0, 0], [1, 1])
    yield call(op, T([2, 3, 5, 6]), [2, 2], [1, 4], [0, 0], [1, 1])
    for x in layouts([2, 3, 5, 6]):
        yield vcall(op, x, [2, 3], [1, 2], [1, 1], [2, 1])
        yield vcall(op, x, [3, 1], [1, 1], [1, 0], [1, 1])
    yield vcall(op, T([3, 5, 6], "float64"), [2, 2], [2, 1], [1, 0], [1, 2])
    yield vcall(op, T([1, 2, 4, 4], "int64"), [2, 2], [1, 1], [0, 0], [2, 2])


def calls():
    yield from adaptive_avg_pool1d_calls()
    yield from pad_calls()
    yield from constant_pad_nd_calls()
    yield from upsample_calls()
    yield from im2col_calls()
    yield from numpy_t_calls()
    yield from meshgrid_calls()
