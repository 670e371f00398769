"""Joining and repeating: cat (promotion, legacy empty 1-D inputs, output memory format), stack,
repeat, repeat_interleave (int repeats; tensor repeats are data-dependent without output_size),
triu/tril."""
from opgen import T, I, call, vcall, layouts, pattern, DTYPES_ALL, transposed, sliced, expanded, channels_last


def cat_lists():
    """(tensors, dim) pairs, valid and invalid."""
    for sizes in [[3], [2, 3], [2, 0, 3], [2, 3, 4], [1, 3, 1]]:
        nd = len(sizes)
        for d in list(range(-nd, nd)) + [nd, -nd - 1]:
            other = list(sizes)
            dd = d % nd if -nd <= d < nd else 0
            other[dd] = 4
            yield [T(sizes), T(other)], d
            yield [T(sizes), T(sizes), T(sizes)], d
            yield [T(sizes)], d
    # Mismatch in a non-cat dim, different ranks, 0-dim inputs, empty list.
    yield [T([2, 3]), T([3, 3])], 1
    yield [T([2, 3]), T([2, 3, 1])], 0
    yield [T([]), T([])], 0
    yield [T([2]), T([])], 0
    yield [], 0
    # Legacy empty 1-D tensors ([0]) are skipped whatever the other shapes.
    yield [T([0]), T([2, 3])], 0
    yield [T([2, 3]), T([0]), T([2, 3])], 1
    yield [T([0]), T([0])], 0
    yield [T([0]), T([2, 3])], 1
    yield [T([0]), T([2, 3])], 2
    yield [T([0, 3]), T([2, 3])], 0
    yield [T([2, 0]), T([2, 3])], 0


