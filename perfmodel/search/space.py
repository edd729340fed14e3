"""The search space of `perfmodel tune`, read from ``configs/search/*.toml``.

A space is a list of knobs, each with the values a search may take and where the list comes from.
Knobs with several values become Optuna distributions that are identical in every trial (Optuna
requires fixed distributions, optuna#2564): evenly spaced integers an ``IntDistribution`` (ordinal:
TPE and CMA-ES see the order), everything else a ``CategoricalDistribution``. Knobs with one value
are fixed; knobs the file leaves out are derived by ``config.derive`` exactly as `perfmodel check`
derives them. Legality is not decided here: ``enumerate(legal_only=True)`` asks ``legality.check``.

Two entry points, as in CUTLASS's generator and Optuna's define-by-run API:
``enumerate(problem, hw)`` walks the product, ``suggest(trial, problem, hw)`` asks a trial.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Mapping

import optuna

from ..config import KernelConfig, derive, mma_k_for
from ..errors import PerfmodelError, decode_utf8
from ..hardware import Arch, HardwareSpec, config_dir
from ..legality import check
from ..problem import GemmProblem


class SpaceError(PerfmodelError):
    """A broken search-space file or override."""


# knob name -> value type; the order is the order of parameters in a study
KNOB_TYPES: dict[str, type] = {
    "tile_m": int, "tile_n": int, "tile_k_bytes": int, "tile_k": int, "mma_n_split": int, "stages": int,
    "swizzle": str, "cluster": str, "multicast": bool, "cta_group": int, "consumers": int,
    "acc_buffers": int, "persistent": bool, "raster": str, "group_size": int, "epilogue": str,
}
REQUIRED = ("tile_m", "tile_n")

Value = int | str | bool
Params = Mapping[str, Value]


@dataclass(frozen=True)
class Knob:
    name: str
    values: tuple[Value, ...]
    source: str

    @property
    def fixed(self) -> bool:
        return len(self.values) == 1

    def distribution(self) -> optuna.distributions.BaseDistribution:
        step = _int_step(self.values)
        if step:
            return optuna.distributions.IntDistribution(min(self.values), max(self.values), step=step)
        return optuna.distributions.CategoricalDistribution(self.values)


def _int_step(values: tuple[Value, ...]) -> int | None:
    """The step if ``values`` are >= 3 evenly spaced integers covering their whole range, else None."""
    if len(values) < 3 or not all(type(v) is int for v in values):
        return None
    v = sorted(values)
    step = v[1] - v[0]
    ok = step > 0 and all(b - a == step for a, b in zip(v, v[1:]))
    return step if ok else None


@dataclass(frozen=True)
class SearchSpace:
    arch: Arch
    knobs: tuple[Knob, ...]
    path: str = ""

    # ------------------------------------------------------------------ description
    def knob(self, name: str) -> Knob | None:
        return next((k for k in self.knobs if k.name == name), None)

    @property
    def searched(self) -> tuple[Knob, ...]:
        return tuple(k for k in self.knobs if not k.fixed)

    def distributions(self) -> dict[str, optuna.distributions.BaseDistribution]:
        return {k.name: k.distribution() for k in self.searched}

    def size(self) -> int:
        """Points in the raw product (before normalisation and legality)."""
        return math.prod(len(k.values) for k in self.knobs)

    def fingerprint(self) -> str:
        doc = [[k.name, list(k.values)] for k in self.knobs] + [self.arch.value]
        return hashlib.sha256(json.dumps(doc).encode()).hexdigest()[:12]

    def narrow(self, overrides: Mapping[str, tuple[Value, ...]]) -> "SearchSpace":
        """Replace knob values (``{"stages": (3, 4)}``); a knob not in the file is added."""
        knobs = {k.name: k for k in self.knobs}
        for name, values in overrides.items():
            _check_knob(name, values, "--set")
            knobs[name] = Knob(name, tuple(values), "user override")
        if "tile_k" in knobs:   # an explicit K in elements replaces the byte-based one
            knobs.pop("tile_k_bytes", None)
        ordered = tuple(knobs[n] for n in KNOB_TYPES if n in knobs)
        return replace(self, knobs=ordered)

    # ------------------------------------------------------------------ building configurations
    def full_params(self, params: Params) -> dict[str, Value]:
        out = {k.name: k.values[0] for k in self.knobs if k.fixed}
        out.update(params)
        return out

    def config(self, problem: GemmProblem, hw: HardwareSpec, params: Params) -> KernelConfig:
        """The configuration for one point; knobs that do not matter are normalised so that points
        meaning the same kernel get the same canonical name (multicast needs a cluster > 1)."""
        p = self.full_params(params)
        tk = p["tile_k"] if "tile_k" in p else max(1, int(p.get("tile_k_bytes", 128) // problem.a_elem_bytes))
        tm, tn = int(p["tile_m"]), int(p["tile_n"])
        cg = int(p.get("cta_group", 1))
        cluster = _parse_cluster(str(p["cluster"])) if "cluster" in p else None
        split = int(p.get("mma_n_split", 1))
        mma_m = tm * cg if hw.arch is Arch.SM100A else 64
        mma = (mma_m, max(tn // split, 1), mma_k_for(problem))
        multicast = p.get("multicast")
        if multicast is not None and cluster is not None and cluster[0] * cluster[1] == 1:
            multicast = False
        return derive(problem, hw, (tm, tn, int(tk)), stages=p.get("stages"), swizzle=p.get("swizzle"),
                      cluster=cluster, cta_group=cg, consumers=p.get("consumers"),
                      persistent=p.get("persistent"), raster=p.get("raster"),
                      group_size=p.get("group_size"), multicast=multicast,
                      acc_buffers=p.get("acc_buffers"), epilogue=p.get("epilogue"), mma=mma).config

    def suggest(self, trial: optuna.Trial, problem: GemmProblem, hw: HardwareSpec) -> KernelConfig:
        """Define-by-run: ask ``trial`` for every searched knob (same distributions every time)."""
        params = {name: _suggest(trial, name, dist) for name, dist in self.distributions().items()}
        return self.config(problem, hw, params)

    def enumerate(self, problem: GemmProblem, hw: HardwareSpec, *, legal_only: bool = True,
                  kernel_rules: bool = False, limit: int | None = None
                  ) -> Iterator[tuple[dict[str, Value], KernelConfig]]:
        """Every distinct configuration of the product, in file order, as (params, config); points
        that normalise to an already seen configuration are skipped. ``legal_only`` keeps what the
        PTX rules allow (and, with ``kernel_rules``, what our own kernel builds). ``limit`` bounds
        the raw points visited (raise the limit or narrow the space when it is hit)."""
        if limit is not None and self.size() > limit:
            raise SpaceError(f"the space has {self.size()} points, more than {limit} to enumerate; "
                             "narrow it with --set KNOB=V1,V2 or --space FILE")
        searched = self.searched
        seen: set[str] = set()
        for combo in itertools.product(*(k.values for k in searched)):
            params = dict(zip((k.name for k in searched), combo))
            cfg = self.config(problem, hw, params)
            if cfg.name in seen:
                continue
            seen.add(cfg.name)
            if legal_only and violations(problem, cfg, hw, kernel_rules=kernel_rules):
                continue
            yield params, cfg


def violations(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, *, kernel_rules: bool = False):
    """The legality violations that bound the search: the PTX rules, and our kernel's own
    (``kernel-*``) only when asked; predict() ignores the kernel's rules the same way."""
    return check(problem, cfg, hw, kernel_rules=kernel_rules)


