"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch), from the repository root:
    python3 tools/device/capture_cuda_fixtures.py
Exports the seed MLP under FakeTensorMode for cuda/cuda and cpu/cuda with PyTorch's own fake `cuda`
and writes tests/fixtures/seed_mlp_cuda_cuda.txt and seed_mlp_cpu_cuda.txt (str(ExportedProgram)),
plus the torch version used, so tests can compare our cuda programs with PyTorch's directly.
Not yet run: no GPU machine was lent to the session that wrote it."""
import os
import runpy
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
seed = runpy.run_path(os.path.join(here, "..", "oracle", "scripts", "seed_mlp.py"), run_name="seed_mlp")
fake_export = seed["fake_export"]
assert torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
for name, d1, d2 in [("cuda_cuda", "cuda", "cuda"), ("cpu_cuda", "cpu", "cuda")]:
    ep = fake_export(torch.device(d1), torch.device(d2))
    path = f"tests/fixtures/seed_mlp_{name}.txt"
    with open(path, "w") as f:
        f.write(str(ep))
    print("wrote", path)
with open("tests/fixtures/seed_mlp_cuda_torch_version.txt", "w") as f:
    f.write(torch.__version__ + "\n")
sys.exit(0)
