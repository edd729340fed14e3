#!/bin/bash
# 2026-11-27 session 19: what mb_power's bulk-copy phases move (their byte rates exceed the memory's: 4.2 / 3.5 TB/s
# from a 3.35 TB/s HBM on an H100, 18 TB/s on an H200): ncu's DRAM and L2 bytes of the bulk and ld.global kernels
# in short phases. Usage: bulk_ncu.sh CARD
set -u
CARD=${1:-H}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
grep -q "$CARD" $OUT/gpu.txt || { echo "not a $CARD card"; exit 3; }
python3 -c "from perfmodel.microbench.power import build; from pathlib import Path; print(build(Path('/tmp/mbp')))" > $OUT/exe.txt
T=$(tail -1 $OUT/exe.txt)
timeout 300 ncu --clock-control none --metrics dram__bytes_read.sum,lts__t_bytes.sum,lts__t_sectors_op_read.sum,gpu__time_duration.sum \
  --csv $T --seconds 0.3 > $OUT/bulk_ncu.csv 2> $OUT/bulk_ncu.err; echo "ncu rc=$?"
grep -E "read_kernel|bulk_kernel" $OUT/bulk_ncu.csv | cut -c1-400 | head -40
$T --seconds 0.3 > $OUT/plain.jsonl 2>&1; echo "plain rc=$?"; grep -E '"bench": "(l2|hbm|bulk_l2|bulk_hbm)"' $OUT/plain.jsonl
