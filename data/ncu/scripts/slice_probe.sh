#!/bin/bash
# 2026-11-27 session 29: mb_pitch --slice-probe (new) under ncu with per-instance metric values: which L2 slice serves
# each of 82 line addresses (the first 64 lines of a buffer, and single address bits 13..30). A pilot for mapping the
# H100's address -> slice hash, which the bad row pitches seem to follow (docs/calibrate.md, the twenty-ninth session).
# Expectation written before the run: each probe's requests land on one slice (or one per L2 partition), consecutive
# lines spread over many slices, and the per-bit probes show which address bits move a line to another slice.
# Usage: slice_probe.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_pitch "${1:-H}"
ncu --help 2>&1 | grep -i -B1 -A4 "metric-instances" > $OUT/ncu_help.txt
timeout 300 ncu --clock-control none --csv --print-metric-instances values \
  --metrics lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum --kernel-name slice_probe_kernel \
  --log-file $OUT/slice_ncu.csv $T --slice-probe > $OUT/slice_probe.jsonl 2> $OUT/ncu.err; echo "ncu rc=$?"
wc -l $OUT/*.jsonl $OUT/*.csv; gzip -9 $OUT/slice_ncu.csv; date -u
