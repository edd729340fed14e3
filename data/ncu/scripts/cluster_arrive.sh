#!/bin/bash
# 2026-11-26 session 17: mb_sync three times (the third and later runs' records are the repeats): the one-way mbarrier
# signal between the two CTAs of a cluster with mbarrier.arrive.release.cluster (the figure sync.cluster_arrive_cycles
# came from) and with the arrive our GEMM releases a multicast stage with (mbarrier.arrive.shared::cluster, default
# .release.cta), and the SASS of both ping-pong kernels. Binary built on the GPU machine.
set -u
source data/ncu/scripts/mb_on_card.sh mb_sync
for i in 1 2 3; do timeout 120 $T > $OUT/mb_sync_$i.jsonl 2> $OUT/mb_sync_$i.err; echo "run $i rc=$?"; done
(cuobjdump -sass $T 2>/dev/null || /usr/local/cuda/bin/cuobjdump -sass $T) | awk '/Function : .*cluster_pingpong/{p=1} /Function : / && !/cluster_pingpong/{p=0} p' > $OUT/cluster_pingpong.sass
wc -l $OUT/*; grep -h pingpong $OUT/mb_sync_*.jsonl; date -u
