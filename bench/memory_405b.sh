#!/usr/bin/env bash
# `fakeexport memory --json` of Llama-3.1-405B pipelined over 8 fake GPUs next to `export --json` of
# the same program (issue 16: memory within 2x of export), wall time and peak RSS over N runs each
# (default 10). Both processes export; memory then walks the program's liveness (on 8xH200, where
# it fits: exit 0).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-10}"
DEVS=cuda:0,cuda:1,cuda:2,cuda:3,cuda:4,cuda:5,cuda:6,cuda:7
ARGS=(configs/meta-llama-3.1-405b.json --pipeline "$DEVS" --dtype bfloat16 --batch 1 --seq 2048 --json)
echo "export --json:"
build/fe_proc_stats -n "$N" -- build/fakeexport export "${ARGS[@]}"
echo "memory --json:"
build/fe_proc_stats -n "$N" -- build/fakeexport memory "${ARGS[@]}" --devices 8xH200
