"""Loads the .pt2 archives our tests wrote (build/pt2_out/, by tests/test_serde_pt2.cpp) with PyTorch
2.14's torch.export.load: the seed MLP must print like our print and run to the fixture's numbers
(1e-5); the graph-only archive must fail loudly. Exit 0 when all hold, 1 otherwise, 77 when the
archives are missing (build and run the tests first)."""
import os
import sys

import torch
from safetensors.torch import load_file

OUT = "build/pt2_out"
if not os.path.exists(os.path.join(OUT, "seed_mlp_ours.pt2")):
    print("check_our_pt2: skipped: no archives in %s (run build/fakeexport_tests first)" % OUT)
    sys.exit(77)
ok = True
ep = torch.export.load(os.path.join(OUT, "seed_mlp_ours.pt2"))
x = load_file("tests/fixtures/pt2/seed_mlp.inputs.safetensors")["input_0"]
want = load_file("tests/fixtures/pt2/seed_mlp.outputs.safetensors")["output_0"]
import re  # noqa: E402

def blank(text):
    return re.sub(r"# File: [^\n]*", "# File: <source>", text)

ours = open(os.path.join(OUT, "seed_mlp_ours.txt")).read()
same = blank(str(ep)) == blank(ours)
print("seed_mlp_ours: print %s our print (File lines aside)" % ("equals" if same else "DIFFERS from"))
ok &= same
got = ep.module()(x)
err = (got - want).abs().max().item()
print("seed_mlp_ours: loaded, max |ours - PyTorch| = %.3g" % err)
ok &= err <= 1e-5
try:
    bad = torch.export.load(os.path.join(OUT, "seed_mlp_none.pt2"))
    print("seed_mlp_none: LOADED SILENTLY (weights %s)" % [float(v.abs().sum()) for v in bad.state_dict.values()][:2])
    ok = False
