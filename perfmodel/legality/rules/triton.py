"""Restrictions of Triton's matmul families on sm_90a (``triton-tma``, ``triton-ptr``), not of the PTX:
what Triton 3.x compiles into the wgmma schedule perfmodel.families.triton models. Block sizes are
``tl.arange`` extents (powers of two); the loop's shared memory must fit one block's opt-in limit (Triton
raises OutOfResources above it); the warps are whole warpgroups that each own at least one 64-row wgmma
block; accumulators beyond the per-thread register limit spill to local memory, which we do not model.
"""
from __future__ import annotations

from ..registry import Ctx, rule
from ._common import positive

FAMILIES = ("triton-tma", "triton-ptr")
SECTION = "Triton 3.x (triton.language.arange: power-of-two ranges; OutOfResources: shared memory), not PTX"
NUM_WARPS = (4, 8)                 # the warp counts the families model (one or two warpgroups)
NON_ACC_REGISTERS = 40             # estimate: addresses, masks, loop state beside the accumulators
BARRIER_BYTES = 8                  # one mbarrier per stage (TMA loads)


def accumulator_registers(problem, cfg) -> int:
    """f32 accumulator registers per thread: the tile over the CTA's num_warps x 32 threads."""
    return cfg.tile_m * cfg.tile_n * max(problem.acc_dtype.bits, 32) // 32 // (128 * max(cfg.consumers, 1))


def ring_bytes(problem, cfg, tma_loads: bool) -> int:
    """Shared memory of the pipeline ring: num_stages A and B buffers, plus one mbarrier per stage with TMA."""
    stage = (cfg.tile_m * problem.a_dtype.bits + cfg.tile_n * problem.b_dtype.bits) * cfg.tile_k // 8
    return cfg.stages * stage + (cfg.stages * BARRIER_BYTES if tma_loads else 0)


def _pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


@rule("triton-block-pow2", SECTION, "BLOCK_M, BLOCK_N, BLOCK_K are powers of two", FAMILIES)
def triton_block_pow2(c: Ctx):
    for name, v in (("BLOCK_M", c.cfg.tile_m), ("BLOCK_N", c.cfg.tile_n), ("BLOCK_K", c.cfg.tile_k)):
        if not _pow2(v):
            yield f"{name}={v} is not a power of two (tl.arange needs power-of-two ranges)"


@rule("triton-num-warps", SECTION, f"num_warps in {NUM_WARPS} (1 or 2 wgmma warpgroups)", FAMILIES)
def triton_num_warps(c: Ctx):
    if 4 * c.cfg.consumers not in NUM_WARPS:
        yield f"num_warps={4 * c.cfg.consumers}: the Triton families are modelled for num_warps 4 or 8"


@rule("triton-wgmma-rows", SECTION, "BLOCK_M is a multiple of 64 (one wgmma M block per warpgroup row)", FAMILIES)
def triton_wgmma_rows(c: Ctx):
    if positive(c) and c.cfg.tile_m % 64:
        yield f"BLOCK_M={c.cfg.tile_m}: Triton lowers it to mma.sync, not wgmma (modelled: multiples of 64)"


@rule("triton-smem", SECTION, "num_stages x (BLOCK_M + BLOCK_N) x BLOCK_K operands fit the per-block shared memory limit",
      FAMILIES)
def triton_smem(c: Ctx):
    if not positive(c):
        return
    cfg = c.cfg
    need = ring_bytes(c.problem, cfg, c.facts.tma_loads)
    limit = c.hw.smem.per_block_optin_bytes
    if need > limit:
        yield (f"{cfg.stages} stages x {ring_bytes(c.problem, cfg, False) // cfg.stages} B = {need} B of shared "
               f"memory > {limit} B per block (Triton raises OutOfResources)")


@rule("triton-registers", SECTION,
      f"accumulators + {NON_ACC_REGISTERS} registers per thread fit the per-thread register limit", FAMILIES)
def triton_registers(c: Ctx):
    if not positive(c):
        return
    threads = 128 * c.cfg.consumers
    acc = accumulator_registers(c.problem, c.cfg)
    cap = c.hw.registers.max_per_thread
    if acc + NON_ACC_REGISTERS > cap:
        yield (f"{acc} accumulator registers per thread ({c.cfg.tile_m}x{c.cfg.tile_n} over {threads} threads) "
               f"+ {NON_ACC_REGISTERS} > {cap}: ptxas spills the accumulators (not modelled)")
