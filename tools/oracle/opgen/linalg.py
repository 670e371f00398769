"""Linear algebra: linear, t, mm, addmm, bmm, baddbmm, matmul, einsum, outer, dot, mv.

Shapes over every rank combination matmul handles, layouts of each operand, dtype mixes, scalar
beta/alpha, errors (rank, contraction size, batch size, dtype), and value calls for the kernels."""
import torch

from opgen import T, call, vcall, layouts, transposed, DTYPES_ALL

FLOATS = ["float32", "float64", "float16", "bfloat16"]
VDTYPES = ["float32", "float64", "int64"]

# (a, b) shapes for matmul: every rank combination, broadcasting batches, empty dims.
MATMUL_OK = [
    ([3], [3]), ([0], [0]), ([2, 3], [3]), ([3], [3, 4]), ([2, 3], [3, 4]), ([0, 3], [3, 4]), ([2, 0], [0, 4]),
    ([5, 2, 3], [3]), ([3], [5, 3, 4]), ([5, 2, 3], [3, 4]), ([2, 3], [5, 3, 4]), ([5, 2, 3], [5, 3, 4]),
    ([5, 2, 3], [1, 3, 4]), ([1, 2, 3], [5, 3, 4]), ([2, 1, 2, 3], [5, 3, 4]), ([2, 5, 2, 3], [3]),
    ([3], [2, 5, 3, 4]), ([2, 1, 4, 3], [1, 5, 3, 2]), ([0, 2, 3], [3, 4]), ([5, 2, 3], [0, 1, 3, 4]),
    ([1, 1, 3], [3, 1]), ([4, 1, 3], [3]), ([2, 3, 1, 3], [3, 1]), ([1, 3], [2, 3, 4]),
]
MATMUL_BAD = [([3], [4]), ([2, 3], [4]), ([4], [3, 4]), ([2, 3], [2, 3]), ([5, 2, 3], [4, 5]),
              ([5, 2, 3], [4, 3, 4]), ([], [3]), ([3], []), ([], []), ([2, 3, 4], [3, 2, 4, 5])]


def mat_layouts(sizes, dtype="float32"):
    for x in layouts(sizes, dtype):
        yield x


def gen_linear():
    op = "aten::linear"
    for x, w, b in [([4, 3], [5, 3], [5]), ([4, 3], [5, 3], None), ([2, 4, 3], [5, 3], [5]), ([3], [5, 3], [5]),
                    ([3], [3], None), ([4, 3], [3], None), ([0, 3], [5, 3], [5]), ([4, 0], [5, 0], [5]),
                    ([4, 3], [5, 3], [4, 5]), ([4, 3], [5, 3], [1]), ([4, 3], [5, 3], []), ([2, 2, 4, 3], [5, 3], None),
                    ([4, 3], [3], [])]:
        yield call(op, T(x), T(w), None if b is None else T(b))
    for x in layouts([2, 4, 3]):
        for w in layouts([5, 3]):
            yield call(op, x, w, T([5]))
    for d in DTYPES_ALL:
        yield call(op, T([4, 3], d), T([5, 3], d), T([5], d))
        yield call(op, T([4, 3]), T([5, 3], d))
        yield call(op, T([4, 3], d), T([5, 3]), T([5]))
    # errors
    for x, w, b in [([4, 3], [5, 4], None), ([4, 3], [5, 4], [5]), ([2, 4, 3], [5, 4], None), ([3], [5, 4], None),
                    ([], [5, 3], None), ([4, 3], [], None), ([4, 3], [2, 5, 3], None), ([4, 3], [5, 3], [3]),
                    ([4, 3], [5, 3], [4, 4]), ([4, 3], [5, 3], [2, 4, 5]), ([3], [4], None)]:
        yield call(op, T(x), T(w), None if b is None else T(b))
    for x in layouts([2, 4, 3]):
        yield vcall(op, x, T([5, 3]), T([5]))
    for w in layouts([5, 3]):
        yield vcall(op, T([4, 3]), w)
    for d in VDTYPES:
        yield vcall(op, T([4, 3], d), T([5, 3], d), T([5], d))
    yield vcall(op, T([3]), T([5, 3]), T([5]))
    yield vcall(op, T([4, 3]), T([3]))


def gen_t():
    op = "aten::t"
    for s in [[], [0], [5], [2, 3], [3, 1], [0, 4]]:
        for x in layouts(s):
            yield call(op, x)
    for d in DTYPES_ALL:
        yield call(op, T([2, 3], d))
    for s in [[2, 3, 4], [1, 1, 1], [2, 3, 4, 5]]:
        yield call(op, T(s))


