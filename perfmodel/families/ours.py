"""Our own kernel (perfmodel/kernels/gemm_sm90.cu on sm_90a; the same warp-specialised design on sm_100a).

sm_90a: one producer warpgroup issues TMA into the stage ring; ``consumers`` warpgroups split tile_m
(64-row multiples each) and issue wgmma m64nNk*, keeping one batch in flight (``wait_group 1``, as
CUTLASS's sm90 mainloops: K_PIPE_MMAS = 1; depth 0 with a single stage); each consumer stores its own
rows in the epilogue, not overlapped with its next mainloop. sm_100a: one thread issues tcgen05.mma
with commits onto the empty barriers; epilogue warpgroups drain TMEM. The kernel asks for the shared
memory of its ring: one CTA per SM.
"""
from __future__ import annotations

from ..config import KernelConfig, smem_bytes
from ..hardware import Arch, HardwareSpec
from ..legality import WARP_SPECIALISED
from ..problem import GemmProblem
from .base import WARPGROUP_THREADS, KernelFamily, Producer, Schedule

WGMMA_WAIT_DEPTH = 1     # CUTLASS sm90 mainloops keep one wgmma batch in flight (K_PIPE_MMAS = 1)


class OursFamily(KernelFamily):
    name = "ours"
    summary = "our warp-specialised kernel: producer warpgroup + wgmma consumers (perfmodel/kernels/gemm_sm90.cu)"
    facts = WARP_SPECIALISED
    restrict_predictions = False     # predictions describe what the PTX allows for this design

    def schedule(self, problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> Schedule:
        sm100 = hw.arch is Arch.SM100A
        issuers = 1 if sm100 else max(cfg.consumers, 1)
        rows = cfg.tile_m * cfg.cta_group if sm100 else max(cfg.tile_m // issuers, 1)
        return Schedule(family=self.name, producer=Producer.TMA_WARP, issuers=issuers,
                        rows_per_issuer=rows, cols_per_issuer=cfg.tile_n,
                        wait_depth=0 if sm100 else min(WGMMA_WAIT_DEPTH, max(cfg.stages - 1, 0)),
                        ctas_per_sm=1, persistent=cfg.persistent,
                        threads_per_cta=WARPGROUP_THREADS * (max(cfg.consumers, 1) + 1),
                        registers_per_thread=0, smem_bytes_per_cta=smem_bytes(problem, cfg),
                        cluster_launch=True,      # gemm_sm90.cu: cudaLaunchKernelEx with a cluster dimension
                        cluster_exit_sync=cfg.cluster_size > 1,   # gemm_sm90.cu: cluster_sync() before a CTA exits
                        pays_cta_setup=True)      # measured on this kernel (gpu.cta_setup_s)


FAMILY = OursFamily()

__all__ = ["FAMILY", "OursFamily", "WGMMA_WAIT_DEPTH"]
