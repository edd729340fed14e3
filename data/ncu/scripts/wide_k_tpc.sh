#!/bin/bash
# 2026-11-28, a helper: mb_tma --wide-k-tpc (new): WHICH part of the placement slows the 256-byte-row walk?
# --wide-k-place (data/microbench/wide_k_place_h100) found the 2-stage walk of the 8192^3 tile grid (132 persistent
# CTAs, pm8, kb = 2) as slow on a plain launch walking the cluster launch's SM -> tile map (3999 / 2761 cycles a stage,
# 128x256x128 / 128x128x128) as the cluster launch (4028 / 2750), and a cluster launch on the plain map as fast as the
# plain launch (3548 / 2423 against 3478 / 2430): placement, not launch mode; all landing time; kb = 1 within 1-5%.
# Two properties differ between the maps (host figures from the committed placements, the GPC map of the gpc-probe
# data): TPC mates (%smid 2t, 2t + 1) share the A panel at 100% of tile rounds in the plain map and 9% in the cluster
# one (B: 0% / 36%); and a GPC's 16-18 SMs hold 2.6-2.7 distinct A panels a round in the plain map, 14.4-14.5 in the
# cluster one (B: 8.0-8.1 / 8.3-8.4).
# The run: the two reference placements (one launch each, as --wide-k-place), the GPC of every SM (clusters of 2..16 of
# smid_kernel joined; the TPCs no cluster of 4+ uses take the GPC before them in the plain launch's CTA order), then
# 4 rounds (order rotated; 1 untimed + 5 timed launches each) of seven variants, all plain <<<>>> launches whose CTA
# on SM s walks the tile sequence the variant's host-built map gives s (the cta_of_smid remap); sharing per map as
# computed from the committed placements (A / B: TPC mates' shared rounds; gA: distinct A panels a GPC a round):
#   1 plain                       the plain placement                                A 1.00 B 0.00 gA  2.6
#   2 as cluster                  the cluster launch's placement                     A 0.09 B 0.36 gA 14.4
#   3 plain, TPC split            1 re-paired within each GPC: mates share nothing   A 0.00 B 0.00 gA  2.6
#   3b plain, TPC split B         ... mates share B (as the cluster's c, c + 8)      A 0.00 B 0.96 gA  2.6
#   4 cluster, TPC paired         2 re-paired within each GPC: A shared at most      A 0.20 B 0.20 gA 14.4
#                                 (only 20 of 66 TPCs can pair A inside the cluster GPCs: 4 is nearly 2; 5 instead)
#   5 TPC pairs, cluster order    CTAs 2i, 2i + 1 (the plain pairs) on the TPC the   A 1.00 B 0.00 gA  7.8
#                                 cluster launch reaches i-th: pairs moved between GPCs, mates still share A
#   5b TPC pairs, cluster order, split: 5 re-paired within each GPC               A 0.00 B 0.00 gA  7.8
# (every re-pairing an exact least-cost matching over the GPC's sequences: each GPC keeps its set of sequences).
# 128x256 and 128x128 tiles at kb = 2, kb = 1 as controls. Records "tma_wide_k_tpc" (--wide-k-place's fields, variant,
# same_sm, mapped, and the map's share_a, share_b, tpcs_a, gpc_a, gpc_b, gpc_a_max), "tma_wide_k_tpc_map" (each map),
# "tma_wide_k_tpc_gpcs" (the GPC map). The whole run twice (wide_k_tpc.jsonl, wide_k_tpc_repeat.jsonl).
#
# Expectation, written before the run. Checks: plain and as cluster repeat --wide-k-place's plain as plain and plain as
# cluster within ~5% (3512 / 2418 and 3999 / 2761 at kb = 2), mapped = 132 everywhere, the GPC map 6 x 16 + 2 x 18
# SMs. Below, f = (variant - plain) / (as cluster - plain), of cycles a stage and of land, kb = 2, both tiles.
# Prior: the GPC's composition (its distinct A panels, so the unique bytes it draws) ~50%, TPC pairing ~25%, both in
# shares ~25%. Why: a GPC of the cluster map draws ~14 A boxes a stage where the plain one draws ~3 (at 128x256x128 ~1.0
# MB against ~0.6 MB of unique bytes a GPC a stage), and the GPC's pool of in-flight loads is a known limit here; a
# TPC's mates are not known to merge loads.
# Reading:
#  - 3 and 3b slow (f ~ 1), 5 fast (f ~ 0), 5b slow: TPC PAIRING decides (whatever the GPC holds, mates that share
#    the A panel land fast); 4 then at f ~ 0.8-0.9 (20% paired against 9%);
#  - 3 and 3b fast (f ~ 0), 4 slow (f ~ 1), 5 and 5b alike and in between (f ~ 0.45 if it goes with the distinct A
#    panels, 7.8 of 2.6..14.4): the GPC'S COMPOSITION decides, by its A panels a round;
#  - in between: both; f(3) is the pairing's share at the plain GPCs, f(5) - f(5b) the pairing's at 5's GPCs, f(5b)
#    and f(3) against gA the composition's; land tells the same as cycles if it is all landing time;
#  - 3 and 3b apart: what the mates share besides A (B, as the cluster's mates do 36% of rounds) matters too;
#  - kb = 1 controls: every variant within ~5% of plain (as --wide-k-place found), else the 128-byte rows feel it too.
# Usage: wide_k_tpc.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
cp "$T.ptxas.txt" $OUT/ptxas.txt 2>/dev/null
date -u
timeout 120 $T --wide-k-tpc > $OUT/wide_k_tpc.jsonl 2>> $OUT/run.log; echo "tpc rc=$?"
date -u
timeout 120 $T --wide-k-tpc > $OUT/wide_k_tpc_repeat.jsonl 2>> $OUT/run.log; echo "tpc repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
