"""Tile scheduler: tile order (raster + grouped/swizzled order), waves, tiles per SM, the tail.

The scheduling unit is the cluster tile (``cluster_m*tile_m x cluster_n*tile_n``); each CTA of a cluster
owns one ``tile_m x tile_n`` output tile of it. Order follows CUTLASS's sm90/sm100 persistent scheduler
(``get_work_idx_m_and_n``): with ``raster=m`` the M index changes fastest; ``group_size`` g > 1 walks
strips g tiles wide along the other dimension, the strip index changing fastest inside a strip, so
g = 1 is the plain raster. A last strip narrower than g is walked with its own width (Triton's GROUP_M).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import KernelConfig, Raster
from ..hardware import HardwareSpec
from ..problem import GemmProblem


@dataclass(frozen=True)
class Schedule:
    tiles_m: int            # cluster tiles along M (per batch)
    tiles_n: int            # cluster tiles along N (per batch)
    batch: int
    n_tiles: int            # cluster tiles in total
    slots: int              # clusters resident at once (one CTA per SM)
    waves: int              # ceil(n_tiles / slots)
    tiles_per_cta: int      # tiles the busiest CTA processes (persistent) or 1 (non-persistent)
    active_sms: int         # SMs working in a full wave
    persistent: bool
    sm_count: int = 0       # SMs of the GPU (chip-wide activity for the power-limited clock)
    cluster_size: int = 1   # CTAs per cluster tile
    ctas_per_sm: int = 1    # tiles one SM runs at once (co-resident CTAs of a non-persistent kernel)

    @property
    def wave_efficiency(self) -> float:
        return self.n_tiles / (self.waves * self.slots)


def make_schedule(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, ctas_per_sm: int = 1) -> Schedule:
    """``ctas_per_sm`` > 1 (a non-persistent kernel whose CTAs are small enough to share an SM): that many
    tiles run on one SM at once, so a wave holds that many times the SMs' tiles."""
    tm = math.ceil(problem.m / (cfg.cluster_m * cfg.tile_m))
    tn = math.ceil(problem.n / (cfg.cluster_n * cfg.tile_n))
    n = tm * tn * problem.batch
    per_sm = max(ctas_per_sm, 1)
    slots = hw.resident_clusters(cfg.cluster_size) * per_sm
    waves = math.ceil(n / slots)
    active_sms = min(math.ceil(min(n, slots) * cfg.cluster_size / per_sm), hw.sm_count)
    return Schedule(tiles_m=tm, tiles_n=tn, batch=problem.batch, n_tiles=n, slots=slots, waves=waves,
                    tiles_per_cta=waves if cfg.persistent else 1,
                    active_sms=active_sms, persistent=cfg.persistent,
                    sm_count=hw.sm_count, cluster_size=cfg.cluster_size, ctas_per_sm=per_sm)


def operand_fill(problem: GemmProblem, cfg: KernelConfig, sched: Schedule) -> tuple[float, float, float]:
    """(A, B, K): the in-bounds shares of the grid's A tile rows (M over the cluster tiles' padded extent, tiles_m x
    cluster_m x tile_m), B tile rows (N, the same way) and k-blocks' K. The rest is the zero fill that TMA (or a masked
    load) puts in a tile's rows and columns beyond the matrix edge; MMAs on it draw less power (sim/power.py,
    tensor_power_weight)."""
    m_pad = sched.tiles_m * cfg.cluster_m * cfg.tile_m
    n_pad = sched.tiles_n * cfg.cluster_n * cfg.tile_n
    k_pad = math.ceil(problem.k / cfg.tile_k) * cfg.tile_k
    return min(1.0, problem.m / m_pad), min(1.0, problem.n / n_pad), min(1.0, problem.k / k_pad)


def tile_coords(t: int, tiles_m: int, tiles_n: int, raster: Raster, group: int) -> tuple[int, int, int]:
    """(batch, m index, n index) of the t-th cluster tile in launch order."""
    per_batch = tiles_m * tiles_n
    b, t = divmod(t, per_batch)
    major_n, minor_n = (tiles_m, tiles_n) if raster is Raster.M else (tiles_n, tiles_m)
    g = max(1, min(group, minor_n))
    strip, within = divmod(t, g * major_n)
    width = min(g, minor_n - strip * g)
    major, offset = divmod(within, width)
    minor = strip * g + offset
    return (b, major, minor) if raster is Raster.M else (b, minor, major)


def wave_panels(sched: Schedule, raster: Raster, group: int, wave: int) -> tuple[set, set]:
    """Distinct A row-panels (batch, m) and B column-panels (batch, n) touched by one wave. Walks the
    wave's tile range strip by strip (arithmetic on index ranges, not tile by tile)."""
    per_batch = sched.tiles_m * sched.tiles_n
    major_n, minor_n = (sched.tiles_m, sched.tiles_n) if raster is Raster.M else (sched.tiles_n, sched.tiles_m)
    g = max(1, min(group, minor_n))
    majors, minors = set(), set()
    t, hi = wave * sched.slots, min((wave + 1) * sched.slots, sched.n_tiles)
    while t < hi:
        b, rem = divmod(t, per_batch)
        strip, within = divmod(rem, g * major_n)
        width = min(g, minor_n - strip * g)
        seg = min(hi - t, width * major_n - within)     # tiles left in this strip (and wave)
        first, last = within // width, (within + seg - 1) // width
        majors.update((b, m) for m in range(first, last + 1))
        if seg >= width:
            offs = range(width)
        else:
            offs = {w % width for w in range(within, within + seg)}
        minors.update((b, strip * g + o) for o in offs)
        t += seg
    return (majors, minors) if raster is Raster.M else (minors, majors)
