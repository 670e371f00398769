"""Writes small .safetensors files with safetensors.torch.save_file for the C++ reader/writer tests
(tests/test_safetensors.cpp) and a manifest describing what was written.
Usage: tools/oracle/run tools/oracle/scripts/gen_safetensors.py [OUT_DIR]  (default tests/fixtures/safetensors)

Writes OUT_DIR/<case>.safetensors for each case and OUT_DIR/manifest.json:
  {"versions": {...}, "files": {case: {"metadata": {..} | null, "header": raw header text,
   "tensors": [{"name", "dtype" (torch name, no prefix), "st_dtype", "shape", "values" (flat list;
   floats for float types, ints otherwise, bools as 0/1), "hex" (raw little-endian bytes)}]}},
   "errors": {case: "ExceptionType: message"}}   (save_file's refusals: shared/non-contiguous tensors)"""
import json, struct, sys
import torch
import safetensors
from safetensors.torch import save_file, load_file

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/safetensors"


def cases():
    g = torch.Generator().manual_seed(0)
    yield "basic", {
        "weight": torch.randn(2, 3, generator=g),
        "bias": torch.tensor([0.5, -1.25, 3.0], dtype=torch.float64),
        "idx": torch.tensor([[1, -2], [3, 1 << 40]], dtype=torch.int64),
        "mask": torch.tensor([True, False, True]),
        "half": torch.tensor([1.0, -0.5, 65504.0, 1e-4], dtype=torch.float16),
        "bf": torch.tensor([1.0, -2.5, 3.140625], dtype=torch.bfloat16),
        "scalar": torch.tensor(7, dtype=torch.int32),
        "empty": torch.zeros(0, 4),
        "bytes": torch.tensor([0, 1, 255], dtype=torch.uint8),
        "i8": torch.tensor([-128, 0, 127], dtype=torch.int8),
        "i16": torch.tensor([-300, 300], dtype=torch.int16),
    }, None
    yield "metadata", {
        "a": torch.arange(4, dtype=torch.float32).reshape(2, 2),
        "b": torch.tensor(2.5),
    }, {"format": "pt"}
    # One key per file: save_file keeps __metadata__ in a Rust HashMap, so 2+ keys come out in a
    # random order from run to run (not byte-reproducible).
    yield "metadata_escapes", {"a": torch.ones(1, dtype=torch.int64)}, {"note": "hello \"quoted\" ü \\ /\n\t\x01"}
    yield "more_dtypes", {
        "e4m3": torch.tensor([1.0, -2.0, 0.5], dtype=torch.float8_e4m3fn),
        "e5m2": torch.tensor([1.0, -4.0], dtype=torch.float8_e5m2),
        "u16": torch.tensor([1, 65535], dtype=torch.uint16),
        "u32": torch.tensor([7], dtype=torch.uint32),
        "u64": torch.tensor([1 << 63], dtype=torch.uint64),
        "c64": torch.tensor([1 + 2j, -0.5j], dtype=torch.complex64),
        "e4m3fnuz": torch.tensor([1.0], dtype=torch.float8_e4m3fnuz),
        "e5m2fnuz": torch.tensor([-1.0], dtype=torch.float8_e5m2fnuz),
    }, None
    # Key order in the header: does the writer sort by name, by dtype alignment, or keep insertion?
    yield "order", {
        "z": torch.ones(1, dtype=torch.uint8),
        "a": torch.ones(1, dtype=torch.uint8),
        "m64": torch.ones(1, dtype=torch.float64),
        "b32": torch.ones(1, dtype=torch.float32),
        "empty_u8": torch.zeros(0, dtype=torch.uint8),
        "c16": torch.ones(1, dtype=torch.float16),
    }, None
    yield "empty_meta", {"x": torch.ones(1)}, {}
    yield "no_tensors", {}, None


def st_dtype_of(header, name):
    return header[name]["dtype"]


def values(t):
    if t.dtype in (torch.uint16, torch.uint32, torch.uint64):
        return [int(v) for v in t.reshape(-1).to(torch.int64).tolist()] if t.dtype != torch.uint64 else \
            [int.from_bytes(t.reshape(-1)[i:i+1].numpy().tobytes(), "little") for i in range(t.numel())]
    if t.dtype.is_complex:  # interleaved (re, im)
        return [float(v) for v in torch.view_as_real(t).reshape(-1).tolist()]
    if t.dtype.is_floating_point:
        return [float(v) for v in t.reshape(-1).to(torch.float64).tolist()]
    return [int(v) for v in t.reshape(-1).tolist()]


def raw(t):
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex() if t.numel() else ""


manifest = {"versions": {"torch": torch.__version__, "safetensors": safetensors.__version__}, "files": {},
            "errors": {}}
for case, tensors, meta in cases():
    path = f"{OUT}/{case}.safetensors"
    save_file(tensors, path, metadata=meta)
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header_text = data[8:8 + n].decode("utf-8")
    header = json.loads(header_text)
    back = load_file(path)
    assert set(back) == set(tensors)
    for k in tensors:
        assert torch.equal(back[k], tensors[k]) or tensors[k].numel() == 0, k
    manifest["files"][case] = {
        "metadata": meta, "header": header_text, "file_size": len(data),
        "tensors": [{"name": k, "dtype": str(t.dtype).removeprefix("torch."), "st_dtype": st_dtype_of(header, k),
                     "shape": list(t.shape), "values": values(t), "hex": raw(t)} for k, t in tensors.items()],
    }

# What save_file refuses (our writer follows or errors likewise).
base = torch.arange(6, dtype=torch.float32)
for case, tensors in {
    "shared": {"a": base, "b": base},
    "shared_view": {"a": base, "b": base[:3]},
    "non_contiguous": {"t": torch.arange(6.0).reshape(2, 3).t()},
}.items():
    try:
        save_file(tensors, f"{OUT}/_tmp.safetensors")
        manifest["errors"][case] = None
    except Exception as e:  # noqa: BLE001 - record whatever it raises
        manifest["errors"][case] = f"{type(e).__name__}: {e}"
import os
if os.path.exists(f"{OUT}/_tmp.safetensors"):
    os.remove(f"{OUT}/_tmp.safetensors")

with open(f"{OUT}/manifest.json", "w") as f:
    json.dump(manifest, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(json.dumps(manifest["versions"]), json.dumps(manifest["errors"], indent=1))
for case, m in manifest["files"].items():
    print(case, m["file_size"], repr(m["header"]))