def gen_mm():
    op = "aten::mm"
    for a, b in [([4, 3], [3, 5]), ([0, 3], [3, 5]), ([4, 0], [0, 5]), ([4, 3], [3, 0]), ([1, 1], [1, 1])]:
        yield call(op, T(a), T(b))
    for x in layouts([4, 3]):
        for y in layouts([3, 5]):
            yield call(op, x, y)
    for da in DTYPES_ALL:
        for db in ["float32", da, "int64"]:
            yield call(op, T([4, 3], da), T([3, 5], db))
    for a, b in [([4, 3], [4, 5]), ([4, 3], [3]), ([3], [3, 5]), ([2, 4, 3], [3, 5]), ([4, 3], [2, 3, 5]), ([], [3, 5]),
                 ([4, 0], [3, 5])]:
        yield call(op, T(a), T(b))
    for x in layouts([4, 3]):
        yield vcall(op, x, T([3, 5]))
    for y in layouts([3, 5]):
        yield vcall(op, T([4, 3]), y)
    for d in VDTYPES:
        yield vcall(op, T([4, 3], d), T([3, 5], d))


def gen_addmm():
    op = "aten::addmm"
    for s in [[5], [4, 5], [1, 5], [4, 1], [1], [], [2, 4, 5]]:
        yield call(op, T(s), T([4, 3]), T([3, 5]))
    for x in layouts([4, 5]):
        for m in layouts([4, 3]):
            yield call(op, x, m, T([3, 5]))
    for y in layouts([3, 5]):
        yield call(op, T([5]), T([4, 3]), y)
    for ds in DTYPES_ALL:
        for dm in ["float32", ds]:
            yield call(op, T([4, 5], ds), T([4, 3], dm), T([3, 5], dm))
    yield call(op, T([4, 5], "float64"), T([4, 3], "float16"), T([3, 5], "bfloat16"))
    yield call(op, T([], "float64"), T([4, 3]), T([3, 5]))
    for beta, alpha in [(2, 3), (0.5, 1.5), (0, 1), (1, 0), (True, False), (0.0, 2)]:
        for d in ["float32", "int64"]:
            yield call(op, T([5], d), T([4, 3], d), T([3, 5], d), beta=beta, alpha=alpha)
    yield call(op, T([3]), T([4, 3]), T([3, 5]), beta=0)
    # errors
    for s, a, b in [([5], [4, 3], [4, 5]), ([3], [4, 3], [3, 5]), ([4, 4], [4, 3], [3, 5]), ([5], [3], [3, 5]),
                    ([5], [4, 3], [3]), ([5], [2, 4, 3], [3, 5]), ([2, 3, 5], [4, 3], [3, 5])]:
        yield call(op, T(s), T(a), T(b))
    for x in layouts([4, 5]):
        yield vcall(op, x, T([4, 3]), T([3, 5]))
    for m in layouts([4, 3]):
        yield vcall(op, T([5]), m, T([3, 5]), beta=0.5, alpha=2)
    for d in VDTYPES:
        yield vcall(op, T([4, 5], d), T([4, 3], d), T([3, 5], d), beta=2, alpha=3)
    yield vcall(op, T([5]), T([4, 3]), T([3, 5]), beta=0)


def gen_bmm():
    op = "aten::bmm"
    for a, b in [([2, 4, 3], [2, 3, 5]), ([0, 4, 3], [0, 3, 5]), ([2, 0, 3], [2, 3, 5]), ([2, 4, 0], [2, 0, 5]),
                 ([1, 1, 1], [1, 1, 1])]:
        yield call(op, T(a), T(b))
    for x in layouts([2, 4, 3]):
        for y in layouts([2, 3, 5]):
            yield call(op, x, y)
    for da in DTYPES_ALL:
        for db in ["float32", da]:
            yield call(op, T([2, 4, 3], da), T([2, 3, 5], db))
    for a, b in [([2, 4, 3], [3, 3, 5]), ([2, 4, 3], [2, 4, 5]), ([4, 3], [2, 3, 5]), ([2, 4, 3], [3, 5]),
                 ([1, 4, 3], [2, 3, 5]), ([2, 2, 4, 3], [2, 2, 3, 5])]:
        yield call(op, T(a), T(b))
    for x in layouts([2, 4, 3]):
        yield vcall(op, x, T([2, 3, 5]))
    for d in VDTYPES:
        yield vcall(op, T([2, 4, 3], d), T([2, 3, 5], d))