def _suggest(trial: optuna.Trial, name: str, dist: optuna.distributions.BaseDistribution) -> Value:
    if isinstance(dist, optuna.distributions.IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step)
    return trial.suggest_categorical(name, dist.choices)


def _parse_cluster(text: str) -> tuple[int, int]:
    try:
        m, n = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise SpaceError(f"malformed cluster '{text}' (expected MxN, e.g. 2x1)") from None
    if m <= 0 or n <= 0:
        raise SpaceError(f"malformed cluster '{text}'")
    return m, n


def _check_knob(name: str, values: Any, where: str) -> None:
    if name not in KNOB_TYPES:
        raise SpaceError(f"{where}: unknown knob '{name}' (known: {', '.join(KNOB_TYPES)})")
    if not isinstance(values, (list, tuple)) or not values:
        raise SpaceError(f"{where}: knob '{name}' needs a non-empty list of values")
    typ = KNOB_TYPES[name]
    for v in values:
        if type(v) is not typ:
            raise SpaceError(f"{where}: knob '{name}' takes {typ.__name__} values, got {v!r}")
        if typ is int and v <= 0:
            raise SpaceError(f"{where}: knob '{name}' takes positive values, got {v}")
    if len(set(values)) != len(values):
        raise SpaceError(f"{where}: knob '{name}' lists a value twice")
    if name == "cluster":
        for v in values:
            _parse_cluster(v)


