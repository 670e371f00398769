"""Compares a regenerated model-zoo fixture tree with the committed one (tests/fixtures/zoo).
Every file must be byte-identical except the eager outputs (eager/*/io.safetensors): HuggingFace's
forward runs PyTorch's CPU kernels, whose vectorized paths differ by CPU, so outputs may differ in
their last digits on another machine; inputs must be equal and outputs allclose(rtol=1e-5, atol=1e-6).
Usage: tools/oracle/run tools/oracle/scripts/compare_zoo.py build/zoo_check tests/fixtures/zoo"""
import filecmp
import os
import sys

import torch
from safetensors.torch import load_file

new, old = sys.argv[1], sys.argv[2]
bad, near = [], 0
for root, _, files in os.walk(old):
    rel = os.path.relpath(root, old)
    if rel.split(os.sep)[0] == "configs":
        continue
    for f in files:
        a, b = os.path.join(new, rel, f), os.path.join(root, f)
        if not os.path.exists(a):
            bad.append(f"missing {os.path.join(rel, f)}")
        elif filecmp.cmp(a, b, shallow=False):
            continue
        elif f == "io.safetensors":
            x, y = load_file(a), load_file(b)
            ok = x.keys() == y.keys() and all(
                x[k].shape == y[k].shape and x[k].dtype == y[k].dtype
                and (torch.equal(x[k], y[k]) if k.startswith("input") else torch.allclose(x[k], y[k], rtol=1e-5, atol=1e-6))
                for k in x)
            if ok:
                near += 1
            else:
                bad.append(f"differs {os.path.join(rel, f)}")
        else:
            bad.append(f"differs {os.path.join(rel, f)}")
for root, _, files in os.walk(new):
    for f in files:
        if not os.path.exists(os.path.join(old, os.path.relpath(root, new), f)):
            bad.append(f"extra {os.path.join(os.path.relpath(root, new), f)}")
if bad:
    print("\n".join(bad[:20]))
    sys.exit(1)
print(f"zoo: compared ({near} eager outputs within rtol 1e-5 of the committed ones on this CPU)")
