#!/bin/bash
# 2026-11-26 session 16: HBM, L2 and coalescer traffic (ncu, --clock-control none) and the per-CTA spread of a one-wave
# grid's tile orders and clusters (1000x1992x1016 128x256: raster n 16%, clusters 4-12% slower than raster m on the
# H100 where the model has them equal). Runs list_ncu.sh.
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/raster_ncu.txt .cache/pmk_raster
