"""Golden prints for the zoo's node-for-node equality (issue 15): PyTorch 2.14's torch.export of the
transformers 5.12 model, in eval mode with its default (sdpa) attention, for tiny configs.

    tools/oracle/run tools/oracle/scripts/gen_zoo_golden.py [--out DIR]

Per case NAME, in DIR (default tests/fixtures/zoo_golden):
  NAME.config.json  the model's config (config.to_dict(): every field, defaults included; `dtype` the
                    default dtype the model was built under), which
                    `fakeexport export NAME.config.json --batch 2 --seq 8` reads
  NAME.txt          str(torch.export.export(model, (input_ids,), strict=False)) for input_ids of
                    shape [2, 8] (the zoo's example input); NAME_dyn.txt (the same config) with
                    dynamic_shapes {0: Dim("batch", min=1, max=1024), 1: Dim("seq", min=2,
                    max=max_position_embeddings)}, what `fakeexport export --dynamic batch,seq` uses
                    (ViT: the batch of pixel_values; vision-encoder-decoder: one batch, the decoder's
                    tokens as seq; Blenderbot: one batch, encoder and decoder lengths apart)
  NAME.module_stack.txt  every node's nn_module_stack (module paths and classes), graph by graph
  NAME.decomposed.txt  str(ep.run_decompositions()) of the static export (issue 14's zoo criterion), or
                    NAME.decompose_error.txt, the first line of the error it raises (GPT-2: a view of
                    the sdpa output that export recorded after a no-op contiguous)
  NAME_mask.txt, NAME_mask_dyn.txt  the export of model(input_ids, attention_mask) (all ones), static
                    and dynamic: `fakeexport export --attention-mask`
"""
import argparse
import json
import os
import re
import sys

import torch
import transformers

torch.set_num_threads(1)
V, B, S = 128, 2, 8


def llm(**kw):
    c = dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
             num_key_value_heads=1, max_position_embeddings=64, use_cache=False, pad_token_id=0)
    c.update(kw)
    return c


