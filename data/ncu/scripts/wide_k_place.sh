#!/bin/bash
# 2026-11-28 session 33: mb_tma --wide-k-place (new): is the cluster launch's slowdown of the 256-byte-row walk a
# matter of WHERE its CTAs (and so which tiles) sit, or of the launch mode itself? --wide-k-gap (data/microbench/
# wide_k_gap_h100) found the 2-stage walk of the 8192^3 tile grid (132 persistent CTAs, pm8, kb = 2) at 3870 / 2762
# cycles a stage (128x256x128 / 128x128x128) launched with cudaLaunchKernelEx and a cluster dimension of 1, against
# 3386 / 2438 launched with <<<>>>; all of it landing time (+496 / +334); 2-3% with 128-byte rows (kb = 1). The cluster
# launch puts CTAs on SMs by rows of TPCs (perfmodel/hardware.py _tpc_row_order; --gpc-probe), the plain launch
# otherwise, so the same blockIdx (and tile sequence) sits on other SMs and next to other tiles.
# The run (--wide-k-gap's base walk: one (M+N) x K tensor, the walk's layout, no output, no register split): first
# each launch's placement (every CTA's %smid, one launch each: tma_wide_k_place_smids); then 4 rounds of six variants
# (order rotated; each 1 untimed + 5 timed launches), every variant reading %smid:
#   plain               <<<>>>, each CTA its own tiles;
#   cluster             cluster of 1, its own tiles;
#   plain as cluster    <<<>>>, the CTA on SM s walks the tiles the cluster launch's CTA on s walked (SM -> CTA map
#                       from the placement launch, a device array);
#   cluster as plain    cluster of 1, the CTA on SM s walks the tiles the plain launch's CTA on s walked;
#   plain as plain, cluster as cluster: each remapped onto its own placement (the remap's cost; same_sm checks that a
#                       launch's placement repeats, mapped that every SM was found in the map).
# 128x256 and 128x128 tiles at kb = 2, and at kb = 1 (controls). Records cycles a stage (median CTA), land, wait_group
# cycles and the kernel clock as --wide-k-gap does. The whole run twice (wide_k_place.jsonl, wide_k_place_repeat.jsonl).
#
# Expectation, written before the run. Checks first: plain and cluster repeat --wide-k-gap's base and cluster (3386 /
# 2438 and 3870 / 2762 at kb = 2, within ~5%), same_sm = 132 for every variant (each launch mode places the grid alike
# launch after launch) and mapped = 132 for the remapped ones; plain as plain / cluster as cluster within ~2% of plain /
# cluster (the %smid read and one global load cost nothing). Prior: placement ~65%, launch mode ~25%, a mix ~10%. The
# README's inference (the cluster launch's placement spreads each panel's sharers) and the kb = 1 rows' small gap point
# to placement: a launch mode that slowed the TMA itself would be expected at both row widths.
# Reading (at kb = 2, both tiles; "slow" = within the rounds' spread of cluster, "fast" = of plain):
#  - plain as cluster slow AND cluster as plain fast: PLACEMENT, which tiles sit together on a TPC / GPC; the launch
#    mode costs nothing by itself, and a plain-launched walk with the harness's SM -> tile map reproduces the GEMM;
#  - cluster as plain slow AND plain as cluster fast (each launch keeps its own speed whatever the tiles): the LAUNCH
#    MODE (how a cluster launch's CTAs are scheduled or its TMA / L2 traffic handled), not where the tiles sit;
#  - both remapped in between (e.g. each moves about half way): both, in those shares (the land cycles tell which part
#    of the +496 / +334 each carries);
#  - same_sm < 132 for a mode: its placement does not repeat, and the remap moved only part of the tiles; read the
#    remapped rows against the fraction moved.
# Usage: wide_k_place.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
cp "$T.ptxas.txt" $OUT/ptxas.txt 2>/dev/null
date -u
timeout 120 $T --wide-k-place > $OUT/wide_k_place.jsonl 2>> $OUT/run.log; echo "place rc=$?"
date -u
timeout 120 $T --wide-k-place > $OUT/wide_k_place_repeat.jsonl 2>> $OUT/run.log; echo "place repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
