#!/bin/bash
# Build our kernel's binaries for a held-out sweep and time it (100 ms loops, the in-kernel clock probe), on the GPU
# machine: bash data/ncu/scripts/heldout_set.sh NN SEED  (configs/sweeps/sm90_heldoutNN.toml -> $OUT/<gpu>_heldoutNN.jsonl);
# a calibration set: KIND=calib bash data/ncu/scripts/heldout_set.sh NN SEED  (sm90_calibNN.toml -> <gpu>_calibNN.jsonl).
# The same steps as heldout19.sh .. heldout25.sh, which stay as the records of those runs; later sets call this one.
set -u
N=${1:?set number, e.g. 26}; SEED=${2:?seed}; KIND=${KIND:-heldout}
SWEEP=configs/sweeps/sm90_$KIND$N.toml
[ -f "$SWEEP" ] || { echo "no $SWEEP"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
date -u
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py $SWEEP > $OUT/build.log 2>&1
echo "build rc=$?"; tail -1 $OUT/build.log; date -u
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --timeout 30"
timeout 330 $M --sweep $SWEEP --out $OUT/${G}_$KIND$N.jsonl --warmup-ms 50 --min-ms 100 \
  --time-budget 300 --seed $SEED > $OUT/$KIND$N.log 2>&1; echo "$KIND$N rc=$?"; wc -l $OUT/*.jsonl; date -u
