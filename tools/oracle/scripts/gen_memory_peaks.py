"""Measured activation-memory peaks of PyTorch 2.14 running exported programs on CPU (issue 16, item 6:
calibration of `fakeexport memory` against PyTorch, measured).

    tools/oracle/run tools/oracle/scripts/gen_memory_peaks.py [--out DIR] [--corpus DIR] [--only NAME,...]
                                                            [--no-zoo] [--no-corpus]
    tools/oracle/run tools/oracle/scripts/gen_memory_peaks.py --trace NAME        (corpus program NAME)
    tools/oracle/run tools/oracle/scripts/gen_memory_peaks.py --trace zoo:CASE[:B:S]  (zoo case, default 2:8)

Each program runs once, as `m = ep.module(); with torch.no_grad(): m(*args, **kwargs)`, on CPU (one
thread, Python's cyclic gc off during the run so that frees happen at the same points every time),
under two dispatch-level trackers at once:
  MemTracker   torch.distributed._tools.mem_tracker.MemTracker, with track_external(m, user input
               tensors, the module's tensor constants); its get_tracker_snapshot("peak") is the
               per-device snapshot at the moment the Total peaked (categories Parameter, Buffer,
               Activation, Other, Total; the constants and inputs are "Other")
  ours         ActivationTracker below: every storage an executed aten op returns that is not already
               known (inputs, parameters, buffers, constants are registered first, as non-activation;
               a view or in-place result shares a known storage and adds nothing) is an activation of
               storage.nbytes() until the storage dies (weakref.finalize); after each op the live
               activation bytes per device, and their maximum
Both see the ops after autograd and CompositeImplicitAutograd decomposition (aten.linear runs as
aten.t + aten.addmm; scaled_dot_product_attention as _scaled_dot_product_flash_attention_for_cpu
or its math decomposition), and neither sees kernel-internal scratch memory (a kernel's own
allocations are not dispatched). Where MemTracker's Activation at its peak differs from our maximum,
stdout says so (MISMATCH). Higher-order ops (cond, while_loop, scan, map_impl, with_effects) run
their eager implementation with the trackers on, so the ops of their subgraphs are seen too (the
trackers are not given the higher-order op itself). Two MemTracker needs are met without changing
what runs: every parameter requires grad (it hooks each parameter's gradient and fails on one that
does not: Pegasus', Marian's, Whisper's sinusoidal tables; under no_grad nothing records), and
subgraph modules of higher-order ops receive parameters detached (its ModTracker cannot hook a
requires-grad input under no_grad).

A third number is computed from the graph alone, at node granularity (the model `fakeexport memory`
follows): the top-level graph of ep.module() runs once more under torch.fx.Interpreter to learn
each node's output sizes; then, in node order, a node's outputs are allocated (views and in-place
results share their base's storage), a storage is freed after the last node that uses any value
on it, and program outputs live to the end; the peak is taken after each node's outputs, before
its frees. Two variants:
  graph_node_peak    a node's output shares a storage exactly when it did at run time (so
                     reshape/contiguous/to/dropout returning their input, higher-order ops
                     returning an input, are views)
  graph_schema_peak  a node's output shares a storage only where the op's schema says it aliases
                     an argument (Tensor(a), Tensor(a!)); every other output (and every higher-order
                     op's output) is a new contiguous storage of numel * element size
Higher-order ops are single nodes of the top-level graph here (their subgraphs are not walked).
measured minus graph_node_peak is what the runtime allocates inside the nodes (decomposition
intermediates live at the same time as the node's inputs, extra outputs such as the flash
kernel's logsumexp, the insides of higher-order ops); graph_schema_peak minus graph_node_peak is
what reading aliasing from schemas alone gets wrong (dropout and type_as return their input
unannotated; to, reshape, contiguous are annotated Tensor(a) but copy when they must).

Writes to DIR (default tests/fixtures/memory):
  corpus.json  per program of the corpus (default tests/fixtures/corpus, MANIFEST.json's cases but
               the op programs of corpus_ops.py; the
               sample inputs NAME.inputs.safetensors and NAME.json's user_inputs, unflattened with
               the program's in_spec), or {"error": first line} where it does not load or run:
                 devices: {str(device): {memtracker_peak: {Activation, Buffer, Other, Parameter,
                          Total}, activation_peak (ours), activation_at_end (ours: the activations
                          the outputs keep), graph_node_peak, graph_schema_peak, parameter_bytes,
                          buffer_bytes, constant_bytes (the state_dict's and ep.constants' unique
                          storages; non-persistent buffers are buffers), input_bytes}}
                 peak_op, peak_node (the aten op after which our peak was reached, and the graph
                 node that ran it), ops (aten ops executed), dynamic
  zoo.json     per case of gen_zoo_golden.CASES (built by its build_model: seeded, eval, default sdpa
               attention) and per shape "BxS" in (2, 8), (4, 32): the static export
               torch.export.export(model, args, kwargs, strict=False) of gen_zoo_golden's
               example_inputs(name, cfg, B, S) (input_ids [B, S]; ViT: pixel_values [B, C, 32, 32],
               S unused and recorded as null (the sequence is the 16 patches + CLS; the key is still
               CASE@BxS); vision-encoder-decoder: pixel_values [B, C, 32, 32] and decoder_input_ids
               [B, S]; Blenderbot: input_ids and decoder_input_ids both [B, S]), measured as above;
               model_type, dtype, batch, seq and config_equals_golden: whether config_dict() equals
               tests/fixtures/zoo_golden/CASE.config.json (what `fakeexport export CASE.config.json
               --batch B --seq S` reads)
Bytes are exact integers; nothing depends on timing, so two runs write identical files.

--trace NAME prints one line per executed aten op of one program: index, graph node, op, the bytes
of the new storages it returned (S<id>: bytes), live activation bytes after it, and the storages
freed before the next op; then the node-level table (graph_node_peak's walk: per node its new
storages, live bytes, frees) to set against `fakeexport memory`'s own walk.
"""
import argparse
import collections
import gc
import json
import operator
import os
import sys
import time
import weakref

