#!/bin/bash
# 2026-11-27 session 24: is 9216x4096x11008 (its row pitch 22016 B = 43 x 512) slow for its pitch, its K, or its
# tiles a CTA? The same three configurations at K = 10240 / 10752 / 11008 / 11264 / 12288 and at M = 8192: the 100 ms
# timed loop with the per-CTA probe, then ncu's HBM and L2 traffic (calibration shapes, diagnostic).
# Runs list_ncu.sh. Usage on the GPU machine: bash data/ncu/scripts/pitch_k_ncu.sh
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/pitch_k_ncu.txt .cache/pmk28p
