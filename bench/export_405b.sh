#!/usr/bin/env bash
# The whole `fakeexport export` process for Llama-3.1-405B's config (126 layers) pipelined over 8
# fake GPUs with --json (issue 18's measure): static, and with --dynamic batch,seq; wall time and
# peak RSS over N runs (default 20). Targets: <= 10 ms and <= 32 MB static, <= 15 ms dynamic.
# Where the PyTorch reference environment is present, PyTorch 2.14's torch.export.export of
# transformers' LlamaForCausalLM from the same config (meta weights, input_ids [2, 8], best of 2)
# is measured in the same run and the ratio printed; otherwise a "skipped" line says why.
# Also the shape of issue 6 (bf16, batch 1, seq 2048), and the decode step with a static cache.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-20}"
DEVS=cuda:0,cuda:1,cuda:2,cuda:3,cuda:4,cuda:5,cuda:6,cuda:7
CFG=configs/meta-llama-3.1-405b.json
median_ms() { sed -n 's/.*median \([0-9.]*\).*/\1/p' | tail -1; }
build/fakeexport export "$CFG" --pipeline "$DEVS" | head -1
echo "== static: export $CFG --pipeline (8 devices) --json"
static=$(build/fe_proc_stats -n "$N" -- build/fakeexport export "$CFG" --pipeline "$DEVS" --json | tail -1); echo "$static"
echo "== static, every layer traced (--trace-all-layers: no replay of identical layers)"
build/fe_proc_stats -n "$N" -- build/fakeexport export "$CFG" --pipeline "$DEVS" --json --trace-all-layers | tail -1
echo "== dynamic: ... --dynamic batch,seq --json"
dynamic=$(build/fe_proc_stats -n "$N" -- build/fakeexport export "$CFG" --pipeline "$DEVS" --json --dynamic batch,seq | tail -1)
echo "$dynamic"
echo "== bf16, batch 1, seq 2048 (issue 6's shape)"
build/fe_proc_stats -n "$N" -- build/fakeexport export "$CFG" --pipeline "$DEVS" --dtype bfloat16 --batch 1 --seq 2048 | tail -1
echo "== the decode step with a static cache of 8,192 tokens (--static-cache 8192, bf16; a strict export)"
build/fe_proc_stats -n "$N" -- build/fakeexport export "$CFG" --pipeline "$DEVS" --dtype bfloat16 --static-cache 8192 --json | tail -1
echo "== ... its step length dynamic (--dynamic seq)"
build/fe_proc_stats -n "$N" -- build/fakeexport export "$CFG" --pipeline "$DEVS" --dtype bfloat16 --static-cache 8192 --dynamic seq --seq 4 --json | tail -1
ROOT="${FAKEEXPORT_ORACLE:-$HOME/.cache/fakeexport/oracle}"
if [ ! -f "$ROOT/.ready" ] || [ "$(id -u)" != 0 ]; then
  echo "export_405b: PyTorch side skipped: no reference environment (tools/oracle/setup, as root)"
  exit 0
fi
for mode in static dynamic; do
  ours=$([ $mode = static ] && echo "$static" | median_ms || echo "$dynamic" | median_ms)
  torch_json=$(tools/oracle/run tools/oracle/scripts/time_torch_export_405b.py $mode 2 2>/dev/null | tail -1)
  python3 - "$mode" "$ours" "$torch_json" <<'PY'
import json, sys
mode, ours, t = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
torch_ms = t["best_seconds"] * 1000
print(f"{mode}: PyTorch {t['torch']} torch.export.export {torch_ms:.0f} ms ({t['nodes']} nodes, export call only, "
      f"best of {t['runs']}) vs fakeexport {ours:.1f} ms (whole process, median): {torch_ms / ours:.0f}x")
PY
done
