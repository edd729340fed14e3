"""Triton: predict and rank Triton matmul configurations, and plug the model into ``@triton.autotune``.

- ``matmul_perf_model(gpu, dtype, kernel, names)``: a callable with the signature Triton's autotuner
  calls, ``perf_model(**nargs, **kwargs, **config.all_kwargs())``; it returns the predicted time in ms of
  the Triton family ``kernel`` (``triton-tma`` or ``triton-ptr``) for that config, ``inf`` for one Triton
  cannot build or the model does not cover (as Triton treats ``OutOfResources``).
  ``prune_configs_by={"perf_model": matmul_perf_model(...), "top_k": 8}``.
- ``rank(configs, M, N, K, ...)``: a DataFrame of configurations, best predicted first.
- ``export(problem, cfg, hw)``: our configuration as a Triton config where Triton's family can run it
  (power-of-two blocks, 4 or 8 warps, no cluster or CTA pair), else None with the reason.
Triton itself is never imported here (``triton_configs`` imports it on demand to build Config objects).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ..config import KernelConfig
from ..errors import ConfigError, IllegalConfigError, PerfmodelError
from ..families import get_family
from ..families.triton import TritonFamily, TritonKnobs
from ..hardware import HardwareSpec, load_hardware
from ..legality import check
from ..problem import GemmProblem, make_problem

DEFAULT_NAMES = {k: k for k in ("M", "N", "K", "BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")}
_TORCH_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "fp16", "torch.float8_e4m3fn": "e4m3",
                 "torch.float8_e5m2": "e5m2"}
_ALIASES = {"BLOCK_M": ("BLOCK_SIZE_M",), "BLOCK_N": ("BLOCK_SIZE_N",), "BLOCK_K": ("BLOCK_SIZE_K",),
            "GROUP_M": ("GROUP_SIZE_M",)}


class TritonInteropError(PerfmodelError):
    pass


def _family(kernel: str) -> TritonFamily:
    fam = get_family(kernel)
    if not isinstance(fam, TritonFamily):
        raise TritonInteropError(f"kernel {kernel!r} is not a Triton family (triton-tma or triton-ptr)")
    return fam


def _get(kwargs: Mapping[str, Any], key: str, names: Mapping[str, str], default=None):
    name = names.get(key, key)
    if name in kwargs:
        return kwargs[name]
    for alias in _ALIASES.get(key, ()):
        if alias in kwargs:
            return kwargs[alias]
    return default


def knobs_from_kwargs(kwargs: Mapping[str, Any], names: Mapping[str, str] | None = None) -> TritonKnobs:
    """The Triton knobs in a config's kwargs (``names`` maps our names to the kernel's argument names)."""
    names = {**DEFAULT_NAMES, **(names or {})}
    bm, bn, bk = (_get(kwargs, k, names) for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    if None in (bm, bn, bk):
        raise TritonInteropError(f"a Triton matmul config needs {names['BLOCK_M']}, {names['BLOCK_N']} and "
                                 f"{names['BLOCK_K']} (got {sorted(kwargs)})")
    return TritonKnobs(int(bm), int(bn), int(bk), int(_get(kwargs, "GROUP_M", names, 1) or 1),
                       int(kwargs.get("num_warps", 4) or 4), int(kwargs.get("num_stages", 3) or 3))


@dataclass(frozen=True)
class Ranked:
    knobs: TritonKnobs
    time_ms: float
    tflops: float
    bottleneck: str
    config_name: str
    reason: str = ""


def predict_knobs(problem: GemmProblem, hw: HardwareSpec, knobs: TritonKnobs, kernel: str = "triton-tma",
                  clock_hz: float | None = None, clock=None) -> Ranked:
    """One Triton config's prediction; an illegal or unmodelled one gets time inf and the reason. ``clock``
    (boost, sustained, MHz or a sim.clock.ClockRegime) and ``clock_hz`` are predict()'s."""
    from ..prediction.predict import predict
    fam = _family(kernel)
    try:
        cfg = fam.config(problem, hw, knobs)
        p = predict(problem, cfg, hw, family=fam, clock=clock, clock_hz=clock_hz)
    except (IllegalConfigError, ConfigError) as exc:
        return Ranked(knobs, math.inf, 0.0, "illegal", "", str(exc).splitlines()[0])
    if p.deadlock:
        return Ranked(knobs, math.inf, 0.0, "deadlock", cfg.name, p.reason)
    return Ranked(knobs, p.time_s * 1e3, p.tflops, p.bottleneck.value, cfg.name)


