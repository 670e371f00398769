"""What transformers' generation cache holds (the fixture `memory --kv-cache` is checked against):
for each decoder-only case of gen_zoo_golden.py, the bytes of the DynamicCache a forward of
input_ids [2, 5] with use_cache=True leaves (every layer's keys and values), and their shapes.

    tools/oracle/run tools/oracle/scripts/gen_kv_cache_bytes.py [--out FILE]

Writes FILE (default tests/fixtures/memory/kv_cache.json): {NAME: {"batch": 2, "length": 5,
"bytes": N, "layer0": [key shape, value shape]}}; `fakeexport memory NAME.config.json --kv-cache 5
--batch 2` should report N.
"""
import argparse
import importlib.util
import json
import os

import torch

_spec = importlib.util.spec_from_file_location("gen_zoo_golden", os.path.join(os.path.dirname(__file__), "gen_zoo_golden.py"))
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)
BATCH, LENGTH = 2, 5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/memory/kv_cache.json")
    a = ap.parse_args()
    out = {}
    for name, (mt, cls, _) in golden.CASES.items():
        if not cls.endswith("ForCausalLM") and cls != "GPT2LMHeadModel":
            continue
        cfg, model, dtype = golden.build_model(name)
        with torch.no_grad():
            kv = model(torch.ones(BATCH, LENGTH, dtype=torch.long), use_cache=True).past_key_values
        total = sum(t.numel() * t.element_size() for layer in kv.layers for t in (layer.keys, layer.values))
        l0 = kv.layers[0]
        out[name] = {"batch": BATCH, "length": LENGTH, "bytes": total,
                     "layer0": [list(l0.keys.shape), list(l0.values.shape)]}
        print(name, total, out[name]["layer0"])
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
