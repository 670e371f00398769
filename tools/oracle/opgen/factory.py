"""Factory ops: empty/zeros/ones/full/rand/randn, their *_like and new_* forms, arange, linspace,
empty_strided, scalar_tensor. dtype inference from Python numbers, dtype/layout/device/pin_memory
and memory_format keyword arguments, size errors. Random and uninitialised ops get no value calls."""
import torch

from opgen import T, call, vcall, layouts, non_dense_permuted, SHAPES, DTYPES_ALL, DTYPES_FLOAT

NEW = ["aten::empty.memory_format", "aten::zeros", "aten::ones", "aten::rand", "aten::randn"]
LIKE = ["aten::empty_like", "aten::zeros_like", "aten::ones_like", "aten::rand_like", "aten::randn_like"]
NEW_FROM = ["aten::new_empty", "aten::new_zeros", "aten::new_ones"]
DEVICES = [torch.device(d) for d in ["cpu", "meta", "cuda", "cuda:1"]]
# Non-strided layouts are out of scope (we make strided tensors only); these ops reject sparse_coo
# in PyTorch too, so the error call is comparable. (empty, zeros, zeros_like, new_empty build sparse tensors.)
SPARSE_FAILS = {"aten::ones", "aten::full", "aten::rand", "aten::randn", "aten::empty_like", "aten::rand_like",
                "aten::randn_like", "aten::full_like", "aten::ones_like", "aten::new_zeros", "aten::new_ones",
                "aten::new_full"}
# Ops whose values are deterministic (value calls compare them).
DETERMINISTIC = {"aten::zeros", "aten::ones", "aten::full", "aten::zeros_like", "aten::ones_like",
                 "aten::full_like", "aten::new_zeros", "aten::new_ones", "aten::new_full"}


def size_kwargs():
    """Keyword combinations every factory accepts."""
    yield {}
    for d in DTYPES_ALL:
        yield {"dtype": getattr(torch, d)}
    for dev in DEVICES:
        yield {"device": dev}
    yield {"layout": torch.strided}
    yield {"pin_memory": False}
    yield {"dtype": torch.float64, "layout": torch.strided, "device": torch.device("cpu"), "pin_memory": False}
    yield {"dtype": None, "layout": None, "device": None, "pin_memory": None}


def new_calls():
    for op in NEW + ["aten::full"]:
        fill = [2.5] if op == "aten::full" else []
        for s in SHAPES:
            yield call(op, s, *fill)
        for kw in size_kwargs():
            yield call(op, [2, 3], *fill, **kw)
        # Errors: negative sizes, non-strided layouts, pinned memory without an accelerator.
        yield call(op, [2, -1], *fill)
        yield call(op, [-3], *fill)
        if op in SPARSE_FAILS:
            yield call(op, [2, 3], *fill, layout=torch.sparse_coo)
        yield call(op, [2, 3], *fill, pin_memory=True)
        if op in DETERMINISTIC:
            for s in [[], [0], [2, 3]]:
                for d in ["float32", "int64", "bool", "float16"]:
                    yield vcall(op, s, *fill, dtype=getattr(torch, d))
    for mf in [torch.contiguous_format, torch.channels_last, torch.preserve_format, torch.channels_last_3d]:
        for s in [[2, 3, 4, 5], [2, 3, 4], [2, 3, 4, 5, 6], [2, 1, 4, 1]]:
            yield call("aten::empty.memory_format", s, memory_format=mf)
    # full: the fill value picks the dtype (bool -> bool, int -> int64, float -> default float).
    for fill in [2, 2.5, True, False, -7, 0.0, float("inf"), float("nan")]:
        yield call("aten::full", [2, 3], fill)
        for d in ["float32", "int64", "bool", "int8", "bfloat16", "uint8"]:
            yield call("aten::full", [2, 3], fill, dtype=getattr(torch, d))
        yield vcall("aten::full", [2, 3], fill)
    for op in ["aten::rand", "aten::randn"]:
        for d in ["int64", "bool", "int32"]:
            yield call(op, [2, 3], dtype=getattr(torch, d))


