"""Extracts the three printed programs of the seed document (../shared/seeds/000_*.txt) into
tests/fixtures/seed_000_programs.txt. The blog's text lost its line breaks, so each program is kept
as one whitespace-collapsed line: cpu, gpu, hybrid, in that order."""
import glob, json, re, sys

src = sys.argv[1] if len(sys.argv) > 1 else glob.glob("../shared/seeds/000_*.txt")[0]
body = json.load(open(src))["body_md"]
out = body[body.index("$ python test_torch_fake_export.py"):]
out = out[:out.index("```")]
parts = re.split(r"MLP export \(CPU\) succeeded\.|MLP export \(GPU\) succeeded\.|CPU-GPU hybrid export succeeded\.", out)
progs = [" ".join(p.split()) for p in parts[1:]]
assert len(progs) == 3, len(progs)
with open("tests/fixtures/seed_000_programs.txt", "w") as f:
    f.write("\n".join(progs) + "\n")
print("wrote 3 programs")
