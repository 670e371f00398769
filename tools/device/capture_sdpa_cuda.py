"""Run on a lent GPU machine (its python3 has a CUDA build of PyTorch and transformers), from the
repository root. What the committed fixtures in tests/fixtures/cuda/ came from (H200, PyTorch 2.11
CUDA 13, cuDNN 9.19, transformers 5.17, 2026-11-26):
    python3 tools/device/capture_sdpa_cuda.py --out OUT                  # default kernel order
    TORCH_CUDNN_SDPA_DEPRIORITIZED=1 python3 tools/device/capture_sdpa_cuda.py --out OUT2 \
        --skip zoo --choice-file sdpa_choice_cudnn_last.json             # the order sm80 has
then, anywhere (no GPU): move OUT2/sdpa_export to OUT/sdpa_export_cudnn_last and
    python3 tools/device/capture_sdpa_cuda.py --out OUT --skip choice,export,zoo --summarize
Issue 14's device-specific lowering of attention: which kernel PyTorch picks for
scaled_dot_product_attention on this GPU, and what that does to an exported program. Writes, in OUT:
  sdpa_env.json     torch/cuDNN versions, the GPU, its compute capability, SDPBackend's values and the
                    backend priority order in force;
  sdpa_choice.json  torch._fused_sdp_choice over a grid of cuda calls (tiny real tensors: dtype, head
                    dims, layout of q/k/v, mask kind, heads and GQA, sequence lengths, requires_grad,
                    dropout): one row per call, "key": choice (the key spells the call, see `key()`),
                    so a C++ chooser can be compared with it call by call;
  sdpa_export/CASE.txt, CASE.decomposed.txt, CASE.strides.json
                    an HF-shaped attention block (q/k/v projections, view + transpose, sdpa, transpose
                    + reshape, out projection) exported on cuda:0 (real, tiny tensors), its
                    run_decompositions(), and every node's (shape, stride) in both programs;
  sdpa_strides.json (--summarize) the sdpa node's sizes and strides per case and order, from the two
                    sdpa_export directories: what tests/test_sdp_choice.cpp compares;
  pt2/NAME.pt2, NAME.txt, NAME.decomposed.pt2, NAME.decomposed.txt (--pt2)
                    torch.export.save of attention blocks on each kernel and three zoo cases, exported
                    on cuda:0, and of their decompositions: CUDA archives for our reader and verifier;
  zoo/NAME.txt, NAME.decomposed.txt
                    the zoo's golden cases (tools/oracle/scripts/gen_zoo_golden.py), the transformers
                    model moved to cuda:0 and exported there, as on cpu in tests/fixtures/zoo_golden
                    (tests/fixtures/cuda/zoo: all 43, `--skip choice,export` with transformers 5.12.1
                    carried by tools/device/carry_transformers.sh, H200, 2026-11-30, `# File:` lines
                    removed; tests/test_zoo_cuda.cpp compares every one); --zoo-dynamic NAME,... adds NAME_dyn.txt (or NAME_dyn.error.txt: PyTorch
                    2.11 refuses a dynamic seq on CUDA for the decoders tried).
Everything is written as it is measured, so a run stopped at its budget keeps what it has.
--zoo-only NAME,... limits the zoo part to those cases; tests/fixtures/cuda/zoo_kernels.json came from
`--skip choice,export` runs on an H100 (every case, then --zoo-only the Falcon ones) through
tools/device/summarize_zoo_kernels.py."""
import argparse
import itertools
import json
import os
import re
import runpy
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DEV = "cuda"  # --dry-cpu: "cpu", to try the script where no GPU is lent
DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def env():
    from torch.nn.attention import SDPBackend
    p = torch.cuda.get_device_properties(0)
    out = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "device": p.name, "capability": list(torch.cuda.get_device_capability(0)),
           "backends": {n: int(b) for n, b in SDPBackend.__members__.items()}}
    t = torch.empty(1, 1, 8, 8, dtype=torch.bfloat16, device="cuda")
    torch._fused_sdp_choice(t, t, t)  # the default order is set at the first choice
    try:
        out["priority_order"] = [int(x) for x in torch._C._get_sdp_priority_order()]
    except Exception as e:  # noqa: BLE001 - older builds have no getter
        out["priority_order_error"] = str(e)[:200]
    out["TORCH_CUDNN_SDPA_DEPRIORITIZED"] = os.environ.get("TORCH_CUDNN_SDPA_DEPRIORITIZED")
    for flag in ("flash_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled", "cudnn_sdp_enabled"):
        out[flag] = bool(getattr(torch.backends.cuda, flag)())
    try:
        import transformers
        out["transformers"] = transformers.__version__
    except Exception:  # noqa: BLE001
        out["transformers"] = None
    return out


