#!/bin/bash
# 2026-11-26 session 16: mb_tma --direct-store with both store layouts (vector_bytes 4: our kernel's accumulator
# fragments; 16: coalesced 16-byte rows, as Triton's pointer matmul stores after its shared-memory layout conversion),
# twice. Binary built on the GPU machine.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 -m perfmodel.microbench --only mb_tma --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/mb_tma-* | grep -v ptxas | head -1)
timeout 200 $T --direct-store > $OUT/direct_store.jsonl 2> $OUT/direct_store.err; echo "store rc=$?"
timeout 200 $T --direct-store > $OUT/direct_store_repeat.jsonl 2> $OUT/direct_store_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
