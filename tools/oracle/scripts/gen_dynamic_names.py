"""Deeper stacks for the dynamic node-name tests (tests/fixtures/dynamic_names): a golden case of
gen_zoo_golden.py with more layers, exported with batch and seq dynamic as its golden is. PyTorch
numbers nodes after size arithmetic its trace records and drops, some of it again in later layers
(c10's contiguity check, wherever FakeTensor's dispatch cache misses); these pin where.
Writes NAME.config.json, NAME.inputs.json and NAME_dyn.txt per case.
Usage: tools/oracle/run tools/oracle/scripts/gen_dynamic_names.py [--out DIR]"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import transformers  # noqa: E402

import gen_zoo_golden as G  # noqa: E402

# name: (golden case, layer field, layers, other fields); a name ending in "_mask" is exported as
# model(input_ids, attention_mask) (all ones), both dynamic (`fakeexport export --attention-mask`).
CASES = {
    "llama_l4": ("llama", "num_hidden_layers", 4, {}),
    "qwen2_l5": ("qwen2", "num_hidden_layers", 5, {"layer_types": None}),
    "bert_l4": ("bert", "num_hidden_layers", 4, {}),
    "phi3_l4": ("phi3", "num_hidden_layers", 4, {}),
    "gpt_neox_l4": ("gpt_neox", "num_hidden_layers", 4, {}),
    "mixtral_l3": ("mixtral", "num_hidden_layers", 3, {}),
    "gemma3_text_l5": ("gemma3_text", "num_hidden_layers", 5,
                       {"layer_types": ["sliding_attention", "full_attention", "sliding_attention",
                                        "sliding_attention", "full_attention"]}),
    "blenderbot_l4": ("blenderbot", "encoder_layers", 4, {}),
    "llama_l5_mask": ("llama", "num_hidden_layers", 5, {}),
    "mixtral_l4_mask": ("mixtral", "num_hidden_layers", 4, {}),
    "phi3_l4_mask": ("phi3", "num_hidden_layers", 4, {}),
}


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":  # Gemma 3's rotary pairs follow set order
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/dynamic_names")
    ap.add_argument("--only", default="", help="NAME,...: just these cases")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, (base, field, layers, extra) in CASES.items():
        if a.only and name not in a.only.split(","):
            continue
        mt, cls, fields = G.CASES[base]
        fields = dict(fields, **{field: layers})
        for k, v in extra.items():
            if v is None:
                fields.pop(k, None)
            else:
                fields[k] = v
        G.CASES[name] = (mt, cls, fields)
        cfg, model, dtype = G.build_model(name)
        args, kwargs = G.example_inputs(name, cfg)
        masked = name.endswith("_mask")
        if masked:
            from torch.export import Dim
            mask = torch.ones(G.B, G.S, dtype=torch.long)
            b, s = Dim("batch", min=1, max=1024), Dim("seq", min=2, max=cfg.max_position_embeddings)
            ep = torch.export.export(model, (args[0], mask), dynamic_shapes=({0: b, 1: s}, {0: b, 1: s}), strict=False)
        else:
            ep = G.export_dynamic(mt, cfg, model, args, kwargs)
        with open(os.path.join(a.out, name + ".config.json"), "w") as f:
            json.dump(G.config_dict(name, cfg, dtype), f, indent=1, sort_keys=True, default=str)
            f.write("\n")
        with open(os.path.join(a.out, name + ".inputs.json"), "w") as f:
            json.dump(dict({"batch": G.B, "seq": G.S}, **({"attention_mask": True} if masked else {})), f)
            f.write("\n")
        with open(os.path.join(a.out, name + "_dyn.txt"), "w") as f:
            f.write(G.stable(str(ep)))
        print(name, "ok", len(ep.graph.nodes), "nodes")


if __name__ == "__main__":
    main()