def qkv(b, h, hkv, lq, lk, dq, dv, layout, dtype, grad):
    """Fake q, k, v on cuda in LAYOUT: bhsd (contiguous), bshd (a (b, s, h, d) tensor transposed, as
    HF's view + transpose gives), packed (q, k, v slices of one (b, s, 3, h, d) projection: offsets)."""
    def one(heads, seq, d, which):
        if layout == "bhsd":
            return torch.empty(b, heads, seq, d, dtype=dtype, device=DEV, requires_grad=grad)
        if layout == "bshd":
            return torch.empty(b, seq, heads, d, dtype=dtype, device=DEV, requires_grad=grad).transpose(1, 2)
        base = torch.empty(b, seq, 3, heads, d, dtype=dtype, device=DEV, requires_grad=grad)
        return base[:, :, which].transpose(1, 2)
    return one(h, lq, dq, 0), one(hkv, lk, dq, 1), one(hkv, lk, dv, 2)


def mask_of(kind, b, lq, lk, dtype):
    if kind in ("none", "causal"):
        return None
    if kind == "bool_b1ls":
        return torch.empty(b, 1, lq, lk, dtype=torch.bool, device=DEV)
    if kind == "bool_11ls":
        return torch.empty(1, 1, lq, lk, dtype=torch.bool, device=DEV)
    if kind == "bool_ls":
        return torch.empty(lq, lk, dtype=torch.bool, device=DEV)
    if kind == "float_b1ls":
        return torch.empty(b, 1, lq, lk, dtype=dtype, device=DEV)
    if kind == "f32_b1ls":
        return torch.empty(b, 1, lq, lk, dtype=torch.float32, device=DEV)
    raise ValueError(kind)


def key(dt, dq, dv, layout, mask, heads, seq, grad, dropout):
    """dtype|dq,dv|layout|mask|h,hkv,gqa|lq,lk|grad|dropout, e.g. bf16|64,64|bshd|causal|4,2,1|8,8|1|0"""
    h, hkv, gqa = heads
    return "%s|%d,%d|%s|%s|%d,%d,%d|%d,%d|%d|%g" % (dt, dq, dv, layout, mask, h, hkv, int(gqa), seq[0], seq[1],
                                                    int(grad), dropout)


def choice_grid(out, deadline, fname):
    heads = [(4, 4, False), (4, 2, True), (4, 1, True), (4, 2, False)]
    dims = [(6, 6), (8, 8), (16, 16), (64, 64), (80, 80), (128, 128), (192, 128), (256, 256), (512, 512)]
    masks = ["none", "causal", "bool_b1ls", "bool_11ls", "bool_ls", "float_b1ls", "f32_b1ls"]
    seqs = [(8, 8), (1, 8), (8, 16), (1, 1), (128, 128)]
    rows = {}
    grid = list(itertools.product(DT, dims, ["bhsd", "bshd", "packed"], masks, heads, seqs, [False, True], [0.0]))
    grid += list(itertools.product(DT, [(64, 64), (6, 6)], ["bshd"], ["none", "causal", "bool_b1ls"], heads[:2],
                                   [(8, 8), (128, 128)], [False, True], [0.1, 0.125]))
    b = 2
    # Real (tiny, uninitialised) tensors: under FakeTensorMode a direct call answers math for every
    # call (its meta kernel sees meta tensors), while export's run_decompositions reaches the CUDA
    # chooser, as sdpa_export/ shows; the real call is the one that agrees with export.
    for i, (dt, (dq, dv), layout, mk, hh, (lq, lk), grad, dropout) in enumerate(grid):
        if i % 500 == 0 and time.time() > deadline:
            print("choice grid: stopped at the budget after", i, "calls", flush=True)
            break
        if layout == "packed" and dq != dv:
            continue
        q, k, v = qkv(b, hh[0], hh[1], lq, lk, dq, dv, layout, DT[dt], grad)
        m = mask_of(mk, b, lq, lk, DT[dt])
        try:
            c = torch._fused_sdp_choice(q, k, v, m, dropout, mk == "causal", scale=None, enable_gqa=hh[2])
        except Exception as e:  # noqa: BLE001 - an error is an answer too
            c = "error: " + (str(e).strip().splitlines() or [type(e).__name__])[0][:160]
        rows[key(dt, dq, dv, layout, mk, hh, (lq, lk), grad, dropout)] = c
    with open(os.path.join(out, fname), "w") as f:
        json.dump(rows, f, indent=0, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("choice grid:", len(rows), "calls", flush=True)


class Attn(nn.Module):
    """HF's attention block around sdpa: projections, view + transpose, sdpa, transpose + reshape."""

    def __init__(self, e, h, hkv, d, mask, gqa):
        super().__init__()
        self.h, self.hkv, self.d, self.mask, self.gqa = h, hkv, d, mask, gqa
        self.q = nn.Linear(e, h * d, bias=False)
        self.k = nn.Linear(e, hkv * d, bias=False)
        self.v = nn.Linear(e, hkv * d, bias=False)
        self.o = nn.Linear(h * d, e, bias=False)

    def forward(self, x, kv, m=None):
        b, lq, _ = x.shape
        lk = kv.shape[1]
        q = self.q(x).view(b, lq, self.h, self.d).transpose(1, 2)
        k = self.k(kv).view(b, lk, self.hkv, self.d).transpose(1, 2)
        v = self.v(kv).view(b, lk, self.hkv, self.d).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=self.mask == "causal",
                                           enable_gqa=self.gqa)
        return self.o(y.transpose(1, 2).reshape(b, lq, self.h * self.d))


