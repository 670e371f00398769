"""Indexing ops: advanced indexing (index.Tensor, index_put), index_select, gather, scatter,
index_copy, one_hot, embedding. Index values in value calls come from `I(sizes, n)` (valid in [0, n))."""
import torch  # noqa: F401

from opgen import T, I, call, vcall, layouts, DTYPES_ALL, DTYPES_FLOAT

IDX_DTYPES = ["int64", "int32"]


def index_lists(sizes, dt="int64"):
    """Tensor?[] index lists for a tensor of `sizes`: one/several advanced indices, None gaps
    (adjacent vs non-adjacent advanced dims), broadcasting index shapes, 0-dim and empty indices."""
    n = len(sizes)
    out = []
    for d in range(n):
        m = max(sizes[d], 1)
        pre = [None] * d
        out.append(pre + [I([2], m, dt)])
        out.append(pre + [I([2, 3], m, dt)])
        out.append(pre + [I([], m, dt)])
        out.append(pre + [I([0], m, dt)])
    if n >= 2:
        m0, m1 = max(sizes[0], 1), max(sizes[1], 1)
        out.append([I([3], m0, dt), I([3], m1, dt)])
        out.append([I([2, 1], m0, dt), I([3], m1, dt)])
        out.append([I([4], m0, dt), I([], m1, dt)])
        out.append([None, I([2], m1, dt), None])
    if n >= 3:
        m0, m1, m2 = (max(s, 1) for s in sizes[:3])
        out.append([I([2], m0, dt), None, I([2], m2, dt)])        # non-adjacent: result dims in front
        out.append([I([2, 1], m0, dt), None, I([3], m2, dt)])
        out.append([None, I([2], m1, dt), I([2], m2, dt)])        # adjacent after a slice
        out.append([I([2], m0, dt), I([2], m1, dt), I([2], m2, dt)])
    if n >= 4:
        m1, m3 = max(sizes[1], 1), max(sizes[3], 1)
        out.append([None, I([2], m1, dt), None, I([2], m3, dt)])
        out.append([None, I([5, 1], m1, dt), None, I([2], m3, dt)])
    return out


def index_calls():
    op = "aten::index.Tensor"
    for sizes in [[5], [4, 5], [3, 4, 5], [2, 3, 4, 5], [3, 0, 4]]:
        for dt in IDX_DTYPES:
            for idx in index_lists(sizes, dt):
                yield call(op, T(sizes), idx)
    for x in layouts([3, 4, 5]):
        for idx in index_lists([3, 4, 5]):
            yield call(op, x, idx)
    for x in layouts([2, 3, 4, 5]):
        for idx in index_lists([2, 3, 4, 5])[-6:]:
            yield call(op, x, idx)
    for d in DTYPES_ALL:
        yield call(op, T([4, 5], d), [I([3], 4)])
    # Boolean / int8 masks: data-dependent output size on fake tensors.
    for mdt in ["bool", "int8"]:
        yield call(op, T([4, 5]), [T([4], mdt)])
        yield call(op, T([4, 5]), [T([4, 5], mdt)])
        yield call(op, T([4, 5]), [None, T([5], mdt)])
        yield call(op, T([4, 5]), [T([3], mdt)])
    # Errors: no indices, too many, wrong dtype, shapes that do not broadcast.
    yield call(op, T([4, 5]), [])
    yield call(op, T([4, 5]), [I([2], 4), I([2], 5), I([2], 1)])
    yield call(op, T([]), [I([2], 1)])
    for bad in ["float32", "uint8", "int16", "float16"]:
        yield call(op, T([4, 5]), [T([2], bad)])
    yield call(op, T([4, 5]), [I([2], 4), I([3], 5)])
    yield call(op, T([3, 4, 5]), [I([2, 3], 3), None, I([2], 5)])
    # cpu indices into a cuda tensor are allowed.
    yield call(op, T([4, 5], device="cuda:0"), [I([3], 4)])
    yield call(op, T([4, 5], device="cuda:0"), [None, I([2, 2], 5)])
    # Values. Eager and FakeTensorMode pick different strides for 0-dim or empty indices into a
    # non-contiguous self (value calls compare metadata too), so those run on contiguous self only.
    for x in layouts([3, 4, 5]):
        for idx in index_lists([3, 4, 5])[::3]:
            plain = all(i is None or (i.sizes and all(i.sizes)) for i in idx)
            if plain or x.strides == T([3, 4, 5]).strides:
                yield vcall(op, x, idx)
    for d in ["float32", "int64", "bool", "float16"]:
        yield vcall(op, T([4, 5], d), [I([2, 2], 4), I([2], 5)])
        yield vcall(op, T([4, 5], d), [None, I([3], 5, "int32")])


