"""FLOP counts of PyTorch 2.14's torch.utils.flop_counter.FlopCounterMode running exported programs on CPU
(issue 17: `flop_counter_flops` must equal FlopCounterMode's total on every program of the corpus and
the zoo).

    tools/oracle/run tools/oracle/scripts/gen_flop_counts.py [--out DIR] [--corpus DIR] [--only NAME,...]
                                                           [--no-zoo] [--no-corpus]

The programs are gen_memory_peaks.py's (imported from it: load_corpus_program, zoo_program, the eager
higher-order ops): every corpus program with its sample inputs, and every zoo case of gen_zoo_golden's
CASES exported statically at (batch, seq) = (2, 8) and (4, 32). Each runs, on CPU with one thread, as

    m = ep.module()
    with torch.no_grad(), OpTrace(), FlopCounterMode(display=False) as fc:
        m(*args, **kwargs)

OpTrace (below FlopCounterMode on the mode stack, so it sees exactly the aten ops FlopCounterMode passed
on to the kernels, after autograd's CompositeImplicitAutograd decompositions: aten.linear as aten.t +
aten.addmm, matmul as mm/bmm/mv/dot, sdpa as _scaled_dot_product_flash_attention_for_cpu) counts them,
notes an op that reached it through FlopCounterMode's own func.decompose() (its fallback for an op
without a formula), and applies the formula of flop_registry to each op itself, which must add up to
fc's total (it does, except around cond, which FlopCounterMode merges per op). FlopCounterMode
handles one higher-order op, cond (each branch counted, see below); for any other (while_loop, scan,
map_impl, with_effects) its __torch_dispatch__ returns NotImplemented, which becomes the op's value and
the program fails. Such a program is recorded with that error (flop_counter_error) and run again with
HopRunner above FlopCounterMode: it runs those ops' eager implementations (gen_memory_peaks.hop_eager)
with the modes on, so their subgraphs' ops reach FlopCounterMode as they execute (a while_loop body
counted once per iteration, a scan/map body once per element), and passes cond through to
FlopCounterMode's own rule; that count is `total` (eager_hops names the ops).

Per program (corpus.json: "programs" by NAME; zoo.json: "cases" by "CASE@BxS"), or {"error": first
line} where it does not load or run:
  total      fc.get_total_flops()
  by_op      {str(op packet): flops} of fc.get_flop_counts()["Global"] (only ops with a formula appear)
  executed   {str(aten overload): how many times it ran}, OpTrace's count over the whole run
  by_node    FLOPs counted while a node ran, nonzero only: the top-level graph of ep.module() runs again
             under torch.fx.Interpreter with one FlopCounterMode per node (key: the node's name); the
             aten ops of a subgraph (higher-order op, wrap_with_set_grad_enabled's submodule) are
             attributed to the subgraph's node by the frame of its FX-generated forward (key
             "SUBGRAPH/node", SUBGRAPH the submodule's dotted path) and counted by the formula
  node_sum_equals_total  whether the top-level nodes' counts add up to total (stdout says DISAGREE)
  decomposed_by_counter  {op: {op it ran as: count}}: ops FlopCounterMode decomposed itself (only
             where some were)
  flop_counter_error, eager_hops   see above (only where FlopCounterMode alone fails)
  corpus: dynamic; zoo: case, model_type, dtype, batch, seq (null for ViT), config_equals_golden
and, per file, formulas: {op packet: name of its flop_registry formula} for the ops counted.
Counts are exact integers; nothing depends on timing, so two runs write identical files.

What 2.14 counts here, on CPU: only aten.mm (mm_flop), addmm, bmm, baddbmm and convolution (conv_flop)
ever get a count; the graph's aten.linear, matmul, conv1d/conv2d reach FlopCounterMode already
decomposed by autograd's CompositeImplicitAutograd kernels (linear as t + addmm, or mm with no bias;
matmul as mm/bmm, or mv/dot, which have no formula: 0; conv2d as convolution), so its own
func.decompose() fallback never fires (decomposed_by_counter is empty everywhere). CPU sdpa runs as
_scaled_dot_product_flash_attention_for_cpu, which has no formula (0: the registry has the CUDA
flash/efficient/cudnn variants only), and so do transformers.grouped_mm_fallback (the MoE experts; its
kernel's own mm calls run with the modes popped) and aten._grouped_mm (bfloat16 experts): 0.

FlopCounterMode's cond rule, as written in 2.14: it runs both branches and intends, per op, the larger
of the two counts; the checkpoint it restores is a shallow copy, so where "Global" already holds a
count before the cond (anything counted earlier in the same FlopCounterMode) both branches' counts
are added to it instead (the node-level run, a fresh FlopCounterMode per node, gets the per-op max).
"""
import argparse
import collections
import contextlib
import inspect
import json
import os
import sys
import time

