"""Elementwise binary arithmetic, comparison, logical, where, masked_fill, clamp: broadcasting,
type promotion, TensorIterator output layouts, Python scalars, in-place variants and errors."""
from opgen import odd_size1, T, call, vcall, layouts, broadcast_pairs, DTYPES_ALL, DTYPES_FLOAT, DTYPES_INT, SHAPES

CMP = ["eq", "ne", "lt", "le", "gt", "ge"]
# Ops over two Tensor slots (numbers allowed in those slots, as PyTorch records `x + 2`).
TT = (["aten::add.Tensor", "aten::sub.Tensor", "aten::rsub.Tensor", "aten::mul.Tensor", "aten::div.Tensor",
       "aten::remainder.Tensor", "aten::floor_divide", "aten::pow.Tensor_Tensor"]
      + [f"aten::{c}.Tensor" for c in CMP]
      + ["aten::logical_and", "aten::logical_or", "aten::logical_xor", "aten::maximum", "aten::minimum"])
# Tensor op Scalar overloads.
TS = (["aten::add.Scalar", "aten::sub.Scalar", "aten::rsub.Scalar", "aten::mul.Scalar", "aten::div.Scalar",
       "aten::remainder.Scalar", "aten::pow.Tensor_Scalar", "aten::clamp_min", "aten::clamp_max"]
      + [f"aten::{c}.Scalar" for c in CMP])
NUMBER_OK = {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor", "aten::div.Tensor", "aten::div.Tensor_mode",
             "aten::floor_divide"}
INPLACE = ["aten::add_.Tensor", "aten::sub_.Tensor", "aten::mul_.Tensor", "aten::div_.Tensor"]
INPLACE_REFS = ["aten::pow_.Tensor", "aten::floor_divide_.Tensor"]
SCALARS = [2, -3, 2.5, True, False, 0]
MODES = [None, "trunc", "floor"]
DT_SMALL = ["float32", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]
BIG = 2 ** 40


def pairs_dtypes(ds):
    for da in ds:
        for db in ds:
            yield da, db


def tt_calls(op, **kw):
    ok, bad = broadcast_pairs()
    for a, b in ok + bad:
        yield call(op, T(a), T(b), **kw)
    for x in layouts([2, 3, 4]):
        for y in layouts([2, 3, 4]):
            yield call(op, x, y, **kw)
    for x in layouts([2, 3, 4, 5]):
        yield call(op, x, T([2, 3, 4, 5]), **kw)
        yield call(op, T([4, 5]), x, **kw)
        yield call(op, x, T([3, 1, 1]), **kw)
        if op in NUMBER_OK:
            yield call(op, x, 2, **kw)
    for x in layouts([3, 4]):
        yield call(op, x, T([3, 1]), **kw)
        yield call(op, T([4]), x, **kw)
        yield call(op, x, T([]), **kw)
    for da, db in pairs_dtypes(DTYPES_ALL):
        yield call(op, T([2, 3], da), T([3], db), **kw)
    for da, db in pairs_dtypes(DT_SMALL):
        yield call(op, T([2, 3], da), T([], db), **kw)
        yield call(op, T([], da), T([], db), **kw)
    # Most overloads reject a number in a Tensor slot (an error call each); a few accept one.
    for s in SCALARS:
        for d in DTYPES_ALL if op in NUMBER_OK else ["float32"]:
            yield call(op, T([2, 3], d), s, **kw)
        yield call(op, T([], "int32"), s, **kw)
    # A number as self: PyTorch's own lowerings record sub.Tensor(1, x) (rsub, linspace); the
    # overloads that take a number in `other` take one here too.
    for s in SCALARS:
        for d in DTYPES_ALL if op in NUMBER_OK else ["float32"]:
            yield call(op, s, T([2, 3], d), **kw)
        yield call(op, s, T([], "int32"), **kw)
    yield call(op, 2, 3.5, **kw)
    for s in SHAPES:
        yield call(op, T(s), T(s), **kw)


def ts_calls(op):
    for s in SCALARS + [-1.5]:
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d), s)
        yield call(op, T([], "int64"), s)
    for x in layouts([2, 3, 4, 5]):
        yield call(op, x, 2)
    for x in layouts([3, 4]):
        yield call(op, x, 1.5)
    for s in SHAPES:
        yield call(op, T(s), 3)
    # A tensor in the Scalar slot and a missing one are argument errors.
    yield call(op, T([2, 3]), T([2, 3]))