def strides(ep):
    rows = []
    for n in ep.graph.nodes:
        val = n.meta.get("val")
        vals = val if isinstance(val, (list, tuple)) else [val]
        rows.append([n.name, str(n.target)] + [[list(map(int, t.shape)), list(map(int, t.stride())), str(t.dtype)]
                                                if isinstance(t, torch.Tensor) else None for t in vals])
    return rows


def export_cases(out, deadline):
    d = os.path.join(out, "sdpa_export")
    os.makedirs(d, exist_ok=True)
    cases = []
    for dt in DT:
        for hd in (16, 64, 6, 256):
            for mk in ("none", "causal", "bool_b1ls", "float_b1ls"):
                cases.append((dt, 4, 4, hd, mk, False, 8, 8))
        cases += [(dt, 4, 2, 16, "none", True, 8, 8), (dt, 4, 2, 16, "causal", True, 8, 8),
                  (dt, 4, 2, 16, "none", False, 8, 8), (dt, 4, 4, 16, "causal", False, 1, 8),
                  (dt, 4, 4, 16, "none", False, 1, 8), (dt, 4, 4, 16, "bool_b1ls", False, 1, 8),
                  (dt, 4, 4, 64, "causal", False, 8, 16), (dt, 4, 4, 96, "none", False, 8, 8)]
    for dt, h, hkv, hd, mk, gqa, lq, lk in cases:
        if time.time() > deadline:
            print("export cases: stopped at the budget", flush=True)
            return
        name = "%s_h%d_kv%d_d%d_%s%s_l%d_s%d" % (dt, h, hkv, hd, mk, "_gqa" if gqa else "", lq, lk)
        torch.manual_seed(0)
        m = Attn(32, h, hkv, hd, mk, gqa).to(device=DEV, dtype=DT[dt]).eval()
        x = torch.randn(2, lq, 32, device=DEV, dtype=DT[dt])
        kv = x if lk == lq else torch.randn(2, lk, 32, device=DEV, dtype=DT[dt])
        args = (x, kv) if mk in ("none", "causal") else (x, kv, mask_of(mk, 2, lq, lk, DT[dt]).fill_(1)
                                                         if mk.startswith("bool") else mask_of(mk, 2, lq, lk, DT[dt]).zero_())
        try:
            ep = torch.export.export(m, args, strict=False)
            with open(os.path.join(d, name + ".txt"), "w") as f:
                f.write(str(ep))
            rec = {"export": strides(ep)}
            dec = ep.run_decompositions()
            with open(os.path.join(d, name + ".decomposed.txt"), "w") as f:
                f.write(str(dec))
            rec["decomposed"] = strides(dec)
            with open(os.path.join(d, name + ".strides.json"), "w") as f:
                json.dump(rec, f)
                f.write("\n")
            print(name, "ok", flush=True)
        except Exception as e:  # noqa: BLE001
            with open(os.path.join(d, name + ".error.txt"), "w") as f:
                f.write((str(e).strip().splitlines() or [type(e).__name__])[0][:300] + "\n")
            print(name, "error", str(e)[:200], flush=True)