def matmul_perf_model(gpu: str | HardwareSpec = "h100-sxm", dtype: str = "bf16", kernel: str = "triton-tma",
                      names: Mapping[str, str] | None = None, dtype_from: str | None = None,
                      clock_hz: float | None = None) -> Callable[..., float]:
    """A ``perf_model`` for ``triton.autotune(prune_configs_by={"perf_model": ..., "top_k": k})``: called
    with the kernel's named arguments and the config's kwargs (incl. ``num_warps``, ``num_stages``,
    ``num_ctas``), returns the predicted time in ms. ``dtype_from``: the name of a tensor argument whose
    ``.dtype`` gives the operand type (else ``dtype``). Predictions are cached per (shape, type, config)."""
    hw = gpu if isinstance(gpu, HardwareSpec) else load_hardware(gpu)
    fam = _family(kernel)
    names = {**DEFAULT_NAMES, **(names or {})}
    cache: dict[tuple, float] = {}

    def perf_model(**kwargs) -> float:
        dt = dtype
        if dtype_from is not None:
            dt = _TORCH_DTYPES.get(str(getattr(kwargs.get(dtype_from), "dtype", "")), dtype)
        if int(kwargs.get("num_ctas", 1) or 1) != 1:
            return math.inf              # clusters are not part of the Triton families modelled
        try:
            shape = tuple(int(_get(kwargs, k, names)) for k in ("M", "N", "K"))
        except TypeError:
            raise TritonInteropError(f"perf_model needs the problem size as {names['M']}, {names['N']}, "
                                     f"{names['K']} among the kernel's arguments") from None
        knobs = knobs_from_kwargs(kwargs, names)
        key = (shape, dt, knobs)
        if key not in cache:
            problem = make_problem(shape, dt)
            cache[key] = predict_knobs(problem, hw, knobs, fam.name, clock_hz).time_ms
        return cache[key]

    perf_model.cache = cache          # type: ignore[attr-defined]
    return perf_model


def _knobs_of(c: Any, names: Mapping[str, str] | None) -> TritonKnobs:
    if isinstance(c, TritonKnobs):
        return c
    if isinstance(c, Mapping):
        return knobs_from_kwargs(c, names)
    kw = dict(getattr(c, "kwargs", {}))      # a triton.Config
    kw.update(num_warps=getattr(c, "num_warps", 4), num_stages=getattr(c, "num_stages", 3))
    return knobs_from_kwargs(kw, names)


def rank(configs: Iterable[Any], M: int, N: int, K: int, *, gpu: str | HardwareSpec = "h100-sxm",
         dtype: str = "bf16", kernel: str = "triton-tma", names: Mapping[str, str] | None = None,
         clock_hz: float | None = None, clock=None):
    """Configurations (``triton.Config`` objects, dicts of kwargs or TritonKnobs), best predicted first:
    a DataFrame with the block sizes, GROUP_M, num_warps, num_stages, predicted ms and TFLOP/s, the
    bottleneck, the reason a config is refused, and the input object under ``config``."""
    import pandas as pd
    hw = gpu if isinstance(gpu, HardwareSpec) else load_hardware(gpu)
    problem = make_problem((int(M), int(N), int(K)), dtype)
    rows = []
    for c in configs:
        kn = _knobs_of(c, names)
        r = predict_knobs(problem, hw, kn, kernel, clock_hz, clock)
        rows.append({"BLOCK_M": kn.block_m, "BLOCK_N": kn.block_n, "BLOCK_K": kn.block_k, "GROUP_M": kn.group_m,
                     "num_warps": kn.num_warps, "num_stages": kn.num_stages, "pred_ms": r.time_ms,
                     "pred_tflops": r.tflops, "bottleneck": r.bottleneck, "reason": r.reason,
                     "config_name": r.config_name, "config": c})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    return df.sort_values(["pred_ms", "BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps", "num_stages"],
                          kind="stable").reset_index(drop=True)