def index_select_calls():
    op = "aten::index_select"
    for sizes in [[5], [4, 5], [3, 4, 5], [2, 0, 3], [2, 3, 4, 5]]:
        for dim in range(-len(sizes), len(sizes)):
            m = max(sizes[dim], 1)
            for isz in [[3], [0], []]:
                for dt in IDX_DTYPES:
                    yield call(op, T(sizes), dim, I(isz, m, dt))
    yield call(op, T([]), 0, I([1], 1))
    yield call(op, T([]), -1, I([], 1))
    for x in layouts([3, 4, 5]):
        for dim in [0, 1, 2]:
            yield call(op, x, dim, I([2], 3))
    for x in layouts([2, 3, 4, 5]):
        yield call(op, x, 1, I([4], 3))
    for d in DTYPES_ALL:
        yield call(op, T([4, 5], d), 1, I([3], 5))
    # Errors.
    yield call(op, T([4, 5]), 2, I([2], 4))
    yield call(op, T([4, 5]), -3, I([2], 4))
    yield call(op, T([4, 5]), 0, I([2, 2], 4))
    for bad in ["float32", "int16", "uint8", "bool"]:
        yield call(op, T([4, 5]), 0, T([2], bad))
    yield call(op, T([]), 1, I([1], 1))
    for x in layouts([3, 4, 5]):
        for dim in [0, 2]:
            yield vcall(op, x, dim, I([4], 3 if dim == 0 else 5))
    for d in ["float32", "int32", "bool", "bfloat16"]:
        yield vcall(op, T([4, 5], d), 1, I([3], 5, "int32"))
        yield vcall(op, T([4, 5], d), 0, I([], 4))


def gather_calls():
    op = "aten::gather"
    cases = [([4, 5], 0, [2, 5]), ([4, 5], 1, [4, 3]), ([4, 5], 1, [2, 7]), ([4, 5], -1, [4, 5]),
             ([3, 4, 5], 1, [3, 6, 5]), ([3, 4, 5], 2, [2, 2, 2]), ([5], 0, [3]), ([5], 0, [0]),
             ([], 0, []), ([], 0, [1]), ([4, 5], 0, [0, 5]), ([2, 3, 4, 5], 3, [2, 3, 4, 2])]
    for sizes, dim, isz in cases:
        for dt in IDX_DTYPES:
            yield call(op, T(sizes), dim, I(isz, max(sizes[dim], 1) if sizes else 1, dt))
    for x in layouts([3, 4, 5]):
        yield call(op, x, 1, I([3, 2, 5], 4))
    for idx in layouts([3, 4, 5], "int64"):
        yield call(op, T([3, 4, 5]), 2, idx)
    for d in DTYPES_ALL:
        yield call(op, T([4, 5], d), 1, I([4, 2], 5))
    yield call(op, T([4, 5]), 1, I([4, 2], 5), sparse_grad=False)
    # Errors: bad dim, index dtype, rank mismatch, index larger than self.
    yield call(op, T([4, 5]), 2, I([4, 2], 5))
    yield call(op, T([4, 5]), -3, I([4, 2], 5))
    for bad in ["float32", "int16", "bool"]:
        yield call(op, T([4, 5]), 1, T([4, 2], bad))
    yield call(op, T([4, 5]), 1, I([4], 5))
    yield call(op, T([4, 5]), 1, I([4, 2, 1], 5))
    yield call(op, T([4, 5]), 1, I([5, 2], 5))
    yield call(op, T([3, 4, 5]), 0, I([3, 4, 6], 3))
    for x in layouts([3, 4, 5]):
        yield vcall(op, x, 1, I([3, 2, 5], 4))
        yield vcall(op, x, 0, I([2, 4, 3], 3))
    for d in ["float32", "int64", "bool", "float16"]:
        yield vcall(op, T([4, 5], d), 1, I([4, 3], 5, "int32"))


