"""The seed MLP (../shared/seeds/000_*), exported by PyTorch under FakeTensorMode on cpu/cpu.
Writes tests/fixtures/seed_mlp_cpu.txt: str(ExportedProgram) exactly as PyTorch prints it."""
import torch
import torch.nn as nn
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode


class MLP(nn.Module):
    def __init__(self, in_features, hidden_features, out_features,
                 fc1_device=torch.device("cpu"), fc2_device=torch.device("cpu")):
        super().__init__()
        with torch.device(fc1_device):
            self.fc1 = nn.Linear(in_features, hidden_features)
            self.act = nn.GELU()
        with torch.device(fc2_device):
            self.fc2 = nn.Linear(hidden_features, out_features)

    def forward(self, x):
        h = self.act(self.fc1(x))
        h = h.to(self.fc2.weight.device)
        return self.fc2(h)


def fake_export(d1, d2):
    with FakeTensorMode():
        model = MLP(128, 256, 10, d1, d2).eval()
        assert all(isinstance(p, FakeTensor) for p in model.parameters())
        x = torch.randn(4, 128, device=d1)
    return torch.export.export(model, (x,))


if __name__ == "__main__":
    ep = fake_export(torch.device("cpu"), torch.device("cpu"))
    with open("tests/fixtures/seed_mlp_cpu.txt", "w") as f:
        f.write(str(ep))
    print(repr(str(ep)))
