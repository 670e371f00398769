"""A GPT-2/Llama-style attention block touching one op of almost every family (embedding, layer_norm,
linear, split/view/transpose, matmul, masked_fill, softmax, sdpa, in-place add_, max.dim, rsqrt, mean,
cat, silu), exported by PyTorch 2.14 on cpu. Writes tests/fixtures/export_block_cpu.txt;
tests/test_export_block.cpp mirrors forward() line for line."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(s):
        super().__init__()
        s.wte = nn.Parameter(torch.randn(50, 8))
        s.ln_w = nn.Parameter(torch.ones(8))
        s.ln_b = nn.Parameter(torch.zeros(8))
        s.qkv_w = nn.Parameter(torch.randn(24, 8))
        s.qkv_b = nn.Parameter(torch.zeros(24))
        s.register_buffer("mask", torch.tril(torch.ones(4, 4)))

    def forward(s, idx):
        h = F.embedding(idx, s.wte)
        x = F.layer_norm(h, (8,), s.ln_w, s.ln_b, 1e-5)
        qkv = F.linear(x, s.qkv_w, s.qkv_b)
        q, k, v = qkv.split(8, dim=2)
        q = q.view(2, 4, 2, 4).transpose(1, 2)
        k = k.view(2, 4, 2, 4).transpose(1, 2)
        v = v.view(2, 4, 2, 4).transpose(1, 2)
        att = torch.matmul(q, k.transpose(-2, -1)) * 0.5
        att = att.masked_fill(s.mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = torch.matmul(att, v)
        y2 = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = (y + y2).transpose(1, 2).contiguous().view(2, 4, 8)
        y.add_(h)
        m, i = y.max(-1)
        r = torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6)
        out = torch.cat([y * r, F.silu(y)], dim=-1)
        return out, m, i


ep = torch.export.export(Block(), (torch.randint(0, 50, (2, 4)),))
with open("tests/fixtures/export_block_cpu.txt", "w") as fh:
    fh.write(str(ep))
