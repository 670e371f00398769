"""Conversion ops: _to_copy, the to.* overloads (self returned when nothing changes), type_as,
_assert_tensor_metadata, _local_scalar_dense (data-dependent on fake tensors), sym_size.int, sym_stride.int,
sym_numel, sym_storage_offset."""
import torch

from opgen import T, call, vcall, layouts, non_dense_permuted, SHAPES, DTYPES_ALL

DEVICES = [torch.device(d) for d in ["cpu", "meta", "cuda", "cuda:0", "cuda:1"]]
# `to(device="cuda")` (no index) needs the current cuda device, which a PyTorch without CUDA cannot
# name ("not linked with support for cuda devices"); with CUDA it means cuda:0, as our "cuda" does.
TO_DEVICES = [d for d in DEVICES if str(d) != "cuda"]
FORMATS = [torch.contiguous_format, torch.preserve_format, torch.channels_last]
VALUE_DTYPES = ["float32", "float64", "int64", "int32", "bool", "float16", "bfloat16", "uint8"]


def inputs():
    for s in SHAPES:
        yield T(s)
    yield from layouts([2, 3, 4, 5])
    yield from layouts([3, 4])
    yield from non_dense_permuted()


def to_copy_calls():
    op = "aten::_to_copy"
    for x in inputs():
        yield call(op, x)
        yield call(op, x, dtype=torch.float16)
        for mf in FORMATS:
            yield call(op, x, memory_format=mf)
    for a in DTYPES_ALL:
        for b in DTYPES_ALL:
            yield call(op, T([2, 3], a), dtype=getattr(torch, b))
    for dev in DEVICES:
        yield call(op, T([2, 3]), device=dev)
        yield call(op, T([2, 3], device="cuda:0"), device=dev)
    yield call(op, T([2, 3]), dtype=torch.float64, layout=torch.strided, device=torch.device("cpu"),
               pin_memory=False, non_blocking=True, memory_format=torch.preserve_format)
    # Errors: channels_last needs rank 4 (rank 5 for channels_last_3d).
    yield call(op, T([2, 3]), memory_format=torch.channels_last)
    yield call(op, T([2, 3, 4]), memory_format=torch.channels_last)
    yield call(op, T([2, 3, 4, 5]), memory_format=torch.channels_last_3d)
    for x in layouts([2, 3, 4]):
        for b in VALUE_DTYPES:
            yield vcall(op, x, dtype=getattr(torch, b))
    for a in VALUE_DTYPES:
        yield vcall(op, T([2, 3], a), dtype=torch.float32)
        yield vcall(op, T([2, 3], a), dtype=torch.int64)
        yield vcall(op, T([2, 3], a), dtype=torch.bool)


