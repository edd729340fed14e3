"""sm_100a tcgen05.mma shapes, block-scaled and sparse variants, transposes (PTX ISA 9.0 §9.7.16).

Not modelled: K=96 for mxf4/mxf4nvf4 (sm_103a only, §9.7.16.2.1.1) and ``.ws`` (the configuration
has no weight-stationary knob; with cta_group::2 it would be invalid for every kind anyway).
"""
from __future__ import annotations

from ...config import mma_k_for
from ..registry import Ctx, rule
from ...problem import Major, MmaKind
from ._common import SUB_BYTE, kind_name, types_name

_MXF4_KINDS = (MmaKind.MXF4, MmaKind.MXF4NVF4)


def tcgen05_m_set(c: Ctx) -> tuple[int, ...]:
    """Table 41: M per cta_group; block-scaled kinds: 128 only with ::1, and 256 only when sparse with ::2."""
    kind, cg = c.problem.kind, c.cfg.cta_group
    if cg == 2:
        return (256,) if (kind.block_scaled and c.problem.sparse_a) else (128, 256)
    return (128,) if kind.block_scaled else (64, 128)


def tcgen05_n_ok(kind: MmaKind, cta_group: int, n: int) -> bool:
    if kind is MmaKind.I8:
        if cta_group == 2:
            return 32 <= n <= 256 and n % 32 == 0
        return n in (8, 16, 24, 32) or (48 <= n <= 256 and n % 16 == 0)
    step = 16 if cta_group == 2 else 8
    return step <= n <= 256 and n % step == 0


@rule("tcgen05-m", "PTX ISA 9.0 §9.7.16.2.1 (Table 41)",
      "tcgen05.mma M: 64 or 128 with cta_group::1, 128 or 256 with cta_group::2")
def tcgen05_m(c: Ctx):
    if not c.sm100 or c.cfg.cta_group not in (1, 2) or c.problem.kind.block_scaled:
        return
    allowed = tcgen05_m_set(c)
    if c.cfg.mma_m not in allowed:
        yield f"tcgen05.mma cta_group::{c.cfg.cta_group} has M in {allowed}, got mma_m={c.cfg.mma_m}"


@rule("tcgen05-m-block-scaled", "PTX ISA 9.0 §9.7.16.2.1 (Table 41)",
      "block-scaled kinds: M=128 only with cta_group::1; with ::2 M=128/256 dense, M=256 only when sparse")
def tcgen05_m_block_scaled(c: Ctx):
    if not c.sm100 or c.cfg.cta_group not in (1, 2) or not c.problem.kind.block_scaled:
        return
    allowed = tcgen05_m_set(c)
    if c.cfg.mma_m not in allowed:
        sp = "sparse " if c.problem.sparse_a else ""
        yield (f"{sp}{kind_name(c)} with cta_group::{c.cfg.cta_group} has M in {allowed}, "
               f"got mma_m={c.cfg.mma_m}")


@rule("tcgen05-n", "PTX ISA 9.0 §9.7.16.2.1 (Table 41)",
      "tcgen05.mma N: 8..256 step 8 (::1), 16..256 step 16 (::2); i8: 8,16,24,32,48..256 step 16 (::1), 32..256 step 32 (::2)")
def tcgen05_n(c: Ctx):
    if not c.sm100 or c.cfg.cta_group not in (1, 2):
        return
    if not tcgen05_n_ok(c.problem.kind, c.cfg.cta_group, c.cfg.mma_n):
        yield f"{kind_name(c)} cta_group::{c.cfg.cta_group} has no N={c.cfg.mma_n}"


@rule("tcgen05-k", "PTX ISA 9.0 §9.7.16.2.2 (Table 41)",
      "tcgen05.mma K is implied by the kind: 32 bytes of operand (mxf4 kinds 64), doubled for sparse A")
def tcgen05_k_rule(c: Ctx):
    if not c.sm100:
        return
    k = mma_k_for(c.problem)   # K is implied by kind and sparsity (the same helper derive() uses)
    if c.cfg.mma_k != k:
        sp = " sparse" if c.problem.sparse_a else ""
        yield f"{kind_name(c)}{sp} ({types_name(c)}) has K={k}, got mma_k={c.cfg.mma_k} (K=96 needs sm_103a)"


@rule("tcgen05-m-tile", "perfmodel convention (config.py) on PTX ISA 9.0 §9.7.16.10.5 (data-path layouts)",
      "on sm_100a one MMA covers the CTA (pair) tile: mma_m == tile_m x cta_group")
def tcgen05_m_tile(c: Ctx):
    if c.sm100 and c.cfg.cta_group in (1, 2) and c.cfg.mma_m != c.cfg.tile_m * c.cfg.cta_group:
        yield (f"mma_m={c.cfg.mma_m} must equal tile_m x cta_group = {c.cfg.tile_m} x {c.cfg.cta_group} "
               f"(each CTA of the group owns tile_m rows of the MMA)")


@rule("tcgen05-transpose", "PTX ISA 9.0 §9.7.16.10.1 (Table 51) / §9.7.16.10.3 (Table 54)",
      "mxf4/mxf4nvf4 cannot transpose, and 4-bit/6-bit operands are K-major only")
def tcgen05_transpose(c: Ctx):
    if not c.sm100:
        return
    p = c.problem
    for name, major, dt in (("A", p.a_major, p.a_dtype), ("B", p.b_major, p.b_dtype)):
        if major is not Major.MN:
            continue
        if p.kind in _MXF4_KINDS:
            yield f"{kind_name(c)} cannot transpose: {name} must be K-major"
        elif dt in SUB_BYTE:
            yield f"{dt.value} ({dt.bits}-bit) operands are K-major only: {name} is MN-major"


@rule("tcgen05-n-transpose-8bit", "PTX ISA 9.0 §9.7.16.10.1 (Table 52)",
      "8-bit MN-major (transposed) B: N 16..256 step 16 with cta_group::1, 32..256 step 32 with ::2")
def tcgen05_n_transpose_8bit(c: Ctx):
    p = c.problem
    if not c.sm100 or p.b_major is not Major.MN or p.b_dtype.bits != 8 or c.cfg.cta_group not in (1, 2):
        return
    step = 16 * c.cfg.cta_group
    n = c.cfg.mma_n
    if not (step <= n <= 256 and n % step == 0):
        yield f"8-bit MN-major B with cta_group::{c.cfg.cta_group} needs N in {step}..256 step {step}, got N={n}"
