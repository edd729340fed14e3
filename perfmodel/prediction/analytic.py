"""Analytic baseline: roofline + wave quantisation (as kernel libraries' heuristics do).

DeepGEMM's ``get_layout_info`` and NVIDIA's *Matrix Multiplication Background* guide estimate a GEMM as
``waves x per-tile time``, the per-tile time being the slower of the tile's math at the tensor-core
peak and its operand bytes at the per-SM share of L2 and HBM bandwidth. Reports show it beside the
simulation so the simulator has to earn its keep. Every number comes from ``HardwareSpec``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import KernelConfig, a_stage_bytes, b_stage_bytes, scale_stage_bytes
from ..hardware import HardwareSpec
from ..problem import GemmProblem
from ..sim.params import l2_bytes_per_sm_clock
from ..sim.rates import mma_flops_per_clock_per_sm


@dataclass(frozen=True)
class AnalyticEstimate:
    tflops: float
    time_s: float
    cycles: int
    bound: str                 # "compute", "l2", "hbm" (per-tile limit) or "hbm-roofline" (whole problem)
    waves: int
    wave_efficiency: float     # tiles / (waves x concurrent tiles)
    tile_cycles: float         # one tile at the per-SM limit

    @property
    def time_us(self) -> float:
        return self.time_s * 1e6

    def to_dict(self) -> dict:
        return {"tflops": self.tflops, "time_s": self.time_s, "time_us": self.time_us, "cycles": self.cycles,
                "bound": self.bound, "waves": self.waves, "wave_efficiency": self.wave_efficiency,
                "tile_cycles": self.tile_cycles}


def cluster_tiles(problem: GemmProblem, cfg: KernelConfig) -> tuple[int, int]:
    """Output tiles of one cluster (cluster_m*tile_m x cluster_n*tile_n) along M and N, per batch."""
    return (math.ceil(problem.m / (cfg.cluster_m * cfg.tile_m)),
            math.ceil(problem.n / (cfg.cluster_n * cfg.tile_n)))


def concurrent_clusters(cfg: KernelConfig, hw: HardwareSpec) -> int:
    return hw.resident_clusters(cfg.cluster_size)


def analytic_estimate(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec,
                      clock_hz: float) -> AnalyticEstimate:
    ctm, ctn = cluster_tiles(problem, cfg)
    n_clusters = ctm * ctn * problem.batch
    slots = concurrent_clusters(cfg, hw)
    waves = math.ceil(n_clusters / slots)
    active_sms = min(n_clusters, slots) * cfg.cluster_size
    k_iters = math.ceil(problem.k / cfg.tile_k)
    tile_flops = 2 * cfg.tile_m * cfg.tile_n * cfg.tile_k * k_iters
    compute = tile_flops / mma_flops_per_clock_per_sm(problem, hw)
    mc_a, mc_b = (cfg.cluster_n, max(cfg.cluster_m // cfg.cta_group, 1)) if cfg.multicast else (1, 1)
    l2_bytes = k_iters * (a_stage_bytes(problem, cfg) / mc_a + b_stage_bytes(problem, cfg) / mc_b
                          + scale_stage_bytes(problem, cfg))
    # the simulator's L2 rate per SM cycle at this clock (the L2 keeps most of its own clock when the
    # power cap lowers the SM clock): with the rate at the microbenchmark's clock instead, an L2-bound
    # simulation beat this baseline (686 vs 545 TFLOP/s at 16384^3 bf16 on the H100, issue 11)
    l2 = l2_bytes / (l2_bytes_per_sm_clock(hw, clock_hz) / active_sms)
    tile_cycles = max(compute, l2)
    bound = "compute" if compute >= l2 else "l2"
    cycles = waves * tile_cycles
    hbm_cycles = problem.min_hbm_bytes / hw.hbm_bytes_per_clock(clock_hz)
    if hbm_cycles > cycles:
        cycles, bound = hbm_cycles, "hbm-roofline"
    time_s = cycles / clock_hz + (hw.gpu.launch_overhead_s or 0.0)   # the launch, as predict() adds it
    return AnalyticEstimate(tflops=problem.flops / time_s / 1e12, time_s=time_s, cycles=int(math.ceil(cycles)),
                            bound=bound, waves=waves, wave_efficiency=n_clusters / (waves * slots),
                            tile_cycles=tile_cycles)