def to_calls():
    for x in inputs():
        yield call("aten::to.dtype", x, torch.float32)
        yield call("aten::to.dtype", x, torch.float64)
        yield call("aten::to.dtype", x, torch.float32, copy=True)
        yield call("aten::to.dtype_layout", x, dtype=torch.float32, layout=torch.strided, device=torch.device("cpu"))
        yield call("aten::to.device", x, torch.device("cpu"), torch.float32)
        yield call("aten::to.other", x, T([2], "float32"))
        for mf in FORMATS:
            yield call("aten::to.dtype", x, torch.float32, memory_format=mf)
            yield call("aten::to.dtype_layout", x, memory_format=mf)
            yield call("aten::to.device", x, torch.device("cpu"), torch.float32, memory_format=mf)
            yield call("aten::to.other", x, T([2]), memory_format=mf)
    for a in DTYPES_ALL:
        for b in ["float32", "int64", "bool", "bfloat16"]:
            yield call("aten::to.dtype", T([2, 3], a), getattr(torch, b))
            yield call("aten::to.dtype_layout", T([2, 3], a), dtype=getattr(torch, b))
            yield call("aten::to.device", T([2, 3], a), torch.device("cpu"), getattr(torch, b))
            yield call("aten::to.other", T([2, 3], a), T([1], b))
    for dev in TO_DEVICES:
        for src in ["cpu", "cuda:0"]:
            yield call("aten::to.dtype_layout", T([2, 3], device=src), device=dev)
            yield call("aten::to.dtype_layout", T([2, 3], device=src), dtype=torch.float32, device=dev, copy=True)
            yield call("aten::to.device", T([2, 3], device=src), dev, torch.float32)
            yield call("aten::to.device", T([2, 3], device=src), dev, torch.float64, True, False)
            yield call("aten::to.other", T([2, 3], device=src), T([], device=str(dev)))
    yield call("aten::to.dtype_layout", T([2, 3]))
    yield call("aten::to.dtype_layout", T([2, 3]), copy=True)
    yield call("aten::to.dtype_layout", T([2, 3]), dtype=torch.float32, layout=torch.strided, pin_memory=False,
               non_blocking=True)
    yield call("aten::to.other", T([2, 3]), T([2, 3], "float64"), True, True)
    yield call("aten::to.dtype", T([2, 3]), torch.float32, True, False)
    # Errors: memory formats the rank cannot take.
    for x in [T([2, 3]), T([2, 3, 4])]:
        yield call("aten::to.dtype", x, torch.float64, memory_format=torch.channels_last)
        yield call("aten::to.dtype", x, torch.float32, memory_format=torch.channels_last)
        yield call("aten::to.dtype_layout", x, memory_format=torch.channels_last)
        yield call("aten::to.device", x, torch.device("cpu"), torch.float32, memory_format=torch.channels_last)
        yield call("aten::to.other", x, T([2]), memory_format=torch.channels_last)
    yield call("aten::to.dtype_layout", T([2, 3, 4, 5]), memory_format=torch.channels_last_3d)
    yield call("aten::to.dtype", T([2, 3, 4, 5]), torch.float16, memory_format=torch.channels_last_3d)
    # Values (copies only: an alias has no new values to compare).
    for x in layouts([2, 3, 4]):
        for b in ["float64", "int32", "bool"]:
            yield vcall("aten::to.dtype", x, getattr(torch, b))
            yield vcall("aten::to.dtype_layout", x, dtype=getattr(torch, b))
            yield vcall("aten::to.device", x, torch.device("cpu"), getattr(torch, b))
            yield vcall("aten::to.other", x, T([1], b))
        yield vcall("aten::to.dtype", x, torch.float32, copy=True)
    for a in VALUE_DTYPES:
        yield vcall("aten::to.dtype", T([5], a), torch.float16)
        yield vcall("aten::to.dtype", T([5], a), torch.uint8)


def type_as_calls():
    op = "aten::type_as"
    for x in inputs():
        yield call(op, x, T([2]))
        yield call(op, x, T([2], "float64"))
    for a in DTYPES_ALL:
        for b in DTYPES_ALL:
            yield call(op, T([2, 3], a), T([1], b))
    for dev in ["cpu", "cuda:0", "meta"]:
        yield call(op, T([2, 3]), T([2], "float64", device=dev))
        yield call(op, T([2, 3], device="cuda:0"), T([2], "int64", device=dev))
    # Errors: `other` must be a tensor.
    yield call(op, T([2, 3]), 2.0)
    yield call(op, T([2, 3]), None)
    for x in layouts([2, 3, 4]):
        for b in ["float64", "int64", "bool", "float16"]:
            yield vcall(op, x, T([1], b))


def assert_metadata_calls():
    op = "aten::_assert_tensor_metadata"
    for x in [T([2, 3]), T([2, 3], "int64", [1, 2]), T([], "bool"), T([2, 3], device="cuda:0"), T([0, 4], offset=2)]:
        dt = getattr(torch, x.dtype)
        dev = torch.device(x.device if x.device == "cpu" else "cuda:0")
        yield call(op, x)
        yield call(op, x, x.sizes, x.strides, dt)
        yield call(op, x, x.sizes, x.strides, dt, device=dev, layout=torch.strided)
        yield call(op, x, None, None, dt, device=dev, layout=torch.strided)
        yield call(op, x, dtype=dt)
        yield call(op, x, device=dev)
        # Errors: each field mismatching.
        yield call(op, x, x.sizes + [1])
        yield call(op, x, None, [7] * len(x.strides))
        yield call(op, x, dtype=torch.float16)
        yield call(op, x, device=torch.device("meta"))
        yield call(op, x, device=torch.device("cuda:1"))
        yield call(op, x, layout=torch.sparse_coo)
    yield call(op, T([2, 3]), device=torch.device("cuda"))
    yield call(op, T([2, 3], device="cuda:0"), device=torch.device("cuda"))


