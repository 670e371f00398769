"""Generates the op conformance fixtures (tests/fixtures/ops/<family>.json) with PyTorch.

Usage (inside the reference environment):
  tools/oracle/run tools/oracle/gen_ops.py [--family F ...] [--out DIR] [--check]
Every call of every family module (tools/oracle/opgen/<family>.py) runs under FakeTensorMode on cpu;
the fixture records, per call, the inputs' metadata and scalar arguments, and either every output's
sizes/strides/storage_offset/dtype/device (and which argument it aliases) or the error's type and
message. --check regenerates into a temporary folder and exits 1 if any committed file differs.
"""
import argparse
import contextlib
import importlib
import json
import logging
import os
import pkgutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

# FakeTensorMode logs a traceback for every failing meta; the fixture records the error instead.
logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)

import opgen  # noqa: E402
from opgen import T, enc_float  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(REPO, "tests", "fixtures", "ops")


def dtype_of(name):
    return getattr(torch, name)


def resolve(q):
    ns, rest = q.split("::")
    name, overload = (rest.split(".", 1) + ["default"])[:2]
    return getattr(getattr(getattr(torch.ops, ns), name), overload)


def qualified(q):
    return q if "." in q.split("::")[1] else q + ".default"


def storage_elems(spec):
    if not all(spec.sizes):
        return max(spec.offset, 1)
    return spec.offset + 1 + sum((s - 1) * st for s, st in zip(spec.sizes, spec.strides))


def make_tensor(spec, real=False):
    n = storage_elems(spec)
    if real:
        vals = [opgen.pattern(j, spec.dtype, spec.fill) for j in range(n)]
        base = torch.tensor(vals, dtype=dtype_of(spec.dtype), device=spec.device)
    else:
        base = torch.empty(n, dtype=dtype_of(spec.dtype), device=spec.device)
    # A contiguous spec that fills its whole storage is a fresh tensor, not a view (ops such as
    # detach_ refuse views); every other layout is a view of a larger base.
    numel = 1
    for s in spec.sizes:
        numel *= s
    if spec.offset == 0 and spec.strides == opgen.contiguous_strides(spec.sizes) and n == max(numel, 1) and numel:
        return base.reshape(spec.sizes).detach()
    return base.as_strided(spec.sizes, spec.strides, spec.offset)


def enc_meta(t):
    return {"sizes": list(t.shape), "strides": list(t.stride()), "offset": t.storage_offset(),
            "dtype": str(t.dtype).replace("torch.", ""), "device": str(t.device)}


def materialise(v, real=False):
    if isinstance(v, T):
        return make_tensor(v, real)
    if isinstance(v, (list, tuple)):
        return type(v)(materialise(x, real) for x in v)
    return v


def enc_values(t):
    vals = t.detach().reshape(-1).tolist()
    if t.dtype.is_floating_point:
        return [enc_float(v) for v in vals]
    return vals


def enc_arg(v):
    if isinstance(v, T):
        d = {"sizes": v.sizes, "strides": v.strides, "offset": v.offset, "dtype": v.dtype, "device": v.device}
        if v.fill is not None:
            d["fill"] = list(v.fill)
        return {"T": d}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return enc_float(v)
    if isinstance(v, torch.dtype):
        return {"dtype": str(v).replace("torch.", "")}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.layout):
        return {"layout": str(v).replace("torch.", "")}
    if isinstance(v, torch.memory_format):
        return {"memory_format": str(v).replace("torch.", "")}
    if isinstance(v, (list, tuple)):
        return [enc_arg(x) for x in v]
    raise TypeError(f"cannot encode argument {v!r}")


def flatten_outs(r):
    if isinstance(r, (list, tuple)):
        for x in r:
            yield from flatten_outs(x)
    elif r is not None:
        yield r


def storage_key(t):
    return t.untyped_storage()._cdata


