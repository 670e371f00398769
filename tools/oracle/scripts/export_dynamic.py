"""The dynamic-shape examples of the torch.export tutorial (seed 004: "Constraints/Dynamic Shapes",
"Named Dims", "Constraint violations, suggested fixes", "0/1 specialization", "Control Flow Ops"),
run by PyTorch 2.14. Writes tests/fixtures/dynamic/<case>.txt: the printed ExportedProgram, or
"ERROR <type>\n<message>" when export raises. Fixtures for issue 4 (symbolic shapes)."""
import os

import torch
from torch.export import Dim, export

OUT = os.environ.get("FE_DYNAMIC_OUT", "tests/fixtures/dynamic")  # check_dynamic.py writes elsewhere
os.makedirs(OUT, exist_ok=True)


def record(name, fn):
    try:
        text = fn()
    except Exception as e:  # noqa: BLE001 - the error is the fixture
        text = "ERROR %s\n%s" % (type(e).__name__, str(e).split("\nException raised from ")[0].strip())
    with open(os.path.join(OUT, name + ".txt"), "w") as fh:
        fh.write(text if text.endswith("\n") else text + "\n")


class DynamicModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(5, 3)

    def forward(self, w, x, y, z):
        x0 = x + y
        x1 = self.l(w)
        x2 = x0.flatten()
        x3 = x2 + z
        return x1, x3


class DynamicModelChecks(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(5, 3)

    def forward(self, w, x, y, z):
        assert w.shape[0] <= 512
        torch._check(x.shape[0] >= 16)
        if w.shape[0] == x.shape[0] + 2:
            x0 = x + y
            x1 = self.l(w)
            x2 = x0.flatten()
            x3 = x2 + z
            return x1, x3
        else:
            return w


def auto():
    return {"w": (Dim.AUTO, Dim.AUTO), "x": (Dim.AUTO,), "y": (Dim.AUTO, Dim.AUTO), "z": (Dim.AUTO,)}


w, x, y, z = torch.randn(6, 5), torch.randn(4), torch.randn(8, 4), torch.randn(32)
record("static", lambda: str(export(DynamicModel(), (w, x, y, z))))
record("auto", lambda: str(export(DynamicModel(), (w, x, y, z), dynamic_shapes=auto())))


def dynamic_specialized():
    ds = auto()
    ds["w"] = (Dim.AUTO, Dim.DYNAMIC)
    return str(export(DynamicModel(), (w, x, y, z), dynamic_shapes=ds))


record("dynamic_specialized_error", dynamic_specialized)


def conflicting():
    ds = auto()
    ds["x"] = (Dim.STATIC,)
    ds["y"] = (Dim.AUTO, Dim.DYNAMIC)
    return str(export(DynamicModel(), (w, x, y, z), dynamic_shapes=ds))


record("conflicting_markers_error", conflicting)
w2, x2, y2, z2 = torch.randn(18, 5), torch.randn(16), torch.randn(8, 16), torch.randn(128)
record("checks", lambda: str(export(DynamicModelChecks(), (w2, x2, y2, z2), dynamic_shapes=auto())))

lin = export(torch.nn.Linear(4, 3), (torch.randn(1, 4),), dynamic_shapes={"input": (Dim.AUTO, Dim.STATIC)})
record("zero_one_linear", lambda: str(lin))
record("zero_one_linear_run_error", lambda: str(lin.module()(torch.randn(2, 4))))


class Named(torch.nn.Module):
    def forward(self, x, y):
        return x.sum() + y.sum()


dx = Dim("dx", min=4, max=256)
dh = Dim("dh", max=512)
record("named_dims", lambda: str(export(Named(), (torch.randn(8, 3), torch.randn(16, 5)),
                                        dynamic_shapes={"x": (dx, None), "y": (2 * dx, dh)})))


class Foo(torch.nn.Module):
    def forward(self, x, y):
        w = x + y
        return w + torch.ones(4)


def foo():
    dx_, dy_, d1_ = torch.export.dims("dx", "dy", "d1")
    return str(export(Foo(), (torch.randn(6, 4), torch.randn(6, 4)),
                      dynamic_shapes={"x": (dx_, d1_), "y": (dy_, d1_)}))


record("foo_constraint_violation_error", foo)


class Bad1(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x.sin()
        return x.cos()


record("data_dependent_error", lambda: str(export(Bad1(), (torch.randn(3, 3),))))


class Bad1Fixed(torch.nn.Module):
    def forward(self, x):
        def true_fn(x):
            return torch.sin(x)

        def false_fn(x):
            return torch.cos(x)

        return torch.cond(x.sum() > 0, true_fn, false_fn, [x])


record("cond", lambda: str(export(Bad1Fixed(), (torch.randn(3, 3),))))
print("\n".join(sorted(os.listdir(OUT))))


class RangeBad(torch.nn.Module):
    """A named Dim whose range is wider than the code allows: Suggested fixes give the narrower Dim."""

    def forward(self, x):
        assert x.shape[0] <= 6
        return x.sin()


record("range_violation_error",
       lambda: str(export(RangeBad(), (torch.randn(5),), dynamic_shapes={"x": (Dim("dim", min=3, max=100),)})))


class Sin(torch.nn.Module):
    def forward(self, x):
        return x.sin() + 1


# PyTorch's suggested fix for a mask padded to 8 columns (seq = 8*_seq, _seq = Dim('_seq', min=1, ...))
# from an example of 8: the new root is 1, which export specializes.
_seq = Dim("_seq", min=1, max=8)
record("derived_root_one_error",
       lambda: str(export(Sin(), (torch.randn(2, 8),), dynamic_shapes=({0: Dim("batch", min=1, max=1024), 1: 8 * _seq},))))
record("derived_root_two",
       lambda: str(export(Sin(), (torch.randn(2, 16),), dynamic_shapes=({0: Dim("batch", min=1, max=1024), 1: 8 * _seq},))))
