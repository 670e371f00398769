"""HuggingFace transformers 5.12 answers for the model zoo (tests/test_zoo_*.cpp).

For every tests/fixtures/zoo/configs/NAME.json (and configs/*.json, the real published configs):
  tests/fixtures/zoo/state_dicts/NAME.json: the model class, num_parameters() (tied counted once),
  state_dict() names/shapes/dtypes in order, and non-persistent buffers (name, shape, dtype),
  built on the meta device (instant even for 405B). A config may carry "_fe_dtype" (e.g.
  "bfloat16"): the model is then built with that default dtype, as from_config(dtype=...) does.
For configs named tiny_*.json also tests/fixtures/zoo/eager/NAME/: model.safetensors written by
  save_pretrained (tied weights once, HF's way) from seeded random weights, and io.safetensors with
  the example inputs and the eager outputs (the ModelOutput's tensors in order, as torch.export
  returns them: VisionEncoderDecoder has no pooler_output there; use_cache=False).
Usage: tools/oracle/run tools/oracle/scripts/gen_zoo.py [--out DIR] [NAME ...]
(--out: write under DIR instead of tests/fixtures/zoo, for tools/oracle/check-fixtures)"""
import glob
import json
import os
import sys

import torch
import transformers
from safetensors.torch import save_file

# One class per model_type (documented in docs/zoo.md): the deployable model of each family.
CLASSES = {
    "gpt2": "GPT2LMHeadModel",
    "llama": "LlamaForCausalLM",
    "mistral": "MistralForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "gemma": "GemmaForCausalLM",
    "gemma2": "Gemma2ForCausalLM",
    "gemma3_text": "Gemma3ForCausalLM",
    "clip": "CLIPModel",
    "whisper": "WhisperForConditionalGeneration",
    "mixtral": "MixtralForCausalLM",
    "phi3": "Phi3ForCausalLM",
    "gpt_neox": "GPTNeoXForCausalLM",
    "qwen2_moe": "Qwen2MoeForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM",
    "deepseek_v3": "DeepseekV3ForCausalLM",
    "falcon": "FalconForCausalLM",
    "t5": "T5ForConditionalGeneration",
    "bert": "BertModel",
    "vit": "ViTForImageClassification",
    "vision-encoder-decoder": "VisionEncoderDecoderModel",
    "blenderbot": "BlenderbotForConditionalGeneration",
}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def load_config(path):
    raw = json.load(open(path))
    dtype = DTYPES[raw.pop("_fe_dtype", "float32")]
    mt = raw["model_type"]
    if mt == "vision-encoder-decoder":
        cfg = transformers.VisionEncoderDecoderConfig.from_dict(raw)
    else:
        cfg = transformers.AutoConfig.for_model(**raw)
    return mt, cfg, dtype


def build(mt, cfg, dtype, device):
    cls = getattr(transformers, CLASSES[mt])
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            m = cls(cfg)
    finally:
        torch.set_default_dtype(old)
    return m.eval()


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def state_dict_fixture(name, path):
    mt, cfg, dtype = load_config(path)
    m = build(mt, cfg, dtype, "meta")
    sd = m.state_dict()
    persistent = set(sd.keys())
    return {
        "config": os.path.relpath(path),
        "class": CLASSES[mt],
        "num_parameters": m.num_parameters(),
        "state_dict": [[k, list(v.shape), dtype_name(v)] for k, v in sd.items()],
        "nonpersistent_buffers": [[k, list(v.shape), dtype_name(v)] for k, v in m.named_buffers() if k not in persistent],
    }


