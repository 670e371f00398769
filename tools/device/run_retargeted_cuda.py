"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch), from the repository root:
    python3 tools/device/run_retargeted_cuda.py --dir DIR [--out tests/fixtures/cuda/retarget.json]
Issue 14's retarget, judged on a GPU. DIR holds `fakeexport retarget tests/fixtures/corpus/NAME.pt2
--device cuda:0 -o DIR/NAME.pt2` for the corpus programs that fail on cuda as PyTorch exported them
(tests/fixtures/cuda/memory.json). Each retargeted archive is loaded with torch.export.load and run
on cuda:0 with its sample inputs (moved there), and its outputs are compared with the original
program run on cpu (TF32 off, so float32 means float32). Per program: loaded, ran, max_abs_diff,
allclose (rtol=atol=1e-4 for float32 outputs; 2e-2 when an output is lower precision), error."""
import argparse
import copy
import json
import os
import sys

import torch
import torch.utils._pytree as pytree
from corpus_io import CORPUS, REPO, first_line, sample_inputs, to_cuda


def leaves(out):
    return [t for t in pytree.tree_leaves(out) if isinstance(t, torch.Tensor)]


def one(path, name):
    r = {"loaded": False, "ran": False}
    ref_ep = torch.export.load(os.path.join(CORPUS, name + ".pt2"))
    args, kwargs = sample_inputs(ref_ep, name)
    with torch.no_grad():
        want = leaves(ref_ep.module()(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
    ep = torch.export.load(path)
    r["loaded"] = True
    args, kwargs = to_cuda((args, kwargs))
    with torch.no_grad():
        got = leaves(ep.module()(*args, **kwargs))
    torch.cuda.synchronize()
    r["ran"] = True
    r["devices"] = sorted({str(t.device) for t in got})
    diff, close = 0.0, len(got) == len(want)
    for g, w in zip(got, want):
        g = g.cpu()
        if g.shape != w.shape or g.dtype != w.dtype:
            close = False
            continue
        if g.is_floating_point():
            tol = 1e-4 if g.dtype in (torch.float32, torch.float64) else 2e-2
            diff = max(diff, (g.double() - w.double()).abs().max().item() if g.numel() else 0.0)
            close &= torch.allclose(g, w, rtol=tol, atol=tol, equal_nan=True)
        else:
            close &= torch.equal(g, w)
    r["max_abs_diff"] = diff
    r["allclose"] = bool(close)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", default=os.path.join(REPO, "tests/fixtures/cuda/retarget.json"))
    a = ap.parse_args()
    assert torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "programs": {}}
    for f in sorted(os.listdir(a.dir)):
        if not f.endswith(".pt2"):
            continue
        name = f[:-4]
        try:
            res["programs"][name] = one(os.path.join(a.dir, f), name)
        except Exception as e:  # recorded, never fatal
            res["programs"][name] = {"error": first_line(e)}
        print(name, res["programs"][name], flush=True)
    with open(a.out, "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True)
    print("wrote", a.out)


if __name__ == "__main__":
    sys.exit(main())
