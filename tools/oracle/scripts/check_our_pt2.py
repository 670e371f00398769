"""Loads the .pt2 archives our tests wrote (build/pt2_out/, by tests/test_serde_pt2.cpp) with PyTorch
2.14's torch.export.load: the seed MLP must print like our print and run to the fixture's numbers
(1e-5); the graph-only archive must fail loudly. Exit 0 when all hold, 1 otherwise, 77 when the
archives are missing (build and run the tests first)."""
import os
import sys

import torch
from safetensors.torch import load_file

OUT = "build/pt2_out"
if not os.path.exists(os.path.join(OUT, "seed_mlp_ours.pt2")):
    print("check_our_pt2: skipped: no archives in %s (run build/fakeexport_tests first)" % OUT)
    sys.exit(77)
ok = True
ep = torch.export.load(os.path.join(OUT, "seed_mlp_ours.pt2"))
x = load_file("tests/fixtures/pt2/seed_mlp.inputs.safetensors")["input_0"]
want = load_file("tests/fixtures/pt2/seed_mlp.outputs.safetensors")["output_0"]
import re  # noqa: E402

def blank(text):
    return re.sub(r"# File: [^\n]*", "# File: <source>", text)

ours = open(os.path.join(OUT, "seed_mlp_ours.txt")).read()
same = blank(str(ep)) == blank(ours)
print("seed_mlp_ours: print %s our print (File lines aside)" % ("equals" if same else "DIFFERS from"))
ok &= same
got = ep.module()(x)
err = (got - want).abs().max().item()
print("seed_mlp_ours: loaded, max |ours - PyTorch| = %.3g" % err)
ok &= err <= 1e-5
try:
    bad = torch.export.load(os.path.join(OUT, "seed_mlp_none.pt2"))
    print("seed_mlp_none: LOADED SILENTLY (weights %s)" % [float(v.abs().sum()) for v in bad.state_dict.values()][:2])
    ok = False
except Exception as e:  # noqa: BLE001 - failing loudly is the point
    print("seed_mlp_none: fails loudly: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:150]))
ef = torch.export.load(os.path.join(OUT, "seed_mlp_file.pt2"))
ferr = (ef.module()(x) - want).abs().max().item()
print("seed_mlp_file (fake program + safetensors weights): max |ours - PyTorch| = %.3g" % ferr)
ok &= ferr <= 1e-5
tied = torch.export.load(os.path.join(OUT, "tied_ours.pt2"))
i = load_file("tests/fixtures/pt2/tied.inputs.safetensors")["input_0"]
terr = (tied.module()(i) - load_file("tests/fixtures/pt2/tied.outputs.safetensors")["output_0"]).abs().max().item()
print("tied_ours: loaded, max |ours - PyTorch| = %.3g" % terr)
ok &= terr <= 1e-5
for case in ["seed_mlp", "gpt2_dynamic", "buffers", "tied"]:
    path = os.path.join(OUT, case + "_resaved.pt2")
    if not os.path.exists(path):
        continue
    ep = torch.export.load(path)
    same = str(ep) == open("tests/fixtures/pt2/%s.txt" % case).read()
    ins = load_file("tests/fixtures/pt2/%s.inputs.safetensors" % case)
    outs = load_file("tests/fixtures/pt2/%s.outputs.safetensors" % case)
    got = ep.module()(*[ins["input_%d" % i] for i in range(len(ins))])
    got = got if isinstance(got, (tuple, list)) else (got,)
    err = max((g - outs["output_%d" % i]).abs().max().item() for i, g in enumerate(got))
    print("%s_resaved: print %s the fixture, max |ours - PyTorch| = %.3g" % (case, "equals" if same else "DIFFERS from", err))
    ok &= same and err <= 1e-5
# Seed 002's CPU-exported decoder retargeted to cuda:0 (tests/test_retarget.cpp): PyTorch loads it
# and prints it as we do. This build is CPU-only and the loader moves each weight to its recorded
# device (`tensor.to(device)`), so weights bound for cuda become meta tensors here; not run.
path = os.path.join(OUT, "retarget_seed002_decoder.pt2")
if os.path.exists(path):
    to = torch.Tensor.to

    def to_meta_for_cuda(self, *args, **kwargs):
        if args and isinstance(args[0], torch.device) and args[0].type == "cuda":
            return to(self, "meta")
        return to(self, *args, **kwargs)

    torch.Tensor.to = to_meta_for_cuda
    try:
        ep = torch.export.load(path)
    finally:
        torch.Tensor.to = to
    same = blank(str(ep)) == blank(open(os.path.join(OUT, "retarget_seed002_decoder.txt")).read())
    cpu_left = "type='cpu'" in str(ep)
    print("retarget_seed002_decoder: loaded, print %s our print, %s" % (
        "equals" if same else "DIFFERS from", "cpu still pinned" if cpu_left else "no cpu device left"))
    ok &= same and not cpu_left
# Custom ops defined in C++ (tests/test_library.cpp): PyTorch loads our archives once the same ops
# are registered (gen_custom_ops.define_ops, torch.library.custom_op), prints them as we do and runs
# them to the outputs of its own export.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_custom_ops  # noqa: E402

gen_custom_ops.define_ops()
for case in ["seed004", "stack_rows_dynamic"]:
    path = os.path.join(OUT, "custom_%s.pt2" % case)
    if not os.path.exists(path):
        continue
    ep = torch.export.load(path)
    same = blank(str(ep)) == blank(open(os.path.join(OUT, "custom_%s.txt" % case)).read())
    x = load_file("tests/fixtures/custom_ops/%s.inputs.safetensors" % case)["input_0"]
    want = load_file("tests/fixtures/custom_ops/%s.outputs.safetensors" % case)["output_0"]
    err = (ep.module()(x) - want).abs().max().item()
    print("custom_%s: loaded with the op registered, print %s our print, max |ours - PyTorch| = %.3g"
          % (case, "equals" if same else "DIFFERS from", err))
    ok &= same and err <= 1e-6
# Zoo models (tests/test_zoo_core.cpp ZooEager): our export of HF architectures with HF's weights,
# run by PyTorch, against HF's eager outputs.
import glob  # noqa: E402

# MoE models record transformers' custom op; PyTorch resolves it only once transformers registered it,
# as in any session that exported them.
import transformers.integrations.moe  # noqa: E402,F401 - registers torch.ops.transformers.grouped_mm_fallback

# cli_*: `fakeexport export --dynamic batch,seq -o --weights <HF checkpoint>` of a fake model.
for path in sorted(glob.glob(os.path.join(OUT, "zoo_tiny_*.pt2")) + glob.glob(os.path.join(OUT, "cli_tiny_*.pt2"))):
    name = os.path.basename(path)[len("zoo_"):-len(".pt2")]
    io = load_file("tests/fixtures/zoo/eager/%s/io.safetensors" % name)
    ins = sorted((k for k in io if k.startswith("input_")), key=lambda k: int(k.split("_")[1]))
    outs = sorted((k for k in io if k.startswith("output_")), key=lambda k: int(k.split("_")[1]))
    ep = torch.export.load(path)
    got = ep.module()(*[io[k] for k in ins])
    got = got if isinstance(got, (tuple, list)) else (got,)
    err = max((got[i] - io[k]).abs().max().item() for i, k in enumerate(outs))
    print("%s: loaded and run by PyTorch, max |ours - HF eager| = %.3g" % (os.path.basename(path)[:-4], err))
    ok &= err <= 1e-4
sys.exit(0 if ok else 1)
