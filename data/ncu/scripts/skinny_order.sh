#!/bin/bash
# 2026-11-25 session 4: mb_tma --skinny-order (resident / fetched / private A boxes, before or after B) and
# --skinny-private again on the same card.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/mbo/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --skinny-order > $OUT/order.jsonl 2> $OUT/order.err; echo "order rc=$?"
timeout 120 $T --skinny-private > $OUT/private.jsonl 2> $OUT/private.err; echo "private rc=$?"
wc -l $OUT/*.jsonl; date -u