def local_scalar_calls():
    # On fake tensors every call is data-dependent; value calls read real one-element tensors (the
    # harness compares the Python number) and fail on real tensors of other sizes.
    op = "aten::_local_scalar_dense"
    for s in [[], [1], [1, 1], [2, 3], [0]]:
        for d in ["float32", "int64", "bool"]:
            yield call(op, T(s, d))
    for s in [[], [1], [1, 1, 1]]:
        for d in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]:
            yield vcall(op, T(s, d))
            yield vcall(op, T(s, d, offset=5))


def sym_size_calls():
    op = "aten::sym_size.int"
    for x in inputs():
        for d in range(-len(x.sizes) - 1, len(x.sizes) + 1):
            yield call(op, x, d)
    yield call(op, T([]), 0)
    yield call(op, T([]), -1)


def sym_stride_calls():
    op = "aten::sym_stride.int"
    for x in inputs():
        for d in range(-len(x.sizes) - 1, len(x.sizes) + 1):
            yield call(op, x, d)
    yield call(op, T([2, 3], strides=[1, 2]), 1)
    yield call(op, T([]), 0)


def sym_numel_calls():
    # No tensor can make it fail: the error call is one without its argument.
    op = "aten::sym_numel"
    for x in inputs():
        yield call(op, x)
    yield call(op, T([]))
    yield call(op, T([0, 3]))
    yield call(op)


def sym_storage_offset_calls():
    # No tensor can make it fail: the error call is one without its argument.
    op = "aten::sym_storage_offset"
    for x in inputs():
        yield call(op, x)
    yield call(op, T([2, 3], strides=[3, 1], offset=4))
    yield call(op, T([]))
    yield call(op)


def calls():
    yield from inplace_fill_calls()
    yield from copy_calls()
    yield from fill_calls()
    yield from to_copy_calls()
    yield from to_calls()
    yield from type_as_calls()
    yield from assert_metadata_calls()
    yield from local_scalar_calls()
    yield from sym_size_calls()
    yield from sym_stride_calls()
    yield from sym_numel_calls()
    yield from sym_storage_offset_calls()


def fill_calls():
    """fill.Scalar / fill.Tensor / zero (the functional forms of fill_ and zero_, what functionalization
    records)."""
    for x in layouts([2, 3, 4]):
        yield call("aten::fill.Scalar", x, 1.5)
        yield call("aten::fill.Tensor", x, T([]))
        yield vcall("aten::fill.Scalar", x, 2)
        yield vcall("aten::fill.Tensor", x, T([]))
    for d in DTYPES_ALL:
        for v in [True, 2, -1.5]:
            yield call("aten::fill.Scalar", T([2, 3], d), v)
        for e in ["float32", "int64", "bool"]:
            yield call("aten::fill.Tensor", T([2, 3], d), T([], e))
    yield call("aten::fill.Tensor", T([3, 4], strides=[0, 1]), T([]))
    for v in [T([1]), T([2]), 1.0]:
        yield call("aten::fill.Tensor", T([2, 3]), v)
    for v in [T([]), T([2])]:
        yield call("aten::fill.Scalar", T([2, 3]), v)
    yield vcall("aten::fill.Tensor", T([2, 3], "int64"), T([]))
    # zero (zero_'s functional form): a fresh zero tensor laid out like self.
    for x in layouts([2, 3, 4]):
        yield call("aten::zero", x)
        yield vcall("aten::zero", x)
    for d in DTYPES_ALL:
        yield call("aten::zero", T([2, 3], d))
    yield call("aten::zero", T([3, 4], strides=[0, 1]))
    yield call("aten::zero", 1.0)