def value_tensors():
    for x in layouts([2, 3, 4]):
        yield x
    for d in DTYPES_ALL:
        yield T([2, 3], d)


def odd_size1_calls():
    for x in odd_size1():
        for op in ["aten::mul.Tensor", "aten::add.Tensor", "aten::div.Tensor"]:
            yield call(op, x, 0.25)
            yield call(op, x, x)
            yield call(op, x, T(x.sizes))


def calls():
    yield from odd_size1_calls()
    yield from bitwise_calls()
    for op in TT:
        yield from tt_calls(op)
    for alpha in [2, 0.5, True, False, -1]:
        for d in ["float32", "int64", "bool", "uint8"]:
            for op in ["aten::add.Tensor", "aten::sub.Tensor", "aten::rsub.Tensor"]:
                yield call(op, T([2, 3], d), T([2, 3], d), alpha=alpha)
            for op in ["aten::add.Scalar", "aten::sub.Scalar", "aten::rsub.Scalar"]:
                yield call(op, T([2, 3], d), 2, alpha)
    # alpha is checked against the promoted dtype.
    for da, db in [("int32", "float32"), ("float32", "int32"), ("bool", "int64"), ("int64", "bool"), ("bool", "float16")]:
        for alpha in [2.5, True, 3]:
            for op in ["aten::add.Tensor", "aten::sub.Tensor", "aten::rsub.Tensor", "aten::add_.Tensor"]:
                yield call(op, T([2, 3], da), T([2, 3], db), alpha=alpha)
    for mode in MODES:
        yield from tt_calls("aten::div.Tensor_mode", rounding_mode=mode)
    for mode in ["foo", "Floor", ""]:
        for d in ["float32", "int64"]:
            yield call("aten::div.Tensor_mode", T([2, 3], d), T([3], d), rounding_mode=mode)
            yield call("aten::div.Tensor_mode", T([2, 3], d), 2, rounding_mode=mode)
    yield call("aten::div.Tensor_mode", T([2, 3]), T([2, 3]))
    for op in TS:
        yield from ts_calls(op)
    # square: pow(self, 2) (CompositeImplicit), its promotion (a bool self gives int64).
    for d in DTYPES_ALL:
        yield call("aten::square", T([2, 3], d))
    for x in layouts([2, 3, 4]):
        yield call("aten::square", x)
    yield call("aten::square", T([], "int32"))
    yield call("aten::square", 2.0)
    # multiply.Tensor: mul.Tensor (CompositeImplicit); broadcasting, promotion, a bad broadcast.
    for d in DTYPES_ALL:
        yield call("aten::multiply.Tensor", T([2, 3], d), T([3], "float32"))
        yield vcall("aten::multiply.Tensor", T([2, 3], d), T([2, 3], d))
    for x in layouts([2, 3, 4]):
        yield call("aten::multiply.Tensor", x, T([4]))
        yield vcall("aten::multiply.Tensor", x, T([3, 1]))
    yield call("aten::multiply.Tensor", T([2, 3]), T([4]))
    yield call("aten::multiply.Tensor", T([2, 3]), 2.0)
    # pow with a number base and an exponent tensor.
    for s in SCALARS + [-1.5, 1, 1.0]:
        for d in DTYPES_ALL:
            yield call("aten::pow.Scalar", s, T([2, 3], d))
        for x in layouts([2, 3, 4]):
            yield call("aten::pow.Scalar", s, x)
    yield call("aten::pow.Scalar", T([2]), T([2, 3]))
    # remainder with a number dividend (`2 % x`).
    for s in SCALARS + [-1.5]:
        for d in DTYPES_ALL:
            yield call("aten::remainder.Scalar_Tensor", s, T([2, 3], d))
        for x in layouts([2, 3, 4]):
            yield call("aten::remainder.Scalar_Tensor", s, x)
    yield call("aten::remainder.Scalar_Tensor", T([2]), T([2, 3]))
    yield call("aten::remainder.Scalar_Tensor", 2, 3)
    for d in DTYPES_INT:
        for e in [-1, -2, 0, 2, 0.5]:
            yield call("aten::pow.Tensor_Scalar", T([2, 3], d), e)
            yield call("aten::pow.Tensor_Tensor", T([2, 3], d), e)
    # logical_not, isinf, isnan: unary predicates, any dtype and layout.
    for op in ["aten::logical_not", "aten::isinf", "aten::isnan"]:
        for d in DTYPES_ALL:
            yield call(op, T([2, 3], d))
        for s in SHAPES:
            for x in layouts(s):
                yield call(op, x)
        yield call(op, 2)
    # where: condition bool (or uint8), broadcast over all three.
    where_shapes = [([2, 3], [2, 3], [2, 3]), ([2, 3], [3], [1]), ([3], [2, 3], []), ([2, 1], [1, 3], [3]),
                    ([], [2, 3], [2, 3]), ([2, 3], [], []), ([0, 3], [3], [1]), ([2, 3], [4], [3]),
                    ([2, 3], [2, 3], [3, 2]), ([2, 3, 4], [3, 4], [2, 1, 4])]
    for c, x, y in where_shapes:
        yield call("aten::where.self", T(c, "bool"), T(x), T(y))
        yield call("aten::where.ScalarOther", T(c, "bool"), T(x), 0.0)
        yield call("aten::where.ScalarSelf", T(c, "bool"), 1, T(y))
    for cd in ["bool", "uint8", "float32", "int64"]:
        yield call("aten::where.self", T([2, 3], cd), T([2, 3]), T([2, 3]))
        yield call("aten::where.ScalarOther", T([2, 3], cd), T([2, 3]), 1)
        yield call("aten::where.ScalarSelf", T([2, 3], cd), 1, T([2, 3]))
    # where with two numbers: the result takes the numbers' type (default dtype for floats).
    for cd in ["bool", "uint8", "float32"]:
        for x, y in [(1, 0), (1.0, 0), (True, 2), (False, True), (0.5, -1.5)]:
            yield call("aten::where.Scalar", T([2, 3], cd), x, y)
    for c in SHAPES:
        yield call("aten::where.Scalar", T(c, "bool"), 1.0, 0.0)
    for c in layouts([2, 3, 4], "bool"):
        yield call("aten::where.Scalar", c, 1, 2)
    yield call("aten::where.Scalar", T([2, 3], "bool"), T([2, 3]), 1.0)
    for da, db in pairs_dtypes(DTYPES_ALL):
        yield call("aten::where.self", T([2, 3], "bool"), T([2, 3], da), T([3], db))
    for da, db in pairs_dtypes(DT_SMALL):
        yield call("aten::where.self", T([2, 3], "bool"), T([2, 3], da), T([], db))
    for s in SCALARS:
        for d in DTYPES_ALL:
            yield call("aten::where.ScalarOther", T([2, 3], "bool"), T([2, 3], d), s)
            yield call("aten::where.ScalarSelf", T([2, 3], "bool"), s, T([2, 3], d))
    for c in layouts([2, 3, 4], "bool"):
        for x in layouts([2, 3, 4]):
            yield call("aten::where.self", c, x, T([2, 3, 4]))
            yield call("aten::where.ScalarOther", c, x, 2)
            yield call("aten::where.ScalarSelf", c, 2, x)
    for x in layouts([2, 3, 4, 5]):
        yield call("aten::where.self", T([2, 3, 4, 5], "bool"), x, x)
        yield call("aten::where.self", x.with_dtype("bool"), T([4, 5]), 1.0)
    # masked_fill: mask bool, broadcastable to self (not the other way), value a number or 0-dim tensor.
    mf_shapes = [([2, 3], [2, 3]), ([2, 3], [3]), ([2, 3], [1, 1]), ([2, 3], []), ([], []), ([0, 3], [3]),
                 ([2, 3], [4]), ([3], [2, 3]), ([2, 3, 4], [3, 1]), ([1, 3], [2, 3]), ([], [2])]
    for op in ["aten::masked_fill.Scalar", "aten::masked_fill_.Scalar"]:
        for s, m in mf_shapes:
            yield call(op, T(s), T(m, "bool"), 0.5)
        for md in ["bool", "uint8", "float32", "int64"]:
            yield call(op, T([2, 3]), T([2, 3], md), 1)
        for d in DTYPES_ALL:
            for v in SCALARS + [-1.5]:
                yield call(op, T([2, 3], d), T([2, 3], "bool"), v)
        for x in layouts([2, 3, 4]):
            yield call(op, x, T([2, 3, 4], "bool"), 1.0)
            yield call(op, T([2, 3, 4]), x.with_dtype("bool"), 1.0)
        for x in layouts([2, 3, 4, 5]):
            yield call(op, x, T([4, 5], "bool"), 0)
    for op in ["aten::masked_fill.Tensor", "aten::masked_fill_.Tensor"]:
        for s, m in mf_shapes:
            yield call(op, T(s), T(m, "bool"), T([]))
        for vs in [[1], [2], [2, 3], [1, 1]]:
            yield call(op, T([2, 3]), T([2, 3], "bool"), T(vs))
        for md in ["bool", "uint8", "float32"]:
            yield call(op, T([2, 3]), T([2, 3], md), T([]))
        for d, vd in pairs_dtypes(DT_SMALL):
            yield call(op, T([2, 3], d), T([2, 3], "bool"), T([], vd))
        for x in layouts([2, 3, 4]):
            yield call(op, x, T([3, 4], "bool"), T([]))
    # masked_scatter(_): mask broadcasts with self (functional); dtypes checked.
    for op in ["aten::masked_scatter", "aten::masked_scatter_"]:
        for s, m in [([2, 3], [2, 3]), ([2, 3], [3]), ([2, 3], [2, 1]), ([2, 3, 4], [3, 4]), ([], []), ([0, 3], [3])]:
            yield call(op, T(s), T(m, "bool"), T([30]))
        for x in layouts([2, 3, 4]):
            yield call(op, x, T([2, 3, 4], "bool"), T([2, 3, 4]))
            yield call(op, T([2, 3, 4]), x.with_dtype("bool"), T([24]))
        for md in ["bool", "uint8", "float32", "int64"]:
            yield call(op, T([2, 3]), T([2, 3], md), T([6]))
        for d, sd in pairs_dtypes(DT_SMALL):
            yield call(op, T([2, 3], d), T([2, 3], "bool"), T([6], sd))
    yield call("aten::masked_scatter", T([1, 3]), T([2, 3], "bool"), T([6]))
    yield call("aten::masked_scatter", T([3]), T([4, 1], "bool"), T([12]))
    # clamp: Scalar/Tensor bounds, either may be None, both None is an error.
    bounds = [(0, 1), (None, 1), (0, None), (-0.5, 0.5), (None, 2.5), (True, None), (1, 0), (None, None)]
    for op in ["aten::clamp", "aten::clamp_"]:
        for lo, hi in bounds:
            for d in DTYPES_ALL:
                yield call(op, T([2, 3], d), lo, hi)
        for x in layouts([2, 3, 4]):
            yield call(op, x, 0, 1)
        for x in layouts([2, 3, 4, 5]):
            yield call(op, x, None, 1.5)
        for s in SHAPES:
            yield call(op, T(s), min=0)
        yield call(op, T([2, 3]))
        yield call(op, T([2, 3]), max=1.0)
    # clamp_min_ / clamp_max_: one Scalar bound, the result cast back to self's dtype.
    for op in ["aten::clamp_min_", "aten::clamp_max_"]:
        for b in [0, 1.5, -2, True]:
            for d in DTYPES_ALL:
                yield call(op, T([2, 3], d), b)
        for x in layouts([2, 3, 4]):
            yield call(op, x, 0.5)
        for s in SHAPES:
            yield call(op, T(s), 1)
    for lo, hi in [([2, 3], [2, 3]), ([3], None), (None, [1, 3]), ([], [2, 1]), ([2, 1], [3]), ([4], None),
                   (None, [2, 2]), ([2, 3, 4], None), (None, None), ([], []), ([2, 3], [3, 3])]:
        yield call("aten::clamp.Tensor", T([2, 3]), T(lo) if lo is not None else None,
                   T(hi) if hi is not None else None)
    for da, db in pairs_dtypes(DT_SMALL):
        yield call("aten::clamp.Tensor", T([2, 3], da), T([3], db), None)
        yield call("aten::clamp.Tensor", T([2, 3], da), None, T([], db))
        yield call("aten::clamp.Tensor", T([2, 3], da), T([2, 3], db), T([2, 3], "int64"))
    for x in layouts([2, 3, 4]):
        yield call("aten::clamp.Tensor", x, T([2, 3, 4]), None)
        yield call("aten::clamp.Tensor", T([3, 4]), x, T([]))
        yield call("aten::clamp.Tensor", x, max=T([4]))
    # In-place arithmetic: result keeps self's metadata; other must broadcast to self and its
    # promoted dtype must be castable to self's.
    for op in INPLACE:
        for x in layouts([2, 3, 4]):
            yield call(op, x, T([2, 3, 4]))
            yield call(op, x, T([4]))
            yield call(op, x, 2)
        for a, b in [([2, 3], [3]), ([2, 3], [2, 1]), ([2, 3], []), ([3], [2, 3]), ([2, 1], [2, 3]),
                     ([], [2]), ([2, 3], [4]), ([0, 3], [3]), ([], [])]:
            yield call(op, T(a), T(b))
        for da, db in pairs_dtypes(DTYPES_ALL):
            yield call(op, T([2, 3], da), T([3], db))
        for da, db in pairs_dtypes(DT_SMALL):
            yield call(op, T([2, 3], da), T([], db))
        for s in SCALARS:
            for d in DTYPES_ALL:
                yield call(op, T([2, 3], d), s)
    # pow_ / floor_divide_ (torch._refs' in-place wrappers) and addcmul(_).
    for op in INPLACE_REFS:
        for x in layouts([2, 3, 4]):
            yield call(op, x, T([2, 3, 4]))
            yield call(op, x, T([4]))
        for a, b in [([2, 3], [3]), ([2, 3], []), ([3], [2, 3]), ([2, 1], [2, 3])]:
            yield call(op, T(a), T(b))
        for da, db in pairs_dtypes(DT_SMALL):
            yield call(op, T([2, 3], da), T([3], db))
    for e in SCALARS + [-1.5, 0.5]:
        for d in DTYPES_ALL:
            yield call("aten::pow_.Scalar", T([2, 3], d), e)
    for x in layouts([2, 3, 4]):
        yield call("aten::pow_.Scalar", x, 2)
    for op in ["aten::addcmul", "aten::addcmul_"]:
        for x in layouts([2, 3, 4]):
            yield call(op, x, T([2, 3, 4]), T([4]))
            yield call(op, T([2, 3, 4]), x, T([3, 1]), value=0.5)
        for a, b, c in [([2, 3], [3], [2, 1]), ([3], [2, 3], [3]), ([2, 3], [2, 3], [4]), ([], [2], [2]),
                        ([0, 3], [3], [1])]:
            yield call(op, T(a), T(b), T(c))
        for da, db in pairs_dtypes(DT_SMALL):
            yield call(op, T([2, 3], da), T([3], db), T([2, 3], da))
        for v in [2, 0.5, True, -1]:
            for d in ["float32", "int64", "bool", "bfloat16"]:
                yield call(op, T([2, 3], d), T([2, 3], d), T([2, 3], d), value=v)
    for alpha in [2, 0.5, True]:
        for d in ["float32", "int64", "bool"]:
            yield call("aten::add_.Tensor", T([2, 3], d), T([2, 3], d), alpha=alpha)
            yield call("aten::sub_.Tensor", T([2, 3], d), T([2, 3], d), alpha=alpha)
    yield from value_calls()