import torch
import torch.utils._pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode, _FlopCounterMode, flop_registry

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_memory_peaks as mp  # noqa: E402  (programs, eager higher-order ops, NodeLocator)
import gen_zoo_golden  # noqa: E402

import transformers  # noqa: E402,F401

torch.set_num_threads(1)
GENERATOR = "tools/oracle/scripts/gen_flop_counts.py"


# ------------------------------------------------------------------------------------------------ tracing
def _decompose_line():
    """The line of FlopCounterMode's __torch_dispatch__ that calls func.decompose()."""
    code = _FlopCounterMode.__torch_dispatch__.__code__
    lines, first = inspect.getsourcelines(_FlopCounterMode.__torch_dispatch__)
    for i, text in enumerate(lines):
        if "func.decompose(" in text:
            return code, first + i
    raise RuntimeError("FlopCounterMode.__torch_dispatch__ no longer calls func.decompose")


DECOMPOSE_CODE, DECOMPOSE_LINE = _decompose_line()


def decomposing_parent():
    """The op FlopCounterMode is decomposing (func.decompose) around the current op, or None."""
    f = sys._getframe(2)
    while f is not None:
        if f.f_code is DECOMPOSE_CODE and f.f_lineno == DECOMPOSE_LINE:
            return f.f_locals.get("func")
        f = f.f_back
    return None


def subgraph_key(where):
    """'SUBGRAPH/node' of the innermost subgraph frame in a NodeLocator path, or None (top level)."""
    inner = where.split("/")[-1]
    return inner.replace(":", "/", 1) if ":" in inner else None


class OpTrace(TorchDispatchMode):
    """Below FlopCounterMode: counts the aten ops it passes to the kernels, the ones FlopCounterMode
    decomposed, and the formula's FLOPs per op (total, and per subgraph node)."""

    supports_higher_order_operators = True

    def __init__(self, locate):
        super().__init__()
        self.locate = locate
        self.executed = collections.Counter()
        self.decomposed = collections.defaultdict(collections.Counter)
        self.formula_total = 0
        self.by_subnode = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if isinstance(func, torch._ops.HigherOrderOperator):  # not expected below FlopCounterMode
            self.executed[mp.op_name(func)] += 1
            return out
        self.executed[str(func)] += 1
        parent = decomposing_parent()
        if parent is not None:
            self.decomposed[str(parent)][str(func)] += 1
        formula = flop_registry.get(func._overloadpacket)
        if formula is not None:
            n = formula(*args, **kwargs, out_val=out)
            self.formula_total += n
            key = subgraph_key(self.locate()) if n else None
            if key is not None:
                self.by_subnode[key] += n
        return out


class HopRunner(TorchDispatchMode):
    """Above FlopCounterMode: runs the higher-order ops FlopCounterMode does not handle (everything but
    cond) by their eager implementation with this mode on again, so that their subgraphs' aten ops
    reach FlopCounterMode; cond goes to FlopCounterMode's own rule, its branches wrapped to push this
    mode again (a higher-order op nested in a branch)."""

    supports_higher_order_operators = True

    def __init__(self):
        super().__init__()
        self.ran = set()

    def _again(self, fn):
        def run(*a, **k):
            with self:
                return fn(*a, **k)
        return run

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if isinstance(func, torch._ops.HigherOrderOperator):
            if func is torch.ops.higher_order.cond:
                pred, true_fn, false_fn, operands = args
                return func(pred, self._again(true_fn), self._again(false_fn), operands)
            self.ran.add(func.name())
            # parameters reach the subgraph modules detached (the same storage): FlopCounterMode's
            # ModuleTracker hooks the gradient of a module's requires-grad input, which fails under no_grad
            with torch.utils._python_dispatch._disable_current_modes():
                args, kwargs = pytree.tree_map_only(
                    torch.Tensor, lambda t: t.detach() if t.requires_grad else t, (args, kwargs))
            with self:
                return mp.hop_eager(func)(*args, **kwargs)
        return func(*args, **kwargs)


