"""Dumps sympy's str() of symbolic size expressions, as PyTorch builds and prints them, for
tests/test_sym_expr.cpp (the C++ printer must produce the same strings).
Usage: tools/oracle/run tools/oracle/scripts/sympy_exprs.py [OUT_JSON]  (default tests/fixtures/sympy_exprs.json)

Each case is {"build": PREFIX, "str": str(expr)} where PREFIX is a tiny s-expression that both
this script and the C++ test evaluate: integers, symbols (s* are positive integers like PyTorch's
backed sizes, u* plain integers like unbacked ones) and (OP A B) with OP one of
+ - * neg // mod min max. One case per line so the C++ side needs no JSON library."""
import json, sys
import sympy
from torch.fx.experimental.sym_node import _sympy_mod
from torch.utils._sympy.functions import FloorDiv, Max, Min

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/sympy_exprs.json"


def sym(name):
    # As ShapeEnv: backed sizes are positive integers, unbacked ones only integers.
    if name.startswith("s"):
        return sympy.Symbol(name, integer=True, positive=True)
    return sympy.Symbol(name, integer=True)


def parse(text):
    toks = text.replace("(", " ( ").replace(")", " ) ").split()
    pos = 0

    def rec():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t != "(":
            return sympy.Integer(int(t)) if t.lstrip("-").isdigit() else sym(t)
        op = toks[pos]
        pos += 1
        args = []
        while toks[pos] != ")":
            args.append(rec())
        pos += 1
        fn = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
              "neg": lambda a: -a, "//": FloorDiv, "mod": _sympy_mod, "min": Min, "max": Max}[op]
        return fn(*args)

    e = rec()
    assert pos == len(toks), text
    return e


CASES = [
    # sums: term order, coefficients, constants
    "s0", "s77", "u0", "5", "-3", "(+ s0 s1)", "(+ s1 s0)", "(+ s0 s0)", "(+ s0 1)", "(+ 1 s0)",
    "(+ (* 2 s0) 1)", "(- (* 2 s0) 1)", "(- 5 s0)", "(- s0 5)", "(neg s0)", "(- s0 s1)", "(- s1 s0)",
    "(+ (* 2 s1) s0)", "(+ (* 2 s0) s1)", "(+ (* -2 s0) (* 3 s1))", "(- 0 (+ s0 s1))",
    "(+ s2 s15)", "(+ s17 s77)", "(+ (+ s77 s17) s2)", "(+ u0 s0)", "(+ u1 u0)", "(- (+ s0 s1) s0)",
    # products and powers
    "(* s17 s77)", "(* s77 s17)", "(* s0 s0)", "(* (* s0 s0) s0)", "(* 2 (* s0 s1))",
    "(* -1 (* s0 s1))", "(* s0 3)", "(* s2 s15)", "(* s0 (+ s1 1))", "(* (+ s0 1) (+ s0 1))",
    "(* 2 (+ s0 1))", "(+ (* s0 s0) s0)", "(+ (* s0 s1) s0)", "(+ (+ (* s0 s0) (* s0 s1)) (* s1 s1))",
    "(+ (* s1 s1) s0)", "(+ (* (* s0 s1) s2) (* s0 s0))", "(+ (* s0 s1) 1)", "(- (* s0 s1) (* s0 s0))",
    "(* u0 s0)", "(* (* s0 s1) s0)",
    # floor division and modulo
    "(// s0 2)", "(// s0 s1)", "(// (+ s0 1) 2)", "(// (* s0 s1) s2)", "(* 2 (// s0 3))",
    "(+ (// s0 2) 1)", "(+ (// s0 2) s0)", "(* (// s0 2) s1)", "(// s0 1)", "(// 7 2)", "(// -7 2)",
    "(// (- s0 1) 4)", "(mod s0 3)", "(mod s0 s1)", "(mod (+ s0 1) 4)", "(+ (mod s0 3) s1)",
    "(* 2 (mod s0 3))", "(mod s0 1)", "(mod 7 3)",
    # min and max
    "(min s0 s1)", "(min s1 s0)", "(max s0 s1)", "(max 2 s0)", "(max s0 2)", "(min s0 5)",
    "(max (+ s0 1) s1)", "(min (* s0 s1) s2)", "(+ (max s0 s1) 1)", "(* 2 (min s0 s1))",
    "(min 3 5)", "(max -2 4)", "(max u0 u1)",
    # nested
    "(+ (* s17 s77) (* 2 (// s0 2)))", "(// (max s0 s1) 2)", "(mod (* s0 s1) 8)",
    "(- (* 4 s0) (* 4 (// s0 4)))", "(+ (+ s0 -1) (* 2 s1))", "(* s0 (* s0 (+ s1 2)))",
    # torch's FloorDiv/Mod simplifications and sympy's special-cased `5 - 2*s0`
    "(// (+ (* 4 s0) 2) 2)", "(// (+ (* 2 s0) 1) 2)", "(// (+ (* 2 s0) (* 2 s1)) 4)", "(// (// s0 2) 3)",
    "(// (* 6 s0) 4)", "(mod (* 4 s0) 2)", "(mod (+ (* 2 s0) 1) 2)", "(mod (+ (* 4 s0) 5) 4)",
    "(- 5 (* 2 s0))", "(- -5 s0)", "(- 5 (* s0 s1))", "(- 3 (* s0 s0))", "(max s0 (+ s0 1))",
    "(min (min s0 s1) s2)", "(+ (* s0 (* s1 s1)) (* (* s0 s0) s1))", "(* (* s0 s0) (* s1 (* s1 s1)))",
    "(* (// s0 2) (// s0 2))", "(* (max s0 s1) (max s0 s1))", "(+ (mod s0 3) (// s0 3))",
    "(+ (min s0 s1) (max s0 s1))", "(* (+ s0 1) (+ s1 1))", "(+ (* s15 s2) (* s2 s2))",
    "(- (* 2 (// s0 2)) s0)", "(+ (* -3 s0) 7)", "(+ (* 3 u0) -7)",
    # a product divided by a factor of it (reshape's -1 inferred: numel % newsize, numel // newsize)
    "(mod (* 32 (* s0 s1)) (* s0 s1))", "(// (* 32 (* s0 s1)) (* s0 s1))", "(// (* s0 (* s1 s2)) s1)",
    "(mod (* s0 s1) s1)", "(mod (* 6 s0) (* 4 s0))", "(// (* 6 s0) (* 4 s0))", "(mod s0 (* s0 s1))",
    "(// (* 2 s0) (* 4 s0))", "(mod (* s0 s0) s0)", "(// 4 (* 2 s0))", "(// (* 4 s0) (* 2 s1))",
    "(// (* s0 s1) (* s1 s2))", "(mod (* 4 s0) (* 2 s0))",
]

with open(OUT, "w") as f:
    f.write("[\n")
    rows = [json.dumps({"build": c, "str": str(parse(c))}) for c in CASES]
    f.write(",\n".join(rows))
    f.write("\n]\n")
print(f"wrote {len(CASES)} cases to {OUT}")
