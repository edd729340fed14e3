"""Operand, accumulator and scale types: which MMA kinds exist on which target, and how they combine.

Sparse A exists for every kind on its own target (wgmma.sp: f16/bf16, tf32, e4m3/e5m2, s8/u8,
§9.7.15.6.3; tcgen05.mma.sp: every kind, §9.7.16.10.8), so there is no separate "sparse kind" rule;
the sparse shape facts (K doubles, block-scaled kinds need M=256 with cta_group::2) live with the
shape rules in wgmma.py and tcgen05.py.
"""
from __future__ import annotations

from ..registry import Ctx, rule
from ...problem import DType, MmaKind, ScaleType
from ._common import kind_name, types_name

# wgmma (sm_90a) multiplicand types, PTX ISA 9.0 §9.7.15.3
_WGMMA_TYPES = {DType.F16, DType.BF16, DType.TF32, DType.E4M3, DType.E5M2, DType.S8, DType.U8}

# Accumulator types per kind: wgmma §9.7.15.3, tcgen05 §9.7.16.2.1 (Table 41)
_ACC = {
    MmaKind.TF32: {DType.F32},
    MmaKind.F8F6F4: {DType.F16, DType.F32},
    MmaKind.I8: {DType.S32},
    MmaKind.MXF8F6F4: {DType.F32},
    MmaKind.MXF4: {DType.F32},
    MmaKind.MXF4NVF4: {DType.F32},
}


@rule("kind-arch", "PTX ISA 9.0 §9.7.15.3 (wgmma types) / §9.7.16.10 (tcgen05 kinds)",
      "sm_90a wgmma takes only f16/bf16, tf32, e4m3/e5m2 and s8/u8; fp6, fp4 and block scaling are tcgen05-only")
def kind_arch(c: Ctx):
    if not c.sm90:
        return
    p = c.problem
    if p.kind.block_scaled:
        yield f"{kind_name(c)} (block-scaled {types_name(c)}) exists only in tcgen05.mma (sm_100a); {c.hw.name} is sm_90a"
        return
    bad = sorted({d.value for d in (p.a_dtype, p.b_dtype) if d not in _WGMMA_TYPES})
    if bad:
        yield f"wgmma has no {'/'.join(bad)} operands (fp6/fp4 exist only in tcgen05 kind::f8f6f4, sm_100a)"


@rule("acc-dtype", "PTX ISA 9.0 §9.7.15.3 / §9.7.16.2.1 (Table 41)",
      "accumulator type per kind: f16 in -> f16/f32, bf16/tf32 -> f32, f8f6f4 -> f16/f32, i8 -> s32, mx kinds -> f32")
def acc_dtype(c: Ctx):
    p = c.problem
    if p.kind is MmaKind.F16:
        allowed = {DType.F16, DType.F32} if p.a_dtype is DType.F16 else {DType.F32}
    else:
        allowed = _ACC[p.kind]
    if p.acc_dtype not in allowed:
        yield (f"{kind_name(c)} with {types_name(c)} accumulates in {'/'.join(sorted(d.value for d in allowed))}, "
               f"not {p.acc_dtype.value}")


@rule("scale-type", "PTX ISA 9.0 §9.7.16.10.7.1 (Table 57)",
      "mxf8f6f4 and mxf4 scale with ue8m0; only mxf4nvf4 takes ue4m3")
def scale_type(c: Ctx):
    p = c.problem
    if p.kind in (MmaKind.MXF8F6F4, MmaKind.MXF4) and p.scale_type is not ScaleType.UE8M0:
        st = p.scale_type.value if p.scale_type else "none"
        yield f"{kind_name(c)} needs ue8m0 scale factors, got {st}"


@rule("scale-vec", "PTX ISA 9.0 §9.7.16.10.7.1 (Tables 56-57)",
      "scale vector: mxf8f6f4 1X/block32; mxf4 2X/block32; mxf4nvf4 block32 or block16 with ue8m0, block16 only with ue4m3")
def scale_vec(c: Ctx):
    p = c.problem
    if not p.kind.block_scaled:
        return
    if p.kind is MmaKind.MXF4NVF4:
        allowed = (16,) if p.scale_type is ScaleType.UE4M3 else (16, 32)
    else:
        allowed = (32,)
    if p.scale_vec_size not in allowed:
        yield (f"{kind_name(c)} with {p.scale_type.value if p.scale_type else 'no'} scales takes block"
               f"{'/block'.join(str(a) for a in allowed)}, got one scale per {p.scale_vec_size} K elements")
