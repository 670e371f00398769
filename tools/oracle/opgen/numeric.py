"""Numeric ops that real exported programs use beyond the core families: diff (with prepend/append,
orders n >= 0), histc, linalg_vector_norm, _weight_norm, min.other/max.other, item,
_assert_scalar, _print (with_effects in decomposed programs). HuggingFace decoders record diff (packed-sequence detection), MoE routers histc,
SigLIP/ConvNeXt linalg_vector_norm, wav2vec2/HuBERT _weight_norm, MPNet min.other."""
import torch

from opgen import T, call, vcall, layouts, SHAPES, DTYPES_ALL, DTYPES_FLOAT, DTYPES_INT


def diff_calls():
    op = "aten::diff"
    for s in [[5], [2, 3], [2, 3, 4], [3, 1], [2, 0, 3], [2, 3, 4, 5]]:
        for x in layouts(s):
            for dim in range(-len(s), len(s)):
                yield call(op, x, 1, dim)
    for x in layouts([2, 6]):
        for n in [0, 2, 3, 6, 7]:
            yield call(op, x, n, -1)
    for d in DTYPES_ALL:
        yield call(op, T([2, 5], d), 1, -1)
        yield call(op, T([2, 5], d), 2, 0)
    # prepend / append (the HF pattern: diff(position_ids, 1, -1, prepend=...)); dtype promotion through cat
    for pre, app in [([2, 1], None), (None, [2, 2]), ([2, 1], [2, 3]), ([2, 0], None)]:
        yield call(op, T([2, 6], "int64"), 1, -1, T(pre, "int64") if pre else None, T(app, "int64") if app else None)
        yield call(op, T([2, 6]), 1, -1, T(pre) if pre else None, T(app) if app else None)
    yield call(op, T([2, 6], "int64"), 1, -1, T([2, 1]), None)
    yield call(op, T([3, 2]), 1, 0, T([1, 2], "float64"), None)
    yield call(op, T([2, 6]), 1, -1, T([2, 1], "bool"), T([2, 1], "bool"))
    for x in layouts([3, 4]):
        yield call(op, x, 1, 0, T([1, 4]), T([2, 4]))
    # errors: 0-dim input, negative order, prepend rank, bad dim
    yield call(op, T([]), 1, -1)
    yield call(op, T([3]), -1, -1)
    yield call(op, T([2, 3]), 1, -1, T([3]), None)
    yield call(op, T([2, 3]), 1, -1, None, T([2]))
    yield call(op, T([2, 3]), 1, 2)
    yield call(op, T([2, 3]), 1, -1, T([3, 1]), None)
    # values (int64 is what HF records; bool computes logical_xor)
    for d in ["float32", "int64", "bool", "float64"]:
        yield vcall(op, T([2, 6], d), 1, -1)
        yield vcall(op, T([3, 4], d), 2, 0)
    for x in layouts([3, 4]):
        yield vcall(op, x, 1, -1)
        yield vcall(op, x, 1, 0, T([1, 4]), T([2, 4]))
    yield vcall(op, T([2, 6], "int64"), 1, -1, T([2, 1], "int64"), None)
    yield vcall(op, T([2, 6], "int64"), 0, -1)
    yield vcall(op, T([2, 4]), 5, -1)


def histc_calls():
    op = "aten::histc"
    for s in SHAPES:
        yield call(op, T(s), 4, 0, 3)
    for x in layouts([2, 3, 4]):
        yield call(op, x, 10, -1.5, 2.5)
    for d in DTYPES_ALL:
        yield call(op, T([6], d), 4, 0, 3)
    yield call(op, T([6]), 0, 0, 3)
    yield call(op, T([6]), 4, 3, 0)
    yield call(op, T([6]))
    for d in DTYPES_FLOAT:
        yield vcall(op, T([3, 4], d), 4, 0, 3)
    yield vcall(op, T([24]), 7, 2, 20)
    yield vcall(op, T([24]), 5, 0, 0)  # min == max: the data's range
    yield vcall(op, T([4, 6]), 3, 5, 5)
    for x in layouts([2, 3, 4]):
        yield vcall(op, x, 6, 1, 22)


