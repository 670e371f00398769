"""Custom operators defined with torch.library.custom_op + register_fake, exported by PyTorch 2.14:
golden prints, sample inputs and outputs for tests/test_library.cpp, which defines the same ops in C++
(tests/custom_ops_library.cpp, loaded as a shared library) and must print and run the same.

    tools/oracle/run tools/oracle/scripts/gen_custom_ops.py [--out DIR]

seed004:            seed 004's example: sin -> my_custom_library::custom_op (relu) -> cos
stack_rows_dynamic: mylib::stack_rows(x, times) (rows repeated `times` times: a symbolic-shape meta,
                    3*s of a dynamic batch), between relu and add
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
    for op in (torch.ops.my_custom_library.custom_op.default, torch.ops.mylib.stack_rows.default):
        print("schema:", op._schema)
    g = torch.Generator().manual_seed(0)
    cases = {
        "seed004": (CustomOpExample(), (torch.randn(3, 3, generator=g),), None),
        "stack_rows_dynamic": (StackRows(), (torch.randn(4, 5, generator=g),), ({0: Dim("batch", min=2, max=64)},)),
    }
    for name, (model, args, ds) in cases.items():
        ep = torch.export.export(model, args, dynamic_shapes=ds, strict=False)
        with open(os.path.join(o.out, name + ".txt"), "w") as fh:
            fh.write(str(ep))
        save_file({"input_%d" % i: a.contiguous() for i, a in enumerate(args)}, os.path.join(o.out, name + ".inputs.safetensors"))
        out = ep.module()(*args)
        save_file({"output_0": out.contiguous()}, os.path.join(o.out, name + ".outputs.safetensors"))
        print("%s: %d nodes" % (name, len(ep.graph.nodes)))


if __name__ == "__main__":
    main()
