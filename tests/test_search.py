"""The Optuna search: counts, states, exhaustive enumeration, storage, resumption after a kill, CLI."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

import perfmodel.search.tuner as search
from perfmodel import KernelConfig, check, load_hardware, make_problem
from perfmodel.cli import main
from perfmodel.hardware import Arch
from perfmodel.search.tuner import SearchError, default_study_name, tune
from perfmodel.search.space import load_space, violations
from tune_fakes import fake_objective

H100 = load_hardware("h100-sxm")
BF16 = make_problem("8192x8192x8192", "bf16")
TESTS = Path(__file__).resolve().parent
optuna.logging.set_verbosity(optuna.logging.WARNING)


def small_space():
    """About 60 legal configurations (exhaustive runs stay fast)."""
    return load_space(Arch.SM90A).narrow({
        "tile_m": (64, 128, 256), "tile_n": (128, 256), "tile_k_bytes": (128,), "mma_n_split": (1,),
        "stages": (3, 4, 6), "swizzle": ("64", "128"), "cluster": ("1x1", "2x1"), "multicast": (True, False),
        "consumers": (1, 2), "persistent": (True,), "raster": ("m",), "group_size": (8,), "epilogue": ("tma",)})


def names_of(study, state=TrialState.COMPLETE):
    return [t.user_attrs["config_name"] for t in study.get_trials(states=(state,))]


def test_budget_counts_only_legal_new_trials_and_illegal_ones_are_pruned_with_reasons():
    r = tune(BF16, H100, n_trials=40, sampler="random", seed=3, objective=fake_objective)
    complete = names_of(r.study)
    assert len(complete) == r.stats.completed == 40
    assert len(set(complete)) == 40
    pruned = r.study.get_trials(states=(TrialState.PRUNED,))
    assert r.stats.illegal == len(pruned) > 0            # the stock space has illegal corners
    for t in pruned:
        cfg = r.space.config(BF16, H100, t.params)
        assert {v.rule for v in violations(BF16, cfg, H100)} == set(t.user_attrs["violations"])
        assert not any(r.startswith("kernel-") for r in t.user_attrs["violations"])   # PTX rules only
        assert t.value is None                             # no fake value for an illegal point
    assert r.stats.asked == len(r.study.trials)
    assert r.study.metric_names == ["tflops"]
    assert r.study.study_name == "h100-sxm.8192x8192x8192.bf16.pred"


def test_user_attrs_top_and_dataframe():
    r = tune(BF16, H100, n_trials=25, sampler="tpe", seed=0, objective=fake_objective)
    top = r.top(5)
    assert [x.rank for x in top] == [1, 2, 3, 4, 5]
    assert all(a.tflops >= b.tflops for a, b in zip(top, top[1:]))
    best = r.study.best_trial
    assert top[0].config_name == best.user_attrs["config_name"] == r.best_config.name
    assert best.user_attrs["bottleneck"] in ("tensor_core", "tma_hbm") and best.user_attrs["pred_cycles"] > 0
    df = r.dataframe()
    assert {"number", "state", "params_tile_m", "params_stages", "user_attrs_config_name"} <= set(df.columns)
    assert len(df) == len(r.study.trials)


def test_small_legal_space_is_enumerated_exhaustively():
    space = small_space()
    legal = {cfg.name for _, cfg in space.enumerate(BF16, H100)}
    r = tune(BF16, H100, n_trials=500, space=space, objective=fake_objective)
    assert r.stats.exhaustive and r.stats.legal_space == len(legal)
    assert set(names_of(r.study)) == legal and len(names_of(r.study)) == len(legal)
    assert r.stats.illegal == 0 and "exhausted" in r.stats.stopped
    assert r.top(1)[0].tflops == max(fake_objective(BF16, space.config(BF16, H100, p), H100).tflops
                                     for p, _ in space.enumerate(BF16, H100))


def test_grid_on_a_huge_space_is_refused():
    with pytest.raises(SearchError, match="too many"):
        tune(BF16, H100, n_trials=5, sampler="grid", objective=fake_objective)


def test_converged_sampler_repeats_are_recorded_never_completed_twice():
    storage = optuna.storages.InMemoryStorage()   # one storage object shared by three runs
    space = load_space(Arch.SM90A).narrow({"tile_m": (128,), "tile_n": (128, 256), "stages": (4,)})
    runs = [tune(BF16, H100, n_trials=15, storage=storage, sampler="tpe", seed=seed, space=space,
                 objective=fake_objective) for seed in (1, 1, 2)]   # the same seed twice re-suggests points
    study = optuna.load_study(study_name=default_study_name(H100, BF16, space), storage=storage)
    complete = names_of(study)
    assert len(complete) == 45 and len(set(complete)) == 45
    repaired = [t for t in study.trials if "repeat_of" in t.user_attrs]
    failed = study.get_trials(states=(TrialState.FAIL,))
    assert all("duplicate_of" in t.user_attrs for t in failed)
    assert sum(r.stats.repaired for r in runs) == len(repaired) > 0    # repeats repaired in their own trial
    assert sum(r.stats.duplicates for r in runs) == len(repaired) + len(failed)
    assert sum(r.stats.asked for r in runs) == len(study.trials)
    for t in repaired:   # the trial it repeated holds another configuration, completed before it
        held = study.trials[t.user_attrs["repeat_of"]]
        assert held.number < t.number and held.state is TrialState.COMPLETE
        assert held.user_attrs["config_name"] != t.user_attrs["config_name"]


def test_study_made_for_another_problem_is_refused(tmp_path):
    storage = f"sqlite:///{tmp_path}/s.db"
    tune(BF16, H100, n_trials=2, storage=storage, study_name="shared", objective=fake_objective, sampler="random")
    other = make_problem("4096x4096x4096", "bf16")
    with pytest.raises(SearchError, match="problem"):
        tune(other, H100, n_trials=2, storage=storage, study_name="shared", objective=fake_objective)


def test_narrowed_space_gets_its_own_default_study_name():
    stock = load_space(Arch.SM90A)
    assert default_study_name(H100, BF16, stock) == "h100-sxm.8192x8192x8192.bf16.pred"
    name = default_study_name(H100, BF16, small_space())
    assert name.startswith("h100-sxm.8192x8192x8192.bf16.s") and name.endswith(".pred")
    sp = make_problem("4096x4096x4096", "fp8", sparse=True)
    assert default_study_name(H100, sp, kind="hw") == "h100-sxm.4096x4096x4096.e4m3-sp.hw"


WORKER = textwrap.dedent("""
    import sys, optuna
    sys.path.insert(0, {tests!r})
    from tune_fakes import fake_objective
    from perfmodel import load_hardware, make_problem
    from perfmodel.search.tuner import tune
    from test_search import small_space
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    tune(make_problem("8192x8192x8192", "bf16"), load_hardware("h100-sxm"), n_trials={n}, target_trials={n},
         storage={storage!r}, sampler="tpe", seed=7, space=small_space(), objective=fake_objective,
         heartbeat_interval_s=1, grace_period_s=1)
