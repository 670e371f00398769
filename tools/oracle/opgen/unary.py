"""Unary math ops and their in-place forms: dtype promotion (int/bool -> default float for the
floating functions), TensorIterator output strides over every layout, in-place cast errors."""
import os
import re

from opgen import T, call, vcall, layouts, SHAPES, DTYPES_ALL

# The op list is the C++ declaration site's (one X(name, Tag, Kind, math) line per op).
_LIST = os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", "fakeexport", "ops", "unary_list.h")
OPS = re.findall(r"^\s*X\((\w+),", open(_LIST).read(), re.M)


def calls():
    for name in OPS:
        for op in ["aten::" + name, "aten::" + name + "_"]:
            for s in SHAPES:
                yield call(op, T(s))
            for s in [[3, 1], [2, 3, 4], [2, 3, 4, 5], [1, 3, 1, 2]]:
                for x in layouts(s):
                    yield call(op, x)
            for d in DTYPES_ALL + ["complex64"]:
                yield call(op, T([2, 3], d))
                yield call(op, T([3, 2], d, strides=[1, 3]))
            # Python numbers are not tensors (errors for every op).
            for v in [2.0, 3, True]:
                yield call(op, v)
        # Reference kernels against PyTorch's values (in-place ones write into self).
        for op in ["aten::" + name, "aten::" + name + "_"]:
            for x in layouts([2, 3, 4]):
                yield vcall(op, x)
            for d in DTYPES_ALL:
                yield vcall(op, T([2, 3], d))
            yield vcall(op, T([]))