def scatter_calls():
    for base in ["scatter", "scatter_"]:
        src_op, val_op = f"aten::{base}.src", f"aten::{base}.value"
        cases = [([4, 5], 0, [2, 5]), ([4, 5], 1, [4, 3]), ([4, 5], 1, [2, 2]), ([3, 4, 5], 2, [3, 4, 2]),
                 ([3, 4, 5], 0, [1, 1, 1]), ([5], 0, [3]), ([5], 0, [0]), ([], 0, []), ([4, 5], -1, [4, 5])]
        for sizes, dim, isz in cases:
            m = max(sizes[dim], 1) if sizes else 1
            for dt in IDX_DTYPES:
                yield call(src_op, T(sizes), dim, I(isz, m, dt), T(sizes))
                yield call(val_op, T(sizes), dim, I(isz, m, dt), 1.5)
        for x in layouts([3, 4, 5]):
            yield call(src_op, x, 1, I([3, 2, 5], 4), T([3, 4, 5]))
            yield call(val_op, x, 1, I([3, 2, 5], 4), 2)
        for d in DTYPES_ALL:
            yield call(src_op, T([4, 5], d), 1, I([4, 2], 5), T([4, 5], d))
            for v in [2, 0.5, True]:
                yield call(val_op, T([4, 5], d), 1, I([4, 2], 5), v)
        yield call(src_op, T([4, 5]), 1, I([4, 2], 5), T([6, 7]))  # src larger than index is fine
        # Errors.
        yield call(src_op, T([4, 5]), 2, I([4, 2], 5), T([4, 5]))
        yield call(val_op, T([4, 5]), -3, I([4, 2], 5), 1.0)
        for bad in ["float32", "int16", "bool"]:
            yield call(src_op, T([4, 5]), 1, T([4, 2], bad), T([4, 5]))
            yield call(val_op, T([4, 5]), 1, T([4, 2], bad), 1.0)
        yield call(src_op, T([4, 5]), 1, I([4, 2], 5), T([4, 5], "float64"))
        yield call(src_op, T([4, 5], "int64"), 1, I([4, 2], 5), T([4, 5]))
        yield call(src_op, T([4, 5]), 1, I([4], 5), T([4, 5]))
        yield call(val_op, T([4, 5]), 1, I([4, 2, 1], 5), 1.0)
        yield call(src_op, T([4, 5]), 1, I([5, 2], 5), T([5, 5]))
        yield call(val_op, T([4, 5]), 1, I([5, 2], 5), 1.0)
        yield call(src_op, T([4, 5]), 1, I([4, 3], 5), T([4, 2]))
        yield call(src_op, T([4, 5]), 1, I([4, 2], 5), T([4, 5, 1]))
        # Values: unique positions along dim (index pattern may repeat, so scatter a constant or
        # an index of size 1 along dim to keep results deterministic).
        for x in layouts([3, 4, 5]):
            yield vcall(val_op, x, 1, I([3, 2, 5], 4), 2.5)
            yield vcall(src_op, x, 1, I([3, 1, 5], 4), T([3, 4, 5]))
        for d in ["float32", "int64", "bool", "bfloat16"]:
            yield vcall(val_op, T([4, 5], d), 0, I([2, 5], 4), 1)
            yield vcall(src_op, T([4, 5], d), 0, I([1, 5], 4, "int32"), T([2, 5], d))


