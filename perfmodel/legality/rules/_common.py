"""Small helpers shared by the rule modules: positivity guards and per-operand TMA/SMEM geometry.

Rules must never raise on a well-typed input (however absurd its numbers), so every helper here
tolerates zero or negative extents; rules that need positive extents call ``positive(c)`` first and
leave the complaint to the ``config-positive`` rule.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...config import EPILOGUE_SUBTILE_N, Epilogue, Swizzle
from ..registry import Ctx
from ...problem import DType, Major, MmaKind

SHAPE_FIELDS = ("tile_m", "tile_n", "tile_k", "mma_m", "mma_n", "mma_k", "cluster_m", "cluster_n",
                "consumers", "group_size")
SUB_BYTE = (DType.E2M1, DType.E3M2, DType.E2M3)
PADDED_KINDS = (MmaKind.F8F6F4, MmaKind.MXF8F6F4)   # fp4/fp6 padded to 1 byte in SMEM (§9.7.16.10.4)


def positive(c: Ctx) -> bool:
    """All extents and counts a shape rule divides by are >= 1 (else config-positive reports it)."""
    return all(getattr(c.cfg, f) >= 1 for f in SHAPE_FIELDS) and c.cfg.cta_group in (1, 2)


def per_cta_n(c: Ctx) -> int:
    """Columns of B one CTA loads: tile_n, or half of it in a cta_group::2 pair."""
    return c.cfg.tile_n // c.cfg.cta_group if c.cfg.cta_group in (1, 2) else c.cfg.tile_n


def padded_sub_byte(c: Ctx, dtype: DType) -> bool:
    """fp4/fp6 under kind::f8f6f4 / mxf8f6f4: loaded by TMA as .b4x16_p64 / .b6x16_p32."""
    return dtype in SUB_BYTE and c.problem.kind in PADDED_KINDS


@dataclass(frozen=True)
class Operand:
    """One TMA-loaded operand tile of one CTA, as the kernel lays it out in shared memory."""
    name: str                 # "A", "B" or "D"
    dtype: DType
    major: Major
    swizzle: Swizzle | None   # None: the epilogue tile (no MMA swizzle constraint)
    contiguous: int           # elements along the contiguous (leading) dimension of the tile
    outer: int                # elements along the other dimension
    smem_elem_bytes: float    # bytes per element in shared memory (padding included)

    @property
    def extent_bytes(self) -> float:
        return self.contiguous * self.smem_elem_bytes

    @property
    def span_bytes(self) -> int:
        return self.swizzle.span_bytes if self.swizzle is not None else 16

    @property
    def inner_box_bytes(self) -> float:
        """TMA box dimension 0 in bytes: one swizzle span (a 16-byte core-matrix column without
        swizzle), or the whole extent when the tile is narrower than that."""
        if self.swizzle is None:
            return self.extent_bytes
        return min(self.extent_bytes, self.span_bytes)

    @property
    def inner_box_elems(self) -> float:
        return self.inner_box_bytes / self.smem_elem_bytes


def operands(c: Ctx, with_epilogue: bool = True) -> list[Operand]:
    """The A and B tiles one CTA loads per stage (and the TMA-store epilogue tile)."""
    p, cfg = c.problem, c.cfg
    a_k = p.a_major is Major.K
    b_k = p.b_major is Major.K
    a_tile_k = cfg.tile_k // 2 if p.sparse_a else cfg.tile_k   # sparse A is stored M x K/2
    ops = [
        Operand("A", p.a_dtype, p.a_major, cfg.swizzle_a,
                a_tile_k if a_k else cfg.tile_m, cfg.tile_m if a_k else a_tile_k, p.a_elem_bytes),
        Operand("B", p.b_dtype, p.b_major, cfg.swizzle_b,
                cfg.tile_k if b_k else per_cta_n(c), per_cta_n(c) if b_k else cfg.tile_k, p.b_elem_bytes),
    ] if c.facts.tma_loads else []     # a family loading A/B with cp.async has no TMA boxes for them
    if with_epilogue and cfg.epilogue is Epilogue.TMA_STORE:
        ops.append(Operand("D", p.out_dtype, Major.K, None, min(cfg.tile_n, EPILOGUE_SUBTILE_N), cfg.tile_m,
                           p.out_dtype.bits / 8))
    return ops


def kind_name(c: Ctx) -> str:
    return f"kind::{c.problem.kind.value}"


def types_name(c: Ctx) -> str:
    p = c.problem
    return p.a_dtype.value if p.a_dtype is p.b_dtype else f"{p.a_dtype.value}x{p.b_dtype.value}"
