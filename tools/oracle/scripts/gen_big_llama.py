"""A deep, narrow program for reader performance: HF LlamaForCausalLM with 126 layers of width 16.

    tools/oracle/run tools/oracle/scripts/gen_big_llama.py [OUT.pt2]   (default build/corpus_big/llama126.pt2)

Exports it with torch.export.export(strict=False) (static batch 1, seq 8), saves it, then times
torch.export.load of the archive (best of 3, in-process) and prints one JSON line
{"nodes": N, "load_seconds": t, ...}.
"""
import json
import os
import sys
import time

import torch
import transformers

torch.set_num_threads(1)
out = sys.argv[1] if len(sys.argv) > 1 else "build/corpus_big/llama126.pt2"
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)

torch.manual_seed(0)
cfg = transformers.LlamaConfig(vocab_size=128, hidden_size=16, intermediate_size=32, num_hidden_layers=126,
                               num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                               use_cache=False)
model = transformers.LlamaForCausalLM(cfg).eval()
ids = torch.randint(0, 128, (1, 8), generator=torch.Generator().manual_seed(0))
t0 = time.time()
ep = torch.export.export(model, (ids,), strict=False)
export_s = time.time() - t0
t0 = time.time()
torch.export.save(ep, out)
save_s = time.time() - t0

best = None
for _ in range(3):
    t0 = time.perf_counter()
    loaded = torch.export.load(out)
    dt = time.perf_counter() - t0
    best = dt if best is None else min(best, dt)
print(json.dumps({"nodes": len(loaded.graph.nodes), "load_seconds": round(best, 4), "export_seconds": round(export_s, 2),
                  "save_seconds": round(save_s, 2), "bytes": os.path.getsize(out), "path": out}))
