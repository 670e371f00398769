"""Diagnostic: every node PyTorch's trace creates, the dead ones included (the SymInt arithmetic
it records and DCE later drops), interleaved with FakeTensor's dispatch-cache verdict for each op
it dispatches (HIT, MISS, BYPASS), so a node-name gap in a print (add_11 after `add`, a missing
sym_numel_default_3) can be traced to its source.

    tools/oracle/run tools/oracle/scripts/trace_dead_nodes.py decompose NAME [-v]
        ep.run_decompositions() of tests/fixtures/corpus/NAME.pt2
    tools/oracle/run tools/oracle/scripts/trace_dead_nodes.py export CONFIG.json INPUTS.json [-v]
        gen_zoo_golden.export_dynamic of the transformers model of CONFIG.json (a sweep_zoo.py
        variant; INPUTS.json holds its batch and seq)
    tools/oracle/run tools/oracle/scripts/trace_dead_nodes.py golden NAME [-v]
        gen_zoo_golden.export_dynamic of golden case NAME, built and fed as gen_zoo_golden does
        (every family, Whisper's features and encoder-decoders' decoder inputs included)

-v adds the innermost Python frames of each node (--depth N of them, default 13). --keys adds, to each cache verdict, what its key
holds of every tensor argument: sizes and strides as each SymInt's raw expression (SymNode._expr,
which the key compares) with a short id of its SymNode object (a repeated object is a back-reference
in the key), and the storage's nbytes expression, whose form (`128*s27*s77` from a contiguous
allocation, `128*s27*(s77 - 1) + 128*s27` from computeStorageNbytes over a cache hit's strides)
decides later hits. Compare with our names in creation order.
What it showed (2026-11-28): in a decomposition retrace the dead nodes come mostly from c10's
storage-size computation as FunctionalTensor.__new__ wraps each output (eq, sub, mul, add per
dim, mul by the item size), bound checks of replayed views and copy_'s broadcast checks; in an
export, the contiguity check of `x.transpose(1, 2).contiguous()` is traced exactly when the
transpose missed FakeTensor's dispatch cache, whose key refers to a SymNode met before in the
same key by position (_InputBackref) and compares the others by value.
"""
import json
import sys
import traceback

import torch
import torch.fx
from torch._subclasses.fake_tensor import FakeTensorMode

verbose = "-v" in sys.argv
keys = "--keys" in sys.argv
depth = int(sys.argv[sys.argv.index("--depth") + 1]) if "--depth" in sys.argv else 13
argv = [a for i, a in enumerate(sys.argv[1:], 1)
        if a not in ("-v", "--keys", "--depth") and sys.argv[i - 1] != "--depth"]
log = []  # (graph id or None for a cache verdict, name, target, frames)

orig_create = torch.fx.Graph.create_node


def create_node(self, op, target, args=(), kwargs=None, name=None, type_expr=None):
    n = orig_create(self, op, target, args, kwargs, name, type_expr)
    frames = []
    if verbose:
        frames = [f"{f.filename.split('dist-packages/')[-1]}:{f.lineno}:{f.name}" for f in traceback.extract_stack()[-depth - 1:-1]]
    label = str(target)
    if label.startswith("aten.sym_"):  # which tensor's size, stride or numel it reads
        label += "(" + ", ".join(a.name if isinstance(a, torch.fx.Node) else repr(a) for a in n.args) + ")"
    log.append((id(self), n.name, label, frames))
    return n


orig_dispatch = FakeTensorMode._cached_dispatch_impl
node_ids = {}  # id(SymNode) -> short number, in order of first sight


def sym(v):
    if not isinstance(v, torch.SymInt):
        return str(v)
    return f"{v.node._expr}#{node_ids.setdefault(id(v.node), len(node_ids))}"


def describe(a):
    if isinstance(a, torch.Tensor):
        try:
            nbytes = sym(a.untyped_storage().nbytes())
        except Exception:  # noqa: BLE001 (a tensor without storage)
            nbytes = "-"
        return (f"[{', '.join(sym(s) for s in a.shape)}] strides [{', '.join(sym(s) for s in a.stride())}] "
                f"nbytes {nbytes}")
    if isinstance(a, (list, tuple)):
        return "(" + ", ".join(describe(x) for x in a) + ")"
    return sym(a) if isinstance(a, torch.SymInt) else repr(a)[:40]


def cached_dispatch(self, func, types, args, kwargs):
    hits, misses = FakeTensorMode.cache_hits, FakeTensorMode.cache_misses
    r = orig_dispatch(self, func, types, args, kwargs)
    verdict = "HIT" if FakeTensorMode.cache_hits > hits else "MISS" if FakeTensorMode.cache_misses > misses else "BYPASS"
    detail = (" " + "; ".join(describe(a) for a in args)) if keys else ""
    log.append((None, f"[{verdict} {func}]{detail}", "", []))
    return r


def traced(fn):
    torch.fx.Graph.create_node = create_node
    FakeTensorMode._cached_dispatch_impl = cached_dispatch
    try:
        return fn()
    finally:
        torch.fx.Graph.create_node = orig_create
        FakeTensorMode._cached_dispatch_impl = orig_dispatch


if argv[0] == "decompose":
    import transformers.integrations.moe  # noqa: F401  (registers torch.ops.transformers.grouped_mm_fallback)
    sys.path.insert(0, "/repo/tools/oracle/scripts")
    from gen_decomposed import import_pytree_types  # the output classes the archive's pytree names
    path = f"/repo/tests/fixtures/corpus/{argv[1]}.pt2"
    import_pytree_types(path)
    ep = torch.export.load(path)
    traced(ep.run_decompositions)
elif argv[0] == "export":
    import transformers
    sys.path.insert(0, "/repo/tools/oracle/scripts")
    import gen_zoo_golden as g
    cfg_path, inputs = argv[1], json.load(open(argv[2]))
    d = json.load(open(cfg_path))
    mt = d["model_type"]
    cfg = transformers.AutoConfig.from_pretrained(cfg_path)
    torch.manual_seed(0)
    dtype = d.get("dtype") if isinstance(d.get("dtype"), str) else "float32"
    torch.set_default_dtype(getattr(torch, dtype))
    if mt == "t5":
        model = transformers.T5ForConditionalGeneration(cfg).eval()
    elif mt in ("blenderbot", "whisper"):
        model = transformers.AutoModelForSeq2SeqLM.from_config(cfg).eval()
    else:
        model = transformers.AutoModelForCausalLM.from_config(cfg).eval()
    torch.set_default_dtype(torch.float32)
    gen = torch.Generator().manual_seed(0)
    b, s, v = inputs["batch"], inputs["seq"], cfg.vocab_size
    args = (torch.randint(3, v, (b, s), generator=gen),)
    kwargs = {"decoder_input_ids": torch.randint(3, v, (b, s), generator=gen)} if mt in ("t5", "blenderbot") else {}
    traced(lambda: g.export_dynamic(mt, cfg, model, args, kwargs))
elif argv[0] == "golden":
    sys.path.insert(0, "/repo/tools/oracle/scripts")
    import gen_zoo_golden as g
    cfg, model, _ = g.build_model(argv[1])
    args, kwargs = g.example_inputs(argv[1], cfg)
    traced(lambda: g.export_dynamic(g.CASES[argv[1]][0], cfg, model, args, kwargs))
else:
    sys.exit(__doc__)

gids = {}
for gid, name, target, frames in log:
    if gid is None:
        print("    ", name)
        continue
    print(f"G{gids.setdefault(gid, len(gids))} {name:28s} {target[:70]}")
    for f in frames:
        print("        ", f)
