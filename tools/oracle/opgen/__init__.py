"""Shared pieces of the op fixture generator (tools/oracle/gen_ops.py).

A family module (tools/oracle/opgen/<family>.py) defines `calls()`, yielding `Call`s built with
`call(op, *args, **kwargs)`. Tensor arguments are `T` specs (sizes, dtype, strides, offset); the
runner materialises them as fake tensors under FakeTensorMode on cpu, calls the ATen overload
directly (torch.ops.aten.<name>.<overload>) and records every output's metadata or the error.
Generate systematically (loops over shapes/layouts/dtypes), never hand-pick calls to pass.
"""
import itertools
import math

DTYPES_FLOAT = ["float32", "float64", "float16", "bfloat16"]
DTYPES_INT = ["int64", "int32", "int16", "int8", "uint8"]
DTYPES_ALL = DTYPES_FLOAT + DTYPES_INT + ["bool"]

# Shapes worth testing: 0-dim, empty, size-1, vectors, matrices, higher rank.
SHAPES = [[], [0], [1], [5], [2, 3], [3, 1], [2, 0, 3], [2, 3, 4], [1, 3, 1], [2, 3, 4, 5]]


def contiguous_strides(sizes):
    st, acc = [], 1
    for s in reversed(sizes):
        st.append(acc)
        acc *= max(s, 1)
    return list(reversed(st))


class T:
    """A tensor argument: metadata only. strides default to contiguous."""

    def __init__(self, sizes, dtype="float32", strides=None, offset=0, device="cpu", fill=None):
        self.sizes = list(sizes)
        self.dtype = dtype
        self.strides = list(strides) if strides is not None else contiguous_strides(self.sizes)
        self.offset = offset
        self.device = device
        # For value calls (`vcall`): None = the default pattern; ("index", n) = valid indices in [0, n).
        self.fill = fill

    def with_dtype(self, dtype):
        return T(self.sizes, dtype, self.strides, self.offset, self.device, self.fill)


def I(sizes, n, dtype="int64"):
    """An index tensor whose values (in value calls) lie in [0, n)."""
    return T(sizes, dtype, fill=("index", n))

    def __repr__(self):
        return f"T({self.sizes}, {self.dtype}, strides={self.strides}, offset={self.offset})"


def transposed(sizes, dtype="float32", a=-1, b=-2):
    """The tensor `x.transpose(a, b)` for contiguous x of the transposed shape: same sizes, swapped strides."""
    n = len(sizes)
    a, b = a % n, b % n
    base = list(sizes)
    base[a], base[b] = base[b], base[a]
    st = contiguous_strides(base)
    st[a], st[b] = st[b], st[a]
    return T(sizes, dtype, st)


def sliced(sizes, dtype="float32", dim=-1, step=2, offset=1):
    """x[..., offset::step] of a contiguous base: non-contiguous with a storage offset."""
    n = len(sizes)
    dim = dim % n
    base = list(sizes)
    base[dim] = sizes[dim] * step + offset
    st = contiguous_strides(base)
    st[dim] *= step
    return T(sizes, dtype, st, offset)


def expanded(sizes, dtype="float32", dims=(0,)):
    """A size-1 dim expanded (stride 0) at each of `dims`."""
    st = contiguous_strides(sizes)
    for d in dims:
        st[d % len(sizes)] = 0
    return T(sizes, dtype, st)


def channels_last(sizes, dtype="float32"):
    n, c, h, w = sizes
    return T(sizes, dtype, [h * w * c, 1, w * c, c])


def odd_size1(dtype="float32"):
    """Contiguous tensors whose size-1 dims carry odd strides (a transpose of a [.., n, 1] view, as
    SigLIP's pooling head makes): PyTorch calls them contiguous; fake-mode ops keep or drop the odd
    stride depending on the op."""
    yield T([4, 1, 16], dtype, strides=[16, 64, 1])
    yield T([2, 1, 3, 1], dtype, strides=[3, 9, 1, 7])


def layouts(sizes, dtype="float32"):
    """Contiguous plus every non-contiguous variant that exists for `sizes`."""
    yield T(sizes, dtype)
    n = len(sizes)
    if n >= 2:
        yield transposed(sizes, dtype)
        yield transposed(sizes, dtype, 0, -1)
    if n >= 1 and sizes[-1] > 0:
        yield sliced(sizes, dtype)
    if n >= 1 and sizes[0] > 1:
        yield expanded(sizes, dtype, (0,))
    if n == 4:
        yield channels_last(sizes, dtype)
    if n >= 1:
        yield T(sizes, dtype, offset=3)


def non_dense_permuted():
    """Strided views that are neither dense nor row-major (a slice of a transposed tensor, a slice of a
    permuted one) and an expanded one: preserve_format copies keep their dims' stride order
    (at::infer_dense_strides)."""
    yield T([2, 2, 8, 16], "float32", [384, 24, 48, 1], offset=8)
    yield T([2, 4, 5, 2], "float32", [60, 5, 1, 20])
    yield T([3, 2], "float32", [1, 3])
    yield T([3, 5, 4], "float32", [4, 0, 1])
    yield T([2, 3, 2], "float32", [1, 4, 2])


class Call:
    def __init__(self, op, args, kwargs, values=False):
        self.op, self.args, self.kwargs, self.values = op, list(args), dict(kwargs), values


def call(op, *args, **kwargs):
    """A metadata call under FakeTensorMode. op is "aten::add.Tensor" ("default" may be omitted)."""
    return Call(op, args, kwargs)


def vcall(op, *args, **kwargs):
    """A value call: runs on real cpu tensors filled with the deterministic pattern (see
    `pattern`) and records output values too; checks our reference CPU kernel. Keep them small."""
    return Call(op, args, kwargs, values=True)


def pattern(j, dtype, fill):
    """Value of storage element j of a value-call input (the C++ harness fills the same)."""
    k = (j * 37 + 11) % 23
    if fill is not None and fill[0] == "list":  # explicit storage values (offsets, cumulative counts)
        return fill[1][j] if j < len(fill[1]) else 0
    if fill is not None:
        return (j * 37 + 11) % fill[1]
    if dtype == "bool":
        return k % 2 == 0
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        return (k - 11) / 8.0
    if dtype == "uint8":
        return k
    return k - 11


def broadcast_pairs():
    """(shape_a, shape_b) pairs that broadcast, plus mismatching ones."""
    ok = [([2, 3], [2, 3]), ([2, 3], [3]), ([2, 3], [1, 3]), ([2, 1], [1, 3]), ([], [2, 3]),
          ([2, 3], []), ([3, 1, 5], [4, 1]), ([0, 3], [3]), ([2, 0, 3], [1, 1, 3]), ([1], [4, 2]),
          ([5, 1, 4, 1], [3, 1, 1])]
    bad = [([2, 3], [4]), ([2, 3], [3, 2]), ([0], [2]), ([2, 3, 4], [2, 1, 3])]
    return ok, bad


# ---- encoding (shared with the runner)
def enc_float(x):
    if math.isnan(x):
        return {"float": "nan"}
    if math.isinf(x):
        return {"float": "inf" if x > 0 else "-inf"}
    return float(x)


def product(*xs):
    return itertools.product(*xs)
