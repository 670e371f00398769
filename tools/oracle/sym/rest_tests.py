"""Expectations of tests/test_sym_rest.cpp, one probe per test case, in test order.
Symbols carry the RAW names PyTorch gives each input position (see rest_names.py: arg0 -> s27 s18
s51 s85, arg1 -> s78 s71 s96 s94, arg2 -> s20 s21 s99 s4, arg3 -> s86 s5 s70 s87, arg4 -> s75 s83
s77 s3), so ties between equal hints pick the same surviving symbol as PyTorch (and the C++ test,
which uses the same names)."""
import sys; sys.path.insert(0, "/repo/tools/oracle")
from sym_probe import probe, T
import torch
import torch.nn.functional as F
aten = torch.ops.aten
i64 = torch.int64

# ---- linalg
probe(lambda x, w: F.linear(x, w), T(("s27", 4), ("s18", 6), 16), T(48, 16), title="linear 3d")
probe(lambda x, w, b: F.linear(x, w, b), T(("s27", 4), ("s18", 6), 16), T(48, 16), T(48), title="linear 3d bias")
probe(lambda x, w, b: F.linear(x, w, b), T(("s27", 4), 16), T(48, 16), T(48), title="linear 2d bias")
probe(lambda x, w: F.linear(x, w), T(("s27", 4), ("s18", 6), ("s51", 16)), T(48, 16), title="linear sym inner specializes")
probe(lambda x, w: torch.matmul(x, w), T(("s27", 4), ("s18", 6), 16), T(16, 48), title="matmul 3d@2d")
probe(lambda x, w: torch.matmul(x, w), T(("s27", 4), ("s18", 5)), T(5, 3), title="matmul inner specializes")
probe(lambda x, w: torch.matmul(x, w), T(("s27", 4), ("s18", 6), 16), T(("s78", 4), 16, 8), title="matmul 3d@3d batch eq")
probe(lambda x, w: torch.matmul(x, w), T(("s27", 4), 3, ("s51", 6), 16), T(("s78", 4), 1, 16, ("s94", 8)), title="matmul 4d@4d broadcast")
probe(lambda x, w: torch.matmul(x, w), T(("s27", 4), ("s18", 6), 16), T(("s78", 5), 16, 8), title="matmul batch mismatch")
probe(lambda x, w: torch.matmul(x, w), T(16, ("s18", 6)), T(("s78", 4), ("s71", 6), 8), title="matmul 2d@3d")
probe(lambda x, w: torch.matmul(x, w), T(("s27", 4), ("s18", 6), 16), T(16), title="matmul 3d@1d")
probe(lambda x, w: torch.matmul(x, w), T(("s27", 4)), T(("s78", 4)), title="matmul dot")
probe(lambda x, w: torch.mm(x, w), T(("s27", 4), ("s18", 6)), T(("s78", 6), 3), title="mm inner eq")
probe(lambda x, w: torch.mm(x, w), T(("s27", 4), ("s18", 6)), T(("s78", 7), 3), title="mm inner mismatch")
probe(lambda x, w: torch.bmm(x, w), T(("s27", 4), ("s18", 6), 16), T(("s78", 4), 16, 3), title="bmm batch eq")
probe(lambda b, x, w: torch.addmm(b, x, w), T(("s27", 5), 3), T(("s78", 5), 16), T(16, 3), title="addmm bias 2d sym")
probe(lambda b, x, w: torch.baddbmm(b, x, w), T(("s27", 5), ("s18", 6), 3), T(("s78", 5), ("s71", 6), 16), T(("s20", 5), 16, 3), title="baddbmm")
probe(lambda x: torch.t(x), T(("s27", 4), 16), title="t")
probe(lambda x, y: torch.outer(x, y), T(("s27", 4)), T(("s78", 5)), title="outer")
probe(lambda x, y: torch.mv(x, y), T(("s27", 4), ("s18", 5)), T(("s78", 5)), title="mv")
probe(lambda x, y: torch.einsum("bij,jk->bik", x, y), T(("s27", 4), ("s18", 6), 16), T(16, 8), title="einsum bij,jk")
probe(lambda x, y: torch.einsum("bhqd,bhkd->bhqk", x, y), T(("s27", 4), 2, ("s51", 6), 8), T(("s78", 4), 2, ("s96", 7), 8), title="einsum attention")

