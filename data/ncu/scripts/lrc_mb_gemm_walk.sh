#!/bin/bash
set -u
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/gpu.csv
date -u +%Y-%m-%dT%H:%M:%SZ > $OUT/date.txt
M="lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed,lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__cycles_elapsed.avg.per_second,lts__t_requests_srcunit_tex_op_read.sum"
timeout 300 .cache/lrc/mb_tma --lrc-only > $OUT/mb_lrc.jsonl 2> $OUT/mb_lrc.err; echo "mb rc $?"
timeout 450 $NCU --clock-control none --kernel-name regex:"tma_share_kernel|tma_gemm_walk_kernel" --metrics $M --csv --page raw .cache/lrc/mb_tma --lrc-only --ncu > $OUT/mb_lrc_ncu.csv 2> $OUT/mb_lrc_ncu.err; echo "mb ncu rc $?"
tail -3 $OUT/mb_lrc.err $OUT/mb_lrc_ncu.err