SPACE_FILE = "triton.toml"
SPACE_KNOBS = ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps", "num_stages")


def load_space(path: str | None = None) -> list[TritonKnobs]:
    """Every point of the Triton search space (configs/search/triton.toml or ``path``)."""
    import itertools
    import tomllib
    from pathlib import Path
    from ..hardware import config_dir
    f = Path(path) if path else config_dir() / "search" / SPACE_FILE
    try:
        doc = tomllib.loads(f.read_text())
        knobs = doc["knobs"]
        values = [[int(v) for v in knobs[k]["values"]] for k in SPACE_KNOBS]
    except KeyError as exc:
        raise TritonInteropError(f"cannot read the Triton search space {f}: no key {exc} (knobs.BLOCK_M ... "
                                 f"knobs.num_stages, each {{ values = [...] }})") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, TypeError, ValueError) as exc:
        raise TritonInteropError(f"cannot read the Triton search space {f}: {exc}") from None
    return [TritonKnobs(*v) for v in itertools.product(*values)]


def triton_configs(knobs: Iterable[TritonKnobs], names: Mapping[str, str] | None = None) -> list:
    """``triton.Config`` objects for these knobs (imports Triton)."""
    import triton
    names = {**DEFAULT_NAMES, **(names or {})}
    return [triton.Config({names["BLOCK_M"]: k.block_m, names["BLOCK_N"]: k.block_n, names["BLOCK_K"]: k.block_k,
                           names["GROUP_M"]: k.group_m}, num_warps=k.num_warps, num_stages=k.num_stages)
            for k in knobs]


def config_text(k: TritonKnobs, names: Mapping[str, str] | None = None) -> str:
    names = {**DEFAULT_NAMES, **(names or {})}
    return (f"triton.Config({{'{names['BLOCK_M']}': {k.block_m}, '{names['BLOCK_N']}': {k.block_n}, "
            f"'{names['BLOCK_K']}': {k.block_k}, '{names['GROUP_M']}': {k.group_m}}}, "
            f"num_warps={k.num_warps}, num_stages={k.num_stages})")


def export(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> dict[str, Any] | None:
    """Our configuration as a config of Triton's TMA matmul, where that family can build it (same tile,
    stages, GROUP_M, num_warps = 4 x warpgroups); None where it cannot (the reason under ``why_not`` is
    given by ``export_reason``)."""
    return None if export_reason(problem, cfg, hw) else _export(cfg)


def export_reason(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> str:
    """Why ``cfg`` has no Triton equivalent ("" when it has one)."""
    if cfg.cta_group != 1 or cfg.cluster_size != 1:
        return "a cluster or CTA pair (Triton's matmul families run one CTA per tile without clusters)"
    fam = _family("triton-tma")
    try:
        tcfg = fam.config(problem, hw, fam.knobs(cfg))
    except ConfigError as exc:
        return str(exc)
    bad = check(problem, tcfg, hw, kernel_rules=True, facts=fam.facts)
    return "; ".join(f"[{v.rule}] {v.reason}" for v in bad)


def _export(cfg: KernelConfig) -> dict[str, Any]:
    k = TritonKnobs(cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.group_size, 4 * cfg.consumers, cfg.stages)
    return {"kwargs": {"BLOCK_M": k.block_m, "BLOCK_N": k.block_n, "BLOCK_K": k.block_k, "GROUP_M": k.group_m},
            "num_warps": k.num_warps, "num_stages": k.num_stages, "num_ctas": 1, "family": "triton-tma",
            "text": config_text(k),
            "dropped": ["swizzle (Triton picks its own shared layouts)", "raster order (GROUP_M order)",
                        "persistence and the epilogue (Triton's family: one CTA per tile, TMA store)"]}


__all__ = ["DEFAULT_NAMES", "SPACE_KNOBS", "Ranked", "load_space", "TritonInteropError", "config_text", "export", "export_reason",
           "knobs_from_kwargs", "matmul_perf_model", "predict_knobs", "rank", "triton_configs"]
