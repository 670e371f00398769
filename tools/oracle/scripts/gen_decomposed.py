"""PyTorch 2.14's ep.run_decompositions() of every committed corpus program (issue 14, item 1).

    tools/oracle/run tools/oracle/scripts/gen_decomposed.py [--corpus DIR] [--out DIR] [--only NAME,...]

For each DIR/NAME.pt2 (default tests/fixtures/corpus) loaded with torch.export.load (transformers is
imported first: HF programs name its output classes and custom ops), writes to OUT (default
tests/fixtures/decomposed):
  NAME.txt      str(ep.run_decompositions())       the default Core ATen table
  NAME.only.txt str(ep.run_decompositions(get_decompositions(ONLY)))  a fixed --only list (see ONLY)
and OUT/MANIFEST.json: per program the ops before and after (histograms), or why PyTorch failed.
"""
import argparse
import collections
import glob
import importlib
import json
import os
import re
import sys
import traceback
import zipfile

import torch
import transformers  # noqa: F401  (pytree nodes of HF output classes, transformers:: custom ops)
from torch._decomp import get_decompositions

torch.set_num_threads(1)
# The --only case: what a backend that lowers only these asks for (fakeexport decompose --only ...).
ONLY = ["aten.linear", "aten.t", "aten.transpose.int", "aten.layer_norm", "aten.silu"]


def op_name(t):
    if isinstance(t, torch._ops.OpOverload):
        return "%s.%s" % (t._schema.name.replace("::", "."), t._overloadname)
    return getattr(t, "__name__", str(t))


def histogram(ep):
    h = collections.Counter()
    for m in ep.graph_module.modules():
        if isinstance(m, torch.fx.GraphModule):
            for n in m.graph.nodes:
                if n.op == "call_function":
                    h[op_name(n.target)] += 1
    return dict(sorted(h.items()))


def resolve(name):
    ns, rest = name.split(".", 1)
    packet, _, overload = rest.partition(".")
    p = getattr(getattr(torch.ops, ns), packet)
    return getattr(p, overload) if overload else p


def import_pytree_types(path):
    """Imports the transformers modules whose classes the archive's pytree specs name (torch.export.load
    needs them registered; transformers registers an output class when its module is imported)."""
    with zipfile.ZipFile(path) as z:
        text = " ".join(z.read(n).decode("utf-8", "replace") for n in z.namelist() if n.endswith(".json"))
    for cls in set(re.findall(r"transformers(?:\.\w+)+", text)):
        mod = cls.rsplit(".", 1)[0]
        try:
            importlib.import_module(mod)
        except ImportError:
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="tests/fixtures/corpus")
    ap.add_argument("--out", default="tests/fixtures/decomposed")
    ap.add_argument("--only")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    manifest = {"torch": torch.__version__, "only_table": ONLY, "programs": {}}
    for path in sorted(glob.glob(os.path.join(a.corpus, "*.pt2"))):
        name = os.path.basename(path)[:-4]
        if only and name not in only:
            continue
        rec = {}
        try:
            import_pytree_types(path)
            ep = torch.export.load(path)
            rec["ops_before"] = histogram(ep)
            d = ep.run_decompositions()
            rec["ops_after"] = histogram(d)
            with open(os.path.join(a.out, name + ".txt"), "w") as f:
                f.write(str(d))
            o = ep.run_decompositions(get_decompositions([resolve(x) for x in ONLY]))
            with open(os.path.join(a.out, name + ".only.txt"), "w") as f:
                f.write(str(o))
        except Exception as e:
            rec["error"] = ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:500]
            traceback.print_exc()
        manifest["programs"][name] = rec
        print(name, "error" if "error" in rec else "ok", flush=True)
    with open(os.path.join(a.out, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
