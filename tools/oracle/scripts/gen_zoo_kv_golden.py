"""Golden prints of transformers' decode step with a static cache (issue 15): PyTorch 2.14's export of
the transformers 5.12 model through transformers.integrations.executorch.convert_and_export_with_cache
(TorchExportableModuleWithStaticCache, strict=True, under torch.no_grad()), for the tiny configs of
gen_zoo_golden.py.

    tools/oracle/run tools/oracle/scripts/gen_zoo_kv_golden.py [--out DIR] [--only NAMES]

Per case NAME and shape, in DIR (default tests/fixtures/zoo_golden), next to NAME.config.json:
  NAME.kv.txt        a cache of 16 tokens for 1 sequence; input_ids [1, 1], cache_position [1]
                     (`fakeexport export NAME.config.json --static-cache 16`)
  NAME.kv.decomposed.txt  str(ep.run_decompositions()) of NAME.kv.txt's program
  NAME.kv_b2s3.txt   a cache of 16 tokens for 2 sequences; input_ids [2, 3], cache_position [3]
                     (`... --static-cache 16 --batch 2 --seq 3`)
  NAME.kv_dyn.txt    1 sequence, the step's tokens dynamic (Dim("seq_length_dim", max=15), example 3)
                     (`... --static-cache 16 --seq 3 --dynamic seq`)
"""
import argparse
import importlib.util
import os

import torch
from transformers import GenerationConfig
from transformers.integrations.executorch import convert_and_export_with_cache

torch.set_num_threads(1)
_spec = importlib.util.spec_from_file_location("gen_zoo_golden", os.path.join(os.path.dirname(__file__), "gen_zoo_golden.py"))
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

MAX_CACHE_LEN = 16
# Not here: falcon (Falcon-7B's multi-query layout: dynamo fails on it, "Observed exception");
# falcon_rw (ALiBi: the padding mask's length, seq + the cache's length, is read with .item() and the
# export asserts it equals max_cache_len, so PyTorch's program only runs when the cache fills up);
# mixtral (transformers' StaticCache fails on MixtralConfig's head_dim None: `len(head_dim)`)
# and deepseek_v3 (its keys are wider than its values; index_copy_ into the cache fails).
CASES = ["llama", "llama_mha_bias", "qwen2", "qwen3", "gemma", "mistral", "phi3", "gemma2", "gemma3_text", "qwen3_moe",
         "qwen2_moe", "qwen2_moe_window", "llama_bf16", "gemma2_bf16", "gemma3_text_bf16", "gpt_neox", "gpt2",
         "falcon_40b", "falcon_sequential"]
SHAPES = {"kv": (1, 1), "kv_b2s3": (2, 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/zoo_golden")
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    a = ap.parse_args()
    for name in CASES:
        if a.only and name not in a.only.split(","):
            continue
        for suffix, (batch, seq) in SHAPES.items():
            cfg, model, dtype = golden.build_model(name)
            model.config.use_cache = True
            model.generation_config = GenerationConfig(
                use_cache=True, cache_implementation="static", max_length=MAX_CACHE_LEN,
                cache_config={"batch_size": batch, "max_cache_len": MAX_CACHE_LEN, "device": "cpu"})
            ids = torch.ones(batch, seq, dtype=torch.long)
            ep = convert_and_export_with_cache(model, ids, torch.arange(seq))
            with open(os.path.join(a.out, f"{name}.{suffix}.txt"), "w") as f:
                f.write(golden.stable(str(ep)))
            if suffix == "kv":  # ep.run_decompositions(): the cache writes functionalized
                with open(os.path.join(a.out, f"{name}.kv.decomposed.txt"), "w") as f:
                    f.write(golden.stable(str(ep.run_decompositions())))
            print(name, suffix, "ok", len(ep.graph.nodes), "nodes")
        # The tokens of a step dynamic, as transformers exports its text decoders (a prefill chunk or
        # one token): Dim("seq_length_dim", max=max_cache_len - 1) over input_ids[1] and cache_position[0].
        cfg, model, dtype = golden.build_model(name)
        model.config.use_cache = True
        model.generation_config = GenerationConfig(
            use_cache=True, cache_implementation="static", max_length=MAX_CACHE_LEN,
            cache_config={"batch_size": 1, "max_cache_len": MAX_CACHE_LEN, "device": "cpu"})
        seq = torch.export.Dim("seq_length_dim", max=MAX_CACHE_LEN - 1)
        ep = convert_and_export_with_cache(model, torch.ones(1, 3, dtype=torch.long), torch.arange(3),
                                           dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
        with open(os.path.join(a.out, f"{name}.kv_dyn.txt"), "w") as f:
            f.write(golden.stable(str(ep)))
        print(name, "kv_dyn", "ok", len(ep.graph.nodes), "nodes")


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":  # Gemma 3's rotary pairs follow set() order
        import sys
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    main()
