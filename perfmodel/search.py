"""`perfmodel tune`: an Optuna study over the legal configuration space, the model as the objective.

- One study per (GPU, problem, dtype): ``<gpu>.<MxNxK>.<dtype>.pred`` (a narrowed space adds its
  fingerprint), ``load_if_exists=True``, metric ``tflops`` (maximised). Storage: in memory, or an RDB
  URL (SQLite by default on the CLI; PostgreSQL to share one study between machines) with Optuna's
  heartbeat, so the RUNNING trials of a killed worker are failed once their grace period is over.
- ask/tell with the space's fixed distributions. An illegal suggestion is told PRUNED with its rule ids
  (no fake value; TPE ranks pruned trials below complete ones and learns to avoid them) and does not
  count against ``n_trials``. A suggestion whose configuration another RUNNING or COMPLETE trial
  already holds is told FAIL (``duplicate_of``): every COMPLETE trial is a distinct configuration,
  also with several workers on one study (see ``_conflict``).
- When the legal space is no larger than the trials asked for, it is enumerated exhaustively
  (``sampler="grid"`` asks for that explicitly).
"""
from __future__ import annotations

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

from .config import KernelConfig
from .errors import IllegalConfigError
from .hardware import HardwareSpec
from .problem import GemmProblem
from .space import SearchSpace, SpaceError, load_space, violations
from .studies import (DEFAULT_GRACE_S, DEFAULT_HEARTBEAT_S, SearchError, default_study_name, dtype_label,
                      fail_stale, make_storage, open_study)

SAMPLERS = ("tpe", "random", "grid", "cmaes")
AUTO_ENUMERATE_LIMIT = 4_000     # raw points walked (legality ~0.2 ms each) to see if the legal space is small
GRID_LIMIT = 50_000              # raw points walked for an explicit --sampler grid
Objective = Callable[[GemmProblem, KernelConfig, HardwareSpec], Any]   # -> perfmodel.predict.Prediction


def _make_sampler(name: str, seed: int | None, n_trials: int) -> optuna.samplers.BaseSampler:
    if name == "tpe":
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
    asked: int = 0            # suggestions made in this run, each a trial of the study (all states)
    completed: int = 0        # new COMPLETE trials
    illegal: int = 0          # suggestions refused by the legality rules (PRUNED, with their rule ids)
    duplicates: int = 0       # suggestions of a configuration the study holds already (FAIL, duplicate_of)
    lost: int = 0             # trials failed by another worker's stale-trial check while running
    errors: int = 0           # trials whose objective raised (FAIL, user_attrs["error"])
    exhaustive: bool = False
    legal_space: int | None = None   # size of the legal space when it was counted
    elapsed_s: float = 0.0
    stopped: str = ""         # why the run ended


@dataclass
class TuneResult:
    study: optuna.Study
    problem: GemmProblem
    hw: HardwareSpec
    space: SearchSpace
    stats: TuneStats = field(default_factory=TuneStats)

    def complete_trials(self) -> list[optuna.trial.FrozenTrial]:
        trials = self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        return sorted(trials, key=lambda t: (-t.value, t.number))

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
def default_objective(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec):
    from .predict import predict   # imported late: the model is the heaviest module
    return predict(problem, cfg, hw)


class _Names:
    """Configuration name of each trial from its params (memoised: the space maps params -> config)."""

    def __init__(self, space: SearchSpace, problem: GemmProblem, hw: HardwareSpec):
        self.space, self.problem, self.hw = space, problem, hw
        self._memo: dict[tuple, str] = {}
        self.n_params = len(space.searched)

    def of_params(self, params: dict) -> str:
        key = tuple(sorted(params.items()))
        if key not in self._memo:
            self._memo[key] = self.space.config(self.problem, self.hw, params).name
        return self._memo[key]

    def of(self, trial: optuna.trial.FrozenTrial) -> str:
        return trial.user_attrs.get("config_name") or self.of_params(trial.params)