import torch
import torch.utils._pytree as pytree
from safetensors.torch import load_file
from torch.distributed._tools.mem_tracker import MemTracker
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.weak import WeakIdKeyDictionary

import transformers  # noqa: F401  (pytree nodes of HF output classes)
import transformers.integrations.moe  # noqa: F401  registers torch.ops.transformers.grouped_mm_fallback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_decomposed  # noqa: E402  (import_pytree_types)
import gen_zoo_golden  # noqa: E402  (CASES, build_model, example_inputs, config_dict)

torch.set_num_threads(1)
ZOO_SHAPES = [(2, 8), (4, 32)]
CATEGORIES = ["Activation", "Buffer", "Other", "Parameter", "Total"]


def first_line(e):
    text = str(e).strip()
    return ("%s: %s" % (type(e).__name__, text.splitlines()[0] if text else ""))[:300]


def tensor_leaves(tree):
    return [t for t in pytree.tree_leaves(tree) if isinstance(t, torch.Tensor)]


def plain(t):
    """The tensor holding the memory of t: t itself, or the tensor under functorch's wrappers (a
    program's vmap hands BatchedTensors around, which have no storage of their own)."""
    while torch._C._functorch.is_functorch_wrapped_tensor(t):
        t = torch._C._functorch.get_unwrapped(t)
    return t


def reset_functorch():
    """Leaves the vmap levels a failed program entered (its _vmap_decrement_nesting never ran)."""
    while torch._C._functorch.maybe_current_level() is not None:
        torch._C._functorch._vmap_decrement_nesting()


def op_name(f):
    if isinstance(f, torch._ops.OpOverload):
        return str(f)
    if isinstance(f, torch._ops.HigherOrderOperator):
        return "higher_order." + f.name()
    return getattr(f, "__name__", str(f))


