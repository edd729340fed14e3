"""Studies of `perfmodel tune`: names, storage (in memory, SQLite, PostgreSQL), opening with a check
of what the study was made for, and failing the trials of dead workers.

Nothing home-made coordinates workers: Optuna's RDB storage does (design.md). What is added here is
configuration of it (SQLite's write-ahead log, the psycopg2 driver, heartbeats) and one check Optuna
leaves to its users: a RUNNING trial whose worker was killed before it recorded a heartbeat.
"""
from __future__ import annotations

import datetime
import importlib.util
import random
import time
import warnings
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from ..errors import PerfmodelError
from ..hardware import HardwareSpec
from ..problem import GemmProblem, Major
from .space import SearchSpace, load_space
from .storage import BatchedStorage

DEFAULT_HEARTBEAT_S = 10
DEFAULT_GRACE_S = 60


class SearchError(PerfmodelError):
    """A study that cannot be opened or continued as asked."""


# ---------------------------------------------------------------------------- naming and storage
def dtype_label(problem: GemmProblem) -> str:
    a, b = problem.a_dtype.value, problem.b_dtype.value
    label = a if a == b else f"{a}-{b}"
    if problem.scale_type is not None:
        label += f"-{problem.scale_type.value}x{problem.scale_vec_size}"
    if problem.sparse_a:
        label += "-sp"
    if problem.a_major is not Major.K or problem.b_major is not Major.K:
        label += f"-{problem.a_major.value}{problem.b_major.value}"
    return label


def default_study_name(hw: HardwareSpec, problem: GemmProblem, space: SearchSpace | None = None,
               kind: str = "pred") -> str:
    """``<gpu>.<MxNxK>.<dtype>.<pred|hw>``; a space other than the stock one adds ``s<fingerprint>``."""
    parts = [hw.name, problem.shape_name() + (f"b{problem.batch}" if problem.batch > 1 else ""),
             dtype_label(problem)]
    if space is not None and space.fingerprint() != load_space(hw.arch).fingerprint():
        parts.append("s" + space.fingerprint()[:8])
    return ".".join(parts + [kind])


def make_storage(storage: str | optuna.storages.BaseStorage | None, *,
                 heartbeat_interval_s: int = DEFAULT_HEARTBEAT_S, grace_period_s: int = DEFAULT_GRACE_S):
    """Optuna's one-argument dispatch: None -> in memory; a URL -> RDB with heartbeat; else as is."""
    if storage is None or not isinstance(storage, str):
        return storage
    if not storage.startswith(("sqlite:", "postgresql", "mysql")):
        raise SearchError(f"unsupported storage URL '{storage}' (sqlite:///FILE or postgresql://...)")
    storage = _with_pg_driver(storage)
    sqlite = storage.startswith("sqlite:")
    if sqlite:
        _check_sqlite_file(storage)   # a wrong path fails at once, not after the retries below
    engine_kwargs: dict[str, Any] = {"connect_args": {"timeout": 60}} if sqlite else {"pool_pre_ping": True}
    last: Exception | None = None
    for attempt in range(4):   # first use of a fresh database by several workers races on CREATE TABLE
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                rdb = optuna.storages.RDBStorage(storage, engine_kwargs=engine_kwargs,
                                                 heartbeat_interval=heartbeat_interval_s,
                                                 grace_period=grace_period_s)
            if sqlite:
                _sqlite_wal(rdb.engine)
            return BatchedStorage(rdb)
        except Exception as exc:  # sqlalchemy errors differ per dialect; retried, then reported
            last = exc
            time.sleep(0.2 + random.random() * (attempt + 1))
    raise SearchError(f"cannot open storage {storage}: {str(last).splitlines()[0]}")


def _check_sqlite_file(url: str) -> None:
    """The file of a ``sqlite:///FILE`` URL: its directory exists, and the file is absent, empty or a
    SQLite database (never anything else: Optuna would fail on it after retries, or worse, use it)."""
    path = url.split("?", 1)[0].removeprefix("sqlite://").removeprefix("/")
    if path == ":memory:":
        return
    if not path.strip():
        raise SearchError(f"--storage {url}: no database file (e.g. sqlite:///perfmodel.db; 'memory' keeps nothing)")
    f = Path(path)
    if not f.parent.is_dir():
        raise SearchError(f"--storage {url}: directory {f.parent} does not exist")
    if f.is_dir():
        raise SearchError(f"--storage {url}: {f} is a directory, not a database file")
    if f.is_file() and f.stat().st_size > 0:
        try:
            with f.open("rb") as fh:
                magic = fh.read(16)
        except OSError as exc:
            raise SearchError(f"--storage {url}: cannot read {f} ({exc.strerror})") from None
        if magic != b"SQLite format 3\x00":
            raise SearchError(f"--storage {url}: {f} is not a SQLite database (left untouched)")


def _with_pg_driver(url: str) -> str:
    """SQLAlchemy 2.1 maps plain ``postgresql://`` to psycopg 3; use psycopg2 when only it is installed."""
    if url.startswith("postgresql://") and importlib.util.find_spec("psycopg") is None \
            and importlib.util.find_spec("psycopg2") is not None:
        return "postgresql+psycopg2://" + url[len("postgresql://"):]
    return url


def _sqlite_wal(engine) -> None:
    """Write-ahead log and one fsync per checkpoint: 135 -> 18 ms per trial on this machine's disk
    (benchmarks/bench_tune.py). A killed process loses nothing committed; only a power cut can."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn, _record):
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    engine.dispose()   # connections opened before the listener reconnect with it


def open_study(name: str, storage, sampler, attrs: dict[str, Any]) -> optuna.Study:
    """Create or load the study; refuse one made for another problem, GPU spec or space."""
    try:
        study = optuna.create_study(study_name=name, storage=storage, sampler=sampler,
                                    direction="maximize", load_if_exists=True)
    except ValueError as exc:   # e.g. an existing study with another direction
        raise SearchError(f"study '{name}': {exc}") from None
    old = study.user_attrs
    for key, value in attrs.items():
        if key in old and old[key] != value:
            raise SearchError(f"study '{name}' was made with {key}={old[key]!r}, not {value!r}; "
                              "pass --study NEW_NAME for a new study")
    for key, value in attrs.items():
        if key not in old:
            study.set_user_attr(key, value)
    if study.metric_names is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            study.set_metric_names(["tflops"])
    return study


def fail_stale(study: optuna.Study, grace_period_s: float) -> None:
    """Fail RUNNING trials whose worker died: those whose heartbeat went stale (Optuna), and those
    older than the grace period that never got a heartbeat (killed inside ``ask``, before we could
    record one: every live trial records it before its ``config_name``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)
    if getattr(study._storage, "get_heartbeat_interval", lambda: None)() is None:
        return   # in memory: no other process can hold a trial
    now = datetime.datetime.now()
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if "config_name" not in t.user_attrs and t.datetime_start is not None \
                and (now - t.datetime_start).total_seconds() > grace_period_s:
            try:
                study.tell(t.number, state=TrialState.FAIL)
            except (ValueError, RuntimeError, optuna.exceptions.UpdateFinishedTrialError):
                pass   # another worker finished or failed it first


__all__ = ["DEFAULT_GRACE_S", "DEFAULT_HEARTBEAT_S", "SearchError", "default_study_name", "dtype_label",
           "fail_stale", "make_storage", "open_study"]
