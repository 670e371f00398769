"""What PyTorch's ShapeEnv learns while viewing tensors whose sizes are data-dependent (Funnel's
_relative_shift_gather over an arange of unbacked floats): prints each node's shape, strides and
storage offset, then the deferred runtime assertions, replacements and ranges the export's ShapeEnv
holds. Those assertions (`0 <= X`, `0 < X`, `Eq(M + 1, X)` for X = CeilToInt(FloatTrueDiv(zuf0 - zuf1,
-1.0))) are not written into the graph, yet PyTorch's later guard_or_false answers (slice start 0 kept
as 0 over a size X - 1) and view strides depend on them.

    tools/oracle/run tools/oracle/scripts/probe_unbacked_view.py
"""
import torch


class M(torch.nn.Module):
    def forward(self, a, b, x):
        hi = a.max().item()
        lo = b.min().item()
        torch._check(hi <= lo)
        r = torch.arange(lo, hi, -1, dtype=torch.int64)
        n = r.shape[0]
        p = (x.unsqueeze(-1) * r.to(x.dtype)).permute(0, 2, 1)  # [2, n, 8], not contiguous
        p = torch.reshape(p, [2, n, 8])
        p = p[:, 1:, :]
        p = torch.reshape(p, [2, 8, n - 1])
        return p[..., :8]


ep = torch.export.export(M(), (torch.tensor([-3.0]), torch.tensor([5.0]), torch.randn(2, 8)), strict=False)
print(ep.graph_module.code)
env = None
for node in ep.graph.nodes:
    v = node.meta.get("val")
    if isinstance(v, torch.Tensor):
        print(node.name, tuple(v.shape), v.stride(), v.storage_offset())
        env = env or next((s.node.shape_env for s in v.shape if isinstance(s, torch.SymInt)), None)
print("deferred runtime asserts", [str(r.expr) for rs in env.deferred_runtime_asserts.values() for r in rs])
print("replacements", {str(k): str(v) for k, v in env.replacements.items()})
print("ranges", {str(k): str(v) for k, v in env.var_to_range.items()})
