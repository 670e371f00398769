"""Runs an op on fake tensors with symbolic sizes and prints what PyTorch 2.14 computes, with the
input symbols renamed to the names you chose. Use from a script run by tools/oracle/run:

    import sys; sys.path.insert(0, "/repo/tools/oracle")
    from sym_probe import probe, T
    probe(lambda x, y: torch.add(x, y), T(("s0", 4), 8), T(8))

T(*dims, dtype=torch.float32): a dim is an int (static) or (name, hint) (a dynamic symbol, range
[2, int_oo], like an export input dim). probe prints, per output: sizes and strides (sympy strings),
storage_offset, dtype; then the guards PyTorch recorded and the replacements (e.g. s1 -> s0).
Symbols are created in argument order, so a replacement prefers the lexicographically larger name
on equal hints exactly as in export."""
import torch
import sympy
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv, DimDynamic, StatelessSymbolicContext
from torch._dynamo.source import ConstantSource


class T:
    def __init__(self, *dims, dtype=torch.float32):
        self.dims, self.dtype = dims, dtype


def probe(fn, *specs, title=None):
    env = ShapeEnv(specialize_zero_one=True, duck_shape=False)
    mode = FakeTensorMode(shape_env=env)
    rename, args = {}, []
    for i, spec in enumerate(specs):
        if not isinstance(spec, T):
            args.append(spec)
            continue
        hints = [d[1] if isinstance(d, tuple) else d for d in spec.dims]
        dyn = [DimDynamic.DYNAMIC if isinstance(d, tuple) else DimDynamic.STATIC for d in spec.dims]
        real = torch.empty(hints, dtype=spec.dtype)
        ft = mode.from_tensor(real, source=ConstantSource(f"arg{i}"),
                              symbolic_context=StatelessSymbolicContext(dynamic_sizes=dyn))
        for d, s in zip(spec.dims, ft.shape):
            if isinstance(d, tuple) and isinstance(s, torch.SymInt):
                rename[s.node.expr] = sympy.Symbol(d[0], positive=True, integer=True)
        args.append(ft)

    def show(v):
        if isinstance(v, torch.SymInt):
            return str(env.replace(v.node.expr).xreplace(rename))
        return str(v)

    print("=====", title or "")
    try:
        with mode:
            out = fn(*args)
    except Exception as e:  # noqa: BLE001
        print("ERROR", type(e).__name__, str(e).split("\n")[0][:300])
        out = None
    outs = out if isinstance(out, (tuple, list)) else [out]
    for o in outs:
        if isinstance(o, torch.Tensor):
            print("out sizes=[%s] strides=[%s] offset=%s dtype=%s" % (
                ", ".join(show(s) for s in o.shape), ", ".join(show(s) for s in o.stride()),
                show(o.storage_offset()), o.dtype))
        elif o is not None:
            print("out", show(o))
    for g in env.guards:
        print("guard", g.expr.xreplace(rename))
    for k, v in env.replacements.items():
        print("replace", k.xreplace(rename), "->", v.xreplace(rename))
    for k, r in env.var_to_range.items():
        if k in rename:
            print("range", rename[k], "[%s, %s]" % (r.lower, r.upper))
