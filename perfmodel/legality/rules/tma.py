"""TMA tensor maps for the A/B loads and the D store (cuTensorMapEncodeTiled, PTX ISA 9.0 §5.5).

Each operand tile is loaded as boxes whose dimension 0 is one swizzle span along the contiguous
extent (16 bytes, one core-matrix column, without swizzle) and whose other dimension is the tile's
other extent. So "inner box bytes <= swizzle span" holds by construction; what can still go wrong is
a box dimension above the limit, an inner box that is not a multiple of 16 bytes (a tile narrower
than the span), and misaligned global strides.
"""
from __future__ import annotations

from ...config import Epilogue, Swizzle
from ..registry import Ctx, rule
from ...problem import Major
from ._common import operands, padded_sub_byte, positive

_TMA_ALIGN_BYTES = 16          # cuTensorMapEncodeTiled: globalStrides multiple of 16; §5.5.3.1 box multiple of 16 B
_PADDED_ALIGN_BYTES = 32       # §9.7.9.25.5.1: .b4x16_p64/.b6x16_p32 strides 32 B aligned


@rule("tma-box-dim", "CUDA Driver API cuTensorMapEncodeTiled: boxDim[i] <= 256 (limit from the hardware file), not PTX",
      "every TMA box dimension (tile_m, tile_n/cta_group, tile_k, the inner swizzle-span box) <= the box limit")
def tma_box_dim(c: Ctx):
    if not positive(c):
        return
    lim = c.hw.tma.max_box_dim
    for op in operands(c):
        for what, n in (("inner", op.inner_box_elems), ("outer", op.outer)):
            if what == "outer" and c.facts.library_kernel:
                continue                   # a library kernel loads a tall tile as several boxes
            if n > lim:
                yield f"{op.name} TMA box {what} dimension {n:g} elements > {lim}"


@rule("tma-inner-box-bytes", "PTX ISA 9.0 §5.5.3.1 (bounding box a multiple of 16 B); cuTensorMapEncodeTiled (inner box <= swizzle span)",
      "the inner TMA box (one swizzle span, or the whole tile extent if narrower) is a multiple of 16 bytes")
def tma_inner_box_bytes(c: Ctx):
    if not positive(c):
        return
    for op in operands(c):
        b = op.inner_box_bytes
        if b % _TMA_ALIGN_BYTES:
            yield (f"{op.name} inner TMA box is {b:g} B ({op.contiguous} x {op.dtype.value}), "
                   f"not a multiple of 16 B")


def _global_strides(c: Ctx):
    """(operand, dtype, row stride in bytes) of the row-major views TMA walks in global memory."""
    p = c.problem
    a_cols = (p.k // 2 if p.sparse_a else p.k) if p.a_major is Major.K else p.m
    b_cols = p.k if p.b_major is Major.K else p.n
    if c.facts.tma_loads:                      # cp.async loads (Triton's pointer matmul) need no tensor map
        yield "A", p.a_dtype, a_cols * p.a_dtype.bits / 8
        yield "B", p.b_dtype, b_cols * p.b_dtype.bits / 8
    if c.cfg.epilogue is Epilogue.TMA_STORE:   # the direct epilogue stores from registers, no tensor map
        yield "D", p.out_dtype, p.n * p.out_dtype.bits / 8


@rule("tma-global-stride", "CUDA Driver API cuTensorMapEncodeTiled: globalStrides a multiple of 16 B (not PTX); 32 B for padded fp4/fp6, PTX ISA 9.0 §9.7.9.25.5.1",
      "global row strides (K x elem for K-major A/B, M or N x elem for MN-major, N x out for a TMA-stored D) are 16-byte aligned")
def tma_global_stride(c: Ctx):
    for name, dtype, stride in _global_strides(c):
        align = _PADDED_ALIGN_BYTES if name != "D" and padded_sub_byte(c, dtype) else _TMA_ALIGN_BYTES
        if stride % align:
            yield f"{name} global row stride {stride:g} B ({dtype.value}) is not a multiple of {align} B"


@rule("tma-subbyte-swizzle", "PTX ISA 9.0 §9.7.9.25.5.1 (box[0] exactly 64 B / 96 B; swizzle none or 128B)",
      "fp4/fp6 padded to bytes (kind::f8f6f4, mxf8f6f4) load 128 elements per box row: they need the 128B swizzle")
def tma_subbyte_swizzle(c: Ctx):
    for op in operands(c, with_epilogue=False):
        if padded_sub_byte(c, op.dtype) and op.swizzle is not Swizzle.B128:
            yield (f"{op.name} ({op.dtype.value}, padded to 8 bits) is loaded as 128-element box rows "
                   f"(64 B/96 B packed = 128 B in SMEM): needs swizzle 128, got {op.swizzle.value}")
