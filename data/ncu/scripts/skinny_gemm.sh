#!/bin/bash
set -u
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/gpu.csv
date -u +%Y-%m-%dT%H:%M:%SZ > $OUT/date.txt
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_read.sum.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.max.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,smsp__inst_executed.sum,sm__cycles_active.max"
mkdir -p $OUT/sk
python3 - <<'PY' > $OUT/sk_list.txt
import json
for b in json.load(open(".cache/lrc/bins_sk.json")): print(b["config"], b["bin"])
PY
while read cfg bin; do
  key=$(basename $(dirname $bin))
  for shape in "64 8192 28672" "16 6144 4096"; do
    tag=${shape// /x}
    timeout 60 $bin $shape --seed 1 --warmup-ms 20 --min-ms 100 --rounds 3 --cublas 0 --check 1 > $OUT/sk/time_${key}_${tag}.json 2>&1
    timeout 120 $NCU --clock-control none --kernel-name regex:gemm_kernel --launch-skip 2 --launch-count 1 --metrics $M --csv --page raw \
      $bin $shape --seed 1 --warmup-ms 0 --min-ms 0 --min-reps 2 --max-reps 2 --rounds 1 --cublas 0 --check 0 > $OUT/sk/ncu_${key}_${tag}.csv 2>&1
    echo "$cfg $tag $(grep -o '"tflops": [0-9.]*' $OUT/sk/time_${key}_${tag}.json | head -1)"
  done
done < $OUT/sk_list.txt
tar czf $OUT/sk.tgz -C $OUT sk && rm -r $OUT/sk
