"""Writes torch.save archives for the restricted pickle reader's tests (tests/test_serde_torch_save.cpp).
Usage: tools/oracle/run tools/oracle/scripts/gen_torch_save.py [OUT_DIR]  (default tests/fixtures/torch_save)

Writes OUT_DIR/<case>.pt and OUT_DIR/manifest.json:
  {"versions": {...},
   "files": {case: {"pickle_protocol": int, "tensors": [{"name" (the reader's flattened path), "dtype"
      (torch name, no prefix), "shape", "stride", "storage_offset", "requires_grad", "is_parameter",
      "storage" (index of its storage among the file's storages: equal means shared memory),
      "object" (index of the Python object: equal means the same tensor saved twice),
      "hex" (the tensor's elements in row-major order, raw little-endian bytes)}]}},
   "refused": {case: {"error": "FormatError" | "FakeSampleInputsError", "contains": [substrings of
      the message], "torch_load": what torch.load(weights_only=True) says}}}
Tensors are listed as torch.load returns them, walked in the reader's order (dict insertion order,
tuple/list index order; names joined with '.'). Malicious archives are written with pickle and
torch's own zip writer, never loaded here except by torch.load(weights_only=True)."""
import collections, io, json, os, pickle, struct, sys, zipfile
import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/torch_save"
os.makedirs(OUT, exist_ok=True)


def saved(obj, protocol=2):
    buf = io.BytesIO()
    torch.save(obj, buf, pickle_protocol=protocol)
    return buf.getvalue()


def records(data):
    """The (name, bytes) records of a torch.save archive, in order."""
    z = zipfile.ZipFile(io.BytesIO(data))
    return [(n, z.read(n)) for n in z.namelist()]


def rewrite(data, replace):
    """The archive rewritten by torch's own zip writer with some records' bytes replaced
    (replace: record name without the root -> bytes). Only the user records are given back; the
    writer adds version, byteorder and serialization_id itself unless replaced."""
    buf = io.BytesIO()
    w = torch._C.PyTorchFileWriter(buf, True, 64)
    for name, b in records(data):
        short = name.split("/", 1)[1]
        if short in (".data/serialization_id",):
            continue
        b = replace.get(short, b)
        w.write_record(short, b, len(b))
    w.write_end_of_file()
    return buf.getvalue()


def walk(obj, name, out):
    if isinstance(obj, torch.Tensor):
        out.append((name, obj))
    elif isinstance(obj, (tuple, list)):
        for i, x in enumerate(obj):
            walk(x, f"{name}.{i}" if name else str(i), out)
    elif isinstance(obj, dict):
        for k, x in obj.items():
            walk(x, f"{name}.{k}" if name else str(k), out)


def describe(obj):
    flat = []
    walk(obj, "", flat)
    storages, objects, out = {}, {}, []
    for name, t in flat:
        sid = storages.setdefault(t.untyped_storage().data_ptr() if t.numel() else ("empty", id(t)), len(storages))
        oid = objects.setdefault(id(t), len(objects))
        out.append({
            "name": name, "dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape),
            "stride": list(t.stride()), "storage_offset": t.storage_offset(),
            "requires_grad": t.requires_grad, "is_parameter": isinstance(t, torch.nn.Parameter),
            "storage": sid, "object": oid,
            "hex": t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex(),
        })
    return out


def cases():
    g = torch.Generator().manual_seed(0)
    yield "dtypes", collections.OrderedDict([
        ("f32", torch.randn(2, 3, generator=g)),
        ("f64", torch.tensor([0.5, -1.25, 1e300], dtype=torch.float64)),
        ("f16", torch.tensor([1.0, -0.5, 65504.0, 1e-4], dtype=torch.float16)),
        ("bf16", torch.tensor([[1.0, -2.5], [3.140625, 0.0]], dtype=torch.bfloat16)),
        ("i8", torch.tensor([-128, 0, 127], dtype=torch.int8)),
        ("i16", torch.tensor([-300, 300], dtype=torch.int16)),
        ("i32", torch.tensor([[-(1 << 31), 5]], dtype=torch.int32)),
        ("i64", torch.tensor([1, -2, 1 << 40, -(1 << 62)], dtype=torch.int64)),
        ("u8", torch.tensor([0, 1, 255], dtype=torch.uint8)),
        ("mask", torch.tensor([True, False, True])),
        ("c64", torch.tensor([1 + 2j, -0.5j], dtype=torch.complex64)),
        ("f8", torch.tensor([1.0, -2.0, 448.0], dtype=torch.float8_e4m3fn)),  # torch.float8_e4m3fn, no XStorage
        ("u16", torch.tensor([0, 65535], dtype=torch.uint16)),
        ("scalar", torch.tensor(7, dtype=torch.int32)),
        ("empty", torch.zeros(0, 4)),
        ("grad", torch.ones(2, requires_grad=True)),
    ]), 2

    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(5, 3)
            self.norm = torch.nn.BatchNorm1d(3)
            self.head = torch.nn.Linear(3, 5, bias=False)
            self.head.weight = self.emb.weight  # tied: one tensor under two names
            self.register_buffer("pos", torch.arange(4))
    torch.manual_seed(0)
    yield "module_state_dict", Tied().state_dict(), 2  # OrderedDict + BUILD of its _metadata

    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    yield "views", {"base": base, "tview": base[1:].t(), "row": base[2], "strided": base[:, ::2],
                    "copy": base[0].clone()}, 2
    w = torch.randn(2, 2, generator=g)
    yield "tied", {"a": w, "b": w, "a_row": w[1]}, 2  # one tensor object saved twice (memo BINGET)
    yield "views_proto4", {"base": base, "tview": base[1:].t(), "row": base[2]}, 4  # FRAME, MEMOIZE, STACK_GLOBAL

    torch.manual_seed(1)
    yield "param", torch.nn.Parameter(torch.randn(3, 2)), 2
    p = torch.nn.Parameter(torch.randn(2))
    p.note = "state"  # a Python attribute: _rebuild_parameter_with_state
    yield "param_state", {"p": p, "frozen": torch.nn.Parameter(torch.ones(3), requires_grad=False)}, 2

    t1, t2, t3 = torch.ones(2), torch.arange(3, dtype=torch.int64), torch.full((2, 2), 0.5)
    yield "nested", ((t1, t2), {"k": t3}), 2
    yield "nested_mixed", ((t1, 3, [t2, None, 1.5, "s"]), {"k": t3, "n": None, 7: t1}), 2


