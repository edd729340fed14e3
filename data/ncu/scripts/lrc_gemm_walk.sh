#!/bin/bash
# 2026-11-26 session 18: mb_tma --lrc-only (tma_lrc and tma_lrc_gemm: the GEMM walk of 8192^3 bf16 tiles at ring depths
# 2-6, with a consumer holding each stage 0 / 0.5 / 1 x the tile's tensor-core time), timed, on the named card: does
# the H200's L2 walk lose more with ring depth than the H100's (its L2-bound GEMMs run 10-28% slower than predicted at
# 5-9 stages)? Binary built on the GPU machine. Usage: lrc_gemm_walk.sh H100|H200 (exits 3 on another card).
set -u
source data/ncu/scripts/mb_on_card.sh mb_tma "${1:-H}"
timeout 400 $T --lrc-only > $OUT/lrc.jsonl 2> $OUT/lrc.err; echo "lrc rc=$?"
wc -l $OUT/*.jsonl; date -u
