#!/bin/bash
# 2026-11-27 session 28: does our GEMM's 128x128 6-stage ring lose at 9216x4096 only at the row pitches whose L2-paced
# walks re-read twice the bytes (10240-11264 bf16)? The family's three rings at K = 8192 / 9216 / 16384 (pitches the
# walks find quiet) beside 9216x4096x11008 on the same card: the 100 ms timed loop with the per-CTA probe, then ncu's
# HBM and L2 traffic (calibration shapes, diagnostic). Runs list_ncu.sh. Usage on the GPU machine:
#   bash data/ncu/scripts/pitch_k2_ncu.sh
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/pitch_k2_ncu.txt .cache/pmk28p2
