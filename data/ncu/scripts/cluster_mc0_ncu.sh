#!/bin/bash
# 2026-11-26 session 18: ncu traffic, the coalescer's merge and the per-CTA spread of 128x128 6-stage rings in clusters
# of two without multicast against the plain grid (calibration shapes), on either GPU. Runs list_ncu.sh on
# cluster_mc0_ncu.txt.
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/cluster_mc0_ncu.txt .cache/pmk30c
