#!/bin/bash
# 2026-11-26 session 13: HBM and L2 traffic (ncu, --clock-control none) and the per-CTA spread against ring depth at long K
# (calibration shapes; the drift law l2.sm_rate_spread has no ring depth in it, and 9216x4096x11008 128x128 reads
# 1.7x the model at 6 stages, 0.94x at 4). Runs list_ncu.sh (the same steps as run on 2026-11-26).
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/depth_ncu.txt .cache/pmk28d
