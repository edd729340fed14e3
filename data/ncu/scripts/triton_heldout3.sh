#!/bin/bash
# 2026-11-26 session 11: a third Triton held-out set (4 shapes of configs/splits/triton.toml, committed before it was
# measured, after the change it judges was chosen on the Triton calibration shapes): both families, 132 configs each,
# do_bench 100 ms loops back to back, as data/triton/h100_triton.jsonl.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
export TRITON_CACHE_DIR=/tmp/tc
PYTHONPATH=. timeout 500 python3 -m perfmodel.measure.triton_bench --out $OUT/${G}_heldout3_triton.jsonl --time-budget 450 \
  --shapes 2048x8192x2048,1024x5120x13824,6144x4096x4096,192x11008x4096 > $OUT/triton.log 2>&1; echo "triton rc=$?"
wc -l $OUT/*.jsonl; tail -3 $OUT/triton.log; date -u
