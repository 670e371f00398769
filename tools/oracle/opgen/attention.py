"""scaled_dot_product_attention: shapes, masks, causal, scale, dropout, GQA, layouts, errors."""
from opgen import T, call, vcall, layouts, transposed, DTYPES_FLOAT

OP = "aten::scaled_dot_product_attention"


def qkv(b, hq, hkv, l, s, e, ev, dtype="float32"):
    return T([b, hq, l, e], dtype), T([b, hkv, s, e], dtype), T([b, hkv, s, ev], dtype)


def calls():
    # Shapes (B, H, L, S, E, Ev): equal and unequal head dims, size-1 and empty dims.
    shapes = [(2, 3, 4, 5, 8, 8), (1, 1, 1, 1, 4, 4), (2, 3, 4, 5, 8, 6), (2, 2, 3, 3, 16, 16),
              (2, 3, 0, 5, 8, 8), (2, 3, 4, 0, 8, 8), (0, 3, 4, 5, 8, 8), (2, 3, 4, 5, 0, 8), (1, 4, 7, 2, 3, 5)]
    for (b, h, l, s, e, ev) in shapes:
        for d in DTYPES_FLOAT:
            yield call(OP, *qkv(b, h, h, l, s, e, ev, d))
        yield call(OP, *qkv(b, h, h, l, s, e, ev), is_causal=True)
        yield call(OP, *qkv(b, h, h, l, s, e, ev), dropout_p=0.1)
        yield call(OP, *qkv(b, h, h, l, s, e, ev), scale=0.5)
    # 3-D (N, L, E) and 5-D inputs.
    for (n, l, s, e, ev) in [(2, 4, 5, 8, 8), (3, 1, 6, 4, 2), (2, 3, 3, 8, 8)]:
        for d in ["float32", "float64", "bfloat16"]:
            yield call(OP, T([n, l, e], d), T([n, s, e], d), T([n, s, ev], d))
        yield call(OP, T([n, l, e]), T([n, s, e]), T([n, s, ev]), is_causal=True)
        yield call(OP, T([n, l, e]), T([n, s, e]), T([n, s, ev]), T([l, s], "bool"))
    yield call(OP, T([2, 2, 3, 4, 8]), T([2, 2, 3, 5, 8]), T([2, 2, 3, 5, 8]))
    yield call(OP, T([4, 8]), T([5, 8]), T([5, 8]))
    # Non-contiguous q / k / v: (B, L, H, E).transpose(1, 2) is the common projection layout.
    for sizes in [[2, 3, 4, 8], [1, 2, 5, 4]]:
        b, h, l, e = sizes
        for q in layouts(sizes):
            yield call(OP, q, T(sizes), T(sizes))
            yield call(OP, T(sizes), q, T(sizes))
            yield call(OP, T(sizes), T(sizes), q)
            yield call(OP, q, q, q)
        yt = transposed(sizes, "float32", 1, 2)
        yield call(OP, yt, yt, yt)
        yield call(OP, yt, yt, yt, is_causal=True)
        yield call(OP, yt, yt, yt, T([l, l], "bool"))
    # Masks: bool / float / matching dtype, broadcast shapes.
    for mshape in [[4, 5], [1, 5], [5], [2, 1, 4, 5], [1, 3, 4, 5], [2, 3, 4, 5], [3, 1, 5], [1, 1, 1, 1]]:
        for md in ["bool", "float32"]:
            yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), T(mshape, md))
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8, "float64"), T(mshape, "float64"))
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 6), T(mshape, "bool"))
    for m in layouts([2, 3, 4, 5], "bool"):
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), m)
    yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8, "bfloat16"), T([4, 5], "bfloat16"))
    yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), T([4, 5]), 0.0, False, scale=0.25)
    for d in ["bfloat16", "float64", "float16"]:
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8, d), T([4, 5]))
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 6, d), T([4, 5]))
    # Masks with extra leading dims broadcast the output; S == 1 lets the mask widen it.
    yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), T([3, 2, 3, 4, 5], "bool"))
    yield call(OP, *qkv(2, 3, 3, 4, 1, 8, 8), T([4, 6], "bool"))
    # Mixed ranks: q / k / v broadcast over batch dims on the math path.
    yield call(OP, T([4, 8]), T([2, 5, 8]), T([2, 5, 8]))
    yield call(OP, T([2, 4, 8]), T([5, 8]), T([5, 8]))
    yield call(OP, T([2, 3, 4, 8]), T([3, 5, 8]), T([3, 5, 8]))
    yield call(OP, T([2, 3, 4, 8]), T([1, 3, 5, 8]), T([1, 3, 5, 8]))
    yield call(OP, T([2, 3, 4, 8]), T([2, 3, 5, 8]), T([2, 3, 6, 8]), dropout_p=0.5)
    yield call(OP, T([2, 3, 4, 8]), T([2, 3, 5, 8]), T([2, 3, 6, 6]))
    yield call(OP, T([4, 8]), T([5, 6]), T([5, 8]))
    yield call(OP, T([2, 4, 8]), T([5, 6]), T([5, 8]))
    # GQA: H_q a multiple of H_kv.
    for (hq, hkv) in [(6, 2), (6, 3), (4, 1), (4, 4)]:
        yield call(OP, *qkv(2, hq, hkv, 4, 5, 8, 8), enable_gqa=True)
        yield call(OP, *qkv(2, hq, hkv, 4, 5, 8, 6), enable_gqa=True)
        yield call(OP, *qkv(2, hq, hkv, 4, 5, 8, 8), is_causal=True, enable_gqa=True)
        yield call(OP, *qkv(2, hq, hkv, 4, 5, 8, 8), T([4, 5], "bool"), enable_gqa=True)
    # ---- errors
    yield call(OP, *qkv(2, 6, 4, 4, 5, 8, 8), enable_gqa=True)       # H_q not a multiple of H_kv
    yield call(OP, *qkv(2, 6, 2, 4, 5, 8, 8))                        # heads differ without GQA
    yield call(OP, *qkv(2, 2, 6, 4, 5, 8, 8), enable_gqa=True)       # H_kv > H_q
    yield call(OP, T([2, 3, 4, 8]), T([3, 3, 5, 8]), T([3, 3, 5, 8]))  # batch mismatch
    yield call(OP, T([2, 3, 4, 8]), T([2, 3, 5, 8]), T([2, 3, 6, 8]))  # k/v seq mismatch
    yield call(OP, T([2, 3, 4, 8]), T([2, 3, 5, 6]), T([2, 3, 5, 8]))  # q/k head dim mismatch
    yield call(OP, T([2, 3, 4, 8]), T([2, 2, 5, 8]), T([2, 3, 5, 8]))  # k/v heads differ
    yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), T([4, 5], "bool"), 0.0, True)  # causal with mask
    for mshape in [[4, 6], [3, 5], [2, 2, 4, 5], [2, 3, 4, 5, 1]]:
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), T(mshape, "bool"))
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), T(mshape))
    for md in ["int64", "float64", "float16"]:
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), T([4, 5], md))
    yield call(OP, T([2, 3, 4, 8]), T([2, 3, 5, 8], "float64"), T([2, 3, 5, 8]))
    yield call(OP, T([2, 3, 4, 8]), T([2, 3, 5, 8]), T([2, 3, 5, 8], "float16"))
    for d in ["int64", "int32", "bool"]:
        yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8, d))
    yield call(OP, T([8]), T([8]), T([8]))
    yield call(OP, T([2, 3, 4, 8]), T([2, 5, 8]), T([2, 5, 8]))
    yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), None, -0.5)
    yield call(OP, *qkv(2, 3, 3, 4, 5, 8, 8), None, 1.5)
    # ---- reference kernel against PyTorch's values
    for (b, hq, hkv, l, s, e, ev) in [(1, 2, 2, 3, 4, 4, 4), (2, 1, 1, 2, 3, 2, 3), (1, 4, 2, 3, 3, 2, 2)]:
        gqa = hq != hkv
        for d in ["float32", "float64"]:
            yield vcall(OP, *qkv(b, hq, hkv, l, s, e, ev, d), enable_gqa=gqa)
        yield vcall(OP, *qkv(b, hq, hkv, l, s, e, ev), is_causal=True, enable_gqa=gqa)
        yield vcall(OP, *qkv(b, hq, hkv, l, s, e, ev), T([l, s], "bool"), enable_gqa=gqa)
        yield vcall(OP, *qkv(b, hq, hkv, l, s, e, ev), T([l, s]), scale=0.3, enable_gqa=gqa)
    for q in layouts([1, 2, 3, 4]):
        yield vcall(OP, q, T([1, 2, 3, 4]), T([1, 2, 3, 4]))
    yield vcall(OP, T([2, 3, 4]), T([2, 5, 4]), T([2, 5, 2]))
    yield vcall(OP, *qkv(1, 2, 2, 3, 4, 4, 4, "bfloat16"))
    yield vcall(OP, *qkv(1, 2, 2, 3, 2, 4, 4), is_causal=True)
    yield from flash_cpu_calls()


