"""CUTLASS 3.x: the names of the tile, cluster and schedule choices a configuration stands for."""
from __future__ import annotations

from typing import Any

from ..config import Epilogue, KernelConfig, Raster
from ..hardware import Arch, HardwareSpec
from ..problem import DType, GemmProblem

_CUTLASS_TYPES = {DType.BF16: "bf16", DType.F16: "f16", DType.TF32: "tf32", DType.F32: "f32",
                  DType.E4M3: "e4m3", DType.E5M2: "e5m2", DType.E3M2: "e3m2", DType.E2M3: "e2m3",
                  DType.E2M1: "e2m1", DType.S8: "s8", DType.U8: "u8", DType.S32: "s32"}


def cutlass_description(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> dict[str, Any]:
    """CUTLASS 3.x names for the tile, cluster and schedules (the closest CUTLASS equivalents: our
    kernel's schedule is CUTLASS's cooperative warp-specialised one when persistent)."""
    sm100 = hw.arch is Arch.SM100A
    mma_tile = (cfg.tile_m * cfg.cta_group, cfg.tile_n, cfg.tile_k) if sm100 else (cfg.tile_m, cfg.tile_n, cfg.tile_k)
    cluster = (cfg.cluster_m, cfg.cluster_n, 1)
    if sm100:
        sms = f"{cfg.cta_group}Sm"
        kernel = f"cutlass::gemm::KernelTmaWarpSpecialized{sms}Sm100"
        epi = (f"cutlass::epilogue::TmaWarpSpecialized{sms}" if cfg.epilogue is Epilogue.TMA_STORE
               else f"cutlass::epilogue::NoSmemWarpSpecialized{sms}")
        scheduler = "cutlass::gemm::PersistentScheduler" if cfg.persistent else "void (one CTA per tile)"
    else:
        kernel = ("cutlass::gemm::KernelTmaWarpSpecializedCooperative" if cfg.persistent
                  else "cutlass::gemm::KernelTmaWarpSpecialized")
        epi = ("cutlass::epilogue::TmaWarpSpecializedCooperative" if cfg.epilogue is Epilogue.TMA_STORE
               else "cutlass::epilogue::NoSmemWarpSpecialized")
        scheduler = "cutlass::gemm::PersistentScheduler" if cfg.persistent else "void (one CTA per tile)"
    types = "_".join(_CUTLASS_TYPES[t] for t in (problem.a_dtype, problem.b_dtype, problem.acc_dtype,
                                                 problem.out_dtype))
    tile_name = "{}x{}x{}_{}x{}x{}_{}".format(*mma_tile, *cluster, cfg.stages)   # TileDescription.procedural_name
    return {
        "procedural_name": f"cutlass3x_sm{'100' if sm100 else '90'}_tensorop_gemm_{types}_{tile_name}",
        "tile_description": tile_name,
        "MmaTileShape_MNK": list(mma_tile),
        "ClusterShape_MNK": list(cluster),
        "instruction_shape_MNK": [cfg.mma_m, cfg.mma_n, cfg.mma_k],
        "stages": cfg.stages,
        "KernelSchedule": kernel,
        "EpilogueSchedule": epi,
        "TileScheduler": scheduler,
        "RasterOrderOptions": "AlongN" if cfg.raster is Raster.N else "AlongM",
        "max_swizzle_size": cfg.group_size,
        "swizzle_bytes_AB": [cfg.swizzle_a.span_bytes, cfg.swizzle_b.span_bytes],
        "multicast": cfg.multicast,
    }


export = cutlass_description

__all__ = ["cutlass_description", "export"]