def archives(out):
    """pt2/NAME.pt2 + NAME.txt (+ NAME.decomposed.pt2/.txt): torch.export.save of a few CUDA programs,
    for our reader and verifier: attention blocks on each kernel (cuDNN, flash with a padded head dim,
    memory-efficient with a mask, math) and three zoo cases, each also decomposed (the fused CUDA ops)."""
    d = os.path.join(out, "pt2")
    os.makedirs(d, exist_ok=True)
    blocks = [("bf16", 4, 4, 64, "causal", False, 8, 8), ("bf16", 4, 4, 6, "none", False, 8, 8),
              ("f32", 4, 4, 16, "bool_b1ls", False, 8, 8), ("f32", 4, 2, 16, "none", True, 8, 8),
              ("f16", 4, 2, 16, "causal", True, 8, 8)]
    progs = []
    for dt, h, hkv, hd, mk, gqa, lq, lk in blocks:
        torch.manual_seed(0)
        m = Attn(32, h, hkv, hd, mk, gqa).to(device=DEV, dtype=DT[dt]).eval()
        x = torch.randn(2, lq, 32, device=DEV, dtype=DT[dt])
        args = (x, x) if mk in ("none", "causal") else (x, x, mask_of(mk, 2, lq, lk, DT[dt]).fill_(1))
        progs.append(("attn_%s_d%d_%s%s" % (dt, hd, mk, "_gqa" if gqa else ""), m, args, {}))
    g = runpy.run_path(os.path.join(REPO, "tools", "oracle", "scripts", "gen_zoo_golden.py"), run_name="gen_zoo_golden")
    for name in ("qwen2", "whisper", "bert"):
        cfg, model, dtype = g["build_model"](name)
        args, kwargs = g["example_inputs"](name, cfg)
        mv = lambda t: t.to(DEV) if isinstance(t, torch.Tensor) else t
        progs.append(("zoo_" + name, model.to(DEV), tuple(mv(a) for a in args), {k: mv(v) for k, v in kwargs.items()}))
    for name, m, args, kwargs in progs:
        try:
            ep = torch.export.export(m, args, kwargs, strict=False)
            torch.export.save(ep, os.path.join(d, name + ".pt2"))
            with open(os.path.join(d, name + ".txt"), "w") as f:
                f.write(g["stable"](str(ep)))
            dec = ep.run_decompositions()
            torch.export.save(dec, os.path.join(d, name + ".decomposed.pt2"))
            with open(os.path.join(d, name + ".decomposed.txt"), "w") as f:
                f.write(g["stable"](str(dec)))
            print("pt2", name, "ok", flush=True)
        except Exception as e:  # noqa: BLE001
            print("pt2", name, "error", str(e)[:300], flush=True)


def summarize_strides(out, name, dirs):
    """NAME: per export case, the sdpa node's [sizes, strides] in each of `dirs` (arch: directory),
    e.g. {"sm90": "sdpa_export", "sm80": "sdpa_export_cudnn_last"}: what tests compare the CUDA meta with."""
    import glob
    rows = {}
    for arch, sub in dirs.items():
        for f in sorted(glob.glob(os.path.join(out, sub, "*.strides.json"))):
            case = os.path.basename(f)[: -len(".strides.json")]
            for node in json.load(open(f))["export"]:
                if node[1] == "aten.scaled_dot_product_attention.default":
                    rows.setdefault(case, {})[arch] = node[2][:2]
    with open(os.path.join(out, name), "w") as f:  # one case per line
        f.write("{\n" + ",\n".join("%s: %s" % (json.dumps(k), json.dumps(rows[k], sort_keys=True, separators=(",", ":")))
                                     for k in sorted(rows)) + "\n}\n")
    print(name + ":", len(rows), "cases", flush=True)


def zoo_dynamic(out, names):
    """NAME_dyn.txt for decoder-only cases: dynamic batch and seq, as gen_zoo_golden.py exports them."""
    from torch.export import Dim
    d = os.path.join(out, "zoo")
    os.makedirs(d, exist_ok=True)
    g = runpy.run_path(os.path.join(REPO, "tools", "oracle", "scripts", "gen_zoo_golden.py"), run_name="gen_zoo_golden")
    for name in names:
        cfg, model, dtype = g["build_model"](name)
        args, _ = g["example_inputs"](name, cfg)
        model = model.to("cuda")
        ds = ({0: Dim("batch", min=1, max=1024), 1: Dim("seq", min=2, max=cfg.max_position_embeddings)},)
        try:
            ep = torch.export.export(model, (args[0].to("cuda"),), dynamic_shapes=ds, strict=False)
        except Exception as e:  # noqa: BLE001 - PyTorch's refusal is the answer (efficient attention's guards)
            with open(os.path.join(d, name + "_dyn.error.txt"), "w") as f:
                f.write(str(e).strip() + "\n")
            print("zoo", name + "_dyn", "error", flush=True)
            continue
        with open(os.path.join(d, name + "_dyn.txt"), "w") as f:
            f.write(g["stable"](str(ep)))
        print("zoo", name + "_dyn", "ok", flush=True)