""")


def test_killed_run_resumes_with_no_trial_lost_or_repeated(tmp_path):
    storage = f"sqlite:///{tmp_path}/kill.db"
    target = 30   # the legal space has 90 configurations, so this is a TPE run with a target
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(tests=str(TESTS), n=target, storage=storage))
    env = {**os.environ, "FAKE_OBJECTIVE_DELAY_S": "0.05"}   # most of the time is spent inside a trial
    proc = subprocess.Popen([sys.executable, str(script)], env=env, cwd=TESTS.parent)
    name = default_study_name(H100, BF16, small_space())
    deadline = time.time() + 60
    while time.time() < deadline:
        time.sleep(0.2)
        try:
            n_done = len(optuna.load_study(study_name=name, storage=storage).get_trials(states=(TrialState.COMPLETE,)))
        except KeyError:
            continue
        if n_done >= 6:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    study = optuna.load_study(study_name=name, storage=storage)
    before = names_of(study)
    running = [t.number for t in study.get_trials(states=(TrialState.RUNNING,))]
    assert 6 <= len(before) < target
    # the killed worker's heartbeat goes stale (grace period 1 s); SQLite's CURRENT_TIMESTAMP has 1 s resolution, so
    # after 1.5 s both truncated times can still be 1 s apart (not stale): wait past 2 s
    time.sleep(2.5)
    r = tune(BF16, H100, n_trials=target, target_trials=target, storage=storage, space=small_space(),
             objective=fake_objective, heartbeat_interval_s=1, grace_period_s=1)
    after = names_of(r.study)
    assert len(after) == target and len(set(after)) == target   # nothing lost, nothing repeated
    assert set(before) <= set(after)
    assert r.stats.completed == target - len(before)
    assert not r.study.get_trials(states=(TrialState.RUNNING,))
    assert all(r.study.trials[n].state is TrialState.FAIL for n in running)   # the killed trial was failed


def test_cli_tune_prints_top_best_and_exports(monkeypatch, capsys):
    monkeypatch.setattr(search, "default_objective", fake_objective)
    rc = main(["tune", "--gpu", "h100-sxm", "--problem", "8192x8192x8192", "--dtype", "bf16", "--trials", "12",
               "--storage", "memory", "--seed", "1", "--top", "3", "--json", "--our-kernel", "--sampler", "tpe"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["top"]) == 3 and doc["stats"]["completed"] == 12
    assert doc["study"] == "h100-sxm.8192x8192x8192.bf16.ours.pred"
    assert doc["best"]["config"]["name"] == doc["top"][0]["config_name"]
    flags = doc["exports"]["kernel_sm90"]["nvcc_flags"]
    assert f"-DPM_BM={doc['best']['config']['tile_m']}" in flags
    assert doc["exports"]["cutlass"]["ClusterShape_MNK"][2] == 1
    rc = main(["tune", "--gpu", "h100-sxm", "--problem", "8192x8192x8192", "--trials", "5",
               "--storage", "memory", "--set", "stages=4", "--set", "tile_m=128", "--top", "2"])
    out = capsys.readouterr().out
    assert rc == 0 and "rank" in out and "CUTLASS" in out and "Triton (triton-tma)" in out


@pytest.mark.parametrize("argv, message", [
    (["--set", "stagez=3"], "unknown knob"),
    (["--sampler", "grid"], "too many"),
    (["--space", "/nonexistent.toml"], "no such"),
    (["--storage", "redis://x"], "unsupported storage"),
    (["--gpu", "b200", "--space", "configs/search/sm90.toml"], "sm_90a"),
])
def test_cli_tune_bad_input_is_one_line_exit_2(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(search, "default_objective", fake_objective)
    base = ["tune", "--gpu", "h100-sxm", "--problem", "1024x1024x1024", "--trials", "2", "--storage", "memory"]
    rc = main(base + argv)
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


class _Measured:
    def __init__(self, name, tflops, valid=True):
        self.config_name, self.tflops, self.valid = name, tflops, valid
        self.invalidity = "correct" if valid else "correctness"


def test_validate_top_records_measurements_in_a_hw_study_and_reports_the_ranking():
    from perfmodel.search.validate_top import validate_top
    r = tune(BF16, H100, n_trials=500, space=small_space(), objective=fake_objective, kernel_rules=True)
    calls = []

    def runner(pairs):   # stands in for perfmodel.measure.validate on a GPU
        calls.append([c.name for _, c in pairs])
        out = [_Measured(c.name, 500.0 + i) for i, (_, c) in enumerate(pairs)]   # the reverse order
        out[1] = _Measured(out[1].config_name, None, valid=False)
        return out

    rep = validate_top(r, 5, runner=runner)
    assert calls[0] == [t.config_name for t in r.top(5)]       # all buildable: the top 5 in order
    assert rep["measured"] == 4 and rep["invalid"] == 1 and rep["skipped_unbuildable"] == 0
    assert rep["best"]["pred_rank"] == 5 and rep["best"]["measured_tflops"] == 504.0
    assert rep["spearman"] == -1.0
    hw = optuna.load_study(study_name=rep["study"], storage=r.study._storage)
    assert rep["study"].endswith(".hw") and len(hw.trials) == 5
    assert [t.state for t in hw.trials].count(TrialState.FAIL) == 1
    by_name = {t.user_attrs["config_name"]: t for t in hw.trials}
    for t in r.complete_trials()[:5]:
        assert by_name[t.user_attrs["config_name"]].params == t.params
    validate_top(r, 5, runner=runner)                          # a rerun adds nothing
    assert len(optuna.load_study(study_name=rep["study"], storage=r.study._storage).trials) == 5


def test_validate_top_times_baselines_in_the_same_run_and_reports_the_ratio():
    """--baseline: timed in the same runner call, before the top K (one thermal state); not recorded in the .hw
    study; a baseline that is also in the top K is measured once."""
    from perfmodel.search.validate_top import validate_top
    r = tune(BF16, H100, n_trials=500, space=small_space(), objective=fake_objective, kernel_rules=True)
    top = [t.config_name for t in r.top(3)]
    outside = KernelConfig.from_name(r.top(20)[-1].config_name)
    calls = []

    def runner(pairs):
        calls.append([c.name for _, c in pairs])
        return [_Measured(c.name, 400.0 if c.name == outside.name else 500.0 + i) for i, (_, c) in enumerate(pairs)]

    rep = validate_top(r, 3, runner=runner, baselines=[outside, KernelConfig.from_name(top[1]), outside])
    assert calls == [[outside.name, *top]]                      # baselines first, each once
    assert [b["config_name"] for b in rep["baselines"]] == [outside.name, top[1]]
    assert rep["best"]["measured_tflops"] == 503.0
    assert rep["best_baseline"]["config_name"] == top[1] and rep["best_over_baseline"] == pytest.approx(503 / 502, abs=1e-4)
    hw = optuna.load_study(study_name=rep["study"], storage=r.study._storage)
    assert outside.name not in {t.user_attrs["config_name"] for t in hw.trials} and len(hw.trials) == 3
    rep = validate_top(r, 3, runner=lambda pairs: [_Measured(c.name, None, valid=False) for _, c in pairs],
                       baselines=[outside])
    assert rep["best_over_baseline"] is None and rep["baselines"][0]["measured_tflops"] is None


@pytest.mark.parametrize("argv,message", [
    (["--baseline", "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"], "give --validate-top K"),
    (["--validate-top", "2", "--baseline", "not-a-config"], "--baseline 'not-a-config'"),
    (["--validate-top", "2", "--baseline", "128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma"],
     "cannot run on 64x64x64"),
])
def test_baseline_flags_are_checked_before_searching(argv, message, capsys):
    rc = main(["tune", "--gpu", "h100-sxm", "--problem", "64x64x64", "--trials", "2", "--storage", "memory", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_validate_top_without_a_gpu_is_a_one_line_error(monkeypatch, capsys):
    import perfmodel.search.validate_top as shw
    monkeypatch.setattr(shw.shutil, "which", lambda name: None)
    rc = main(["tune", "--gpu", "h100-sxm", "--problem", "1024x1024x1024", "--trials", "2", "--storage", "memory",
               "--validate-top", "4"])
    err = capsys.readouterr().err
    assert rc == 2 and "needs an NVIDIA GPU and nvcc" in err and len(err.strip().splitlines()) == 1


def test_real_predictor_exhaustive_run_finds_the_best_predicted_configuration():
    from perfmodel.prediction.predict import predict
    space = small_space()
    r = tune(BF16, H100, n_trials=200, space=space, seed=0)   # the model itself as the objective
    assert r.stats.exhaustive and r.stats.completed == r.stats.legal_space
    preds = {cfg.name: predict(BF16, cfg, H100) for _, cfg in space.enumerate(BF16, H100)}
    best = max(preds.values(), key=lambda p: p.tflops)
    assert r.top(1)[0].tflops == pytest.approx(best.tflops)
    t = r.study.best_trial
    assert t.user_attrs["pred_cycles"] == preds[t.user_attrs["config_name"]].cycles
    assert t.user_attrs["bottleneck"] == preds[t.user_attrs["config_name"]].bottleneck.value


@pytest.mark.parametrize("sampler", ["tpe", "random", "cmaes"])
def test_blackwell_space_with_each_sampler_and_the_real_predictor(sampler):
    b200 = load_hardware("b200")
    r = tune(BF16, b200, n_trials=12, sampler=sampler, seed=1)
    names = names_of(r.study)
    assert len(names) == 12 == len(set(names))
    assert r.study.study_name == "b200.8192x8192x8192.bf16.pred"
    assert all(not violations(BF16, r.space.config(BF16, b200, t.params), b200)
               for t in r.study.get_trials(states=(TrialState.COMPLETE,)))
    assert {t.params.get("cta_group") for t in r.study.trials} <= {1, 2}


def test_cli_storage_defaults_to_optuna_storage_env_and_shows_progress(tmp_path, monkeypatch, capsys):
    url = f"sqlite:///{tmp_path}/env.db"
    monkeypatch.setenv("OPTUNA_STORAGE", url)
    rc = main(["tune", "--gpu", "h100-sxm", "--problem", "2048x2048x2048", "--trials", "4", "--seed", "2",
               "--progress", "--sampler", "tpe"])
    captured = capsys.readouterr()
    assert rc == 0 and "trial" in captured.err          # tqdm's bar on stderr
    study = optuna.load_study(study_name="h100-sxm.2048x2048x2048.bf16.pred", storage=url)
    assert len(study.get_trials(states=(TrialState.COMPLETE,))) == 4


def test_a_failing_objective_fails_its_trial_not_the_study():
    def flaky(problem, cfg, hw):
        if cfg.tile_m == 64:
            raise ZeroDivisionError("model bug")
        return fake_objective(problem, cfg, hw)

    r = tune(BF16, H100, n_trials=60, space=small_space(), objective=flaky, seed=0)
    failed = [t for t in r.study.get_trials(states=(TrialState.FAIL,)) if "error" in t.user_attrs]
    assert r.stats.errors == len(failed) > 0 and all("ZeroDivisionError" in t.user_attrs["error"] for t in failed)
    assert r.stats.completed == len(names_of(r.study)) > 0

    def broken(problem, cfg, hw):
        raise RuntimeError("always")

    with pytest.raises(SearchError, match="objective failed on 11"):
        tune(BF16, H100, n_trials=5, objective=broken, sampler="random", seed=0)


class _Analytic:
    def __init__(self, tflops):
        self.tflops = tflops


def tied_objective(problem, cfg, hw):
    """Sees only the tile: configurations differing in stages, swizzle, cluster... tie exactly;
    the analytic baseline sees tile_k too."""
    p = fake_objective(problem, cfg.replace(stages=4, cluster_m=1, cluster_n=1, multicast=False), hw)
    p = type(p)(p.config_name, float(cfg.tile_m + cfg.tile_n), p.cycles, p.time_s, p.bottleneck)
    object.__setattr__(p, "analytic", _Analytic(100.0 + cfg.tile_k))
    return p


def test_ties_are_broken_by_analytic_then_resources_then_name_whatever_the_trial_order():
    from perfmodel.config import smem_bytes
    space = small_space()
    tops = []
    for seed in (0, 1):   # exhaustive: the same configurations, walked in another order
        r = tune(BF16, H100, n_trials=500, space=space, objective=tied_objective, seed=seed)
        assert r.stats.exhaustive
        tops.append([x.config_name for x in r.top(20)])
        trials = {t.user_attrs["config_name"]: t for t in r.complete_trials()}
        ranked = list(trials.values())
        assert len({t.value for t in ranked[:20]}) < 20                   # there are ties to break
        for a, b in zip(ranked, ranked[1:]):
            if a.value != b.value:
                assert a.value > b.value
                continue
            ca, cb = (r.space.config(BF16, H100, t.params) for t in (a, b))
            key = lambda t, c: (-t.user_attrs["analytic_tflops"], smem_bytes(BF16, c), c.cluster_size,
                                t.user_attrs["config_name"])
            assert key(a, ca) < key(b, cb)
    assert tops[0] == tops[1]


def test_a_trial_failed_by_another_worker_is_counted_lost_and_the_run_goes_on(tmp_path):
    storage = f"sqlite:///{tmp_path}/lost.db"
    calls = []

    def stale_killer(problem, cfg, hw):   # another worker's stale-trial check fails the trial in hand
        calls.append(cfg.name)
        if len(calls) == 3:
            other = optuna.load_study(study_name="lost", storage=storage)
            (running,) = other.get_trials(states=(TrialState.RUNNING,))
            other.tell(running.number, state=TrialState.FAIL)
        return fake_objective(problem, cfg, hw)

    r = tune(BF16, H100, n_trials=8, storage=storage, study_name="lost", sampler="random", seed=0,
             space=small_space(), objective=stale_killer)
    assert r.stats.lost == 1 and r.stats.completed == 8 and len(names_of(r.study)) == 8
    (lost,) = [t for t in r.study.get_trials(states=(TrialState.FAIL,)) if t.user_attrs.get("config_name") == calls[2]]
    assert lost.params and "duplicate_of" not in lost.user_attrs


def test_rdb_trials_are_stored_whole_with_one_statement_for_their_parameters(tmp_path):
    from sqlalchemy import event
    from perfmodel.search.studies import make_storage
    storage = make_storage(f"sqlite:///{tmp_path}/batch.db")
    inserts = []
    event.listen(storage._backend.engine, "before_cursor_execute",
                 lambda conn, cur, sql, *a: inserts.append(1) if sql.startswith("INSERT INTO trial_params") else None)
    r = tune(BF16, H100, n_trials=30, storage=storage, sampler="tpe", seed=0, objective=fake_objective)
    # one per trial; the study's first trial checks each new parameter's distribution against the
    # database one by one, as Optuna does. Optuna alone: one per parameter, 13 a trial.
    assert len(inserts) == r.stats.asked - 1 + len(r.space.searched)
    fresh = optuna.load_study(study_name=r.study.study_name, storage=f"sqlite:///{tmp_path}/batch.db")
    n_params = len(r.space.searched)
    for t in fresh.get_trials(states=(TrialState.COMPLETE, TrialState.PRUNED)):
        assert len(t.params) == n_params and t.user_attrs["config_name"] == r.space.config(BF16, H100, t.params).name
    for t in fresh.get_trials(states=(TrialState.COMPLETE,)):
        assert {"pred_cycles", "bottleneck"} <= set(t.user_attrs)
    assert [t.params for t in fresh.trials] == [t.params for t in r.study.trials]


def test_validate_top_measures_structures_not_tile_orders_the_model_ties():
    """Configurations differing only in raster/group size with (near-)equal predictions are one
    hardware question: the candidates are distinct structures; a real gap in prediction still counts."""
    from perfmodel.search.validate_top import _structure, candidates
    space = load_space(Arch.SM90A).narrow({
        "tile_m": (128,), "tile_n": (128, 256), "tile_k_bytes": (128,), "mma_n_split": (1,), "stages": (4,),
        "swizzle": ("128",), "cluster": ("1x1",), "multicast": (False,), "consumers": (2,), "persistent": (True,),
        "raster": ("m", "n"), "group_size": (1, 8), "epilogue": ("tma",)})
    r = tune(BF16, H100, n_trials=50, space=space, objective=fake_objective, kernel_rules=True)
    assert len(r.complete_trials()) == 8                       # 2 tiles x 2 rasters x 2 group sizes
    chosen, _ = candidates(r, 4)
    structures = [_structure(KernelConfig.from_name(t.user_attrs["config_name"])) for t in chosen]
    assert len(chosen) == 2 and len(set(structures)) == 2      # one per tile: the rest are ties
    every, _ = candidates(r, 8, tie_rel=0.0)                   # no tolerance: only exact ties merge
    assert len(every) == 8                                     # the fake's hash term separates them all


def test_perfmodel_tune_is_a_lazy_export():
    code = ("import sys, perfmodel; assert 'optuna' not in sys.modules; "
            "from perfmodel.search.tuner import tune; assert perfmodel.tune is tune")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_target_alone_keeps_going_until_the_study_holds_n_then_a_rerun_finishes_it(tmp_path, monkeypatch, capsys):
    """`tune --target N` without --trials used to stop after the default 100 new trials; now it asks
    until the study holds N complete trials, and a rerun after a cut-short run finishes the study."""
    monkeypatch.setattr(search, "default_objective", fake_objective)
    base = ["tune", "--gpu", "h100-sxm", "--problem", "8192x8192x8192", "--sampler", "random", "--seed", "3",
            "--json", "--top", "1"]
    assert main(base + ["--storage", "memory", "--target", "105"]) == 0   # more than the default 100
    doc = json.loads(capsys.readouterr().out)
    assert doc["study_complete_trials"] == 105 and doc["stats"]["completed"] == 105
    storage = ["--storage", f"sqlite:///{tmp_path / 'study.db'}"]
    assert main(base + storage + ["--target", "9", "--trials", "4"]) == 0   # a run cut short at 4
    assert json.loads(capsys.readouterr().out)["study_complete_trials"] == 4
    assert main(base + storage + ["--target", "9"]) == 0                    # the rerun finishes the study
    doc = json.loads(capsys.readouterr().out)
    assert doc["study_complete_trials"] == 9 and doc["stats"]["completed"] == 5
    assert "9 complete trials" in doc["stats"]["stopped"]


def test_cli_tune_names_the_caveats_of_its_top_configurations(capsys):
    """A top configuration in a region where the measurements show the model off carries that caveat's key (a 2-stage
    ring of 256-byte k-block rows: wide-k-block-shallow-ring), in the JSON and in the table; one outside none."""
    argv = ["tune", "--gpu", "h100-sxm", "--problem", "2048x2048x2048", "--storage", "memory", "--top", "1",
            "--set", "stages=2", "--set", "tile_m=128", "--set", "tile_n=256", "--set", "consumers=2",
            "--set", "cluster=1x1", "--set", "swizzle=128"]
    assert main(argv + ["--set", "tile_k=128", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["top"][0]["caveats"] == ["wide-k-block-shallow-ring"]
    assert main(argv + ["--set", "tile_k=64"]) == 0
    out = capsys.readouterr().out
    assert "rank" in out and "wide-k-block-shallow-ring" not in out
