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
            "L2-bound with 128-byte box rows: the L2 request coalescer serves CTAs that load the same panel in step "
            "from one L2 read, which the model does not count (ncu: the SMs received 1.07-1.52x the sectors the L2 "
            "served, data/ncu/lrc); such points of our H100 and H200 calibration data measured 5% faster than "
            "predicted on average, 1 in 5 more than 10% faster"))
    if problem.m <= SKINNY_M and cfg.tile_m >= 2 * SKINNY_M:
        out.append(Caveat(
            "skinny-128-row-tiles",
            f"M = {problem.m} fills {problem.m} of each {cfg.tile_m}-row tile: such tiles measured 11% slower than "
            f"predicted at M <= {SKINNY_M} on average and up to 40% (H100 and H200, calibration half; the model "
            f"weighs the ring depth too much where the MMAs on zero rows and the HBM stream balance, docs/model.md)"))
    return tuple(out)


__all__ = ["Caveat", "caveats"]