# name: (model_type, class, config fields)
CASES = {
    "llama": ("llama", "LlamaForCausalLM", llm()),
    "llama_mha_bias": ("llama", "LlamaForCausalLM", llm(num_key_value_heads=2, attention_bias=True, head_dim=8,
                                                        num_attention_heads=4, pad_token_id=None)),
    "qwen2": ("qwen2", "Qwen2ForCausalLM", llm()),
    # Qwen2.5's long-context yarn rope (attention factor 0.1 ln(4) + 1 on cos and sin)
    "qwen2_yarn": ("qwen2", "Qwen2ForCausalLM", llm(rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                                                 "original_max_position_embeddings": 16})),
    # DeepSeek-style yarn: mscale / mscale_all_dim, beta_fast / beta_slow, no truncation
    "llama_yarn_mscale": ("llama", "LlamaForCausalLM",
                          llm(head_dim=16, rope_scaling={"rope_type": "yarn", "factor": 40.0, "mscale": 1.0,
                                                         "mscale_all_dim": 0.707, "beta_fast": 16, "beta_slow": 2,
                                                         "original_max_position_embeddings": 8,
                                                         "truncate": False})),
    "mistral": ("mistral", "MistralForCausalLM", llm(sliding_window=4)),
    "qwen3": ("qwen3", "Qwen3ForCausalLM", llm(head_dim=16)),
    "gemma": ("gemma", "GemmaForCausalLM", llm(head_dim=16)),
    "llama_bf16": ("llama", "LlamaForCausalLM", llm(hidden_size=64, head_dim=16, num_attention_heads=4,
                                                    num_key_value_heads=2, _fe_dtype="bfloat16")),
    "gemma_bf16": ("gemma", "GemmaForCausalLM", llm(head_dim=16, _fe_dtype="bfloat16")),
    "mixtral": ("mixtral", "MixtralForCausalLM", llm(num_local_experts=4, num_experts_per_tok=2)),
    # bfloat16 weights: the experts run torch._grouped_mm instead of transformers' custom op
    "mixtral_bf16": ("mixtral", "MixtralForCausalLM", llm(num_local_experts=4, num_experts_per_tok=2, hidden_size=64,
                                                          intermediate_size=32, _fe_dtype="bfloat16")),
    "qwen3_moe": ("qwen3_moe", "Qwen3MoeForCausalLM", llm(head_dim=16, num_experts=4, num_experts_per_tok=2,
                                                         moe_intermediate_size=32, mlp_only_layers=[1])),
    "qwen3_moe_bf16": ("qwen3_moe", "Qwen3MoeForCausalLM", llm(num_experts=4, num_experts_per_tok=2, hidden_size=64,
                                                              moe_intermediate_size=32, norm_topk_prob=True,
                                                              _fe_dtype="bfloat16")),
    "qwen2_moe": ("qwen2_moe", "Qwen2MoeForCausalLM", llm(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                                                         shared_expert_intermediate_size=48, mlp_only_layers=[1])),
    "qwen2_moe_window": ("qwen2_moe", "Qwen2MoeForCausalLM", llm(num_experts=4, num_experts_per_tok=2,
                                                                moe_intermediate_size=32, shared_expert_intermediate_size=48,
                                                                use_sliding_window=True, sliding_window=4,
                                                                max_window_layers=2, qkv_bias=False)),
    "phi3": ("phi3", "Phi3ForCausalLM", llm(pad_token_id=None)),
    # Phi-4-mini's partial rotary (half of each head here), a window on every layer, resid dropout p
    "phi3_partial": ("phi3", "Phi3ForCausalLM", llm(pad_token_id=None, num_attention_heads=4, num_key_value_heads=2,
                                                    partial_rotary_factor=0.5, sliding_window=4, resid_pdrop=0.1)),
    "gemma2": ("gemma2", "Gemma2ForCausalLM", llm(head_dim=16, sliding_window=4, query_pre_attn_scalar=16)),
    "gemma2_bf16": ("gemma2", "Gemma2ForCausalLM", llm(head_dim=16, num_hidden_layers=3, sliding_window=4,
                                                      query_pre_attn_scalar=24, final_logit_softcapping=None,
                                                      _fe_dtype="bfloat16")),
    # Gemma 3 (text): windows on layers 0 and 2 (sliding_window_pattern 2), q/k norms, a rotary pair per
    # layer type (local base 10000, global 1e6)
    "gemma3_text": ("gemma3_text", "Gemma3ForCausalLM", llm(head_dim=16, num_hidden_layers=3, sliding_window=4,
                                                           sliding_window_pattern=2, query_pre_attn_scalar=16)),
    # Gemma 3 4B's linear rope scaling on the global layers, soft-capped logits, bfloat16
    "gemma3_text_bf16": ("gemma3_text", "Gemma3ForCausalLM",
                         llm(head_dim=16, num_hidden_layers=4, sliding_window=4, sliding_window_pattern=3,
                             rope_scaling={"rope_type": "linear", "factor": 8.0}, final_logit_softcapping=30.0,
                             num_attention_heads=4, num_key_value_heads=2, _fe_dtype="bfloat16")),
    # CLIP: a causal text tower pooled at the first eos token, a ViT-like vision tower pooled at its
    # class token, both projected and compared (quick_gelu)
    "clip": ("clip", "CLIPModel", dict(text_config=dict(vocab_size=V, hidden_size=32, intermediate_size=64,
                                                        num_hidden_layers=2, num_attention_heads=2,
                                                        max_position_embeddings=16, eos_token_id=V - 1),
                                       vision_config=dict(hidden_size=48, intermediate_size=64, num_hidden_layers=2,
                                                          num_attention_heads=4, image_size=32, patch_size=8),
                                       projection_dim=16)),
    # openai/clip-vit-base-patch32's text config: eos_token_id 2, pooled at the largest token id; gelu
    "clip_eos2": ("clip", "CLIPModel", dict(text_config=dict(vocab_size=V, hidden_size=32, intermediate_size=64,
                                                             num_hidden_layers=1, num_attention_heads=2,
                                                             max_position_embeddings=16, eos_token_id=2,
                                                             hidden_act="gelu"),
                                            vision_config=dict(hidden_size=32, intermediate_size=64,
                                                               num_hidden_layers=1, num_attention_heads=2,
                                                               image_size=16, patch_size=4, num_channels=1),
                                            projection_dim=8)),
    # Whisper: a conv front end over mel features, sinusoid-initialized positions, pre-LN encoder and
    # decoder with cross-attention, proj_out tied to the decoder's embeddings
    "whisper": ("whisper", "WhisperForConditionalGeneration",
                dict(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                     decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=16,
                     max_source_positions=16, max_target_positions=32, use_cache=False, pad_token_id=V - 1,
                     bos_token_id=V - 2, eos_token_id=V - 1, decoder_start_token_id=V - 2,
                     begin_suppress_tokens=None, suppress_tokens=None)),
    "gpt2": ("gpt2", "GPT2LMHeadModel", dict(vocab_size=V, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                                             use_cache=False)),
    "bert": ("bert", "BertModel", dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                       intermediate_size=64, max_position_embeddings=64)),
    "vit": ("vit", "ViTForImageClassification", dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                                     intermediate_size=64, image_size=32, patch_size=8, num_labels=5)),
    "ved": ("vision-encoder-decoder", "VisionEncoderDecoderModel",
            dict(encoder=dict(model_type="vit", hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=64, image_size=32, patch_size=8),
                 decoder=dict(model_type="gpt2", vocab_size=V, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                              add_cross_attention=True, is_decoder=True, use_cache=False))),
    "blenderbot": ("blenderbot", "BlenderbotForConditionalGeneration",
                   dict(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                        use_cache=False)),
    # DeepSeek-V3: MLA (low-rank q and kv, a shared rotary key, interleaved rope), sigmoid router with a
    # correction bias and group-limited top-k, a shared expert, the first layer dense
    "deepseek_v3": ("deepseek_v3", "DeepseekV3ForCausalLM",
                    llm(num_key_value_heads=2, first_k_dense_replace=1, n_routed_experts=4, num_experts_per_tok=2,
                        n_group=2, topk_group=1, moe_intermediate_size=32, kv_lora_rank=16, q_lora_rank=24,
                        qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16)),
    # without q's low rank (q_proj), rope_interleave off, no top-k renormalization, two shared experts,
    # DeepSeek's yarn (mscale_all_dim scales the softmax), attention biases, 8 experts in 4 groups
    "deepseek_v3_lite": ("deepseek_v3", "DeepseekV3ForCausalLM",
                         llm(num_attention_heads=4, num_key_value_heads=4, first_k_dense_replace=0, n_routed_experts=8,
                             num_experts_per_tok=3, n_group=4, topk_group=2, moe_intermediate_size=16,
                             n_shared_experts=2, kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=4,
                             qk_nope_head_dim=8, v_head_dim=8, rope_interleave=False, norm_topk_prob=False,
                             routed_scaling_factor=1.0, attention_bias=True,
                             rope_scaling={"rope_type": "yarn", "factor": 4.0, "mscale": 1.0, "mscale_all_dim": 1.0,
                                           "beta_fast": 32, "beta_slow": 1, "original_max_position_embeddings": 16})),
    "deepseek_v3_bf16": ("deepseek_v3", "DeepseekV3ForCausalLM",
                         llm(hidden_size=64, num_key_value_heads=2, first_k_dense_replace=1, n_routed_experts=4,
                             num_experts_per_tok=2, n_group=2, topk_group=1, moe_intermediate_size=32, kv_lora_rank=16,
                             q_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16,
                             _fe_dtype="bfloat16")),
    # T5: eager attention with relative position buckets (computed in each stack's first layer, shared
    # by the others), float masks, RMS layer norms, eval dropouts, tied head scaled by d_model ** -0.5
    "t5": ("t5", "T5ForConditionalGeneration",
           dict(vocab_size=V, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2, relative_attention_num_buckets=8,
                relative_attention_max_distance=16, use_cache=False)),
    # T5 v1.1 / Flan-T5: gated-gelu feed-forward, tie_word_embeddings false (no output scaling), fewer
    # decoder layers than encoder layers, no dropout
    "t5_gated": ("t5", "T5ForConditionalGeneration",
                 dict(vocab_size=V, d_model=32, d_kv=8, d_ff=48, num_layers=3, num_decoder_layers=1, num_heads=4,
                      feed_forward_proj="gated-gelu", tie_word_embeddings=False, dropout_rate=0.0, use_cache=False)),
    # T5 in bfloat16 (T5LayerNorm casts back to the half weight's dtype) and in float16 (each block
    # clamps its hidden states where they overflow)
    "t5_bf16": ("t5", "T5ForConditionalGeneration",
                dict(vocab_size=V, d_model=32, d_kv=8, d_ff=48, num_layers=2, num_heads=4, feed_forward_proj="gated-gelu",
                     relative_attention_num_buckets=8, relative_attention_max_distance=16, use_cache=False,
                     _fe_dtype="bfloat16")),
    "t5_fp16": ("t5", "T5ForConditionalGeneration",
                dict(vocab_size=V, d_model=32, d_kv=8, d_ff=48, num_layers=2, num_heads=4,
                     relative_attention_num_buckets=8, relative_attention_max_distance=16, use_cache=False,
                     _fe_dtype="float16")),
    "gpt_neox": ("gpt_neox", "GPTNeoXForCausalLM", dict(vocab_size=V, hidden_size=32, intermediate_size=64,
                                                         num_hidden_layers=2, num_attention_heads=2,
                                                         max_position_embeddings=64, use_cache=False)),
    "gpt_neox_sequential": ("gpt_neox", "GPTNeoXForCausalLM", dict(vocab_size=V, hidden_size=32, intermediate_size=64,
                                                                    num_hidden_layers=2, num_attention_heads=2,
                                                                    max_position_embeddings=64, use_cache=False,
                                                                    use_parallel_residual=False, hidden_dropout=0.1,
                                                                    partial_rotary_factor=1.0)),
    # Falcon-7B's shape (multi-query, parallel attention + MLP from one LayerNorm, rotary); -40B/180B's
    # (new_decoder_architecture: grouped kv heads, ln_attn and ln_mlp); Falcon-RW's layer order
    # (sequential, a kv head per head, biases) with rotary.
    "falcon": ("falcon", "FalconForCausalLM", dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                   max_position_embeddings=64, use_cache=False)),
    "falcon_40b": ("falcon", "FalconForCausalLM", dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                       num_kv_heads=2, new_decoder_architecture=True,
                                                       max_position_embeddings=64, use_cache=False, ffn_hidden_size=48)),
    "falcon_sequential": ("falcon", "FalconForCausalLM", dict(vocab_size=V, hidden_size=32, num_hidden_layers=2,
                                                              num_attention_heads=4, multi_query=False, parallel_attn=False,
                                                              bias=True, hidden_dropout=0.1, max_position_embeddings=64,
                                                              use_cache=False, activation="gelu_new")),
    # Falcon-RW-1B's layout: ALiBi instead of rotary (the bias folded into a float mask), sequential.
    "falcon_rw": ("falcon", "FalconForCausalLM", dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                      alibi=True, multi_query=False, parallel_attn=False, bias=True,
                                                      max_position_embeddings=64, use_cache=False)),
}

