#!/bin/bash
# 2026-11-27 session 28: do the pitches the H100's paced walks find worst (K = 15872 / 16896 bf16) slow our GEMM's
# 128x128 6-stage ring at 9216x4096, as 11008 does, where 16384 does not (the expectation, written before the run: the
# H100 loses at 15872 and 16896 and not at 16384; the H200 loses at 16384)? The 100 ms loop with the per-CTA probe,
# then ncu (calibration shapes, diagnostic). Runs list_ncu.sh. Usage on the GPU machine:
#   bash data/ncu/scripts/pitch_k3_ncu.sh
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/pitch_k3_ncu.txt .cache/pmk28p3
