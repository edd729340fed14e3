#!/bin/bash
# 2026-11-28, a helper: mb_tma --wide-k-knee (new): is there a KNEE in the distinct bytes a GPC draws a stage round?
# --wide-k-tpc (data/microbench/wide_k_tpc_h100, _h100b) found the GPC's mix of panels, not the TPC pairing, behind the
# cluster placement's slow 256-byte-row walk (2-stage rings, 8192^3 grid, 132 persistent CTAs, pm8): a GPC walking ~2.6
# distinct A panels a round is fast, ~7.8 (plain TPC pairs dealt in the cluster launch's TPC order) as slow as the
# cluster map's 14.4 at 128x256x128 (+16%) but half as slow at 128x128x128 (+6% against +12%); kb = 1 within 1-6%.
# The lead: the GPC's pool of in-flight loads (gpu.gpc_inflight_bytes 627 KB, --gpc-probe) counts DISTINCT bytes, and
# the walk slows once a GPC's distinct bytes in flight reach it. Distinct kB (1000 B) a GPC a stage round = A panels x
# 128 rows x kb x 128 B + B panels x tile_n rows x kb x 128 B (means over GPCs and rounds).
# The run: --wide-k-tpc's references and GPC map, then 4 rounds (order rotated; 1 untimed + 5 timed launches each) of
# thirteen plain <<<>>> launches on host-built SM -> sequence maps (the cta_of_smid remap): the plain, cluster and "TPC
# pairs, cluster order" maps, and the plain map with `moved` slots of each GPC's two 8-SM blocks (its sequences in
# ascending order) taking the sequence of that slot in another GPC (a cyclic shift of the slot across the 8 GPCs:
# every GPC keeps its SMs, the grid its sequences), singly (move j: slots 0, 2, 4, 6, 1, 3, 5, 7 in turn from GPCs
# g + 1..7, TPC mates split as they go) or as whole TPCs (move j, pairs: mates keep sharing A). Figures from the
# committed wide_k_tpc_h100 placements (TPC mates' share of A; A panels a GPC a round at 128x256 / 128x128; distinct kB
# a GPC a round at 128x256x128, 128x256x64, 128x128x128, 128x128x64; the run prints its own):
#   variant                   mates A  gA 256 / 128  gB 256 / 128 | kB 256x128 256x64 128x128 128x64
#   plain                     1.00     2.7  2.6      8.0  8.1     |  612  309  352  176
#   as cluster                0.09    14.5 14.4      8.4  8.4     | 1023  510  745  372
#   TPC pairs, cluster order  1.00     7.9  7.8      8.4  8.5     |  813  405  530  265
#   move 2, pairs             1.00     4.6  4.6      8.1  7.9     |  680  335  409  205
#   move 4, pairs             1.00     6.1  6.1      7.4  7.5     |  686  346  445  222
#   move 8, pairs             1.00     7.9  7.9      6.7  7.2     |  698  367  494  247
#   move 1                    0.76     4.7  4.6      8.0  8.0     |  680  339  414  207
#   move 2                    0.52     6.6  6.6      7.7  7.8     |  723  364  472  236
#   move 3                    0.27     8.3  8.2      7.5  7.7     |  761  387  521  261
#   move 4                    0.03    10.3 10.2      7.3  7.7     |  819  420  587  293
#   move 5                    0.03    12.2 12.2      7.2  7.6     |  870  450  648  324
#   move 6                    0.03    13.6 13.8      6.9  7.4     |  901  468  691  346
#   move 7                    0.03    15.1 15.2      6.9  7.3     |  948  488  737  368
# (the moved maps draw FEWER B panels than plain: "move 8, pairs" walks dealt's 7.9 A panels at 698 kB, not 813).
# 128x256 and 128x128 tiles at kb = 2 and kb = 1. Records "tma_wide_k_knee" (--wide-k-tpc's fields with moved, pairs,
# a_kb, b_kb, gpc_kb), "tma_wide_k_knee_map" (each map), "tma_wide_k_tpc_gpcs" (the GPC map). The whole run twice
# (wide_k_knee.jsonl, wide_k_knee_repeat.jsonl).
#
# Expectation, written before the run. Checks: plain, as cluster and TPC pairs, cluster order repeat --wide-k-tpc's
# within ~5% (3419 / 2461, 3972 / 2764, 3950 / 2605 cycles a stage at kb = 2), mapped = 132 everywhere, the GPC map
# 6 x 16 + 2 x 18 SMs, the maps' kB as above within a few % (the run's own placements).
# The prior points put the slowdown against kB a round (vs each config's plain): 128x256x128 612 -> 0, 813 +16%, 1023
# +16%; 128x128x128 352 -> 0, 530 +6%, 745 +12%; 128x256x64 309 -> 0, 405 +2%, 510 +6%; 128x128x64 176..372 <= +2%.
# Prior: ~50% ONE knee in kB a round shared by all four configs, near 400-500 kB (128x128x128 and 128x256x64 both +6%
# at ~510-530 kB, 128x128x64 flat up to 372): then 128x128x128 flat to ~450 kB and rising through move 3..7,
# 128x256x64 rising only at move 5..7 (450-490 kB), 128x128x64 flat throughout, and 128x256x128, whose plain (612) lies
# past the knee already, rising from the first step and level by ~800 kB (move 4 ~ cluster); ~25% the rise goes with
# A panels, not bytes (the two tiles' curves meet in gA, not in kB: "move 8, pairs" as slow as dealt at 128x256x128);
# ~25% neither (a smooth rise, or a knee in bytes in flight: kB x land / cycles, ~0.6-0.78 of the time).
# Reading:
#  - cycles and land against gpc_kb per (tile, kb): where each curve leaves plain (the knee) and where it levels;
#    the same kB for all four configs -> the distinct bytes a GPC a round decide; knees at one gA but different kB
#    -> panels (the count of distinct loads), not bytes;
#  - "move 8, pairs" against "TPC pairs, cluster order" (same gA ~7.9, 698 against 813 kB): bytes or panels;
#  - pairs against singles at equal kB (move 2, pairs ~ move 1 at 680 kB; move 8, pairs ~ move 2 near 700): TPC
#    pairing (expected irrelevant, as --wide-k-tpc found);
#  - move 7 (948 kB, 15.1 A panels) against as cluster (1023, 14.5): past the cluster map, a further rise or a level.
#
# Second call, written after the first (4 rounds; its files kept as wide_k_knee_4rounds.jsonl, _4rounds_repeat.jsonl,
# card 1752524018039) and before this one: the kernel clock (kernel_mhz) fell along each configuration's sequence of
# launches (128x256x128: ~1716 MHz at the first two places, ~1510-1570 from the fifth on; 128x128x64 the converse), so
# with 4 rotations a variant's cycles carried its places' clock: the moved maps, late in the order, ran at ~1505-1550
# MHz, dealt and "move 2 / 4, pairs" at ~1700. mb_tma now runs one round per variant (13: every variant at every place
# once) and records "place". The 4-round run, biased so: cycles a stage (median CTA) of the moved maps +3..+6% at
# 128x256x128 at 684-962 kB (dealt +17% at 800, cluster +16% at 1018): no knee in kB; ns a stage (kernel time) of the
# same launches rising with kB: -1..+1% at <= 709 kB, +3 / +5% at 737 / 773, +6..+9% at 835-962, dealt +9%, cluster
# +13%; 128x128x128 ns flat to 414 kB, +3..+5% at 445-521, +7..+11% at 587-737, dealt +10% (530), cluster +20%
# (745); kb = 1 within -7..+5% either way.
# Expectation for the balanced run: cycles and ns a stage agree within ~3% of each other (the clock no longer tied to
# the variant); the moved maps rise with kB at kb = 2 for both tiles, leaving plain near ~700-750 kB at 128x256x128 and
# ~420-450 kB at 128x128x128: ~60% the two knees stay ~250-300 kB apart (no common knee in kB a round), ~40% they meet
# once the clock is balanced; the cluster map slower than a moved map at its kB (128x256x128: +13% at 1018 kB against
# ~+9% at 962; 128x128x128: +20% against +11% at ~740 kB), and dealt above the moved curve at its kB (~70%): kB a
# round does not carry all of the placement's cost; kb = 1 flat to +4% as before.
# Usage: wide_k_knee.sh H100|H200.
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
cp "$T.ptxas.txt" $OUT/ptxas.txt 2>/dev/null
date -u
timeout 100 $T --wide-k-knee > $OUT/wide_k_knee.jsonl 2>> $OUT/run.log; echo "knee rc=$?"
date -u
timeout 100 $T --wide-k-knee > $OUT/wide_k_knee_repeat.jsonl 2>> $OUT/run.log; echo "knee repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
