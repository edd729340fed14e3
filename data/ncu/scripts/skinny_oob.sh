#!/bin/bash
# 2026-11-26 session 8: mb_tma --skinny-oob (A boxes of 256 / 128 rows, in bounds or mostly beyond the matrix edge,
# B from HBM or L2-resident, 8..112 CTAs). Binary of .cache/oob. The first call (heldout15_oob.sh) stopped at a
# 128x256 ring of 112 CTAs that overran the buffer; this version keeps 128-wide B boxes (second call, 04:46 UTC); the
# third call adds a finer CTA sweep, a stage sweep and one-GPC against spread placement (gpc_groups).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/oob/mb_tma-* | grep -v ptxas | head -1)
timeout 300 $T --skinny-oob > $OUT/oob.jsonl 2> $OUT/oob.err; echo "oob rc=$?"
wc -l $OUT/*.jsonl; date -u
