#!/bin/bash
# 2026-11-26 session 14: mb_tma --l2-residency (TMA-loaded 128-row panels of 16 KB rows, 8-48 MiB, walked in step by
# every SM, each panel read by other SMs on the second pass; timed over warm launches), then the same under ncu with
# the caches left as they are (--cache-control none) for the HBM bytes each launch reads. Binary built on the GPU machine.
# The steps are l2_residency_fine.sh's since the eighteenth session (the binary now also runs 22-30 MiB in 2 MiB steps);
# this name stays as the record of data/ncu/l2_residency (any card).
exec bash data/ncu/scripts/l2_residency_fine.sh H
