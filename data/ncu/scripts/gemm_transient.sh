#!/bin/bash
# 2026-11-25: our GEMM's throughput in timed loops of 5..640 ms, each started after 2 s of idle GPU
# (--warmup-ms 0 --check 0 --cublas 0), for the short clock regime on a real kernel.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in 49db12b8067622fa51ad e916b041eec84292f90f 4a7f0a974d99ee829aca; do
  for ms in 5 10 20 40 80 160 640; do
    sleep 2
    echo "{\"bin\": \"$b\", \"min_ms\": $ms, \"out\": $(.cache/gemmtr/pmk/$b/gemm 8192 8192 8192 --warmup-ms 0 --min-ms $ms --min-reps 3 --cublas 0 --check 0 --seed 5 | tail -1)}"
  done
done > $OUT/gemm_transient.jsonl
python3 - <<'PY'
import json, os
for l in open(os.environ['OUT'] + '/gemm_transient.jsonl'):
    try:
        r = json.loads(l); t = r['out'].get('time', {})
        print(r['bin'][:6], r['min_ms'], t.get('reps'), t.get('tflops'), t.get('sm_mhz_mean'), t.get('power_w_mean'))
    except Exception as e:
        print('bad', l[:200], e)
PY