# ---- norm
probe(lambda x, w, b: F.layer_norm(x, [16], w, b), T(("s27", 4), ("s18", 6), 16), T(16), T(16), title="layer_norm")
probe(lambda x, w, b: aten.native_layer_norm(x, [16], w, b, 1e-5), T(("s27", 4), ("s18", 6), 16), T(16), T(16), title="native_layer_norm")
probe(lambda x: F.layer_norm(x, [16]), T(("s27", 4), ("s18", 16)), title="layer_norm sym last dim")
probe(lambda x, w: F.rms_norm(x, [16], w), T(("s27", 4), ("s18", 6), 16), T(16), title="rms_norm")
probe(lambda x: aten.rms_norm(x, [5]), T(("s27", 4), 3, ("s51", 6), 5), title="rms_norm 4d")
probe(lambda x, w, b: F.group_norm(x, 4, w, b), T(("s27", 4), 8, ("s51", 6)), T(8), T(8), title="group_norm")
probe(lambda x, w, b: aten.native_group_norm(x, w, b, x.shape[0], 8, x.shape[2] * x.shape[3], 4, 1e-5), T(("s27", 4), 8, ("s51", 6), 5), T(8), T(8), title="native_group_norm")
probe(lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b), T(("s27", 4), 8, ("s51", 6)), T(8), T(8), T(8), T(8), title="batch_norm 3d")
probe(lambda x, rm, rv: F.batch_norm(x, rm, rv), T(("s27", 4), ("s18", 8), 5), T(8), T(8), title="batch_norm sym C")

# ---- attention (q arg0, k arg1, v arg2, mask arg3)
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), T(("s27", 2), 4, ("s51", 6), 8), T(("s78", 2), 4, ("s96", 6), 8), T(("s20", 2), 4, ("s99", 6), 8), title="sdpa causal")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), T(("s27", 2), 4, ("s51", 6), 8), T(("s78", 3), 4, ("s96", 7), 8), T(("s20", 3), 4, ("s99", 7), 8), title="sdpa batch mismatch")
probe(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), T(("s27", 2), 4, ("s51", 6), 8), T(("s78", 2), 4, ("s96", 7), 8), T(("s20", 2), 4, ("s99", 7), 8), T(("s86", 6), ("s5", 7)), title="sdpa 2d mask")
probe(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), T(("s27", 2), 4, ("s51", 6), 8), T(("s78", 2), 4, ("s96", 7), 8), T(("s20", 2), 4, ("s99", 7), 8), T(("s86", 2), 1, 1, ("s87", 7), dtype=torch.bool), title="sdpa padding mask")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), T(("s27", 2), 8, ("s51", 6), 16), T(("s78", 2), 2, ("s96", 6), 16), T(("s20", 2), 2, ("s99", 6), 16), title="sdpa gqa")
probe(lambda q, k, v: F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True, enable_gqa=True), T(("s27", 2), ("s18", 6), 8, 16), T(("s78", 2), ("s71", 6), 2, 16), T(("s20", 2), ("s21", 6), 2, 16), title="sdpa gqa transposed")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), T(("s27", 2), 8, ("s51", 6), 16), T(("s78", 2), 2, ("s96", 6), 16), T(("s20", 2), 4, ("s99", 6), 16), title="sdpa gqa kv heads differ")

# ---- indexing
probe(lambda w, i: F.embedding(i, w), T(100, 16), T(("s78", 4), ("s71", 6), dtype=i64), title="embedding")
probe(lambda x, i: torch.index_select(x, 1, i), T(("s27", 5), 16, ("s51", 6)), T(("s78", 4), dtype=i64), title="index_select dim1")
probe(lambda x, i: torch.gather(x, -1, i), T(("s27", 4), ("s18", 6), 16), T(("s78", 4), ("s71", 6), 1, dtype=i64), title="gather last")
probe(lambda x, i: aten.index.Tensor(x, [i]), T(100, 16), T(("s78", 4), ("s71", 6), dtype=i64), title="index.Tensor 2d idx")
probe(lambda x, i, j: aten.index.Tensor(x, [i, j]), T(("s27", 4), 16, 8), T(("s78", 3), dtype=i64), T(("s20", 3), dtype=i64), title="index.Tensor two")
probe(lambda x, i, j: aten.index.Tensor(x, [i, None, j]), T(("s27", 4), 16, 8), T(("s78", 3), dtype=i64), T(("s20", 5), 1, dtype=i64), title="index.Tensor split")
probe(lambda x, i: aten.index.Tensor(x, [None, i]), T(("s27", 4), ("s18", 16)), T(("s78", 3), dtype=i64), title="index.Tensor dim1")

