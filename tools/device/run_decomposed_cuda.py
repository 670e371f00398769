"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch), from the repository root:
    python3 tools/device/run_decomposed_cuda.py --dir DIR [--out FILE.json]
Issue 14's CUDA lowering, judged on a GPU. DIR holds `fakeexport [--arch sm80] decompose
tests/fixtures/cuda/pt2/NAME.pt2 -o DIR/NAME.ours[_sm80].pt2` (our run_decompositions of PyTorch's
CUDA exports: the fused attention op of the kernel PyTorch picks, with its argument preparation).
Each is loaded with torch.export.load and run on cuda:0, and compared with PyTorch's own export
(tests/fixtures/cuda/pt2/NAME.pt2) run on the same random inputs (seeded; a boolean mask all True).
Per program: loaded, ran, max_abs_diff, allclose (2e-2 for half types, 1e-4 for float32), error."""
import argparse
import glob
import json
import os
import sys

import torch
from corpus_io import REPO, first_line


def inputs(ep):
    """Seeded inputs for the program's user inputs, on cuda: floats randn, bools all True."""
    g = torch.Generator(device="cuda").manual_seed(0)
    out = []
    names = set(ep.graph_signature.user_inputs)
    for n in ep.graph.nodes:
        if n.op == "placeholder" and n.name in names:
            v = n.meta["val"]
            if v.dtype == torch.bool:
                out.append(torch.ones(v.shape, dtype=torch.bool, device="cuda"))
            else:
                out.append(torch.randn(v.shape, dtype=v.dtype, device="cuda", generator=g))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "cuda", "decomposed_run.json"))
    a = ap.parse_args()
    assert torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
    res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "programs": {}}
    for f in sorted(glob.glob(os.path.join(a.dir, "*.pt2"))):
        name = os.path.basename(f)[: -len(".pt2")]
        base = name.split(".")[0]
        r = {"loaded": False, "ran": False}
        try:
            ours = torch.export.load(f)
            r["loaded"] = True
            ref = torch.export.load(os.path.join(REPO, "tests", "fixtures", "cuda", "pt2", base + ".pt2"))
            args = inputs(ref)
            with torch.no_grad():
                want = ref.module()(*args)
                got = ours.module()(*args)
            r["ran"] = True
            r["ops"] = sorted({str(n.target) for n in ours.graph.nodes if "scaled_dot_product" in str(n.target)})
            d = (got.float() - want.float()).abs().max().item()
            r["max_abs_diff"] = d
            tol = 2e-2 if want.dtype in (torch.float16, torch.bfloat16) else 1e-4
            r["allclose"] = bool(torch.allclose(got.float(), want.float(), rtol=tol, atol=tol))
        except Exception as e:  # noqa: BLE001
            r["error"] = first_line(e)
        res["programs"][name] = r
        print(name, json.dumps(r), flush=True)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True)
        fh.write("\n")
    sys.exit(0)


if __name__ == "__main__":
    main()
