"""Custom operators defined with torch.library.custom_op + register_fake, exported by PyTorch 2.14:
golden prints, sample inputs and outputs for tests/test_library.cpp, which defines the same ops in C++
(tests/custom_ops_library.cpp, loaded as a shared library) and must print and run the same.

    tools/oracle/run tools/oracle/scripts/gen_custom_ops.py [--out DIR]

seed004:            seed 004's example: sin -> my_custom_library::custom_op (relu) -> cos
stack_rows_dynamic: mylib::stack_rows(x, times) (rows repeated `times` times: a symbolic-shape meta,
                    3*s of a dynamic batch), between relu and add
mutating:           mylib::add_one_ (mutates an activation and a buffer) and mylib::scale_out (an out=
                    argument), as export records them (the mutating calls stay in the graph); .pt2 kept
mutating_functionalized: the same after run_decompositions(): auto_functionalized_v2 nodes, a buffer
                    mutation output; .pt2 kept (PyTorch's own archives; not byte-stable between runs)
Also prints each op's schema as torch.library.custom_op infers it (our C++ definitions must match).
"""
import argparse
import os

import torch
from safetensors.torch import save_file
from torch.export import Dim

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def define_ops():
    """The ops, as tools/oracle/scripts/check_our_pt2.py also defines them to load our archives."""
    @torch.library.custom_op("my_custom_library::custom_op", mutates_args=())
    def custom_op(input: torch.Tensor) -> torch.Tensor:
        return torch.relu(input)

    @custom_op.register_fake
    def _(x):
        return torch.empty_like(x)

    @torch.library.custom_op("mylib::stack_rows", mutates_args=())
    def stack_rows(x: torch.Tensor, times: int) -> torch.Tensor:
        return torch.cat([x] * times, 0)

    @stack_rows.register_fake
    def _(x, times):
        return x.new_empty((x.shape[0] * times, *x.shape[1:]))


    # Mutating custom ops: export keeps the calls; run_decompositions() functionalizes them into
    # higher_order.auto_functionalized_v2 (clones of the mutated bases, returned after the op's outputs).
    @torch.library.custom_op("mylib::add_one_", mutates_args=("x",))
    def add_one_(x: torch.Tensor, alpha: float) -> None:
        x.add_(alpha)

    @add_one_.register_fake
    def _(x, alpha):
        return None

    @torch.library.custom_op("mylib::scale_out", mutates_args=("out",))
    def scale_out(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        out.copy_(x * 2)
        return x.sum(0)

    @scale_out.register_fake
    def _(x, out):
        return x.new_empty(x.shape[1:])


class Mutating(torch.nn.Module):
    """An activation and a buffer mutated by custom ops, and an out= style op."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(3))

    def forward(self, x):
        y = x * 1
        torch.ops.mylib.add_one_(y, 2.0)
        torch.ops.mylib.add_one_(self.state, 1.0)
        buf = torch.empty_like(x)
        s = torch.ops.mylib.scale_out(y, buf)
        return y + buf, s + self.state


class CustomOpExample(torch.nn.Module):
    def forward(self, x):
        x = torch.sin(x)
        x = torch.ops.my_custom_library.custom_op(x)
        x = torch.cos(x)
        return x


class StackRows(torch.nn.Module):
    def forward(self, x):
        return torch.ops.mylib.stack_rows(torch.relu(x), 3) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "custom_ops"))
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    define_ops()
    for op in (torch.ops.my_custom_library.custom_op.default, torch.ops.mylib.stack_rows.default,
               torch.ops.mylib.add_one_.default, torch.ops.mylib.scale_out.default):
        print("schema:", op._schema)
    g = torch.Generator().manual_seed(0)
    cases = {
        "seed004": (CustomOpExample(), (torch.randn(3, 3, generator=g),), None),
        "stack_rows_dynamic": (StackRows(), (torch.randn(4, 5, generator=g),), ({0: Dim("batch", min=2, max=64)},)),
        "mutating": (Mutating(), (torch.randn(2, 3, generator=g),), None),
        "mutating_functionalized": (Mutating(), (torch.randn(2, 3, generator=g),), None),
    }
    for name, (model, args, ds) in cases.items():
        ep = torch.export.export(model, args, dynamic_shapes=ds, strict=False)
        if name.endswith("_functionalized"):
            ep = ep.run_decompositions()
        if name.startswith("mutating"):
            # The archive, and its print as torch.export.load gives it back (None outputs of
            # auto_functionalized_v2 come back as `as_none` getitems): what our reader must equal.
            torch.export.save(ep, os.path.join(o.out, name + ".pt2"))
            ep = torch.export.load(os.path.join(o.out, name + ".pt2"))
        with open(os.path.join(o.out, name + ".txt"), "w") as fh:
            fh.write(str(ep))
        save_file({"input_%d" % i: a.contiguous() for i, a in enumerate(args)}, os.path.join(o.out, name + ".inputs.safetensors"))
        out = ep.module()(*args)
        out = out if isinstance(out, tuple) else (out,)
        save_file({"output_%d" % i: t.contiguous() for i, t in enumerate(out)},
                  os.path.join(o.out, name + ".outputs.safetensors"))
        print("%s: %d nodes" % (name, len(ep.graph.nodes)))


if __name__ == "__main__":
    main()