# ------------------------------------------------------------------------------------------------ counting
class _NodeFlops(torch.fx.Interpreter):
    """The top-level graph node by node, each under its own FlopCounterMode."""

    def __init__(self, m, eager_hops):
        super().__init__(m, garbage_collect_values=True)
        self.eager_hops = eager_hops
        self.flops = {}

    def run_node(self, n):
        if n.op in ("placeholder", "get_attr", "output"):
            return super().run_node(n)
        with contextlib.ExitStack() as stack:
            fc = stack.enter_context(FlopCounterMode(display=False))
            if self.eager_hops:
                stack.enter_context(HopRunner())
            v = super().run_node(n)
        self.flops[n.name] = fc.get_total_flops()
        return v


def run_counted(m, args, kwargs, eager_hops):
    """(FlopCounterMode, OpTrace, HopRunner or None) after one run of m."""
    trace = OpTrace(mp.NodeLocator(m))
    hops = HopRunner() if eager_hops else None
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        stack.enter_context(trace)
        fc = stack.enter_context(FlopCounterMode(display=False))
        if hops is not None:
            stack.enter_context(hops)
        m(*args, **kwargs)
    return fc, trace, hops


def fresh(flat, spec):
    """(args, kwargs) of copies of the inputs as they were (a program may write to its inputs)."""
    args, kwargs = pytree.tree_unflatten([x.clone() if isinstance(x, torch.Tensor) else x for x in flat], spec)
    return tuple(args), dict(kwargs)


def count(ep, args, kwargs, formulas):
    """The record of one program (see the module docstring); raises where it cannot be counted."""
    m = ep.module()
    flat, spec = pytree.tree_flatten((args, kwargs))
    flat = [x.clone() if isinstance(x, torch.Tensor) else x for x in flat]
    rec = {}
    eager_hops = False
    try:
        fc, trace, hops = run_counted(m, *fresh(flat, spec), eager_hops=False)
    except Exception as e:  # noqa: BLE001 - a higher-order op FlopCounterMode does not handle
        mp.reset_functorch()
        rec["flop_counter_error"] = mp.first_line(e)
        eager_hops = True
        m = ep.module()
        fc, trace, hops = run_counted(m, *fresh(flat, spec), eager_hops=True)
        rec["eager_hops"] = sorted(hops.ran)
    total = fc.get_total_flops()
    by_op = {str(k): v for k, v in fc.get_flop_counts().get("Global", {}).items()}
    for k in fc.get_flop_counts().get("Global", {}):
        formulas[str(k)] = flop_registry[k].__name__
    rec.update({"total": total, "by_op": by_op, "executed": dict(trace.executed)})
    if trace.decomposed:
        rec["decomposed_by_counter"] = {k: dict(v) for k, v in trace.decomposed.items()}
    notes = []
    if trace.formula_total != total:
        notes.append("formula sum over executed ops %d != total" % trace.formula_total)
    # node by node: the top-level graph again, one FlopCounterMode per node; subgraph nodes from OpTrace
    interp = _NodeFlops(m, eager_hops)
    node_trace = OpTrace(mp.NodeLocator(m))
    a, k = fresh(flat, spec)
    with torch.no_grad(), node_trace:
        interp.run(*pytree.tree_leaves((a, k)), enable_io_processing=False)
    by_node = {name: f for name, f in interp.flops.items() if f}
    by_node.update({key: f for key, f in node_trace.by_subnode.items() if f})
    rec["by_node"] = by_node
    node_sum = sum(interp.flops.values())
    rec["node_sum_equals_total"] = node_sum == total
    if node_sum != total:
        notes.append("DISAGREE: nodes sum to %d, program total %d" % (node_sum, total))
    return rec, notes


