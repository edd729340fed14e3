#!/bin/bash
set -u
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/gpu.csv
date -u +%Y-%m-%dT%H:%M:%SZ > $OUT/date.txt
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_read.sum.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"
timeout 200 .cache/lrc/mb_tma --skinny-only > $OUT/mb_skinny.jsonl 2> $OUT/mb_skinny.err; echo "mb rc $?"
timeout 200 $NCU --clock-control none --kernel-name regex:"tma_gemm_walk_kernel" --metrics $M --csv --page raw .cache/lrc/mb_tma --skinny-only --ncu > $OUT/mb_skinny_ncu.csv 2> $OUT/mb_skinny_ncu.err; echo "ncu rc $?"
grep tma_skinny $OUT/mb_skinny.jsonl
