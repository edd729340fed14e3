#!/bin/bash
# 2026-11-27 session 23: on whatever card the machine has, mb_tma --gpc-probe (the card's GPC layout: which SMs share a
# GPC, where a grid's CTAs land) and the card-probe sweep (configs/sweeps/sm90_card_probe.toml: skinny configurations
# whose time differs by 20-47% between cards), 100 ms loops, the in-kernel clock probe. Usage: bash
# data/ncu/scripts/card_probe.sh [H100|H200]
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma ${1:-H}
nvidia-smi -q > $OUT/smi_q.txt 2>&1   # the card's clocks, memory, ECC, power and throttle state
timeout 120 $T --gpc-probe > $OUT/gpc.jsonl 2> $OUT/gpc.err; echo "gpc rc=$?"
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_card_probe.toml > $OUT/build_gemm.log 2>&1
echo "gemm build rc=$?"; date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --no-cublas --timeout 30"
timeout 150 $M --sweep configs/sweeps/sm90_card_probe.toml --out $OUT/${G}_card_probe.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 100 --seed 9902 > $OUT/card_probe.log 2>&1; echo "probe rc=$?"
wc -l $OUT/*.jsonl; date -u
