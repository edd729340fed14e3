"""`perfmodel tune`: an Optuna study over the legal configuration space, the model as the objective.

- One study per (GPU, problem, dtype): ``<gpu>.<MxNxK>.<dtype>.pred`` (a narrowed space adds its
  fingerprint), ``load_if_exists=True``, metric ``tflops`` (maximised). Storage: in memory, or an RDB
  URL (SQLite by default on the CLI; PostgreSQL to share one study between machines) with Optuna's
  heartbeat, so the RUNNING trials of a killed worker are failed once their grace period is over.
- ask/tell with the space's fixed distributions. An illegal suggestion is told PRUNED with its rule ids
  (no fake value; TPE ranks pruned trials below complete ones and learns to avoid them) and does not
  count against ``n_trials``. A suggestion of a configuration another trial holds (search.repeats) is
  repaired before the trial stores it when the sampler suggested all knobs at once (TPE after its
  startup trials; ``repeat_of``), else told FAIL (``duplicate_of``) once found in the stored study:
  every COMPLETE trial is a distinct configuration, also with several workers (see ``_Run.conflict``).
- On an RDB storage a trial's parameters and attributes are committed in one transaction
  (search.storage.BatchedStorage): 500 trials in SQLite take ~20 s instead of ~33 s on 2 cores.
- Ties in predicted TFLOP/s (configurations differing only in knobs the model does not see) are
  ranked by the analytic baseline, then fewer shared-memory bytes, a smaller cluster, the name.
- When the legal space is no larger than the trials asked for, it is enumerated exhaustively
  (``sampler="grid"`` asks for that explicitly).
"""
from __future__ import annotations

import functools
import os
import random
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import optuna
import pandas as pd
from optuna.trial import TrialState

from ..config import KernelConfig, smem_bytes
from ..errors import IllegalConfigError
from ..hardware import HardwareSpec
from ..problem import GemmProblem
from .space import SearchSpace, SpaceError, load_space, violations
from .repeats import Held, Names, RepairingSampler, free_neighbour
from .studies import (DEFAULT_GRACE_S, DEFAULT_HEARTBEAT_S, SearchError, default_study_name, dtype_label,
                      fail_stale, make_storage, open_study)

SAMPLERS = ("auto", "tpe", "random", "grid", "cmaes")
AUTO_ENUMERATE_LIMIT = 20_000    # raw points walked (config + legality ~0.35 ms each) to see if the legal space is small
EXHAUSTIVE_LIMIT = 5_000         # a legal space up to this size is predicted whole (~2 ms each, in a process pool)
GRID_LIMIT = 50_000              # raw points walked for an explicit --sampler grid
MAX_REGION = 400_000             # predictions a region search may make before TPE refines it instead (~10 min, 2 cores)
Objective = Callable[[GemmProblem, KernelConfig, HardwareSpec], Any]   # -> perfmodel.predict.Prediction


