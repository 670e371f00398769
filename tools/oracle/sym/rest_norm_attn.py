"""Symbolic-shape expectations for norm and attention (tests/test_sym_rest.cpp)."""
import sys; sys.path.insert(0, "/repo/tools/oracle")
from sym_probe import probe, T
import torch
import torch.nn.functional as F
aten = torch.ops.aten

probe(lambda x, w, b: F.layer_norm(x, [16], w, b), T(("s0", 4), ("s1", 6), 16), T(16), T(16), title="layer_norm")
probe(lambda x, w, b: aten.native_layer_norm(x, [16], w, b, 1e-5), T(("s0", 4), ("s1", 6), 16), T(16), T(16), title="native_layer_norm")
probe(lambda x: aten.native_layer_norm(x, [6, 16], None, None, 1e-5), T(("s0", 4), 6, 16), title="native_layer_norm 2d norm")
probe(lambda x: F.layer_norm(x, [16]), T(("s0", 4), ("s1", 16)), title="layer_norm sym last dim")
probe(lambda x, w: F.rms_norm(x, [16], w), T(("s0", 4), ("s1", 6), 16), T(16), title="rms_norm")
probe(lambda x, w: aten.rms_norm(x, [16], w), T(("s0", 4), ("s1", 6), 16), T(16), title="aten rms_norm")
probe(lambda x: aten.rms_norm(x, [5]), T(("s0", 4), 3, ("s1", 6), 5).__class__ and T(("s0", 4), 3, ("s1", 6), 5), title="rms_norm 4d")
probe(lambda x, w, b: F.group_norm(x, 4, w, b), T(("s0", 4), 8, ("s1", 6)), T(8), T(8), title="group_norm")
probe(lambda x: F.group_norm(x, 4), T(("s0", 4), ("s1", 8), 5), title="group_norm sym C")
probe(lambda x, w, b: aten.native_group_norm(x, w, b, x.shape[0], 8, x.shape[2] * x.shape[3], 4, 1e-5), T(("s0", 4), 8, ("s1", 6), 5), T(8), T(8), title="native_group_norm")
probe(lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b), T(("s0", 4), 8, ("s1", 6)), T(8), T(8), T(8), T(8), title="batch_norm 3d")
probe(lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b), T(("s0", 4), 8, ("s1", 6), ("s2", 5)), T(8), T(8), T(8), T(8), title="batch_norm 4d")
probe(lambda x, rm, rv: F.batch_norm(x, rm, rv), T(("s0", 4), ("s1", 8), 5), T(8), T(8), title="batch_norm sym C")
probe(lambda x, w, b, rm, rv: aten._native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, 1e-5), T(("s0", 4), 8, ("s1", 6)), T(8), T(8), T(8), T(8), title="bn legit no training")
probe(lambda x, rm, rv: F.batch_norm(x, rm, rv), T(("s0", 4), 8, ("s1", 6), 5).__class__ and T(("s0", 4), ("s1", 6), 5, 8), T(8), T(8), title="batch_norm channels mismatch sym")

# attention
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), T(("s0", 2), 4, ("s1", 6), 8), T(("s2", 2), 4, ("s3", 6), 8), T(("s4", 2), 4, ("s5", 6), 8), title="sdpa causal self")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), T(("s0", 2), 4, ("s1", 6), 8), T(("s0b", 2), 4, ("s2", 7), 8), T(("s0c", 2), 4, ("s2b", 7), 8), title="sdpa cross")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), T(("s0", 2), 4, ("s1", 6), 8), T(("s0b", 3), 4, ("s2", 7), 8), T(("s0c", 3), 4, ("s2b", 7), 8), title="sdpa batch mismatch broadcast?")
probe(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), T(("s0", 2), 4, ("s1", 6), 8), T(("s2", 2), 4, ("s3", 6), 8), T(("s4", 2), 4, ("s5", 6), 8), T(("s6", 6), ("s7", 6)), title="sdpa 2d mask")
probe(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), T(("s0", 2), 4, ("s1", 6), 8), T(("s2", 2), 4, ("s3", 7), 8), T(("s4", 2), 4, ("s5", 7), 8), T(("s6", 2), 1, ("s7", 6), ("s8", 7), dtype=torch.bool), title="sdpa 4d bool mask")
probe(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), T(("s0", 2), 4, ("s1", 6), 8), T(("s0", 2), 4, ("s1", 6), 8).__class__ and T(("s2", 2), 4, ("s3", 7), 8), T(("s4", 2), 4, ("s5", 7), 8), T(("s6", 2), 1, 1, ("s8", 7)), title="sdpa 4d padding mask")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), T(("s0", 2), 8, ("s1", 6), 16), T(("s2", 2), 2, ("s3", 6), 16), T(("s4", 2), 2, ("s5", 6), 16), title="sdpa gqa")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True), T(("s0", 2), 8, ("s1", 6), 16), T(("s2", 2), 2, ("s3", 6), 16), T(("s4", 2), 2, ("s5", 6), 16), title="sdpa gqa causal")
probe(lambda q, k, v: F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True), T(("s0", 2), ("s1", 6), 4, 8), T(("s2", 2), ("s3", 6), 4, 8), T(("s4", 2), ("s5", 6), 4, 8), title="sdpa transposed inputs")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), T(("s0", 2), ("s1", 6), 8), T(("s2", 2), ("s3", 7), 8), T(("s4", 2), ("s5", 7), 8), title="sdpa 3d")
probe(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), T(("s0", 2), 4, ("s1", 6), 8, dtype=torch.float16), T(("s2", 2), 4, ("s3", 7), 8, dtype=torch.float16), T(("s4", 2), 4, ("s5", 7), 8, dtype=torch.float16), title="sdpa half")