FLASH_CPU = "aten::_scaled_dot_product_flash_attention_for_cpu"


def flash_cpu_calls():
    """The CPU-only overload sdpa dispatches to on cpu: (output, logsumexp). Its meta checks nothing
    beyond reading sizes 0..2 of the query; the kernel's own checks come at run time."""
    for (b, h, l, s, e, ev) in [(2, 3, 4, 5, 8, 8), (1, 1, 1, 1, 4, 4), (2, 3, 4, 5, 8, 6), (2, 3, 0, 5, 8, 8)]:
        for d in DTYPES_FLOAT:
            yield call(FLASH_CPU, *qkv(b, h, h, l, s, e, ev, d))
        yield call(FLASH_CPU, *qkv(b, h, h, l, s, e, ev), 0.0, True)
        yield call(FLASH_CPU, *qkv(b, h, h, l, s, e, ev), attn_mask=T([b, 1, l, s]))
        yield call(FLASH_CPU, *qkv(b, h, h, l, s, e, ev), scale=0.5)
    for sizes in [[2, 3, 4, 8], [1, 2, 5, 4]]:
        for q in layouts(sizes):
            yield call(FLASH_CPU, q, T(sizes), T(sizes))
        yt = transposed(sizes, "float32", 1, 2)
        yield call(FLASH_CPU, yt, yt, yt, 0.0, True)
    yield call(FLASH_CPU, T([2, 4, 8]), T([2, 5, 8]), T([2, 5, 8]))  # 3-D: the meta reads sizes 0..2 only
    yield call(FLASH_CPU, T([4, 8]), T([5, 8]), T([5, 8]))           # 2-D: query.size(2) is out of range
    # ---- reference kernel against PyTorch's values (output and logsumexp)
    for (b, h, l, s, e, ev) in [(1, 2, 3, 4, 4, 4), (2, 1, 2, 3, 2, 2)]:
        for d in ["float32", "float64"]:
            yield vcall(FLASH_CPU, *qkv(b, h, h, l, s, e, ev, d))
        yield vcall(FLASH_CPU, *qkv(b, h, h, l, s, e, ev), 0.0, True)
        yield vcall(FLASH_CPU, *qkv(b, h, h, l, s, e, ev), attn_mask=T([b, 1, l, s]))
        yield vcall(FLASH_CPU, *qkv(b, h, h, l, s, e, ev), scale=0.3)
    yt = transposed([1, 2, 3, 4], "float32", 1, 2)
    yield vcall(FLASH_CPU, yt, yt, yt, 0.0, True)
    yield vcall(FLASH_CPU, *qkv(2, 1, 1, 2, 3, 2, 3))  # the kernel's check: one head size for q, k and v
