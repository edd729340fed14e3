"""Exports of a configuration for users of other kernels, and a Triton ``perf_model`` hook.

- ``kernel_flags``: the ``-D`` flags of our sm_90a kernel (``perfmodel/kernels/gemm_sm90.cu``).
- ``cutlass_description``: the CUTLASS 3.x names of the same tile/cluster/schedule choices.
- ``to_triton_config``: a ``triton.Config``-style dict where the mapping exists (``cta_group=1``),
  with the knobs Triton does not expose listed under ``dropped``.
- ``triton_perf_model(hw)``: a function with the signature Triton's autotuner calls,
  ``perf_model(**nargs, **kwargs, **config.all_kwargs())``, returning the predicted time in ms
  (``inf`` for a configuration the PTX rules refuse, as Triton does for ``OutOfResources``).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from .config import Epilogue, KernelConfig, Raster, derive
from .errors import PerfmodelError
from .hardware import Arch, HardwareSpec
from .legality import check
from .problem import DType, GemmProblem, make_problem

KERNEL_SOURCE = "perfmodel/kernels/gemm_sm90.cu"


# ---------------------------------------------------------------------------- our sm_90a kernel
def kernel_flags(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> list[str] | None:
    """nvcc flags building our sm_90a kernel for ``cfg`` (``perfmodel.measure.build``), or None where
    the kernel has no such variant (any rule fails, its own ``kernel-sm90-*`` rules included)."""
    from .measure.build import NVCC_FLAGS, macros

    if hw.arch is not Arch.SM90A or check(problem, cfg, hw):
        return None
    return list(NVCC_FLAGS) + list(macros(problem, cfg))


# ---------------------------------------------------------------------------- CUTLASS
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


# ---------------------------------------------------------------------------- Triton
def to_triton_config(cfg: KernelConfig) -> dict[str, Any] | None:
    """``triton.Config(kwargs, num_warps, num_stages, num_ctas)`` as a dict, or None when Triton has
    no equivalent (a CTA pair, ``cta_group=2``)."""
    if cfg.cta_group != 1:
        return None
    dropped = ["swizzle (Triton picks its own shared layouts)", "multicast (implicit with num_ctas > 1)",
               "raster order (the kernel computes its own tile order)", "epilogue", "persistent"]
    if cfg.cluster_n > 1:
        dropped.append(f"cluster shape {cfg.cluster_m}x{cfg.cluster_n} (num_ctas is a CTA count)")
    return {"kwargs": {"BLOCK_SIZE_M": cfg.tile_m, "BLOCK_SIZE_N": cfg.tile_n, "BLOCK_SIZE_K": cfg.tile_k,
                       "GROUP_SIZE_M": cfg.group_size},
            "num_warps": 4 * cfg.consumers, "num_stages": cfg.stages, "num_ctas": cfg.cluster_size,
            "dropped": dropped}


_KEYS = {"m": ("BLOCK_SIZE_M", "BLOCK_M"), "n": ("BLOCK_SIZE_N", "BLOCK_N"), "k": ("BLOCK_SIZE_K", "BLOCK_K"),
         "group": ("GROUP_SIZE_M", "GROUP_M")}
_TORCH_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "fp16", "torch.float32": "tf32",
                 "torch.float8_e4m3fn": "fp8", "torch.float8_e5m2": "e5m2", "torch.int8": "int8"}


def _first(kwargs: Mapping[str, Any], names: tuple[str, ...], default=None):
    return next((kwargs[n] for n in names if n in kwargs), default)


def from_triton_kwargs(kwargs: Mapping[str, Any], problem: GemmProblem, hw: HardwareSpec) -> KernelConfig:
    """The KernelConfig a Triton matmul config stands for; knobs Triton lacks are derived."""
    bm, bn, bk = (_first(kwargs, _KEYS[x]) for x in "mnk")
    if None in (bm, bn, bk):
        raise PerfmodelError("Triton config needs BLOCK_SIZE_M/N/K (or BLOCK_M/N/K)")
    consumers = max(1, int(kwargs.get("num_warps", 8)) // 4)
    num_ctas = int(kwargs.get("num_ctas", 1) or 1)
    return derive(problem, hw, (int(bm), int(bn), int(bk)), stages=int(kwargs.get("num_stages", 3)),
                  consumers=consumers, cluster=(num_ctas, 1), cta_group=1,
                  group_size=int(_first(kwargs, _KEYS["group"], 1))).config


def triton_perf_model(hw: HardwareSpec, *, dtype: str | None = None, m_key: str = "M", n_key: str = "N",
                      k_key: str = "K", dtype_from: str | None = None,
                      predictor: Callable | None = None) -> Callable[..., float]:
    """A ``perf_model`` for ``triton.autotune(prune_configs_by={"perf_model": ..., "top_k": k})``.
    The operand type is ``dtype`` or the ``.dtype`` of the kernel argument named ``dtype_from``."""
    if predictor is None:
        from .predict import predict as predictor

    def perf_model(**kwargs) -> float:
        name = dtype
        if name is None and dtype_from is not None:
            name = _TORCH_DTYPES.get(str(getattr(kwargs.get(dtype_from), "dtype", "")), None)
        problem = make_problem((int(kwargs[m_key]), int(kwargs[n_key]), int(kwargs[k_key])), name or "bf16")
        cfg = from_triton_kwargs(kwargs, problem, hw)
        if check(problem, cfg, hw):
            return math.inf
        return float(predictor(problem, cfg, hw).time_s) * 1e3

    return perf_model


def exports(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> dict[str, Any]:
    """Everything a user can paste elsewhere, keyed by target; None where no mapping exists."""
    flags = kernel_flags(problem, cfg, hw)
    return {"kernel_sm90": None if flags is None else {"source": KERNEL_SOURCE, "nvcc_flags": flags},
            "cutlass": cutlass_description(problem, cfg, hw),
            "triton": to_triton_config(cfg)}


__all__ = ["cutlass_description", "exports", "from_triton_kwargs", "kernel_flags", "to_triton_config",
           "triton_perf_model"]