# ---- factory / conversion
probe(lambda x: torch.arange(0, x.shape[1]), T(("s27", 4), ("s18", 6)), title="arange(0, s18)")
probe(lambda x: torch.arange(0, x.shape[1], 2), T(("s27", 4), ("s18", 7)), title="arange(0, s18, 2)")
probe(lambda x: torch.arange(x.shape[0], x.shape[1]), T(("s27", 4), ("s18", 9)), title="arange(s27, s18)")
probe(lambda x: torch.arange(x.shape[1], x.shape[0], -1), T(("s27", 4), ("s18", 9)), title="arange(s18, s27, -1)")
probe(lambda x: torch.arange(x.shape[1], dtype=torch.float32), T(("s27", 4), ("s18", 6)), title="arange float dtype")
probe(lambda x: torch.zeros(x.shape[0], x.shape[1], 3), T(("s27", 4), ("s18", 6)), title="zeros")
probe(lambda x: x.new_full((x.shape[1], 2), 1.5), T(("s27", 4), ("s18", 6)), title="new_full")
probe(lambda x: torch.ones_like(x.transpose(0, 1)), T(("s27", 4), ("s18", 6)), title="ones_like transposed")
probe(lambda x: aten._to_copy(x.transpose(0, 1), dtype=torch.float64), T(("s27", 4), ("s18", 6)), title="_to_copy transposed")
probe(lambda x: x.to(torch.float16), T(("s27", 4), ("s18", 6)), title="to dtype")
probe(lambda x: aten.sym_size.int(x, 1), T(("s27", 4), ("s18", 6)), title="sym_size")
probe(lambda x: aten._assert_tensor_metadata(x, (x.shape[0], 6), None, torch.float32), T(("s27", 4), 6), title="assert metadata")

# ---- conv / pool (fake mode also records the cpu backend heuristic `batch < 16` from
# ConvParams::use_mkldnn; torch.export does not keep it, see rest_conv_export.py, and neither do we)
probe(lambda x, w, b: F.conv2d(x, w, b), T(("s27", 2), 3, 32, 32), T(8, 3, 3, 3), T(8), title="conv2d sym batch")
probe(lambda x, w: F.conv2d(x, w, padding=1, stride=2), T(("s27", 2), 3, ("s51", 32), ("s85", 30)), T(8, 3, 3, 3), title="conv2d sym spatial")
probe(lambda x, w: F.conv2d(x, w), T(("s27", 2), ("s18", 3), 8, 8), T(4, 3, 3, 3), title="conv2d sym channels")
probe(lambda x, w: F.conv2d(x.to(memory_format=torch.channels_last), w), T(("s27", 2), 3, 8, 8), T(4, 3, 3, 3), title="conv2d channels_last input")
probe(lambda x: F.max_pool2d(x, 2), T(("s27", 2), 3, ("s51", 8), ("s85", 9)), title="max_pool2d sym spatial")
probe(lambda x: F.avg_pool2d(x, 2), T(("s27", 2), 3, 8, 8), title="avg_pool2d")
probe(lambda x: F.adaptive_avg_pool2d(x, 1), T(("s27", 2), 3, 8, 8), title="adaptive_avg_pool2d")

# ---- more linalg
probe(lambda x: torch.einsum("ii->i", x), T(("s27", 4), ("s18", 4)), title="einsum diag")
probe(lambda x, y: torch.einsum("bij,bjk->bik", x, y), T(("s27", 4), ("s18", 6), 5), T(("s78", 4), 5, ("s96", 3)), title="einsum bmm")

# ---- attention on 3-D inputs: the fused cpu kernel (a batch of one; dim 0 acts as the heads), so
# the output keeps the query's strides and the key/value sequence lengths are not compared
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), T(("s27", 2), ("s18", 6), 8), T(("s78", 2), ("s71", 7), 8), T(("s20", 2), ("s21", 5), 8), title="sdpa 3d")
probe(lambda q, k, v: F.scaled_dot_product_attention(q.transpose(0, 1), k, v), T(6, 2, 8), T(2, 7, 8), T(2, 5, 8), title="sdpa 3d transposed q static")
probe(lambda q, k, v, m: F.scaled_dot_product_attention(q.transpose(0, 1), k, v, attn_mask=m), T(6, 2, 8), T(2, 7, 8), T(2, 7, 8), T(2, 6, 7), title="sdpa 3d 3d-mask static")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), T(2, 6, 8), T(1, 7, 8), T(1, 7, 8), title="sdpa 3d batch broadcast static")

# ---- more linalg paths
probe(lambda x, w: torch.matmul(x.transpose(1, 2), w), T(("s27", 4), 16, ("s51", 6)), T(16, 8), title="matmul transposed 3d@2d")
probe(lambda x, w, b: F.linear(x, w, b), T(("s27", 4), 3, ("s51", 6), 16), T(48, 16), T(48), title="linear 4d bias")
probe(lambda x, w, b: F.linear(x.transpose(0, 1), w, b), T(("s27", 4), ("s18", 6), 16), T(48, 16), T(48), title="linear transposed 3d bias")
probe(lambda x, y: torch.outer(x, y), T(("s27", 4)), T(("s78", 5)), title="outer")

# ---- memory formats of copies
probe(lambda x: x.to(memory_format=torch.channels_last), T(("s27", 4), 3, ("s51", 6), ("s85", 5)), title="to channels_last")
probe(lambda x: aten._to_copy(x.transpose(0, 1), memory_format=torch.contiguous_format), T(("s27", 4), ("s18", 6)), title="_to_copy contiguous_format")
