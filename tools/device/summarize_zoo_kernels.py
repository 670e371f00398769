"""Needs no GPU. Summarizes the zoo captures of tools/device/capture_sdpa_cuda.py (its OUT/zoo/
NAME.decomposed.txt: the transformers model exported on cuda:0 and run_decompositions()) into the
attention kernels PyTorch lowered each case to, for tests/test_zoo_cuda.cpp:
    python3 tools/device/summarize_zoo_kernels.py OUT \
        > tests/fixtures/cuda/zoo_kernels.json
The fused op a program decomposes to is the device-specific lowering issue 14's retarget redoes
(cuDNN, flash or memory-efficient attention, or the math path: none), and it holds whichever graph
the installed transformers traces, so every case is kept except those whose attention that
transformers computes another way (--skip; the captures with transformers 5.12 carried to the
machine, tools/device/carry_transformers.sh, need none: T5 is eager there, as in ours)."""
import argparse
import collections
import json
import os
import re

FUSED = re.compile(r"torch\.ops\.(aten\._scaled_dot_product_\w+\.default)\(")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="capture_sdpa_cuda.py's --out directory")
    ap.add_argument("--skip", default="")
    ap.add_argument("--machine", default="H200, PyTorch 2.11 CUDA 13, transformers 5.12.1")
    a = ap.parse_args()
    skip = set(a.skip.split(","))
    cases = {}
    d = os.path.join(a.out, "zoo")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".decomposed.txt") or f[: -len(".decomposed.txt")] in skip:
            continue
        with open(os.path.join(d, f)) as fh:
            counts = collections.Counter(FUSED.findall(fh.read()))
        cases[f[: -len(".decomposed.txt")]] = dict(sorted(counts.items()))
    json.dump({"machine": a.machine, "cases": cases}, __import__("sys").stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