def gen_baddbmm():
    op = "aten::baddbmm"
    for s in [[2, 4, 5], [5], [4, 5], [1, 4, 1], [], [1], [0, 4, 5]]:
        b = 0 if s and s[0] == 0 else 2
        yield call(op, T(s), T([b, 4, 3]), T([b, 3, 5]))
    for x in layouts([2, 4, 5]):
        for y in layouts([2, 4, 3]):
            yield call(op, x, y, T([2, 3, 5]))
    for ds in DTYPES_ALL:
        for db in ["float32", ds]:
            yield call(op, T([2, 4, 5], ds), T([2, 4, 3], db), T([2, 3, 5], db))
    for beta, alpha in [(2, 3), (0.5, 1.5), (0, 1), (True, False)]:
        for d in ["float32", "int64"]:
            yield call(op, T([2, 4, 5], d), T([2, 4, 3], d), T([2, 3, 5], d), beta=beta, alpha=alpha)
    for s, a, b in [([2, 4, 5], [2, 4, 3], [2, 4, 5]), ([2, 4, 5], [2, 4, 3], [3, 3, 5]), ([3], [2, 4, 3], [2, 3, 5]),
                    ([3, 4, 5], [2, 4, 3], [2, 3, 5]), ([2, 4, 5], [4, 3], [2, 3, 5]), ([2, 4, 5], [2, 4, 3], [3, 5]),
                    ([2, 2, 4, 5], [2, 4, 3], [2, 3, 5])]:
        yield call(op, T(s), T(a), T(b))
    for x in layouts([2, 4, 5]):
        yield vcall(op, x, T([2, 4, 3]), T([2, 3, 5]), beta=0.5, alpha=2)
    for d in VDTYPES:
        yield vcall(op, T([2, 4, 5], d), T([2, 4, 3], d), T([2, 3, 5], d))
    yield vcall(op, T([5]), T([2, 4, 3]), T([2, 3, 5]), beta=0)


def gen_matmul():
    op = "aten::matmul"
    for a, b in MATMUL_OK:
        yield call(op, T(a), T(b))
    for a, b in MATMUL_OK:
        if len(a) >= 2 or len(b) >= 2:
            for x in layouts(a):
                for y in list(layouts(b))[:3]:
                    yield call(op, x, y)
    for da in DTYPES_ALL:
        for db in ["float32", da]:
            yield call(op, T([5, 2, 3], da), T([3, 4], db))
            yield call(op, T([2, 3], da), T([3], db))
            yield call(op, T([3], da), T([3], db))
    for a, b in MATMUL_BAD:
        yield call(op, T(a), T(b))
    for a, b in MATMUL_OK:
        yield vcall(op, T(a), T(b))
    for x in layouts([2, 2, 3]):
        yield vcall(op, x, T([3, 4]))
        yield vcall(op, T([3, 2]), x.__class__(x.sizes[::-1], x.dtype, x.strides[::-1], x.offset))
    for d in VDTYPES:
        yield vcall(op, T([2, 2, 3], d), T([3, 2], d))


