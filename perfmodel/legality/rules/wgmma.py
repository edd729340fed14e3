"""sm_90a wgmma.mma_async shapes and operand layouts (PTX ISA 9.0 §9.7.15).

The int8 quirk: the §9.7.15.2 shape table lists s8/u8 dense shapes up to m64n256k32, while the
§9.7.15.5.2 ``.shape`` syntax list for the integer variant stops at m64n224k32. We follow the shape
table (n240 and n256 legal; CUTLASS's SM90 GMMA atoms include 64x256x32 s8) and say so here.
"""
from __future__ import annotations

from ...config import mma_k_for
from ..registry import Ctx, rule
from ...problem import Major, MmaKind
from ._common import kind_name, positive, types_name

WGMMA_M = 64
_N_FLOAT = frozenset(range(8, 257, 8))                                   # f16, bf16, tf32, e4m3, e5m2
_N_INT8 = frozenset([8, 16, 24, 32] + list(range(48, 257, 16)))          # s8/u8 (n240/n256: see above)


def wgmma_n_set(kind: MmaKind) -> frozenset[int]:
    return _N_INT8 if kind is MmaKind.I8 else _N_FLOAT


@rule("wgmma-m", "PTX ISA 9.0 §9.7.15.2",
      "wgmma is always M=64 (M=128/256 are tcgen05 shapes, sm_100a only)")
def wgmma_m(c: Ctx):
    if c.sm90 and c.cfg.mma_m != WGMMA_M:
        yield f"wgmma M is always 64, got mma_m={c.cfg.mma_m} (M=128/256 instructions are tcgen05, sm_100a only)"


@rule("wgmma-n", "PTX ISA 9.0 §9.7.15.2",
      "wgmma N: 8..256 step 8 (f16/bf16/tf32/fp8); s8/u8: 8, 16, 24, 32, then 48..256 step 16")
def wgmma_n(c: Ctx):
    if not c.sm90 or c.problem.kind.block_scaled:
        return
    n = c.cfg.mma_n
    if n not in wgmma_n_set(c.problem.kind):
        rng = "8, 16, 24, 32, 48..256 step 16" if c.problem.kind is MmaKind.I8 else "8..256 step 8"
        yield f"wgmma with {types_name(c)} has N in {{{rng}}}, got mma_n={n}"


@rule("wgmma-k", "PTX ISA 9.0 §9.7.15.2 / §9.7.15.6.3 (sparse)",
      "wgmma K is 32 bytes of the operand type (16 f16/bf16, 8 tf32, 32 fp8/int8), doubled for sparse A")
def wgmma_k_rule(c: Ctx):
    if not c.sm90 or c.problem.kind.block_scaled:
        return
    k = mma_k_for(c.problem)   # 32 bytes of the operand type, doubled for sparse A
    if c.cfg.mma_k != k:
        sp = " sparse" if c.problem.sparse_a else ""
        yield f"wgmma{sp} with {types_name(c)} has K={k}, got mma_k={c.cfg.mma_k}"


@rule("wgmma-major", "PTX ISA 9.0 §9.7.15.5.2 (imm-trans-a/b)",
      "wgmma transposes (MN-major operands) only for f16/bf16; tf32, fp8 and int8 must be K-major")
def wgmma_major(c: Ctx):
    if not c.sm90 or c.problem.kind is MmaKind.F16:
        return
    for name, major in (("A", c.problem.a_major), ("B", c.problem.b_major)):
        if major is Major.MN:
            yield f"wgmma cannot transpose {kind_name(c)} ({types_name(c)}) operands: {name} must be K-major"


@rule("wgmma-consumer-split", "PTX ISA 9.0 §9.7.15.1 (warpgroup) / §9.7.15.2 (M=64)",
      "sm_90a consumer warpgroups split tile_m into equal multiples of 64 rows")
def wgmma_consumer_split(c: Ctx):
    if not (c.sm90 and positive(c)) or not c.cfg.tile_m % (WGMMA_M * c.cfg.consumers):
        return
    if c.facts.library_kernel and c.cfg.tile_m % WGMMA_M == 0:
        return                                 # the library's own split (families.cublaslt.issuer_split)
    if c.facts.split_n and c.cfg.tile_m % WGMMA_M == 0 and c.cfg.consumers % (c.cfg.tile_m // WGMMA_M) == 0 \
            and c.cfg.tile_n % (8 * c.cfg.consumers // (c.cfg.tile_m // WGMMA_M)) == 0:
        return                                 # warpgroups side by side along N (Triton's layout)
    yield (f"tile_m={c.cfg.tile_m} does not split into {c.cfg.consumers} consumer warpgroup(s) "
               f"of a multiple of 64 rows each")
