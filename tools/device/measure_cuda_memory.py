"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch), from the repository root:
    python3 tools/device/measure_cuda_memory.py [--out tests/fixtures/cuda/memory.json] [--only NAME,...]
The CUDA side of issue 16's calibration (tests/fixtures/memory holds the CPU side, from the reference
environment): every program of the real-program corpus (tests/fixtures/corpus/NAME.pt2 with its sample
inputs NAME.inputs.safetensors, bound as gen_memory_peaks.py binds them) is loaded, moved to cuda:0 with
`ep.module().to("cuda")` (programs that pin cpu in the graph fail there and are recorded as such), and
run once under torch.no_grad(). Per program: the torch version, the bytes the weights and inputs take
once moved (torch.cuda.memory_allocated before the run), and over a second run (the first allocates
cuBLAS's workspace, 33 MiB through the caching allocator, which is not an activation)
torch.cuda.max_memory_allocated() minus that (the activation peak as the caching allocator allocates
it: 512-byte rounding included) and torch.cuda.memory_reserved(). tests/test_memory_calibration.cpp
compares `fakeexport memory` of the same program retargeted to cuda:0 (activation_peak_allocated_bytes)
when the file exists, and says "skipped" otherwise.
Not yet run: no GPU machine was lent to the session that wrote it."""
import argparse
import json
import os
import sys

import torch
from corpus_io import CORPUS, REPO, first_line, sample_inputs, to_cuda


def load(name):
    """The program and its sample inputs, bound as gen_memory_peaks.py binds them."""
    ep = torch.export.load(os.path.join(CORPUS, name + ".pt2"))
    args, kwargs = sample_inputs(ep, name)
    return ep, args, kwargs


def measure(name):
    ep, args, kwargs = load(name)
    m = ep.module().to("cuda")
    args, kwargs = to_cuda((args, kwargs))
    with torch.no_grad():  # a first, unmeasured run: kernels' lazily allocated workspaces are not activations
        m(*args, **kwargs)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    with torch.no_grad():
        out = m(*args, **kwargs)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    reserved = torch.cuda.memory_reserved()
    del out
    return {"weights_and_inputs_bytes": base, "activation_peak_allocated_bytes": peak, "reserved_bytes": reserved}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(REPO, "tests/fixtures/cuda/memory.json"))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    assert torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
    manifest = json.load(open(os.path.join(REPO, "tests/fixtures/corpus/MANIFEST.json")))
    names = sorted(c["name"] for c in manifest["cases"])
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
           "total_memory": torch.cuda.get_device_properties(0).total_memory, "programs": {}}
    for name in names:
        import gc
        gc.collect()
        torch.cuda.empty_cache()
        try:
            res["programs"][name] = measure(name)
        except Exception as e:  # recorded, never fatal: a cpu-pinned program cannot run on cuda
            res["programs"][name] = {"error": first_line(e)}
        print(name, res["programs"][name], flush=True)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print("wrote", a.out)


if __name__ == "__main__":
    sys.exit(main())