def line(name, rec, notes):
    top = sorted(rec["by_op"].items(), key=lambda kv: -kv[1])
    extra = []
    if "eager_hops" in rec:
        extra.append("eager %s (FlopCounterMode alone: %s)" % (",".join(rec["eager_hops"]), rec["flop_counter_error"]))
    if "decomposed_by_counter" in rec:
        extra.append("decomposed by the counter: %s" % rec["decomposed_by_counter"])
    return "%s total %d %s%s" % (name, rec["total"], " ".join("%s=%d" % kv for kv in top),
                                 "".join("  [%s]" % x for x in extra + notes))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/cost")
    ap.add_argument("--corpus", default="tests/fixtures/corpus")
    ap.add_argument("--only", default="", help="comma-separated corpus program / zoo case names")
    ap.add_argument("--no-zoo", action="store_true")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--debug", action="store_true", help="raise a program's error instead of recording it")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    failed = disagree = 0
    counts = collections.Counter()
    if not a.no_corpus:
        with open(os.path.join(a.corpus, "MANIFEST.json")) as f:
            names = [c["name"] for c in json.load(f)["cases"]]
        corpus, formulas = {}, {}
        for name in names:
            if only and name not in only:
                continue
            torch.fx.graph_module._loader.next_id = 0
            try:
                ep, meta, args, kwargs = mp.load_corpus_program(a.corpus, name)
            except Exception as e:  # noqa: BLE001 - recorded, not fatal
                corpus[name] = {"error": "load: " + mp.first_line(e)}
                failed += 1
                print(name, "LOAD FAILED", corpus[name]["error"], flush=True)
                continue
            try:
                rec, notes = count(ep, args, kwargs, formulas)
            except Exception as e:  # noqa: BLE001
                if a.debug:
                    raise
                mp.reset_functorch()
                corpus[name] = {"error": "run: " + mp.first_line(e)}
                failed += 1
                print(name, "RUN FAILED", corpus[name]["error"], flush=True)
                continue
            rec["dynamic"] = bool(meta.get("dynamic"))
            corpus[name] = rec
            counts["corpus"] += 1
            disagree += not rec["node_sum_equals_total"]
            print(line(name, rec, notes), flush=True)
        mp.dump({"torch": torch.__version__, "transformers": transformers.__version__, "generator": GENERATOR,
                 "formulas": formulas, "programs": corpus}, os.path.join(a.out, "corpus.json"),
                merge=only is not None)
    if not a.no_zoo:
        zoo, formulas = {}, {}
        for case in gen_zoo_golden.CASES:
            if only and case not in only:
                continue
            for b, s in mp.ZOO_SHAPES:
                key = "%s@%dx%d" % (case, b, s)
                try:
                    ep, args, kwargs, dtype, same = mp.zoo_program(case, b, s)
                    rec, notes = count(ep, args, kwargs, formulas)
                except Exception as e:  # noqa: BLE001
                    if a.debug:
                        raise
                    mp.reset_functorch()
                    zoo[key] = {"error": mp.first_line(e)}
                    failed += 1
                    print(key, "FAILED", zoo[key]["error"], flush=True)
                    continue
                mtype = gen_zoo_golden.CASES[case][0]
                rec.update({"case": case, "model_type": mtype, "dtype": dtype, "batch": b,
                            "seq": None if mtype == "vit" else s, "config_equals_golden": same})
                zoo[key] = rec
                counts["zoo"] += 1
                disagree += not rec["node_sum_equals_total"]
                print(line(key, rec, notes) + ("" if same else "  CONFIG DIFFERS from zoo_golden"), flush=True)
        mp.dump({"torch": torch.__version__, "transformers": transformers.__version__, "generator": GENERATOR,
                 "shapes": ["%dx%d" % bs for bs in mp.ZOO_SHAPES], "formulas": formulas, "cases": zoo},
                os.path.join(a.out, "zoo.json"), merge=only is not None)
    print("flop counts: %d corpus programs and %d zoo exports measured, %d failed, %d where the nodes' counts do "
          "not add up to the total, %.0f s" % (counts["corpus"], counts["zoo"], failed, disagree, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