EINSUM = [
    ("ij,jk->ik", [[2, 3], [3, 4]]), ("ij,jk", [[2, 3], [3, 4]]), ("ij->ji", [[2, 3]]), ("ij", [[2, 3]]),
    ("ji", [[2, 3]]), ("ii->i", [[3, 3]]), ("ii", [[3, 3]]), ("ij->", [[2, 3]]), ("ij->j", [[2, 3]]),
    ("i,i->", [[3], [3]]), ("i,j->ij", [[2], [3]]), ("i,j", [[2], [3]]), ("bij,bjk->bik", [[5, 2, 3], [5, 3, 4]]),
    ("bij,bjk", [[5, 2, 3], [5, 3, 4]]), ("bhqd,bhkd->bhqk", [[2, 3, 4, 5], [2, 3, 6, 5]]),
    ("bhqk,bhkd->bhqd", [[2, 3, 4, 6], [2, 3, 6, 5]]), ("bhqk,bkhd->bqhd", [[2, 3, 4, 6], [2, 6, 3, 5]]),
    ("...ij,...jk->...ik", [[5, 2, 3], [3, 4]]), ("...ij,...jk", [[5, 2, 3], [5, 3, 4]]), ("...ij->...ji", [[5, 2, 3]]),
    ("i...->...", [[2, 3, 4]]), ("...,...->...", [[2, 3], [3]]), ("ij,ij->ij", [[2, 3], [2, 3]]),
    ("ij,ij->i", [[2, 3], [2, 3]]), ("ij,kj->ik", [[2, 3], [4, 3]]), ("ij,jk,kl->il", [[2, 3], [3, 4], [4, 5]]),
    ("bn,anm,bm->ba", [[2, 3], [4, 3, 5], [2, 5]]), ("i,i,i->i", [[3], [3], [3]]), ("ij,j->i", [[2, 3], [3]]),
    ("ij,jk->ki", [[2, 3], [3, 4]]), ("a,b,c->cba", [[2], [3], [4]]), ("ijk->kji", [[2, 3, 4]]),
    ("iij->j", [[3, 3, 4]]), ("ij,ik->ijk", [[2, 3], [2, 4]]), ("ij,jk->ik", [[0, 3], [3, 4]]),
    ("ij,jk->ik", [[2, 0], [0, 4]]), ("bij,bjk->bik", [[5, 2, 3], [1, 3, 4]]), ("i j , j k -> i k", [[2, 3], [3, 4]]),
    ("ij,->ij", [[2, 3], []]), (",->", [[], []]), ("->", [[]]), ("Ab,bC->AC", [[2, 3], [3, 4]]),
    ("bqd,bkd->bqk", [[2, 1, 5], [2, 4, 5]]), ("ij,jk->ik", [[1, 3], [3, 1]]), ("i,j,k->ijk", [[2], [3], [4]]),
    ("ij,jk->jik", [[2, 3], [3, 4]]), ("bij,jk->bik", [[5, 2, 3], [3, 4]]), ("ijk,ikl->ijl", [[2, 3, 4], [2, 4, 5]]),
]
EINSUM_BAD = [
    ("ij,jk->ik", [[2, 3], [4, 4]]), ("ij,jk->ik", [[2, 3]]), ("ij->ik", [[2, 3]]), ("ij", [[2, 3, 4]]),
    ("ijk", [[2, 3]]), ("ij->ii", [[2, 3]]), ("ii->i", [[2, 3]]), ("i,i->i", [[2], [3]]), ("ij,jk->ik", [[2, 3], [3, 4], [4]]),
    ("i1->i", [[2, 3]]), ("...ij,...jk->...ik", [[5, 2, 3], [4, 3, 4]]), ("i->...", [[2]]), ("i....->i", [[2]]),
    ("ij->j->i", [[2, 3]]), ("i-j", [[2, 3]]), ("", [[2]]), ("...i...->i", [[2, 3]]),
]


def gen_einsum():
    op = "aten::einsum"
    for eq, shapes in EINSUM:
        yield call(op, eq, [T(s) for s in shapes])
    for eq, shapes in EINSUM[:24]:
        for k in range(len(shapes)):
            for x in list(layouts(shapes[k]))[1:]:
                ts = [T(s) for s in shapes]
                ts[k] = x
                yield call(op, eq, ts)
    for d in DTYPES_ALL:
        yield call(op, "ij,jk->ik", [T([2, 3], d), T([3, 4], d)])
        yield call(op, "ij,jk->ik", [T([2, 3], d), T([3, 4])])
        yield call(op, "ij->ji", [T([2, 3], d)])
    yield call(op, "ij,jk->ik", [T([2, 3]), T([3, 4])], path=[0, 1])
    for eq, shapes in EINSUM_BAD:
        yield call(op, eq, [T(s) for s in shapes])
    for eq, shapes in EINSUM:
        yield vcall(op, eq, [T(s) for s in shapes])
    for x in layouts([2, 3]):
        yield vcall(op, "ij,jk->ik", [x, T([3, 4])])
    for d in VDTYPES:
        yield vcall(op, "bij,bjk->bik", [T([2, 2, 3], d), T([2, 3, 2], d)])


