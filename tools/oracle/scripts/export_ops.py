"""A module touching every op of the foundation issue (state of all kinds, factories, to.*, scalars in
Tensor slots, keyword arguments), exported by PyTorch 2.14 on cpu. Writes
tests/fixtures/export_ops_cpu.txt. tests/test_export.cpp mirrors forward() line for line."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.w = nn.Parameter(torch.randn(3, 4))
        s.register_buffer("bb", torch.zeros(3))
        s.register_buffer("nb", torch.ones(3), persistent=False)

    def forward(s, x, y):
        a = x.to(torch.float16)
        b = x.to("cpu", torch.float64)
        c = F.gelu(x, approximate="tanh")
        z = torch.zeros(3)
        o = torch.ones_like(x)
        f = torch.full((2,), 1.5)
        e = torch.empty(2, 3)
        q = torch.rand(2, dtype=torch.float64)
        s1 = x + y
        s2 = x * 2
        s3 = torch.add(x, y, alpha=2)
        rl = torch.relu(x)
        mm = torch.mm(x, s.w.t())
        am = torch.addmm(s.bb, x, s.w.t(), beta=0.5, alpha=2)
        k = am + s.nb
        n = x.to(torch.float32)
        zl = torch.zeros_like(x, dtype=torch.int64)
        dead = torch.relu(y)
        return a, b, c, z, o, f, e, q, s1, s2, s3, rl, mm, k, n, zl


ep = torch.export.export(M(), (torch.randn(2, 4), torch.randn(2, 4)))
with open("tests/fixtures/export_ops_cpu.txt", "w") as fh:
    fh.write(str(ep))
