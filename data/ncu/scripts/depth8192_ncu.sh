#!/bin/bash
# 2026-11-26 session 18: HBM and L2 traffic (ncu, --clock-control none), the coalescer's merge and the per-CTA spread
# against ring depth at 8192^3 (and two long-K twins), calibration shapes: why the 64x256 tile is fastest at 4 stages.
# Runs list_ncu.sh on depth8192_ncu.txt.
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/depth8192_ncu.txt .cache/pmk30d
