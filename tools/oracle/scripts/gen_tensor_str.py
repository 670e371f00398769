"""str(tensor) as PyTorch 2.14 prints values (torch/_tensor_str.py): the fixture of
Tensor::values_string (tests/test_core.cpp, CoreRealTensor.ValuesStringAsPyTorch).
    tools/oracle/run tools/oracle/scripts/gen_tensor_str.py [--check]
Writes tests/fixtures/tensor_str.json: [{"dtype", "shape", "values" (flat, row-major; "nan"/"inf"
as strings), "str"}]; --check compares with the committed file and exits 1 on any difference."""
import json
import math
import os
import sys

import torch

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
OUT = os.path.join(REPO, "tests", "fixtures", "tensor_str.json")
nan, inf = float("nan"), float("inf")
CASES = [
    ("float32", [2], [3.0, 3.0]),
    ("float32", [2], [1.5, 2.25]),
    ("float32", [3], [0.1, 0.2, 0.3]),
    ("float32", [2], [1.0, 10.0]),
    ("float32", [3], [-1.0, 2.5, 100.0]),
    ("float32", [2], [1e-5, 1.0]),
    ("float32", [2], [1e9, 1.0]),
    ("float32", [2], [1e9, 2e9]),
    ("float32", [3], [0.0, 0.0, 0.0]),
    ("float32", [3], [nan, 1.0, -2.0]),
    ("float32", [3], [inf, 1.5, -inf]),
    ("float32", [3], [inf, 1.0, nan]),
    ("float32", [2], [123456.0, 0.5]),
    ("float32", [2], [-0.0001, 0.5]),
    ("float32", [], [3.0]),
    ("float32", [], [0.125]),
    ("float32", [1], [-7.0]),
    ("float32", [2, 2], [1.0, 2.0, 3.0, 4.0]),
    ("float32", [2, 3], [0.5, -1.25, 3.0, 4.0, 5.5, -6.0]),
    ("float32", [2, 2, 2], [1, 2, 3, 4, 5, 6, 7, 8]),
    ("float64", [2], [3.0, 3.0]),
    ("float64", [2], [1.0 / 3.0, 2.0]),
    ("float16", [2], [1.5, 2.0]),
    ("bfloat16", [2], [1.5, 2.0]),
    ("int64", [2], [3, 3]),
    ("int64", [3], [1, 10, -3]),
    ("int64", [], [42]),
    ("int64", [2, 2], [1, 20, 300, -4]),
    ("int32", [2], [1, 2]),
    ("uint8", [2], [0, 255]),
    ("bool", [2], [True, False]),
    ("bool", [2], [True, True]),
    ("bool", [], [False]),
    ("float32", [0], []),
    ("int64", [0], []),
    ("float32", [2, 0], []),
]


def main():
    res = []
    for dtype, shape, values in CASES:
        t = torch.tensor(values, dtype=getattr(torch, dtype)).reshape(shape)
        flat = [v if isinstance(v, bool) or not isinstance(v, float) or math.isfinite(v) else str(v) for v in values]
        res.append({"dtype": dtype, "shape": shape, "values": flat, "str": str(t)})
    text = json.dumps({"torch": torch.__version__, "cases": res}, indent=1) + "\n"
    if "--check" in sys.argv:
        if open(OUT).read() != text:
            print("tensor_str: fixture DIFFERS from PyTorch's str(tensor) (tools/oracle/scripts/gen_tensor_str.py)")
            return 1
        print("tensor_str: fixture equals PyTorch's str(tensor)")
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote", OUT, len(res), "cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
