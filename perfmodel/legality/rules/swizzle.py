"""Shared-memory swizzle modes per architecture, operand major-ness and tile extent.

"No swizzle" is the interleaved core-matrix layout of §9.7.15.5.1.6 / §9.7.16.10.6 (8 rows x 16 B
atoms), loaded as 16-byte-wide TMA boxes; the TMA *interleave* layouts of §5.5.6 (3D-5D tensors,
NC/8DHWC8) are not used. The 96B swizzle exists only on sm_103a, which is not modelled (no enum value).
"""
from __future__ import annotations

from ...config import Swizzle
from ..registry import Ctx, rule
from ...problem import DType, Major, MmaKind
from ._common import operands, positive


@rule("swizzle-atom32-arch", "PTX ISA 9.0 §9.7.9.26 (.swizzle_atomicity: sm_100a+) / §9.7.15.5.1.11 (wgmma descriptor has no such mode)",
      "128B swizzle with 32B atomicity exists only on sm_100a (TMA and tcgen05 descriptors)")
def swizzle_atom32_arch(c: Ctx):
    if c.sm100:
        return
    for name, sw in (("A", c.cfg.swizzle_a), ("B", c.cfg.swizzle_b)):
        if sw is Swizzle.B128_ATOM32:
            yield f"{name} uses 128B swizzle with 32B atomicity, which {c.hw.arch.value} has not (sm_100a only)"


@rule("swizzle-atom32-use", "PTX ISA 9.0 §9.7.16.10.1 / §9.7.16.10.3 (Table 54) / §9.7.16.10.6",
      "128B swizzle with 32B atomicity is only for MN-major 32-bit (tf32) operands")
def swizzle_atom32_use(c: Ctx):
    p = c.problem
    for name, sw, major, dt in (("A", c.cfg.swizzle_a, p.a_major, p.a_dtype), ("B", c.cfg.swizzle_b, p.b_major, p.b_dtype)):
        if sw is not Swizzle.B128_ATOM32:
            continue
        if major is not Major.MN:
            yield f"{name} is K-major: 128B swizzle with 32B atomicity has only an MN-major atom"
        elif dt.bits != 32:
            yield f"{name} is MN-major {dt.value} ({dt.bits}-bit): transposes of 8/16-bit types exclude 32B atomicity"


@rule("tf32-mn-major-swizzle", "PTX ISA 9.0 §9.7.16.10.1 / §9.7.16.10.3 (Table 54)",
      "on tcgen05, MN-major (transposed) tf32 operands need 128B swizzle with 32B atomicity")
def tf32_mn_major_swizzle(c: Ctx):
    p = c.problem
    if not c.sm100 or p.kind is not MmaKind.TF32:
        return
    for name, sw, major, dt in (("A", c.cfg.swizzle_a, p.a_major, p.a_dtype), ("B", c.cfg.swizzle_b, p.b_major, p.b_dtype)):
        if major is Major.MN and dt is DType.TF32 and sw is not Swizzle.B128_ATOM32:
            yield f"{name} is MN-major tf32: needs swizzle 128a32, got {sw.value}"


@rule("swizzle-extent", "PTX ISA 9.0 §9.7.15.5.1.6 (Table 40) / §9.7.16.10.6: a swizzle atom is 8 rows x the span in bytes",
      "the tile's contiguous extent in bytes must be a whole number (>= 1) of swizzle spans")
def swizzle_extent(c: Ctx):
    if not positive(c):
        return
    for op in operands(c, with_epilogue=False):
        ext, span = op.extent_bytes, op.span_bytes
        if ext < span or ext % span:
            along = "K" if op.major is Major.K else ("M" if op.name == "A" else "N")
            yield (f"{op.name} tile is {ext:g} B along {along} ({op.contiguous} x {op.dtype.value}): "
                   f"not a multiple of the {span} B swizzle span (swizzle {op.swizzle.value})")
