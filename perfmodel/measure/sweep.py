"""Sweep files: which (problem, configuration) pairs a dataset measures.

A sweep is TOML (``configs/sweeps/*.toml``)::

    gpu = "h100-sxm"
    [[group]]
    name = "clusters"
    dtypes = ["bf16"]                      # presets of perfmodel.problem.DTYPE_PRESETS
    shapes = ["8192x8192x8192", "256x8192x8192"]
    configs = [
      { tile = "128x256x64", cluster = ["1x1", "2x1"], multicast = [true, false] },
      { name = "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma" },
    ]

Each config entry holds `perfmodel check` knobs (tile, mma, stages, swizzle, cluster, consumers,
multicast, persistent, raster, group_size, epilogue); a list value expands into one config per value
(the cartesian product over the entry's lists); omitted knobs are derived per shape as ``derive``
does. A ``name`` entry gives a canonical configuration as is. Duplicates are dropped.
"""
from __future__ import annotations

import itertools
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..config import KernelConfig, derive
from ..errors import ConfigError, PerfmodelError, decode_utf8
from ..hardware import HardwareSpec, load_hardware
from ..problem import GemmProblem, make_problem

KNOBS = ("tile", "mma", "stages", "swizzle", "cluster", "consumers", "multicast", "persistent", "raster",
         "group_size", "epilogue")


class SweepError(PerfmodelError):
    """A malformed sweep file."""


@dataclass(frozen=True)
class Sweep:
    gpu: str
    pairs: tuple[tuple[GemmProblem, KernelConfig], ...]
    groups: tuple[str, ...]


def _triple(v: str, what: str) -> tuple[int, int, int]:
    parts = str(v).lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise SweepError(f"malformed {what} '{v}' (expected AxBxC)")
    return tuple(int(p) for p in parts)  # type: ignore[return-value]


def _pair(v: str) -> tuple[int, int]:
    parts = str(v).lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise SweepError(f"malformed cluster '{v}' (expected MxN)")
    return int(parts[0]), int(parts[1])


def _derive_kwargs(knobs: dict) -> dict:
    kw = {}
    for key, val in knobs.items():
        if key == "tile":
            kw["tile"] = _triple(val, "tile")
        elif key == "mma":
            kw["mma"] = _triple(val, "mma")
        elif key == "cluster":
            kw["cluster"] = _pair(val)
        else:
            kw[key] = val
    return kw


def expand_entry(entry: dict, problem: GemmProblem, hw: HardwareSpec) -> list[KernelConfig]:
    """One config entry of a group -> the configurations it names for this problem."""
    if "name" in entry:
        if len(entry) != 1:
            raise SweepError(f"a 'name' entry takes no other knobs: {entry}")
        return [KernelConfig.from_name(entry["name"])]
    unknown = set(entry) - set(KNOBS)
    if unknown:
        raise SweepError(f"unknown knob(s) {sorted(unknown)} in {entry}; known: {', '.join(KNOBS)}")
    keys = list(entry)
    lists = [v if isinstance(v, list) else [v] for v in entry.values()]
    out = []
    for combo in itertools.product(*lists):
        kw = _derive_kwargs(dict(zip(keys, combo)))
        tile = kw.pop("tile", None)
        try:
            out.append(derive(problem, hw, tile, **kw).config)
        except ConfigError as exc:
            raise SweepError(f"config {dict(zip(keys, combo))}: {exc}") from None
    return out


def load_sweep(path: str | os.PathLike, gpu: str | None = None) -> Sweep:
    p = Path(path)
    try:
        doc = tomllib.loads(decode_utf8(p.read_bytes(), p))
    except OSError as exc:
        raise SweepError(f"{p}: cannot read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{p}: not valid TOML ({exc})") from None
    gpu_name = gpu or doc.get("gpu")
    if not gpu_name:
        raise SweepError(f"{p}: no gpu (set gpu = \"h100-sxm\" or pass --gpu)")
    hw = load_hardware(gpu_name)
    groups = doc.get("group")
    if not isinstance(groups, list) or not groups:
        raise SweepError(f"{p}: no [[group]] tables")
    seen: set[tuple[str, str, str]] = set()
    pairs: list[tuple[GemmProblem, KernelConfig]] = []
    names = []
    for i, g in enumerate(groups):
        if not isinstance(g, dict):
            raise SweepError(f"{p}: group {i + 1} is not a [[group]] table")
        name = g.get("name", f"group{i}")
        names.append(name)
        for field in ("shapes", "configs"):
            if not isinstance(g.get(field), list) or not g[field]:
                raise SweepError(f"{p}: group '{name}' needs a non-empty '{field}' list")
        for dtype in g.get("dtypes", ["bf16"]):
            for shape in g["shapes"]:
                prob = make_problem(shape, dtype)
                for entry in g["configs"]:
                    for cfg in expand_entry(entry, prob, hw):
                        key = (cfg.name, prob.shape_name(), prob.a_dtype.value)
                        if key not in seen:
                            seen.add(key)
                            pairs.append((prob, cfg))
    return Sweep(gpu_name, tuple(pairs), tuple(names))