def index_put_calls():
    for op in ["aten::index_put", "aten::index_put_"]:
        for sizes in [[5], [4, 5], [3, 4, 5], [2, 3, 4, 5]]:
            for idx in index_lists(sizes):
                yield call(op, T(sizes), idx, T([]))
        for idx in index_lists([3, 4, 5]):
            yield call(op, T([3, 4, 5]), idx, T([1]), True)
        for x in layouts([3, 4, 5]):
            yield call(op, x, [I([2], 3)], T([4, 5]))
            yield call(op, x, [None, I([2], 4)], T([3, 2, 5]))
            yield call(op, x, [I([2], 3), None, I([2], 5)], T([2, 4]))
        for d in DTYPES_ALL:
            yield call(op, T([4, 5], d), [I([3], 4)], T([5], d))
        yield call(op, T([4, 5]), [T([4], "bool")], T([]))
        yield call(op, T([4, 5]), [T([4, 5], "bool")], T([]))
        yield call(op, T([4, 5]), [None, I([2], 5, "int32")], T([4, 2]), accumulate=True)
        # Errors: values of the wrong shape or dtype, bad index dtype, too many indices.
        yield call(op, T([4, 5]), [I([3], 4)], T([4]))
        yield call(op, T([4, 5]), [I([3], 4)], T([2, 5]))
        yield call(op, T([4, 5]), [I([3], 4)], T([5], "float64"))
        yield call(op, T([4, 5], "int64"), [I([3], 4)], T([5]))
        yield call(op, T([4, 5]), [T([3], "float32")], T([]))
        yield call(op, T([4, 5]), [I([2], 4), I([2], 5), I([2], 1)], T([]))
        yield call(op, T([4, 5]), [I([2], 4), I([3], 5)], T([]))
        yield call(op, T([4, 5]), [T([3], "bool")], T([]))
        yield call(op, T([4, 5]), [], T([]))
        yield call(op, T([4, 5]), [I([3], 4)], T([5], device="cuda:0"))
        yield call(op, T([4, 5], device="cuda:0"), [I([3], 4)], T([5]))
        yield call(op, T([4, 5], device="cuda:0"), [I([3], 4)], T([]))
        yield call(op, T([4, 5]), [I([3], 4)], T([], device="meta"))
        for x in layouts([3, 4, 5]):
            yield vcall(op, x, [I([2], 3)], T([4, 5]))
            yield vcall(op, x, [None, I([3], 4), I([1], 5)], T([]), True)
        for d in ["float32", "int64", "bool", "float16"]:
            yield vcall(op, T([4, 5], d), [I([1], 4), I([3], 5)], T([3], d))
            yield vcall(op, T([4, 5], d), [None, I([2, 3], 5, "int32")], T([], d), True)


def _index_dim_cases():
    """(self sizes, dim, index, source) over shapes and every dim: 2 indices into self's dim."""
    for sizes in [[5], [4, 5], [3, 4, 5], [2, 0, 3]]:
        for dim in range(-len(sizes), len(sizes)):
            src = list(sizes)
            src[dim] = 2
            yield sizes, dim, I([2], max(sizes[dim], 1)), T(src)


def index_copy_calls():
    for op in ["aten::index_copy", "aten::index_copy_"]:
        for sizes, dim, idx, src in _index_dim_cases():
            yield call(op, T(sizes), dim, idx, src)
        yield call(op, T([]), 0, I([1], 1), T([]))
        yield call(op, T([4, 5]), 0, I([], 4), T([5]))
        for x in layouts([3, 4, 5]):
            yield call(op, x, 1, I([2], 4), T([3, 2, 5]))
        for d in DTYPES_ALL:
            yield call(op, T([4, 5], d), 1, I([3], 5), T([4, 3], d))
        # Errors.
        yield call(op, T([4, 5]), 2, I([2], 4), T([2, 5]))
        yield call(op, T([4, 5]), 0, I([2, 1], 4), T([2, 5]))
        yield call(op, T([4, 5]), 0, T([2], "int32"), T([2, 5]))
        yield call(op, T([4, 5]), 0, T([2], "float32"), T([2, 5]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([3, 5]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2, 4]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2, 5, 1]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2, 5], "float64"))
        # Values: an index of one element keeps the result deterministic.
        for x in layouts([3, 4, 5]):
            yield vcall(op, x, 1, I([1], 4), T([3, 1, 5]))
            yield vcall(op, x, 2, I([1], 5), T([3, 4, 1]))
        for d in ["float32", "int64", "bool", "bfloat16"]:
            yield vcall(op, T([4, 5], d), 0, I([1], 4), T([1, 5], d))


def one_hot_calls():
    op = "aten::one_hot"
    for sizes in [[], [0], [5], [2, 3], [2, 3, 4]]:
        for n in [1, 3, 7]:
            yield call(op, I(sizes, n), n)
    yield call(op, I([2, 3], 3), num_classes=4)
    yield call(op, T([2, 3], "int64", [1, 2]), 3)
    yield call(op, T([2, 3], "int64", [0, 1]), 3)
    # Errors: num_classes=-1 needs the data; wrong dtype; bad num_classes.
    yield call(op, I([4], 3))
    yield call(op, I([4], 3), -1)
    for bad in ["int32", "float32", "bool", "uint8"]:
        yield call(op, T([4], bad), 3)
    yield call(op, I([4], 3), -2)
    yield call(op, I([4], 3), 0)
    # Values: contiguous only (eager one_hot allocates contiguous, FakeTensorMode follows `==`'s strides).
    for sizes in [[], [5], [2, 3]]:
        for n in [1, 4]:
            yield vcall(op, I(sizes, n), n)


