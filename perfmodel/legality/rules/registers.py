"""Registers and threads of a warp-specialised CTA: one producer warpgroup plus ``consumers``
warpgroups (sm_90a: wgmma consumers holding the accumulators; sm_100a: epilogue warpgroups).

Budget per consumer thread: the setmaxnreg ceiling of the hardware file, less NON_ACC_REGISTERS
for everything that is not an accumulator. The whole CTA must also fit the SM's register file,
with the producer warpgroup shrunk to PRODUCER_REGISTERS (``setmaxnreg.dec``, the PTX minimum). Kernels
may keep the producer larger (CUTLASS: 40); the kernel-specific rules say so where it matters.
"""
from __future__ import annotations

from ...config import acc_registers_per_thread
from ..registry import Ctx, rule
from ._common import positive

WARPGROUP_THREADS = 128        # PTX ISA 9.0 §9.7.15.1: four contiguous warps
MAX_THREADS_PER_CTA = 1024     # CUDA Programming Guide, technical specifications: all compute capabilities >= 2.0
PRODUCER_WARPGROUPS = 1
PRODUCER_REGISTERS = 24        # PTX ISA 9.0 §9.7.19.5: the smallest setmaxnreg count (a TMA producer needs no more)
NON_ACC_REGISTERS = 32         # estimate: descriptors, addresses, loop/barrier state, epilogue temporaries
SETMAXNREG_STEP = 8            # PTX ISA 9.0 §9.7.19.5: imm-reg-count a multiple of 8


def consumer_registers(c: Ctx) -> int:
    """Registers per consumer thread the kernel asks for: accumulators + overhead, rounded up to 8."""
    need = acc_registers_per_thread(c.problem, c.cfg) + NON_ACC_REGISTERS
    return -(-need // SETMAXNREG_STEP) * SETMAXNREG_STEP


@rule("wgmma-acc-registers", "PTX ISA 9.0 §9.7.15.5.1.1 (D fragments: N/2 f32 per thread per m64) / §9.7.19.5 (setmaxnreg)",
      f"sm_90a accumulator registers per consumer thread + {NON_ACC_REGISTERS} others fit the setmaxnreg ceiling")
def wgmma_acc_registers(c: Ctx):
    # setmaxnreg belongs to warp-specialised kernels; without a producer warpgroup (Triton) the
    # family's own register rule applies the plain per-thread limit
    if not c.sm90 or not positive(c) or c.facts.producer_warpgroups == 0:
        return
    acc = acc_registers_per_thread(c.problem, c.cfg)
    cap = c.hw.registers.setmaxnreg_max_per_thread
    if acc + NON_ACC_REGISTERS > cap:
        rows = c.cfg.tile_m // c.cfg.consumers
        yield (f"each consumer thread holds {acc} accumulator registers ({rows}x{c.cfg.tile_n} per warpgroup) "
               f"+ {NON_ACC_REGISTERS} others > {cap} (setmaxnreg ceiling on {c.hw.name})")


@rule("register-pool", "PTX ISA 9.0 §9.7.19.5 (setmaxnreg draws on a per-CTA pool); register file size from the hardware file",
      f"consumer warpgroups' registers + a {PRODUCER_REGISTERS}-register producer warpgroup fit the SM register file")
def register_pool(c: Ctx):
    if not c.sm90 or not positive(c):
        return
    per = consumer_registers(c)
    producers = c.facts.producer_warpgroups
    total = WARPGROUP_THREADS * (c.cfg.consumers * per + producers * PRODUCER_REGISTERS)
    if total > c.hw.registers.per_sm:
        yield (f"{c.cfg.consumers} consumer warpgroups x 128 threads x {per} registers + {producers} producer "
               f"warpgroup(s) x 128 x {PRODUCER_REGISTERS} = {total} > {c.hw.registers.per_sm} registers per SM")


@rule("threads-per-cta", "CUDA Programming Guide: 1024 threads per block (not PTX); warpgroup = 128 threads, PTX ISA 9.0 §9.7.15.1",
      "(consumer warpgroups + 1 producer warpgroup) x 128 threads <= 1024 threads per CTA")
def threads_per_cta(c: Ctx):
    threads = (c.cfg.consumers + c.facts.producer_warpgroups) * WARPGROUP_THREADS
    if threads > MAX_THREADS_PER_CTA:
        yield (f"{c.cfg.consumers} consumer + {c.facts.producer_warpgroups} producer warpgroups = {threads} threads "
               f"> {MAX_THREADS_PER_CTA} per CTA")
