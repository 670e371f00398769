"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch and transformers), from the
repository root; what tests/fixtures/cuda/zoo_dyn came from (H100, PyTorch 2.11 CUDA 13,
transformers 5.17, 2026-11-27):
    python3 tools/device/capture_sdpa_dynamic.py --out OUT; tar czf $OUT/zoo_dyn.tgz -C OUT zoo_dyn
(the device tool brings back few files: bring the tarball). Later captures in the same directory:
--cases deepseek_v3,deepseek_v3_mask,deepseek_v3_lite,deepseek_v3_bf16 --hints 8,7,12 (and
--multiple 8 --hints 8), and --cases falcon,falcon_rw --hints 8,7,16 (and --multiple 8 --hints 16,24),
both on an H100 (PyTorch 2.11, transformers 5.17), 2026-11-27. The printed captures of the models
whose graph 5.17 traces otherwise were taken again with transformers 5.12.1 carried to an H200
(tools/device/carry_transformers.sh; PYTHONPATH=$PWD/.tf512), 2026-11-30: --multiple 8 --hints 16,24
--cases llama,llama_bf16,llama_mask,gemma,gemma2_mask,gemma3_text,gpt_neox,mistral,mixtral,phi3,
qwen2_moe,qwen3_moe,falcon,falcon_rw,deepseek_v3_lite,deepseek_v3,deepseek_v3_mask; --hints 16,5,9
--cases gemma_bf16,mixtral_bf16,qwen3_moe_bf16; --hints 12,7,8,16 --cases deepseek_v3_bf16,falcon. A dynamic sequence length that exports
on CPU can be refused on CUDA: the memory-efficient kernel pads an attention mask whose strides are
symbolic to 8 columns, and the padded size's `% 8` ends in a guard export's solver cannot prove
("Constraints violated (seq)! ... seq = 8*_seq"). tools/device/probe_guard_origin.py shows where
PyTorch asks for it. Writes, in OUT:
  zoo_dyn/NAME_hH.txt or NAME_hH.error.txt
                    the zoo's golden cases (tools/oracle/scripts/gen_zoo_golden.py) moved to cuda:0
                    and exported with dynamic batch and seq as that script does on cpu, from example
                    inputs of seq length H: PyTorch's print, or its error in full;
  zoo_dyn/NAME_mM_hH.*  (--multiple M) the same with seq as M*_seq, the fix PyTorch suggests.
Everything is written as it is measured, so a run stopped at its budget keeps what it has.
--dry-cpu tries the script on cpu (measures nothing)."""
import argparse
import itertools
import os
import runpy
import sys
import time

import torch

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def zoo_dynamic(out, dev, cases, hints, deadline, multiple=1):
    from torch.export import Dim
    d = os.path.join(out, "zoo_dyn")
    os.makedirs(d, exist_ok=True)
    g = runpy.run_path(os.path.join(REPO, "tools", "oracle", "scripts", "gen_zoo_golden.py"), run_name="gen_zoo_golden")
    mv = lambda t: t.to(dev) if isinstance(t, torch.Tensor) else t
    tag = "_m%d" % multiple if multiple > 1 else ""
    for name, h in itertools.product(cases, hints):
        if time.time() > deadline:
            print("zoo_dyn: stopped at the budget", flush=True)
            return
        masked = name.endswith("_mask")
        base = name[: -len("_mask")] if masked else name
        mt = g["CASES"][base][0]
        cfg, model, dtype = g["build_model"](base)
        model = model.to(dev)
        args, kwargs = g["example_inputs"](base, cfg, seq=h)
        args, kwargs = tuple(mv(a) for a in args), {k: mv(v) for k, v in kwargs.items()}
        batch = Dim("batch", min=1, max=1024)

        def seq_dim(name, hi):  # Dim(name), or PyTorch's suggested fix multiple*_name
            if multiple == 1:
                return Dim(name, min=2, max=hi)
            return multiple * Dim("_" + name, min=1, max=hi // multiple)
        try:  # the dynamic_shapes gen_zoo_golden.py gives each kind
            if masked:
                mask = torch.ones(args[0].shape, dtype=torch.long, device=dev)
                b, s = Dim("batch", min=1, max=1024), seq_dim("seq", cfg.max_position_embeddings)
                ep = torch.export.export(model, (args[0], mask), dynamic_shapes=({0: b, 1: s}, {0: b, 1: s}), strict=False)
            elif mt == "vit":
                ep = torch.export.export(model, args, dynamic_shapes=({0: batch},), strict=False)
            elif mt == "vision-encoder-decoder":
                ds = ({0: batch}, {0: batch, 1: seq_dim("seq", cfg.decoder.max_position_embeddings)})
                ep = torch.export.export(model, args, dynamic_shapes=ds, strict=False)
            elif mt == "whisper":
                seq = seq_dim("seq", cfg.max_target_positions)
                ds = {"input_features": {0: batch}, "decoder_input_ids": {0: batch, 1: seq}}
                ep = torch.export.export(model, args, kwargs, dynamic_shapes=ds, strict=False)
            elif mt == "clip":
                seq = seq_dim("seq", cfg.text_config.max_position_embeddings)
                ep = torch.export.export(model, args, dynamic_shapes=({0: batch, 1: seq}, {0: batch}), strict=False)
            elif mt == "blenderbot":
                m = cfg.max_position_embeddings
                ds = {"input_ids": {0: batch, 1: seq_dim("seq", m)},
                      "decoder_input_ids": {0: batch, 1: seq_dim("decoder_seq", m)}}
                ep = torch.export.export(model, args, kwargs, dynamic_shapes=ds, strict=False)
            else:
                ds = ({0: batch, 1: seq_dim("seq", cfg.max_position_embeddings)},)
                ep = torch.export.export(model, args[:1], dynamic_shapes=ds, strict=False)
        except Exception as e:  # noqa: BLE001 - PyTorch's refusal is the answer
            with open(os.path.join(d, "%s%s_h%d.error.txt" % (name, tag, h)), "w") as f:
                f.write("%s: %s\n" % (type(e).__name__, str(e).strip()))
            print("zoo_dyn", name, h, "error", flush=True)
            continue
        with open(os.path.join(d, "%s%s_h%d.txt" % (name, tag, h)), "w") as f:
            f.write(g["stable"](str(ep)))
        print("zoo_dyn", name, h, "ok", flush=True)


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":  # as gen_zoo_golden.py: Gemma 3's set order
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "cuda"))
    ap.add_argument("--budget-s", type=float, default=300)
    ap.add_argument("--dry-cpu", action="store_true")
    ap.add_argument("--cases", default="llama,llama_bf16,qwen3,gemma2,gemma2_bf16,phi3,gpt_neox,gpt2,mistral,bert,whisper,"
                                       "clip,vit,ved,blenderbot,llama_mask,gemma2_mask,qwen2,gemma,mixtral,qwen3_moe,"
                                       "qwen2_moe,gemma3_text")
    ap.add_argument("--hints", default="8,7,12")
    ap.add_argument("--multiple", type=int, default=1,
                    help="M > 1: seq as M*_seq, PyTorch's suggested fix (files NAME_mM_hH)")
    a = ap.parse_args()
    dev = "cpu" if a.dry_cpu else "cuda"
    if not a.dry_cpu:
        assert torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
    start = time.time()
    os.makedirs(a.out, exist_ok=True)
    zoo_dynamic(a.out, dev, a.cases.split(","), [int(h) for h in a.hints.split(",")], start + a.budget_s, a.multiple)
    print("done in %.1f s" % (time.time() - start), flush=True)


if __name__ == "__main__":
    main()
