"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch and transformers), from the
repository root, with the judge's transformers carried there (tools/device/carry_transformers.sh):
    PYTHONPATH=$PWD/.tf512 python3 tools/device/capture_zoo_kv_cuda.py --out OUT [--only NAME,...]
    tar czf $OUT/zoo_kv.tgz -C OUT zoo_kv      (the device tool brings back few files)
What tests/fixtures/cuda/zoo_kv came from (H200, PyTorch 2.11 CUDA 13, transformers 5.12.1,
2026-11-30; the `# File:` comment lines removed, as they name that machine's paths). The same run
with the machine's own transformers 5.17 gave prints that differ from 5.12's in the cache's
cumulative length (a 0-d tensor there) for every case.
Issue 15's decode step on a GPU: transformers' convert_and_export_with_cache (a StaticCache of 16
tokens, strict export under no_grad), as tools/oracle/scripts/gen_zoo_kv_golden.py runs it on cpu,
with the model, the cache and the example inputs on cuda:0. Per case NAME of that script's CASES, in
OUT/zoo_kv:
  NAME.kv.txt, NAME.kv_b2s3.txt, NAME.kv_dyn.txt   the cuda:0 prints (shapes as gen_zoo_kv_golden.py)
  NAME.kv.decomposed.txt   run_decompositions() of NAME.kv.txt's program: the fused attention op the
                           decode step lowers to on this GPU (the query is one token, the mask spans
                           the cache)
  NAME.cpu.kv.txt          the same case exported on cpu by this machine's PyTorch and transformers:
                           what tells a device difference from a version difference (with 5.12 it
                           equals tests/fixtures/zoo_golden/NAME.kv.txt up to a trailing space, except
                           Falcon's vmapped mask: 2.11 lowers _remove_batch_dim without unsqueeze)
  NAME.SHAPE.error.txt     PyTorch's refusal, first line
  env.json                 torch, transformers, the GPU
Everything is written as it is measured, so a run stopped at its budget keeps what it has.
--dry-cpu exports on cpu instead (tries the script where no GPU is lent; in the reference environment
its prints are the committed goldens)."""
import argparse
import json
import os
import runpy
import sys
import time

import torch

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def export_case(kv, name, dev, batch, seq, dynamic):
    """convert_and_export_with_cache of case NAME with the cache, model and inputs on `dev`."""
    from transformers import GenerationConfig
    cfg, model, dtype = kv["golden"].build_model(name)
    model = model.to(dev)
    model.config.use_cache = True
    model.generation_config = GenerationConfig(
        use_cache=True, cache_implementation="static", max_length=kv["MAX_CACHE_LEN"],
        cache_config={"batch_size": batch, "max_cache_len": kv["MAX_CACHE_LEN"], "device": dev})
    ids = torch.ones(batch, seq, dtype=torch.long, device=dev)
    pos = torch.arange(seq, device=dev)
    ds = None
    if dynamic:
        d = torch.export.Dim("seq_length_dim", max=kv["MAX_CACHE_LEN"] - 1)
        ds = {"input_ids": {1: d}, "cache_position": {0: d}}
    return kv["convert_and_export_with_cache"](model, ids, pos, dynamic_shapes=ds)


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":  # as gen_zoo_golden.py: Gemma 3's set order
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated cases (default: gen_zoo_kv_golden.py's CASES)")
    ap.add_argument("--budget-s", type=float, default=300)
    ap.add_argument("--dry-cpu", action="store_true", help="cpu instead of cuda: tries the script, measures nothing")
    a = ap.parse_args()
    dev = "cpu" if a.dry_cpu else "cuda"
    if not a.dry_cpu:
        assert torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
    start = time.time()
    out = os.path.join(a.out, "zoo_kv")
    os.makedirs(out, exist_ok=True)
    import transformers
    env = {"torch": torch.__version__, "transformers": transformers.__version__,
           "gpu": torch.cuda.get_device_name(0) if dev == "cuda" else None, "dry_cpu": a.dry_cpu}
    with open(os.path.join(out, "env.json"), "w") as f:
        json.dump(env, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(env), flush=True)
    kv = runpy.run_path(os.path.join(REPO, "tools", "oracle", "scripts", "gen_zoo_kv_golden.py"), run_name="kv")
    stable = kv["golden"].stable
    cases = a.only.split(",") if a.only else kv["CASES"]
    runs = [("kv", 1, 1, False), ("kv_b2s3", 2, 3, False), ("kv_dyn", 1, 3, True)]
    for name in cases:
        for shape, batch, seq, dynamic in runs + ([] if a.dry_cpu else [("cpu.kv", 1, 1, False)]):
            if time.time() > start + a.budget_s:
                print("stopped at the budget", flush=True)
                return
            on = "cpu" if shape.startswith("cpu.") else dev
            try:
                ep = export_case(kv, name, on, batch, seq, dynamic)
                with open(os.path.join(out, f"{name}.{shape}.txt"), "w") as f:
                    f.write(stable(str(ep)))
                if shape == "kv":
                    with open(os.path.join(out, f"{name}.kv.decomposed.txt"), "w") as f:
                        f.write(stable(str(ep.run_decompositions())))
                print(name, shape, "ok", len(ep.graph.nodes), "nodes", "%.1f s" % (time.time() - start), flush=True)
            except Exception as e:  # noqa: BLE001 - PyTorch's refusal is the answer
                with open(os.path.join(out, f"{name}.{shape}.error.txt"), "w") as f:
                    f.write((str(e).strip().splitlines() or [type(e).__name__])[0][:300] + "\n")
                print(name, shape, "error", str(e)[:200], flush=True)
    print("done in %.1f s" % (time.time() - start), flush=True)


if __name__ == "__main__":
    main()
