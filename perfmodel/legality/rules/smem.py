"""Shared memory and the stage ring.

A single stage (``stages=1``) is legal: the producer waits for the MMA to release the only buffer
before loading the next K-block, so loads and MMAs serialise. That is slow, not wrong; the model
predicts the cost, and no rule (or warning) fires for it.
"""
from __future__ import annotations

from ...config import smem_bytes
from ..registry import Ctx, rule
from ._common import positive


@rule("smem-capacity", "CUDA Programming Guide: dynamic shared memory per block opt-in (hardware file), not PTX",
      "all stages + epilogue staging + barriers (+1 KiB swizzle alignment) fit the per-block shared memory")
def smem_capacity(c: Ctx):
    # this layout (ring + separate epilogue staging + barrier block) is a warp-specialised kernel's; a
    # software-pipelined family counts its own shared memory (its restriction rules, e.g. triton-smem), a
    # library kernel its own layout (families.cublaslt: the ncu-measured ring + epilogue buffer)
    if not positive(c) or c.facts.producer_warpgroups == 0 or c.facts.library_kernel:
        return
    need = smem_bytes(c.problem, c.cfg)
    cap = c.hw.smem.per_block_optin_bytes
    if need > cap:
        yield f"{c.cfg.stages} stages + epilogue + barriers need {need} B of shared memory > {cap} B per block on {c.hw.name}"


@rule("stages-min", "PTX ISA 9.0 §9.7.13.15 (mbarrier ring of stages); perfmodel pipeline",
      "the shared-memory pipeline needs at least one stage")
def stages_min(c: Ctx):
    if c.cfg.stages < 1:
        yield f"stages must be >= 1, got {c.cfg.stages}"