def run_call(c):
    rec = {"op": qualified(c.op), "args": [enc_arg(a) for a in c.args]}
    if c.kwargs:
        rec["kwargs"] = {k: enc_arg(v) for k, v in c.kwargs.items()}
    if c.values:
        rec["values"] = True
        torch.manual_seed(0)
    # FakeTensorMode's dispatch cache is process-wide: without clearing it, a call could receive the
    # metadata cached for an earlier, similar call, and fixtures would depend on call order.
    FakeTensorMode.cache_clear()
    with (contextlib.nullcontext() if c.values else FakeTensorMode()):
        args = [materialise(a, c.values) for a in c.args]
        kwargs = {k: materialise(v, c.values) for k, v in c.kwargs.items()}
        in_keys = {}
        for i, a in enumerate(args):
            if isinstance(a, torch.Tensor):
                in_keys.setdefault(storage_key(a), i)
        try:
            r = resolve(c.op)(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - every error is data for the fixture
            # c10 errors append a C++ backtrace with process addresses: not part of the message.
            msg = str(e).split("\nException raised from ")[0].strip()[:4000]
            rec["error"] = {"type": type(e).__name__, "msg": msg}
            return rec
        outs = []
        for o in flatten_outs(r):
            if isinstance(o, torch.Tensor):
                m = enc_meta(o)
                m["alias"] = in_keys.get(storage_key(o), -1)
                if len(args) and o is args[0]:
                    m["is_self"] = True
                if c.values:
                    m["values"] = enc_values(o)
                outs.append(m)
            elif isinstance(o, bool):
                outs.append({"bool": o})
            elif isinstance(o, int):
                outs.append({"int": o})
            elif isinstance(o, float):
                outs.append({"float": enc_float(o)})
            else:
                outs.append({"repr": repr(o)})
        rec["out"] = outs
    return rec


def families():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "opgen")
    return sorted(m.name for m in pkgutil.iter_modules([path]))


def generate(family):
    mod = importlib.import_module(f"opgen.{family}")
    calls = [run_call(c) for c in mod.calls()]
    schemas = {}
    for c in calls:
        if c["op"] not in schemas:
            schemas[c["op"]] = str(resolve(c["op"])._schema)
    lines = ",\n".join(json.dumps(c, sort_keys=True) for c in calls)
    text = ('{"family": %s, "torch_version": %s, "mode": "FakeTensorMode, cpu",\n"schemas": %s,\n"calls": [\n%s\n]}\n'
            % (json.dumps(family), json.dumps(torch.__version__), json.dumps(schemas, sort_keys=True, indent=0),
               lines))
    n_err = sum(1 for c in calls if "error" in c)
    return text, len(calls), n_err, len(schemas)


def near(a, b, ulps):
    """Equal documents, except float values within a relative 1e-5: PyTorch's CPU kernels pick
    vectorized paths by CPU (AVX2 vs AVX-512), so a regenerated value may differ in its last digits
    on another machine. Counts those values in ulps[0]."""
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (a != a and b != b):
            return True
        if abs(a - b) <= 1e-5 * max(abs(a), abs(b)):
            ulps[0] += 1
            return True
        return False
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(near(a[k], b[k], ulps) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(near(x, y, ulps) for x, y in zip(a, b))
    return a == b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", action="append")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    fams = a.family or families()
    out = tempfile.mkdtemp() if a.check else a.out
    os.makedirs(out, exist_ok=True)
    differ = []
    for f in fams:
        text, n, n_err, n_ops = generate(f)
        path = os.path.join(out, f + ".json")
        with open(path, "w") as fh:
            fh.write(text)
        status = ""
        if a.check:
            committed = os.path.join(a.out, f + ".json")
            same = os.path.exists(committed) and open(committed).read() == text
            status = " (same as committed)" if same else " (DIFFERS from committed)"
            ulps = [0]
            if not same and os.path.exists(committed) and near(json.loads(text), json.load(open(committed)), ulps):
                same = True
                status = f" (same as committed; {ulps[0]} kernel values differ below 1e-5 relative on this CPU)"
            if not same:
                differ.append(f)
        print(f"{f}: {n} calls ({n_err} errors) over {n_ops} ops{status}")
    if differ:
        print("fixtures differ from the committed ones: " + ", ".join(differ))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
