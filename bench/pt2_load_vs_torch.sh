#!/usr/bin/env bash
# Side by side on one big archive PyTorch exported (a 126-layer tiny HF Llama, ~9,000 nodes):
# PyTorch 2.14's torch.export.load (best of 3) vs `fakeexport inspect --json`, `fakeexport check`,
# `check --target cuda:0` (device lint + kernel table) and `retarget --device cuda:0` (best of 5 each,
# whole process), and PyTorch's ep.run_decompositions() (best of 3, in-process, after the load) vs
# `fakeexport decompose --json` (whole process: load, retrace, verify). Targets (issues 13, 14):
# inspect <= 1%, check and check --target <= 2%.
# Usage: bench/pt2_load_vs_torch.sh [ARCHIVE]   (default build/corpus_big/llama126.pt2, generated
# by tools/oracle/scripts/gen_big_llama.py when missing). Without the reference environment it
# prints a "skipped" line and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE="${1:-build/corpus_big/llama126.pt2}"
BIN=build/fakeexport
ROOT="${FAKEEXPORT_ORACLE:-$HOME/.cache/fakeexport/oracle}"
if [ ! -f "$ROOT/.ready" ] || [ "$(id -u)" != 0 ]; then
  echo "pt2_load_vs_torch: skipped: no PyTorch reference environment (tools/oracle/setup, as root)"
  exit 0
fi
[ -x "$BIN" ] || { echo "pt2_load_vs_torch: build first (scripts/build)" >&2; exit 2; }
if [ ! -f "$ARCHIVE" ]; then
  mkdir -p "$(dirname "$ARCHIVE")"
  tools/oracle/run tools/oracle/scripts/gen_big_llama.py >/dev/null
fi
torch_json=$(tools/oracle/run tools/oracle/scripts/time_torch_load.py "$ARCHIVE" 3 decompose 2>/dev/null | tail -1)
torch_ms=$(python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["load_seconds"]*1000, 1))' "$torch_json")
nodes=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["nodes"])' "$torch_json")
torch_dec_ms=$(python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["decompose_seconds"]*1000, 1))' "$torch_json")
best_ms() {  # best wall time of 5 runs of "$@", in ms
  python3 - "$@" <<'PY'
import subprocess, sys, time
best = float("inf")
for _ in range(5):
    t0 = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = min(best, time.perf_counter() - t0)
print(round(best * 1000, 1))
PY
}
inspect_ms=$(best_ms "$BIN" inspect --json "$ARCHIVE")
check_ms=$(best_ms "$BIN" check "$ARCHIVE")
target_ms=$(best_ms "$BIN" check "$ARCHIVE" --target cuda:0)
retarget_ms=$(best_ms "$BIN" retarget "$ARCHIVE" --device cuda:0)
decompose_ms=$(best_ms "$BIN" decompose "$ARCHIVE" --json)
pct() { python3 -c "print(f'{100*$1/$2:.2f}%')"; }
echo "archive $ARCHIVE ($nodes nodes)"
echo "torch.export.load $torch_ms ms | fakeexport inspect --json $inspect_ms ms ($(pct "$inspect_ms" "$torch_ms")) | fakeexport check $check_ms ms ($(pct "$check_ms" "$torch_ms")) | check --target cuda:0 $target_ms ms ($(pct "$target_ms" "$torch_ms")) | retarget --device cuda:0 $retarget_ms ms ($(pct "$retarget_ms" "$torch_ms"))"
echo "ep.run_decompositions() $torch_dec_ms ms | fakeexport decompose --json $decompose_ms ms ($(pct "$decompose_ms" "$torch_dec_ms"))"
