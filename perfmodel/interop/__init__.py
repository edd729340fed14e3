"""Interop: a configuration in the words of other ecosystems, and the model plugged into their tuners.
One module per ecosystem (``ours``: our sm_90a kernel's nvcc flags; ``cutlass``: CUTLASS 3.x names;
``triton``: ``triton.Config`` dicts and the ``@triton.autotune`` perf model). Each module has an
``export(problem, config, hw)``; ``EXPORTERS`` registers them (adding a target: one module and one line).
None of them imports the ecosystem itself.
"""
from __future__ import annotations

from typing import Any, Callable

from ..config import KernelConfig
from ..hardware import HardwareSpec
from ..problem import GemmProblem
from . import cutlass, ours, triton

EXPORTERS: dict[str, Callable[[GemmProblem, KernelConfig, HardwareSpec], Any]] = {
    "kernel_sm90": ours.export,
    "cutlass": cutlass.export,
    "triton": triton.export,
}


def exports(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> dict[str, Any]:
    """Everything a user can paste elsewhere, keyed by target; None where no mapping exists."""
    return {name: fn(problem, cfg, hw) for name, fn in EXPORTERS.items()}


__all__ = ["EXPORTERS", "exports"]