DYNAMIC = {"llama", "qwen2", "mistral", "qwen3", "gemma", "mixtral", "qwen3_moe", "qwen2_moe", "phi3", "gemma2", "gemma3_text", "gpt2", "bert", "gpt_neox", "clip", "whisper",
           "vit", "ved", "blenderbot", "deepseek_v3", "t5", "falcon", "falcon_rw"}
MASKED = {"llama", "mistral", "gemma", "mixtral", "qwen3_moe", "qwen2_moe", "phi3", "gemma2", "gemma3_text", "deepseek_v3"}  # not falcon: its padding mask is indexed in a vmap (flat_apply)


def module_stacks(ep):
    """One line per node that has an nn_module_stack, graph by graph (subgraphs by their name):
    `graph node: path=type | path=type ...` (the frames' (fqn, class) values in order)."""
    lines = []
    graphs = [("", ep.graph_module)] + [(n, m) for n, m in ep.graph_module.named_children()]
    for gname, gm in graphs:
        for n in gm.graph.nodes:
            st = n.meta.get("nn_module_stack")
            if st:
                frames = " | ".join("%s=%s" % (v[0], v[1] if isinstance(v[1], str) else v[1].__module__ + "." + v[1].__qualname__)
                                    for v in st.values())
                lines.append("%s %s: %s" % (gname or "-", n.name, frames))
    return "\n".join(lines) + "\n"