def _holds(t: optuna.trial.FrozenTrial) -> bool:
    """Whether a trial keeps its configuration from being tried again: any live or finished trial,
    and a FAIL whose objective raised (the model is deterministic: it would raise again)."""
    return t.state is not TrialState.FAIL or "error" in t.user_attrs


def _conflict(study: optuna.Study, trial_id: int, name: str, names: _Names) -> int | None:
    """Another RUNNING or COMPLETE trial with this configuration (its number), else None.

    Called after our params are committed. For two trials A and B with one configuration, at least
    one of them reads after the other's params are all written, so at least one sees the other and
    stands down: never two COMPLETE. Both may stand down; the configuration then stays free. A trial
    whose params are still being written is skipped: it will read after ours and see us."""
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.COMPLETE, TrialState.FAIL)):
        if t.state is TrialState.FAIL and "error" not in t.user_attrs:
            continue   # a duplicate or a dead worker's trial frees its configuration; an objective error does not
        if t._trial_id != trial_id and len(t.params) == names.n_params and names.of(t) == name:
            return t.number
    return None


@dataclass
class _Run:
    study: optuna.Study
    problem: GemmProblem
    hw: HardwareSpec
    space: SearchSpace
    objective: Objective
    names: _Names
    kernel_rules: bool = False
    grace_period_s: float = DEFAULT_GRACE_S
    counts: dict[str, int] = field(default_factory=lambda: dict(asked=0, completed=0, illegal=0,
                                                                duplicates=0, lost=0, errors=0))

    def taken(self) -> set[str]:
        """Configurations held by a live or finished trial of the study (a read of the storage)."""
        return {self.names.of(t) for t in self.study.get_trials(deepcopy=False)
                if _holds(t) and len(t.params) == self.names.n_params}

    def verdict(self, params: dict, taken: set[str]) -> str | None:
        """None for a legal configuration no trial holds, else 'illegal' or 'duplicate'."""
        cfg = self.space.config(self.problem, self.hw, params)
        if cfg.name in taken:
            return "duplicate"
        return "illegal" if violations(self.problem, cfg, self.hw, kernel_rules=self.kernel_rules) else None

    def heartbeat(self, trial: optuna.Trial) -> None:
        storage = self.study._storage
        if getattr(storage, "get_heartbeat_interval", lambda: None)() is not None:
            storage.record_heartbeat(trial._trial_id)

    def tell(self, trial: optuna.Trial, value: float | None = None, state: TrialState | None = None) -> bool:
        try:
            self.study.tell(trial, value, state=state)
            return True
        except optuna.exceptions.UpdateFinishedTrialError:   # failed as stale by another worker
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
        other = _conflict(self.study, trial._trial_id, cfg.name, self.names)
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
    """The first configuration of ``order`` (from ``start``) that no live or finished trial holds."""
    taken = run.taken()
    for i in range(start, len(order)):
        if run.names.of_params(order[i]) not in taken:
            return order[i], i
    return None, len(order)


def _free_neighbour(run: _Run, params: dict, rng: random.Random, taken: set[str] | None = None) -> dict | None:
    """Repair for a sampler that re-suggests a configuration the study holds (TPE does once it has
    converged): a legal configuration no trial holds yet, one knob away if possible, else None."""
    taken = run.taken() if taken is None else taken
    moves = [(k.name, v) for k in run.space.searched for v in k.values if v != params.get(k.name)]
    rng.shuffle(moves)
    candidates = [{**params, name: value} for name, value in moves]
    candidates += [{k.name: rng.choice(k.values) for k in run.space.searched} for _ in range(256)]
    for cand in candidates:   # one knob away first, then anywhere
        if run.verdict(cand, taken) is None:
            return cand
    return None


