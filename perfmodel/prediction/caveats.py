"""Caveats: where a prediction lies in a region the model is known to miss, said next to the number.

A caveat changes no prediction. Each one names physics the model does not count yet, the measurement that
shows it, and how far off our committed data found such predictions (the calibration half of
configs/splits/sm90.toml: `python3 benchmarks/bench_residuals.py`; the held-out half is for reporting only).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import KernelConfig, Swizzle
from ..hardware import Arch, HardwareSpec
from ..problem import GemmProblem
from ..sim.memory import dead_multicast_slice
from ..sim.scheduler import make_schedule

SKINNY_M = 64          # at most this many rows: a 128-row tile computes at least half zeros
# Up to this share of the SMs streaming at once (24 of the H100's 132) skinny 128-row tiles run faster than the model
# holds them at the tensor cores' clock ceiling; above it the GPC pool's miss begins (the skinny caveat's two texts).
SKINNY_QUIET_SM_FRACTION = 24 / 132
# Kernels predicted to take less than this (a launch's 4.13 us included) run slower than predicted more often than not
# (the short-kernel caveat)
SHORT_KERNEL_S = 20e-6
# An L2-bound CTA whose run spans at least this many L2 windows of the wave's in-step reuse (sim/memory.progress_windows)
# re-reads K-slabs its sharers read long before (the long-k-drift caveat)
LONG_K_WINDOWS = 10
# A power-limited prediction whose HBM activity (bytes/s over the achievable rate) is at least this: the predicted clock
# runs below the in-kernel clock more the more HBM traffic there is (the hbm-heavy-clock caveat)
HBM_HEAVY_ACTIVITY = 0.6
# One-consumer tiles of FEW_SHARER_TILE_M rows with this many tile rows (M = 65..256), so that 2-4 CTAs read each B
# panel: the busiest GPC's loads hold them where the model sees the tensor core (the few-sharer caveat)
FEW_SHARER_TILE_M = 64
FEW_SHARER_ROWS = (2, 4)
# A k-block whose operand rows span at least this many bytes (two or more 128-byte swizzle boxes a row) in a ring of
# at most WIDE_K_MAX_STAGES stages fills slower than the model lands it (the wide-k-block-shallow-ring caveat)
WIDE_K_ROW_BYTES = 256
WIDE_K_MAX_STAGES = 3


@dataclass(frozen=True)
class Caveat:
    key: str
    text: str


def skinny_ctas(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> int:
    """CTAs resident at once (each streams its own B panel at M <= SKINNY_M): the schedule's active SMs."""
    return make_schedule(problem, cfg, hw).active_sms


