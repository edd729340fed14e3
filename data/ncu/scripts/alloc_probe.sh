#!/bin/bash
# 2026-11-27 session 23: is a card's fast or slow skinny state (configs/sweeps/sm90_card_probe.toml, 64x4096x28672
# 64x128 s9: 155 against 139.5 TFLOP/s between H100 cards) a property of the card or of where the harness's buffers
# land in HBM? Times configs/sweeps/sm90_card_probe_small.toml alone and while another process holds 0.5-40 GiB of
# device memory allocated first (torch), several times. Usage: bash data/ncu/scripts/alloc_probe.sh
set -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,serial --format=csv,noheader | tee $OUT/gpu.txt
G=h100; grep -q H200 $OUT/gpu.txt && G=h200
python3 data/ncu/scripts/build_pmk24.py configs/sweeps/sm90_card_probe_small.toml > $OUT/build.log 2>&1; echo "build rc=$?"
M="env PYTHONPATH=. PERFMODEL_CACHE_DIR=.cache/pmk24 python3 -m perfmodel.measure --gpu auto --no-cublas --timeout 30"
for gib in 0 0.5 3 11 40 0 7 19 0; do
  if [ "$gib" != "0" ]; then
    python3 -c "import torch,time; x=torch.empty(int($gib*2**30),dtype=torch.uint8,device='cuda'); x.fill_(1); torch.cuda.synchronize(); print('held',flush=True); time.sleep(60)" > $OUT/hold_$gib.log 2>&1 &
    H=$!; for i in $(seq 1 60); do grep -q held $OUT/hold_$gib.log && break; sleep 0.5; done
  fi
  timeout 60 $M --sweep configs/sweeps/sm90_card_probe_small.toml --out $OUT/${G}_alloc_$gib.jsonl --warmup-ms 50 \
    --min-ms 100 --time-budget 30 --seed 9903 > $OUT/alloc_$gib.log 2>&1
  echo "held $gib GiB: $(python3 -c "import json,sys; print([round(json.loads(l)['tflops'],1) for l in open('$OUT/${G}_alloc_$gib.jsonl') if '\"tflops\"' in l])")"
  rm -f $OUT/${G}_alloc_$gib.jsonl.tmp
  [ "$gib" != "0" ] && kill $H 2>/dev/null; wait 2>/dev/null
  mv $OUT/${G}_alloc_$gib.jsonl $OUT/${G}_alloc_${gib}_$(date +%s%N).jsonl
done
date -u