def like_calls():
    for op in LIKE + ["aten::full_like"]:
        fill = [2.5] if op == "aten::full_like" else []
        for s in SHAPES:
            yield call(op, T(s), *fill)
        for x in list(layouts([2, 3, 4, 5])) + list(layouts([3, 4])) + list(non_dense_permuted()):
            yield call(op, x, *fill)
            for mf in [torch.contiguous_format, torch.preserve_format, torch.channels_last]:
                yield call(op, x, *fill, memory_format=mf)
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), *fill)
            yield call(op, T([2, 3], "float32"), *fill, dtype=getattr(torch, d))
        for dev in DEVICES:
            yield call(op, T([2, 3]), *fill, device=dev)
            yield call(op, T([2, 3], device="cuda:0"), *fill, device=dev)
        yield call(op, T([2, 3], device="cuda:0"), *fill)
        yield call(op, T([2, 3]), *fill, layout=torch.strided, pin_memory=False)
        # Errors: channels_last needs rank 4, non-strided layouts, pinned memory.
        yield call(op, T([2, 3, 4]), *fill, memory_format=torch.channels_last)
        yield call(op, T([2, 3, 4, 5]), *fill, memory_format=torch.channels_last_3d)
        if op in SPARSE_FAILS:
            yield call(op, T([2, 3]), *fill, layout=torch.sparse_coo)
        yield call(op, T([2, 3]), *fill, pin_memory=True)
        if op in DETERMINISTIC:
            for x in layouts([2, 3, 4]):
                yield vcall(op, x, *fill)
            for d in ["float32", "int64", "bool"]:
                yield vcall(op, T([2, 3], d), *fill)
    for fill in [2, 2.5, True, -7]:
        for d in ["float32", "int64", "bool", "uint8"]:
            yield call("aten::full_like", T([2, 3], d), fill)
            yield vcall("aten::full_like", T([2, 3], d), fill)
    for op in ["aten::rand_like", "aten::randn_like"]:
        for d in ["int64", "bool", "int32"]:
            yield call(op, T([2, 3], d))
            yield call(op, T([2, 3]), dtype=getattr(torch, d))


def new_from_calls():
    for op in NEW_FROM + ["aten::new_full"]:
        fill = [2.5] if op == "aten::new_full" else []
        for s in SHAPES:
            yield call(op, T([2, 3]), s, *fill)
        for x in layouts([2, 3, 4]):
            yield call(op, x, [3, 2], *fill)
        for d in DTYPES_ALL:
            yield call(op, T([2], d), [2, 3], *fill)
        for kw in size_kwargs():
            yield call(op, T([2], "int32"), [2, 3], *fill, **kw)
            yield call(op, T([2], device="cuda:0"), [2, 3], *fill, **kw)
        yield call(op, T([2], device="meta"), [2, 3], *fill)
        # Errors: negative sizes, non-strided layouts, pinned memory.
        yield call(op, T([2]), [2, -1], *fill)
        yield call(op, T([2]), [-5], *fill)
        if op in SPARSE_FAILS:
            yield call(op, T([2]), [2, 3], *fill, layout=torch.sparse_coo)
        yield call(op, T([2]), [2, 3], *fill, pin_memory=True)
        if op != "aten::new_empty":
            for d in ["float32", "int64", "bool"]:
                yield vcall(op, T([2], d), [2, 3], *fill)
                yield vcall(op, T([2], d), [], *fill, dtype=torch.float64)
    for fill in [2, 2.5, True, -7]:
        for d in ["float32", "int64", "bool"]:
            yield call("aten::new_full", T([2], d), [2, 3], fill)
            yield vcall("aten::new_full", T([2], d), [2, 3], fill)


