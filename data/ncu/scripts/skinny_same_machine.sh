#!/bin/bash
# 2026-11-25 session 3: the skinny rings three ways on one machine, for the next session's latency law: our kernel at
# 64xNx28672 (8..128 CTAs), mb_tma --skinny-ctas (the same rings as pure streams, with and without the MMA time) and
# mb_tma --panel-only (tma_hbm_panel: the GEMM panel walk at 8/16/56 KB pitch).
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
T=$(ls .cache/h200b/mb_tma-* | grep -v ptxas | head -1)
timeout 120 $T --skinny-ctas > $OUT/skinny_ctas.jsonl 2> $OUT/skinny_ctas.err; echo "skinny-ctas rc=$?"
timeout 200 $T --panel-only > $OUT/panel.jsonl 2> $OUT/panel.err; echo "panel rc=$?"
env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk8 timeout 200 python3 -m perfmodel.measure --gpu auto \
  --sweep configs/sweeps/sm90_skinny_ctas.toml --out $OUT/h100_skinny_ctas_repeat.jsonl --warmup-ms 50 --min-ms 100 \
  --timeout 30 --seed 9910 > $OUT/skinny_gemm.log 2>&1; echo "gemm rc=$?"
wc -l $OUT/*.jsonl; date -u
