"""Times PyTorch's torch.export.load of one archive (best of N, in-process) and prints one JSON
line {"load_seconds": ..., "nodes": ...}; with a third argument `decompose`, also the best time of
ep.run_decompositions() on the loaded program ("decompose_seconds"). Used by
bench/pt2_load_vs_torch.sh."""
import json
import sys
import time

import torch
# HF programs name transformers' ModelOutput classes in their out_spec (registered pytree nodes):
# torch.export.load needs them importable, as a user loading the archive would have them.
import transformers.modeling_outputs  # noqa: F401

path, reps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
best, nodes = float("inf"), 0
for _ in range(reps):
    t0 = time.perf_counter()
    ep = torch.export.load(path)
    best = min(best, time.perf_counter() - t0)
    nodes = len(ep.graph.nodes)
out = {"load_seconds": round(best, 4), "nodes": nodes}
if len(sys.argv) > 3 and sys.argv[3] == "decompose":
    best_d = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        ep.run_decompositions()
        best_d = min(best_d, time.perf_counter() - t0)
    out["decompose_seconds"] = round(best_d, 4)
print(json.dumps(out))
