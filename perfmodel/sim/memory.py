"""Memory system: L2 reads per stage (multicast), HBM traffic from the L2 working set, per-SM shares.

HBM traffic depends on tile order and L2 capacity. The tiles of one wave run concurrently and walk K
in step, so a K-slab of a panel that one SM loads is still in L2 when the other SMs of the wave that
share the panel ask for it: within a wave each distinct A row-panel and B column-panel is read from HBM
once, as long as the wave's in-flight K-window (``stages`` k-blocks of every distinct panel) fits in
L2; otherwise every tile reads its own panels. Between waves, a panel the previous wave touched is
still in L2 only if the two waves' full-K panels fit in L2 together; if the whole problem's operands
fit, each byte crosses HBM once. Evaluating every wave would grow with M and N, so at most
``_SAMPLED_WAVES`` evenly spaced waves are evaluated and the rest interpolated (cost independent of
the shape). TMA multicast divides the L2 reads of the multicast operand by the CTAs sharing it
(SemiAnalysis: multicast cuts L2 traffic through the L2 request coalescer); SMEM writes are unchanged.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import KernelConfig, Swizzle, a_stage_bytes, b_stage_bytes, scale_stage_bytes
from ..hardware import HardwareSpec
from ..problem import GemmProblem, Major
from .scheduler import Schedule, wave_panels

_SAMPLED_WAVES = 6


@dataclass(frozen=True)
class Traffic:
    hbm_read_bytes: float            # whole kernel
    hbm_write_bytes: float
    l2_read_bytes_per_stage: float   # one CTA, one k-block (after multicast)
    hbm_read_bytes_per_stage: float  # one CTA, one k-block (average over the kernel)
    wave_working_set_bytes: float    # full-K panels of one full wave
    reuse: str                       # "all-fit", "wave-fit", "k-window" or "none"


def multicast_factors(cfg: KernelConfig) -> tuple[int, int]:
    """CTAs sharing one L2 read of A (the cluster row) and of B (the cluster column, in CTA pairs)."""
    if not cfg.multicast:
        return 1, 1
    return cfg.cluster_n, max(cfg.cluster_m // cfg.cta_group, 1)


def row_bytes(extent_elems: int, elem_bytes: float, sw: Swizzle, hw: HardwareSpec) -> float:
    """Bytes of one TMA box row: the contiguous extent, cut at the swizzle span (or at max_box_dim
    elements without swizzle)."""
    limit = hw.tma.max_box_dim * elem_bytes if sw is Swizzle.NONE else sw.span_bytes
    return min(extent_elems * elem_bytes, limit)


def l2_row_efficiency(row: float, hw: HardwareSpec) -> float:
    """Chip-wide TMA L2->SMEM throughput for boxes of this row width, relative to l2.bandwidth: narrow
    rows fetch 32/64-byte pieces of 128-byte lines (our microbench: 128B rows 8.3 TB/s, 64B 6.8, 32B 3.8 on
    the H100)."""
    t = hw.tma
    return t.l2_efficiency_128b if row >= 128 else t.l2_efficiency_64b if row >= 64 else t.l2_efficiency_32b


def operand_rows(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> tuple[float, float]:
    """Box row bytes of A and B (K-major: the K extent; MN-major: the M/N extent)."""
    ka = cfg.tile_k // (2 if problem.sparse_a else 1)
    a_ext = ka if problem.a_major is Major.K else cfg.tile_m
    b_ext = cfg.tile_k if problem.b_major is Major.K else cfg.tile_n // cfg.cta_group
    return (row_bytes(a_ext, problem.a_elem_bytes, cfg.swizzle_a, hw),
            row_bytes(b_ext, problem.b_elem_bytes, cfg.swizzle_b, hw))


def l2_occupancy_bytes_per_stage(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> float:
    """L2 bandwidth one CTA's stage occupies, in bytes at the full l2.bandwidth rate: each operand's L2
    reads (after multicast) divided by the row-width efficiency of its boxes."""
    mc_a, mc_b = multicast_factors(cfg)
    ra, rb = operand_rows(problem, cfg, hw)
    eff128 = hw.tma.l2_efficiency_128b
    return (a_stage_bytes(problem, cfg) / mc_a / l2_row_efficiency(ra, hw)
            + b_stage_bytes(problem, cfg) / mc_b / l2_row_efficiency(rb, hw)
            + scale_stage_bytes(problem, cfg) / eff128)


def _panel_bytes(problem: GemmProblem, cfg: KernelConfig) -> tuple[float, float]:
    """Full-K bytes of one cluster-row panel of A and one cluster-column panel of B (+ scale factors)."""
    rows, cols = cfg.cluster_m * cfg.tile_m, cfg.cluster_n * cfg.tile_n
    a = problem.operand_bytes(problem.a_dtype, rows * problem.k) / (2 if problem.sparse_a else 1)
    b = problem.operand_bytes(problem.b_dtype, cols * problem.k)
    if problem.scale_vec_size:
        a += rows * problem.k / problem.scale_vec_size
        b += cols * problem.k / problem.scale_vec_size
    return a, b


def _wave_new_bytes(sched, cfg, wave, pa, pb, l2, prev) -> tuple[float, tuple]:
    a, b = wave_panels(sched, cfg.raster, cfg.group_size, wave)
    ws = len(a) * pa + len(b) * pb
    if prev is not None:
        pa_prev, pb_prev = prev
        union = len(a | pa_prev) * pa + len(b | pb_prev) * pb
        if union <= l2:
            return len(a - pa_prev) * pa + len(b - pb_prev) * pb, (a, b)
    return ws, (a, b)


def traffic(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, sched: Schedule) -> Traffic:
    k_iters = math.ceil(problem.k / cfg.tile_k)
    mc_a, mc_b = multicast_factors(cfg)
    l2_stage = a_stage_bytes(problem, cfg) / mc_a + b_stage_bytes(problem, cfg) / mc_b \
        + scale_stage_bytes(problem, cfg)
    pa, pb = _panel_bytes(problem, cfg)
    write = problem.m * problem.n * problem.out_dtype.bits / 8 * problem.batch
    compulsory = problem.min_hbm_bytes - problem.m * problem.n * problem.out_dtype.bits // 8 * problem.batch
    l2 = hw.l2.size_bytes
    a0, b0 = wave_panels(sched, cfg.raster, cfg.group_size, 0)
    ws = len(a0) * pa + len(b0) * pb
    window = ws * min(1.0, cfg.stages * cfg.tile_k / problem.k)
    cta_stages = sched.n_tiles * cfg.cluster_size * k_iters
    if pa * sched.tiles_m * sched.batch + pb * sched.tiles_n * sched.batch <= l2:
        read, reuse = float(compulsory), "all-fit"
    elif window > l2:
        read, reuse = l2_stage * cta_stages, "none"   # no reuse beyond the cluster's multicast
    else:
        read, reuse = _sampled_wave_reads(sched, cfg, pa, pb, l2), ("wave-fit" if ws <= l2 else "k-window")
    return Traffic(hbm_read_bytes=read, hbm_write_bytes=write, l2_read_bytes_per_stage=l2_stage,
                   hbm_read_bytes_per_stage=read / cta_stages, wave_working_set_bytes=ws, reuse=reuse)


def _sampled_wave_reads(sched: Schedule, cfg: KernelConfig, pa: float, pb: float, l2: float) -> float:
    if sched.waves <= _SAMPLED_WAVES:
        total, prev = 0.0, None
        for w in range(sched.waves):
            new, prev = _wave_new_bytes(sched, cfg, w, pa, pb, l2, prev)
            total += new
        return total
    first, prev = _wave_new_bytes(sched, cfg, 0, pa, pb, l2, None)
    last, _ = _wave_new_bytes(sched, cfg, sched.waves - 1, pa, pb, l2,
                              wave_panels(sched, cfg.raster, cfg.group_size, sched.waves - 2))
    mids = []
    for i in range(1, _SAMPLED_WAVES - 1):
        w = 1 + (sched.waves - 3) * (i - 1) // max(_SAMPLED_WAVES - 3, 1)
        new, _ = _wave_new_bytes(sched, cfg, w, pa, pb, l2,
                                 wave_panels(sched, cfg.raster, cfg.group_size, w - 1))
        mids.append(new)
    return first + last + (sched.waves - 2) * sum(mids) / len(mids)
