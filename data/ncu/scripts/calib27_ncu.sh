#!/bin/bash
# 2026-11-26 session 13: HBM and L2 traffic (ncu, --clock-control none) and the per-CTA spread of the fresh calibration
# set's worst points (9216x4096x11008: the 128x128 tile 45% slower at 6 stages than at 4 on the GPU; 160x3584x14336: the
# crowded GPC). Runs list_ncu.sh (the same steps as run on 2026-11-26).
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/calib27_ncu.txt .cache/pmk28n
