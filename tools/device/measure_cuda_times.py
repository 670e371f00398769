"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch and transformers), from the
repository root:
    python3 tools/device/measure_cuda_times.py [--out tests/fixtures/cuda/times.json] [--budget-s 420]
The measured side of issue 17's roofline (docs/cost.md tabulates predicted vs measured). For each
config.json below, transformers builds the model on cuda:0 in the config's dtype with random weights
(attention: SDPA, transformers' default) and the script times, with CUDA events:
  - prefill: `model(input_ids)` (logits for every position, as our export's program) at the listed
    batch x seq, eager and, for the first setting, `torch.compile(model)` (default mode, compiled
    before timing);
  - decode: after a prefill of LEN tokens into a StaticCache, one step of one new token per sequence
    (`cache_position` = LEN, LEN+1, ...), eager, at the listed batches;
  - the activation peak of the eager prefill: torch.cuda.max_memory_allocated() minus what the weights
    and inputs hold before the call.
Each time is the median of the timed repetitions after warm-up. Results are written after every
measurement, so a run stopped at its budget keeps what it measured; `fakeexport cost` of the same
settings is compared in tests/test_cost.cpp only as a recorded table (timings never gate a test)."""
import argparse
import json
import os
import sys
import time

import torch
from corpus_io import REPO, first_line
MODELS = [  # config, prefill settings (batch, seq), decode (cache length, batches)
    ("meta-llama-3-8b.json", [(1, 2048), (1, 512), (4, 2048)], (2048, [1, 8])),
    ("phi-3-mini-4k-instruct.json", [(1, 2048)], (2048, [1])),
    ("gemma-2-2b.json", [(1, 2048)], (2048, [1])),
    ("gpt2.json", [(1, 1024), (8, 1024)], None),
]
DEV = "cpu" if "--dry-run-cpu" in sys.argv else "cuda"  # cpu only to try the script without a GPU


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


def cuda_time(fn, warmup=3, reps=10):
    """Median milliseconds of fn() over reps, after warmup calls, timed with CUDA events."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(reps):
        if DEV != "cuda":
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
            continue
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def build(cfg_name):
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = AutoConfig.from_pretrained(os.path.join(REPO, "configs", cfg_name))
    cfg._attn_implementation = "sdpa"
    dtype = getattr(cfg, "torch_dtype", None) or getattr(cfg, "dtype", None) or torch.float32
    if isinstance(dtype, str):
        dtype = getattr(torch, dtype)
    with torch.device(DEV):
        model = AutoModelForCausalLM.from_config(cfg, dtype=dtype)
    return model.eval(), cfg, dtype


def ids(cfg, b, s):
    return torch.randint(0, cfg.vocab_size, (b, s), device=DEV)


def measure_model(cfg_name, prefill, decode, compile_too, res, save, deadline):
    model, cfg, dtype = build(cfg_name)
    out = res.setdefault(cfg_name, {"dtype": str(dtype).replace("torch.", ""),
                                    "parameters": sum(p.numel() for p in model.parameters())})
    with torch.no_grad():
        for b, s in prefill:
            if time.time() > deadline:
                return
            x = ids(cfg, b, s)
            sync()
            base = torch.cuda.memory_allocated() if DEV == "cuda" else 0
            if DEV == "cuda":
                torch.cuda.reset_peak_memory_stats()
            model(x)
            sync()
            peak = torch.cuda.max_memory_allocated() - base if DEV == "cuda" else 0
            ms = cuda_time(lambda: model(x))
            out[f"prefill_b{b}_s{s}_eager_ms"] = ms
            out[f"prefill_b{b}_s{s}_activation_peak_bytes"] = peak
            print(cfg_name, "prefill", b, s, "eager", ms, "ms", "peak", peak, flush=True)
            save()
        if prefill and compile_too and DEV == "cuda":
            from torch.profiler import ProfilerActivity, profile

            b, s = prefill[0]
            x = ids(cfg, b, s)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                model(x)
                sync()
            names = sorted({e.key for e in prof.key_averages() if any(
                w in e.key.lower() for w in ("attention", "fmha", "flash", "softmax", "cutlass"))})
            out[f"prefill_b{b}_s{s}_attention_kernels"] = [n[:160] for n in names][:12]
            save()
        if prefill and compile_too and time.time() < deadline - 120:
            b, s = prefill[0]
            x = ids(cfg, b, s)
            try:
                compiled = torch.compile(model)
                t0 = time.time()
                compiled(x)
                sync()
                out["compile_s"] = time.time() - t0
                ms = cuda_time(lambda: compiled(x))
                out[f"prefill_b{b}_s{s}_compile_ms"] = ms
                print(cfg_name, "prefill", b, s, "compile", ms, "ms", flush=True)
            except Exception as e:  # recorded: decode is still measured
                out["compile_error"] = first_line(e)
            save()
        if decode:
            from transformers import StaticCache

            length, batches = decode
            for b in batches:
                if time.time() > deadline:
                    return
                steps = 16
                cache = StaticCache(config=cfg, max_cache_len=length + steps + 4)
                model(ids(cfg, b, length), past_key_values=cache, use_cache=True,
                      cache_position=torch.arange(length, device=DEV))
                pos = [length]

                def step():
                    p = pos[0]
                    model(ids(cfg, b, 1), past_key_values=cache, use_cache=True,
                          cache_position=torch.tensor([p], device=DEV))
                    pos[0] = p + 1

                ms = cuda_time(step, warmup=2, reps=steps - 2)
                out[f"decode_b{b}_cache{length}_eager_ms"] = ms
                print(cfg_name, "decode", b, length, "eager", ms, "ms", flush=True)
                save()
                if compile_too and time.time() < deadline - 90:
                    # transformers' recipe for fast static-cache decoding: CUDA graphs through
                    # torch.compile's reduce-overhead mode, so launch overhead no longer dominates
                    try:
                        fwd = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
                        cache.reset()
                        model(ids(cfg, b, length), past_key_values=cache, use_cache=True,
                              cache_position=torch.arange(length, device=DEV))
                        pos[0] = length

                        def cstep():
                            p = pos[0]
                            fwd(ids(cfg, b, 1), past_key_values=cache, use_cache=True,
                                cache_position=torch.tensor([p], device=DEV))
                            pos[0] = p + 1

                        ms = cuda_time(cstep, warmup=3, reps=steps - 4)
                        out[f"decode_b{b}_cache{length}_compile_ms"] = ms
                        print(cfg_name, "decode", b, length, "compile", ms, "ms", flush=True)
                    except Exception as e:  # recorded: the eager number stands
                        out[f"decode_b{b}_compile_error"] = first_line(e)
                    save()
                del cache
    del model
    if DEV == "cuda":
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(REPO, "tests/fixtures/cuda/times.json"))
    ap.add_argument("--budget-s", type=float, default=420)
    ap.add_argument("--only", default="", help="comma-separated config names")
    ap.add_argument("--dry-run-cpu", action="store_true", help="run on cpu (tries the script; times mean nothing)")
    a = ap.parse_args()
    assert DEV != "cuda" or torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
    import transformers

    deadline = time.time() + a.budget_s
    if DEV == "cuda":  # cuBLAS's workspace (33 MiB through the caching allocator) is not an activation
        torch.ones(64, 64, device=DEV, dtype=torch.bfloat16) @ torch.ones(64, 64, device=DEV, dtype=torch.bfloat16)
    res = {"torch": torch.__version__, "transformers": transformers.__version__,
           "device": torch.cuda.get_device_name(0) if DEV == "cuda" else DEV, "models": {}}

    def save():
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)

    for cfg_name, prefill, decode in MODELS:
        if a.only and cfg_name not in a.only.split(","):
            continue
        if time.time() > deadline:
            break
        try:
            measure_model(cfg_name, prefill, decode, cfg_name == MODELS[0][0], res["models"], save, deadline)
        except Exception as e:  # recorded, never fatal: the next model still gets measured
            res["models"].setdefault(cfg_name, {})["error"] = first_line(e)
            print(cfg_name, "error", res["models"][cfg_name]["error"], flush=True)
        save()
    print("wrote", a.out)


if __name__ == "__main__":
    sys.exit(main())
