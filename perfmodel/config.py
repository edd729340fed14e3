"""Kernel configuration: tile, MMA instruction, CTA group, cluster, pipeline, scheduling, epilogue.

Conventions (shared by the model, the legality rules and the sm_90a kernel):
- ``tile_m x tile_n x tile_k`` is the tile of ONE CTA (one SM). With ``cta_group=2`` (sm_100a) the
  CTA pair issues one MMA of M = 2 * tile_m, N = tile_n; each CTA loads its tile_m rows of A and
  tile_n / 2 columns of B (CUTLASS practice) and owns a tile_m x tile_n output tile.
- On sm_90a, ``consumers`` warpgroups split tile_m; each issues wgmma m64nNk* with N = tile_n.
  On sm_100a, ``consumers`` is the number of epilogue warpgroups (the MMA is issued by one thread).
- ``group_size`` is the width of the grouped ("swizzled") tile order along the raster dimension;
  1 means plain row/column raster.
- The TMA-store epilogue stages ``tile_m x min(tile_n, EPILOGUE_SUBTILE_N)`` output elements in
  shared memory; the direct epilogue stores from registers and stages nothing.
"""
from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass

from .errors import ConfigError
from .hardware import Arch, HardwareSpec
from .problem import DType, GemmProblem, Major, MmaKind

EPILOGUE_SUBTILE_N = 64
MAX_DERIVED_STAGES = 12
BARRIER_BYTES = 8


class Swizzle(enum.Enum):
    NONE = "0"
    B32 = "32"
    B64 = "64"
    B128 = "128"
    B128_ATOM32 = "128a32"   # 128B swizzle with 32B atomicity: sm_100 MN-major only

    @property
    def span_bytes(self) -> int:
        return {"0": 16, "32": 32, "64": 64, "128": 128, "128a32": 128}[self.value]


class Raster(enum.Enum):
    M = "m"   # walk tiles along M first (column of output tiles), reuse B
    N = "n"   # walk tiles along N first, reuse A


class Epilogue(enum.Enum):
    DIRECT = "dir"      # registers -> global
    TMA_STORE = "tma"   # registers -> shared memory -> TMA store


class StoreLayout(enum.Enum):
    """How a direct-store epilogue's ``st.global`` instructions lay out their bytes (a kernel family's code generation,
    not a configuration knob)."""
    FRAGMENT = "fragment"     # from the wgmma accumulator fragments: 4 bytes a thread, a warp's store 8 rows x 16 bytes
    #                           (our kernel's epilogue_direct)
    COALESCED = "coalesced"   # converted through shared memory first: 16 bytes a thread (st.global.v4.b32), a warp's
    #                           store whole rows of 128-byte lines (Triton's pointer matmul, docs/triton-codegen.md)


@dataclass(frozen=True)
class KernelConfig:
    tile_m: int
    tile_n: int
    tile_k: int
    mma_m: int
    mma_n: int
    mma_k: int
    cta_group: int = 1
    cluster_m: int = 1
    cluster_n: int = 1
    multicast: bool = False
    stages: int = 4
    swizzle_a: Swizzle = Swizzle.B128
    swizzle_b: Swizzle = Swizzle.B128
    consumers: int = 2
    acc_buffers: int = 1
    persistent: bool = True
    raster: Raster = Raster.M
    group_size: int = 8
    epilogue: Epilogue = Epilogue.TMA_STORE

    @property
    def cluster_size(self) -> int:
        return self.cluster_m * self.cluster_n

    @property
    def name(self) -> str:
        return (f"{self.tile_m}x{self.tile_n}x{self.tile_k}_i{self.mma_m}x{self.mma_n}x{self.mma_k}"
                f"_cg{self.cta_group}_cl{self.cluster_m}x{self.cluster_n}_mc{int(self.multicast)}"
                f"_s{self.stages}_sw{self.swizzle_a.value}-{self.swizzle_b.value}_wg{self.consumers}"
                f"_acc{self.acc_buffers}_{'p' if self.persistent else 'np'}{self.raster.value}"
                f"{self.group_size}_e{self.epilogue.value}")

    @classmethod
    def from_name(cls, name: str) -> "KernelConfig":
        m = _NAME_RE.match(name.strip())
        if not m:
            raise ConfigError(f"not a canonical configuration name: '{name}' "
                              f"(expected e.g. {_EXAMPLE_NAME})")
        g = m.groupdict()
        return cls(tile_m=int(g["tm"]), tile_n=int(g["tn"]), tile_k=int(g["tk"]),
                   mma_m=int(g["im"]), mma_n=int(g["in"]), mma_k=int(g["ik"]),
                   cta_group=int(g["cg"]), cluster_m=int(g["cm"]), cluster_n=int(g["cn"]),
                   multicast=g["mc"] == "1", stages=int(g["s"]), swizzle_a=Swizzle(g["swa"]),
                   swizzle_b=Swizzle(g["swb"]), consumers=int(g["wg"]), acc_buffers=int(g["acc"]),
                   persistent=g["p"] == "p", raster=Raster(g["r"]), group_size=int(g["g"]),
                   epilogue=Epilogue(g["e"]))

    def replace(self, **changes) -> "KernelConfig":
        return dataclasses.replace(self, **changes)


