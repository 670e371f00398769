"""Reductions: sum, mean, prod, amax/amin, max/min, argmax/argmin, var/std, cumsum, any/all, topk, sort.

Systematic loops over SHAPES x dim choices x keepdim, non-contiguous layouts, every dtype, dtype=
arguments, bad/duplicate dims, empty inputs; value calls check the reference kernels.
"""
import torch

from opgen import T, call, vcall, layouts, SHAPES, DTYPES_ALL

LAYOUT_SHAPES = [[2, 3, 4], [2, 3, 4, 5]]
OUT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool]
NOT_TENSOR = 3  # a Python number in the `self` slot: PyTorch's argument type error


def dim_lists(n):
    """Valid dim lists for a rank-n tensor (None = all dims; [] = all dims for most ops)."""
    out = [None, [], [0], [-1]]
    if n >= 2:
        out += [[1], [0, 1], [-1, 0]]
    if n >= 3:
        out += [[0, 2], [2, 0, 1], [-2]]
    return out


def bad_dim_lists(n):
    """Out-of-range and duplicate dims."""
    r = max(n, 1)
    return [[r], [-r - 1], [0, 0], [0, -r], [r + 3]]


def dim_ints(n):
    out = [0, -1]
    if n >= 2:
        out += [1, n - 1, -n]
    return sorted(set(out))


def bad_dim_ints(n):
    r = max(n, 1)
    return [r, -r - 1, r + 2]


def value_inputs():
    """Small real inputs: every layout of [2, 3, 4] plus a few dtypes of [3, 5]."""
    yield from layouts([2, 3, 4])
    for d in ["float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]:
        yield T([3, 5], d)


def dimlist_ops():
    """Ops taking a dim list: (op, dim is optional)."""
    yield "aten::sum.dim_IntList", False
    yield "aten::mean.dim", False
    yield "aten::amax", True
    yield "aten::amin", True
    yield "aten::any.dims", True
    yield "aten::all.dims", True
    yield "aten::var.dim", False
    yield "aten::std.dim", False
    yield "aten::logsumexp", False


def keep_call(op, x, dims, keepdim):
    """keepdim positionally, except var/std.dim whose third argument is `unbiased`."""
    if op in ("aten::var.dim", "aten::std.dim"):
        return call(op, x, dims, keepdim=keepdim)
    return call(op, x, dims, keepdim)


def dimlist_calls():
    for op, optional in dimlist_ops():
        for sizes in SHAPES:
            n = len(sizes)
            for dims in dim_lists(n):
                if dims is None and op in ("aten::amax", "aten::amin", "aten::logsumexp"):
                    continue  # int[1] without `?`: None is not accepted
                for keepdim in [False, True]:
                    yield keep_call(op, T(sizes), dims, keepdim)
            for dims in bad_dim_lists(n):
                yield call(op, T(sizes), dims)
        for sizes in LAYOUT_SHAPES:
            for x in layouts(sizes):
                for dims in [[0], [1, 2], [-1], []]:
                    yield keep_call(op, x, dims, True)
                    yield call(op, x, dims)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), [1])
            yield keep_call(op, T([2, 3], d), [], True)
        if optional:
            yield call(op, T([2, 3]))
            yield call(op, T([2, 3]), keepdim=True)
        yield call(op, NOT_TENSOR, [0])
        for dims in [[0], [1], [0, 1]]:
            yield call(op, T([2, 0]), dims)
            yield keep_call(op, T([0, 3]), dims, True)


def int_dim_calls():
    """Ops reducing one int dim: max.dim, min.dim, any.dim, all.dim, prod.dim_int, argmax/argmin."""
    for op in ["aten::max.dim", "aten::min.dim", "aten::any.dim", "aten::all.dim", "aten::prod.dim_int",
               "aten::argmax", "aten::argmin"]:
        for sizes in SHAPES:
            n = len(sizes)
            for d in dim_ints(n):
                for keepdim in [False, True]:
                    yield call(op, T(sizes), d, keepdim)
            for d in bad_dim_ints(n):
                yield call(op, T(sizes), d)
        for sizes in LAYOUT_SHAPES:
            for x in layouts(sizes):
                for d in [0, 1, -1]:
                    yield call(op, x, d, True)
                    yield call(op, x, d)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), 1)
            yield call(op, T([], d), 0, True)
        for d in [0, 1, -1]:
            yield call(op, T([2, 0]), d)
            yield call(op, T([0, 3]), d, True)
        yield call(op, NOT_TENSOR, 0)
    for op in ["aten::argmax", "aten::argmin"]:
        for sizes in SHAPES:
            yield call(op, T(sizes))
            yield call(op, T(sizes), None, True)
            yield call(op, T(sizes), keepdim=True)
        for x in layouts([2, 3, 4]):
            yield call(op, x)
    for op in ["aten::max.dim", "aten::min.dim", "aten::prod.dim_int", "aten::any.dim", "aten::argmax"]:
        yield call(op, T([2, 3]), dim=1, keepdim=True)