except Exception as e:  # noqa: BLE001 - failing loudly is the point
    print("seed_mlp_none: fails loudly: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:150]))
ef = torch.export.load(os.path.join(OUT, "seed_mlp_file.pt2"))
ferr = (ef.module()(x) - want).abs().max().item()
print("seed_mlp_file (fake program + safetensors weights): max |ours - PyTorch| = %.3g" % ferr)
ok &= ferr <= 1e-5
tied = torch.export.load(os.path.join(OUT, "tied_ours.pt2"))
i = load_file("tests/fixtures/pt2/tied.inputs.safetensors")["input_0"]
terr = (tied.module()(i) - load_file("tests/fixtures/pt2/tied.outputs.safetensors")["output_0"]).abs().max().item()
print("tied_ours: loaded, max |ours - PyTorch| = %.3g" % terr)
ok &= terr <= 1e-5
for case in ["seed_mlp", "gpt2_dynamic", "buffers", "tied"]:
    path = os.path.join(OUT, case + "_resaved.pt2")
    if not os.path.exists(path):
        continue
    ep = torch.export.load(path)
    same = str(ep) == open("tests/fixtures/pt2/%s.txt" % case).read()
    ins = load_file("tests/fixtures/pt2/%s.inputs.safetensors" % case)
    outs = load_file("tests/fixtures/pt2/%s.outputs.safetensors" % case)
    got = ep.module()(*[ins["input_%d" % i] for i in range(len(ins))])
    got = got if isinstance(got, (tuple, list)) else (got,)
    err = max((g - outs["output_%d" % i]).abs().max().item() for i, g in enumerate(got))
    print("%s_resaved: print %s the fixture, max |ours - PyTorch| = %.3g" % (case, "equals" if same else "DIFFERS from", err))
    ok &= same and err <= 1e-5
# Seed 002's CPU-exported decoder retargeted to cuda:0 (tests/test_retarget.cpp): PyTorch loads it
# and prints it as we do. This build is CPU-only and the loader moves each weight to its recorded
# device (`tensor.to(device)`), so weights bound for cuda become meta tensors here; not run.
path = os.path.join(OUT, "retarget_seed002_decoder.pt2")
if os.path.exists(path):
    to = torch.Tensor.to

    def to_meta_for_cuda(self, *args, **kwargs):
        if args and isinstance(args[0], torch.device) and args[0].type == "cuda":
            return to(self, "meta")
        return to(self, *args, **kwargs)

    torch.Tensor.to = to_meta_for_cuda
    try:
        ep = torch.export.load(path)
    finally:
        torch.Tensor.to = to
    same = blank(str(ep)) == blank(open(os.path.join(OUT, "retarget_seed002_decoder.txt")).read())
    cpu_left = "type='cpu'" in str(ep)
    print("retarget_seed002_decoder: loaded, print %s our print, %s" % (
        "equals" if same else "DIFFERS from", "cpu still pinned" if cpu_left else "no cpu device left"))
    ok &= same and not cpu_left
# Custom ops defined in C++ (tests/test_library.cpp): PyTorch loads our archives once the same ops
# are registered (gen_custom_ops.define_ops, torch.library.custom_op), prints them as we do and runs
# them to the outputs of its own export.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_custom_ops  # noqa: E402

gen_custom_ops.define_ops()
for case in ["seed004", "stack_rows_dynamic"]:
    path = os.path.join(OUT, "custom_%s.pt2" % case)
    if not os.path.exists(path):
        continue
    ep = torch.export.load(path)
    same = blank(str(ep)) == blank(open(os.path.join(OUT, "custom_%s.txt" % case)).read())
    x = load_file("tests/fixtures/custom_ops/%s.inputs.safetensors" % case)["input_0"]
    want = load_file("tests/fixtures/custom_ops/%s.outputs.safetensors" % case)["output_0"]
    err = (ep.module()(x) - want).abs().max().item()
    print("custom_%s: loaded with the op registered, print %s our print, max |ours - PyTorch| = %.3g"
          % (case, "equals" if same else "DIFFERS from", err))
    ok &= same and err <= 1e-6
# Zoo models (tests/test_zoo_core.cpp ZooEager): our export of HF architectures with HF's weights,
# run by PyTorch, against HF's eager outputs.
import glob  # noqa: E402

# MoE models record transformers' custom op; PyTorch resolves it only once transformers registered it,
# as in any session that exported them.
import transformers.integrations.moe  # noqa: E402,F401 - registers torch.ops.transformers.grouped_mm_fallback

# cli_*: `fakeexport export --dynamic batch,seq -o --weights <HF checkpoint>` of a fake model.
for path in sorted(glob.glob(os.path.join(OUT, "zoo_tiny_*.pt2")) + glob.glob(os.path.join(OUT, "cli_tiny_*.pt2"))):
    name = os.path.basename(path)[len("zoo_"):-len(".pt2")]
    io = load_file("tests/fixtures/zoo/eager/%s/io.safetensors" % name)
    ins = sorted((k for k in io if k.startswith("input_")), key=lambda k: int(k.split("_")[1]))
    outs = sorted((k for k in io if k.startswith("output_")), key=lambda k: int(k.split("_")[1]))
    try:
        ep = torch.export.load(path)
    except Exception as e:  # noqa: BLE001
        # PyTorch 2.14 cannot load its own export of a model whose no_grad region returns nothing
        # (Falcon-RW computes rotary embeddings that ALiBi never reads): its deserializer leaves
        # that wrap_with_set_grad_enabled without meta["val"]; ours is written as PyTorch writes it.
        if "wrap_with_set_grad_enabled is missing val field" not in str(e):
            raise
        print("%s: PyTorch cannot load it, nor its own export of the model (%s)" % (os.path.basename(path)[:-4], e))
        continue
    got = ep.module()(*[io[k] for k in ins])
    got = got if isinstance(got, (tuple, list)) else (got,)
    err = max((got[i] - io[k]).abs().max().item() for i, k in enumerate(outs))
    print("%s: loaded and run by PyTorch, max |ours - HF eager| = %.3g" % (os.path.basename(path)[:-4], err))
    ok &= err <= 1e-4

# The real-program corpus written again by us (tests/test_corpus.cpp): each archive PyTorch loads
# prints exactly as the original does and runs, on the original's example inputs, to its outputs.
import copy  # noqa: E402
import importlib  # noqa: E402
import re as _re  # noqa: E402

import torch.utils._pytree as pytree  # noqa: E402


import logging  # noqa: E402


class _Seen(logging.Handler):
    def __init__(self):
        super().__init__()
        self.text = ""

    def emit(self, record):
        self.text += logging.Formatter().format(record) + "\n"  # with the traceback it logs


def load_resolving(path):
    """torch.export.load, importing the module of a pytree class an out_spec names (transformers'
    ModelOutput subclasses register themselves when their module is imported; PyTorch logs the
    class it missed as a warning and raises a generic error)."""
    for _ in range(4):
        seen = _Seen()
        logging.getLogger("torch.export").addHandler(seen)
        try:
            return torch.export.load(path)
        except Exception as e:  # noqa: BLE001
            m = _re.search(r"Deserializing ([\w.]+) in pytree is not registered", str(e) + seen.text)
            if not m:
                raise
            importlib.import_module(m.group(1).rsplit(".", 1)[0])
        finally:
            logging.getLogger("torch.export").removeHandler(seen)
    return torch.export.load(path)


def leaf_diff(got, want):
    """max |got - want| over two programs' output leaves (inf where a non-float leaf differs)."""
    err = 0.0
    for g, w in zip(pytree.tree_leaves(got), pytree.tree_leaves(want)):
        if isinstance(w, torch.Tensor) and w.is_floating_point():
            err = max(err, (g - w).abs().max().item() if w.numel() else 0.0)
        elif isinstance(w, torch.Tensor):
            err = max(err, 0.0 if torch.equal(g, w) else float("inf"))
        elif g != w:
            err = float("inf")
    return err


def run_both(ref, ep):
    """Both programs on copies of ref's example inputs (a program may write to its inputs)."""
    args, kwargs = ref.example_inputs
    want = ref.module()(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    return leaf_diff(ep.module()(*copy.deepcopy(args), **copy.deepcopy(kwargs)), want)


def load_pair(kind, path, make_ref, originals="tests/fixtures/corpus"):
    """(ours, PyTorch's reference, max output difference) for one archive we wrote from the
    original of the same name in `originals`; None when the reference itself cannot be made in this
    process (not ours to judge); ours None when PyTorch cannot load it."""
    name = os.path.basename(path)[:-4]
    try:
        ref = make_ref(load_resolving(os.path.join(originals, name + ".pt2")))
    except Exception:  # noqa: BLE001 - the original needs what this process lacks
        return None
    try:
        ep = load_resolving(path)
    except Exception as e:  # noqa: BLE001
        print("%s %s: PyTorch cannot load ours: %s: %s" % (kind, name, type(e).__name__, str(e).splitlines()[0][:200]))
        return None, ref, float("inf")
    err = 0.0
    if ref.example_inputs is not None:
        try:
            err = run_both(ref, ep)
        except Exception as e:  # noqa: BLE001 - the reference does not run here either
            print("%s %s: not run: %s" % (kind, name, str(e).splitlines()[0][:150] if str(e) else type(e).__name__))
    return ep, ref, err


# The committed corpus, and check-fixtures' regenerated variant of it (build/corpus_variant).
corpus_ok = corpus_all = 0
resaved = [(p, "tests/fixtures/corpus") for p in sorted(glob.glob(os.path.join(OUT, "corpus", "*.pt2")))]
resaved += [(p, "build/corpus_variant") for p in sorted(glob.glob(os.path.join(OUT, "corpus_variant", "*.pt2")))]
for path, originals in resaved:
    pair = load_pair("corpus", path, lambda ref: ref, originals)
    if pair is None:
        continue
    ep, ref, err = pair
    corpus_all += 1
    same = ep is not None and str(ep) == str(ref)
    good = same and err == 0.0
    corpus_ok += good
    if not good:
        print("corpus %s: print %s the original's, max |ours - original| = %.3g"
              % (os.path.basename(path)[:-4], "equals" if same else "DIFFERS from", err))
    ok &= good
# The corpus decomposed by us (tests/test_decompose.cpp, which compares prints): PyTorch loads each
# as the ATEN dialect and runs it to what its own run_decompositions() of the original computes.
dec_ok = dec_all = 0
for path in sorted(glob.glob(os.path.join(OUT, "decomposed", "*.pt2"))):
    pair = load_pair("decomposed", path, lambda ref: ref.run_decompositions())
    if pair is None:
        continue
    ep, ref, err = pair
    dec_all += 1
    good = ep is not None and err <= 1e-4 and ep.dialect == "ATEN"
    dec_ok += good
    if not good:
        print("decomposed %s: dialect %s, max |ours - PyTorch's decomposition| = %.3g"
              % (os.path.basename(path)[:-4], ep.dialect if ep is not None else "-", err))
    ok &= good
# Every corpus program retargeted to cuda:0 by us (tests/test_retarget.cpp): PyTorch loads it (cuda
# weights as meta tensors on this CPU build, as above) and prints it as we do.
_to = torch.Tensor.to


def _cuda_as_meta(self, *args, **kwargs):
    if args and isinstance(args[0], torch.device) and args[0].type == "cuda":
        return _to(self, "meta")
    return _to(self, *args, **kwargs)


rt_ok = rt_all = 0
for path in sorted(glob.glob(os.path.join(OUT, "retarget", "*.pt2"))):
    name = os.path.basename(path)[:-4]
    try:  # only where this process can load the original (its imports, its custom ops)
        load_resolving("tests/fixtures/corpus/%s.pt2" % name)
    except Exception:  # noqa: BLE001
        continue
    rt_all += 1
    torch.Tensor.to = _cuda_as_meta
    try:
        ep = load_resolving(path)
    except Exception as e:  # noqa: BLE001
        print("retarget %s: PyTorch cannot load ours: %s: %s" % (name, type(e).__name__, str(e).splitlines()[0][:200]))
        ok = False
        continue
    finally:
        torch.Tensor.to = _to
    same = blank(str(ep)) == blank(open(path[:-4] + ".txt").read())
    rt_ok += same
    if not same:
        print("retarget %s: PyTorch's print of ours DIFFERS from our print" % name)
    ok &= same
# Decode steps with a static cache (tests/test_zoo_static_cache.cpp): HF's weights, the cache empty;
# PyTorch runs the prefill of the eager fixture's first 4 tokens to HF's logits for them; a program
# whose step length is dynamic (NAME.dyn.pt2) then takes one more token, whose logits are HF's too.
kv_ok = kv_all = 0
for path in sorted(glob.glob(os.path.join(OUT, "static_cache", "*.pt2"))):
    name = os.path.basename(path)[:-4]
    dyn = name.endswith(".dyn")
    name = name[:-4] if dyn else name
    kv_all += 1
    try:
        ep = torch.export.load(path)
        io = load_file("tests/fixtures/zoo/eager/%s/io.safetensors" % name)
        m = ep.module()
        got = m(input_ids=io["input_0_input_ids"][:, :4], cache_position=torch.arange(4))
        err = (got - io["output_0"][:, :4]).abs().max().item()
        if dyn:
            got = m(input_ids=io["input_0_input_ids"][:, 4:5], cache_position=torch.arange(4, 5))
            err = max(err, (got - io["output_0"][:, 4:5]).abs().max().item())
    except Exception as e:  # noqa: BLE001
        print("static_cache %s: %s: %s" % (name, type(e).__name__, str(e).splitlines()[0][:200]))
        ok = False
        continue
    kv_ok += err <= 1e-4
    if err > 1e-4:
        print("static_cache %s: max |PyTorch running ours - HF| = %.3g" % (name, err))
    ok &= err <= 1e-4
if kv_all:
    print("static_cache: %d of %d decode-step archives load in PyTorch and prefill to HF's logits" % (kv_ok, kv_all))
if rt_all:
    print("retarget: %d of %d corpus programs retargeted to cuda:0 load in PyTorch and print as we print them"
          % (rt_ok, rt_all))
if dec_all:
    print("decomposed: %d of %d of our decompositions load in PyTorch and run to its own decomposition's outputs"
          % (dec_ok, dec_all))
if corpus_all:
    print("corpus: %d of %d re-saved programs load in PyTorch, print as the originals and run to their outputs"
          % (corpus_ok, corpus_all))
sys.exit(0 if ok else 1)
