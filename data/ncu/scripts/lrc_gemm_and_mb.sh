#!/bin/bash
# LRC data step (issue 8): mb_tma --lrc-only (timed, then under ncu, one launch per configuration) and our GEMM under ncu.
set -u
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/gpu.csv
date -u +%Y-%m-%dT%H:%M:%SZ > $OUT/date.txt
M="lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed,lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__cycles_elapsed.avg.per_second,lts__t_requests_srcunit_tex_op_read.sum"
if [ -z "${SKIP_MB:-}" ]; then
timeout 300 .cache/lrc/mb_tma --lrc-only > $OUT/mb_lrc.jsonl 2> $OUT/mb_lrc.err; echo "mb rc $?"
timeout 400 $NCU --clock-control none --kernel-name regex:tma_share_kernel --metrics $M --csv --page raw .cache/lrc/mb_tma --lrc-only --ncu > $OUT/mb_lrc_ncu.csv 2> $OUT/mb_lrc_ncu.err; echo "mb ncu rc $?"
fi
mkdir -p $OUT/gemm
python3 - <<'PY' > $OUT/gemm_list.txt
import json
for b in json.load(open(".cache/lrc/bins.json")): print(b["config"], b["bin"])
PY
while read cfg bin; do
  key=$(basename $(dirname $bin))
  for shape in "8192 8192 8192" "256 8192 8192" "2048 8192 8192"; do
    tag=${shape// /x}
    timeout 60 $bin $shape --seed 1 --warmup-ms 20 --min-ms 100 --rounds 3 --cublas 0 --check 1 > $OUT/gemm/time_${key}_${tag}.json 2>&1
    timeout 120 $NCU --clock-control none --kernel-name regex:gemm_kernel --launch-skip 2 --launch-count 1 --metrics $M --csv --page raw \
      $bin $shape --seed 1 --warmup-ms 0 --min-ms 0 --min-reps 2 --max-reps 2 --rounds 1 --cublas 0 --check 0 > $OUT/gemm/ncu_${key}_${tag}.csv 2>&1
    echo "$cfg $tag rc $?"
  done
done < $OUT/gemm_list.txt
tar czf $OUT/gemm.tgz -C $OUT gemm && rm -r $OUT/gemm