def full_calls():
    """Ops reducing everything: sum/mean/prod.default, max/min.default, any/all.default."""
    for op in ["aten::sum", "aten::mean", "aten::prod", "aten::max", "aten::min", "aten::any", "aten::all"]:
        for sizes in SHAPES:
            yield call(op, T(sizes))
        for sizes in LAYOUT_SHAPES:
            for x in layouts(sizes):
                yield call(op, x)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d))
            yield call(op, T([], d))
        yield call(op, NOT_TENSOR)


def dtype_arg_calls():
    """dtype= keyword of sum/mean/prod/cumsum (the input is cast first; mean needs a float result)."""
    for d in DTYPES_ALL:
        for od in OUT_DTYPES:
            x = T([2, 3], d)
            yield call("aten::sum", x, dtype=od)
            yield call("aten::sum.dim_IntList", x, [1], dtype=od)
            yield call("aten::mean", x, dtype=od)
            yield call("aten::mean.dim", x, [0], True, dtype=od)
            yield call("aten::prod", x, dtype=od)
            yield call("aten::prod.dim_int", x, 1, dtype=od)
            yield call("aten::cumsum", x, 1, dtype=od)
    for od in [torch.float64, torch.int64, None]:
        for x in layouts([2, 3, 4]):
            yield call("aten::sum.dim_IntList", x, None, True, dtype=od)
            yield call("aten::mean.dim", x, [1], dtype=od)


def var_std_calls():
    for op in ["aten::var.correction", "aten::std.correction"]:
        for sizes in SHAPES:
            n = len(sizes)
            yield call(op, T(sizes))
            for dims in dim_lists(n):
                for keepdim in [False, True]:
                    yield call(op, T(sizes), dims, keepdim=keepdim)
            for dims in bad_dim_lists(n):
                yield call(op, T(sizes), dims)
        for corr in [0, 1, 2, 0.5, 7, True]:
            yield call(op, T([2, 3]), [1], correction=corr)
            yield call(op, T([2, 3]), correction=corr, keepdim=True)
        for x in layouts([2, 3, 4]) :
            yield call(op, x, [0, 2], keepdim=True)
            yield call(op, x)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), [1])
            yield call(op, T([2, 3], d))
        yield call(op, NOT_TENSOR)
    for op in ["aten::var.dim", "aten::std.dim"]:
        for unbiased in [True, False]:
            yield call(op, T([2, 3, 4]), [1], unbiased)
            yield call(op, T([2, 3, 4]), [0, 2], unbiased, True)
            yield call(op, T([1, 3]), [0], unbiased)
    # var.default/std.default(self, unbiased): torch.var(x, False) records them.
    for op in ["aten::var", "aten::std"]:
        for sizes in SHAPES:
            yield call(op, T(sizes))
            yield call(op, T(sizes), False)
        for x in layouts([2, 3, 4]):
            yield call(op, x, True)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), False)
        yield call(op, T([2, 3]), unbiased=False)
        yield call(op, NOT_TENSOR)
        yield call(op, T([2, 3]), 1.5)


def cumsum_calls():
    for op in ["aten::cumsum", "aten::cumprod"]:
        for sizes in SHAPES:
            n = len(sizes)
            for d in dim_ints(n):
                yield call(op, T(sizes), d)
            for d in bad_dim_ints(n):
                yield call(op, T(sizes), d)
        for sizes in LAYOUT_SHAPES:
            for x in layouts(sizes):
                for d in [0, 1, -1]:
                    yield call(op, x, d)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), 0)
            yield call(op, T([], d), -1)
        yield call(op, NOT_TENSOR, 0)


