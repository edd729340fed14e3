#!/bin/bash
# 2026-11-26 session 7: how much the long-K re-reads vary between H100 cards: ncu (--ncu-only) of the fabric and the
# ring-depth manifests (fabric_manifest.json, stages_manifest.json; .cache/pmk22, kernel 76a174cac980a28d) on whatever
# card the call gets. Run once a call, on different leases.
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
timeout 200 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/fabric_manifest.json --ncu-only > $OUT/ncu1.log 2>&1
echo "fabric rc=$?"
timeout 200 python3 data/ncu/scripts/ksweep_ncu.py $OUT data/ncu/scripts/stages_manifest.json --ncu-only > $OUT/ncu2.log 2>&1
echo "stages rc=$?"; wc -l $OUT/*.jsonl; date -u
