"""Search: find the best configuration for a problem with the model as the objective. ``space`` is the
legal configuration space (knobs and values from configs/search/*.toml, each sourced), ``tuner`` runs the
Optuna study over it (ask/tell, pruned illegal suggestions, exhaustive enumeration of small spaces),
``studies`` and ``storage`` keep studies in SQLite or PostgreSQL so runs resume and share work,
``repeats`` repairs TPE's repeated suggestions, and ``validate_top`` measures the tuner's top
candidates on a GPU. Imports Optuna (``import perfmodel`` does not).
"""
from .space import SearchSpace, SpaceError, load_space, parse_override
from .tuner import SAMPLERS, Ranked, SearchError, TuneResult, TuneStats, tune

__all__ = ["SAMPLERS", "Ranked", "SearchError", "SearchSpace", "SpaceError", "TuneResult", "TuneStats",
           "load_space", "parse_override", "tune"]
