"""Compares `fakeexport export` of each variant sweep_zoo.py wrote with PyTorch's print: static
exactly (comments and blank lines aside), dynamic exactly for the families whose node names match
(tests/zoo_test_util.h's dynamic_names_exact), else up to node names; the decode step with dynamic
tokens exactly. Runs on the host (no torch).
Usage: python3 tools/oracle/scripts/sweep_zoo_compare.py [build/zoo_sweep] [build/fakeexport]"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

out = sys.argv[1] if len(sys.argv) > 1 else "build/zoo_sweep"
exe = sys.argv[2] if len(sys.argv) > 2 else "build/fakeexport"
scratch = tempfile.mkdtemp(prefix="sweep_zoo_")  # archives written on the way, not beside the fixtures


def without_comments(s):
    s = re.sub(r"<eval_with_key>\.\d+", "<eval_with_key>.N", s)
    return "".join(l.rstrip(" ") + "\n" for l in s.split("\n") if l.strip() and not l.strip().startswith("#"))


def canonical(s):
    names = {}
    for m in re.finditer(r"\n\s+([A-Za-z_]\w*)(?:: \"[^\"]*\")? = ", s):
        names.setdefault(m.group(1), f"N{len(names)}")
    return re.sub(r"(?<![\w.])[A-Za-z_]\w*", lambda m: names.get(m.group(0), m.group(0)), s)


# Families whose dynamic prints still differ from PyTorch's in node names (zoo_test_util.h).
NAMES_DIFFER = ("whisper",)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else f"ERROR rc={r.returncode}: {r.stderr.strip()}"


def ours(cfg, batch, seq, dynamic, *more):
    cmd = [exe, "export", cfg, "--batch", str(batch), "--seq", str(seq), "--print", *more]
    if dynamic:
        cmd += ["--dynamic", "batch,seq"]
    return run(cmd)


def decomposed(cfg, batch, seq):
    pt2 = os.path.join(scratch, "decompose.pt2")
    r = run([exe, "export", cfg, "--batch", str(batch), "--seq", str(seq), "-o", pt2])
    return r if r.startswith("ERROR") else run([exe, "decompose", pt2, "--print"])


def read_safetensors(path):
    """name -> (dtype, shape, list of floats) of a safetensors file (no numpy here)."""
    import struct
    with open(path, "rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        header = json.loads(fh.read(n))
        data = fh.read()
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        lo, hi = v["data_offsets"]
        raw = data[lo:hi]
        dt = v["dtype"]
        if dt == "F32":
            vals = list(struct.unpack("<%df" % (len(raw) // 4), raw))
        elif dt == "BF16":
            vals = [struct.unpack("<f", b"\0\0" + raw[i:i + 2])[0] for i in range(0, len(raw), 2)]
        elif dt == "F16":
            vals = list(struct.unpack("<%de" % (len(raw) // 2), raw))
        elif dt == "I64":
            vals = list(struct.unpack("<%dq" % (len(raw) // 8), raw))
        elif dt == "BOOL":
            vals = list(raw)
        else:
            vals = None
        out[k] = (dt, v["shape"], vals)
    return out


def eager_mismatch(name, cfg, b, s):
    """`fakeexport run` of the variant's export with transformers' weights on its inputs against
    transformers' outputs (allclose rtol 1e-4, atol 1e-4); None when equal, else the reason."""
    pt2, res = os.path.join(scratch, "eager.pt2"), os.path.join(scratch, "eager_out.safetensors")
    weights = os.path.join(out, name + ".model.safetensors")
    r = run([exe, "export", cfg, "--batch", str(b), "--seq", str(s), "--weights", weights, "-o", pt2])
    if r.startswith("ERROR"):
        return r[:300]
    r = run([exe, "run", pt2, "--inputs", os.path.join(out, name + ".in.safetensors"), "-o", res])
    if r.startswith("ERROR"):
        return r[:300]
    got, want = read_safetensors(res), read_safetensors(os.path.join(out, name + ".out.safetensors"))
    if sorted(got) != sorted(want):
        return f"outputs {sorted(got)} != {sorted(want)}"
    for k in want:
        (gd, gs, gv), (wd, ws, wv) = got[k], want[k]
        if gd != wd or gs != ws:
            return f"{k}: {gd}{gs} != {wd}{ws}"
        tol = 1e-4 if wd in ("F32", "I64", "BOOL") else 3e-2  # half outputs: a few ulps of bf16/f16
        worst = max((abs(x - y) - tol * abs(y) for x, y in zip(gv, wv)), default=0.0)
        if worst > tol:
            return f"{k}: max |ours - transformers| beyond tolerance by {worst:.3g}"
    return None


