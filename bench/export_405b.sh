#!/usr/bin/env bash
# The whole `fakeexport export` process for Llama-3.1-405B's config (126 layers) pipelined over 8
# fake GPUs, bf16, batch 1, seq 2048: wall time and peak RSS over N runs (default 10).
# Reference (issue 6): PyTorch 2.14's fake export of that shape takes ~5.5 s (8.1 s and 540 MB for
# the whole process); the target is < 50 ms and < 64 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-10}"
DEVS=cuda:0,cuda:1,cuda:2,cuda:3,cuda:4,cuda:5,cuda:6,cuda:7
build/fakeexport export configs/meta-llama-3.1-405b.json --pipeline "$DEVS" --dtype bfloat16 --batch 1 --seq 2048
build/fe_proc_stats -n "$N" -- build/fakeexport export configs/meta-llama-3.1-405b.json --pipeline "$DEVS" \
  --dtype bfloat16 --batch 1 --seq 2048
