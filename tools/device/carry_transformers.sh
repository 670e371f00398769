#!/usr/bin/env bash
# Run here (not on the GPU machine), from the repository root, after tools/oracle/setup:
#     tools/device/carry_transformers.sh            # writes .tf512/ (ignored via .git/info/exclude)
# The lent GPU machine's python3 has a CUDA build of PyTorch 2.11 and transformers 5.17, whose
# graphs differ from 5.12's (the judge's). This copies the reference environment's transformers
# 5.12 (pure Python) to .tf512/transformers, with the model families the zoo captures use (about
# 9 MiB), so a device run can import it first:
#     run(command="PYTHONPATH=$PWD/.tf512 PYTHONHASHSEED=0 python3 tools/device/...", carry=[".tf512"])
# Its dependency check is relaxed to a note (5.12 pins tokenizers <= 0.23.1; the machine has
# 0.23.2, and no capture tokenizes). The working tree travels too and must stay under the device
# tool's 64 MiB: untrack the large fixture directories for the call (git rm -r --cached, listed in
# .git/info/exclude) and restore them afterwards (git reset -- tests/fixtures).
set -euo pipefail
SRC="${FAKEEXPORT_ORACLE:-$HOME/.cache/fakeexport/oracle}/usr/lib/python3/dist-packages"
[ -f "$SRC/transformers/__init__.py" ] || { echo "carry_transformers: no transformers at $SRC (run tools/oracle/setup)" >&2; exit 3; }
MODELS="auto bert blenderbot clip deepseek_v3 encoder_decoder falcon gemma gemma2 gemma3 gpt2 gpt_neox llama mistral
mixtral phi3 qwen2 qwen2_moe qwen3 qwen3_moe siglip t5 vision_encoder_decoder vit whisper timm_wrapper roformer"
rm -rf .tf512 && mkdir -p .tf512
(cd "$SRC" && {
  find transformers -path transformers/models -prune -o -type f -print
  find transformers/models -maxdepth 1 -type f
  for m in $MODELS; do find "transformers/models/$m" -type f; done
} | grep -v __pycache__ | tar cf - -T -) | tar xf - -C .tf512
sed -i 's/^\(\s*\)require_version_core(deps\[pkg\])/\1try:\n\1    require_version_core(deps[pkg])\n\1except ImportError as e:\n\1    print("note:", str(e).splitlines()[0])/' \
  .tf512/transformers/dependency_versions_check.py
cat > .tf512/use.py <<'PY'
# python3 .tf512/use.py SCRIPT ARGS...: SCRIPT with this folder's transformers first on the path
# (for a dry run in the reference environment, whose tools/oracle/run clears the environment).
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""), PYTHONHASHSEED="0")
os.execve(sys.executable, [sys.executable] + sys.argv[1:], env)
PY
grep -qx '/.tf512/' .git/info/exclude 2>/dev/null || echo '/.tf512/' >> .git/info/exclude
echo "carry_transformers: .tf512 $(du -sh .tf512 | cut -f1), transformers $(grep -m1 __version__ .tf512/transformers/__init__.py)"