# ------------------------------------------------------------------------------------------------ graph nodes
class NodeLocator:
    """The graph node an executing aten op belongs to: the frames of the FX-generated forward()s of
    the module's GraphModules (top level and higher-order subgraphs), mapped through their line
    maps; outer/inner for an op inside a subgraph."""

    def __init__(self, m):
        self.code = {}
        for path, sub in m.named_modules():
            if isinstance(sub, torch.fx.GraphModule) and getattr(sub, "_lineno_map", None):
                code = type(sub).forward.__code__
                self.code[code] = (path, sub._lineno_map, code.co_firstlineno, list(sub.graph.nodes))

    def __call__(self):
        names = []
        f = sys._getframe(2)
        while f is not None:
            hit = self.code.get(f.f_code)
            if hit is not None:
                path, lines, first, nodes = hit
                idx = lines.get(f.f_lineno - first)
                names.append((path + ":" if path else "") + (nodes[idx].name if idx is not None else "?"))
            f = f.f_back
        return "/".join(reversed(names)) or "-"


# ------------------------------------------------------------------------------------------------ our tracker
def _cond_eager(pred, true_fn, false_fn, operands):
    return true_fn(*operands) if pred else false_fn(*operands)


def _scan_eager(combine_fn, init, xs, additional_inputs, mutated_arg_indices=""):
    from torch._higher_order_ops.scan import generic_scan
    return generic_scan(combine_fn, init, xs, additional_inputs=additional_inputs)


def hop_eager(hop):
    """A higher-order op's eager implementation that may run under dispatch modes: its
    CompositeExplicitAutograd kernel, except for cond and scan, whose kernels refuse a mode
    (these are the same code without the check)."""
    return {"cond": _cond_eager, "scan": _scan_eager}.get(
        hop.name(), hop.py_kernels[torch._C.DispatchKey.CompositeExplicitAutograd])


class ActivationTracker(TorchDispatchMode):
    """Live activation bytes per device, op by op (see the module docstring). Holds no reference to
    any tensor or storage: storages are keyed weakly, their deaths reported by weakref.finalize."""

    supports_higher_order_operators = True

    def __init__(self, locate=None, trace=False):
        super().__init__()
        self.depth = 0
        self.known = WeakIdKeyDictionary()  # storage -> record [sid, kind, nbytes, device]
        self.sids = 0
        self.live = collections.Counter()
        self.peak = collections.Counter()
        self.peak_op = {}
        self.frees = []  # (sid, nbytes) freed since the last op
        self.ops = 0
        self.locate = locate
        self.trace = [] if trace else None
        self.active = False

    def register(self, t, kind):
        t = plain(t)
        st = t.untyped_storage()
        if st not in self.known:
            self.known[st] = [self.sids, kind, st.nbytes(), str(t.device)]
            self.sids += 1

    def _freed(self, rec):
        if not self.active:
            return
        self.live[rec[3]] -= rec[2]
        self.frees.append((rec[0], rec[2]))

    def _flush(self):
        if self.trace is not None and self.trace:
            self.trace[-1]["freed"] += self.frees
        self.frees = []

    def __enter__(self):
        self.depth += 1
        self.active = True
        return super().__enter__()

    def __exit__(self, *a):
        self.depth -= 1
        if self.depth == 0:
            self._flush()
            self.active = False
        return super().__exit__(*a)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self._flush()  # what died since the previous op belongs to it
        if isinstance(func, torch._ops.HigherOrderOperator):
            # its eager kernel, with this mode on again so that the ops of its subgraphs reach it
            # (and, below it, MemTracker); the outputs are then checked like any op's. Parameters
            # reach the subgraph modules detached (the same storage): MemTracker's ModTracker hooks a
            # module called with a tensor that requires grad, which fails under no_grad
            with torch.utils._python_dispatch._disable_current_modes():
                args, kwargs = pytree.tree_map_only(
                    torch.Tensor, lambda t: t.detach() if t.requires_grad else t, (args, kwargs or {}))
            with self:
                out = hop_eager(func)(*args, **kwargs)
        else:
            out = func(*args, **(kwargs or {}))
        self.ops += 1
        new = []
        for t in map(plain, tensor_leaves(out)):
            st = t.untyped_storage()
            rec = self.known.get(st)
            if rec is None:
                rec = [self.sids, "activation", st.nbytes(), str(t.device)]
                self.sids += 1
                self.known[st] = rec
                weakref.finalize(st, self._freed, rec).atexit = False
                self.live[rec[3]] += rec[2]
                new.append((rec[0], rec[2]))
            elif rec[1] == "activation" and st.nbytes() != rec[2]:  # resized in place
                self.live[rec[3]] += st.nbytes() - rec[2]
                new.append((rec[0], st.nbytes() - rec[2]))
                rec[2] = st.nbytes()
        where = self.locate() if self.locate is not None else "-"
        for dev, b in self.live.items():
            if b > self.peak[dev]:
                self.peak[dev] = b
                self.peak_op[dev] = (op_name(func), where)
        if self.trace is not None:
            self.trace.append({"op": op_name(func), "node": where, "new": new,
                               "live": dict(self.live), "freed": []})
        return out


