"""Restrictions of OUR sm_90a kernel (perfmodel/kernels/gemm_sm90.cu), not of the PTX ISA.

These rules describe what the project's own parametric kernel can build and run, so that the
validation runner refuses a configuration before compiling it. Each mirrors a ``static_assert`` or
a host-side check in gemm_sm90.cu. They apply to sm_90a targets only; ids start with ``kernel-sm90-``
so that a caller interested in the PTX alone can filter them out.
"""
from __future__ import annotations

from ...config import Epilogue, Swizzle, acc_registers_per_thread
from ..registry import Ctx, rule
from ...problem import DType, Major
from ._common import positive

SECTION = "perfmodel kernel gemm_sm90.cu (our implementation, not PTX)"
KERNEL_DTYPES = (DType.BF16, DType.E4M3)
MAX_CONSUMERS = 3
EPILOGUE_COLUMNS = 64          # the TMA-store epilogue writes 64-column sub-tiles
PORTABLE_CLUSTER = 8           # the kernel does not opt in to non-portable cluster sizes
SWIZZLE_ATOM_ROWS = 8          # a multicast slice must be whole 8-row swizzle atoms
REGISTER_FILE = 65536          # per SM (CUDA Programming Guide, CC 9.0)
SETMAXNREG_CEILING = 240
NON_ACC_REGISTERS = 32         # ptxas needed 26 beyond 128 accumulators (192x256, 3 consumers, 2026-11-21)


def _ours(c: Ctx) -> bool:
    return c.sm90 and positive(c)


@rule("kernel-sm90-types", SECTION,
      "our kernel takes bf16 x bf16 or e4m3 x e4m3, both K-major, dense, f32 accumulate, bf16 out")
def kernel_types(c: Ctx):
    if not c.sm90:
        return
    p = c.problem
    if p.a_dtype not in KERNEL_DTYPES or p.b_dtype is not p.a_dtype:
        yield f"operands {p.a_dtype.value} x {p.b_dtype.value}: our kernel takes bf16 x bf16 or e4m3 x e4m3"
    if p.acc_dtype is not DType.F32 or p.out_dtype is not DType.BF16:
        yield f"accumulator {p.acc_dtype.value} / output {p.out_dtype.value}: our kernel accumulates f32, writes bf16"
    if p.a_major is not Major.K or p.b_major is not Major.K:
        yield "our kernel reads A (M x K) and B (N x K) K-major only (the TN layout)"
    if p.sparse_a or p.scale_vec_size or p.batch != 1:
        yield "our kernel has no sparse, block-scaled or batched variant"


@rule("kernel-sm90-consumers", SECTION, f"our kernel has 1 to {MAX_CONSUMERS} consumer warpgroups")
def kernel_consumers(c: Ctx):
    if c.sm90 and not 1 <= c.cfg.consumers <= MAX_CONSUMERS:
        yield f"{c.cfg.consumers} consumer warpgroups: our kernel supports 1 to {MAX_CONSUMERS}"


@rule("kernel-sm90-swizzle", SECTION, "our kernel loads A and B with a 32, 64 or 128-byte swizzle (no interleave)")
def kernel_swizzle(c: Ctx):
    if not c.sm90:
        return
    for name, sw in (("A", c.cfg.swizzle_a), ("B", c.cfg.swizzle_b)):
        if sw not in (Swizzle.B32, Swizzle.B64, Swizzle.B128):
            yield f"swizzle {sw.value} for {name}: our kernel uses 32, 64 or 128-byte swizzle"


@rule("kernel-sm90-epilogue-tile", SECTION,
      f"the TMA-store epilogue writes {EPILOGUE_COLUMNS}-column sub-tiles: tile_n a multiple of {EPILOGUE_COLUMNS}")
def kernel_epilogue_tile(c: Ctx):
    if _ours(c) and c.cfg.epilogue is Epilogue.TMA_STORE and c.cfg.tile_n % EPILOGUE_COLUMNS:
        yield f"tile_n {c.cfg.tile_n} with the TMA epilogue: must be a multiple of {EPILOGUE_COLUMNS} (or use dir)"


@rule("kernel-sm90-multicast-slice", SECTION,
      "with multicast each CTA loads a slice of the shared operand: whole 8-row swizzle atoms")
def kernel_multicast_slice(c: Ctx):
    cfg = c.cfg
    if not (_ours(c) and cfg.multicast):
        return
    if cfg.cluster_m > 1 and cfg.tile_n % (SWIZZLE_ATOM_ROWS * cfg.cluster_m):
        yield (f"tile_n {cfg.tile_n} split over cluster_m {cfg.cluster_m} is not whole {SWIZZLE_ATOM_ROWS}-row "
               f"atoms")
    if cfg.cluster_n > 1 and cfg.tile_m % (SWIZZLE_ATOM_ROWS * cfg.cluster_n):
        yield (f"tile_m {cfg.tile_m} split over cluster_n {cfg.cluster_n} is not whole {SWIZZLE_ATOM_ROWS}-row "
               f"atoms")


@rule("kernel-sm90-cluster", SECTION, f"our kernel launches portable clusters only (<= {PORTABLE_CLUSTER} CTAs)")
def kernel_cluster(c: Ctx):
    if c.sm90 and c.cfg.cluster_size > PORTABLE_CLUSTER:
        yield f"cluster of {c.cfg.cluster_size} CTAs: our kernel does not opt in above {PORTABLE_CLUSTER}"


def register_cap(consumers: int) -> int:
    """Registers per thread ptxas may use: __launch_bounds__(threads, 1) caps the whole kernel at
    65536 / threads (rounded down to 8), and setmaxnreg cannot raise what ptxas allocated."""
    threads = 128 * (consumers + 1)
    return min(SETMAXNREG_CEILING, REGISTER_FILE // threads // 8 * 8)


@rule("kernel-sm90-ptxas-registers", SECTION,
      f"accumulators + {NON_ACC_REGISTERS} registers fit ptxas' per-thread cap for the CTA size (65536 / threads)")
def kernel_ptxas_registers(c: Ctx):
    if not (_ours(c) and 1 <= c.cfg.consumers <= MAX_CONSUMERS):
        return
    acc = acc_registers_per_thread(c.problem, c.cfg)
    cap = register_cap(c.cfg.consumers)
    if acc + NON_ACC_REGISTERS > cap:
        yield (f"{acc} accumulator registers + {NON_ACC_REGISTERS} > {cap} per thread with "
               f"{c.cfg.consumers + 1} warpgroups (ptxas spills or fails)")