def arange_calls():
    ends = [5, 0, 1, 5.5, 2.0, -0.5, True, 10 ** 6]
    for end in ends:
        yield call("aten::arange", end)
        yield vcall("aten::arange", end) if (isinstance(end, (int, float)) and 0 <= end < 100) else call("aten::arange", end, dtype=torch.float64)
    for d in DTYPES_ALL:
        yield call("aten::arange", 5, dtype=getattr(torch, d))
        yield call("aten::arange", 4.5, dtype=getattr(torch, d))
        yield call("aten::arange.start", 1, 7, dtype=getattr(torch, d))
        yield call("aten::arange.start_step", 0, 2, 0.25, dtype=getattr(torch, d))
    for dev in DEVICES:
        yield call("aten::arange", 5, device=dev)
        yield call("aten::arange.start_step", 1, 5, 2, device=dev)
    starts_ends = [(0, 5), (2, 7), (5, 5), (7, 2), (-3, 3), (0.5, 4), (1, 4.25), (-2.5, 2.5), (True, 3), (0, 0.1)]
    for s, e in starts_ends:
        yield call("aten::arange.start", s, e)
        yield vcall("aten::arange.start", s, e) if e >= s else call("aten::arange.start", s, e, dtype=torch.int32)
    steps = [1, 2, 3, -1, -2, 0.5, -0.5, 0.3, 7, 1e-3]
    for (s, e) in [(0, 10), (10, 0), (1.5, 3), (-4, 4), (3, 3), (0, 1)]:
        for st in steps:
            yield call("aten::arange.start_step", s, e, st)
            if (e - s) * st >= 0 and abs((e - s) / st) < 200:
                yield vcall("aten::arange.start_step", s, e, st)
                yield vcall("aten::arange.start_step", s, e, st, dtype=torch.float64)
                yield vcall("aten::arange.start_step", s, e, st, dtype=torch.int64)
    yield call("aten::arange.start_step", 0, 10)
    yield call("aten::arange.start_step", 0, 10, step=3)
    yield call("aten::arange", 5, layout=torch.strided, pin_memory=False)
    # Errors: zero step, bounds inconsistent with the step's sign, non-finite bounds, bad layout.
    yield call("aten::arange.start_step", 0, 10, 0)
    yield call("aten::arange.start_step", 0, 10, 0.0)
    yield call("aten::arange.start_step", 0, 10, -1)
    yield call("aten::arange.start_step", 10, 0, 1)
    yield call("aten::arange.start_step", 0.0, 1.0, -0.5)
    yield call("aten::arange.start", 5, 2)
    yield call("aten::arange.start", 5.5, 2)
    yield call("aten::arange", -3)
    yield call("aten::arange", -0.5)
    yield call("aten::arange", float("inf"))
    yield call("aten::arange", float("nan"))
    yield call("aten::arange.start", float("-inf"), 0)
    yield call("aten::arange.start_step", 0, 1, float("inf"))
    yield call("aten::arange.start_step", 0, 1, float("nan"))
    yield call("aten::arange", 5, layout=torch.sparse_coo)
    yield call("aten::arange.start", 0, 5, layout=torch.sparse_coo)
    yield call("aten::arange.start_step", 0, 5, 1, pin_memory=True)


def linspace_calls():
    op = "aten::linspace"
    for s, e in [(0, 1), (0, 10), (1.5, -2.5), (-3, 3), (True, False), (2, 2)]:
        for n in [0, 1, 2, 5, 7]:
            yield call(op, s, e, n)
            yield vcall(op, s, e, n)
    for d in DTYPES_ALL:
        yield call(op, 0, 10, 5, dtype=getattr(torch, d))
        yield vcall(op, -2, 10, 5, dtype=getattr(torch, d))
    for dev in DEVICES:
        yield call(op, 0, 1, 3, device=dev)
    yield call(op, 0, 1, steps=4)
    # Errors: negative steps, bad layout, pinned memory.
    yield call(op, 0, 1, -1)
    yield call(op, 0, 1, -5)
    yield call(op, 0, 1, 3, layout=torch.sparse_coo)
    yield call(op, 0, 1, 3, pin_memory=True)