def main():
    manifest = {"versions": {"torch": torch.__version__}, "files": {}, "refused": {}}
    for case, obj, proto in cases():
        data = saved(obj, proto)
        open(f"{OUT}/{case}.pt", "wb").write(data)
        # weights_only=False: our own files, and PyTorch's weights-only unpickler lacks FRAME (protocol 4).
        back = torch.load(io.BytesIO(data), weights_only=False)
        manifest["files"][case] = {"pickle_protocol": proto, "tensors": describe(back)}

    # The sample inputs of the .pt2 fixtures, as stored inside them.
    for pt2, case in [("seed_mlp", "seed_mlp_sample_inputs"), ("seed_mlp_fake", "seed_mlp_fake_sample_inputs")]:
        data = zipfile.ZipFile(f"tests/fixtures/pt2/{pt2}.pt2").read(f"{pt2}/data/sample_inputs/model.pt")
        open(f"{OUT}/{case}.pt", "wb").write(data)
        if case == "seed_mlp_sample_inputs":
            back = torch.load(io.BytesIO(data), weights_only=True)
            manifest["files"][case] = {"pickle_protocol": 2, "tensors": describe(back)}
        else:
            manifest["refused"][case] = {"error": "FakeSampleInputsError",
                                         "contains": ["fake sample inputs", "_reconstruct_fake_tensor"]}

    good = saved({"w": torch.ones(2, 3)})
    pkl = dict(records(good))["archive/data.pkl"]

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    bad = {
        # Hand-written: GLOBAL 'os system', ('echo pwned',), REDUCE.
        "malicious_os_system": ({"data.pkl": b"\x80\x02cos\nsystem\nq\x00X\n\x00\x00\x00echo pwnedq\x01\x85q\x02Rq\x03."},
                                ["global 'os.system'", "refusing to run it"]),
        # What pickle itself writes for os.system on Linux (posix.system).
        "malicious_posix": ({"data.pkl": pickle.dumps({"w": Evil()}, protocol=2)},
                            ["global 'posix.system'", "refusing to run it"]),
        # builtins.eval through STACK_GLOBAL (protocol 4).
        "malicious_eval": ({"data.pkl": b"\x80\x04\x8c\x08builtins\x94\x8c\x04eval\x94\x93\x94\x8c\x011\x94\x85\x94R\x94."},
                           ["global 'builtins.eval'", "refusing to run it"]),
        # An opcode no tensor record uses (INST 'os system').
        "malicious_inst": ({"data.pkl": b"(X\x02\x00\x00\x00idios\nsystem\n."}, ["opcode INST", "refusing to run it"]),
        "big_endian": ({"byteorder": b"big"}, ["big-endian", "'big'"]),
        # The storage declares 6 floats (24 bytes) but its record holds 16.
        "short_storage": ({"data/0": b"\0" * 16}, ["(24 bytes)", "has 16 bytes"]),
        "truncated_pickle": ({"data.pkl": pkl[: len(pkl) // 2]}, ["truncated"]),
    }
    for case, (replace, contains) in bad.items():
        data = rewrite(good, replace)
        open(f"{OUT}/{case}.pt", "wb").write(data)
        try:
            torch.load(io.BytesIO(data), weights_only=True)
            said = "loaded"
        except Exception as e:  # noqa: BLE001 - recorded for the reader of the manifest
            said = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        manifest["refused"][case] = {"error": "FormatError", "contains": contains, "torch_load": said}

    with open(f"{OUT}/manifest.json", "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


main()
