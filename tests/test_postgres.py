"""Distributed tuning: 4 worker processes share one study in a real PostgreSQL 15 server.

The server is started here, on a temporary directory and a free port, as a non-root user when the
tests run as root (initdb refuses root). Set PERFMODEL_TEST_POSTGRES_URL to use a running server
instead. Skipped only when neither the binaries nor the URL are available.
"""
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from perfmodel.search.tuner import make_storage

pytestmark = pytest.mark.postgres
PG_BIN = Path(os.environ.get("PERFMODEL_PG_BIN", "/usr/lib/postgresql/15/bin"))
TESTS = Path(__file__).resolve().parent
optuna.logging.set_verbosity(optuna.logging.WARNING)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_user(cmd: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--"] + cmd if user else cmd


@pytest.fixture(scope="module")
def postgres_url():
    if os.environ.get("PERFMODEL_TEST_POSTGRES_URL"):
        yield os.environ["PERFMODEL_TEST_POSTGRES_URL"]
        return
    pytest.importorskip("psycopg2")
    if not (PG_BIN / "initdb").exists():
        pytest.skip(f"PostgreSQL binaries not found in {PG_BIN}")
    user = None
    base = Path(tempfile.mkdtemp(prefix="perfmodel-pg-"))
    if os.geteuid() == 0:   # initdb and postgres refuse to run as root
        user = next((u for u in ("postgres", "nobody") if _has_user(u)), None)
        if user is None or shutil.which("runuser") is None:
            pytest.skip("running as root with no 'postgres'/'nobody' user or no runuser")
        pw = pwd.getpwnam(user)
        os.chown(base, pw.pw_uid, pw.pw_gid)
    data, port = base / "data", _free_port()
    subprocess.run(_as_user([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                             "-E", "UTF8", "--no-sync"], user), check=True, capture_output=True)
    opts = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
    subprocess.run(_as_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(base / "log"),
                             "-w", "-t", "30", "start"], user), check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], user),
                       capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


WORKER = textwrap.dedent("""
    import sys, optuna
    sys.path.insert(0, {tests!r})
    from tune_fakes import fake_objective
    from perfmodel import load_hardware, make_problem
    from perfmodel.search.tuner import make_storage, tune
    from test_search import small_space
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = make_storage({url!r})
    problem, hw = make_problem("8192x8192x8192", "bf16"), load_hardware("h100-sxm")
    for study, sampler, space, n in {runs!r}:
        r = tune(problem, hw, n_trials=n, storage=storage, study_name=study, sampler=sampler, seed={seed},
                 space=small_space() if space == "small" else None, objective=fake_objective)
        assert r.stats.completed == n, r.stats
""")


def _assert_recorded_once(study, expected: int):
    trials = study.get_trials()
    numbers = [t.number for t in trials]
    assert len(numbers) == len(set(numbers)) and sorted(numbers) == list(range(len(trials)))
    complete = [t for t in trials if t.state is TrialState.COMPLETE]
    assert len(complete) == expected
    names = [t.user_attrs["config_name"] for t in complete]
    assert len(set(names)) == expected
    params = [tuple(sorted(t.params.items())) for t in complete]
    assert len(set(params)) == expected
    assert not [t for t in trials if t.state in (TrialState.RUNNING, TrialState.WAITING)]


def test_four_workers_share_one_study_and_record_each_trial_once(postgres_url, tmp_path):
    """Each of 4 processes enumerates 8 configurations of one study (grid), runs 6 TPE trials of
    another, then 15 TPE trials of a third on a space of ~90 legal configurations (TPE converges and
    repeats itself: repairs and conflicts between workers): 32, 24 and 60 COMPLETE trials, distinct
    numbers, distinct parameter sets."""
    tag = uuid.uuid4().hex[:8]
    runs = [(f"grid-{tag}", "grid", "small", 8), (f"tpe-{tag}", "tpe", "stock", 6),
            (f"tpe-small-{tag}", "tpe", "small", 15)]
    procs = []
    for i in range(4):
        script = tmp_path / f"worker{i}.py"
        script.write_text(WORKER.format(tests=str(TESTS), url=postgres_url, runs=runs, seed=100 + i))
        procs.append(subprocess.Popen([sys.executable, str(script)], cwd=TESTS.parent,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    deadline = time.time() + 150
    for p in procs:
        out, _ = p.communicate(timeout=max(1, deadline - time.time()))
        assert p.returncode == 0, out[-2000:]
    storage = make_storage(postgres_url)
    grid = optuna.load_study(study_name=runs[0][0], storage=storage)
    _assert_recorded_once(grid, 32)
    assert all("duplicate_of" in t.user_attrs for t in grid.get_trials(states=(TrialState.FAIL,)))
    _assert_recorded_once(optuna.load_study(study_name=runs[1][0], storage=storage), 24)
    crowded = optuna.load_study(study_name=runs[2][0], storage=storage)
    _assert_recorded_once(crowded, 60)
    assert any("repeat_of" in t.user_attrs for t in crowded.trials)