def stable(text):
    """The print with FX's process-wide <eval_with_key>.N counter replaced, so a file does not depend
    on which cases ran before it (--only)."""
    return re.sub(r"<eval_with_key>\.\d+", "<eval_with_key>.N", text)


def build_model(name):
    """(config, model in eval mode, dtype name) of case NAME, seeded (torch.manual_seed(0)) and built
    under the case's default dtype, as from_config(dtype=...) builds it."""
    mt, cls, fields = CASES[name]
    torch.manual_seed(0)
    fields = dict(fields)
    dtype = fields.pop("_fe_dtype", "float32")
    if mt == "vision-encoder-decoder":
        sub = {k: transformers.AutoConfig.for_model(f.pop("model_type"), **f)
               for k, f in ((k, dict(fields[k])) for k in ("encoder", "decoder"))}
        cfg = transformers.VisionEncoderDecoderConfig.from_encoder_decoder_configs(sub["encoder"], sub["decoder"])
    else:
        cfg = transformers.AutoConfig.for_model(mt, **fields)
    # as from_config(dtype=...) builds it: under that default dtype
    torch.set_default_dtype(getattr(torch, dtype))
    model = getattr(transformers, cls)(cfg).eval()
    torch.set_default_dtype(torch.float32)
    return cfg, model, dtype


