"""Kernel families: which kernel a configuration runs in. A family is a schedule over the model's
components (who issues the loads, how many warpgroups issue MMAs and how the tile splits between them,
the wait_group depth, persistence, CTAs per SM, the epilogue), never a formula of its own; the
simulation (``perfmodel.sim``) builds its processes from a family's ``Schedule``, and legality applies
the family's restriction rules beside the PTX ones. ``ours`` is our own warp-specialised kernel;
``triton-tma`` and ``triton-ptr`` are Triton's two matmuls on sm_90a; ``cublaslt`` is cuBLASLt's
nvjet kernels (algorithm 66) on sm_90a. Adding a family: one module and
one line in ``FAMILIES``.
"""
from __future__ import annotations

from ..errors import PerfmodelError
from . import cublaslt, ours, triton
from .cublaslt import CublasLtAlgo, CublasLtFamily
from .base import KernelFamily, Producer, Schedule, occupancy
from .triton import TritonFamily, TritonKnobs

FAMILIES: dict[str, KernelFamily] = {
    ours.FAMILY.name: ours.FAMILY,
    triton.TMA.name: triton.TMA,
    triton.PTR.name: triton.PTR,
    cublaslt.FAMILY.name: cublaslt.FAMILY,
}
DEFAULT = ours.FAMILY.name


class UnknownFamilyError(PerfmodelError):
    pass


def get_family(name: str | KernelFamily | None) -> KernelFamily:
    """The family of this name (None: ours)."""
    if isinstance(name, KernelFamily):
        return name
    fam = FAMILIES.get(name or DEFAULT)
    if fam is None:
        raise UnknownFamilyError(f"unknown kernel family {name!r}; known: {', '.join(FAMILIES)}")
    return fam


__all__ = ["CublasLtAlgo", "CublasLtFamily", "DEFAULT", "FAMILIES", "KernelFamily", "Producer", "Schedule", "TritonFamily", "TritonKnobs",
           "UnknownFamilyError", "get_family", "occupancy"]
