#!/bin/bash
# 2026-11-27 session 28: is the H200's long-K miss at 4096x4096x32768 (64 KB rows) its pitch, as 9216x4096x16384 (32 KB
# rows) is? The 128x128 ring at 6 and 4 stages at K = 32768 beside 31744 / 33792 (the expectation, written before the
# run: on the H200 the 6-stage ring loses more at 32768 than at its neighbours; on the H100 none of the three loses
# much). The 100 ms loop with the per-CTA probe, then ncu (calibration shapes, diagnostic). Runs list_ncu.sh.
# Usage on the GPU machine: bash data/ncu/scripts/pitch_k4_ncu.sh
exec bash data/ncu/scripts/list_ncu.sh data/ncu/scripts/pitch_k4_ncu.txt .cache/pmk28p4
