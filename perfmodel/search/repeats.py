"""Repeated configurations in `perfmodel tune`: which configurations a study holds, the check that
keeps two workers from completing one configuration, and the repair of a sampler's repeats.

- ``Held`` indexes the configurations of a study's trials in this process, updated from each trial
  list read (a finished trial never changes, so each is looked at once; RUNNING ones every time).
- A configuration is *held* by a COMPLETE trial, a RUNNING one whose parameters are all written,
  and a trial whose objective raised (the model is deterministic: it would raise again). A repeat
  of a held configuration is a duplicate; a repeat of an illegal (PRUNED) one is judged again and
  pruned again, so the sampler keeps learning where the illegal corners are.
- ``RepairingSampler`` wraps the study's sampler: when a relative suggestion (all knobs at once, as
  TPE makes after its startup trials) is a configuration held already, it is replaced before the
  trial stores it by a legal, free configuration one knob away. That is what a duplicate trial told
  FAIL and followed by a repaired trial did before, in one trial instead of two; the trial records
  the repeat (``user_attrs["repeat_of"]``, the number of the trial that holds it).
"""
from __future__ import annotations

import random
from typing import Callable, Iterable

import optuna
from optuna.trial import FrozenTrial, TrialState

from ..hardware import HardwareSpec
from ..problem import GemmProblem
from .space import SearchSpace

N_RANDOM_NEIGHBOURS = 256   # random legal points tried after the one-knob moves


class Names:
    """Configuration name of each trial from its params (memoised: the space maps params -> config)."""

    def __init__(self, space: SearchSpace, problem: GemmProblem, hw: HardwareSpec):
        self.space, self.problem, self.hw = space, problem, hw
        self._memo: dict[tuple, str] = {}
        self.searched = frozenset(k.name for k in space.searched)

    def of_params(self, params: dict) -> str:
        key = tuple(sorted(params.items()))
        if key not in self._memo:
            self._memo[key] = self.space.config(self.problem, self.hw, params).name
        return self._memo[key]

    def of(self, trial: FrozenTrial) -> str:
        return trial.user_attrs.get("config_name") or self.of_params(trial.params)

    def complete(self, params: dict) -> bool:
        return len(params) == len(self.searched)


class Held:
    """The configurations a study's trials hold, as last read by this process."""

    def __init__(self, names: Names):
        self.names = names
        self._done: set[int] = set()            # numbers of the finished trials indexed already
        self._final: dict[str, int] = {}        # COMPLETE, or failed in the objective -> first number
        self._pruned: set[str] = set()          # illegal, or deadlocking in the model
        self._running: dict[str, list[tuple[int, int]]] = {}   # -> [(number, trial_id)]

    def update(self, trials: Iterable[FrozenTrial]) -> "Held":
        """Index a full trial list of the study (``study.get_trials``, any order)."""
        running: dict[str, list[tuple[int, int]]] = {}
        for t in trials:
            if t.number in self._done or not self.names.complete(t.params):
                continue
            if t.state is TrialState.RUNNING:
                running.setdefault(self.names.of(t), []).append((t.number, t._trial_id))
            elif t.state.is_finished():
                self._done.add(t.number)
                name = self.names.of(t)
                if t.state is TrialState.COMPLETE or (t.state is TrialState.FAIL and "error" in t.user_attrs):
                    self._final[name] = min(t.number, self._final.get(name, t.number))
                elif t.state is TrialState.PRUNED:
                    self._pruned.add(name)
        self._running = running
        return self

    def holder(self, name: str, trial_id: int | None = None) -> int | None:
        """The number of a trial other than ``trial_id`` that holds ``name``, else None."""
        numbers = [n for n, tid in self._running.get(name, ()) if tid != trial_id]
        if name in self._final:
            numbers.append(self._final[name])
        return min(numbers) if numbers else None

    def taken(self, name: str) -> bool:
        """Held, or known to be illegal: not worth suggesting again."""
        return name in self._final or name in self._pruned or name in self._running


def free_neighbour(params: dict, space: SearchSpace, is_free: Callable[[dict], bool],
                   rng: random.Random) -> dict | None:
    """A configuration ``is_free`` accepts: one knob away from ``params`` if possible, else a random
    one of the space (``N_RANDOM_NEIGHBOURS`` tries), else None."""
    moves = [(k.name, v) for k in space.searched for v in k.values if v != params.get(k.name)]
    rng.shuffle(moves)
    for name, value in moves:
        cand = {**params, name: value}
        if is_free(cand):
            return cand
    for _ in range(N_RANDOM_NEIGHBOURS):
        cand = {k.name: rng.choice(k.values) for k in space.searched}
        if is_free(cand):
            return cand
    return None


Repair = Callable[[optuna.Study, FrozenTrial, dict], "dict | None"]


class RepairingSampler(optuna.samplers.BaseSampler):
    """``base`` with its relative suggestions passed through ``repair`` (None keeps them)."""

    def __init__(self, base: optuna.samplers.BaseSampler, repair: Repair):
        self.base, self._repair = base, repair

    def infer_relative_search_space(self, study, trial):
        return self.base.infer_relative_search_space(study, trial)

    def sample_relative(self, study, trial, search_space):
        params = self.base.sample_relative(study, trial, search_space)
        return (self._repair(study, trial, params) if params else None) or params

    def sample_independent(self, study, trial, param_name, param_distribution):
        return self.base.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study, trial):
        self.base.before_trial(study, trial)

    def after_trial(self, study, trial, state, values):
        self.base.after_trial(study, trial, state, values)

    def reseed_rng(self):
        self.base.reseed_rng()


__all__ = ["Held", "Names", "RepairingSampler", "free_neighbour"]