# ------------------------------------------------------------------------------------------------ graph model
class _Sizes(torch.fx.Interpreter):
    """Runs the top-level graph node by node, recording per node its tensor leaves as
    (storage id, nbytes of its storage, numel * element size, device), the storage ids being run-time
    identity (the same storage: the same id). Keeps no tensor beyond what the Interpreter keeps."""

    def __init__(self, m, registered):
        super().__init__(m, garbage_collect_values=True)
        self.ids = WeakIdKeyDictionary()
        self.next = 0
        self.leaves = {}
        for t, _ in registered:
            self._sid(t)

    def _sid(self, t):
        st = plain(t).untyped_storage()
        if st not in self.ids:
            self.ids[st] = self.next
            self.next += 1
        return self.ids[st]

    def run_node(self, n):
        v = super().run_node(n)
        self.leaves[n] = pytree.tree_map(
            lambda t: _Leaf(self._sid(t), plain(t).untyped_storage().nbytes(), plain(t).numel() * t.element_size(),
                            str(t.device)) if isinstance(t, torch.Tensor) else None, v)
        return v


class _Leaf:
    """A tensor leaf of a node's value (a pytree leaf itself, unlike a tuple)."""
    __slots__ = ("sid", "nbytes", "exact", "device")

    def __init__(self, sid, nbytes, exact, device):
        self.sid, self.nbytes, self.exact, self.device = sid, nbytes, exact, device


def _schema_alias(n, i):
    """The node whose i-th output the op's schema says the output aliases (Tensor(a) / Tensor(a!)
    returns), or None."""
    f = n.target
    if not isinstance(f, torch._ops.OpOverload):
        return None
    rets = f._schema.returns
    if len(rets) == 1 and isinstance(rets[0].type, torch.ListType):
        i = 0  # Tensor(a)[]: every element (split, chunk, unbind)
    if i >= len(rets) or rets[i].alias_info is None:
        return None
    want = set(rets[i].alias_info.before_set)
    # a list's element alias set is not bound in Python: Tensor(a)[] matches the argument Tensor(a -> *)
    wildcard = not want and isinstance(rets[i].type, torch.ListType)
    for j, a in enumerate(f._schema.arguments):
        if a.alias_info is not None and (set(a.alias_info.before_set) & want
                                         or wildcard and "*" in a.alias_info.after_set):
            v = n.args[j] if j < len(n.args) else n.kwargs.get(a.name)
            if isinstance(v, torch.fx.Node):
                return v
    return None