def calls():
    for ts, d in cat_lists():
        yield call("aten::cat", ts, d)
    # Layouts: the output follows the inputs' memory format.
    for x in layouts([2, 3, 4, 5]):
        for y in layouts([2, 3, 4, 5]):
            for d in [0, 1, 3]:
                yield call("aten::cat", [x, y], d)
    for x in layouts([2, 3]):
        yield call("aten::cat", [x, T([2, 3])], 1)
        yield call("aten::cat", [T([2, 3]), x], 0)
        yield call("aten::cat", [x], 0)
    for da in DTYPES_ALL:
        for db in DTYPES_ALL:
            yield call("aten::cat", [T([2, 3], da), T([1, 3], db)])
    yield call("aten::cat", [T([2, 3], "int64"), T([0], "float32")])
    yield call("aten::cat", [T([2, 3]), T([2, 3], device="meta")])
    yield call("aten::cat", [T([2, 3])], dim=-1)

    # stack
    for sizes in [[], [3], [2, 3], [2, 0, 3], [1, 3, 1]]:
        nd = len(sizes)
        for d in list(range(-nd - 1, nd + 1)) + [nd + 1, -nd - 2]:
            yield call("aten::stack", [T(sizes), T(sizes)], d)
            yield call("aten::stack", [T(sizes)], d)
        if nd:
            yield call("aten::stack", [T(sizes), T(sizes[:-1] + [sizes[-1] + 1])], 0)
        yield call("aten::stack", [T(sizes), T(sizes + [1])], 0)
    yield call("aten::stack", [], 0)
    # concatenate: cat (CompositeImplicit), the same checks.
    for x in layouts([2, 3, 4]):
        yield call("aten::concatenate", [x, T([2, 3, 4])], 1)
        yield vcall("aten::concatenate", [x, T([2, 3, 4])], 2)
    for da in ["float32", "int64", "bool", "bfloat16"]:
        yield call("aten::concatenate", [T([2, 3], da), T([1, 3], "float32")])
    yield call("aten::concatenate", [T([2, 3]), T([2, 4])])
    yield call("aten::concatenate", [T([2, 3]), T([2, 3])], 2)
    yield call("aten::concatenate", [])
    for x in layouts([2, 3, 4]):
        for y in layouts([2, 3, 4]):
            yield call("aten::stack", [x, y], 1)
    for da in DTYPES_ALL:
        for db in ["float32", "int64", "bool", "bfloat16"]:
            yield call("aten::stack", [T([2, 3], da), T([2, 3], db)], dim=-1)

    # repeat
    for sizes in [[], [3], [2, 3], [2, 0, 3], [1, 3, 1]]:
        nd = len(sizes)
        for x in layouts(sizes):
            for reps in [[1] * nd, [2] * nd, [2, 1] + [1] * nd, [3] + [2] * nd, [0] * nd, [2] * (nd + 1)]:
                yield call("aten::repeat", x, reps)
        if nd:
            yield call("aten::repeat", T(sizes), [2] * (nd - 1))
        yield call("aten::repeat", T(sizes), [-1] * nd + [-2])
    for d in DTYPES_ALL:
        yield call("aten::repeat", T([2, 3], d), [2, 1])

    # flip: preserve-format strides (prims.rev's empty_like), wrapped dims, repeated or bad dims.
    for sizes in [[], [3], [2, 3], [2, 0, 3], [1, 3, 1], [2, 3, 4, 5]]:
        nd = len(sizes)
        for x in layouts(sizes):
            for dims in [[], [0], [-1], list(range(nd)), [nd - 1, 0]]:
                yield call("aten::flip", x, dims)
        yield call("aten::flip", T(sizes), [max(nd, 1)])
        yield call("aten::flip", T(sizes), [0, 0])
        yield call("aten::flip", T(sizes), [0, -max(nd, 1)])
    for d in DTYPES_ALL:
        yield call("aten::flip", T([2, 3], d), [1])

    # repeat_interleave
    for sizes in [[], [3], [2, 3], [2, 0, 3], [1, 3, 1]]:
        nd = len(sizes)
        for x in layouts(sizes):
            for r in [0, 1, 2, 3]:
                for dim in [None] + list(range(-max(nd, 1), max(nd, 1))):
                    yield call("aten::repeat_interleave.self_int", x, r, dim)
        yield call("aten::repeat_interleave.self_int", T(sizes), -1)
        yield call("aten::repeat_interleave.self_int", T(sizes), 2, max(nd, 1))
        yield call("aten::repeat_interleave.self_int", T(sizes), 2, 0, output_size=2 * (sizes[0] if nd else 1))
        yield call("aten::repeat_interleave.self_int", T(sizes), 2, output_size=7)
    for d in DTYPES_ALL:
        yield call("aten::repeat_interleave.self_int", T([2, 3], d), 2, 1)
    for n in [0, 1, 3]:
        for d in ["int64", "int32"]:
            yield call("aten::repeat_interleave.Tensor", I([n], 3, d))
            yield call("aten::repeat_interleave.Tensor", I([n], 3, d), output_size=5)
    yield call("aten::repeat_interleave.Tensor", I([2, 2], 3))
    yield call("aten::repeat_interleave.Tensor", T([3], "float32"), output_size=4)
    for sizes in [[3], [2, 3], [3, 2]]:
        nd = len(sizes)
        for dim in [None] + list(range(-nd, nd)):
            n = sizes[dim] if dim is not None else 6 if nd == 2 else 3
            yield call("aten::repeat_interleave.self_Tensor", T(sizes), I([n], 3), dim)
            yield call("aten::repeat_interleave.self_Tensor", T(sizes), I([n], 3), dim, output_size=4)
            yield call("aten::repeat_interleave.self_Tensor", T(sizes), I([1], 3), dim, output_size=3 * n)
            yield call("aten::repeat_interleave.self_Tensor", T(sizes), I([n + 1], 3), dim, output_size=4)
    yield call("aten::repeat_interleave.self_Tensor", T([3]), T([3]), 0, output_size=4)
    yield call("aten::repeat_interleave.self_Tensor", T([2, 3]), I([3], 3), 2, output_size=4)

    # triu / tril
    for op in ["aten::triu", "aten::tril", "aten::triu_", "aten::tril_"]:
        for sizes in [[3, 3], [2, 4], [4, 2], [2, 3, 4], [0, 3], [2, 0, 3], [1, 1], [2, 3, 4, 5]]:
            for x in layouts(sizes):
                for k in [0, 1, -1, 5, -5]:
                    yield call(op, x, k)
        for d in DTYPES_ALL:
            yield call(op, T([3, 3], d))
        yield call(op, T([3]))
        yield call(op, T([]))
        yield call(op, T([3, 3]), diagonal=2)

    # Value calls.
    for x in layouts([2, 3, 4]):
        yield vcall("aten::cat", [x, T([2, 3, 4])], 1)
        yield vcall("aten::stack", [x, T([2, 3, 4])], 2)
        yield vcall("aten::repeat", x, [2, 1, 1, 2])
        yield vcall("aten::repeat_interleave.self_int", x, 2, 1)
        yield vcall("aten::repeat_interleave.self_int", x, 2)
        yield vcall("aten::triu", x, 1)
        yield vcall("aten::tril", x, -1)
        yield vcall("aten::triu_", x, 1)
        yield vcall("aten::tril_", x)
        yield vcall("aten::flip", x, [0, 2])
        yield vcall("aten::flip", x, [-2])
    for x in layouts([2, 3, 4, 5]):
        yield vcall("aten::cat", [x, x], 1)
    for d in ["float32", "int64", "bool", "bfloat16", "float16", "int8", "uint8"]:
        yield vcall("aten::cat", [T([2, 3], d), T([1, 3], "float32"), T([0])])
        yield vcall("aten::cat", [T([2, 3], d), T([2, 2], d)], 1)
        yield vcall("aten::stack", [T([2, 3], d), T([2, 3], "int32")])
        yield vcall("aten::repeat", T([2, 3], d), [2, 2])
        yield vcall("aten::repeat_interleave.self_int", T([2, 3], d), 3, -1)
        yield vcall("aten::triu", T([3, 4], d))
        yield vcall("aten::tril", T([4, 3], d), 1)
        yield vcall("aten::triu_", T([3, 4], d), -1)
        yield vcall("aten::flip", T([3, 4], d), [0, 1])
    # Real tensors too: our metadata-only meta needs output_size (the sum of the repeats' values).
    for n in [1, 4]:
        reps = I([n], 3)
        total = sum(pattern(j, reps.dtype, reps.fill) for j in range(n))
        yield vcall("aten::repeat_interleave.Tensor", reps, output_size=total)
        yield vcall("aten::repeat_interleave.self_Tensor", T([4, 2]), I([4], 3), 0,
                    output_size=sum(pattern(j, "int64", ("index", 3)) for j in range(4)))
        yield vcall("aten::repeat_interleave.self_Tensor", T([4, 2]), reps, output_size=total * 8 if n == 1 else total)
        yield vcall("aten::repeat_interleave.self_Tensor", transposed([2, 4]), reps, 1,
                    output_size=total * 4 if n == 1 else total)
