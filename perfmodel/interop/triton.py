"""Triton: a configuration as a ``triton.Config``-style dict, and a ``perf_model`` for ``@triton.autotune``.

- ``to_triton_config``: a ``triton.Config``-style dict where the mapping exists (``cta_group=1``),
  with the knobs Triton does not expose listed under ``dropped``.
- ``triton_perf_model(hw)``: a function with the signature Triton's autotuner calls,
  ``perf_model(**nargs, **kwargs, **config.all_kwargs())``, returning the predicted time in ms
  (``inf`` for a configuration the PTX rules refuse, as Triton does for ``OutOfResources``).
Triton itself is never imported here.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from ..config import KernelConfig, derive
from ..errors import PerfmodelError
from ..hardware import HardwareSpec
from ..legality import check
from ..problem import GemmProblem, make_problem

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
        from ..prediction.predict import predict as predictor

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


def export(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> dict[str, Any] | None:
    return to_triton_config(cfg)


__all__ = ["export", "from_triton_kwargs", "to_triton_config", "triton_perf_model"]
