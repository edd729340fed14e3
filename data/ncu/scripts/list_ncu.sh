#!/bin/bash
# HBM and L2 traffic (ncu, --clock-control none) and the per-CTA spread of the (shape, dtype, configuration) lines of a
# list file, on the GPU machine: timing builds made there by build_probe.py --normal, then ksweep_ncu.py.
#   bash data/ncu/scripts/list_ncu.sh LIST CACHE_DIR   ($OUT/ksweep_ncu.jsonl, $OUT/ksweep_cta_probe.jsonl)
set -u
LIST=${1:?list file}; CACHE=${2:?build cache folder}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
python3 data/ncu/scripts/build_probe.py $LIST $OUT/manifest.json $CACHE --normal > $OUT/build.log 2>&1
echo "build rc=$?"; date -u
timeout 500 python3 data/ncu/scripts/ksweep_ncu.py $OUT $OUT/manifest.json > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; wc -l $OUT/*.jsonl; date -u