bad = good = 0
for f in sorted(os.listdir(out)):
    if not f.endswith(".config.json"):
        continue
    name = f[: -len(".config.json")]
    inputs = json.load(open(os.path.join(out, name + ".inputs.json")))
    error = os.path.join(out, name + ".error.txt")
    if os.path.exists(error):  # PyTorch refused: so must we, with a one-line error and exit 2
        got = ours(os.path.join(out, f), inputs["batch"], inputs["seq"], False)
        if got.startswith("ERROR rc=2"):
            good += 1
        else:
            bad += 1
            print(f"MISMATCH {name}: PyTorch refused ({open(error).read().strip()[:150]}), ours: {got[:150]}")
        continue
    cfg, b, s = os.path.join(out, f), inputs["batch"], inputs["seq"]
    if os.path.exists(os.path.join(out, name + ".out.safetensors")):
        why = eager_mismatch(name, cfg, b, s)
        if why is None:
            good += 1
        else:
            bad += 1
            print(f"MISMATCH {name}.run: {why}")
    derr = os.path.join(out, name + ".decompose_error.txt")
    if os.path.exists(derr):  # PyTorch's run_decompositions() failed: ours must fail with its reason
        got = decomposed(cfg, b, s)
        want = open(derr).read().strip()
        if want in got:
            good += 1
        else:
            bad += 1
            print(f"MISMATCH {name}.decompose: PyTorch failed ({want[:150]}), ours: {got[:150]}")
    kv = json.load(open(os.path.join(out, name + ".kv.json"))) if os.path.exists(os.path.join(out, name + ".kv.json")) else {}
    kerr = os.path.join(out, name + ".kv_error.txt")
    if os.path.exists(kerr):  # PyTorch could not export the decode step: we must refuse it (exit 2)
        got = ours(cfg, kv["batch"], kv["seq"], False, "--static-cache", "16")
        if got.startswith("ERROR rc=2"):
            good += 1
        else:
            bad += 1
            print(f"MISMATCH {name}.kv: PyTorch refused ({open(kerr).read().strip()[:150]}), ours: {got[:150]}")
    cases = (("", lambda: ours(cfg, b, s, False)), ("_dyn", lambda: ours(cfg, b, s, True)),
             ("_mask", lambda: ours(cfg, b, s, False, "--attention-mask")),
             (".decomposed", lambda: decomposed(cfg, b, s)),
             (".kv", lambda: ours(cfg, kv["batch"], kv["seq"], False, "--static-cache", "16")),
             (".kv_dyn", lambda: run([exe, "export", cfg, "--static-cache", "16", "--batch", "1", "--seq", "3",
                                      "--dynamic", "seq", "--print"])))
    for suffix, produce in cases:
        dyn = suffix == "_dyn" and name.startswith(NAMES_DIFFER)
        golden = os.path.join(out, name + suffix + ".txt")
        if not os.path.exists(golden):
            continue
        got = without_comments(produce())
        want = without_comments(open(golden).read())
        if dyn:
            got, want = canonical(got), canonical(want)
        if got == want:
            good += 1
            continue
        bad += 1
        diff = list(difflib.unified_diff(want.split("\n"), got.split("\n"), "pytorch", "ours", n=0, lineterm=""))
        print(f"MISMATCH {name}{suffix} ({len(diff)} diff lines)")
        for l in diff[2:12]:
            print("   ", l[:220])
shutil.rmtree(scratch, ignore_errors=True)
print(f"{good} equal, {bad} differ")
sys.exit(1 if bad else 0)
