"""Dumps PyTorch's type promotion answers for the C++ tests (tests/test_core.cpp).
Usage: tools/oracle/run tools/oracle/scripts/gen_promotion.py [OUT_JSON]   (default tests/fixtures/promotion.json)

Writes:
  promote_types: [[a, b, torch.promote_types(a, b) or null if it raises], ...] for every ordered pair
  result_type:   [{"operands": [...], "result": dtype}, ...] where each operand is
                 "int32[2]" (dimensioned tensor, shape [2]), "int32[]" (0-dim tensor) or
                 "bool" / "int" / "float" / "complex" (a Python scalar); result is
                 torch.result_type(a, b) (checked equal to elementwise_dtypes and to the dtype of
                 torch.add(a, b)); add_ok is false where torch.add has no kernel for it.
Dtype names carry no "torch." prefix."""
import itertools, json, sys, warnings
import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

DEFAULT = ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT
warnings.filterwarnings("ignore", message=".*support is experimental")

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/promotion.json"
NAMES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex32", "complex64", "complex128", "bool"]
DT = {n: getattr(torch, n) for n in NAMES}


def name(dt):
    return str(dt).removeprefix("torch.")


promote = []
for a, b in itertools.product(NAMES, NAMES):
    try:
        r = name(torch.promote_types(DT[a], DT[b]))
    except Exception:  # noqa: BLE001 - recorded as "no answer"
        r = None
    promote.append([a, b, r])

# Operands of the result-type cases. complex32 tensors support too few kernels to add; they are
# only in the promote_types table.
TENSOR_DTYPES = [n for n in NAMES if n != "complex32"]
SCALARS = {"bool": True, "int": 3, "float": 1.5, "complex": 1 + 2j}


def make(desc):
    if desc in SCALARS:
        return SCALARS[desc]
    dt, shape = desc.split("[")
    if shape == "]":
        return torch.ones((), dtype=DT[dt])
    return torch.ones(2, dtype=DT[dt])


cases = []
pairs = []
# dimensioned tensor with 0-dim tensor (both orders for a subset), and with every Python scalar
for a in TENSOR_DTYPES:
    for b in TENSOR_DTYPES:
        pairs.append((f"{a}[2]", f"{b}[]"))
    for s in SCALARS:
        pairs.append((f"{a}[2]", s))
        pairs.append((f"{a}[]", s))
# 0-dim first, dimensioned second (argument order must not matter)
for a in ["bool", "uint8", "int8", "int64", "float16", "bfloat16", "float64", "complex64"]:
    for b in ["bool", "uint8", "int32", "int64", "float16", "float32"]:
        pairs.append((f"{a}[]", f"{b}[2]"))
# scalar first
for s in SCALARS:
    for b in ["bool", "uint8", "int16", "float16", "bfloat16"]:
        pairs.append((s, f"{b}[2]"))
# two 0-dim tensors, two dimensioned tensors (a sample)
for a, b in itertools.product(["bool", "uint8", "int8", "int32", "float16", "bfloat16", "complex64"], repeat=2):
    pairs.append((f"{a}[]", f"{b}[]"))
    pairs.append((f"{a}[2]", f"{b}[2]"))

triples = [
    ("int32[2]", "int64[]", "float"), ("uint8[2]", "int8[]", "int"), ("bool[2]", "int64[]", "float"),
    ("int16[2]", "float16[]", "int"), ("float16[2]", "float64[]", "float"), ("bfloat16[2]", "float16[]", "int"),
    ("bool[2]", "bool[]", "int"), ("int8[2]", "uint8[2]", "float"), ("float16[]", "int32[2]", "float"),
    ("bool[]", "uint8[]", "float"), ("int32[]", "bool[2]", "complex"), ("float32[2]", "complex128[]", "int"),
]

for a, b in pairs:
    x, y = make(a), make(b)
    if not isinstance(x, torch.Tensor) and not isinstance(y, torch.Tensor):
        continue
    r = name(torch.result_type(x, y))
    assert r == name(elementwise_dtypes(x, y, type_promotion_kind=DEFAULT)[1]), (a, b)
    try:
        assert name(torch.add(x, y).dtype) == r, (a, b)
        add_ok = True
    except (RuntimeError, NotImplementedError):  # no add kernel for the dtype (bcomplex32)
        add_ok = False
    cases.append({"operands": [a, b], "result": r, "add_ok": add_ok})

# Three operands: torch._prims_common.elementwise_dtypes (the rule FakeTensor's decompositions
# use); it is checked above to agree with torch.add on every two-operand case.
for ops in triples:
    _, r = elementwise_dtypes(*(make(o) for o in ops), type_promotion_kind=DEFAULT)
    cases.append({"operands": list(ops), "result": name(r), "add_ok": True})

with open(OUT, "w") as f:  # one case per line: small diffs when regenerated
    f.write('{"torch_version": %s,\n"promote_types": [\n' % json.dumps(torch.__version__))
    f.write(",\n".join(json.dumps(p) for p in promote))
    f.write('],\n"result_type": [\n')
    f.write(",\n".join(json.dumps(c) for c in cases))
    f.write("]}\n")
print(f"{len(promote)} promote_types pairs, {len(cases)} result_type cases -> {OUT}")
