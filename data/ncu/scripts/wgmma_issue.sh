#!/bin/bash
# 2026-11-28: mb_wgmma --wgmma-issue (new): how long a warpgroup's wgmma ISSUE takes to return, against the batch's
# completion. mb_tma --wide-k-mma (data/microbench/wide_k_mma_h100) inferred that the issue blocks while the tensor
# pipe is full and returns with about the last 3 instructions of each warpgroup still queued (2 warpgroups, one
# m64n128k16 / m64n256k16 bf16 a k-step); the model's tensor_core.wgmma_queue_instructions = 3 made other instruction
# mixes (256x128 tiles: 2 m-subtiles a k-step, 4-stage rings) worse. This run measures the law directly, on one CTA
# per SM (all SMs): W = 1, 2, 3 warpgroups, each round wgmma.fence; t0; B wgmma; commit; t1 (issue returned);
# wait_group 0 (pipe "idle": next round on an empty pipe, the W warpgroups released together by a CTA barrier, as
# consumers are when a stage lands) or wait_group 1 (pipe "busy", a GEMM mainloop's); t2. Shapes: bf16 m64n64k16,
# m64n128k16, m64n256k16 with one m-subtile; m64n64k16 and m64n128k16 with two (two A row-blocks, two accumulators,
# the same B, B counting instructions, as a 256x128 tile's warpgroup issues); e4m3 m64n256k32. B = 1, 2, 3, 4, 6, 8,
# 12, 16 (two subtiles: even B only). 64 rounds after 4 warm-up; medians over CTAs, warpgroups and rounds.
# tau = an instruction's tensor cycles at 4096 bf16 / 8192 e4m3 FLOP/clk/SM: n64 32, n128 64, n256 128 (e4m3 n256 128).
# queued_at_return = (t2 - t1) / (W tau): instructions of a warpgroup still queued (not complete) when its issue
# returned, if the W warpgroups share the tensor core evenly.
#
# Expectation written before the run. If the law is "3 instructions per warpgroup queued":
#  - idle pipe: completion (t2 - t0) ~ latency + W B tau; queued_at_return ~ min(B, 3) for EVERY N, subtiles, W and
#    dtype (t2 - t1 ~ 3 W tau for B >= 3: 96 / 192 / 384 cycles at W = 1, n64 / n128 / n256); for B <= 3 the issue
#    returns at once (issue_cycles a few tens of cycles, not growing with tau), for B > 3 issue_cycles ~ latency +
#    (B - 3) W tau.
#  - busy pipe (the previous batch's last 3 still queued when the next issue starts): issue_cycles / (W tau) ~
#    clamp(2B - 3, 0, B): B = 1 returns at once (wait_group 1 takes the period), B = 2 blocks ~1 instruction, B >= 3
#    blocks for about the whole period W B tau (period_cycles ~ W B tau, wait_group 1 ~ 0). A queue of Q shows as
#    clamp(2B - Q, 0, B) instead.
# The alternatives would look like this:
#  (a) a queue counted in tensor cycles rather than instructions: t2 - t1 at return about the same number of cycles
#      for every N (and dtype), so queued_at_return ~ 1/tau: e.g. ~6 at n128 and ~12 at n64 where n256 gives 3;
#  (b) a queue shared by the SM rather than per warpgroup (Q_sm instructions in all): t2 - t1 ~ Q_sm tau whatever W,
#      so queued_at_return ~ Q_sm / W: with Q_sm = 6 (the 2-warpgroup finding) 6 at W = 1, 3 at W = 2, 2 at W = 3;
#  (c) 2-m-subtile issues counted differently (an entry a k-step, the pair sharing B's descriptor, or a queue per
#      accumulator): two subtiles return with ~6 instructions queued (3 k-steps) where one subtile gives 3 (an entry
#      per instruction: 3 either way);
#  (d) warpgroups served in order rather than interleaved: issue_cycles_wg<i> / complete_cycles_wg<i> differ by
#      warpgroup (the first finishes its batch before the next starts) and queued_at_return is not ~min(B, 3).
# What it means for the model: a 256x128 tile (2 warpgroups, 2 m-subtiles of n128, 8 instructions a 64-wide k-block)
# exposes 16 tau - 2 q tau of each batch: 640 cycles with q = 3, 256 with q = 6 (c).
# Built on the GPU machine. Usage: wgmma_issue.sh H100|H200.
# H200 run (thirty-second session, after the H100's): expected the H100's law, 7 instructions of the SM queued when a
# blocked issue returns (the same GH100 SM), within the H100 runs' spread (7.1-7.5).
set -u
source data/ncu/scripts/mb_on_card.sh mb_wgmma "${1:-H}"
cp /tmp/mbb/mb_wgmma-*.ptxas.txt $OUT/ptxas.txt
grep -c "issue_kernel" $OUT/ptxas.txt; grep -i "spill stores" $OUT/ptxas.txt | grep -vc " 0 bytes spill stores"
timeout 100 $T --wgmma-issue > $OUT/wgmma_issue.jsonl 2>> $OUT/run.log; echo "issue rc=$?"
timeout 100 $T --wgmma-issue > $OUT/wgmma_issue_repeat.jsonl 2>> $OUT/run.log; echo "issue repeat rc=$?"
wc -l $OUT/*.jsonl; date -u
