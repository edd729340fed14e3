"""Our sm_90a kernel (perfmodel/kernels/gemm_sm90.cu): the nvcc flags that build a configuration."""
from __future__ import annotations

from typing import Any

from ..config import KernelConfig
from ..hardware import Arch, HardwareSpec
from ..legality import check
from ..problem import GemmProblem

KERNEL_SOURCE = "perfmodel/kernels/gemm_sm90.cu"


# ---------------------------------------------------------------------------- our sm_90a kernel
def kernel_flags(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> list[str] | None:
    """nvcc flags building our sm_90a kernel for ``cfg`` (``perfmodel.measure.build``), or None where
    the kernel has no such variant (any rule fails, its own ``kernel-sm90-*`` rules included)."""
    from ..measure.build import NVCC_FLAGS, macros

    if hw.arch is not Arch.SM90A or check(problem, cfg, hw):
        return None
    return list(NVCC_FLAGS) + list(macros(problem, cfg))


def export(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> dict[str, Any] | None:
    """``{"source", "nvcc_flags"}``, or None where our kernel has no such variant."""
    flags = kernel_flags(problem, cfg, hw)
    return None if flags is None else {"source": KERNEL_SOURCE, "nvcc_flags": flags}


__all__ = ["KERNEL_SOURCE", "export", "kernel_flags"]