def embedding_calls():
    op = "aten::embedding"
    for isz in [[], [0], [3], [2, 3], [2, 3, 4]]:
        for dt in IDX_DTYPES:
            yield call(op, T([10, 4]), I(isz, 10, dt))
    for w in layouts([10, 4]):
        yield call(op, w, I([2, 3], 10))
    for idx in layouts([2, 3], "int64"):
        yield call(op, T([10, 4]), idx)
    for d in DTYPES_FLOAT + ["int64", "bool"]:
        yield call(op, T([10, 4], d), I([3], 10))
    yield call(op, T([10, 4]), I([3], 10), 2)
    yield call(op, T([10, 4]), I([3], 10), padding_idx=0, scale_grad_by_freq=True)
    yield call(op, T([10, 4]), I([3], 10), -1, False, True)
    # Errors: weight not 2-D, bad index dtype.
    yield call(op, T([10]), I([3], 10))
    yield call(op, T([10, 4, 2]), I([3], 10))
    for bad in ["float32", "int16", "uint8", "bool"]:
        yield call(op, T([10, 4]), T([3], bad))
    for w in layouts([10, 4]):
        yield vcall(op, w, I([2, 3], 10))
    for d in ["float32", "float16", "int64"]:
        yield vcall(op, T([6, 3], d), I([4], 6, "int32"), 1)
        yield vcall(op, T([6, 3], d), I([], 6))


def calls():
    yield from index_add_calls()
    yield from index_calls()
    yield from index_select_calls()
    yield from gather_calls()
    yield from scatter_calls()
    yield from index_put_calls()
    yield from index_copy_calls()
    yield from one_hot_calls()
    yield from embedding_calls()


def index_add_calls():
    for op in ["aten::index_add", "aten::index_add_"]:
        for sizes, dim, idx, src in _index_dim_cases():
            yield call(op, T(sizes), dim, idx, src)
            yield call(op, T(sizes), dim, idx, src, alpha=2)
        yield call(op, T([]), 0, I([1], 1), T([]))
        yield call(op, T([]), 0, I([], 1), T([]))
        yield call(op, T([4, 5]), 0, I([], 4), T([5]))
        yield call(op, T([4, 5]), 0, I([], 4), T([1, 5]))
        for x in layouts([3, 4, 5]):
            yield call(op, x, 1, I([2], 4), T([3, 2, 5]))
        for s in layouts([3, 2, 5]):
            yield call(op, T([3, 4, 5]), 1, I([2], 4), s)
        for d in DTYPES_ALL:
            yield call(op, T([4, 5], d), 1, I([3], 5), T([4, 3], d))
            for alpha in [2, 1.5, True, 1]:
                yield call(op, T([4, 5], d), 1, I([3], 5), T([4, 3], d), alpha=alpha)
        for d in ["int32", "float32", "bool", "int16"]:
            yield call(op, T([4, 5]), 0, T([2], d), T([2, 5]))
        # Errors and lenient cases: bad dim, 2-d index, count mismatch, other shapes and dtypes.
        yield call(op, T([4, 5]), 2, I([2], 4), T([2, 5]))
        yield call(op, T([4, 5]), -3, I([2], 4), T([2, 5]))
        yield call(op, T([4, 5]), 0, I([2, 1], 4), T([2, 5]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([3, 5]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2, 4]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2, 1]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2, 5, 1]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2]))
        yield call(op, T([4, 5]), 0, I([1], 4), T([]))
        yield call(op, T([4, 5]), 0, I([2], 4), T([2, 5], "float64"))
        yield call(op, T([4, 5], "int64"), 0, I([2], 4), T([2, 5], "float32"))
        yield call(op, T([4, 5]), 0, I([2], 4), 1.0)
        # Values: repeated indices accumulate.
        for x in layouts([3, 4, 5]):
            yield vcall(op, x, 1, I([3], 4), T([3, 3, 5]))
            yield vcall(op, x, 2, I([2], 5), T([3, 4, 2]), alpha=2)
        for d in ["float32", "int64", "bool", "bfloat16", "float16", "int32"]:
            yield vcall(op, T([4, 5], d), 0, I([3], 4), T([3, 5], d))
            yield vcall(op, T([4, 5], d), 1, I([4], 5), T([4, 4], d), alpha=3 if d != "bool" else True)
        yield vcall(op, T([]), 0, I([], 1), T([]), alpha=0.5)
        yield vcall(op, T([4, 5]), 0, I([], 4), T([5]))
