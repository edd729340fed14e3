"""Caveats: where a prediction lies in a region the model is known to miss, said next to the number.

A caveat changes no prediction. Each one names physics the model does not count yet, the measurement that
shows it, and how far off our committed data found such predictions (the calibration half of
configs/splits/sm90.toml: `python3 benchmarks/bench_residuals.py`; the held-out half is for reporting only).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..config import KernelConfig, Swizzle
from ..hardware import Arch, HardwareSpec
from ..problem import GemmProblem

SKINNY_M = 64          # at most this many rows: a 128-row tile computes at least half zeros


@dataclass(frozen=True)
class Caveat:
    key: str
    text: str


def caveats(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, bottleneck: str) -> tuple[Caveat, ...]:
    """The caveats of one sm_90a prediction of our kernel's family (none elsewhere: the data behind them are
    our kernel's on the H100 and H200)."""
    if hw.arch is not Arch.SM90A:
        return ()
    out = []
    wide_rows = cfg.swizzle_a is Swizzle.B128 and cfg.swizzle_b is Swizzle.B128
    if bottleneck == "l2" and wide_rows and not (cfg.multicast and cfg.cluster_size > 1):
        out.append(Caveat(
            "l2-request-coalescing",
            "L2-bound with 128-byte box rows and no multicast: the L2 request coalescer serves CTAs that load the "
            "same panel in step from one L2 read; the model counts its mean merge (l2.lrc_merge_128b), but the merge "
            "moves with ring depth and tile order (ncu: the SMs received 1.07-1.53x the sectors the L2 served, "
            "data/ncu/lrc), so such points scatter: on our H100 and H200 calibration data 5-6% off on average "
            "(bias within 1%), 1 in 9 (H100) and 1 in 5 (H200) more than 10% off either way, rings of 7+ stages "
            "slower than predicted"))
    narrow64 = Swizzle.B64 in (cfg.swizzle_a, cfg.swizzle_b)
    if bottleneck in ("l2", "tensor_core") and narrow64:
        out.append(Caveat(
            "narrow-64-byte-rows",
            "64-byte box rows (64B swizzle), L2- or tensor-core-bound: such points measured 6% (H100) and 10% (H200) "
            "slower than predicted on the calibration half, up to 20%, and at 8192^3 and 4096x14336x4096 they ran "
            "1-5% below the same tiles with 128-byte rows that the model ranks within 0.5% (tune --validate-top, "
            "2026-11-25): prefer the 128B twin on a near tie (the L2 tag pipeline of 64-byte rows, docs/model.md)"))
    if problem.m <= SKINNY_M and cfg.tile_m >= 2 * SKINNY_M:
        out.append(Caveat(
            "skinny-128-row-tiles",
            f"M = {problem.m} fills {problem.m} of each {cfg.tile_m}-row tile: such tiles measured 11% slower than "
            f"predicted at M <= {SKINNY_M} on average and up to 40% (H100 and H200, calibration half; the model "
            f"weighs the ring depth too much where the MMAs on zero rows and the HBM stream balance, docs/model.md)"))
    return tuple(out)


__all__ = ["Caveat", "caveats"]
