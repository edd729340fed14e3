#!/bin/bash
# 2026-11-28 session 32: mb_tma --wide-k-gap (new): what makes our GEMM's 2-stage mainloop of 256-byte k-block rows
# 12-17% slower than --wide-k-mma's walk of the same loads, wgmma batches and release protocol? At 8192^3 bf16 on an
# H100 the GEMM (tile probe, data/ncu/wide_k_tile_h100) runs 3911-3976 cycles a stage at 128x256x128 and 2610-2637 at
# 128x128x128, the walk (data/microbench/wide_k_mma_h100) 3340-3481 and 2355-2402; with 128-byte rows they agree
# (128x256x64 1677-1708 against 1679-1687; 128x128x64 1388-1390 against 1442-1459); the tile boundary costs 1-2%.
# The walk (2 stages, loads on; 4 rounds of every configuration and variant, each 1 untimed + 5 timed launches) with:
#   base        as --wide-k-mma;
#   out         (a) each tile written to D (8192 x 8192 bf16) as gemm_sm90.cu's epilogue_tma: per warpgroup and
#               64-column subtile, wait_group.read, swizzled st.shared of bf16 pairs, fence.proxy.async, TMA store;
#   ab          (b) A and B in two allocations and two tensor maps (M x K, N x K), not one (M+N) x K tensor;
#   layout      (c) the GEMM's shared-memory layout (every stage's A, then every stage's B);
#   out+ab, out+layout, ab+layout, all (= out+ab+layout): the interactions;
#   regs        (d) the GEMM's setmaxnreg split (producer warpgroup 40, consumers 232 registers; kernel 168);
#   cluster     (e) the GEMM's launch (cudaLaunchKernelEx with a cluster dimension of 1);
#   gemm        all + regs + cluster + the accumulators zeroed each tile: the closest to the GEMM.
# 128x256 and 128x128 tiles, kb = 2 (256-byte rows) and kb = 1 (128-byte rows: the controls). Records per variant the
# median CTA's cycles a stage, land (issue-to-landing), wait_group 1 cycles, and the kernel clock (cycles / ms), since
# cycles of a stage that waits on the L2 grow with the SM clock (the earlier walk ran 128x256x128 at ~1620 MHz, the
# GEMM at ~1750). Then the four 2-stage sw128 GEMMs (timing builds) on the same card, between the run and its repeat;
# their cycles a stage = median ms x kernel clock / (16 tiles a CTA x k-blocks).
#
# Expectation, written before the run. The check first: base reproduces --wide-k-mma (kb = 2: 3340-3481 / 2355-2402,
# kb = 1: 1679-1687 / 1442-1459, within ~5%) and the same-card GEMM sits 12-17% above base at kb = 2 and within ~4% at
# kb = 1. nvdisasm of the two kernels finds their mainloops alike (the same 8 HGMMA a stage with descriptors computed
# between them, WARPGROUP.DEPBAR.LE gsb0 1, one arrive), so the gap should come from the memory side or shared memory,
# not the instruction stream. Prior: (a) out ~40%, (c) layout ~25%, (b) ab ~10%, (d) regs / cluster ~5%, none ~20%.
# (a) is the one large thing the walk lacks (64 KB of dirty lines a tile in L2, 8.4 MB a wave, evicting operand lines
# the next CTAs re-read; a 4-box stage lands when its slowest box does, so kb = 2 may feel misses more than kb = 1).
# Reading (a variant "explains" the gap if at kb = 2 it moves cycles a stage above base by at least half of the
# same-card GEMM - base difference at both tiles, while at kb = 1 it moves them by less than ~3%):
#  - out alone does it, with land up by about the same cycles: (a), the output's L2 traffic slows the landing;
#    out with land unchanged and wait_group cycles up: the epilogue's smem staging or store, not the L2;
#  - layout alone does it: (c), the split layout puts a stage's TMA writes and the other stage's wgmma reads in shared
#    memory so that they contend (land up, or the batch's issue slower);
#  - ab alone does it: (b), two tensors map onto the L2 / HBM differently from one;
#  - only a combination (out+layout, all, ...) does it: an interaction, named by the smallest combination that does;
#  - only regs, cluster or gemm (not all) does it: (d) / (e) the register split or the launch;
#  - nothing, gemm included, moves kb = 2 by more than the rounds' spread (~2-4%): none of (a)-(d); the rest lies in
#    the GEMM itself beyond these (its data, its tile order's partial last wave, the probe's accounting) or in the
#    clock: then compare ns a stage (kernel_mhz) before reading cycles.
# Binary built on the GPU machine (the GEMMs' build in parallel with it). Usage: wide_k_gap.sh H100|H200.
set -u
sed -n 3,6p data/ncu/scripts/wide_k.txt > /tmp/wide_k_gap_gemms.txt   # the four 2-stage sw128 GEMMs
( timeout 240 python3 data/ncu/scripts/build_probe.py /tmp/wide_k_gap_gemms.txt /tmp/wkg_manifest.json .cache/pmk32g \
  --normal > /tmp/wkg_gemm_build.log 2>&1; echo "gemm build rc=$?" >> /tmp/wkg_gemm_build.log ) &
GB=$!
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
wait $GB; cat /tmp/wkg_gemm_build.log >> $OUT/build.log; tail -1 /tmp/wkg_gemm_build.log
cp "$T.ptxas.txt" $OUT/ptxas.txt 2>/dev/null
date -u
timeout 150 $T --wide-k-gap > $OUT/wide_k_gap.jsonl 2>> $OUT/run.log; echo "gap rc=$?"
date -u
python3 data/ncu/scripts/time_gemms.py /tmp/wkg_manifest.json $OUT/gemm.jsonl >> $OUT/run.log 2>&1
echo "gemm rc=$?"; date -u
timeout 150 $T --wide-k-gap > $OUT/wide_k_gap_repeat.jsonl 2>> $OUT/run.log; echo "gap repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