# ---------------------------------------------------------------------------- loading
def search_dir() -> Path:
    return config_dir() / "search"


def parse_space(text: str, path: str = "<string>") -> SearchSpace:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpaceError(f"{path}: not valid TOML: {exc}") from None
    try:
        arch = Arch(doc["meta"]["arch"])
    except (KeyError, TypeError, ValueError):
        raise SpaceError(f"{path}: meta.arch must be one of {[a.value for a in Arch]}") from None
    table = doc.get("knobs")
    if not isinstance(table, dict):
        raise SpaceError(f"{path}: missing [knobs] table")
    knobs = {}
    for name, entry in table.items():
        if not isinstance(entry, dict) or "values" not in entry or not str(entry.get("source", "")).strip():
            raise SpaceError(f"{path}: knobs.{name} must be {{ values = [...], source = \"...\" }}")
        _check_knob(name, entry["values"], f"{path}: knobs.{name}")
        knobs[name] = Knob(name, tuple(entry["values"]), entry["source"])
    for name in REQUIRED:
        if name not in knobs:
            raise SpaceError(f"{path}: knobs.{name} is required")
    return SearchSpace(arch, tuple(knobs[n] for n in KNOB_TYPES if n in knobs), path)


def load_space(arch_or_path: Arch | str | Path) -> SearchSpace:
    """The stock space of an architecture (``configs/search/*.toml`` whose meta.arch matches) or a file."""
    if isinstance(arch_or_path, Arch):
        for p in sorted(search_dir().glob("*.toml")):
            space = parse_space(p.read_text(), str(p))
            if space.arch is arch_or_path:
                return space
        raise SpaceError(f"no search space for {arch_or_path.value} in {search_dir()}")
    p = Path(arch_or_path)
    if not p.is_file():
        raise SpaceError(f"{p}: no such search-space file")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SpaceError(f"{p}: cannot read ({exc.strerror})") from None
    return parse_space(decode_utf8(data, p), str(p))


def parse_override(text: str, space: SearchSpace | None = None) -> tuple[str, tuple[Value, ...]]:
    """``"stages=3,4"`` -> ("stages", (3, 4)); values are typed by the knob."""
    name, sep, rest = text.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not rest.strip():
        raise SpaceError(f"--set '{text}': expected KNOB=V1,V2 (e.g. stages=3,4)")
    if name not in KNOB_TYPES:
        raise SpaceError(f"--set: unknown knob '{name}' (known: {', '.join(KNOB_TYPES)})")
    typ = KNOB_TYPES[name]
    values = []
    for raw in rest.split(","):
        raw = raw.strip().lower()
        if typ is bool:
            if raw not in ("true", "false", "1", "0", "on", "off"):
                raise SpaceError(f"--set {name}: expected true/false, got '{raw}'")
            values.append(raw in ("true", "1", "on"))
        elif typ is int:
            if not raw.isdigit():
                raise SpaceError(f"--set {name}: expected integers, got '{raw}'")
            values.append(int(raw))
        else:
            values.append(raw)
    _check_knob(name, values, "--set")
    return name, tuple(values)
