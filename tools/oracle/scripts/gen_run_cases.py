"""Execution cases for fe::run (tests/test_export_run.cpp), computed by PyTorch 2.14's ep.module().
Writes under tests/fixtures/run/:
  gpt2_dynamic_<B>x<T>.{inputs,outputs}.safetensors: tests/fixtures/pt2/gpt2_dynamic.pt2 (exported with
    Dim("batch"), Dim("seq_len")) loaded and run on sizes other than its example (3x8).
  cond.weights.safetensors, cond_{true,false}.{inputs,outputs}.safetensors: a Linear followed by
    torch.cond on the sign of its output's sum, exported with a dynamic batch, run once per branch.
  cond.txt: the exported cond program's print (the C++ test mirrors CondModel statement for statement).
  sdpa_<dtype>_<kind>.pt2 and .{inputs,outputs}.safetensors: scaled_dot_product_attention on
    bfloat16 / float16 q, k, v (no mask, causal, bool mask, float mask, GQA; 20 keys: a vector's
    width and a tail), exported and run: the fused CPU kernel's own rounding, which `run` matches.
  pow_<dtype>.pt2 and .{inputs,outputs}.safetensors: x ** 3, -2, 2, 0.5, -1 (bfloat16, float16,
    float32), where the CPU kernel rounds x * x before the second step for 3 and -2, and x with a
    Python scalar (*, /: the scalar in float; +, -: the scalar rounded to a half dtype first).
Run: tools/oracle/run tools/oracle/scripts/gen_run_cases.py"""
import os

import torch
import torch.nn as nn
from safetensors.torch import save_file
from torch.export import Dim, export

OUT = os.environ.get("FE_RUN_OUT", "tests/fixtures/run")
os.makedirs(OUT, exist_ok=True)
torch.manual_seed(0)


def save_io(name, inputs, outputs):
    save_file({"input_%d" % i: t.contiguous() for i, t in enumerate(inputs)},
              os.path.join(OUT, name + ".inputs.safetensors"))
    outs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    save_file({"output_%d" % i: t.contiguous() for i, t in enumerate(outs)},
              os.path.join(OUT, name + ".outputs.safetensors"))


# 1. the dynamic GPT-2 mini program run on other batch / sequence sizes (V = 64 tokens, P = 32 positions)
gpt = torch.export.load("tests/fixtures/pt2/gpt2_dynamic.pt2").module()
for b, t in [(1, 5), (4, 17), (2, 32)]:
    idx = torch.randint(0, 64, (b, t))
    with torch.no_grad():
        save_io("gpt2_dynamic_%dx%d" % (b, t), [idx], gpt(idx))


# 2. torch.cond: both branches of one exported program
class CondModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        h = self.lin(x)

        def true_fn(h):
            return (h.sin() * 2,)

        def false_fn(h):
            return (h.cos() - 1,)

        return torch.cond(h.sum() > 0, true_fn, false_fn, (h,))


m = CondModel().eval()
save_file({k: v.detach().contiguous() for k, v in m.state_dict().items()}, os.path.join(OUT, "cond.weights.safetensors"))
ep = export(m, (torch.randn(2, 4),), dynamic_shapes={"x": (Dim("batch"), Dim.STATIC)})
with open(os.path.join(OUT, "cond.txt"), "w") as fh:
    fh.write(str(ep))
run = ep.module()
found = {}
while len(found) < 2:
    x = torch.randn(3, 4)
    branch = bool(m.lin(x).sum() > 0)
    if branch not in found:
        found[branch] = x
for branch, x in found.items():
    with torch.no_grad():
        save_io("cond_%s" % ("true" if branch else "false"), [x], run(x))


# 3. scaled_dot_product_attention in half dtypes: the CPU flash kernel's arithmetic
class Attn(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, q, k, v, mask=None):
        if self.kind == "causal":
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        if self.kind == "gqa":
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


for dtype, tag in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
    for kind in ("plain", "causal", "bool_mask", "float_mask", "gqa"):
        kv_heads = 2 if kind == "gqa" else 4
        q = torch.randn(2, 4, 7, 16).to(dtype)
        k = torch.randn(2, kv_heads, 20, 16).to(dtype) * 2
        v = torch.randn(2, kv_heads, 20, 16).to(dtype)
        args = [q, k, v]
        if kind in ("bool_mask", "gqa"):
            args.append(torch.rand(2, 1, 7, 20) > 0.3)
        elif kind == "float_mask":
            args.append((torch.randn(1, 4, 7, 20) * 3).to(dtype))
        ep = export(Attn(kind), tuple(args))
        name = "sdpa_%s_%s" % (tag, kind)
        torch.export.save(ep, os.path.join(OUT, name + ".pt2"))
        with torch.no_grad():
            save_io(name, args, ep.module()(*args))


# 4. pow with the exponents PyTorch's CPU kernel special-cases (x*x*x, 1/(x*x): the square rounded),
# and arithmetic with a Python scalar
class Pow(nn.Module):
    def forward(self, x):
        return x ** 3, x ** -2, x ** 2, x ** 0.5, x ** -1, x * 0.044715, x / 3.3, x + 0.044715, x - 3.3, 3.3 - x


for dtype, tag in ((torch.bfloat16, "bf16"), (torch.float16, "f16"), (torch.float32, "f32")):
    x = (torch.rand(512) * 6 + 0.05).to(dtype)
    ep = export(Pow(), (x,))
    torch.export.save(ep, os.path.join(OUT, "pow_%s.pt2" % tag))
    save_io("pow_" + tag, [x], ep.module()(x))
print(sorted(os.listdir(OUT)))
