"""Convolution and pooling: convolution (1d/2d/3d, strided, padded, dilated, grouped, transposed),
conv1d/conv2d (int and string padding), max_pool2d(_with_indices), avg_pool2d, adaptive_avg_pool2d."""
from opgen import T, call, vcall, layouts, channels_last, transposed, DTYPES_FLOAT

CONV = "aten::convolution"


def cl(sizes, dtype="float32"):
    return channels_last(sizes, dtype) if len(sizes) == 4 else transposed(sizes, dtype, 1, -1)


def cl3d(sizes, dtype="float32"):
    n, c, d, h, w = sizes
    return T(sizes, dtype, [d * h * w * c, 1, h * w * c, w * c, c])


def conv_cases():
    """(input sizes, weight sizes, stride, padding, dilation, groups) for 1/2/3 spatial dims."""
    for nd in (1, 2, 3):
        sp = [7, 6, 5][:nd]
        ks = [3, 2, 3][:nd]
        for stride, padding, dilation, groups in [(1, 0, 1, 1), (2, 1, 1, 1), (1, 2, 2, 1), (3, 0, 1, 2),
                                                  (1, 1, 1, 4), (2, 0, 2, 2)]:
            cin, cout = 4, 8
            yield ([2, cin] + sp, [cout, cin // groups] + ks, [stride] * nd, [padding] * nd, [dilation] * nd, groups)
    # Mixed per-dim values, 1x1 kernels, size-1 batch, empty batch.
    yield ([1, 3, 9, 4], [5, 3, 1, 1], [1, 1], [0, 0], [1, 1], 1)
    yield ([1, 3, 9, 4], [5, 3, 3, 2], [2, 1], [1, 0], [1, 2], 1)
    yield ([0, 3, 8, 8], [4, 3, 3, 3], [1, 1], [0, 0], [1, 1], 1)
    yield ([2, 6, 5, 5], [6, 1, 3, 3], [1, 1], [1, 1], [1, 1], 6)  # depthwise


def calls():
    # ---- convolution.default
    for x, w, st, pd, dl, g in conv_cases():
        for bias in (None, T([w[0]])):
            yield call(CONV, T(x), T(w), bias, st, pd, dl, False, [0] * len(st), g)
        for d in ["float64", "float16", "bfloat16"]:
            yield call(CONV, T(x, d), T(w, d), None, st, pd, dl, False, [0] * len(st), g)
        if len(x) in (3, 4):
            yield call(CONV, cl(x), T(w), None, st, pd, dl, False, [0] * len(st), g)
            yield call(CONV, T(x), cl(w), None, st, pd, dl, False, [0] * len(st), g)
            yield call(CONV, cl(x, "float64"), T(w, "float64"), None, st, pd, dl, False, [0] * len(st), g)
            yield call(CONV, cl(x, "bfloat16"), T(w, "bfloat16"), None, st, pd, dl, False, [0] * len(st), g)
    for x in layouts([2, 4, 6, 6]):
        yield call(CONV, x, T([3, 4, 3, 3]), None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    for w in layouts([3, 4, 3, 3]):
        yield call(CONV, T([2, 4, 6, 6]), w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    # Channels-last-3d (NDHWC) 5-D inputs / weights.
    for d in ["float32", "float64"]:
        x5, w5 = [2, 4, 5, 4, 3], [3, 4, 2, 2, 2]
        yield call(CONV, cl3d(x5, d), T(w5, d), None, [1] * 3, [0] * 3, [1] * 3, False, [0] * 3, 1)
        yield call(CONV, T(x5, d), cl3d(w5, d), None, [1] * 3, [0] * 3, [1] * 3, False, [0] * 3, 1)
    # Transposed: weight [C_in, C_out / groups, k...], output_padding < stride or dilation.
    for nd in (1, 2, 3):
        sp, ks = [5, 4, 3][:nd], [3, 2, 2][:nd]
        for stride, padding, dilation, opad, groups in [(1, 0, 1, 0, 1), (2, 1, 1, 1, 1), (3, 0, 2, 1, 2),
                                                        (2, 0, 1, 0, 4), (1, 1, 1, 0, 1)]:
            x, w = [2, 4] + sp, [4, 6 // (2 if groups == 2 else 1) if groups != 4 else 2] + ks
            args = ([stride] * nd, [padding] * nd, [dilation] * nd, True, [opad] * nd, groups)
            yield call(CONV, T(x), T(w), None, *args)
            yield call(CONV, T(x), T(w), T([w[1] * groups]), *args)
            yield call(CONV, T(x, "float64"), T(w, "float64"), None, *args)
            if nd == 2:
                yield call(CONV, cl(x), T(w), None, *args)
                yield call(CONV, T(x), cl(w), None, *args)
    # Unbatched input (C, spatial...).
    yield call(CONV, T([4, 7, 7]), T([8, 4, 3, 3]), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    yield call(CONV, T([4, 7]), T([8, 4, 3]), None, [1], [0], [1], False, [0], 1)
    # ---- convolution errors
    E = ([1, 1], [0, 0], [1, 1], False, [0, 0])
    yield call(CONV, T([2, 5, 8, 8]), T([4, 3, 3, 3]), None, *E, 1)                 # channel mismatch
    yield call(CONV, T([2, 3, 2, 2]), T([4, 3, 3, 3]), None, *E, 1)                 # kernel too large
    yield call(CONV, T([2, 3, 2, 8]), T([4, 3, 3, 3]), None, *E, 1)
    yield call(CONV, T([2, 3, 4, 4]), T([4, 3, 3, 3]), None, [1, 1], [0, 0], [2, 2], False, [0, 0], 1)
    yield call(CONV, T([2, 6, 8, 8]), T([4, 3, 3, 3]), None, *E, 3)                 # groups !| C_out
    yield call(CONV, T([2, 6, 8, 8]), T([4, 2, 3, 3]), None, *E, 4)                 # C_in mismatch w/ groups
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), None, *E, 0)                 # groups 0
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), T([4], "float64"), *E, 1)    # bias dtype
    yield call(CONV, T([2, 3, 0, 8]), T([4, 3, 3, 3]), None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), None, [1, 1], [0, 0], [1, 1], True, [-1, 0], 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), T([5]), *E, 1)               # bias size
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), T([2, 2]), *E, 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3], "float64"), None, *E, 1)      # dtype mismatch
    yield call(CONV, T([2, 3, 8, 8], "int64"), T([4, 3, 3, 3], "int64"), None, *E, 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3]), None, *E, 1)                    # weight rank
    yield call(CONV, T([2, 3, 8, 8, 8]), T([4, 3, 3, 3]), None, *E, 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), None, [0, 1], [0, 0], [1, 1], False, [0, 0], 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), None, [1, 1], [-1, 0], [1, 1], False, [0, 0], 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), None, [1, 1], [0, 0], [0, 1], False, [0, 0], 1)
    yield call(CONV, T([2, 3, 8, 8]), T([4, 3, 3, 3]), None, [1, 1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    yield call(CONV, T([2, 4, 5, 5]), T([3, 4, 3, 3]), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1)
    yield call(CONV, T([2, 4, 5, 5]), T([4, 2, 3, 3]), None, [1, 1], [0, 0], [1, 1], True, [1, 1], 1)
    yield call(CONV, T([2, 4, 1, 1]), T([4, 2, 3, 3]), None, [1, 1], [3, 3], [1, 1], True, [0, 0], 1)
    yield call(CONV, T([2, 0, 8, 8]), T([4, 0, 3, 3]), None, *E, 1)
    # ---- conv1d / conv2d (int padding), incl. unbatched input and defaults
    for op, nd in [("aten::conv1d", 1), ("aten::conv2d", 2)]:
        for x, w, st, pd, dl, g in conv_cases():
            if len(x) != nd + 2:
                continue
            yield call(op, T(x), T(w), T([w[0]]), st, pd, dl, g)
            yield call(op, T(x[1:]), T(w), None, st, pd, dl, g)
            yield call(op, cl(x), T(w), None, st, pd, dl, g)
        x, w = [2, 4] + [6] * nd, [3, 4] + [3] * nd
        yield call(op, T(x), T(w))
        yield call(op, T(x), T(w), stride=[2] * nd, padding=[1] * nd)
        yield call(op, T(x, "bfloat16"), T(w, "bfloat16"), T([3], "bfloat16"), groups=1)
        yield call(op, T(x), T(w), None, [2], [1], [1])
        # errors
        yield call(op, T([2, 5] + [6] * nd), T(w))
        yield call(op, T([2, 4] + [2] * nd), T(w))
        yield call(op, T([4] * (nd + 3)), T(w))
        yield call(op, T([4]), T(w))
        yield call(op, T(x), T(w), groups=2)
        yield call(op, T(x), T(w, "float64"))
        yield call(op, T(x), T(w), T([4]))
        yield call(op, T(x), T(w), T([3], "float64"))
        # ---- string padding
        pop = op + ".padding"
        for k in (1, 2, 3, 4):
            for dil in (1, 2):
                for pad in ("same", "valid"):
                    wk = [3, 4] + [k] * nd
                    yield call(pop, T([2, 4] + [7] * nd), T(wk), None, [1] * nd, pad, [dil] * nd)
        yield call(pop, T([2, 4] + [7] * nd), T(w))
        yield call(pop, T([4] + [7] * nd), T(w), None, [1] * nd, "same")
        yield call(pop, cl([2, 4] + [7] * nd), T([3, 4] + [2] * nd), None, [1] * nd, "same")
        yield call(pop, T([2, 4] + [7] * nd), T([4, 2] + [3] * nd), T([4]), [1] * nd, "same", [1] * nd, 2)
        yield call(pop, T([2, 4] + [7] * nd), T(w), None, [2] * nd, "valid")
        yield call(pop, T([2, 4] + [7] * nd), T(w), padding="same", dilation=[3] * nd)
        yield call(pop, T([2, 4] + [7] * nd, "float64"), T(w, "float64"), padding="same")
        # errors
        yield call(pop, T([2, 4] + [7] * nd), T(w), None, [2] * nd, "same")
        yield call(pop, T([2, 4] + [7] * nd), T(w), None, [1] * nd, "full")
        yield call(pop, T([2, 5] + [7] * nd), T(w), None, [1] * nd, "same")
        yield call(pop, T([2, 4] + [2] * nd), T(w), None, [1] * nd, "valid")
        yield call(pop, T([2, 4] + [2] * nd), T([3, 4] + [4] * nd), None, [1] * nd, "same")
    # ---- max_pool2d / max_pool2d_with_indices
    pool_cases = [([2, 3, 8, 8], [2, 2], [], [0, 0], [1, 1], False),
                  ([2, 3, 8, 8], [3, 3], [2, 2], [1, 1], [1, 1], False),
                  ([2, 3, 7, 9], [3, 2], [2, 3], [1, 0], [1, 1], True),
                  ([2, 3, 7, 7], [2, 2], [2, 2], [0, 0], [1, 1], True),
                  ([1, 2, 9, 9], [3, 3], [1, 1], [1, 1], [2, 2], False),
                  ([3, 8, 8], [2, 2], [2, 2], [0, 0], [1, 1], False),
                  ([2, 3, 5, 5], [5, 5], [1, 1], [0, 0], [1, 1], False),
                  ([0, 3, 4, 4], [2, 2], [2, 2], [0, 0], [1, 1], False),
                  ([2, 3, 6, 6], [3], [2], [1], [1], True),
                  ([2, 3, 10, 10], [4, 4], [3, 3], [2, 2], [1, 1], True)]
    for op in ["aten::max_pool2d", "aten::max_pool2d_with_indices"]:
        for x, k, s, p, d, c in pool_cases:
            yield call(op, T(x), k, s, p, d, c)
            if len(x) == 4:
                yield call(op, channels_last(x), k, s, p, d, c)
                for dt in ["float64", "bfloat16", "int64"]:
                    yield call(op, T(x, dt), k, s, p, d, c)
        for x in layouts([2, 3, 6, 6]):
            yield call(op, x, [2, 2])
        yield call(op, T([2, 3, 6, 6]), [3, 3], ceil_mode=True)
        yield call(op, T([2, 3, 6, 6]), [3, 3], padding=[1, 1])
        # errors
        yield call(op, T([2, 3, 6, 6]), [3, 3], [1, 1], [2, 2])          # pad > kernel / 2
        yield call(op, T([2, 3, 6, 6]), [0, 3])                          # kernel 0
        yield call(op, T([2, 3, 6, 6]), [2, 2], [0, 1])                  # stride 0
        yield call(op, T([2, 3, 6, 6]), [2, 2], [2, 2], [0, 0], [0, 1])  # dilation 0
        yield call(op, T([2, 3, 2, 2]), [3, 3])                          # output too small
        yield call(op, T([6, 6]), [2, 2])                                # rank
        yield call(op, T([2, 3, 0, 6]), [2, 2])                          # empty spatial
        yield call(op, T([2, 3, 6, 6]), [2, 2, 2])                       # kernel list length
        yield call(op, T([2, 3, 6, 6], "bool"), [2, 2])
        yield call(op, T([2, 3, 6, 6]), [2, 2], [2, 2, 2])
        yield call(op, T([2, 3, 6, 6]), [3, 3], [1, 1], [-1, 0])
    # ---- avg_pool2d
    for x, k, s, p, d, c in pool_cases:
        for cip in (True, False):
            yield call("aten::avg_pool2d", T(x), k, s, p, c, cip)
        yield call("aten::avg_pool2d", T(x), k, s, p, c, True, 3)
        if len(x) == 4:
            yield call("aten::avg_pool2d", channels_last(x), k, s, p, c)
            for dt in ["float64", "bfloat16", "int64"]:
                yield call("aten::avg_pool2d", T(x, dt), k, s, p, c)
    for x in layouts([2, 3, 6, 6]):
        yield call("aten::avg_pool2d", x, [2, 2])
    yield call("aten::avg_pool2d", T([2, 3, 6, 6]), [3, 3], divisor_override=2, ceil_mode=True)
    yield call("aten::avg_pool2d", T([2, 3, 6, 6]), [3, 3], [1, 1], [2, 2])
    yield call("aten::avg_pool2d", T([2, 3, 6, 6]), [0, 3])
    yield call("aten::avg_pool2d", T([2, 3, 6, 6]), [2, 2], [0, 1])
    yield call("aten::avg_pool2d", T([2, 3, 2, 2]), [3, 3])
    yield call("aten::avg_pool2d", T([6, 6]), [2, 2])
    yield call("aten::avg_pool2d", T([2, 3, 0, 6]), [2, 2])
    yield call("aten::avg_pool2d", T([2, 3, 6, 6]), [2, 2], divisor_override=0)
    yield call("aten::avg_pool2d", T([2, 3, 6, 6]), [2, 2, 2])
    yield call("aten::avg_pool2d", T([2, 3, 6, 6], "bool"), [2, 2])
    yield call("aten::avg_pool2d", T([2, 3, 6, 6], "uint8"), [2, 2])
    yield call("aten::avg_pool2d", T([2, 3, 6, 6]), [2, 2], [2, 2, 2])
    # ---- max_pool1d / avg_pool1d: their 2-D forms over a unit height
    for x in [[2, 4, 9], [4, 9], [1, 3, 8], [2, 3, 2]]:
        for k, st, p in [([2], [], [0]), ([3], [1], [1]), ([3], [2], [1]), ([2], [2], [0]), ([1], [1], [0])]:
            for c in [False, True]:
                yield call("aten::max_pool1d", T(x), k, st, p, [1], c)
                yield call("aten::avg_pool1d", T(x), k, st, p, c)
                yield call("aten::avg_pool1d", T(x), k, st, p, c, False)
                yield vcall("aten::max_pool1d", T(x), k, st, p, [1], c)
                yield vcall("aten::avg_pool1d", T(x), k, st, p, c, False)
        yield call("aten::max_pool1d", T(x), [2], [1], [0], [2])
        yield vcall("aten::max_pool1d", T(x), [2], [1], [0], [2])
    # Layouts: FakeTensor's max_pool1d goes through max_pool2d_with_indices (a channels-last-like
    # self gives that layout), eager CPU's through max_pool1d_impl (contiguous): values on
    # contiguous inputs only.
    for x in layouts([2, 4, 9]):
        yield call("aten::max_pool1d", x, [2])
        yield call("aten::max_pool1d", x, [3], [2], [1])
        yield call("aten::avg_pool1d", x, [3], [2])
        yield vcall("aten::avg_pool1d", x, [2])
    for dt in ["float64", "float16", "bfloat16", "int64"]:
        yield call("aten::max_pool1d", T([2, 4, 9], dt), [2])
        yield call("aten::avg_pool1d", T([2, 4, 9], dt), [2])
    # errors: a kernel larger than the input, bad padding, wrong rank.
    yield call("aten::max_pool1d", T([2, 4, 2]), [3])
    yield call("aten::avg_pool1d", T([2, 4, 2]), [3])
    yield call("aten::max_pool1d", T([2, 4, 9]), [2], [2], [2])
    yield call("aten::avg_pool1d", T([2, 4, 9]), [2], [2], [2])
    yield call("aten::max_pool1d", T([9]), [2])
    yield call("aten::avg_pool1d", T([9]), [2])
    yield call("aten::max_pool1d", T([2, 4, 9]), [0])
    # ---- adaptive average pooling
    for op in ["aten::adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d"]:
        for x in [[2, 3, 8, 8], [2, 3, 7, 5], [3, 6, 6], [1, 1, 1, 1], [0, 3, 4, 4]]:
            for o in [[1, 1], [2, 2], [3, 4], [8, 8], [1, 3], [9, 2]]:
                yield call(op, T(x), o)
        for x in layouts([2, 3, 6, 6]):
            for o in [[1, 1], [3, 3]]:
                yield call(op, x, o)
        for dt in ["float64", "float16", "bfloat16", "int64"]:
            for o in [[1, 1], [2, 3]]:
                yield call(op, T([2, 3, 6, 6], dt), o)
        yield call(op, T([2, 3, 1, 6]), [1, 1])
        yield call(op, T([2, 3, 6, 6]), [0, 0])
        # errors
        yield call(op, T([2, 3, 0, 6]), [2, 2])
        yield call(op, T([6, 6]), [2, 2])
        yield call(op, T([2, 3, 6, 6]), [2])
        yield call(op, T([2, 3, 6, 6]), [2, 2, 2])
        yield call(op, T([2, 3, 6, 6]), [-1, 2])
        yield call(op, T([2, 3, 6, 6], "bool"), [2, 2])
        yield call(op, T([6, 6]), [1, 1])
        yield call(op, T([6]), [1, 1])
    # ---- reference kernels against PyTorch's values
    for x, w, st, pd, dl, g in conv_cases():
        if x[0] == 0 or len(x) == 5:
            continue
        yield vcall(CONV, T(x), T(w), T([w[0]]), st, pd, dl, False, [0] * len(st), g)
    yield vcall(CONV, T([1, 2, 3, 3], "float64"), T([2, 3, 2, 2], "float64"), None, [2, 2], [1, 1], [1, 1], True,
                [1, 1], 1)
    yield vcall(CONV, T([1, 4, 3]), T([4, 1, 3]), T([2]), [2], [0], [2], True, [1], 2)
    yield vcall(CONV, T([2, 2, 2, 3, 3]), T([2, 2, 2, 2, 2]), None, [1, 1, 1], [1, 0, 0], [1, 1, 1], False,
                [0, 0, 0], 1)
    for x in layouts([1, 2, 4, 4]):
        yield vcall("aten::conv2d", x, T([3, 2, 2, 2]), None, [1, 1], [1, 1])
    yield vcall("aten::conv2d", T([2, 4, 4]), T([3, 2, 3, 3]), T([3]), [1, 1], [1, 1], [1, 1], 1)
    yield vcall("aten::conv1d", T([2, 3, 6]), T([2, 3, 2]), T([2]), [2], [1])
    yield vcall("aten::conv1d", T([3, 6], "float64"), T([2, 3, 2], "float64"))
    yield vcall("aten::conv1d.padding", T([1, 2, 6]), T([2, 2, 4]), None, [1], "same", [1])
    yield vcall("aten::conv1d.padding", T([1, 2, 6]), T([2, 2, 3]), T([2]), [1], "valid", [2])
    yield vcall("aten::conv2d.padding", T([1, 2, 4, 5]), T([2, 2, 2, 3]), None, [1, 1], "same", [1, 2])
    yield vcall("aten::conv2d.padding", T([2, 4, 5]), T([2, 2, 3, 3]), T([2]), [1, 1], "same", [1, 1], 1)
    for op in ["aten::max_pool2d", "aten::max_pool2d_with_indices", "aten::avg_pool2d"]:
        for x, k, s, p, d, c in pool_cases:
            if x[0] == 0:
                continue
            if op == "aten::avg_pool2d":
                yield vcall(op, T(x), k, s, p, c, False)
                yield vcall(op, T(x), k, s, p, c, True, None)
                yield vcall(op, T(x, "float64"), k, s, p, c, True, 3)
            else:
                yield vcall(op, T(x), k, s, p, d, c)
        yield vcall(op, channels_last([1, 2, 4, 4]), [2, 2])
        yield vcall(op, T([1, 2, 4, 4], "int64"), [2, 2])
    for op in ["aten::adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d"]:
        for o in [[1, 1], [2, 3], [5, 4], [3, 1]]:
            yield vcall(op, T([1, 2, 5, 4]), o)
        yield vcall(op, T([2, 3, 3], "float64"), [2, 2])
        yield vcall(op, channels_last([1, 3, 4, 4]), [1, 1])
        yield vcall(op, channels_last([1, 3, 4, 4]), [3, 2])
