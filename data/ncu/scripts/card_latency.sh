#!/bin/bash
# 2026-11-27 session 23: a card's fast or slow skinny state (64x4096x28672 64x128 s9: 155 against 139.5 TFLOP/s between
# H100 cards, whatever the allocations; data/ncu/card_probe) beside its memory latencies: the small card probe, then
# mb_memory (HBM and L2 pointer-chase latency, bandwidths) and mb_tma (TMA box latency from L2 and from HBM), on the same
# card. Usage: bash data/ncu/scripts/card_latency.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
nvidia-smi -q > $OUT/smi_q.txt 2>&1
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_card_probe_small.toml > $OUT/build.log 2>&1; echo "build rc=$?"
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --no-cublas --timeout 30"
timeout 60 $M --sweep configs/sweeps/sm90_card_probe_small.toml --out $OUT/${G}_card_probe_small.jsonl --warmup-ms 50 \
  --min-ms 100 --time-budget 30 --seed 9904 > $OUT/probe.log 2>&1; echo "probe rc=$?"
python3 -c "import json; print('probe', [round(json.loads(l)['tflops'],1) for l in open('$OUT/${G}_card_probe_small.jsonl') if '\"tflops\"' in l])"
timeout 300 python3 -m perfmodel.microbench --only mb_memory,mb_tma --out $OUT/mb --build-dir /tmp/mbb --burn-seconds 0 \
  --idle-seconds 0 --no-transient > $OUT/mb.log 2>&1; echo "mb rc=$?"
python3 - <<'PY'
import json, glob, os
f = glob.glob(os.environ["OUT"] + "/mb/*.json")[0]
for r in json.load(open(f))["records"]:
    if r["bench"] in ("hbm_latency", "l2_latency", "tma_latency", "hbm_read_bw"):
        print(r["bench"], {k: v for k, v in r.items() if k in ("cycles", "ns", "bytes", "box_bytes", "source", "swizzle",
                                                               "bytes_per_s", "working_set_bytes", "latency_cycles")})
PY
date -u