def value_calls():
    """Reference kernels against PyTorch's values: every op, a few layouts and dtypes."""
    for op in TT + ["aten::div.Tensor_mode"]:
        kws = [{"rounding_mode": m} for m in MODES] if op == "aten::div.Tensor_mode" else [{}]
        for kw in kws:
            # Eager float floor division lays out like its first operand, FakeTensorMode like
            # its second: strided value calls give both operands the same layout there.
            floor = op == "aten::floor_divide" or kw.get("rounding_mode") == "floor"
            for x in value_tensors():
                if op in ("aten::sub.Tensor", "aten::rsub.Tensor") and x.dtype == "bool":
                    continue
                yield vcall(op, T(x.sizes, x.dtype) if floor else x, T(x.sizes[-1:], "float32"), **kw)
                yield vcall(op, x, x if floor else T(x.sizes, x.dtype), **kw)
            if op not in NUMBER_OK:
                continue
            for d in DTYPES_INT:
                yield vcall(op, T([2, 3], d), 3, **kw)
                yield vcall(op, T([2, 3], d), -2, **kw)
            for s in [2.5, -0.5]:
                yield vcall(op, T([2, 3]), s, **kw)
                yield vcall(op, s, T([2, 3]), **kw)
            for d in DTYPES_INT:
                yield vcall(op, 3, T([2, 3], d), **kw)
    for op in TS:
        for d in DTYPES_ALL:
            for s in [2, -3, 1.5]:
                if d == "bool" and op in ("aten::sub.Scalar", "aten::rsub.Scalar"):
                    continue
                yield vcall(op, T([2, 3], d), s)
        for x in layouts([2, 3, 4]):
            yield vcall(op, x, 0.5)
    for alpha in [2, -0.5]:
        for op in ["aten::add.Tensor", "aten::sub.Tensor", "aten::rsub.Tensor"]:
            yield vcall(op, T([2, 3]), T([3]), alpha=alpha)
        for op in ["aten::add.Scalar", "aten::sub.Scalar", "aten::rsub.Scalar"]:
            yield vcall(op, T([2, 3]), 3, alpha)
    yield vcall("aten::add.Tensor", T([2, 3], "bool"), T([2, 3], "bool"), alpha=True)
    yield vcall("aten::add.Tensor", T([2, 3], "int64"), T([2, 3], "int32"), alpha=-2)
    for x, y in [(1, 0), (1.5, -2), (True, False)]:
        yield vcall("aten::where.Scalar", T([2, 3], "bool"), x, y)
    for d in DTYPES_ALL:
        for s in [2, 0.5, 3.0, -1.5]:
            yield vcall("aten::pow.Scalar", s, T([2, 3], d))
        if d != "bool":
            yield vcall("aten::remainder.Scalar_Tensor", 5, T([2, 3], d))
            yield vcall("aten::remainder.Scalar_Tensor", -2.5, T([2, 3], d))
        yield vcall("aten::logical_not", T([2, 3], d))
        yield vcall("aten::isinf", T([2, 3], d))
        yield vcall("aten::isnan", T([2, 3], d))
        yield vcall("aten::where.self", T([2, 3], "bool"), T([2, 3], d), T([3], "float32"))
        yield vcall("aten::where.ScalarOther", T([2, 3], "bool"), T([2, 3], d), -1.5)
        yield vcall("aten::where.ScalarSelf", T([2, 3], "bool"), 2, T([2, 3], d))
        for op in ["aten::masked_fill.Scalar", "aten::masked_fill_.Scalar"]:
            yield vcall(op, T([2, 3], d), T([3], "bool"), 7)
        for op in ["aten::masked_fill.Tensor", "aten::masked_fill_.Tensor"]:
            yield vcall(op, T([2, 3], d), T([2, 3], "bool"), T([], d))
        for op in ["aten::masked_scatter", "aten::masked_scatter_"]:
            yield vcall(op, T([2, 3], d), T([3], "bool"), T([7], d))
            yield vcall(op, T([2, 3], d), T([2, 3], "bool"), T([2, 3], d))
        for op in ["aten::clamp", "aten::clamp_"]:
            if d != "bool":
                yield vcall(op, T([2, 3], d), -1, 0.5)
                yield vcall(op, T([2, 3], d), None, 1)
        if d not in ("bool", "uint8", "int8"):
            yield vcall("aten::pow_.Scalar", T([2, 3], d), 2)
            yield vcall("aten::pow_.Tensor", T([2, 3], d), T([3], d))
            yield vcall("aten::floor_divide_.Tensor", T([2, 3], d), T([3], d))
            yield vcall("aten::addcmul", T([2, 3], d), T([3], d), T([2, 1], d))
            yield vcall("aten::addcmul_", T([2, 3], d), T([3], d), T([2, 3], d), value=2)
        for op in ["aten::clamp_min_", "aten::clamp_max_"]:
            if d != "bool":
                yield vcall(op, T([2, 3], d), 1)
                yield vcall(op, T([2, 3], "float32"), -0.5)
        if d != "bool":
            yield vcall("aten::clamp.Tensor", T([2, 3], d), T([3], d), T([2, 1], d))
            yield vcall("aten::clamp.Tensor", T([2, 3], d), None, T([3], "float32"))
        for op in INPLACE:
            if d == "bool" and op == "aten::sub_.Tensor":
                continue
            yield vcall(op, T([2, 3], "float32" if d == "bool" else d), T([3], d))
            yield vcall(op, T([2, 3], "float64"), 3)
    for x in layouts([2, 3, 4]):
        yield vcall("aten::where.self", x.with_dtype("bool"), x, T([4]))
        yield vcall("aten::logical_not", x)
        yield vcall("aten::masked_fill.Scalar", x, T([2, 3, 4], "bool"), 1.0)
        yield vcall("aten::masked_scatter", T([2, 3, 4]), x.with_dtype("bool"), x)
        yield vcall("aten::masked_scatter_", x, T([3, 4], "bool"), T([2, 3, 4]))
        yield vcall("aten::clamp", x, -0.5, 0.5)
        yield vcall("aten::pow_.Scalar", x, 3)
        yield vcall("aten::addcmul_", x, T([4]), T([3, 1]), value=0.5)
        for op in INPLACE + INPLACE_REFS + ["aten::masked_fill_.Scalar", "aten::clamp_", "aten::clamp_min_",
                                            "aten::clamp_max_"]:
            args = {"aten::masked_fill_.Scalar": (T([4], "bool"), 2.0), "aten::clamp_": (-0.5, 0.5),
                    "aten::clamp_min_": (0.25,), "aten::clamp_max_": (-0.25,)}.get(op, (T([4]),))
            yield vcall(op, x, *args)


