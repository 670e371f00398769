#!/usr/bin/env python3
"""Seed corpora and dictionaries for scripts/fuzz, from the committed fixtures and PyTorch's archives.

Writes WORK/seeds/<target>/ (inputs) and WORK/dict/<target>.dict (libFuzzer dictionaries: the keys
and short string values of the seeds' JSON, the pickles' globals and opcodes, the zip signatures), so
mutations speak each format's vocabulary instead of dying at the first unknown key.
"""
import glob, json, os, pickletools, sys, zipfile

work = sys.argv[1]
FIX = "tests/fixtures"
seeds = {t: {} for t in ("pt2", "safetensors", "json", "model_json", "sample_inputs", "pickle", "config")}
tokens = {t: set() for t in seeds}

def add(target, name, data):
    seeds[target][name] = data

def json_tokens(obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(json.dumps(k) + ":")
            json_tokens(v, out)
    elif isinstance(obj, list):
        for v in obj: json_tokens(v, out)
    elif isinstance(obj, str) and len(obj) <= 40 and not any(c.isspace() for c in obj):
        out.add(json.dumps(obj))

def pickle_tokens(data, out):
    try:
        for op, arg, _ in pickletools.genops(data):
            if op.name in ("GLOBAL", "STACK_GLOBAL") and isinstance(arg, str):
                out.add(b"c" + arg.replace(" ", "\n").encode() + b"\n")
            elif isinstance(arg, str) and len(arg) <= 32:
                out.add(arg.encode())
    except Exception:
        pass

# Archives PyTorch exported (small ones) and the .pt2 fixtures.
archives = sorted(glob.glob(f"{FIX}/pt2/*.pt2")) + sorted(p for p in glob.glob(f"{FIX}/corpus/*.pt2") if os.path.getsize(p) < 2_000_000)
for p in archives:
    name = os.path.basename(p)[:-4]
    add("pt2", name + ".pt2", open(p, "rb").read())
    with zipfile.ZipFile(p) as z:
        for e in z.namelist():
            data = z.read(e)
            tokens["pt2"].add(e.split("/", 1)[-1].encode())
            if e.endswith("models/model.json"):
                add("model_json", name + ".json", data)
                json_tokens(json.loads(data), tokens["model_json"])
            elif e.endswith("data/sample_inputs/model.pt") and data:
                add("sample_inputs", name + ".pt", data)
                with zipfile.ZipFile(__import__("io").BytesIO(data)) as inner:
                    for ie in inner.namelist():
                        if ie.endswith("data.pkl"):
                            add("pickle", name + ".pkl", inner.read(ie))
                            pickle_tokens(inner.read(ie), tokens["pickle"])
for p in sorted(glob.glob(f"{FIX}/torch_save/*.pt")):
    data = open(p, "rb").read()
    add("sample_inputs", os.path.basename(p), data)
    try:
        with zipfile.ZipFile(p) as z:
            for e in z.namelist():
                if e.endswith("data.pkl"):
                    add("pickle", os.path.basename(p) + ".pkl", z.read(e))
                    pickle_tokens(z.read(e), tokens["pickle"])
    except zipfile.BadZipFile:
        pass
for p in sorted(glob.glob(f"{FIX}/pt2/*.model.json")):
    add("json", os.path.basename(p), open(p, "rb").read())
    add("model_json", os.path.basename(p), open(p, "rb").read())
for p in sorted(glob.glob(f"{FIX}/safetensors/*.safetensors") + glob.glob(f"{FIX}/pt2/*.safetensors")
                + [q for q in glob.glob(f"{FIX}/corpus/*.inputs.safetensors") if os.path.getsize(q) < 200_000]):
    data = open(p, "rb").read()
    add("safetensors", os.path.basename(p), data)
    n = int.from_bytes(data[:8], "little")
    try: json_tokens(json.loads(data[8:8 + n]), tokens["safetensors"])
    except Exception: pass

# config.json: the real configs and the zoo's, layer counts cut to 2 (the target caps layers low so
# each input stays fast; a 126-layer seed would only exercise the limit).
LAYERS = {"num_hidden_layers", "n_layer", "num_layers", "n_layers", "encoder_layers", "decoder_layers", "num_decoder_layers"}
def cut(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in LAYERS and isinstance(v, int): o[k] = 2
            else: cut(v)
for p in sorted(glob.glob("configs/*.json") + glob.glob(f"{FIX}/zoo_golden/*.config.json")):
    c = json.load(open(p)); cut(c)
    add("config", os.path.basename(p), json.dumps(c).encode())
    json_tokens(c, tokens["config"])

# Format vocabulary beyond the seeds.
JSON = {b"{", b"}", b"[]", b"null", b"true", b"false", b"-1", b"0", b"9223372036854775807",
        b"9223372036854775808", b"-9223372036854775809", b"1e308", b"2e48", b"NaN", b"\"\\u0000\""}
for t in ("json", "model_json", "config", "safetensors", "pt2"):
    tokens[t] |= JSON
tokens["json"] |= tokens["model_json"]
tokens["pt2"] |= {b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07", b"PK\x07\x08", b"\xff\xff\xff\xff"}
tokens["pt2"] |= {t.encode() if isinstance(t, str) else t for t in list(tokens["model_json"])[:2000]}
tokens["safetensors"] |= {b'"dtype":', b'"shape":', b'"data_offsets":', b'"__metadata__":'} | {
    f'"{d}"'.encode() for d in ("F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2", "C64")}
OPS = {b"\x80\x02", b"\x80\x04", b"\x95", b"}q\x00(", b"]q\x00(", b")", b"(", b"t", b"\x85", b"\x86", b"\x87", b"R", b"Q",
       b"b", b"u", b"e", b"s", b"a", b"K\x00", b"J\xff\xff\xff\xff", b"M\xff\xff", b"X\x00\x00\x00\x00", b"q\x01", b"h\x01",
       b"r\xff\xff\xff\xff", b"j\xff\xff\xff\xff", b"N", b"\x88", b"\x89", b".", b"G\x7f\xf0\x00\x00\x00\x00\x00\x00",
       b"\x8a\x08", b"ctorch._utils\n_rebuild_tensor_v2\n", b"ctorch\nFloatStorage\n", b"ccollections\nOrderedDict\n",
       b"cos\nsystem\n", b"X\x07\x00\x00\x00storage", b"X\x03\x00\x00\x00cpu"}
tokens["pickle"] |= OPS
tokens["sample_inputs"] |= tokens["pickle"] | {b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"archive/data.pkl", b"archive/data/0"}

def escape(b):
    out = []
    for ch in b:
        c = chr(ch)
        if c in '"\\': out.append("\\" + c)
        elif 32 <= ch < 127: out.append(c)
        else: out.append("\\x%02X" % ch)
    return '"' + "".join(out) + '"'

for t, s in seeds.items():
    d = os.path.join(work, "seeds", t); os.makedirs(d, exist_ok=True)
    for n, data in s.items():
        open(os.path.join(d, n), "wb").write(data)
os.makedirs(os.path.join(work, "dict"), exist_ok=True)
for t, toks in tokens.items():
    toks = sorted({x.encode() if isinstance(x, str) else x for x in toks if x})
    with open(os.path.join(work, "dict", t + ".dict"), "w") as f:
        for x in toks: f.write(escape(x) + "\n")
print("seeds: " + ", ".join(f"{t} {len(s)}" for t, s in seeds.items()) +
      "; dictionaries: " + ", ".join(f"{t} {len(v)}" for t, v in tokens.items()))
