"""PyTorch 2.14's side of bench/export_405b.sh: torch.export.export of transformers' LlamaForCausalLM
built from configs/meta-llama-3.1-405b.json under FakeTensorMode (no data: parameters on the meta
device, turned fake by export), the shape `fakeexport export` uses by default (input_ids [2, 8]),
static, or with batch and seq dynamic (`dynamic`). Prints one JSON line: best and median seconds of
`runs` exports, and the node count. Device placement is not modelled here (a pipeline over 8 GPUs
needs a CUDA build to even express); the graph is the same size.
Usage: tools/oracle/run tools/oracle/scripts/time_torch_export_405b.py [static|dynamic] [RUNS]"""
import json
import statistics
import sys
import time

import torch
import transformers

mode = sys.argv[1] if len(sys.argv) > 1 else "static"
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
cfg = transformers.AutoConfig.from_pretrained("configs/meta-llama-3.1-405b.json")
cfg.use_cache = False  # as the zoo exports it: logits only
torch.set_default_dtype(torch.bfloat16)
with torch.device("meta"):
    model = transformers.LlamaForCausalLM(cfg).eval()
torch.set_default_dtype(torch.float32)
ids = torch.zeros(2, 8, dtype=torch.long, device="meta")
dyn = None
if mode == "dynamic":
    b, s = torch.export.Dim("batch", min=1, max=1024), torch.export.Dim("seq", min=2, max=cfg.max_position_embeddings)
    dyn = {"input_ids": {0: b, 1: s}}
times, nodes = [], 0
for _ in range(runs):
    t0 = time.perf_counter()
    ep = torch.export.export(model, (), {"input_ids": ids}, dynamic_shapes=dyn, strict=False)
    times.append(time.perf_counter() - t0)
    nodes = len(ep.graph.nodes)
print(json.dumps({"mode": mode, "best_seconds": min(times), "median_seconds": statistics.median(times),
                  "runs": runs, "nodes": nodes, "torch": torch.__version__}))