def topk_sort_calls():
    for sizes in SHAPES:
        n = len(sizes)
        last = sizes[-1] if sizes else 1
        for k in sorted({0, 1, last, last + 1, -1}):
            yield call("aten::topk", T(sizes), k)
        for d in dim_ints(n) + bad_dim_ints(n):
            size = sizes[d] if -n <= d < n else 1
            for k in sorted({1, size}):
                yield call("aten::topk", T(sizes), k, d)
            yield call("aten::sort", T(sizes), d)
            yield call("aten::sort", T(sizes), d, True)
            yield call("aten::sort.stable", T(sizes), stable=True, dim=d)
        yield call("aten::sort", T(sizes))
        yield call("aten::sort.stable", T(sizes), stable=None)
        yield call("aten::sort.stable", T(sizes), stable=False, descending=True)
    for sizes in LAYOUT_SHAPES:
        for x in layouts(sizes):
            for d in [0, 1, -1]:
                yield call("aten::topk", x, 2, d)
                yield call("aten::topk", x, 1, d, False, False)
                yield call("aten::sort", x, d)
                yield call("aten::sort.stable", x, stable=True, dim=d, descending=True)
    for d in DTYPES_ALL:
        yield call("aten::topk", T([2, 3], d), 2)
        yield call("aten::sort", T([2, 3], d))
        yield call("aten::sort.stable", T([2, 3], d), stable=True)
    for op in ["aten::topk", "aten::sort", "aten::sort.stable"]:
        kw = {"stable": True} if op.endswith("stable") else {}
        args = [2] if op == "aten::topk" else []
        yield call(op, NOT_TENSOR, *args, **kw)
    # argsort (sort's indices), default and stable.
    for sizes in SHAPES:
        n = len(sizes)
        for d in dim_ints(n) + bad_dim_ints(n):
            yield call("aten::argsort", T(sizes), d)
            yield call("aten::argsort", T(sizes), d, True)
            yield call("aten::argsort.stable", T(sizes), stable=True, dim=d)
        yield call("aten::argsort", T(sizes))
    for sizes in LAYOUT_SHAPES:
        for x in layouts(sizes):
            for d in [0, -1]:
                yield call("aten::argsort", x, d)
                yield call("aten::argsort.stable", x, stable=False, dim=d, descending=True)
                yield vcall("aten::argsort", x, d)
                yield vcall("aten::argsort.stable", x, stable=True, dim=d, descending=True)
    for d in DTYPES_ALL:
        yield call("aten::argsort", T([2, 3], d))
        yield vcall("aten::argsort", T([2, 3], d), 0)
    yield call("aten::argsort", NOT_TENSOR)
    yield call("aten::argsort.stable", NOT_TENSOR, stable=True)
    yield call("aten::topk", T([2, 5]), k=3, dim=0, largest=False)
    yield call("aten::sort", T([2, 5]), dim=0, descending=True)


def value_calls():
    # Reductions over a dim list / everything.
    for x in value_inputs():
        n = len(x.sizes)
        for op in ["aten::sum.dim_IntList", "aten::amax", "aten::amin", "aten::any.dims", "aten::all.dims",
                   "aten::mean.dim", "aten::var.dim", "aten::std.dim", "aten::logsumexp"]:
            for dims in [[0], [-1], [0, n - 1]]:
                yield vcall(op, x, dims, dims == [0])
        for op in ["aten::var.correction", "aten::std.correction"]:
            yield vcall(op, x, [1], correction=0, keepdim=True)
            yield vcall(op, x, None, correction=2)
        for op in ["aten::sum", "aten::mean", "aten::prod", "aten::max", "aten::min", "aten::any", "aten::all",
                   "aten::var.correction", "aten::std.correction", "aten::var", "aten::std"]:
            yield vcall(op, x)
        for op in ["aten::var", "aten::std"]:
            yield vcall(op, x, False)
        for op in ["aten::max.dim", "aten::min.dim", "aten::any.dim", "aten::all.dim", "aten::prod.dim_int",
                   "aten::argmax", "aten::argmin", "aten::cumsum", "aten::cumprod"]:
            for d in [0, -1]:
                yield vcall(op, x, d)
        for op in ["aten::argmax", "aten::argmin"]:
            yield vcall(op, x)
        for d in [0, -1]:
            yield vcall("aten::sort.stable", x, stable=True, dim=d)
            yield vcall("aten::sort.stable", x, stable=True, dim=d, descending=True)
            yield vcall("aten::sort", x, d)
            yield vcall("aten::topk", x, 2, d)
            yield vcall("aten::topk", x, 1, d, False)
    # dtype= arguments.
    for op, args in [("aten::sum", []), ("aten::mean", []), ("aten::prod", []), ("aten::cumsum", [1]), ("aten::cumprod", [1]),
                     ("aten::sum.dim_IntList", [[1]]), ("aten::prod.dim_int", [0])]:
        for d in ["float32", "int32", "bool"]:
            yield vcall(op, T([2, 3], d), *args, dtype=torch.float64)
            yield vcall(op, T([2, 3], d), *args, dtype=torch.int64)
    # 0-dim and empty inputs: data-dependent errors of the real kernels (max of nothing).
    for sizes in [[], [0], [2, 0]]:
        for op in ["aten::sum", "aten::prod", "aten::max", "aten::min", "aten::any", "aten::all", "aten::argmax"]:
            yield vcall(op, T(sizes))
    yield vcall("aten::max.dim", T([2, 0]), 1)
    yield vcall("aten::cumsum", T([]), 0)
    yield vcall("aten::cumprod", T([]), 0)
    for sizes in [[], [0], [2, 0]]:
        yield vcall("aten::logsumexp", T(sizes), [0] if sizes else [])
    yield vcall("aten::sort", T([]), 0)
    yield vcall("aten::topk", T([]), 1)
    yield vcall("aten::sort", T([3, 4]), 2)
    yield vcall("aten::sort.stable", T([3, 4]), stable=True, dim=-3)


def calls():
    yield from dimlist_calls()
    yield from int_dim_calls()
    yield from full_calls()
    yield from dtype_arg_calls()
    yield from var_std_calls()
    yield from cumsum_calls()
    yield from topk_sort_calls()
    yield from value_calls()
