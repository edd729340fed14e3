"""The prediction cache of the model-optimum search (perfmodel/search/cache.py): a second search of the same
problem predicts nothing it already has and returns the same figures; a cut last line, an unwritable directory
or PERFMODEL_PREDICTION_CACHE=0 change no result."""

import pytest

import perfmodel.search.region as region
from perfmodel.config import KernelConfig
from perfmodel.hardware import load_hardware
from perfmodel.problem import make_problem
from perfmodel.search.cache import ENV_DISABLE, ENV_DIR, PredictionCache
from perfmodel.sim.clock import parse_clock

HW = load_hardware("h100-sxm")
PROBLEM = make_problem("2048x2048x2048", "bf16")
NAMES = ["128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma",
         "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma",
         "64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma"]
ITEMS = [({"i": i}, KernelConfig.from_name(n)) for i, n in enumerate(NAMES)]
BOOST = parse_clock("boost")


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = region._score_one

    def counting(item):
        calls.append(item[1])
        return real(item)
    monkeypatch.setattr(region, "_score_one", counting)
    return calls


def _fields(scored):
    return [(s.params, s.config_name, s.tflops, s.bottleneck, s.cycles, s.time_s, s.analytic_tflops, s.smem)
            for s in scored]


def test_a_second_search_predicts_nothing_it_has(tmp_path, monkeypatch, counted):
    monkeypatch.setenv(ENV_DIR, str(tmp_path))
    first = region.score(ITEMS, PROBLEM, HW, BOOST, jobs=1, cache=PredictionCache.open(PROBLEM, HW, BOOST))
    assert len(counted) == 3 and len(list(tmp_path.glob("*.jsonl.gz"))) == 1
    again = region.score(ITEMS, PROBLEM, HW, BOOST, jobs=1, cache=PredictionCache.open(PROBLEM, HW, BOOST))
    assert len(counted) == 3                          # all three read back
    assert _fields(again) == _fields(first) == _fields(region.score(ITEMS, PROBLEM, HW, BOOST, jobs=1))


def test_another_clock_or_problem_is_another_file(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_DIR, str(tmp_path))
    a = PredictionCache.open(PROBLEM, HW, BOOST).path
    b = PredictionCache.open(PROBLEM, HW, parse_clock("sustained")).path
    c = PredictionCache.open(make_problem("4096x2048x2048", "bf16"), HW, BOOST).path
    d = PredictionCache.open(PROBLEM, load_hardware("h200"), BOOST).path
    assert len({a, b, c, d}) == 4


def test_a_batch_cut_by_a_kill_is_predicted_again(tmp_path, monkeypatch, counted):
    monkeypatch.setenv(ENV_DIR, str(tmp_path))
    region.score(ITEMS[:2], PROBLEM, HW, BOOST, jobs=1, cache=PredictionCache.open(PROBLEM, HW, BOOST))
    path = next(tmp_path.glob("*.jsonl.gz"))
    whole = path.read_bytes()
    region.score(ITEMS, PROBLEM, HW, BOOST, jobs=1, cache=PredictionCache.open(PROBLEM, HW, BOOST))
    assert counted == NAMES                           # the second batch predicted only the third
    path.write_bytes(path.read_bytes()[:len(whole) + 20])   # the second batch's member cut short by a kill
    cache = PredictionCache.open(PROBLEM, HW, BOOST)
    assert cache.loaded == 2
    region.score(ITEMS, PROBLEM, HW, BOOST, jobs=1, cache=cache)
    assert counted[3:] == [NAMES[2]]


def test_an_unwritable_or_disabled_cache_changes_no_result(tmp_path, monkeypatch, counted):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv(ENV_DIR, str(blocked / "sub"))
    got = region.score(ITEMS, PROBLEM, HW, BOOST, jobs=1, cache=PredictionCache.open(PROBLEM, HW, BOOST))
    assert _fields(got) == _fields(region.score(ITEMS, PROBLEM, HW, BOOST, jobs=1))
    monkeypatch.setenv(ENV_DISABLE, "0")
    assert PredictionCache.open(PROBLEM, HW, BOOST).path is None
