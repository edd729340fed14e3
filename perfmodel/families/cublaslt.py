"""cuBLASLt's Hopper GEMM kernels (cuBLASLt 13.1, sm_90), as its algorithm attributes configure them.
The evidence for every decision is in docs/cublaslt-family.md (kernel names, ncu launch facts of
data/cublaslt/h100_kernel_names.jsonl). Only algorithm 66, the ``nvjet`` kernels, is modelled; it is
what the heuristic returns on every problem it can run:

- warp-specialised: 384 threads = one TMA producer warpgroup + two wgmma consumer warpgroups (ncu: block
  384, 168 registers, the whole register file for one CTA per SM);
- persistent: the grid is the co-resident capacity (132 CTAs, 120 for clusters of 4), static tile order;
- cluster shape as configured (``XxYx1`` in cuBLASLt's column-major terms: X along our N), with TMA
  multicast of the operand the cluster shares;
- stages ``<K>xAUTO``: K-deep stages, as many as fit beside a 16 KiB epilogue buffer (CUTLASS's
  StageCountAutoCarveout), at most 16;
- the tile ``RxC`` (R along our N): wgmma's 64-row side runs along R when R is a multiple of 64, else
  along C; the problem is then predicted in the kernel's own orientation (D^T = B A^T: both operands
  stay K-major, so the transposed problem is the same work);
- custom option bit 2: the two consumers cooperate on one tile (``coop``), else ping-pong; both are
  predicted as two consumers splitting the tile (the ping-pong overlap of one consumer's epilogue with
  the other's mainloop is not expressed); bit 1: raster along our M (``h``) or N (``v``);
- split-K s with the ``compute_type`` reduction: the GEMM runs as s batches of K/s writing fp32
  partials (``_splitK`` kernels), then ``splitKreduce_kernel`` reads them back (the interop layer adds
  that pass: perfmodel.interop.cublaslt).

Everything else (CUTLASS 2.x Ampere kernels, the xmma kernels, other reduction schemes) is refused with
a one-line reason (``CublasLtFamily.map`` raises ConfigError).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..config import BARRIER_BYTES, Epilogue, KernelConfig, Raster, Swizzle, mma_k_for, stage_bytes
from ..errors import ConfigError
from ..hardware import Arch, HardwareSpec
from ..legality import ScheduleFacts
from ..problem import DType, GemmProblem
from .base import WARPGROUP_THREADS, WGMMA_M, KernelFamily, Producer, Schedule

NVJET_ALGO = 66
NVJET_THREADS = 384                 # ncu: block (384, 1, 1) on all 121 nvjet launches
NVJET_CONSUMERS = 2                 # 384 threads = 1 producer + 2 consumer warpgroups
NVJET_REGISTERS = 168               # ncu: 168 registers per thread on all 121 nvjet launches
NVJET_EPILOGUE_SMEM_BYTES = 16384   # dynamic smem - stages x stage bytes = 16.5-16.9 KB on every nvjet launch
NVJET_BARRIER_BYTES_PER_STAGE = 3 * BARRIER_BYTES   # the same remainder grows by 22-32 B per stage
NVJET_MAX_STAGES = 16               # 24x64 64xAUTO runs 16 stages where 17 would fit (nvjet_..._64x16_...)
WGMMA_WAIT_DEPTH = 1                # one wgmma batch in flight, as CUTLASS's sm90 mainloops
COOP_BIT, RASTER_H_BIT = 4, 2       # custom option bits (docs/cublaslt-family.md)
SPLITK_REDUCTIONS = {2: "compute_type"}   # CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2: a separate reduce kernel

REFUSED_ALGOS = {
    11: "algo 11 is a pre-Hopper CUDA-core/legacy kernel (no cuBLASLt tile attributes); not modelled",
    16: "algo 16 has no tile attributes (tile 0x0): its kernel is unknown; not modelled",
    21: "algo 21 runs CUTLASS 2.x sm_80 mma.sync kernels (cutlass_80_tensorop_*): the model's sm_90a tensor core is wgmma only",
    23: "algo 23 runs CUTLASS 2.x sm_80/sm_75 mma.sync/wmma kernels: the model's sm_90a tensor core is wgmma only",
    24: "algo 24 runs CUTLASS 2.x sm_75/sm_80 mma.sync kernels (s1688gemm): the model's sm_90a tensor core is wgmma only",
    41: "algo 41's kernel was never named by ncu here; not modelled",
    42: "algo 42 runs sm90_xmma kernels (256 threads, schedule not established by the names read); not modelled",
    62: "algo 62 runs sm90_xmma kernels (256 threads, segment-K; schedule not established); not modelled",
}


@dataclass(frozen=True)
class CublasLtAlgo:
    """One cuBLASLt algorithm configuration, in cuBLASLt's own attribute values (what a caller sets with
    cublasLtMatmulAlgoConfigSetAttribute), plus the decoded tile/stages/cluster shapes."""
    algo_id: int
    tile_id: int = 0
    tile_r: int = 0                 # tile "RxC": R along cuBLASLt's m' = our N
    tile_c: int = 0                 #              C along its n' = our M
    stages_id: int = 0
    stage_k: int = 0
    stage_count: int = 0            # 0: AUTO (as many as fit), -1: undefined
    splitk: int = 1
    reduction_scheme: int = 0
    swizzle: int = 0
    custom_option: int = 0
    cluster_id: int = 0
    cluster_x: int = 0              # cluster "XxYx1": X along our N, 0 = auto
    cluster_y: int = 0

    @property
    def name(self) -> str:
        cl = f"{self.cluster_x}x{self.cluster_y}" if self.cluster_x else "auto"
        st = "AUTO" if self.stage_count == 0 else str(self.stage_count)
        return (f"a{self.algo_id}_t{self.tile_r}x{self.tile_c}_s{self.stage_k}x{st}_c{cl}_k{self.splitk}"
                f"r{self.reduction_scheme}_z{self.swizzle}_o{self.custom_option}")

    @classmethod
    def from_row(cls, row: dict) -> "CublasLtAlgo":
        """From a dataset row (data/cublaslt/*.jsonl) or a candidate entry (configs/cublaslt/*.toml)."""
        r, c = (int(x) for x in str(row.get("tile", "0x0")).split("x"))
        cl = str(row.get("cluster", "auto"))
        x, y = (int(v) for v in cl.split("x")[:2]) if cl not in ("auto", "") else (0, 0)
        return cls(algo_id=int(row["algo_id"]), tile_id=int(row.get("tile_id", 0)), tile_r=r, tile_c=c,
                   stages_id=int(row.get("stages_id", 0)), stage_k=int(row.get("stage_k", 0)),
                   stage_count=int(row.get("stage_count", 0)), splitk=int(row.get("splitk", 1)),
                   reduction_scheme=int(row.get("reduction_scheme", 0)), swizzle=int(row.get("swizzle", 0)),
                   custom_option=int(row.get("custom_option", 0)), cluster_id=int(row.get("cluster_id", 0)),
                   cluster_x=x, cluster_y=y)


@dataclass(frozen=True)
class Mapped:
    """What one algorithm configuration runs: the problem as its GEMM kernel sees it (transposed when
    wgmma's rows run along our N; s batches of K/s with fp32 output under split-K), the KernelConfig of
    that kernel, and the split-K factor whose reduce pass follows it."""
    problem: GemmProblem
    config: KernelConfig
    transposed: bool
    splitk: int
    notes: tuple[str, ...]


def nvjet_stages(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> int:
    """``<K>xAUTO``: as many stages as fit beside the epilogue buffer and the barriers, at most 16."""
    free = hw.smem.per_block_optin_bytes - NVJET_EPILOGUE_SMEM_BYTES
    fit = free // (stage_bytes(problem, cfg) + NVJET_BARRIER_BYTES_PER_STAGE)
    return int(max(1, min(fit, NVJET_MAX_STAGES)))


def nvjet_smem_bytes(problem: GemmProblem, cfg: KernelConfig) -> int:
    return cfg.stages * (stage_bytes(problem, cfg) + NVJET_BARRIER_BYTES_PER_STAGE) + NVJET_EPILOGUE_SMEM_BYTES


def wgmma_n(cols: int) -> int:
    """wgmma N for a warpgroup's ``cols`` columns: the fewest instructions of equal N (a multiple of 8, at
    most 256) that cover them."""
    for parts in range(-(-cols // 256), cols // 8 + 1):
        n = cols // parts
        if cols % parts == 0 and n % 8 == 0 and n <= 256:
            return n
    return 8


def issuer_split(tile_m: int, tile_n: int) -> tuple[int, int, int]:
    """(issuers, rows, cols) of the two consumer warpgroups: halves of the 64-row blocks when they are
    even, else halves of the columns (multiples of 8), else one warpgroup takes the tile."""
    blocks = tile_m // WGMMA_M
    if blocks >= 2 and blocks % 2 == 0:
        return 2, tile_m // 2, tile_n
    if tile_n % 16 == 0:
        return 2, tile_m, tile_n // 2
    return 1, tile_m, tile_n


class CublasLtFamily(KernelFamily):
    name = "cublaslt"
    summary = ("cuBLASLt 13.1 nvjet kernels (algo 66): TMA producer warpgroup + 2 wgmma consumers, persistent, "
               "clusters with multicast, split-K with a reduce kernel")
    facts = ScheduleFacts(family="cublaslt", producer_warpgroups=1, split_n=True, tma_loads=True, library_kernel=True)
    restrict_predictions = False     # cuBLASLt's AlgoCheck accepted the configuration; only PTX rules apply

    # ------------------------------------------------------------------ attributes -> configuration
    def map(self, problem: GemmProblem, hw: HardwareSpec, algo: CublasLtAlgo) -> Mapped:
        """The kernel an algorithm configuration runs (raises ConfigError, one line, for what the model
        cannot express)."""
        if hw.arch is not Arch.SM90A:
            raise ConfigError(f"the cublaslt family is modelled on sm_90a only ({hw.name} is {hw.arch.value})")
        if algo.algo_id != NVJET_ALGO:
            raise ConfigError(REFUSED_ALGOS.get(algo.algo_id, f"algo {algo.algo_id} is not modelled "
                                                              f"(only algo {NVJET_ALGO}, nvjet)"))
        if algo.tile_r <= 0 or algo.tile_c <= 0:
            raise ConfigError(f"tile {algo.tile_r}x{algo.tile_c}: nvjet needs an explicit tile")
        if algo.stage_count != 0:
            raise ConfigError(f"stages {algo.stage_k}x{algo.stage_count}: nvjet offers only <K>xAUTO stages")
        if algo.cluster_x <= 0 or algo.cluster_y <= 0:
            raise ConfigError("cluster 'auto': nvjet's choice for an automatic cluster shape is not established")
        if algo.swizzle:
            raise ConfigError("CTA swizzle 1: not observed on nvjet kernels here (no evidence of its tile order)")
        splitk = max(algo.splitk, 1)
        if splitk > 1 and algo.reduction_scheme not in SPLITK_REDUCTIONS:
            raise ConfigError(f"split-K {splitk} with reduction scheme {algo.reduction_scheme}: only the "
                              f"compute_type scheme (a separate reduce kernel) is established for nvjet")
        elem = problem.a_elem_bytes
        if algo.stage_k * elem != 128:
            raise ConfigError(f"stage K {algo.stage_k}: nvjet stages are 128 bytes of K ({int(128 // elem)} elements)")
        notes = []
        # wgmma's 64-row side: along R (our N) when R is a multiple of 64, else along C (our M)
        transposed = algo.tile_r % WGMMA_M == 0
        if transposed:
            rows, cols, cl_rows, cl_cols = algo.tile_r, algo.tile_c, algo.cluster_x, algo.cluster_y
            kp = dataclasses.replace(problem, m=problem.n, n=problem.m)
            notes.append("wgmma rows along our N (R % 64 == 0): predicted as the transposed problem")
        else:
            if algo.tile_c % WGMMA_M:
                raise ConfigError(f"tile {algo.tile_r}x{algo.tile_c}: neither side is a multiple of 64 (wgmma M)")
            rows, cols, cl_rows, cl_cols = algo.tile_c, algo.tile_r, algo.cluster_y, algo.cluster_x
            kp = problem
        if splitk > 1:
            k_blocks = -(-problem.k // algo.stage_k)
            kp = dataclasses.replace(kp, k=-(-k_blocks // splitk) * algo.stage_k, batch=problem.batch * splitk,
                                     out_dtype=DType.F32)
            notes.append(f"split-K {splitk}: {splitk} batches of K={kp.k} writing fp32 partials, then a reduce kernel")
        h = bool(algo.custom_option & RASTER_H_BIT)
        # raster h walks D^T's rows = along our M; in the kernel frame that is its N side when transposed
        raster = (Raster.N if transposed else Raster.M) if h else (Raster.M if transposed else Raster.N)
        _, _, cols_per_issuer = issuer_split(rows, cols)
        cfg = KernelConfig(tile_m=rows, tile_n=cols, tile_k=algo.stage_k, mma_m=WGMMA_M, mma_n=wgmma_n(cols_per_issuer),
                           mma_k=mma_k_for(kp), cta_group=1, cluster_m=cl_rows, cluster_n=cl_cols,
                           multicast=cl_rows * cl_cols > 1, stages=1, swizzle_a=Swizzle.B128,
                           swizzle_b=Swizzle.B128, consumers=NVJET_CONSUMERS, acc_buffers=1, persistent=True,
                           raster=raster, group_size=1, epilogue=Epilogue.TMA_STORE)
        cfg = cfg.replace(stages=nvjet_stages(kp, cfg, hw))
        return Mapped(kp, cfg, transposed, splitk, tuple(notes))

    # ------------------------------------------------------------------ schedule
    def schedule(self, problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> Schedule:
        issuers, rows, cols = issuer_split(cfg.tile_m, cfg.tile_n)
        return Schedule(family=self.name, producer=Producer.TMA_WARP, issuers=issuers, rows_per_issuer=rows,
                        cols_per_issuer=cols, wait_depth=min(WGMMA_WAIT_DEPTH, max(cfg.stages - 1, 0)),
                        ctas_per_sm=1, persistent=True, threads_per_cta=NVJET_THREADS,
                        registers_per_thread=NVJET_REGISTERS, smem_bytes_per_cta=nvjet_smem_bytes(problem, cfg))


FAMILY = CublasLtFamily()

__all__ = ["FAMILY", "CublasLtAlgo", "CublasLtFamily", "Mapped", "NVJET_ALGO", "REFUSED_ALGOS", "issuer_split",
           "nvjet_smem_bytes", "nvjet_stages", "wgmma_n"]
