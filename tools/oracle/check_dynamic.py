"""Regenerates tests/fixtures/dynamic/*.txt into a temporary directory (each script in its own
process, as when they were generated) and compares them with the committed files. Exit 1 on any
difference. Run by tools/oracle/check-fixtures inside the reference environment."""
import filecmp
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = ["tools/oracle/scripts/export_dynamic.py", "tools/oracle/scripts/export_gpt2_dynamic.py"]
committed = os.path.join(REPO, "tests/fixtures/dynamic")
with tempfile.TemporaryDirectory() as out:
    for s in SCRIPTS:
        subprocess.run([sys.executable, s], cwd=REPO, env={**os.environ, "FE_DYNAMIC_OUT": out}, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bad = []
    for name in sorted(os.listdir(committed)):
        fresh = os.path.join(out, name)
        if not os.path.exists(fresh) or not filecmp.cmp(fresh, os.path.join(committed, name), shallow=False):
            bad.append(name)
    print("dynamic: %d fixtures, %s" % (len(os.listdir(committed)), "same as committed" if not bad else "DIFFER: " + ", ".join(bad)))
    sys.exit(1 if bad else 0)