def _enumerate_legal(space: SearchSpace, problem: GemmProblem, hw: HardwareSpec, limit: int,
                     stop_above: int | None, kernel_rules: bool) -> list[dict] | None:
    """Every legal point when the raw space has at most ``limit`` points and (if given) at most
    ``stop_above`` of them are legal; else None (counting stops as soon as that is known)."""
    if space.size() > limit:
        return None
    out = []
    for params, _ in space.enumerate(problem, hw, legal_only=True, kernel_rules=kernel_rules):
        out.append(params)
        if stop_above is not None and len(out) > stop_above:
            return None
    return out


def tune(problem: GemmProblem, hw: HardwareSpec, *, n_trials: int = 100, target_trials: int | None = None,
         storage: str | optuna.storages.BaseStorage | None = None, study_name: str | None = None,
         sampler: str = "tpe", seed: int | None = None, space: SearchSpace | None = None,
         objective: Objective | None = None, show_progress_bar: bool = False,
         heartbeat_interval_s: int = DEFAULT_HEARTBEAT_S, grace_period_s: int = DEFAULT_GRACE_S,
         max_asks: int | None = None, kernel_rules: bool = False) -> TuneResult:
    """Search ``space`` (default: the stock space of ``hw``'s architecture) for the configuration
    with the highest predicted TFLOP/s. Runs until ``n_trials`` new COMPLETE trials are in the study,
    or the study holds ``target_trials`` COMPLETE ones (whichever comes first; the latter makes a
    rerun after a kill finish the same study), or the legal space is exhausted. ``kernel_rules``
    also keeps out what our own sm_90a kernel cannot build (for ``--validate-top``)."""
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
    if sampler == "grid":
        legal = _enumerate_legal(space, problem, hw, GRID_LIMIT, None, kernel_rules)
        if legal is None:
            raise SearchError(f"the space has {space.size()} points, too many for --sampler grid "
                              f"(limit {GRID_LIMIT}); narrow it with --set KNOB=V1,V2")
    else:
        limit = min(GRID_LIMIT, max(AUTO_ENUMERATE_LIMIT, 4 * wanted))   # counting costs < the trials would
        legal = _enumerate_legal(space, problem, hw, limit, wanted, kernel_rules)
    exhaustive = legal is not None
    name = study_name or default_study_name(hw, problem, space, kind="ours.pred" if kernel_rules else "pred")
    sampler_obj = _make_sampler(sampler, seed, n_trials)
    study = open_study(name,
                       make_storage(storage, heartbeat_interval_s=heartbeat_interval_s,
                                    grace_period_s=grace_period_s),
                       sampler_obj,
                       {"gpu": hw.name, "hw_fingerprint": hw.fingerprint, "problem": problem.shape_name(),
                        "dtype": dtype_label(problem), "space_fingerprint": space.fingerprint(),
                        "rules": "ptx+kernel" if kernel_rules else "ptx"})
    run = _Run(study, problem, hw, space, objective or default_objective, _Names(space, problem, hw),
               kernel_rules, grace_period_s)
    order = list(legal or [])
    random.Random(f"{seed}/{os.getpid()}").shuffle(order)   # workers walk the grid in different orders
    stopped = _loop(run, n_trials, target_trials, order if exhaustive else None,
                    max_asks if max_asks is not None else max(10 * n_trials, n_trials + 1000),
                    show_progress_bar)
    stats = TuneStats(exhaustive=exhaustive, legal_space=None if legal is None else len(legal),
                      elapsed_s=time.perf_counter() - t0, stopped=stopped, **run.counts)
    return TuneResult(study, problem, hw, space, stats)


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
    rng = random.Random(f"{run.study.study_name}/{os.getpid()}/{run.counts['asked']}")
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
                fixed = _free_neighbour(run, trial.params, rng)
    finally:
        bar.close()


__all__ = ["SAMPLERS", "Ranked", "SearchError", "TuneResult", "TuneStats", "dtype_label", "make_storage",
           "default_study_name", "open_study", "tune"]
