"""Tensor Memory (sm_100a): allocation size and accumulator buffering (PTX ISA 9.0 §9.7.16.1, §9.7.16.7)."""
from __future__ import annotations

from ...config import tmem_alloc_columns, tmem_columns
from ..registry import Ctx, rule
from ._common import positive

MAX_ACC_BUFFERS = 2   # the modelled kernels (CUTLASS sm100 practice) double-buffer at most


@rule("tmem-capacity", "PTX ISA 9.0 §9.7.16.7.1 (nCols a power of 2 in [32, 512]) / §9.7.16.1 (512 columns)",
      "accumulators (N columns x acc_buffers) + scale-factor and sparse-metadata columns, rounded up to a power of two >= 32, fit in TMEM")
def tmem_capacity(c: Ctx):
    if not c.sm100 or not positive(c):
        return
    need = tmem_columns(c.problem, c.cfg)
    alloc = tmem_alloc_columns(need)
    cap = c.hw.tmem.columns
    if alloc > cap:
        extra = need - c.cfg.mma_n * c.cfg.acc_buffers
        yield (f"TMEM needs {c.cfg.mma_n} x {c.cfg.acc_buffers} accumulator + {extra} scale-factor/metadata columns = {need}, "
               f"allocated as {alloc} > {cap} columns")


@rule("acc-buffers", "PTX ISA 9.0 §9.7.15.5.1.1 (wgmma D lives in registers); 1..2 TMEM stages is the modelled kernel design (not PTX)",
      "accumulator buffers: exactly 1 on sm_90a (registers), 1 or 2 on sm_100a (TMEM)")
def acc_buffers(c: Ctx):
    n = c.cfg.acc_buffers
    if c.sm90 and n != 1:
        yield f"sm_90a accumulators live in registers: acc_buffers must be 1, got {n}"
    elif c.sm100 and not 1 <= n <= MAX_ACC_BUFFERS:
        yield f"acc_buffers must be 1 or {MAX_ACC_BUFFERS} on sm_100a, got {n}"