def vector_norm_calls():
    op = "aten::linalg_vector_norm"
    for s in [[5], [2, 3], [2, 3, 4], [2, 0, 3], [2, 3, 4, 5], []]:
        for x in layouts(s):
            yield call(op, x)
            for dim in [None, [-1], [0]] + ([[1, 2], [0, -1]] if len(s) >= 3 else []):
                if dim is not None and not s:
                    continue
                for keep in [False, True]:
                    yield call(op, x, 2, dim, keep)
    for ordv in [2, 1, 0, 3.5, float("inf"), float("-inf")]:
        yield call(op, T([2, 3]), ordv, [1], True)
    for d in DTYPES_ALL + ["complex64"]:
        yield call(op, T([2, 3], d), 2, [-1], True)
    yield call(op, T([2, 3]), 2, [-1], True, dtype=torch.float64)
    yield call(op, T([2, 3], "float16"), 2, [-1], False, dtype=torch.float32)
    yield call(op, T([2, 3]), 2, [2], True)
    yield call(op, T([2, 3]), 2, [0, 0], True)
    yield call(op, T([2, 0]), float("inf"), [1], False)
    for ordv in [2, 1, 0, 3.0, float("inf"), float("-inf")]:
        yield vcall(op, T([3, 4]), ordv, [-1], True)
    for x in layouts([2, 3, 4]):
        yield vcall(op, x, 2, [1, 2], True)
        yield vcall(op, x, 2, None, False)
    yield vcall(op, T([2, 3], "float16"), 2, [-1], True)
    yield vcall(op, T([2, 3], "bfloat16"), 2, [0], False)


def weight_norm_calls():
    op = "aten::_weight_norm"
    for vs, dim in [([4, 3, 5], 0), ([4, 3, 5], 2), ([4, 3, 5], 1), ([4, 3, 5], -1), ([6, 4], 0), ([6, 4], 1), ([5], 0)]:
        gs = [1] * len(vs)
        gs[dim % len(vs)] = vs[dim % len(vs)]
        for v in layouts(vs):
            yield call(op, v, T(gs), dim)
        yield vcall(op, T(vs), T(gs), dim)
        for d in ["float64", "float16", "bfloat16"]:
            yield call(op, T(vs, d), T(gs, d), dim)
        yield call(op, T(vs), T(gs, "float64"), dim)
    yield vcall(op, T([4, 3, 5], "bfloat16"), T([1, 1, 5], "bfloat16"), 2)
    for x in layouts([4, 3, 5]):
        yield vcall(op, x, T([1, 1, 5]), 2)
    yield call(op, T([4, 3, 5]), T([4, 1, 1]), 3)
    yield call(op, T([4, 3, 5]), T([1, 1, 5]), -1)


def min_max_other_calls():
    for name in ["min", "max"]:
        op = f"aten::{name}.other"
        for a, b in [([2, 3], [2, 3]), ([2, 3], [3]), ([3, 1], [1, 4]), ([], [2, 3]), ([2, 0], [2, 1])]:
            yield call(op, T(a), T(b))
        for x in layouts([2, 3, 4]):
            yield call(op, x, T([2, 3, 4]))
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), T([2, 3], "int64"))
            yield call(op, T([2, 3], d), T([2, 3], "float32"))
        yield call(op, T([2, 3]), T([4, 3]))
        yield call(op, T([2, 3], "complex64"), T([2, 3], "complex64"))
        for d in ["int64", "float32", "bool", "float16"]:
            yield vcall(op, T([2, 3], d), T([3], d))
        for x in layouts([2, 3, 4]):
            yield vcall(op, x, T([3, 1]))


def item_calls():
    # On fake tensors item is data-dependent; on real ones it is the value (a Python number).
    for s in [[], [1], [1, 1], [2], [0]]:
        yield call("aten::item", T(s))
    for d in ["int64", "float32", "bool", "int32"]:
        yield vcall("aten::item", T([], d))
        yield vcall("aten::item", T([1, 1], d))
    yield vcall("aten::item", T([3]))


def assert_scalar_calls():
    op = "aten::_assert_scalar"
    yield vcall(op, True, "Runtime assertion failed for expression Eq(u0, 3) on node 'eq'")
    yield vcall(op, 1, "nonzero int passes")
    yield vcall(op, False, "Runtime assertion failed for expression u0 >= 0 on node 'ge'")
    yield vcall(op, 0, "zero fails")


def assert_async_calls():
    # one_hot's decomposition checks its classes with _assert_async.msg: FakeTensorMode checks
    # nothing; eager is is_nonzero(self) or the message.
    op = "aten::_assert_async.msg"
    for x in [T([], "bool"), T([1], "bool"), T([2], "bool"), T([0], "bool"), T([], "float32"), T([1, 1], "int64")]:
        yield call(op, x, "one_hot: Class values must be non-negative.")
        yield vcall(op, x, "one_hot: Class values must be non-negative.")
    yield vcall(op, T([], "bool"), "")
    yield call(op, 1.0, "a number")
    yield call(op, T([], "bool"), 3)


def print_calls():
    # Programs decomposed with an effectful op record with_effects(token, aten._print.default, s).
    yield vcall("aten::_print", "hello")
    yield vcall("aten::_print", "")
    yield vcall("aten::_print", 3)


def calls():
    yield from diff_calls()
    yield from histc_calls()
    yield from vector_norm_calls()
    yield from weight_norm_calls()
    yield from min_max_other_calls()
    yield from item_calls()
    yield from assert_scalar_calls()
    yield from assert_async_calls()
    yield from print_calls()
