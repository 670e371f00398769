"""View and shape ops: view/reshape (computeStride, -1 inference), permute/transpose, expand,
squeeze/unsqueeze, flatten/unflatten, contiguous/clone, slice/select/narrow, split/chunk/unbind,
alias, as_strided. Views must keep PyTorch's strides and storage offsets and alias their input."""
import itertools

from opgen import T, call, vcall, layouts, non_dense_permuted, SHAPES, DTYPES_ALL, transposed, sliced, expanded, channels_last

# Shapes with size-1 dims (squeeze) and a channels-last-able 4-D shape.
EXTRA = [[1, 1], [2, 1, 3, 1], [1, 2, 1, 2]]
VIEW_SHAPES = SHAPES + EXTRA
SMALL_DTYPES = ["float32", "int64", "bool", "bfloat16", "float16", "int8"]


def numel(s):
    n = 1
    for x in s:
        n *= x
    return n


def factor_pairs(n):
    return [(a, n // a) for a in range(2, n) if n % a == 0]


def reshape_targets(sizes):
    """Targets for view/reshape: merges and splits of adjacent dims, -1 inference, and invalid ones."""
    n, nd = numel(sizes), len(sizes)
    ts = [[-1], [n], list(reversed(sizes)), sizes + [1], [1] + sizes, [1, -1], [-1, 1]]
    for i in range(nd - 1):
        merged = sizes[:i] + [sizes[i] * sizes[i + 1]] + sizes[i + 2:]
        ts.append(merged)
        ts.append(merged[:i] + [-1] + merged[i + 1:])
    for i, s in enumerate(sizes):
        for a, b in factor_pairs(s):
            ts.append(sizes[:i] + [a, b] + sizes[i + 1:])
            ts.append(sizes[:i] + [a, -1] + sizes[i + 1:])
    if n == 1:
        ts.append([])
    # Invalid: wrong element count, two -1s, negative sizes, ambiguous -1 with 0 elements.
    ts += [[n + 1], [-1, -1], [-2], [n, -3], [0, -1], [2, -1]]
    if n:
        ts.append([])
    out = []
    for t in ts:
        if t not in out:
            out.append(t)
    return out


def dims_of(sizes):
    nd = max(len(sizes), 1)
    return list(range(-nd, nd))


def bad_dims(sizes):
    nd = max(len(sizes), 1)
    return [nd, -nd - 1]


def calls():
    yield from view_calls()
    yield from permute_calls()
    yield from expand_calls()
    yield from squeeze_calls()
    yield from diagonal_calls()
    yield from flatten_calls()
    yield from copy_calls()
    yield from slice_calls()
    yield from slice_scatter_calls()
    yield from select_scatter_calls()
    yield from split_calls()
    yield from strided_calls()


def slice_scatter_calls():
    """slice_scatter(self, src, dim, start, end, step): a copy of self (self's strides kept unless it
    overlaps itself) with src written into the slice. The meta checks nothing; the kernel does."""
    op = "aten::slice_scatter"
    for x in layouts([4, 6]):
        yield call(op, x, T([2, 6]), 0, 1, 3)
        yield call(op, x, T([4, 3]), 1, 0, 6, 2)
    yield call(op, T([3, 4], strides=[0, 1]), T([1, 4]), 0, 0, 1)
    yield call(op, T([2, 3, 4]), T([2, 3, 2]), -1, 2)
    yield call(op, T([2, 3, 4]), T([2, 1, 4]), 1, -1, None)
    yield call(op, T([2, 3], "int64"), T([2, 1], "int64"), 1, 0, 1)
    yield call(op, T([2, 3]), T([5, 5]), 0)          # the meta does not compare src with the slice
    yield vcall(op, T([4, 6]), T([2, 6]), 0, 1, 3)
    yield vcall(op, transposed([4, 6]), T([4, 3]), 1, 0, 6, 2)
    yield vcall(op, T([2, 3, 4]), T([2, 3, 2]), -1, 2)
    yield vcall(op, T([2, 3]), T([5, 5]), 0)        # the kernel does


def select_scatter_calls():
    """select_scatter(self, src, dim, index): what functionalization writes a mutated select() back
    with. Same meta as slice_scatter (self's strides kept unless it overlaps itself)."""
    op = "aten::select_scatter"
    for x in layouts([4, 6]):
        yield call(op, x, T([6]), 0, 1)
        yield call(op, x, T([4]), 1, -1)
    yield call(op, T([3, 4], strides=[0, 1]), T([4]), 0, 0)
    yield call(op, T([2, 3, 4]), T([2, 3]), -1, 2)
    yield call(op, T([2, 3], "int64"), T([2], "int64"), 1, 0)
    yield call(op, T([2, 3]), T([5, 5]), 0, 0)
    yield vcall(op, T([4, 6]), T([6]), 0, 1)
    yield vcall(op, transposed([4, 6]), T([4]), 1, -2)
    yield vcall(op, T([2, 3, 4]), T([2, 3]), -1, 2)
    yield vcall(op, T([2, 3], "int64"), T([2], "int64"), 1, 0)
    yield vcall(op, T([2, 3]), T([5, 5]), 0, 0)


def view_calls():
    for sizes in VIEW_SHAPES:
        for x in layouts(sizes):
            for tgt in reshape_targets(sizes):
                yield call("aten::view", x, tgt)
                yield call("aten::reshape", x, tgt)
                yield call("aten::_unsafe_view", x, tgt)
    for d in DTYPES_ALL:
        yield call("aten::view", T([2, 3], d), [3, 2])
        yield call("aten::reshape", transposed([2, 3], d), [6])
    # Value calls: views read through our strides; copies through our kernels.
    for x in layouts([2, 3, 4]):
        for tgt in [[-1], [6, 4], [2, 12], [4, 3, 2]]:
            yield vcall("aten::view", x, tgt)
            yield vcall("aten::reshape", x, tgt)
            yield vcall("aten::_unsafe_view", x, tgt)
    for d in SMALL_DTYPES:
        yield vcall("aten::reshape", transposed([3, 4], d), [12])
        yield vcall("aten::view", T([3, 4], d), [2, 6])
        yield vcall("aten::_unsafe_view", T([3, 4], d), [2, 6])


def permute_calls():
    for sizes in [[], [5], [2, 3], [2, 3, 4], [2, 0, 3], [2, 3, 4, 5], [1, 3, 1]]:
        nd = len(sizes)
        xs = list(layouts(sizes))
        perms = list(itertools.permutations(range(nd)))
        if nd == 4:
            perms = perms[::5]
        for x in xs:
            for p in perms:
                yield call("aten::permute", x, list(p))
        for x in xs[:3]:
            for a in dims_of(sizes):
                for b in dims_of(sizes):
                    yield call("aten::transpose.int", x, a, b)
        # Negative dims, wrong length, repeated dims, out of range.
        if nd:
            yield call("aten::permute", xs[0], [d - nd for d in range(nd)][::-1])
            yield call("aten::permute", xs[0], list(range(nd)) + [0])
            yield call("aten::permute", xs[0], [0] * nd if nd > 1 else [1])
            yield call("aten::permute", xs[0], list(range(nd - 1)) + [nd])
            yield call("aten::permute", xs[0], list(range(nd - 1)))
        else:
            yield call("aten::permute", xs[0], [0])
        for b in bad_dims(sizes):
            yield call("aten::transpose.int", xs[0], 0, b)
            yield call("aten::transpose.int", xs[0], b, 0)
    # movedim.int: a permute (ATen's movedim order), wrapped and out-of-range dims.
    for sizes in [[], [5], [2, 3], [2, 3, 4], [2, 0, 3], [2, 3, 4, 5]]:
        for x in list(layouts(sizes))[:4]:
            for a in dims_of(sizes):
                for b in dims_of(sizes):
                    yield call("aten::movedim.int", x, a, b)
        for b in bad_dims(sizes):
            yield call("aten::movedim.int", T(sizes), 0, b)
            yield call("aten::movedim.int", T(sizes), b, 0)
    for x in layouts([2, 3, 4]):
        yield vcall("aten::permute", x, [2, 0, 1])
        yield vcall("aten::transpose.int", x, 0, 2)
        yield vcall("aten::movedim.int", x, 2, 0)
    for d in SMALL_DTYPES:
        yield vcall("aten::permute", T([2, 3], d), [1, 0])
        yield vcall("aten::transpose.int", T([2, 3], d), -1, 0)


def expand_targets(sizes):
    ts = [list(sizes), [-1] * len(sizes), [3] + list(sizes), [2, 1] + list(sizes)]
    ts.append([4 if s == 1 else s for s in sizes])
    ts.append([4 if s == 1 else -1 for s in sizes])
    ts.append([2] + [-1] * len(sizes))
    # Invalid: non-singleton expanded, too few dims, -1 in a new leading dim, negative size.
    ts.append([s + 1 if s != 1 else 1 for s in sizes] if sizes else [-2])
    if sizes:
        ts.append(list(sizes[1:]))
    ts.append([-1] + list(sizes))
    ts.append([-2] + list(sizes))
    out = []
    for t in ts:
        if t not in out:
            out.append(t)
    return out


def expand_calls():
    for sizes in [[], [1], [3], [3, 1], [1, 4], [2, 1, 3], [0, 1], [1, 3, 1]]:
        for x in layouts(sizes):
            for tgt in expand_targets(sizes):
                yield call("aten::expand", x, tgt)
                yield call("aten::broadcast_to", x, tgt)
                if all(s >= 0 for s in tgt):
                    yield call("aten::expand_as", x, T(tgt))
        yield call("aten::expand", T(sizes), [5] + list(sizes), implicit=True)
    for d in DTYPES_ALL:
        yield call("aten::expand_as", T([3, 1], d), T([2, 3, 4], "int64"))
    for x in layouts([3, 1]):
        yield vcall("aten::expand", x, [2, 3, 4])
        yield vcall("aten::broadcast_to", x, [2, 3, 4])
        yield vcall("aten::expand_as", x, T([3, 2]))
    for d in SMALL_DTYPES:
        yield vcall("aten::expand", T([1, 3], d), [2, -1])
        yield vcall("aten::expand_as", T([1, 3], d), T([2, 3]))


def squeeze_calls():
    for sizes in VIEW_SHAPES:
        for x in layouts(sizes):
            yield call("aten::squeeze", x)
            for d in dims_of(sizes) + [len(sizes) + 1 if sizes else 1]:
                yield call("aten::unsqueeze", x, d)
            for d in dims_of(sizes) + bad_dims(sizes):
                yield call("aten::squeeze.dim", x, d)
            nd = len(sizes)
            for dl in [[], [0], [-1], list(range(nd)), [0, nd - 1], [nd], [0, 0], [-1, nd - 1]]:
                yield call("aten::squeeze.dims", x, dl)
        yield call("aten::unsqueeze", T(sizes), -len(sizes) - 2)
    yield call("aten::squeeze", 3)  # squeeze() has no bad dims: a non-tensor self is its error call
    for x in layouts([2, 1, 3, 1]):
        yield vcall("aten::squeeze", x)
        yield vcall("aten::squeeze.dim", x, 1)
        yield vcall("aten::squeeze.dims", x, [1, 3])
        yield vcall("aten::unsqueeze", x, 2)
    for d in SMALL_DTYPES:
        yield vcall("aten::unsqueeze", T([2, 3], d), -1)
        yield vcall("aten::squeeze", T([2, 1], d))


def diagonal_calls():
    """diagonal(offset, dim1, dim2): both dims dropped, the diagonal appended (offsets past the end
    give an empty diagonal at offset 0); identical or out-of-range dims are errors."""
    for sizes in [[4, 4], [3, 5], [2, 3, 4], [5, 1, 5], [0, 3]]:
        nd = len(sizes)
        for x in list(layouts(sizes))[:3]:
            for d1, d2 in [(0, 1), (1, 0), (0, -1), (-1, 0), (nd - 2, nd - 1)]:
                for off in [0, 1, -1, 2, -3, 7, -7]:
                    yield call("aten::diagonal", x, off, d1, d2)
            yield call("aten::diagonal", x)
        yield call("aten::diagonal", T(sizes), 0, 0, 0)
        yield call("aten::diagonal", T(sizes), 0, -1, nd - 1)
        yield call("aten::diagonal", T(sizes), 0, 0, nd)
        yield call("aten::diagonal", T(sizes), 0, -nd - 1, 0)
    yield call("aten::diagonal", T([3]))
    for d in SMALL_DTYPES:
        yield vcall("aten::diagonal", T([3, 4], d), 1)
    for x in layouts([3, 4, 3]):
        yield vcall("aten::diagonal", x, -1, 0, 2)


def flatten_calls():
    for sizes in VIEW_SHAPES:
        xs = list(layouts(sizes))
        for x in xs[:3]:
            for s in dims_of(sizes):
                for e in dims_of(sizes):
                    yield call("aten::flatten.using_ints", x, s, e)
        yield call("aten::flatten.using_ints", xs[0])
        yield call("aten::flatten.using_ints", xs[0], end_dim=0)
        for b in bad_dims(sizes):
            yield call("aten::flatten.using_ints", xs[0], b, -1)
            yield call("aten::flatten.using_ints", xs[0], 0, b)
    for sizes in [[6], [2, 6], [4, 6, 2], [2, 0, 3], [2, 12, 2]]:
        for x in few_layouts(sizes, len(sizes) == 2):
            for d in range(-len(sizes), len(sizes)):
                s = sizes[d]
                cands = [[s], [1, s], [s, 1], [-1], [1, -1, 1]]
                cands += [[a, b] for a, b in factor_pairs(s)] + [[a, -1] for a, _ in factor_pairs(s)]
                cands += [[s + 1], [-1, -1], [], [0, -1]]
                for c in cands:
                    yield call("aten::unflatten.int", x, d, c)
        yield call("aten::unflatten.int", T(sizes), len(sizes), [1])
    yield call("aten::unflatten.int", T([]), 0, [1])
    for x in layouts([2, 3, 4]):
        yield vcall("aten::flatten.using_ints", x, 1, 2)
        yield vcall("aten::flatten.using_ints", x)
        yield vcall("aten::unflatten.int", x, 2, [2, 2])
    for d in SMALL_DTYPES:
        yield vcall("aten::flatten.using_ints", transposed([2, 3], d))
        yield vcall("aten::unflatten.int", T([6], d), 0, [3, -1])


def copy_calls():
    fmts = [None, "preserve_format", "contiguous_format", "channels_last"]
    import torch
    mf = {None: None, "preserve_format": torch.preserve_format, "contiguous_format": torch.contiguous_format,
          "channels_last": torch.channels_last}
    for sizes in VIEW_SHAPES + [[2, 3, 1, 1], [1, 3, 4, 5]]:
        for x in layouts(sizes):
            yield call("aten::contiguous", x)
            yield call("aten::clone", x)
            for f in fmts[1:]:
                yield call("aten::contiguous", x, memory_format=mf[f])
                yield call("aten::clone", x, memory_format=mf[f])
    for x in non_dense_permuted():
        yield call("aten::clone", x)
        yield call("aten::contiguous", x)
    for d in DTYPES_ALL:
        yield call("aten::contiguous", transposed([2, 3], d))
        yield call("aten::clone", transposed([2, 3], d))
    yield call("aten::contiguous", 3)
    yield call("aten::clone", 2.5)
    for x in list(layouts([2, 3, 4, 5])) + list(layouts([2, 3])):
        yield vcall("aten::contiguous", x)
        yield vcall("aten::clone", x)
        if len(x.sizes) == 4:
            yield vcall("aten::clone", x, memory_format=torch.channels_last)
            yield vcall("aten::contiguous", x, memory_format=torch.channels_last)
    for d in SMALL_DTYPES:
        yield vcall("aten::contiguous", transposed([2, 3], d))
        yield vcall("aten::clone", sliced([2, 3], d))


def slice_args(n):
    vals = [None, 1, -1, n, n + 3, -n - 3]
    for start in vals:
        for end in vals:
            yield start, end


def few_layouts(sizes, full):
    """Every layout for the shapes in `full`, else contiguous plus a sliced (offset) one."""
    xs = list(layouts(sizes))
    return xs if full else [xs[0], xs[-1]]


def slice_calls():
    for sizes in [[5], [2, 3], [2, 0, 3], [4, 6], [2, 3, 4]]:
        full = sizes in ([2, 3], [4, 6])
        for x in few_layouts(sizes, full):
            for d in dims_of(sizes):
                n = sizes[d]
                for start, end in slice_args(n):
                    for step in ([1, 3] if full else [1, 2]):
                        yield call("aten::slice.Tensor", x, d, start, end, step)
                for i in [0, 1, -1, n - 1, n, -n - 1]:
                    yield call("aten::select.int", x, d, i)
                for start in [0, 1, -1, -n, n + 1, -n - 1]:
                    for length in [0, 2, n, -1]:
                        yield call("aten::narrow", x, d, start, length)
            for b in bad_dims(sizes):
                yield call("aten::slice.Tensor", x, b, 0, 1)
                yield call("aten::select.int", x, b, 0)
                yield call("aten::narrow", x, b, 0, 1)
        yield call("aten::slice.Tensor", T(sizes), 0, 0, 1, 0)
        yield call("aten::slice.Tensor", T(sizes), 0, 0, 1, -1)
        yield call("aten::slice.Tensor", T(sizes))
        yield call("aten::slice.Tensor", T(sizes), step=2)
        yield call("aten::slice.Tensor", T(sizes), dim=-1, start=1)
    yield call("aten::slice.Tensor", T([]), 0, 0, 1)
    yield call("aten::select.int", T([]), 0, 0)
    yield call("aten::narrow", T([]), 0, 0, 1)
    for x in layouts([4, 6]):
        yield vcall("aten::slice.Tensor", x, 1, 1, 5, 2)
        yield vcall("aten::slice.Tensor", x, 0, -3, None)
        yield vcall("aten::select.int", x, 1, -2)
        yield vcall("aten::narrow", x, 0, 1, 2)
    for d in SMALL_DTYPES:
        yield vcall("aten::slice.Tensor", T([5], d), 0, 1, None, 2)
        yield vcall("aten::select.int", T([2, 3], d), 0, 1)
        yield vcall("aten::narrow", T([2, 3], d), 1, 1, 2)


def split_calls():
    for sizes in [[5], [2, 3], [6, 4], [2, 0, 3], [2, 3, 4], [4, 1]]:
        for x in layouts(sizes):
            for d in dims_of(sizes):
                n = sizes[d]
                for s in [1, 2, 3, n, n + 1, 0]:
                    yield call("aten::split.Tensor", x, s, d)
                for c in [1, 2, 3, n, n + 1]:
                    yield call("aten::chunk", x, c, d)
                parts = [[n], [1, n - 1], [n - 1, 1], [0, n], [1] * n, [n + 1], [n, 1], [-1, n + 1]]
                for p in parts:
                    yield call("aten::split_with_sizes", x, p, d)
                yield call("aten::unbind.int", x, d)
            yield call("aten::split.Tensor", x, -1)
            yield call("aten::chunk", x, 0)
            yield call("aten::chunk", x, -1)
            for b in bad_dims(sizes):
                yield call("aten::split.Tensor", x, 1, b)
                yield call("aten::chunk", x, 1, b)
                yield call("aten::split_with_sizes", x, [sizes[0]], b)
                yield call("aten::unbind.int", x, b)
        yield call("aten::split.Tensor", T(sizes), 2)
        yield call("aten::chunk", T(sizes), 2, dim=-1)
        yield call("aten::unbind.int", T(sizes))
    for op, args in [("aten::split.Tensor", [1]), ("aten::chunk", [1]), ("aten::unbind.int", []),
                     ("aten::split_with_sizes", [[1]])]:
        yield call(op, T([]), *args)
    for x in layouts([4, 6]):
        yield vcall("aten::split.Tensor", x, 4, 1)
        yield vcall("aten::split_with_sizes", x, [1, 3], 0)
        yield vcall("aten::chunk", x, 3, -1)
        yield vcall("aten::unbind.int", x, 1)
    for d in SMALL_DTYPES:
        yield vcall("aten::split.Tensor", T([5], d), 2)
        yield vcall("aten::chunk", T([2, 3], d), 2, 1)
        yield vcall("aten::unbind.int", T([2, 3], d))
        yield vcall("aten::split_with_sizes", T([2, 3], d), [2, 1], 1)


def strided_calls():
    for sizes in VIEW_SHAPES:
        for x in layouts(sizes):
            yield call("aten::alias", x)
    yield call("aten::alias", 1)
    # detach is alias without autograd. detach_ raises "Can't detach views in-place" for views, and
    # our fake inputs carry no view-ness: its samples use fresh (contiguous, whole-storage) tensors;
    # the view error is checked on real tensors.
    for sizes in [[2, 3], [5], [], [2, 3, 4]]:
        for d in SMALL_DTYPES:
            yield call("aten::detach_", T(sizes, d))
    for sizes in VIEW_SHAPES:
        for x in layouts(sizes):
            yield call("aten::detach", x)
    for d in SMALL_DTYPES:
        yield call("aten::detach", T([2, 3], d))
    for name in ("aten::detach", "aten::detach_"):
        yield call(name, 1)
        yield call(name, 2.5)
    for x in layouts([2, 3, 4]):
        for size, stride, off in [([24], [1], None), ([2, 2], [1, 2], None), ([3, 4], [4, 1], 2), ([2], [0], 5),
                                  ([4, 3], [1, 4], 0), ([], [], 7), ([0, 3], [1, 1], None), ([2, 3], [3, 1], 100),
                                  ([30], [1], None), ([2], [-1], None), ([-1], [1], None), ([2, 3], [1], None),
                                  ([2], [1], -1), ([5, 5], [5, 1], None)]:
            yield call("aten::as_strided", x, size, stride, off)
    yield call("aten::as_strided", T([3], "int64"), [3], [1], storage_offset=0)
    for x in layouts([2, 3, 4]):
        yield vcall("aten::alias", x)
        yield vcall("aten::as_strided", x, [2, 3], [1, 2], 1)
        yield vcall("aten::as_strided", x, [4], [3], None)
    for x in layouts([2, 3, 4]):
        yield vcall("aten::detach", x)
    for d in SMALL_DTYPES:
        yield vcall("aten::alias", T([2, 3], d))
        yield vcall("aten::detach", T([2, 3], d))
        yield vcall("aten::as_strided", T([2, 3], d), [3, 2], [1, 3])