def copy_calls():
    """copy (functional copy_, what functionalization and run_decompositions() record): src broadcast into
    a copy of self that keeps self's strides."""
    op = "aten::copy"
    for x in layouts([2, 3, 4]):
        yield call(op, x, T([2, 3, 4]))
        yield call(op, T([2, 3, 4]), x)
        yield call(op, x, T([3, 1]))
        yield vcall(op, x, T([4]))
    for d in ["float32", "int64", "bool", "bfloat16"]:
        for e in ["float32", "int64", "bool"]:
            yield call(op, T([2, 3], d), T([3], e))
    yield vcall(op, T([2, 3], "int64"), T([2, 3]))
    for a, b in [([2, 3], []), ([2, 3], [2, 1]), ([3], [2, 3]), ([2, 3], [3, 2]), ([0, 3], [3])]:
        yield call(op, T(a), T(b))
    yield call(op, T([3, 4], strides=[0, 1]), T([3, 4]))
    yield call(op, T([2, 3]), T([2, 3]), True)


def inplace_fill_calls():
    """zero_, fill_, copy_ (in place: self comes back) and lift_fresh_copy."""
    for x in inputs():
        yield call("aten::zero_", x)
        yield call("aten::fill_.Scalar", x, 1.5)
        yield call("aten::fill_.Tensor", x, T([]))
        yield call("aten::copy_", x, T(x.sizes))
        yield call("aten::lift_fresh_copy", x)
    for x in layouts([2, 3, 4]):
        yield call("aten::lift_fresh_copy", x)
        yield call("aten::copy_", T([2, 3, 4]), x)
        yield call("aten::copy_", x, T([3, 1]))
    for d in DTYPES_ALL:
        yield call("aten::zero_", T([2, 3], d))
        yield call("aten::lift_fresh_copy", T([2, 3], d))
        for v in [True, 2, -1.5, 0]:
            yield call("aten::fill_.Scalar", T([2, 3], d), v)
        for e in DTYPES_ALL:
            yield call("aten::fill_.Tensor", T([2, 3], d), T([], e))
            yield call("aten::copy_", T([2, 3], d), T([3], e))
    # Broadcasting src to self, and errors: shape mismatch, src bigger than self, 1-d fill value,
    # internal overlap (expanded self), a number for a tensor.
    for a, b in [([2, 3], []), ([2, 3], [1, 3]), ([2, 3], [2, 1]), ([2, 3], [4]), ([3], [2, 3]),
                 ([2, 3], [3, 2]), ([0, 3], [3]), ([2, 3], [2, 3, 1])]:
        yield call("aten::copy_", T(a), T(b))
    yield call("aten::copy_", T([2, 3]), T([2, 3]), True)
    yield call("aten::copy_", T([2, 3]), T([2, 3]), non_blocking=True)
    for v in [T([1]), T([2]), T([2, 3]), 1.0]:
        yield call("aten::fill_.Tensor", T([2, 3]), v)
    yield call("aten::fill_.Scalar", T([2, 3]), T([]))
    for op, extra in [("aten::zero_", ()), ("aten::fill_.Scalar", (2,)), ("aten::fill_.Tensor", (T([]),)),
                      ("aten::copy_", (T([3, 4]),))]:
        yield call(op, T([3, 4], strides=[0, 1]), *extra)
        yield call(op, 1.0, *extra)
    yield call("aten::lift_fresh_copy", 1.0)
    # Values.
    for x in layouts([2, 3, 4]):
        yield vcall("aten::zero_", x)
        yield vcall("aten::fill_.Scalar", x, -2.5)
        yield vcall("aten::fill_.Tensor", x, T([], "float64"))
        yield vcall("aten::copy_", x, T([3, 4], "int64"))
        yield vcall("aten::copy_", T([2, 3, 4]), x)
        yield vcall("aten::lift_fresh_copy", x)
    for d in VALUE_DTYPES:
        yield vcall("aten::zero_", T([2, 3], d))
        yield vcall("aten::fill_.Scalar", T([2, 3], d), 3)
        yield vcall("aten::fill_.Scalar", T([2, 3], d), True)
        yield vcall("aten::fill_.Tensor", T([2, 3], d), T([], "float32"))
        yield vcall("aten::lift_fresh_copy", T([2, 3], d))
        for e in VALUE_DTYPES:
            yield vcall("aten::copy_", T([2, 3], d), T([3], e))
