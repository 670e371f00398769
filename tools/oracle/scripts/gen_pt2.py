"""PT2 archives written by PyTorch 2.14's torch.export.save, for the .pt2 reader/writer (issue 5).
Writes tests/fixtures/pt2/<case>.pt2 plus, per case: <case>.txt (print of torch.export.load of the
archive), <case>.model.json (models/model.json, pretty-printed for diffs), <case>.entries.txt (zip
entries: name, offset of data, size, method, crc), <case>.weights.safetensors (the real weights),
<case>.inputs.safetensors and <case>.outputs.safetensors (ep.module()(inputs), for execution tests).
Cases: seed MLP (real weights, cpu), GPT-2 mini with Dim("batch")/Dim("seq_len"), a module with buffers
and a buffer mutation, tied weights, and the seed MLP exported under FakeTensorMode (PyTorch writes its
weights as one 0-byte payload)."""
import json
import os
import sys
import zipfile

import torch
import torch.nn as nn
from safetensors.torch import save_file
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.export import Dim, export

sys.path.insert(0, os.path.dirname(__file__))
from seed_mlp import MLP  # noqa: E402

OUT = os.environ.get("FE_PT2_OUT", "tests/fixtures/pt2")
os.makedirs(OUT, exist_ok=True)
torch.manual_seed(0)


def write_case(name, ep, inputs, run=True):
    path = os.path.join(OUT, name + ".pt2")
    torch.export.save(ep, path)
    loaded = torch.export.load(path)
    with open(os.path.join(OUT, name + ".txt"), "w") as fh:
        fh.write(str(loaded))
    with zipfile.ZipFile(path) as z:
        lines = []
        for info in z.infolist():
            with open(path, "rb") as raw:
                raw.seek(info.header_offset + 26)
                n, m = int.from_bytes(raw.read(2), "little"), int.from_bytes(raw.read(2), "little")
            data_off = info.header_offset + 30 + n + m
            lines.append("%s %d %d %d %08x" % (info.filename, data_off, info.file_size, info.compress_type, info.CRC))
            if info.filename.endswith("models/model.json"):
                doc = json.loads(z.read(info.filename))
                with open(os.path.join(OUT, name + ".model.json"), "w") as fh:
                    json.dump(doc, fh, indent=1, sort_keys=False)
                    fh.write("\n")
        with open(os.path.join(OUT, name + ".entries.txt"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
    if run:
        state = {k: v.detach().contiguous() for k, v in ep.state_dict.items()}
        # Tied weights share storage: safetensors wants each storage once.
        seen, uniq = {}, {}
        for k, v in state.items():
            key = (v.untyped_storage().data_ptr(), v.storage_offset(), tuple(v.shape))
            if key not in seen:
                seen[key] = k
                uniq[k] = v.clone()
        save_file(uniq, os.path.join(OUT, name + ".weights.safetensors"))
        save_file({"input_%d" % i: t for i, t in enumerate(inputs)}, os.path.join(OUT, name + ".inputs.safetensors"))
        with torch.no_grad():
            out = loaded.module()(*inputs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        save_file({"output_%d" % i: t.contiguous() for i, t in enumerate(outs)},
                  os.path.join(OUT, name + ".outputs.safetensors"))


# 1. seed MLP with real weights on cpu
mlp = MLP(128, 256, 10).eval()
x = torch.randn(4, 128)
write_case("seed_mlp", export(mlp, (x,)), [x])

# 2. GPT-2 mini with dynamic batch and seq (the model of export_gpt2_dynamic.py)
sys.argv = [sys.argv[0]]
import importlib.util  # noqa: E402
spec = importlib.util.spec_from_file_location("gpt2", os.path.join(os.path.dirname(__file__), "export_gpt2_dynamic.py"))
os.environ.setdefault("FE_DYNAMIC_OUT", "/tmp")
gpt2 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpt2)
g = gpt2.GPT().eval()
idx = torch.randint(0, gpt2.V, (3, 8))
write_case("gpt2_dynamic", export(g, (idx,), dynamic_shapes={"idx": (Dim("batch"), Dim("seq_len", min=2, max=1024))}),
           [idx])


# 3. buffers, one of them mutated in forward (running statistics)
class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("scale", torch.full((4,), 2.0))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
        self.register_buffer("cache", torch.ones(4), persistent=False)

    def forward(self, x):
        self.steps.add_(1)
        return self.lin(x) * self.scale + self.cache


xb = torch.randn(2, 4)
write_case("buffers", export(WithBuffers(), (xb,)), [xb])


# 4. tied weights: lm_head shares the embedding's weight
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.head = nn.Linear(6, 10, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, i):
        return self.head(self.emb(i))


it = torch.randint(0, 10, (2, 3))
write_case("tied", export(Tied(), (it,)), [it])

# 5. the seed's fake export: PyTorch saves fake weights as one shared 0-byte payload
with FakeTensorMode():
    fm = MLP(128, 256, 10).eval()
    fx = torch.randn(4, 128)
write_case("seed_mlp_fake", export(fm, (fx,)), [], run=False)
print(sorted(os.listdir(OUT)))
