#!/bin/bash
# 2026-11-27 session 22: mb_tma --gpc-load (skinny rings on 12 / 4 SMs of one GPC while 0..96 SMs of the other GPCs
# stream the same ring from HBM: is a crowded GPC's pool held longer under the chip's HBM load?), twice. Binary built
# on the GPU machine. Usage: bash data/ncu/scripts/gpc_load.sh [H100|H200]
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma ${1:-H}
timeout 200 $T --gpc-load > $OUT/gpc_load.jsonl 2> $OUT/gpc_load.err; echo "load rc=$?"
timeout 200 $T --gpc-load > $OUT/gpc_load_repeat.jsonl 2> $OUT/gpc_load_repeat.err; echo "repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