_SW = r"0|32|64|128a32|128"
_NAME_RE = re.compile(
    r"^(?P<tm>\d+)x(?P<tn>\d+)x(?P<tk>\d+)_i(?P<im>\d+)x(?P<in>\d+)x(?P<ik>\d+)_cg(?P<cg>\d+)"
    r"_cl(?P<cm>\d+)x(?P<cn>\d+)_mc(?P<mc>[01])_s(?P<s>\d+)_sw(?P<swa>" + _SW + r")-(?P<swb>" + _SW +
    r")_wg(?P<wg>\d+)_acc(?P<acc>\d+)_(?P<p>p|np)(?P<r>[mn])(?P<g>\d+)_e(?P<e>dir|tma)$")
_EXAMPLE_NAME = "128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma"


# ---------------------------------------------------------------------------- resource accounting
def mma_k_for(problem: GemmProblem) -> int:
    """K of one MMA instruction: 32 bytes of K per kind (PTX §9.7.15.2, §9.7.16.2.2); sparse doubles it."""
    kind = problem.kind
    if kind in (MmaKind.MXF4, MmaKind.MXF4NVF4):
        k = 64
    else:
        k = int(32 // problem.a_elem_bytes)
    return 2 * k if problem.sparse_a else k


def a_stage_bytes(problem: GemmProblem, cfg: KernelConfig) -> int:
    b = problem.operand_bytes(problem.a_dtype, cfg.tile_m * cfg.tile_k)
    return b // 2 if problem.sparse_a else b


def b_stage_bytes(problem: GemmProblem, cfg: KernelConfig) -> int:
    """B bytes loaded by ONE CTA per stage (half of B's N-extent with cta_group::2)."""
    return problem.operand_bytes(problem.b_dtype, (cfg.tile_n // cfg.cta_group) * cfg.tile_k)


def scale_stage_bytes(problem: GemmProblem, cfg: KernelConfig) -> int:
    if not problem.scale_vec_size:
        return 0
    per_k = -(-cfg.tile_k // problem.scale_vec_size)
    return (cfg.tile_m + cfg.tile_n // cfg.cta_group) * per_k


def stage_bytes(problem: GemmProblem, cfg: KernelConfig) -> int:
    return a_stage_bytes(problem, cfg) + b_stage_bytes(problem, cfg) + scale_stage_bytes(problem, cfg)


def epilogue_smem_bytes(problem: GemmProblem, cfg: KernelConfig) -> int:
    if cfg.epilogue is Epilogue.DIRECT:
        return 0
    return cfg.tile_m * min(cfg.tile_n, EPILOGUE_SUBTILE_N) * problem.out_dtype.bits // 8


def barrier_bytes(cfg: KernelConfig) -> int:
    # full + empty per stage, full + empty per accumulator buffer, plus a TMEM-address slot
    return BARRIER_BYTES * (2 * cfg.stages + 2 * cfg.acc_buffers) + 16


def smem_bytes(problem: GemmProblem, cfg: KernelConfig) -> int:
    """Dynamic shared memory of one CTA: all stages + epilogue staging + barriers (1 KiB aligned)."""
    raw = cfg.stages * stage_bytes(problem, cfg) + epilogue_smem_bytes(problem, cfg) + barrier_bytes(cfg)
    return raw + 1024   # alignment slack: 128B-swizzled tiles must start on a 1024-byte boundary


def acc_registers_per_thread(problem: GemmProblem, cfg: KernelConfig) -> int:
    """sm_90a: f32/s32 accumulator registers per consumer thread (N/2 per m64 wgmma, PTX §9.7.15)."""
    # A warpgroup's 128 threads hold its share of the tile: tile_m x tile_n / consumers values, one 32-bit
    # register each (two f16 per register), whether the warpgroups split the tile along M (ours) or N.
    per_instr = cfg.mma_n // 2 if problem.acc_dtype.bits == 32 else cfg.mma_n // 4
    share = cfg.tile_m * cfg.tile_n // (max(cfg.consumers, 1) * 128)
    return max(share if problem.acc_dtype.bits == 32 else share // 2, per_instr)


def tmem_columns(problem: GemmProblem, cfg: KernelConfig) -> int:
    """sm_100a TMEM columns: accumulators (N columns each, unpacked, §9.7.16.10.4.1) x buffers,
    plus scale factors for block-scaled kinds (one column per 32-bit word, per stage in flight),
    plus the sparsity metadata of sparse A (also in TMEM, §9.7.16.10.8: a 4-bit index per 4
    elements for 2:4, per 2 for tf32 1:2, per 8 for mxf4 4:8; one K-tile in flight)."""
    acc = cfg.mma_n * cfg.acc_buffers
    if problem.scale_vec_size:
        per_k = -(-cfg.tile_k // problem.scale_vec_size)
        acc += 2 * (-(-per_k // 4)) * 4   # SFA + SFB, 4 scale bytes per column, 4-column granules
    if problem.sparse_a:
        group = {MmaKind.TF32: 2, MmaKind.MXF4: 8, MmaKind.MXF4NVF4: 8}.get(problem.kind, 4)
        acc += -(-max(cfg.tile_k, 0) * 4 // group // 32)   # metadata bits per row / 32 bits per column
    return acc


def tmem_alloc_columns(columns: int) -> int:
    """tcgen05.alloc takes a power of two in [32, 512] (PTX §9.7.16.7.1)."""
    n = 32
    while n < columns:
        n *= 2
    return n


# ---------------------------------------------------------------------------- derivation
@dataclass(frozen=True)
class Derived:
    config: KernelConfig
    notes: tuple[str, ...]     # how each omitted knob was derived, for users to read


def _swizzle_for(extent_bytes: float) -> Swizzle:
    """The largest swizzle span that tiles the contiguous extent exactly (DeepGEMM/CUTLASS practice)."""
    for sw in (Swizzle.B128, Swizzle.B64, Swizzle.B32):
        if extent_bytes >= sw.span_bytes and extent_bytes % sw.span_bytes == 0:
            return sw
    return Swizzle.NONE


def _derive_swizzle(problem: GemmProblem, sm100: bool, tm: int, tn: int, tk: int,
                    cta_group: int) -> tuple[Swizzle, Swizzle, str]:
    a_k = tk // 2 if problem.sparse_a else tk   # sparse A is stored M x K/2
    a_ext = (a_k if problem.a_major is Major.K else tm) * problem.a_elem_bytes
    b_ext = (tk if problem.b_major is Major.K else tn // max(cta_group, 1)) * problem.b_elem_bytes
    sw_a, sw_b = _swizzle_for(a_ext), _swizzle_for(b_ext)
    if sm100 and problem.a_dtype.bits == 32 and problem.a_major is Major.MN:
        sw_a = Swizzle.B128_ATOM32
    if sm100 and problem.b_dtype.bits == 32 and problem.b_major is Major.MN:
        sw_b = Swizzle.B128_ATOM32
    note = (f"swizzle={sw_a.value}/{sw_b.value} (from the contiguous extent: A {a_ext:g} B, B {b_ext:g} B; "
            f"largest span that divides it{'; MN-major 32-bit operands take 128a32 on sm_100a' if sm100 else ''})")
    return sw_a, sw_b, note


def _derive_acc_buffers(problem: GemmProblem, hw: HardwareSpec, cfg: KernelConfig) -> tuple[int, str]:
    """Double-buffer the TMEM accumulator when two accumulators and the scale factors still fit."""
    if hw.arch is not Arch.SM100A:
        return 1, "acc_buffers=1 (accumulators live in registers)"
    two = tmem_alloc_columns(tmem_columns(problem, cfg.replace(acc_buffers=2)))
    n = 2 if two <= hw.tmem.columns else 1
    return n, (f"acc_buffers={n} (double-buffer the TMEM accumulator when 2 x N columns + scale factors + sparse metadata, "
               f"rounded to a power of two, fit: {two} of {hw.tmem.columns} columns)")


def _derive_stages(problem: GemmProblem, hw: HardwareSpec, cfg: KernelConfig) -> tuple[int, str]:
    free = hw.smem.per_block_optin_bytes - smem_bytes(problem, cfg.replace(stages=0))
    per = stage_bytes(problem, cfg)
    fit = free // per if per > 0 else 0
    k_tiles = -(-problem.k // cfg.tile_k)
    stages = max(1, min(fit, MAX_DERIVED_STAGES, max(k_tiles, 2)))
    return stages, (f"stages={stages} (shared memory left after epilogue and barriers: {free} B / "
                    f"{per} B per stage = {fit}, capped at {MAX_DERIVED_STAGES} and at the K-tiles)")


def _derive_schedule(notes: list[str], persistent, raster, group_size, epilogue):
    """Scheduling and epilogue defaults (CUTLASS's persistent tile scheduler with grouped raster)."""
    if persistent is None:
        persistent = True
        notes.append("persistent=on (default: one CTA per SM, static tile scheduler)")
    if raster is None:
        raster = "m"
        notes.append("raster=m (default)")
    if group_size is None:
        group_size = 8
        notes.append("group_size=8 (grouped tile order, 8 tiles wide)")
    if epilogue is None:
        epilogue = "tma"
        notes.append("epilogue=tma (registers -> shared memory -> TMA store)")
    return persistent, raster, group_size, epilogue


def derive(problem: GemmProblem, hw: HardwareSpec, tile: tuple[int, int, int] | None = None, *,
           stages: int | None = None, swizzle: int | str | None = None, cluster: tuple[int, int] | None = None,
           cta_group: int | None = None, consumers: int | None = None, persistent: bool | None = None,
           raster: str | None = None, group_size: int | None = None, multicast: bool | None = None,
           acc_buffers: int | None = None, epilogue: str | None = None,
           mma: tuple[int, int, int] | None = None) -> Derived:
    """Fill in every omitted knob the way kernel libraries do, and say how."""
    notes: list[str] = []
    sm100 = hw.arch is Arch.SM100A
    if tile is None:
        tile = (128, 256, int(128 // problem.a_elem_bytes) * (2 if problem.sparse_a else 1))
        notes.append(f"tile={tile[0]}x{tile[1]}x{tile[2]} (default: 128x256, 128 bytes of stored A along K)")
    tm, tn, tk = tile
    if tk <= 0:
        raise ConfigError("tile K must be positive")
    if cta_group is None:
        cta_group = 2 if (sm100 and cluster is not None and cluster[0] % 2 == 0) else 1
        notes.append(f"cta_group={cta_group} (default: 2 only on sm_100a with an even cluster along M)")
    if cluster is None:
        cluster = (2, 1) if cta_group == 2 else (1, 1)
        notes.append(f"cluster={cluster[0]}x{cluster[1]} (default: the CTA pair for cta_group=2, else 1x1)")
    if multicast is None:
        multicast = cluster[0] * cluster[1] > 1
        notes.append(f"multicast={'on' if multicast else 'off'} (default: on whenever the cluster has >1 CTA)")
    if mma is None:
        kk = mma_k_for(problem)
        mma = (tm * cta_group, min(tn, 256), kk) if sm100 else (64, min(tn, 256), kk)
        notes.append(f"mma={mma[0]}x{mma[1]}x{mma[2]} (instruction shape: "
                     + ("M = tile_m x cta_group" if sm100 else "wgmma M = 64") + ", N = tile_n up to 256"
                     + f", K = 32 bytes of {problem.a_dtype.value}{', doubled for sparse A' if problem.sparse_a else ''})")
    if swizzle is None:
        sw_a, sw_b, note = _derive_swizzle(problem, sm100, tm, tn, tk, cta_group)
        notes.append(note)
    else:
        try:
            sw_a = sw_b = Swizzle(str(swizzle))
        except ValueError:
            raise ConfigError(f"unknown swizzle '{swizzle}' (known: {', '.join(s.value for s in Swizzle)})") from None
    if consumers is None:
        consumers = 1 if sm100 else {64: 1, 128: 2, 192: 3}.get(tm, 2)
        notes.append(f"consumers={consumers} (" + ("one epilogue warpgroup" if sm100 else
                                                    "one consumer warpgroup per 64 rows, at most 2 for 256") + ")")
    persistent, raster, group_size, epilogue = _derive_schedule(notes, persistent, raster, group_size, epilogue)
    try:
        cfg = KernelConfig(tm, tn, tk, mma[0], mma[1], mma[2], cta_group, cluster[0], cluster[1], multicast,
                           stages if stages is not None else 1, sw_a, sw_b, consumers,
                           acc_buffers if acc_buffers is not None else 1, persistent, Raster(raster),
                           group_size, Epilogue(epilogue))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if acc_buffers is None:
        acc_buffers, note = _derive_acc_buffers(problem, hw, cfg)
        notes.append(note)
        cfg = cfg.replace(acc_buffers=acc_buffers)
    if stages is None:
        stages, note = _derive_stages(problem, hw, cfg)
        notes.append(note)
        cfg = cfg.replace(stages=stages)
    return Derived(cfg, tuple(notes))