def _make_sampler(name: str, seed: int | None, n_trials: int) -> optuna.samplers.BaseSampler:
    if name in ("tpe", "auto"):   # auto: the TPE that refines a region search cut short (see tune)
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=max(5, min(20, n_trials // 10)))
    if name in ("random", "grid"):   # grid: the sampler only matters if the queue is empty
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "cmaes":   # CMA-ES acts on the ordinal (integer) knobs; categorical ones go to random
        import importlib.util
        if importlib.util.find_spec("cmaes") is None:
            raise SearchError("--sampler cmaes needs the 'cmaes' package: pip install cmaes")
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
    raise SearchError(f"unknown sampler '{name}' (known: {', '.join(SAMPLERS)})")


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Ranked:
    rank: int
    config_name: str
    tflops: float
    bottleneck: str
    cycles: float | None
    trial_number: int


@dataclass(frozen=True)
class TuneStats:
    asked: int = 0            # trials made in this run (all states); a repaired repeat shares its trial
    completed: int = 0        # new COMPLETE trials
    illegal: int = 0          # suggestions refused by the legality rules (PRUNED, with their rule ids)
    duplicates: int = 0       # suggestions of a configuration another trial holds: repaired in place
                              # (user_attrs repeat_of) or, when found only once stored, told FAIL (duplicate_of)
    repaired: int = 0         # of those, replaced by a free neighbour before the trial stored them
    lost: int = 0             # trials failed by another worker's stale-trial check while running
    errors: int = 0           # trials whose objective raised (FAIL, user_attrs["error"])
    exhaustive: bool = False         # every legal configuration predicted, or the region search ran to its end
    legal_space: int | None = None   # size of the legal space when it was counted
    search: str = "sampler"          # exhaustive | region | sampler
    predicted: int = 0               # configurations predicted by the exhaustive / region search
    groups: int = 0                  # region search: groups in the space, and how many it predicted
    groups_searched: int = 0
    refined: int = 0                 # TPE trials after a region search cut short by max_region
    elapsed_s: float = 0.0
    stopped: str = ""         # why the run ended


@dataclass
class TuneResult:
    study: optuna.Study
    problem: GemmProblem
    hw: HardwareSpec
    space: SearchSpace
    stats: TuneStats = field(default_factory=TuneStats)
    _resources: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False, compare=False)

    def complete_trials(self) -> list[optuna.trial.FrozenTrial]:
        """COMPLETE trials, best first. The model often predicts exactly the same time for
        configurations that differ only in knobs it does not see (raster, group size, epilogue,
        stages beyond what hides latency); such ties go to the higher analytic-baseline TFLOP/s,
        then to fewer shared-memory bytes, then to the smaller cluster, then to the canonical name,
        so that the order never depends on which worker found a configuration first."""
        trials = self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        return sorted(trials, key=self._rank_key)

    def _rank_key(self, t: optuna.trial.FrozenTrial) -> tuple:
        name = t.user_attrs.get("config_name") or self.space.config(self.problem, self.hw, t.params).name
        if name not in self._resources:
            cfg = self.space.config(self.problem, self.hw, t.params) if t.params else KernelConfig.from_name(name)
            self._resources[name] = (smem_bytes(self.problem, cfg), cfg.cluster_size)
        return (-t.value, -float(t.user_attrs.get("analytic_tflops") or 0.0), *self._resources[name], name)

    def top(self, k: int = 10) -> list[Ranked]:
        return [Ranked(i + 1, t.user_attrs.get("config_name", ""), t.value,
                       str(t.user_attrs.get("bottleneck", "")), t.user_attrs.get("pred_cycles"), t.number)
                for i, t in enumerate(self.complete_trials()[:k])]

    @property
    def best_config(self) -> KernelConfig:
        best = self.top(1)
        if not best:
            raise SearchError(f"study '{self.study.study_name}' has no complete trial")
        return KernelConfig.from_name(best[0].config_name)

    def dataframe(self) -> pd.DataFrame:
        """Every trial of the study, Optuna's columns (``params_*``, ``user_attrs_*``, ``state``)."""
        return self.study.trials_dataframe()


# ---------------------------------------------------------------------------- the loop
def default_objective(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, clock=None):
    from ..prediction.predict import predict   # imported late: the model is the heaviest module
    return predict(problem, cfg, hw, clock=clock)


@dataclass
class _Run:
    study: optuna.Study
    problem: GemmProblem
    hw: HardwareSpec
    space: SearchSpace
    objective: Objective
    names: Names
    kernel_rules: bool = False
    grace_period_s: float = DEFAULT_GRACE_S
    counts: dict[str, int] = field(default_factory=lambda: dict(asked=0, completed=0, illegal=0, duplicates=0,
                                                                repaired=0, lost=0, errors=0))
    rng: random.Random = field(default_factory=random.Random)
    held: Held = None   # type: ignore[assignment]   # set in __post_init__
    repaired: tuple[int, int] | None = None   # (trial id, number of the holder) of the last repair

    def __post_init__(self):
        self.held = Held(self.names)

    def conflict(self, trial_id: int, name: str) -> int | None:
        """Another trial that holds this configuration (its number), else None.

        Called after our params are committed, on a fresh read. For two trials A and B with one
        configuration, at least one of them reads after the other's params are written (in one
        transaction, see search.storage), so at least one sees the other and stands down: never two
        COMPLETE. Both may stand down; the configuration then stays free."""
        return self.held.update(self.study.get_trials(deepcopy=False)).holder(name, trial_id)

    def is_free(self, params: dict) -> bool:
        """A legal configuration no trial holds (as last read) and none was found illegal."""
        cfg = self.space.config(self.problem, self.hw, params)
        return not self.held.taken(cfg.name) and \
            not violations(self.problem, cfg, self.hw, kernel_rules=self.kernel_rules)

    def repair(self, study: optuna.Study, trial: optuna.trial.FrozenTrial, params: dict) -> dict | None:
        """RepairingSampler's hook: a free neighbour for a whole suggestion another trial holds."""
        if not self.names.complete(params):
            return None
        self.held.update(study._get_trials(deepcopy=False, use_cache=True))   # read for this ask already
        other = self.held.holder(self.names.of_params(params), trial._trial_id)
        if other is None:
            return None
        fixed = free_neighbour(params, self.space, self.is_free, self.rng)
        if fixed is not None:
            self.repaired = (trial._trial_id, other)
        return fixed

    def heartbeat(self, trial: optuna.Trial) -> None:
        storage = self.study._storage
        if getattr(storage, "get_heartbeat_interval", lambda: None)() is not None:
            storage.record_heartbeat(trial._trial_id)

    def tell(self, trial: optuna.Trial, value: float | None = None, state: TrialState | None = None) -> bool:
        try:
            self.study.tell(trial, value, state=state)
            return True
        except (optuna.exceptions.UpdateFinishedTrialError, ValueError):
            # failed as stale by another worker: Optuna says "Cannot tell a FAIL trial" (ValueError)
            # when it sees that before writing, UpdateFinishedTrialError when the write finds it
            if not self.study._storage.get_trial(trial._trial_id).state.is_finished():
                raise
            self.counts["lost"] += 1
            return False

    def error(self, trial: optuna.Trial, exc: Exception) -> str:
        self.counts["errors"] += 1
        trial.set_user_attr("error", f"{type(exc).__name__}: {exc}"[:500])
        self.tell(trial, state=TrialState.FAIL)
        if self.counts["errors"] > max(10, 3 * self.counts["completed"]):   # broken, not unlucky
            raise SearchError(f"the objective failed on {self.counts['errors']} configurations; "
                              f"last on {trial.user_attrs.get('config_name', '?')}: {type(exc).__name__}: {exc}")
        return "error"

    def abandon(self, trial: optuna.Trial) -> None:
        """Interrupted while judging ``trial``: fail it now rather than leave it RUNNING."""
        try:
            self.study.tell(trial, state=TrialState.FAIL)
        except Exception:   # already finished, or the storage is gone: nothing more to do
            pass

    def evaluate(self, trial: optuna.Trial) -> str:
        """Judge one asked trial; returns 'complete', 'illegal', 'duplicate' or 'lost'."""
        self.counts["asked"] += 1
        self.heartbeat(trial)
        cfg = self.space.config(self.problem, self.hw, trial.params)
        trial.set_user_attr("config_name", cfg.name)
        if self.repaired is not None and self.repaired[0] == trial._trial_id:
            trial.set_user_attr("repeat_of", self.repaired[1])   # the sampler's repeat, repaired in place
            self.counts["duplicates"] += 1
            self.counts["repaired"] += 1
        other = self.conflict(trial._trial_id, cfg.name)
        if other is not None:
            trial.set_user_attr("duplicate_of", other)
            ok = self.tell(trial, state=TrialState.FAIL)
            self.counts["duplicates"] += ok
            return "duplicate" if ok else "lost"
        found = violations(self.problem, cfg, self.hw, kernel_rules=self.kernel_rules)
        try:
            pred = None if found else self.objective(self.problem, cfg, self.hw)
        except IllegalConfigError as exc:
            found = exc.violations
        except Exception as exc:   # a failing objective fails its trial, not the study
            return self.error(trial, exc)
        if not found and (getattr(pred, "deadlock", False) or not pred.tflops > 0):
            found = [_Deadlock(getattr(pred, "reason", "") or "the pipeline deadlocks")]
        if found:
            trial.set_user_attr("violations", sorted({v.rule for v in found}))
            ok = self.tell(trial, state=TrialState.PRUNED)
            self.counts["illegal"] += ok
            return "illegal" if ok else "lost"
        for key, value in _prediction_attrs(pred).items():
            trial.set_user_attr(key, value)
        ok = self.tell(trial, float(pred.tflops))
        self.counts["completed"] += ok
        return "complete" if ok else "lost"


@dataclass(frozen=True)
class _Deadlock:
    """A configuration the model reports as deadlocking (or with no throughput): pruned like an illegal one."""
    reason: str
    rule: str = "model-deadlock"


def _prediction_attrs(pred) -> dict[str, Any]:
    bottleneck = getattr(pred, "bottleneck", "")
    attrs = {"pred_cycles": _num(getattr(pred, "cycles", None)), "pred_time_s": _num(getattr(pred, "time_s", None)),
             "bottleneck": str(getattr(bottleneck, "value", bottleneck))}
    analytic = getattr(pred, "analytic", None)
    if analytic is not None and getattr(analytic, "tflops", None) is not None:
        attrs["analytic_tflops"] = _num(analytic.tflops)
    return {k: v for k, v in attrs.items() if v is not None}


def _num(x):
    return None if x is None else float(x)


def _complete_count(study: optuna.Study) -> int:
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def _grid_next(run: _Run, order: list[dict], start: int) -> tuple[dict | None, int]:
    """The first configuration of ``order`` (from ``start``) that no trial holds (as last read)."""
    for i in range(start, len(order)):
        if not run.held.taken(run.names.of_params(order[i])):
            return order[i], i
    return None, len(order)


def _enumerate_legal(space: SearchSpace, problem: GemmProblem, hw: HardwareSpec, limit: int,
                     stop_above: int | None, kernel_rules: bool) -> list[tuple[dict, KernelConfig]] | None:
    """(params, config) of every legal point when the raw space has at most ``limit`` points and (if given)
    at most ``stop_above`` of them are legal; else None (counting stops as soon as that is known)."""
    if space.size() > limit:
        return None
    out = []
    for item in space.enumerate(problem, hw, legal_only=True, kernel_rules=kernel_rules):
        out.append(item)
        if stop_above is not None and len(out) > stop_above:
            return None
    return out


def _params(items: list | None) -> list[dict] | None:
    return None if items is None else [params for params, _ in items]


def tune(problem: GemmProblem, hw: HardwareSpec, *, n_trials: int = 100, target_trials: int | None = None,
         storage: str | optuna.storages.BaseStorage | None = None, study_name: str | None = None,
         sampler: str = "auto", seed: int | None = None, space: SearchSpace | None = None,
         objective: Objective | None = None, show_progress_bar: bool = False,
         heartbeat_interval_s: int = DEFAULT_HEARTBEAT_S, grace_period_s: int = DEFAULT_GRACE_S,
         max_asks: int | None = None, kernel_rules: bool = False, clock=None, jobs: int | None = None,
         max_region: int | None = MAX_REGION, search_progress: Callable[[str], None] | None = None,
         prediction_cache: bool = False) -> TuneResult:
    """Search ``space`` (default: the stock space of ``hw``'s architecture) for the configuration
    with the highest predicted TFLOP/s. Runs until ``n_trials`` new COMPLETE trials are in the study,
    or the study holds ``target_trials`` COMPLETE ones (whichever comes first; the latter makes a
    rerun after a kill finish the same study), or the legal space is exhausted. ``kernel_rules``
    also keeps out what our own sm_90a kernel cannot build (for ``--validate-top``). ``clock`` is the clock
    regime of the default objective's predictions (sim/clock.py; default sustained); a study holds one regime
    (a non-default one is part of the default study name and of the study's ``clock`` attribute).

    ``sampler="auto"`` (the default) with the model as the objective finds the model's optimum whatever the
    seed: a legal space of at most EXHAUSTIVE_LIMIT configurations is predicted whole; a larger one is searched
    by branch and bound over groups of configurations with an upper bound (search/region.py), which predicts
    every configuration that could beat the best one found. Either way the predictions run in a process pool
    (``jobs``, default all cores) and the study records the ``n_trials`` best predicted configurations it does
    not hold yet (best first), so ``n_trials`` is how many of the model's top configurations the study gains.
    A region search stopped by ``max_region`` predictions is refined by ``n_trials`` TPE trials. The other
    samplers (tpe, random, cmaes; grid: every legal point, unordered) ask Optuna for each trial as before."""
    from ..sim.clock import Regime, parse_clock
    regime = parse_clock(clock)
    if n_trials < 0 or (target_trials is not None and target_trials < 0):
        raise SearchError("trial counts must be >= 0")
    if sampler not in SAMPLERS:
        raise SearchError(f"unknown sampler '{sampler}' (known: {', '.join(SAMPLERS)})")
    space = space or load_space(hw.arch)
    if space.arch is not hw.arch:
        raise SpaceError(f"search space {space.path or '<given>'} is for {space.arch.value}, "
                         f"{hw.name} is {hw.arch.value}")
    t0 = time.perf_counter()
    wanted = max(n_trials, target_trials or 0)
    if sampler == "auto" and objective is not None:
        sampler = "tpe"          # a custom objective: the region search needs the model's own bounds
    kind = "ours.pred" if kernel_rules else "pred"
    if regime.regime is not Regime.SUSTAINED:
        kind += "." + regime.label
    name = study_name or default_study_name(hw, problem, space, kind=kind)
    sampler_obj = _make_sampler(sampler, seed, n_trials)   # storage and study first: a bad one fails at once
    study = open_study(name,
                       make_storage(storage, heartbeat_interval_s=heartbeat_interval_s,
                                    grace_period_s=grace_period_s),
                       sampler_obj,
                       {"gpu": hw.name, "hw_fingerprint": hw.fingerprint, "problem": problem.shape_name(),
                        "dtype": dtype_label(problem), "space_fingerprint": space.fingerprint(),
                        "rules": "ptx+kernel" if kernel_rules else "ptx", "clock": regime.name})
    scored = region = None
    if sampler == "auto":
        from .cache import PredictionCache
        from .region import best_region, score
        cache = PredictionCache.open(problem, hw, regime) if prediction_cache else None
        legal_items = _enumerate_legal(space, problem, hw, AUTO_ENUMERATE_LIMIT, EXHAUSTIVE_LIMIT, kernel_rules)
        if legal_items is not None:
            scored = sorted(score(legal_items, problem, hw, regime, jobs=jobs, cache=cache), key=lambda x: x.rank_key())
            legal = _params(legal_items)
        else:
            region = best_region(space, problem, hw, regime, kernel_rules=kernel_rules, jobs=jobs,
                                 max_configurations=max_region, progress=search_progress, cache=cache)
            scored, legal = region.scored, None
    elif sampler == "grid":
        legal = _params(_enumerate_legal(space, problem, hw, GRID_LIMIT, None, kernel_rules))
        if legal is None:
            raise SearchError(f"the space has {space.size()} points, too many for --sampler grid "
                              f"(limit {GRID_LIMIT}); narrow it with --set KNOB=V1,V2")
    else:
        limit = min(GRID_LIMIT, max(AUTO_ENUMERATE_LIMIT, 4 * wanted))   # counting costs < the trials would
        legal = _params(_enumerate_legal(space, problem, hw, limit, wanted, kernel_rules))
    exhaustive = legal is not None if region is None else region.exhaustive
    if objective is None:   # the default regime calls default_objective as it stands (tests replace it)
        objective = default_objective if regime.regime is Regime.SUSTAINED else \
            functools.partial(default_objective, clock=regime)
    if scored is not None:  # predicted already (in a pool): the trials look their predictions up
        objective = _Lookup({s.config_name: s for s in scored}, objective)
    run = _Run(study, problem, hw, space, objective, Names(space, problem, hw),
               kernel_rules, grace_period_s, rng=random.Random(f"{name}/{seed}/{os.getpid()}"))
    run.held.update(study.get_trials(deepcopy=False))
    study.sampler = RepairingSampler(study.sampler, run.repair)
    asks = max_asks if max_asks is not None else max(10 * n_trials, n_trials + 1000)
    refined = 0
    if scored is not None:   # the model's best first: the study gains the n_trials best it does not hold
        order = [s.params for s in scored if not s.deadlock and s.tflops > 0]
        stopped = _loop(run, n_trials, target_trials, order, asks, show_progress_bar)
        if region is not None and not region.exhaustive and n_trials:
            before = run.counts["completed"]
            _loop(run, run.counts["completed"] + n_trials, target_trials, None, asks + run.counts["asked"],
                  show_progress_bar)
            refined = run.counts["completed"] - before
            stopped += f"; the region search stopped at {max_region} predictions: {refined} TPE trials refined it"
    else:
        order = list(legal or [])
        random.Random(f"{seed}/{os.getpid()}").shuffle(order)   # workers walk the grid in different orders
        stopped = _loop(run, n_trials, target_trials, order if exhaustive else None, asks, show_progress_bar)
    search = "sampler" if scored is None else ("region" if region is not None else "exhaustive")
    stats = TuneStats(exhaustive=exhaustive, legal_space=None if legal is None else len(legal),
                      elapsed_s=time.perf_counter() - t0, stopped=stopped, search=search,
                      predicted=len(scored or []), groups=region.groups if region else 0,
                      groups_searched=region.groups_searched if region else 0, refined=refined, **run.counts)
    return TuneResult(study, problem, hw, space, stats)


class _Lookup:
    """The objective of configurations predicted in advance (a region or exhaustive search); anything else
    (TPE refining, a repaired repeat) is predicted by ``fallback``."""

    def __init__(self, table: dict, fallback):
        self.table, self.fallback = table, fallback

    def __call__(self, problem, cfg, hw):
        s = self.table.get(cfg.name)
        if s is None:
            return self.fallback(problem, cfg, hw)
        if s.bottleneck == "illegal":
            raise IllegalConfigError([])
        from types import SimpleNamespace
        return SimpleNamespace(tflops=s.tflops, deadlock=s.deadlock, reason=s.reason, cycles=s.cycles,
                               time_s=s.time_s, bottleneck=s.bottleneck,
                               analytic=SimpleNamespace(tflops=s.analytic_tflops))


def _ask(study: optuna.Study, dists: dict, base: optuna.samplers.BaseSampler, fixed: dict | None):
    """A new trial; with ``fixed`` params when given (Optuna's PartialFixedSampler, local to this
    process: nothing is queued in the shared study, so a stopped worker leaves nothing behind)."""
    with warnings.catch_warnings():   # ask/tell with heartbeats (we record them) and experimental classes
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        study.sampler = base if fixed is None else optuna.samplers.PartialFixedSampler(fixed, base)
        try:
            return study.ask(dists)
        finally:
            study.sampler = base


def _loop(run: _Run, n_trials: int, target: int | None, grid: list[dict] | None, max_asks: int,
          progress: bool) -> str:
    from tqdm.auto import tqdm   # ships with Optuna, which uses it for show_progress_bar

    dists, base = run.space.distributions(), run.study.sampler
    bar = tqdm(total=n_trials, disable=not progress, file=sys.stderr, unit="trial", leave=False)
    cursor, fixed = 0, None
    try:
        while True:
            if run.counts["completed"] >= n_trials:
                return f"{n_trials} new trials complete"
            if target is not None and _complete_count(run.study) >= target:
                return f"the study holds {target} complete trials"
            if run.counts["asked"] >= max_asks:
                return f"stopped after {max_asks} suggestions"
            if run.counts["asked"] % 16 == 0:
                fail_stale(run.study, run.grace_period_s)
            if grid is not None:
                fixed, cursor = _grid_next(run, grid, cursor)
                if fixed is None:
                    return "the legal space is exhausted"
            trial = _ask(run.study, dists, base, fixed)
            try:
                outcome = run.evaluate(trial)
            except BaseException:   # Ctrl-C, or too many objective errors
                run.abandon(trial)
                raise
            fixed = None
            if outcome == "complete":
                bar.update(1)
            elif outcome == "duplicate" and grid is not None:
                if trial.params == grid[cursor]:
                    grid.append(grid.pop(cursor))   # another worker holds it: try it again last
            elif outcome == "duplicate":
                fixed = free_neighbour(trial.params, run.space, run.is_free, run.rng)
    finally:
        bar.close()


__all__ = ["SAMPLERS", "Ranked", "SearchError", "TuneResult", "TuneStats", "dtype_label", "make_storage",
           "default_study_name", "open_study", "tune"]
