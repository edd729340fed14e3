"""Triton's matmuls on sm_90a (Triton 3.x), as they are generated (docs/triton-codegen.md has the
evidence read from the TTGIR/PTX Triton emits on our H100):

- ``triton-tma``: the host tensor-descriptor matmul. The MMA warps issue the TMA loads themselves,
  software-pipelined ``num_stages - 1`` k-blocks ahead (no producer warpgroup), wait on the stage's
  mbarrier, issue async wgmma and keep one batch in flight (``warp_group_dot_wait`` 1), so a stage is
  reloaded once the wgmma that read it completed; the output leaves through a TMA store.
- ``triton-ptr``: the tutorial's pointer matmul. The same software pipeline with ``cp.async`` 16-byte
  copies issued by every thread (``cp.async.wait_group`` + a CTA barrier per k-block); the output is
  stored from registers (``st.global``).

Both: one program per output tile (not persistent), tiles in ``GROUP_M`` grouped order (N walked
within strips of GROUP_M tile rows: our raster N with group GROUP_M), ``num_warps / 4`` warpgroups that
take 64-row blocks of the tile first and split the rest along N, and as many CTAs per SM as shared
memory, registers and threads allow. Block sizes are powers of two.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..config import Epilogue, KernelConfig, StoreLayout, derive, mma_k_for
from ..errors import ConfigError
from ..hardware import Arch, HardwareSpec
from ..legality import ScheduleFacts
from ..legality.rules.triton import NON_ACC_REGISTERS, accumulator_registers, ring_bytes
from ..problem import GemmProblem
from .base import WARPGROUP_THREADS, WGMMA_M, KernelFamily, Producer, Schedule, occupancy

MMA_WAIT_DEPTH = 1           # warp_group_dot_wait {pendings = 1} in the pipelined loop (docs/triton-codegen.md)
TRITON_DIVISIBILITY = 16     # Triton specialises integer arguments divisible by 16 (vectorised access)


@dataclass(frozen=True)
class TritonKnobs:
    """A ``triton.Config`` of the matmul: block sizes, GROUP_M and the launch options."""
    block_m: int
    block_n: int
    block_k: int
    group_m: int = 8
    num_warps: int = 4
    num_stages: int = 3

    @property
    def name(self) -> str:
        return (f"BM{self.block_m}_BN{self.block_n}_BK{self.block_k}_G{self.group_m}"
                f"_w{self.num_warps}_s{self.num_stages}")


def warpgroup_grid(tile_m: int, warpgroups: int) -> tuple[int, int]:
    """(warpgroups along M, along N): 64-row blocks first, the rest side by side along N."""
    along_m = max(1, min(warpgroups, tile_m // WGMMA_M))
    return along_m, max(warpgroups // along_m, 1)


class TritonFamily(KernelFamily):
    def __init__(self, name: str, producer: Producer, epilogue: Epilogue, summary: str):
        self.name, self.producer, self.epilogue, self.summary = name, producer, epilogue, summary
        self.facts = ScheduleFacts(family=name, producer_warpgroups=0, split_n=True,
                                   tma_loads=producer is Producer.TMA_INLINE)

    # ------------------------------------------------------------------ knobs <-> configuration
    def config(self, problem: GemmProblem, hw: HardwareSpec, knobs: TritonKnobs) -> KernelConfig:
        """The KernelConfig a Triton config stands for (raises ConfigError for what it cannot be)."""
        if hw.arch is not Arch.SM90A:
            raise ConfigError(f"the {self.name} family is modelled on sm_90a only ({hw.name} is {hw.arch.value})")
        if knobs.num_warps % 4 or knobs.num_warps <= 0:
            raise ConfigError(f"num_warps={knobs.num_warps}: the {self.name} family issues wgmma per warpgroup "
                              f"(a multiple of 4 warps)")
        wgs = knobs.num_warps // 4
        _, along_n = warpgroup_grid(knobs.block_m, wgs)
        mma_n = min(max(knobs.block_n // along_n, 8), 256)
        return derive(problem, hw, (knobs.block_m, knobs.block_n, knobs.block_k), stages=knobs.num_stages,
                      consumers=wgs, cluster=(1, 1), cta_group=1, persistent=False, raster="n",
                      group_size=max(knobs.group_m, 1), multicast=False, epilogue=self.epilogue.value,
                      mma=(WGMMA_M, mma_n, mma_k_for(problem))).config

    def knobs(self, cfg: KernelConfig) -> TritonKnobs:
        return TritonKnobs(cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.group_size, 4 * cfg.consumers, cfg.stages)

    # ------------------------------------------------------------------ resources and schedule
    def smem_bytes(self, problem: GemmProblem, cfg: KernelConfig) -> int:
        """Shared memory Triton allocates: the ring of ``num_stages`` A and B buffers (plus one mbarrier
        per stage with TMA); the epilogue's staging buffer reuses the ring once the loop is done."""
        ring = ring_bytes(problem, cfg, self.producer is Producer.TMA_INLINE)
        out = cfg.tile_m * cfg.tile_n * problem.out_dtype.bits // 8 if self.epilogue is Epilogue.TMA_STORE else 0
        return max(ring, out)

    def registers_per_thread(self, problem: GemmProblem, cfg: KernelConfig) -> int:
        return accumulator_registers(problem, cfg) + NON_ACC_REGISTERS

    def producer_for(self, problem: GemmProblem) -> Producer:
        """The pointer matmul gets 16-byte cp.async copies only when Triton may assume 16-element-divisible
        strides (its specialisation of integer arguments: stride_am = stride_bn = K); otherwise Triton 3.6
        emits 2-byte ld.global.b16 + st.shared.b16 through registers and no async wgmma overlap
        (docs/triton-codegen.md: 122 of 374 pointer kernels, all of the K % 16 != 0 class)."""
        if self.producer is Producer.CP_ASYNC_INLINE and problem.k % TRITON_DIVISIBILITY:
            return Producer.LDG_INLINE
        return self.producer

    def schedule(self, problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> Schedule:
        wgs = max(cfg.consumers, 1)
        producer = self.producer_for(problem)
        along_m, along_n = warpgroup_grid(cfg.tile_m, wgs)
        threads = WARPGROUP_THREADS * wgs
        smem = self.smem_bytes(problem, cfg)
        regs = min(self.registers_per_thread(problem, cfg), hw.registers.max_per_thread)
        return Schedule(family=self.name, producer=producer, issuers=wgs,
                        rows_per_issuer=max(cfg.tile_m // along_m, 1), cols_per_issuer=max(cfg.tile_n // along_n, 1),
                        wait_depth=0 if producer is Producer.LDG_INLINE else min(MMA_WAIT_DEPTH, max(cfg.stages - 1, 0)),
                        ctas_per_sm=occupancy(hw, smem, threads, regs), persistent=False,
                        threads_per_cta=threads, registers_per_thread=regs, smem_bytes_per_cta=smem,
                        # tl.store of the accumulators: Triton converts them through shared memory (st.shared.v4,
                        # ldmatrix) and stores 16 bytes a thread, st.global.v4.b32 (docs/triton-codegen.md)
                        store_layout=StoreLayout.COALESCED)


TMA = TritonFamily("triton-tma", Producer.TMA_INLINE, Epilogue.TMA_STORE,
                   "Triton host tensor-descriptor matmul: TMA loads issued by the MMA warps, TMA store")
PTR = TritonFamily("triton-ptr", Producer.CP_ASYNC_INLINE, Epilogue.DIRECT,
                   "Triton tutorial pointer matmul: cp.async loads pipelined by the MMA warps, st.global")

__all__ = ["PTR", "TMA", "TritonFamily", "TritonKnobs", "warpgroup_grid"]
