"""Does the problem fit on the GPU at all? A property of (problem, GPU), not of a configuration.

A GEMM needs A, B and the output D resident in device memory (HBM) at their stored byte sizes, plus
the block-scale factors of the block-scaled kinds and the metadata of a sparse A. When they exceed the
GPU's HBM capacity (``hbm.size_bytes`` of the hardware file, from the datasheet) no configuration
can run it: the CLI refuses such a problem before checking, predicting or searching anything (one
line, exit status 2, like any other input the GPU cannot take), and ``perfmodel validate`` would only
fail at cudaMalloc. The prediction functions themselves stay total (they never raise for a
well-typed input); this check is the door in front of them.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import ProblemError
from ..hardware import HardwareSpec
from ..problem import GemmProblem

RULE = "hbm-capacity"


@dataclass(frozen=True)
class OperandBytes:
    a: int
    b: int
    d: int
    extra: int          # block-scale factors, sparse-A metadata

    @property
    def total(self) -> int:
        return self.a + self.b + self.d + self.extra


def operand_bytes(problem: GemmProblem) -> OperandBytes:
    """Bytes of A, B and D as stored in device memory (a batch counts every matrix)."""
    p = problem
    a_full = p.operand_bytes(p.a_dtype, p.m * p.k)
    a = a_full // 2 if p.sparse_a else a_full
    b = p.operand_bytes(p.b_dtype, p.k * p.n)
    d = p.m * p.n * p.out_dtype.bits // 8
    extra = p.m * p.k // 8 if p.sparse_a else 0                 # 2:4 metadata: 2 bits per kept element
    if p.scale_vec_size:                                        # one byte per scale_vec_size elements of A and B
        extra += -(-p.k // p.scale_vec_size) * (p.m + p.n)
    return OperandBytes(a * p.batch, b * p.batch, d * p.batch, extra * p.batch)


def _gb(n: int) -> str:
    return f"{n / 2**30:.3g} GiB"


def memory_violation(problem: GemmProblem, hw: HardwareSpec) -> str | None:
    """A one-line reason when the operands exceed the GPU's HBM, else None."""
    ob = operand_bytes(problem)
    if ob.total <= hw.hbm.size_bytes:
        return None
    parts = f"A {_gb(ob.a)} + B {_gb(ob.b)} + D {_gb(ob.d)}" + (f" + scales/metadata {_gb(ob.extra)}"
                                                                 if ob.extra else "")
    return (f"[{RULE}] problem {problem.shape_name()} needs {_gb(ob.total)} of operands ({parts}); "
            f"{hw.name} has {_gb(hw.hbm.size_bytes)} of HBM (hbm.size_bytes: {hw.sources.get('hbm.size_bytes', 'datasheet')})")


def require_fits(problem: GemmProblem, hw: HardwareSpec) -> None:
    """Raise ProblemError (one line) when the problem's operands do not fit in ``hw``'s HBM."""
    why = memory_violation(problem, hw)
    if why:
        raise ProblemError(why)


__all__ = ["OperandBytes", "RULE", "memory_violation", "operand_bytes", "require_fits"]
