"""Tensor-core rates per MMA kind, from ``HardwareSpec.tensor_core`` (dense FLOP per clock per SM)."""
from __future__ import annotations

from ..hardware import HardwareSpec
from ..problem import GemmProblem, MmaKind


def dense_flops_per_clock_per_sm(problem: GemmProblem, hw: HardwareSpec) -> float:
    """Dense rate of the problem's MMA kind; fp6/fp4 inside kind::f8f6f4 use their own rate when the
    hardware file gives one (the wider operand sets the pace), else the fp8 rate."""
    tc = hw.tensor_core
    kind = problem.kind
    if kind is MmaKind.F16:
        return tc.f16_flops_per_clock_per_sm
    if kind is MmaKind.TF32:
        return tc.tf32_flops_per_clock_per_sm
    if kind is MmaKind.I8:
        return tc.i8_ops_per_clock_per_sm
    if kind is MmaKind.F8F6F4:
        bits = max(problem.a_dtype.bits, problem.b_dtype.bits)
        if bits >= 8:
            return tc.f8_flops_per_clock_per_sm
        if bits == 6:
            return tc.f6_flops_per_clock_per_sm or tc.f8_flops_per_clock_per_sm
        return tc.f4_flops_per_clock_per_sm or tc.f8_flops_per_clock_per_sm
    if kind is MmaKind.MXF8F6F4:
        return tc.mxf8f6f4_flops_per_clock_per_sm or tc.f8_flops_per_clock_per_sm
    if kind is MmaKind.MXF4:
        return tc.mxf4_flops_per_clock_per_sm or tc.f8_flops_per_clock_per_sm
    return tc.mxf4nvf4_flops_per_clock_per_sm or tc.f8_flops_per_clock_per_sm


def mma_flops_per_clock_per_sm(problem: GemmProblem, hw: HardwareSpec) -> float:
    """Useful FLOP per clock per SM at full datapath: structured sparsity multiplies by sparse_speedup."""
    rate = dense_flops_per_clock_per_sm(problem, hw)
    return rate * hw.tensor_core.sparse_speedup if problem.sparse_a else rate
