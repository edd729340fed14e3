#!/bin/bash
# 2026-11-27 session 26: HBM and L2 traffic (ncu, --clock-control none) and the per-CTA end times of one-wave grids of
# the one-consumer 64x256 tile at M = 128..256 (B panels read by 2-4 CTAs), which the model predicts 10-26% too fast at
# the kernel's clock while the same tile at M = 64 or 1024 and the other tiles of those shapes are right (calibration
# shapes). Runs list_ncu.sh.
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/partial_ncu.txt .cache/pmk_partial