def gen_vec():
    # outer, dot, mv: vectors and matrix-vector.
    for a, b in [([2], [3]), ([0], [3]), ([1], [1]), ([2], [0])]:
        yield call("aten::outer", T(a), T(b))
    for x in layouts([4]):
        for y in layouts([3]):
            yield call("aten::outer", x, y)
    for da in DTYPES_ALL:
        for db in ["float32", da, "int64"]:
            yield call("aten::outer", T([2], da), T([3], db))
            yield call("aten::dot", T([3], da), T([3], db))
            yield call("aten::mv", T([2, 3], da), T([3], db))
    for a, b in [([2, 3], [3]), ([2], [3, 4]), ([], [3]), ([2], [])]:
        yield call("aten::outer", T(a), T(b))
    for a, b in [([3], [3]), ([0], [0]), ([1], [1])]:
        yield call("aten::dot", T(a), T(b))
    for x in layouts([4]):
        for y in layouts([4]):
            yield call("aten::dot", x, y)
    for a, b in [([3], [4]), ([2, 3], [3]), ([3], [2, 3]), ([], []), ([3], [])]:
        yield call("aten::dot", T(a), T(b))
    for a, b in [([2, 3], [3]), ([0, 3], [3]), ([2, 0], [0]), ([1, 1], [1])]:
        yield call("aten::mv", T(a), T(b))
    for x in layouts([4, 3]):
        for y in layouts([3]):
            yield call("aten::mv", x, y)
    for a, b in [([2, 3], [4]), ([3], [3]), ([2, 3], [3, 1]), ([2, 2, 3], [3]), ([], [3])]:
        yield call("aten::mv", T(a), T(b))
    for d in VDTYPES:
        yield vcall("aten::outer", T([3], d), T([4], d))
        yield vcall("aten::dot", T([5], d), T([5], d))
        yield vcall("aten::mv", T([2, 3], d), T([3], d))
    for x in layouts([4]):
        yield vcall("aten::outer", x, T([2]))
        yield vcall("aten::dot", x, T([4]))
    for x in layouts([4, 3]):
        yield vcall("aten::mv", x, T([3]))


def gen_grouped_mm():
    """torch._grouped_mm, which transformers 5.12's MoE experts record for bfloat16 weights: 2D x 3D
    (rows of mat_a grouped by offs), 3D x 2D, 2D x 2D, 3D x 3D; the meta's checks (dtypes, 16-byte
    strides, offs int32 1-D stride 1, bias unsupported)."""
    op = "aten::_grouped_mm"
    bf = "bfloat16"
    for s, e, k, n in [(32, 4, 8, 16), (16, 2, 16, 8), (0, 3, 8, 8), (24, 1, 32, 8)]:
        yield call(op, T([s, k], bf), T([e, k, n], bf), T([e], "int32"))
        yield call(op, T([s, k], bf), transposed([e, k, n], bf), T([e], "int32"))
        yield call(op, T([e, s, k], bf), T([k, n], bf), T([e], "int32"))
        yield call(op, T([k, s], bf), T([s, n], bf), T([e], "int32"))
        yield call(op, T([e, s, k], bf), T([e, k, n], bf))
    yield call(op, T([16, 8], "float16"), T([2, 8, 8], "float16"), T([2], "int32"))
    for d in ["float32", "float64", "int32"]:
        yield call(op, T([16, 8], d), T([2, 8, 8], d), T([2], "int32"))
    yield call(op, T([16, 8], bf), T([2, 8, 8], "float32"), T([2], "int32"))
    yield call(op, T([16, 8], bf), T([2, 8, 8], bf), T([2], "int64"))
    yield call(op, T([16, 8], bf), T([2, 8, 8], bf), T([2, 1], "int32"))
    yield call(op, T([16, 8], bf), T([2, 8, 8], bf), T([2], "int32", strides=[2]))
    yield call(op, T([16, 8], bf), T([3, 8, 8], bf), T([2], "int32"))
    yield call(op, T([16, 8], bf), T([2, 4, 8], bf), T([2], "int32"))
    yield call(op, T([16, 8], bf), T([2, 8, 8], bf))
    yield call(op, T([2, 16, 8], bf), T([2, 8, 8], bf), T([2], "int32"))
    yield call(op, T([16, 6], bf), T([2, 6, 8], bf), T([2], "int32"))
    yield call(op, T([16, 8], bf), T([2, 8, 6], bf), T([2], "int32"))
    yield call(op, T([16], bf), T([2, 8, 8], bf), T([2], "int32"))
    yield call(op, T([16, 8], bf), T([2, 8, 8], bf), T([2], "int32"), T([2, 8], bf))
    yield call(op, T([16, 8], bf), T([2, 8, 8], bf), T([2], "int32"), out_dtype=torch.float32)
    yield call(op, T([16, 8], bf), T([2, 8, 8], bf), T([2], "int32"), out_dtype=torch.bfloat16)
    for offs in [[4, 10, 10, 16], [0, 8, 16, 16], [16, 16, 16, 16]]:
        yield vcall(op, T([16, 8], bf), T([4, 8, 8], bf), T([4], "int32", fill=("list", offs)))
    yield vcall(op, T([16, 8], bf), transposed([2, 8, 8], bf), T([2], "int32", fill=("list", [5, 16])))
    yield vcall(op, T([2, 16, 8], bf), T([2, 8, 8], bf))


def calls():
    for g in [gen_linear, gen_t, gen_mm, gen_addmm, gen_bmm, gen_baddbmm, gen_matmul, gen_einsum, gen_vec,
              gen_grouped_mm]:
        yield from g()
