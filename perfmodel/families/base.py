"""What a kernel family is: a schedule over the model's components, not a formula of its own.

A family answers, for one (problem, configuration, GPU): who issues the loads (a producer warpgroup
issuing TMA beside the MMA warpgroups, or the MMA warps themselves, software-pipelined, with TMA or
cp.async), how many warpgroups issue MMAs and how the tile splits between them, the ``wait_group``
depth, whether CTAs are persistent, how many CTAs share an SM, and the epilogue. ``perfmodel.sim``
builds its processes from that ``Schedule``; legality takes the family's ``ScheduleFacts`` and its own
restriction rules (``perfmodel.legality.rules``).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from ..config import KernelConfig, StoreLayout
from ..hardware import HardwareSpec
from ..legality import ScheduleFacts
from ..problem import GemmProblem

WARPGROUP_THREADS = 128
WGMMA_M = 64


class Producer(enum.Enum):
    """Who moves A and B tiles into shared memory."""
    TMA_WARP = "tma-warp"            # a producer warpgroup issues TMA; the MMA warpgroups only wait and compute
    TMA_INLINE = "tma-inline"        # the MMA warps issue TMA themselves, num_stages - 1 k-blocks ahead
    CP_ASYNC_INLINE = "cp-async"     # the MMA warps issue 16-byte cp.async copies, num_stages - 1 ahead
    LDG_INLINE = "ld-global"         # the MMA warps load through registers (ld.global + st.shared), no async copy

    @property
    def inline(self) -> bool:
        return self is not Producer.TMA_WARP


@dataclass(frozen=True)
class Schedule:
    family: str
    producer: Producer
    issuers: int                 # warpgroups issuing MMAs in one CTA
    rows_per_issuer: int         # the part of the tile one warpgroup computes: rows ...
    cols_per_issuer: int         # ... and columns
    wait_depth: int              # wgmma.wait_group depth of the mainloop (sm_90a); 0 on sm_100a
    ctas_per_sm: int             # CTAs resident on one SM at once (non-persistent kernels with small tiles)
    persistent: bool
    threads_per_cta: int
    registers_per_thread: int    # estimate the occupancy uses
    smem_bytes_per_cta: int
    # launched through the cluster API even with clusters of one CTA (cudaLaunchKernelEx with a cluster dimension):
    # such grids land on the GPCs by rows of TPCs, not as plain grids do (HardwareSpec.busiest_gpc_sms)
    cluster_launch: bool = False
    # the family's CTAs pay the set-up measured for our kernel (gpu.cta_setup_s: barrier set-up, register
    # reallocation, first parameter and descriptor reads before its producer's first load); other families' set-up is
    # not measured (0)
    pays_cta_setup: bool = False
    # a kernel of clusters (> 1 CTA) whose CTAs meet at a cluster barrier before they exit (gpu.cluster_exit_s)
    cluster_exit_sync: bool = False
    # how a direct-store epilogue lays out its stores (the store path's rate and L2 requests depend on it)
    store_layout: StoreLayout = StoreLayout.FRAGMENT

    def describe(self) -> str:
        split = f"{self.issuers} MMA warpgroup(s) of {self.rows_per_issuer}x{self.cols_per_issuer}"
        return (f"{self.family}: loads by {self.producer.value}, {split}, wait_group {self.wait_depth}, "
                f"{self.ctas_per_sm} CTA(s)/SM, {'persistent' if self.persistent else 'one tile per CTA'}")


class KernelFamily:
    """A kernel family: its name, what it is, its schedule facts for legality, and its schedule."""
    name: str = ""
    summary: str = ""
    facts: ScheduleFacts = ScheduleFacts()
    # whether predictions apply the family's own restriction rules: a Triton config that Triton cannot
    # build is no prediction; our kernel's restrictions only bind what our validation kernel can build
    restrict_predictions: bool = True

    def schedule(self, problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> Schedule:
        raise NotImplementedError


def occupancy(hw: HardwareSpec, smem_bytes: int, threads: int, registers_per_thread: int) -> int:
    """CTAs of this size resident on one SM (CUDA occupancy: shared memory, threads, registers; at least
    1 for a legal configuration). Register allocation rounds to 8 per thread (warp granularity 256)."""
    by_smem = hw.smem.per_sm_bytes // max(smem_bytes + hw.smem.reserved_per_block_bytes, 1)
    by_threads = hw.gpu.max_threads_per_sm // max(threads, 1)
    regs = -(-registers_per_thread // 8) * 8
    by_regs = hw.registers.per_sm // max(regs * threads, 1)
    return max(1, min(by_smem, by_threads, by_regs, hw.gpu.max_ctas_per_sm))


__all__ = ["KernelFamily", "Producer", "Schedule", "WARPGROUP_THREADS", "WGMMA_M", "occupancy"]
