"""A GPT-2-style decoder (token + position embedding, one pre-LN block with causal attention and a
GELU MLP, final LayerNorm, tied-free lm_head) exported with Dim("batch") and Dim("seq_len", min=2,
max=1024), by PyTorch 2.14 on cpu. Writes tests/fixtures/dynamic/gpt2_block.txt (and the static
export as gpt2_block_static.txt); tests/test_export_dynamic.cpp mirrors forward() line for line."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim, export
import os

OUT = os.environ.get("FE_DYNAMIC_OUT", "tests/fixtures/dynamic")  # check_dynamic.py writes elsewhere

torch.manual_seed(0)
V, P, C, NH = 64, 32, 16, 2


class Block(nn.Module):
    def __init__(s):
        super().__init__()
        s.ln_1 = nn.LayerNorm(C)
        s.c_attn = nn.Linear(C, 3 * C)
        s.c_proj = nn.Linear(C, C)
        s.ln_2 = nn.LayerNorm(C)
        s.c_fc = nn.Linear(C, 4 * C)
        s.mlp_proj = nn.Linear(4 * C, C)

    def forward(s, x):
        B, T, _ = x.size()
        q, k, v = s.c_attn(s.ln_1(x)).split(C, dim=2)
        q = q.view(B, T, NH, C // NH).transpose(1, 2)
        k = k.view(B, T, NH, C // NH).transpose(1, 2)
        v = v.view(B, T, NH, C // NH).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + s.c_proj(y)
        x = x + s.mlp_proj(F.gelu(s.c_fc(s.ln_2(x)), approximate="tanh"))
        return x


class GPT(nn.Module):
    def __init__(s):
        super().__init__()
        s.wte = nn.Embedding(V, C)
        s.wpe = nn.Embedding(P, C)
        s.h = Block()
        s.ln_f = nn.LayerNorm(C)
        s.lm_head = nn.Linear(C, V, bias=False)

    def forward(s, idx):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = s.wte(idx) + s.wpe(pos)
        x = s.h(x)
        return s.lm_head(s.ln_f(x))


idx = torch.randint(0, V, (3, 8))
ds = {"idx": (Dim("batch"), Dim("seq_len", min=2, max=1024))}
with open(os.path.join(OUT, "gpt2_block.txt"), "w") as fh:
    fh.write(str(export(GPT(), (idx,), dynamic_shapes=ds)))
with open(os.path.join(OUT, "gpt2_block_static.txt"), "w") as fh:
    fh.write(str(export(GPT(), (idx,))))
print("ok")
