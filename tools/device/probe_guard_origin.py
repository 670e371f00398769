"""Run on a lent GPU machine from the repository root:
    python3 tools/device/probe_guard_origin.py CASE[,CASE...] > OUT.txt
Where the guards that make PyTorch refuse a dynamic seq on CUDA come from: exports each zoo case
(tools/oracle/scripts/gen_zoo_golden.py) on cuda:0 with dynamic batch and seq, and for every guard
ShapeEnv adds that mentions Mod or Min, prints the guard, the Python stack and the C++ stack that
asked for it. What docs/zoo.md's "Dynamic shapes on a GPU" section was read from."""
import os
import runpy
import sys
import traceback

import torch
from torch.export import Dim
from torch.fx.experimental import symbolic_shapes as ss

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
_orig = ss.ShapeEnv._log_guard


def _log_guard(self, prefix, g, forcing_spec):
    s = str(g)
    if "Mod" in s or "Min" in s or "Max" in s:
        print("=== guard", prefix, s, flush=True)
        print("".join(traceback.format_stack(limit=90)[:-1]), flush=True)
        f = sys._getframe(1)
        while f is not None:  # the ops being dispatched, innermost first
            if f.f_code.co_name in ("_dispatch_impl", "__torch_dispatch__", "dispatch") and "func" in f.f_locals:
                print("  op:", f.f_locals["func"], flush=True)
            f = f.f_back
        print(torch._C._get_cpp_backtrace(2, 40), flush=True)
    return _orig(self, prefix, g, forcing_spec)


def main():
    ss.ShapeEnv._log_guard = _log_guard
    g = runpy.run_path(os.path.join(REPO, "tools", "oracle", "scripts", "gen_zoo_golden.py"), run_name="gen_zoo_golden")
    for name in sys.argv[1].split(","):
        cfg, model, _ = g["build_model"](name)
        args, _ = g["example_inputs"](name, cfg)
        ds = ({0: Dim("batch", min=1, max=1024), 1: Dim("seq", min=2, max=cfg.max_position_embeddings)},)
        print("##### case", name, flush=True)
        try:
            torch.export.export(model.to("cuda"), (args[0].to("cuda"),), dynamic_shapes=ds, strict=False)
            print("##### ok", flush=True)
        except Exception as e:  # noqa: BLE001
            print("##### error", str(e).splitlines()[:2], flush=True)


if __name__ == "__main__":
    main()
