#!/bin/bash
# 2026-11-26 session 19: the tensor core's power against its operands' zero share, sampled during the burn.
# mb_wgmma --burn-rows 10 AROWS BROWS (A rows from AROWS on of 64 zero, B rows from BROWS on of 256 zero), interleaved
# with the plain burn, while nvidia-smi samples power and SM clock every 100 ms; each burn's wall-clock window is
# logged, so derive can take the power of its settled part. Usage: burn_power.sh [CARD] (H100 / H200 / any).
set -u
source data/ncu/scripts/mb_on_card.sh mb_wgmma ${1:-H}
nvidia-smi --query-gpu=timestamp,power.draw,power.draw.instant,clocks.sm,temperature.gpu --format=csv,noheader,nounits \
  -lms 100 > $OUT/smi_samples.csv 2> $OUT/smi.err &
SMI=$!
sleep 2
for rows in "64 256" "0 256" "16 256" "32 256" "48 256" "64 256" "64 0" "64 64" "64 128" "32 128" "64 192" "0 0" "64 256"; do
  set -- $rows
  echo "start $1 $2 $(date -u +%Y/%m/%d\ %H:%M:%S.%N)" >> $OUT/windows.txt
  timeout 40 $T --burn-rows 10 $1 $2 >> $OUT/burn_power.jsonl 2>> $OUT/burn_power.err; rc=$?
  echo "end $1 $2 $(date -u +%Y/%m/%d\ %H:%M:%S.%N) rc=$rc" >> $OUT/windows.txt
  sleep 1
done
kill $SMI
wc -l $OUT/*; date -u
