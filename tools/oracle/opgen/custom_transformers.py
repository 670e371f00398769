"""Custom operators that libraries record into exported programs, under their own namespace.
transformers 5.12's MoE layers record `transformers::grouped_mm_fallback(input, weight, offs)`
(transformers/integrations/moe.py): rows [offs[i-1], offs[i]) of input times weight[i]."""
import transformers.integrations.moe  # noqa: F401 - registers torch.ops.transformers.*

from opgen import T, I, call, vcall, transposed


def calls():
    op = "transformers::grouped_mm_fallback"
    for s, e, k, n in [(8, 4, 3, 5), (6, 2, 4, 4), (0, 3, 2, 2), (5, 1, 3, 2)]:
        yield call(op, T([s, k]), T([e, k, n]), T([e], "int64"))
        yield call(op, T([s, k]), transposed([e, k, n]), T([e], "int32"))
        yield call(op, transposed([s, k]), T([e, k, n]), T([e], "int64"))
    for d in ["float64", "float16", "bfloat16"]:
        yield call(op, T([6, 3], d), T([2, 3, 4], d), T([2], "int64"))
    # the fake function's checks (Python asserts)
    yield call(op, T([2, 6, 3]), T([2, 3, 4]), T([2], "int64"))
    yield call(op, T([6, 3]), T([3, 4]), T([2], "int64"))
    yield call(op, T([6, 3]), T([2, 3, 4]), T([2, 1], "int64"))
    yield call(op, T([6, 3]), T([2, 3, 4]), T([3], "int64"))
    yield call(op, T([6, 3]), T([2, 5, 4]), T([2], "int64"))
    yield call(op, T([6, 3]), T([2, 3, 4]), T([2], "float32"))
    # values: offs are cumulative counts (non-decreasing, last == rows)
    for offs in [[2, 5, 5, 8], [0, 3, 8, 8], [8, 8, 8, 8], [1, 2, 3, 8]]:
        yield vcall(op, T([8, 3]), T([4, 3, 5]), T([4], "int64", fill=("list", offs)))
    yield vcall(op, transposed([8, 3]), transposed([4, 3, 5]), T([4], "int32", fill=("list", [3, 3, 6, 8])))