def zoo(out, deadline, only=None):
    d = os.path.join(out, "zoo")
    os.makedirs(d, exist_ok=True)
    g = runpy.run_path(os.path.join(REPO, "tools", "oracle", "scripts", "gen_zoo_golden.py"), run_name="gen_zoo_golden")
    for name in g["CASES"]:
        if only and name not in only:
            continue
        if time.time() > deadline:
            print("zoo: stopped at the budget", flush=True)
            return
        try:
            cfg, model, dtype = g["build_model"](name)
            args, kwargs = g["example_inputs"](name, cfg)
            model = model.to(DEV)
            mv = lambda t: t.to(DEV) if isinstance(t, torch.Tensor) else t
            args = tuple(mv(a) for a in args)
            kwargs = {k: mv(v) for k, v in kwargs.items()}
            ep = torch.export.export(model, args, kwargs, strict=False)
            with open(os.path.join(d, name + ".txt"), "w") as f:
                f.write(g["stable"](str(ep)))
            dec = ep.run_decompositions()
            with open(os.path.join(d, name + ".decomposed.txt"), "w") as f:
                f.write(g["stable"](str(dec)))
            print("zoo", name, "ok", flush=True)
        except Exception as e:  # noqa: BLE001
            with open(os.path.join(d, name + ".error.txt"), "w") as f:
                f.write((str(e).strip().splitlines() or [type(e).__name__])[0][:300] + "\n")
            print("zoo", name, "error", str(e)[:200], flush=True)


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":  # as gen_zoo_golden.py: Gemma 3's set order
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "cuda"))
    ap.add_argument("--budget-s", type=float, default=300)
    ap.add_argument("--dry-cpu", action="store_true", help="cpu instead of cuda: tries the script, measures nothing")
    ap.add_argument("--choice-file", default="sdpa_choice.json",
                    help="sdpa_choice_cudnn_last.json under TORCH_CUDNN_SDPA_DEPRIORITIZED=1: the order sm80 has")
    ap.add_argument("--summarize", action="store_true",
                    help="write sdpa_strides.json from OUT/sdpa_export (default order) and OUT/sdpa_export_cudnn_last "
                         "(a run with TORCH_CUDNN_SDPA_DEPRIORITIZED=1 --out moved there): needs no GPU")
    ap.add_argument("--pt2", action="store_true", help="also save a few CUDA programs as .pt2 (OUT/pt2)")
    ap.add_argument("--zoo-dynamic", default="", help="comma-separated decoder-only zoo cases to export dynamic")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: choice,export,zoo")
    ap.add_argument("--zoo-only", default="", help="comma-separated zoo cases (default: every golden case)")
    a = ap.parse_args()
    if a.summarize and a.skip == "choice,export,zoo":  # only the summary: no GPU needed
        summarize_strides(a.out, "sdpa_strides.json", {"sm90": "sdpa_export", "sm80": "sdpa_export_cudnn_last"})
        return
    global DEV
    if a.dry_cpu:
        DEV = "cpu"
    else:
        assert torch.cuda.is_available(), "needs a CUDA build of PyTorch and a GPU"
    start = time.time()
    os.makedirs(a.out, exist_ok=True)
    e = env() if DEV == "cuda" else {"dry_cpu": True}
    with open(os.path.join(a.out, "sdpa_env.json"), "w") as f:
        json.dump(e, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(e), flush=True)
    skip = set(a.skip.split(","))
    if "choice" not in skip:
        choice_grid(a.out, start + a.budget_s * 0.3, a.choice_file)
    if "export" not in skip:
        export_cases(a.out, start + a.budget_s * 0.6)
    if "zoo" not in skip:
        zoo(a.out, start + a.budget_s, set(a.zoo_only.split(",")) if a.zoo_only else None)
    if a.summarize:
        summarize_strides(a.out, "sdpa_strides.json", {"sm90": "sdpa_export", "sm80": "sdpa_export_cudnn_last"})
    if a.zoo_dynamic:
        zoo_dynamic(a.out, a.zoo_dynamic.split(","))
    if a.pt2:
        archives(a.out)
    print("done in %.1f s" % (time.time() - start), flush=True)


if __name__ == "__main__":
    main()