def caveats(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, bottleneck: str,
            time_s: float | None = None, drift_reads: float = 1.0, run_windows: float = 0.0,
            power_limited_hbm: float = 0.0) -> tuple[Caveat, ...]:
    """The caveats of one sm_90a prediction of our kernel's family (none elsewhere: the data behind them are
    our kernel's on the H100 and H200); ``time_s``: the predicted time, launch included; ``drift_reads``: the times
    the prediction's traffic reads each shared K-slab (Traffic.drift_reads; > 1 where it counted the CTAs' drift);
    ``run_windows``: the L2 windows a CTA's run spans under the in-step k-window reuse (sim/memory.progress_windows);
    ``power_limited_hbm``: the HBM activity of a prediction whose clock the power cap set (0 otherwise)."""
    if hw.arch is not Arch.SM90A:
        return ()
    out = []
    if power_limited_hbm >= HBM_HEAVY_ACTIVITY:
        out.append(Caveat(
            "hbm-heavy-clock",
            f"power-limited with the HBM {power_limited_hbm * 100:.0f}% busy: such kernels ran a clock 3% (H100) / 4% "
            "(H200) above the predicted one on average where the in-kernel probe read it (the other power-limited "
            "and uncapped kernels within 2%), and measured 2% (H100) / 4% (H200) slower than predicted on average, "
            "27 in 242 (H100) / 18 in 76 (H200) more than 10% off, from 19% faster to 47% slower (calibration half). "
            "The power law (sim/power.py) lets the core-rail share of the HBM path's power fall with the core voltage "
            "(clock.hbm_core_share, since 2026-11-27: the miss was 4% / 7% before); what is left is the mix of L2, HBM "
            "and tensor power at low clocks (benchmarks/clock_by_hbm.py --power) and, on the H200, cycles predicted "
            "too short"))
    if time_s is not None and 0 < time_s < SHORT_KERNEL_S:
        out.append(Caveat(
            "short-kernel",
            f"predicted under {SHORT_KERNEL_S * 1e6:.0f} us: such kernels measured 2% (H100) and 1% (H200) slower than "
            "predicted on average, 7% (H100) / 4% (H200) of them more than 10% off (calibration half; mostly one-wave "
            "kernels of the smoke sets, 1000x1992x1016 and the like). The model counts a launch (gpu.launch_overhead_s), "
            "the clusters' barrier before exit (gpu.cluster_exit_s), "
            "each CTA's set-up (gpu.cta_setup_s) and the first loads' latency; on some cards one crowded GPC runs "
            "rows whose pitch is not 128-byte aligned 16-19% slower a k-block (our tile probes), which it does not count"))
    drift = drift_reads > 1.0 and run_windows >= LONG_K_WINDOWS
    if drift:
        out.append(Caveat(
            "long-k-drift",
            f"L2-bound over a long run ({run_windows:.0f} L2 windows of the wave's in-step reuse, "
            "sim/memory.progress_windows): the CTAs sharing a panel drift apart as they run (per-CTA probe: by 0.1-0.2 "
            f"x their progress), so the model reads each shared K-slab {drift_reads:.1f}x from HBM (l2.sm_rate_spread, "
            "fitted on ncu's HBM bytes within 12% on average; the spread counted up to one tile's K loop). What decides "
            "how far a configuration's CTAs spread is not modelled (128x128 at 4 stages stays in step; rings of 3 stages "
            "count a seventh of the spread, l2.sm_rate_spread_shallow; whether a ring falls out of step is bistable: "
            "mb_tma --walk-drift). Our probes: rings of 5 or more stages run 24 SMs (two TPCs in six GPCs) 15-26% "
            "faster than the rest; an LRU L2 of 31 MB replaying the CTAs' own progress gives ncu's bytes within 2%, "
            "and one binary's launches read up to 1.5x apart (data/ncu/drift_lru). The rows' pitch matters too: a "
            "whole-grid walk the L2 paces re-reads twice the HBM bytes at 6 stages with rows of 10240-11264 bf16 that "
            "it reads at 8192, 16384 or 24576 on the H100, though the L2 keeps as much at each (mb_tma --walk-pitch "
            "--paced, --l2-residency-pitch); our GEMM with 128x128 at 6 stages runs 303-373 TFLOP/s on the H100 at "
            "K = 11008 / 15872 / 16896 (9216x4096) and 31744 / 33792 (4096x4096), 507-526 at 8192 / 9216 / 16384 / "
            "32768, and on the H200 loses at 16384 and 32768 instead (data/ncu/pitch_k2_*, pitch_k3_*, pitch_k4_*); "
            "the model's spread is one figure for every pitch, fitted mostly at power-of-two K. "
            "Such points measured 2% slower "
            "(H100) / 4% slower (H200) than predicted on average, 10% / 24% of them more than 10% off, from 18% "
            "faster to 47% slower (calibration "
            f"half, >= {LONG_K_WINDOWS} windows); the H200 (its HBM 1.4x the H100's) slows more than its traffic says"))
    wide_rows = cfg.swizzle_a is Swizzle.B128 and cfg.swizzle_b is Swizzle.B128
    if bottleneck == "l2" and wide_rows and not (cfg.multicast and cfg.cluster_size > 1) and not drift:
        out.append(Caveat(
            "l2-request-coalescing",
            "L2-bound with 128-byte box rows and no multicast: the L2 request coalescer serves CTAs that load the "
            "same panel in step from one L2 read; the model counts a merge that falls with ring depth and is larger in "
            "a CTA's first tile, which the grid starts in step, and in the panel a cluster's CTAs share without "
            "multicast (l2.lrc_merge_128b, lrc_merge_per_stage, lrc_merge_first_per_stage), but the merge also moves "
            "with tile order and sharing (ncu: the SMs received "
            "1.01-2.18x the sectors the L2 served, data/ncu), so such points scatter: on our calibration data (long-K "
            "points aside: long-k-drift) 3% (H100) / 5% (H200) off on average, predicted 1% (H100) / 3% (H200) "
            "slower than measured on average and 4% (H100) slower at rings of 7 or more stages, 1 in 22 (H100) / 1 in "
            "12 (H200) more than 10% off either way"))
    if cfg.multicast and cfg.cluster_size > 1 and dead_multicast_slice(problem, cfg):
        out.append(Caveat(
            "multicast-dead-slice",
            "a slice of the multicast box lies wholly beyond the matrix edge (one CTA of the cluster loads zero fill "
            "only): such a pair ran as slow as the same tile without multicast, or slower (the low-fill probe), and "
            "the model loads it as plain loads, not knowing what the dead slice costs; such points measured 7% faster "
            "(H100) / 5% faster (H200) than predicted on average, 14 in 22 (H100) / 3 in 9 (H200) more than 10% off, "
            "from 34% faster to 11% slower (calibration half): a tile with fewer rows, or no multicast, avoids it"))
    narrow64 = Swizzle.B64 in (cfg.swizzle_a, cfg.swizzle_b)
    if bottleneck in ("l2", "tensor_core") and narrow64:
        out.append(Caveat(
            "narrow-64-byte-rows",
            "64-byte box rows (64B swizzle), L2- or tensor-core-bound: such points measured 2% (H100) and 5% (H200) "
            "slower than predicted on the calibration half, up to 14%, and at 8192^3 and 4096x14336x4096 they ran "
            "1-5% below the same tiles with 128-byte rows that the model ranks within 0.5% (tune --validate-top, "
            "2026-11-25): prefer the 128B twin on a near tie (the L2 tag pipeline of 64-byte rows, docs/model.md)"))
    k_row_bytes = cfg.tile_k * min(problem.a_elem_bytes, problem.b_elem_bytes)
    if (cfg.stages <= WIDE_K_MAX_STAGES and k_row_bytes >= WIDE_K_ROW_BYTES
            and cfg.swizzle_a is Swizzle.B128 and cfg.swizzle_b is Swizzle.B128):
        out.append(Caveat(
            "wide-k-block-shallow-ring",
            f"{k_row_bytes:.0f}-byte k-block rows (two or more 128-byte swizzle boxes an operand row) in a "
            f"{cfg.stages}-stage ring: such rings measured 10% (H100) / 7% (H200) slower than predicted at 2 stages, "
            "up to 22%, and 7% / 6% slower at 3 (calibration half: configs/sweeps/sm90_calib47.toml, sm90_calib48.toml "
            "and tune's validated top-8; 17 in 36 (H100) / 9 in 34 (H200) more than 10% off), where their twins with "
            "128-byte k-block rows at 2-3 stages are within 0.3% (H100) / 2% (H200) on average. The model counts what "
            "a ring with one stage in flight pays for the batch's issue (it blocks while the SM's tensor core queue "
            "holds more than 7 wgmma, mb_wgmma --wgmma-issue, and the previous stage is freed only then; before that "
            "these rings ran 29% / 26% slower than predicted); the rest is the stages' landing under our harness's "
            "launch: its mainloop runs 11-17% slower with 256-byte rows than a walk with the same loads, batches and "
            "release (data/ncu/wide_k_tile_h100), and the same walk launched as the harness launches the GEMM (a "
            "cluster of one CTA) lands each stage 330-500 cycles later and matches it (mb_tma --wide-k-gap; 2-3% with "
            "128-byte rows), for where that launch puts each tile's CTA: a plain launch given its SM-to-tile map is as "
            "slow (mb_tma --wide-k-place). What counts is how many distinct A panels the CTAs of one GPC walk at once "
            "(about 14 under that launch, 2.6 under a plain one), not which tiles the two SMs of a TPC share (mb_tma "
            "--wide-k-tpc). Not modelled: prefer the narrower k-block (64 bf16 / 128 fp8 elements), or 3-4 stages"))
    tile_rows = math.ceil(problem.m / cfg.tile_m)
    if (cfg.tile_m == FEW_SHARER_TILE_M and cfg.consumers == 1 and cfg.cluster_size == 1
            and FEW_SHARER_ROWS[0] <= tile_rows <= FEW_SHARER_ROWS[1]):
        out.append(Caveat(
            "few-sharer-64-row-tiles",
            f"a one-consumer {cfg.tile_m}-row tile at M = {problem.m}: {tile_rows} tile rows, so {tile_rows} CTAs read "
            "each B panel. Such points measured 6% (H100) / 9% (H200) slower than predicted on average, 10 in 42 "
            "(H100) / 9 in 22 (H200) more than 10% off, up to 31% slower, where the other tiles of the same shapes are "
            "within 2% on average (calibration half). The memory system holds them where the model sees the tensor "
            "core (256x4096x14336, 64x256 at 3 / 4 / 5 stages: 250 / 313 / 336 TFLOP/s measured, 342 / 433 / 432 "
            "predicted at the loops' clocks): in the same walk without MMAs, launched as our kernel is, the CTAs of "
            "the busiest GPC (15 of 64) take ~30% (H100) / ~12% (H200) longer a k-block than the others, with B's "
            "slabs kept in L2 too (mb_tma --walk-place): not HBM. The model counts that GPC (gpu.gpc_inflight_bytes) "
            "but its pool does not bind there; prefer a 128-row tile on a near tie"))
    if problem.m <= SKINNY_M and cfg.tile_m >= 2 * SKINNY_M:
        streaming = skinny_ctas(problem, cfg, hw)
        head = (f"M = {problem.m} fills {problem.m} of each {cfg.tile_m}-row tile, and {streaming} CTAs stream B at "
                f"once: ")
        if streaming > hw.sm_count * SKINNY_QUIET_SM_FRACTION:
            out.append(Caveat(
                "skinny-128-row-tiles",
                head + "such tiles measured 2% faster (H100) and 5% slower (H200) than predicted on average at 40-100 "
                "CTAs, up to 11% (H100) / 17% (H200), and -2% (H100) / -2% (H200) at 25-40 and above 100 (calibration "
                "half). The model counts the crowded GPC's in-flight loads (gpu.gpc_inflight_bytes, their zero fill "
                "held longer under HBM load: tma.pool_queue_share) but not how its CTAs spread among themselves: the "
                "slowest sets the time (harness --cta-probe, mb_tma --gpc-probe, docs/model.md)"))
        else:
            out.append(Caveat(
                "skinny-128-row-tiles",
                head + "such small grids measured 3% (H100) and 3% (H200) faster than predicted on average, up to 9% "
                "(calibration half, at the in-kernel clock the model takes for tensor kernels, clock.tensor_max_hz): "
                "the model holds their rings of half-empty tiles slower than they run (docs/model.md)"))
    return tuple(out)


__all__ = ["Caveat", "FEW_SHARER_ROWS", "FEW_SHARER_TILE_M", "HBM_HEAVY_ACTIVITY", "WIDE_K_MAX_STAGES",
           "WIDE_K_ROW_BYTES", "caveats", "skinny_ctas"]