def bitwise_calls():
    """bitwise_not/and/or: FakeTensorMode accepts float inputs (metadata only); the cpu kernels refuse them."""
    for x in value_tensors():
        yield call("aten::bitwise_not", x)
    for s in SHAPES:
        yield call("aten::bitwise_not", T(s, "int64"))
    for x in layouts([2, 3, 4, 5], "bool"):
        yield call("aten::bitwise_not", x)
    yield call("aten::bitwise_not", 2)
    for op in ["aten::bitwise_and.Tensor", "aten::bitwise_or.Tensor", "aten::__and__.Tensor", "aten::__or__.Tensor"]:
        ok, bad = broadcast_pairs()
        for a, b in ok + bad:
            yield call(op, T(a, "bool"), T(b, "bool"))
        for x in layouts([2, 3, 4], "int32"):
            for y in layouts([2, 3, 4], "int32"):
                yield call(op, x, y)
        for da, db in pairs_dtypes(DTYPES_ALL):
            yield call(op, T([2, 3], da), T([3], db))
        for da, db in pairs_dtypes(DT_SMALL):
            yield call(op, T([2, 3], da), T([], db))
        for s in SHAPES:
            yield call(op, T(s, "bool"), T(s, "bool"))
        yield call(op, T([2, 3], "bool"), True)
        yield call(op, T([2, 3], "bool"), other=T([3], "bool"))
    for op in ["aten::bitwise_and.Scalar", "aten::bitwise_or.Scalar", "aten::__and__.Scalar", "aten::__or__.Scalar"]:
        for s in [True, False, 3, -1, 1.5]:
            for d in DTYPES_ALL:
                yield call(op, T([2, 3], d), s)
            yield call(op, T([], "int64"), s)
        for x in layouts([2, 3, 4, 5], "bool"):
            yield call(op, x, True)
        for s in SHAPES:
            yield call(op, T(s, "int32"), 3)
        yield call(op, T([2, 3], "bool"), T([2, 3], "bool"))
    # Values (float inputs raise in the cpu kernels).
    for d in DTYPES_ALL:
        yield vcall("aten::bitwise_not", T([2, 3], d))
        for op in ["aten::bitwise_and", "aten::bitwise_or", "aten::__and__", "aten::__or__"]:
            yield vcall(op + ".Tensor", T([2, 3], d), T([3], d))
            yield vcall(op + ".Tensor", T([2, 3], d), T([3], "bool"))
            yield vcall(op + ".Scalar", T([2, 3], d), 3 if d != "bool" else True)
            yield vcall(op + ".Scalar", T([2, 3], d), -6)
    for x in layouts([2, 3, 4], "int64"):
        yield vcall("aten::bitwise_not", x)
        yield vcall("aten::bitwise_and.Tensor", x, T([3, 4], "int64"))
        yield vcall("aten::bitwise_or.Scalar", x, 5)
        yield vcall("aten::__or__.Tensor", x, T([4], "int64"))
        yield vcall("aten::__and__.Scalar", x, 6)