def example_inputs(name, cfg, batch=B, seq=S):
    """(args, kwargs) of the static export of case NAME (from a generator seeded 0): input_ids
    [batch, seq]; ViT: pixel_values [batch, C, H, W] (the config's image size; seq unused);
    vision-encoder-decoder: (pixel_values, decoder_input_ids [batch, seq]); Blenderbot: input_ids and
    decoder_input_ids (by name), both [batch, seq]."""
    mt = CASES[name][0]
    g = torch.Generator().manual_seed(0)
    vision = cfg.encoder if mt == "vision-encoder-decoder" else cfg
    pixels = lambda: torch.randn(batch, vision.num_channels, vision.image_size, vision.image_size, generator=g)
    if mt == "vit":  # pixel_values [2, C, H, W] (`fakeexport export --batch 2`)
        args = (pixels(),)
    elif mt == "whisper":  # (input_features [2, mel, 2 * max_source_positions]), decoder_input_ids [2, 8] by name
        args = (torch.randn(batch, cfg.num_mel_bins, 2 * cfg.max_source_positions, generator=g),)
    elif mt == "clip":  # (input_ids [2, 8], pixel_values [2, C, H, W])
        ids = torch.randint(3, V - 1, (batch, seq), generator=g)
        ids[:, -1] = V - 1  # the texts end with the eos token, as a tokenizer writes them
        vision = cfg.vision_config
        args = (ids, torch.randn(batch, vision.num_channels, vision.image_size, vision.image_size, generator=g))
    elif mt == "vision-encoder-decoder":  # (pixel_values, decoder_input_ids [2, 8])
        args = (pixels(), torch.randint(3, V, (batch, seq), generator=g))
    else:
        args = (torch.randint(3, V, (batch, seq), generator=g),)
    kwargs = {}
    if mt in ("blenderbot", "whisper", "t5"):  # forward(x, attention_mask, decoder_input_ids, ...): by name
        kwargs["decoder_input_ids"] = torch.randint(3, V, (batch, seq), generator=g)
    return args, kwargs


def export_dynamic(mt, cfg, model, args, kwargs):
    """torch.export of the case with its batch and seq dynamic (each family's inputs and ranges)."""
    from torch.export import Dim
    batch = Dim("batch", min=1, max=1024)
    if mt == "vit":  # pixel_values: the batch only
        return torch.export.export(model, args, dynamic_shapes=({0: batch},), strict=False)
    elif mt == "vision-encoder-decoder":  # one batch; the decoder's tokens are the seq
        dec = cfg.decoder.max_position_embeddings
        ds = ({0: batch}, {0: batch, 1: Dim("seq", min=2, max=dec)})
        return torch.export.export(model, args, dynamic_shapes=ds, strict=False)
    elif mt == "whisper":  # one batch; the features' length is fixed, the decoder's tokens are the seq
        seq = Dim("seq", min=2, max=cfg.max_target_positions)
        ds = {"input_features": {0: batch}, "decoder_input_ids": {0: batch, 1: seq}}
        return torch.export.export(model, args, kwargs, dynamic_shapes=ds, strict=False)
    elif mt == "clip":  # one batch for texts and images; the texts' length up to the positions
        seq = Dim("seq", min=2, max=cfg.text_config.max_position_embeddings)
        return torch.export.export(model, args, dynamic_shapes=({0: batch, 1: seq}, {0: batch}), strict=False)
    elif mt == "t5":  # one batch; encoder and decoder lengths apart, unbounded (relative positions)
        ds = {"input_ids": {0: batch, 1: Dim("seq", min=2)}, "decoder_input_ids": {0: batch, 1: Dim("decoder_seq", min=2)}}
        return torch.export.export(model, args, kwargs, dynamic_shapes=ds, strict=False)
    elif mt == "blenderbot":  # one batch; encoder and decoder lengths apart
        m = cfg.max_position_embeddings
        ds = {"input_ids": {0: batch, 1: Dim("seq", min=2, max=m)},
              "decoder_input_ids": {0: batch, 1: Dim("decoder_seq", min=2, max=m)}}
        return torch.export.export(model, args, kwargs, dynamic_shapes=ds, strict=False)
    else:
        ds = ({0: batch, 1: Dim("seq", min=2, max=cfg.max_position_embeddings)},)
        return torch.export.export(model, (args[0],), dynamic_shapes=ds, strict=False)


