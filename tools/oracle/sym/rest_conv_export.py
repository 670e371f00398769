"""Does torch.export keep the conv backend-selection guard (batch < 16) on a dynamic batch dim?"""
import torch
from torch.export import export, Dim

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 8, 3)
    def forward(self, x):
        return self.c(x)

for n in (2, 20):
    try:
        ep = export(M(), (torch.randn(n, 3, 32, 32),), dynamic_shapes=({0: Dim("batch")},))
        print(n, "ok", ep.range_constraints)
    except Exception as e:  # noqa: BLE001
        print(n, "ERROR", type(e).__name__, str(e)[:600])
    try:
        ep = export(M(), (torch.randn(n, 3, 32, 32),), dynamic_shapes=({0: Dim.AUTO},))
        print(n, "AUTO ok", ep.range_constraints)
    except Exception as e:  # noqa: BLE001
        print(n, "AUTO ERROR", type(e).__name__, str(e)[:300])
