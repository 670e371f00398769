"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch), from the repository root:
    python3 tools/device/run_zoo_cuda.py DIR
DIR holds, per tiny zoo config NAME, `fakeexport export CONFIG --dynamic batch,seq --weights <HF
checkpoint> -o`, then `fakeexport retarget --device cuda:0 -o DIR/NAME.pt2` (and `fakeexport
decompose` of that, DIR/NAME.dec.pt2), with NAME.io.safetensors (tests/fixtures/zoo/eager: the
example inputs and HF's eager outputs). Each archive is loaded by torch.export.load, run on cuda:0
with the inputs moved there (TF32 off), and compared with HF's eager outputs. One line per archive:
loaded, ran, max |ours - HF| or the first line of PyTorch's error."""
import glob
import os
import sys

import torch
from safetensors.torch import load_file

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
d = sys.argv[1]
for path in sorted(glob.glob(os.path.join(d, "*.pt2"))):
    name = os.path.basename(path).split(".")[0]
    io = load_file(os.path.join(d, name + ".io.safetensors"))
    ins = [io[k].cuda() for k in sorted((k for k in io if k.startswith("input_")), key=lambda k: int(k.split("_")[1]))]
    outs = [io[k] for k in sorted((k for k in io if k.startswith("output_")), key=lambda k: int(k.split("_")[1]))]
    try:
        ep = torch.export.load(path)
        got = ep.module()(*ins)
        got = got if isinstance(got, (tuple, list)) else (got,)
        err = max((g.float().cpu() - w.float()).abs().max().item() for g, w in zip(got, outs))
        print("%s: loaded, ran on %s, max |ours - HF eager| = %.3g" % (os.path.basename(path), got[0].device, err), flush=True)
    except Exception as e:  # noqa: BLE001
        print("%s: %s: %s" % (os.path.basename(path), type(e).__name__, (str(e).strip().splitlines() or [""])[0][:200]), flush=True)