def config_dict(name, cfg, dtype):
    """NAME.config.json's content (before json.dump(..., default=str)): config.to_dict() with the
    architecture and the dtype the model was built under."""
    d = cfg.to_dict()
    d["architectures"] = [CASES[name][1]]
    d["dtype"] = dtype
    return d


def main():
    # Gemma 3 registers and calls its rotary pairs in the order of a Python set of strings, which
    # depends on the process's hash seed: fix it, so the golden files do not flap between runs.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/zoo_golden")
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, (mt, cls, fields) in CASES.items():
        if a.only and name not in a.only.split(","):
            continue
        cfg, model, dtype = build_model(name)
        args, kwargs = example_inputs(name, cfg)
        ids = args[0]
        ep = torch.export.export(model, args, kwargs, strict=False)
        with open(os.path.join(a.out, name + ".config.json"), "w") as f:
            json.dump(config_dict(name, cfg, dtype), f, indent=1, sort_keys=True, default=str)
            f.write("\n")
        with open(os.path.join(a.out, name + ".txt"), "w") as f:
            f.write(stable(str(ep)))
        with open(os.path.join(a.out, name + ".module_stack.txt"), "w") as f:
            f.write(module_stacks(ep))
        try:
            decomposed = str(ep.run_decompositions())
        except Exception as e:  # noqa: BLE001 - PyTorch's own failure is the golden answer (GPT-2)
            with open(os.path.join(a.out, name + ".decompose_error.txt"), "w") as f:
                f.write(str(e).splitlines()[0] + "\n")
        else:
            with open(os.path.join(a.out, name + ".decomposed.txt"), "w") as f:
                f.write(stable(decomposed))
        print(name, "ok", len(ep.graph.nodes), "nodes")
        if name in DYNAMIC:
            ep = export_dynamic(mt, cfg, model, args, kwargs)
            with open(os.path.join(a.out, name + "_dyn.txt"), "w") as f:
                f.write(stable(str(ep)))
            print(name + "_dyn", "ok", len(ep.graph.nodes), "nodes")
        if name in MASKED:
            from torch.export import Dim
            mask = torch.ones(B, S, dtype=torch.long)
            # Falcon's second parameter is past_key_values: the mask goes by name
            margs, mkw = ((ids,), {"attention_mask": mask}) if mt == "falcon" else ((ids, mask), {})
            ep = torch.export.export(model, margs, mkw, strict=False)
            with open(os.path.join(a.out, name + "_mask.txt"), "w") as f:
                f.write(stable(str(ep)))
            b, s = Dim("batch", min=1, max=1024), Dim("seq", min=2, max=cfg.max_position_embeddings)
            ds = {"input_ids": {0: b, 1: s}, "attention_mask": {0: b, 1: s}} if mt == "falcon" else ({0: b, 1: s}, {0: b, 1: s})
            ep = torch.export.export(model, margs, mkw, dynamic_shapes=ds, strict=False)
            with open(os.path.join(a.out, name + "_mask_dyn.txt"), "w") as f:
                f.write(stable(str(ep)))
            print(name + "_mask", "ok")


if __name__ == "__main__":
    main()