def eye_calls():
    for n in [0, 1, 3, 300, 70000]:
        yield call("aten::eye", n)
        yield call("aten::eye.m", n, 2)
        yield call("aten::eye.m", 2, n)
    for d in DTYPES_ALL:
        yield call("aten::eye", 3, dtype=getattr(torch, d))
        yield vcall("aten::eye.m", 3, 4, dtype=getattr(torch, d))
    for dev in DEVICES:
        yield call("aten::eye", 2, device=dev)
    yield vcall("aten::eye", 4)
    yield vcall("aten::eye.m", 4, 2)
    # Errors: negative sizes, bad layout.
    yield call("aten::eye", -1)
    yield call("aten::eye.m", 3, -2)
    yield call("aten::eye", 3, layout=torch.sparse_coo)


def empty_strided_calls():
    op = "aten::empty_strided"
    cases = [([], []), ([0], [1]), ([2, 3], [3, 1]), ([2, 3], [1, 2]), ([2, 3], [0, 0]), ([2, 3], [10, 2]),
             ([2, 3, 4], [1, 2, 6]), ([3, 1], [1, 7]), ([2, 0, 3], [0, 3, 1]), ([2, 3, 4, 5], [60, 1, 15, 3])]
    for s, st in cases:
        yield call(op, s, st)
    for kw in size_kwargs():
        yield call(op, [2, 3], [1, 2], **kw)
    # Errors: mismatched lengths, negative sizes, bad layout, pinned memory.
    yield call(op, [2, 3], [1])
    yield call(op, [2], [1, 1])
    yield call(op, [2, -3], [1, 1])
    yield call(op, [2, 3], [3, 1], layout=torch.sparse_coo)
    yield call(op, [2, 3], [3, 1], pin_memory=True)


def empty_permuted_calls():
    op = "aten::empty_permuted"
    for s, perm in [([], []), ([2, 3], [0, 1]), ([2, 3], [1, 0]), ([2, 3, 4], [2, 0, 1]), ([2, 0, 3], [1, 2, 0]),
                    ([2, 3, 4, 5], [0, 2, 3, 1]), ([1, 3, 1], [2, 1, 0])]:
        yield call(op, s, perm)
    for kw in size_kwargs():
        yield call(op, [2, 3], [1, 0], **kw)
    # Errors: layout length, out-of-range and repeated dims, negative sizes.
    yield call(op, [2, 3], [0])
    yield call(op, [2, 3], [0, 2])
    yield call(op, [2, 3], [1, 1])
    yield call(op, [2, 3], [-1, 0])
    yield call(op, [2, -3], [0, 1])


def scalar_tensor_calls():
    op = "aten::scalar_tensor"
    for s in [2, 2.5, True, -7, 0.0, float("inf")]:
        yield call(op, s)
        yield vcall(op, s)
        for d in DTYPES_ALL:
            yield call(op, s, dtype=getattr(torch, d))
        for d in ["int64", "float64", "bool", "float16"]:
            yield vcall(op, s, dtype=getattr(torch, d))
    for dev in DEVICES:
        yield call(op, 1.0, device=dev)
    yield call(op, 1.0, layout=torch.strided, pin_memory=False)
    # Errors: bad layout, pinned memory.
    yield call(op, 1.0, layout=torch.sparse_coo)
    yield call(op, 1.0, pin_memory=True)


def calls():
    yield from new_calls()
    yield from like_calls()
    yield from new_from_calls()
    yield from arange_calls()
    yield from linspace_calls()
    yield from eye_calls()
    yield from empty_strided_calls()
    yield from empty_permuted_calls()
    yield from scalar_tensor_calls()
