#!/bin/bash
# 2026-11-26 session 15: mb_tma --pair-smem (the --pair-share walk at 28-84 CTAs, M = 256 and 160, with two consumer
# warpgroups that read 0 or 48 KB of each stage from shared memory, the 128x128x64 tile's wgmma operand reads, then
# spin 0 or 200 cycles), twice. Binary built on the GPU machine.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 -m perfmodel.microbench --only mb_tma --build-only --build-dir /tmp/mbb > $OUT/build.log 2>&1; echo "build rc=$?"
T=$(ls /tmp/mbb/mb_tma-* | grep -v ptxas | head -1)
timeout 200 $T --pair-smem > $OUT/pair_smem.jsonl 2> $OUT/pair_smem.err; echo "smem rc=$?"
timeout 200 $T --pair-smem > $OUT/pair_smem_repeat.jsonl 2> $OUT/pair_smem_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