def example_inputs(mt, cfg, g):
    def ids(b, s, vocab):
        return torch.randint(0, vocab, (b, s), generator=g)

    if mt == "vit":
        return {"pixel_values": torch.randn(2, cfg.num_channels, cfg.image_size, cfg.image_size, generator=g)}
    if mt == "vision-encoder-decoder":
        e = cfg.encoder
        return {"pixel_values": torch.randn(2, e.num_channels, e.image_size, e.image_size, generator=g),
                "decoder_input_ids": ids(2, 7, cfg.decoder.vocab_size)}
    if mt in ("blenderbot", "t5"):
        return {"input_ids": ids(2, 7, cfg.vocab_size), "decoder_input_ids": ids(2, 5, cfg.vocab_size)}
    if mt == "whisper":  # mel features of 2 * max_source_positions frames, then the decoder's tokens
        return {"input_features": torch.randn(2, cfg.num_mel_bins, 2 * cfg.max_source_positions, generator=g),
                "decoder_input_ids": ids(2, 5, cfg.vocab_size)}
    if mt == "clip":  # texts ending with the eos token (pooled there), then images
        t, v = cfg.text_config, cfg.vision_config
        input_ids = ids(2, 7, t.eos_token_id)
        input_ids[:, -1] = t.eos_token_id
        return {"input_ids": input_ids,
                "pixel_values": torch.randn(2, v.num_channels, v.image_size, v.image_size, generator=g)}
    return {"input_ids": ids(2, 7, cfg.vocab_size)}


def eager_fixture(name, path, out_dir):
    mt, cfg, dtype = load_config(path)
    torch.manual_seed(0)
    m = build(mt, cfg, dtype, "cpu")
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        # Random values everywhere (norm weights and biases too) so a swapped tensor shows.
        for p in m.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.2)
        inputs = example_inputs(mt, cfg, g)
        kwargs = dict(inputs)
        if mt not in ("vit", "bert", "clip"):
            kwargs["use_cache"] = False
        outs = m(**kwargs)

    def tensors(output):  # nested outputs (CLIP's text_model_output, a tuple) flattened, as export returns them
        for o in output:
            if isinstance(o, torch.Tensor):
                yield o
            elif isinstance(o, tuple):
                yield from tensors(o)
    outs = list(tensors(outs.to_tuple()))
    os.makedirs(out_dir, exist_ok=True)
    m.save_pretrained(out_dir, safe_serialization=True)
    for f in os.listdir(out_dir):
        if f not in ("model.safetensors",):
            os.remove(os.path.join(out_dir, f))
    io = {"input_%d_%s" % (i, k): v.contiguous() for i, (k, v) in enumerate(inputs.items())}
    io.update({"output_%d" % i: o.contiguous() for i, o in enumerate(outs)})
    save_file(io, os.path.join(out_dir, "io.safetensors"))
    return [list(o.shape) for o in outs]


def dump(fx):
    """One state_dict entry per line: reviewable diffs."""
    lines = ["{"]
    for k in ("config", "class", "num_parameters"):
        lines.append(" %s: %s," % (json.dumps(k), json.dumps(fx[k])))
    for k in ("state_dict", "nonpersistent_buffers"):
        rows = [json.dumps(e) for e in fx[k]]
        lines.append(' "%s": [' % k + ("\n  " + ",\n  ".join(rows) + "\n " if rows else "") + "]" + ("," if k == "state_dict" else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(names, out="tests/fixtures/zoo"):
    # Gemma 3 registers its rotary buffers in the order of a Python set of strings, which depends on
    # the process's hash seed: fix it, so the fixtures do not flap between runs.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    paths = sorted(glob.glob("tests/fixtures/zoo/configs/*.json")) + sorted(glob.glob("configs/*.json"))
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        if names and name not in names:
            continue
        if json.load(open(path))["model_type"] not in CLASSES:
            continue
        fx = state_dict_fixture(name, path)
        os.makedirs(os.path.join(out, "state_dicts"), exist_ok=True)
        with open(os.path.join(out, "state_dicts", "%s.json" % name), "w") as f:
            f.write(dump(fx))
        msg = "%s: %s, %d parameters, %d state_dict entries" % (name, fx["class"], fx["num_parameters"], len(fx["state_dict"]))
        if name.startswith("tiny_"):
            shapes = eager_fixture(name, path, os.path.join(out, "eager", name))
            msg += ", eager outputs %s" % shapes
        print(msg)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--out"]:
        main(args[2:], args[1])
    else:
        main(args)