def graph_walk(m, flat, registered, schema_only):
    """Node-level liveness over m's top-level graph (see the module docstring); returns
    ({device: peak}, per-node rows [(node, new [(sid, bytes)], {device: live}, freed [(sid, bytes)])])."""
    interp = _Sizes(m, registered)
    with torch.no_grad():
        interp.run(*flat, enable_io_processing=False)
    fixed = set()
    for t, _ in registered:
        fixed.add(interp._sid(t))
    nodes = list(m.graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    # the storages each node's value stands on
    storage_of = {}  # node -> list of sids of its tensor leaves (flattened)
    size = {}  # sid -> (bytes, device)
    fresh = 0

    def new_sid(b, dev):
        nonlocal fresh
        fresh += 1
        sid = ("n", fresh)
        size[sid] = (b, dev)
        return sid

    for n in nodes:
        leaves = interp.leaves.get(n)
        flat_leaves = [x for x in pytree.tree_leaves(leaves) if x is not None] if leaves is not None else []
        sids = []
        if n.op in ("placeholder", "get_attr"):
            sids = [("f", x.sid) for x in flat_leaves]
        elif n.op == "output":
            sids = []
        elif not schema_only:
            for x in flat_leaves:
                sid, nb, dev = x.sid, x.nbytes, x.device
                key = ("f", sid) if sid in fixed else ("r", sid)
                if key not in size and key[0] == "r":
                    size[key] = (nb, dev)
                sids.append(key)
        elif n.op == "call_function" and n.target is operator.getitem:
            src = n.args[0]
            src_leaves = interp.leaves.get(src)
            # the element's leaves: their positions among the source's flattened leaves
            idx = n.args[1]
            pos = 0
            for k, item in enumerate(src_leaves):
                cnt = len([x for x in pytree.tree_leaves(item) if x is not None])
                if k == idx:
                    sids = storage_of[src][pos:pos + cnt]
                    break
                pos += cnt
        else:
            for i, x in enumerate(flat_leaves):
                exact, dev = x.exact, x.device
                base = _schema_alias(n, i) if n.op == "call_function" else None
                if base is not None and storage_of.get(base):
                    sids.append(storage_of[base][0])
                else:
                    sids.append(new_sid(exact, dev))
        storage_of[n] = sids
    # last use of each storage: the last node using any value standing on it; outputs: the end
    last = {}
    end = len(nodes)
    for n in nodes:
        for s in storage_of[n]:
            last[s] = max(last.get(s, -1), index[n])
        for u in n.all_input_nodes:
            for s in storage_of.get(u, []):
                last[s] = max(last.get(s, -1), index[n])
    for n in nodes:
        if n.op == "output":
            for u in n.all_input_nodes:
                for s in storage_of.get(u, []):
                    last[s] = end
    live, peak, rows, allocated = collections.Counter(), collections.Counter(), [], set()
    frees_at = collections.defaultdict(list)
    for s, i in last.items():
        frees_at[i].append(s)
    for i, n in enumerate(nodes):
        new = []
        for s in storage_of[n]:
            if s[0] != "f" and s not in allocated:
                allocated.add(s)
                b, dev = size[s]
                live[dev] += b
                new.append((s, b))
        for dev, b in live.items():
            peak[dev] = max(peak[dev], b)
        snapshot = dict(live)
        freed = []
        for s in frees_at.get(i, []):
            if s in allocated:
                b, dev = size[s]
                live[dev] -= b
                freed.append((s, b))
        rows.append((n, new, snapshot, freed))
    return dict(peak), rows


# ------------------------------------------------------------------------------------------------ measuring
def storage_bytes(tensors):
    """{device: bytes} over the unique storages of tensors."""
    seen, out = set(), collections.Counter()
    for t in tensors:
        st = t.untyped_storage()
        key = (st.data_ptr(), st.nbytes(), str(t.device)) if st.nbytes() else id(t)
        if key in seen:
            continue
        seen.add(key)
        out[str(t.device)] += st.nbytes()
    return out


def module_tensors(m):
    """(tensor, kind) for every parameter, buffer and plain tensor attribute (constant) of m's
    module tree."""
    out, seen = [], set()
    for _, p in m.named_parameters(remove_duplicate=False):
        if id(p) not in seen:
            seen.add(id(p))
            out.append((p, "parameter"))
    for _, b in m.named_buffers(remove_duplicate=False):
        if id(b) not in seen:
            seen.add(id(b))
            out.append((b, "buffer"))
    for sub in m.modules():
        for v in vars(sub).values():
            if isinstance(v, torch.Tensor) and id(v) not in seen:
                seen.add(id(v))
                out.append((v, "constant"))
    return out


def state_bytes(ep):
    sig = ep.graph_signature
    params = [ep.state_dict[n] for n in sig.parameters]
    buffers = [ep.state_dict[n] if n in ep.state_dict else ep.constants[n] for n in sig.buffers]
    consts = [ep.constants[n] for n in sig.lifted_tensor_constants if isinstance(ep.constants.get(n), torch.Tensor)]
    return storage_bytes(params), storage_bytes(buffers), storage_bytes(consts)


def measure(ep, args, kwargs, trace=False):
    """Runs ep.module() on (args, kwargs) under MemTracker and ActivationTracker; returns the record
    (and, with trace, the op rows and the node rows)."""
    m = ep.module()
    # MemTracker hooks the gradient of every parameter of a module it sees run, and fails on one that
    # does not require grad (sinusoidal position tables of Pegasus, Marian, Whisper): all do here,
    # which under no_grad changes nothing that runs
    for p in m.parameters():
        if p.is_floating_point() or p.is_complex():
            p.requires_grad_(True)
    # the graph walks run on copies of the inputs as they were (a program may write to its inputs)
    flat = [x.clone() if isinstance(x, torch.Tensor) else x for x in pytree.tree_leaves((args, kwargs))]
    inputs = tensor_leaves((args, kwargs))
    registered = [(t, "input") for t in inputs] + module_tensors(m)
    ours = ActivationTracker(NodeLocator(m), trace=trace)
    for t, kind in registered:
        ours.register(t, kind)
    mt = MemTracker()
    mt.track_external(m, *inputs, *[t for t, kind in registered if kind == "constant"])
    gc.collect()
    gc.disable()
    try:
        with torch.no_grad(), mt, ours:
            out = m(*args, **kwargs)
    finally:
        gc.enable()
    at_end = collections.Counter()
    seen = set()
    for t in map(plain, tensor_leaves(out)):
        rec = ours.known.get(t.untyped_storage())
        if rec is not None and rec[1] == "activation" and rec[0] not in seen:
            seen.add(rec[0])
            at_end[rec[3]] += rec[2]
    mt_peak = {str(dev): {str(k.value if hasattr(k, "value") else k): v for k, v in snap.items()}
               for dev, snap in mt.get_tracker_snapshot("peak").items()}
    del out
    walks = []
    for schema_only in (False, True):
        copy = [x.clone() if isinstance(x, torch.Tensor) else x for x in flat]
        walks.append(graph_walk(m, copy, [(t, "input") for t in tensor_leaves(copy)] + module_tensors(m), schema_only))
    (graph_node, node_rows), (graph_schema, _) = walks
    params, buffers, consts = state_bytes(ep)
    in_bytes = storage_bytes(inputs)
    devices = set(mt_peak) | set(ours.peak) | set(params) | set(buffers) | set(in_bytes) | set(graph_node)
    rec = {"devices": {}, "ops": ours.ops}
    for dev in sorted(devices):
        snap = mt_peak.get(dev, {})
        rec["devices"][dev] = {
            "memtracker_peak": {k: snap.get(k, 0) for k in CATEGORIES},
            "activation_peak": ours.peak.get(dev, 0),
            "activation_at_end": at_end.get(dev, 0),
            "graph_node_peak": graph_node.get(dev, 0),
            "graph_schema_peak": graph_schema.get(dev, 0),
            "parameter_bytes": params.get(dev, 0),
            "buffer_bytes": buffers.get(dev, 0),
            "constant_bytes": consts.get(dev, 0),
            "input_bytes": in_bytes.get(dev, 0),
        }
        for k, v in snap.items():  # Gradient, Temp, Optstate: only where non-zero (never, forward only)
            if k not in CATEGORIES and v:
                rec["devices"][dev]["memtracker_peak"][k] = v
    if ours.peak_op:
        dev = max(ours.peak, key=lambda d: ours.peak[d])
        rec["peak_op"], rec["peak_node"] = ours.peak_op[dev]
    return (rec, ours.trace, node_rows) if trace else rec


# ------------------------------------------------------------------------------------------------ inputs
def load_corpus_program(corpus, name):
    path = os.path.join(corpus, name + ".pt2")
    gen_decomposed.import_pytree_types(path)
    ep = torch.export.load(path)
    with open(os.path.join(corpus, name + ".json")) as f:
        meta = json.load(f)
    tensors = load_file(os.path.join(corpus, name + ".inputs.safetensors"))
    flat = [tensors[u["name"]] if u["kind"] == "tensor" else u["value"] for u in meta["user_inputs"]]
    args, kwargs = pytree.tree_unflatten(flat, ep.call_spec.in_spec)
    return ep, meta, tuple(args), dict(kwargs)


def zoo_program(case, batch, seq):
    cfg, model, dtype = gen_zoo_golden.build_model(case)
    args, kwargs = gen_zoo_golden.example_inputs(case, cfg, batch, seq)
    ep = torch.export.export(model, args, kwargs, strict=False)
    golden = os.path.join("tests/fixtures/zoo_golden", case + ".config.json")
    mine = json.loads(json.dumps(gen_zoo_golden.config_dict(case, cfg, dtype), sort_keys=True, default=str))
    same = None
    if os.path.exists(golden):
        with open(golden) as f:
            same = mine == json.load(f)
    return ep, args, kwargs, dtype, same


# ------------------------------------------------------------------------------------------------ reports
def compare_line(name, rec):
    parts = []
    bad = False
    for dev, d in sorted(rec["devices"].items()):
        mt_act = d["memtracker_peak"]["Activation"]
        agree = mt_act == d["activation_peak"]
        bad |= not agree
        parts.append("%s: ours %d memtracker %d%s graph node %d schema %d (+%d within nodes)" % (
            dev, d["activation_peak"], mt_act, "" if agree else " MISMATCH", d["graph_node_peak"],
            d["graph_schema_peak"], d["activation_peak"] - d["graph_node_peak"]))
    return "%s %s  [peak after %s at %s]" % (name, "; ".join(parts), rec.get("peak_op"), rec.get("peak_node")), bad


def print_trace(name, rec, ops, node_rows):
    def sid(s):
        return "S%d" % s if isinstance(s, int) else "N%s" % (s[1],)

    def live(d):
        return " ".join("%s=%d" % kv for kv in sorted(d.items())) or "0"

    print("# %s: aten ops as executed (after decomposition); bytes are storage bytes" % name)
    print("# new: storages the op returned that did not exist (a view/in-place result adds none)")
    print("# freed: storages that died after this op, before the next one")
    print("%5s  %-44s %-50s %10s  %-22s %-16s %s" % ("#", "node", "op", "new bytes", "new", "live after", "freed"))
    for i, r in enumerate(ops):
        nb = sum(b for _, b in r["new"])
        print("%5d  %-44s %-50s %10d  %-22s %-16s %s" % (
            i, r["node"], r["op"], nb, " ".join("%s:%d" % (sid(s), b) for s, b in r["new"]),
            live(r["live"]), " ".join("%s:%d" % (sid(s), b) for s, b in r["freed"])))
    print()
    print("# %s: node-level walk of the top-level graph (graph_node_peak): N<k> a node's storage" % name)
    print("%5s  %-44s %-50s %10s  %-22s %-16s %s" % ("#", "node", "target", "new bytes", "new", "live after", "freed"))
    for i, (n, new, snap, freed) in enumerate(node_rows):
        if n.op in ("placeholder", "get_attr") or (n.op == "call_module" and not new):
            continue
        print("%5d  %-44s %-50s %10d  %-22s %-16s %s" % (
            i, n.name, op_name(n.target) if n.op == "call_function" else n.op, sum(b for _, b in new),
            " ".join("%s:%d" % (sid(s), b) for s, b in new), live(snap),
            " ".join("%s:%d" % (sid(s), b) for s, b in freed)))
    print()
    for dev, d in sorted(rec["devices"].items()):
        print("# %s %s: %s" % (name, dev, json.dumps(d, sort_keys=True)))
    print("# peak after %s at node %s" % (rec.get("peak_op"), rec.get("peak_node")))


def run_trace(a):
    if a.trace.startswith("zoo:"):
        parts = a.trace.split(":")
        case = parts[1]
        b, s = (int(parts[2]), int(parts[3])) if len(parts) > 3 else (2, 8)
        ep, args, kwargs, _, _ = zoo_program(case, b, s)
    else:
        ep, _, args, kwargs = load_corpus_program(a.corpus, a.trace)
    rec, ops, rows = measure(ep, args, kwargs, trace=True)
    print_trace(a.trace, rec, ops, rows)


def dump(obj, path, merge=False):
    """Writes obj as JSON; `merge` (an --only run): the file's other cases are kept, these replace
    theirs, so regenerating one case does not drop the rest."""
    if merge and os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        for key in ("cases", "programs", "formulas"):
            if isinstance(old.get(key), dict) and isinstance(obj.get(key), dict):
                old[key].update(obj[key])
                obj[key] = old[key]
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/memory")
    ap.add_argument("--corpus", default="tests/fixtures/corpus")
    ap.add_argument("--only", default="", help="comma-separated corpus program / zoo case names")
    ap.add_argument("--no-zoo", action="store_true")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--debug", action="store_true", help="raise a program's error instead of recording it")
    ap.add_argument("--trace", help="corpus program NAME, or zoo:CASE[:B:S]: print its op-by-op trace")
    a = ap.parse_args()
    if a.trace:
        return run_trace(a)
    only = set(a.only.split(",")) if a.only else None
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    mismatches = failed = 0
    counts = collections.Counter()
    if not a.no_corpus:
        with open(os.path.join(a.corpus, "MANIFEST.json")) as f:
            # The op programs (corpus_ops.py, source "ops") judge decompositions; the memory
            # calibration is over the programs users hold, whose peaks are their ops' outputs, not
            # single kernels' internal scratch (var/std, rms_norm, einsum run on a 5-wide tensor).
            names = [c["name"] for c in json.load(f)["cases"] if c.get("source") != "ops"]
        corpus = {}
        for name in names:
            if only and name not in only:
                continue
            torch.fx.graph_module._loader.next_id = 0
            try:
                ep, meta, args, kwargs = load_corpus_program(a.corpus, name)
            except Exception as e:  # noqa: BLE001 - recorded, not fatal
                corpus[name] = {"error": "load: " + first_line(e)}
                failed += 1
                print(name, "LOAD FAILED", corpus[name]["error"], flush=True)
                continue
            try:
                rec = measure(ep, args, kwargs)
            except Exception as e:  # noqa: BLE001
                if a.debug:
                    raise
                reset_functorch()
                corpus[name] = {"error": "run: " + first_line(e)}
                failed += 1
                print(name, "RUN FAILED", corpus[name]["error"], flush=True)
                continue
            rec["dynamic"] = bool(meta.get("dynamic"))
            corpus[name] = rec
            counts["corpus"] += 1
            line, bad = compare_line(name, rec)
            mismatches += bad
            print(line, flush=True)
        dump({"torch": torch.__version__, "transformers": transformers.__version__,
              "generator": "tools/oracle/scripts/gen_memory_peaks.py", "programs": corpus},
             os.path.join(a.out, "corpus.json"), merge=only is not None)
    if not a.no_zoo:
        zoo = {}
        for case in gen_zoo_golden.CASES:
            if only and case not in only:
                continue
            for b, s in ZOO_SHAPES:
                key = "%s@%dx%d" % (case, b, s)
                try:
                    ep, args, kwargs, dtype, same = zoo_program(case, b, s)
                    rec = measure(ep, args, kwargs)
                except Exception as e:  # noqa: BLE001
                    reset_functorch()
                    zoo[key] = {"error": first_line(e)}
                    failed += 1
                    print(key, "FAILED", zoo[key]["error"], flush=True)
                    continue
                mtype = gen_zoo_golden.CASES[case][0]
                rec.update({"case": case, "model_type": mtype, "dtype": dtype, "batch": b,
                            "seq": None if mtype == "vit" else s, "config_equals_golden": same})
                zoo[key] = rec
                counts["zoo"] += 1
                line, bad = compare_line(key, rec)
                mismatches += bad
                print(line + ("" if same else "  CONFIG DIFFERS from zoo_golden"), flush=True)
        dump({"torch": torch.__version__, "transformers": transformers.__version__,
              "generator": "tools/oracle/scripts/gen_memory_peaks.py", "shapes": ["%dx%d" % bs for bs in ZOO_SHAPES],
              "cases": zoo}, os.path.join(a.out, "zoo.json"), merge=only is not None)
    print("memory peaks: %d corpus programs and %d zoo exports measured, %d failed, %d disagree with MemTracker's "
          "Activation at its peak, %.0f s" % (counts["corpus"], counts["zoo"], failed, mismatches, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
