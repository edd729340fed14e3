"""The clock as an explicit input (issue 8): regimes, their validation at every door, the HBM power term, and
report's per-row clocks."""
import json

import pandas as pd
import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.calibration.report import add_predictions
from perfmodel.cli import main
from perfmodel.prediction.predict import predict, predict_many
from perfmodel.sim.clock import (BOOST, SHORT, SUSTAINED, ClockError, ClockRegime, Regime, parse_clock,
                                 regime_for_loop, resolve)
from perfmodel.sim.power import Activity, board_power, hbm_rail_factor, power_limited_clock_hz

H100, H200 = load_hardware("h100-sxm"), load_hardware("h200")
ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
P = make_problem("8192x8192x8192", "bf16")
CFG = derive(P, H100, (128, 256, 64)).config
GOOD = ["--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--dtype", "bf16"]
BAD = ["-5", "0", "inf", "-inf", "nan", "junk", "", "1.5e9", "12MHz", "boost2"]


@pytest.mark.parametrize("text,expect", [("boost", BOOST), ("short", SHORT), ("SUSTAINED", SUSTAINED), (None, SUSTAINED),
                                         ("1500", ClockRegime(Regime.FIXED, 1.5e9)), (1500, ClockRegime(Regime.FIXED, 1.5e9)),
                                         ("1410.5MHz", ClockRegime(Regime.FIXED, 1.4105e9))])
def test_parse_clock(text, expect):
    assert parse_clock(text) == expect


@pytest.mark.parametrize("text", BAD + [True, float("nan"), -1.0, "measured", "auto"])
def test_parse_clock_refuses(text):
    with pytest.raises(ClockError):
        parse_clock(text)


def test_measured_and_auto_only_for_report():
    assert parse_clock("measured", allow_measured=True).regime is Regime.MEASURED
    assert parse_clock("auto", allow_measured=True).regime is Regime.AUTO
    with pytest.raises(ClockError):
        predict(P, CFG, H100, clock=parse_clock("measured", allow_measured=True))


def test_loop_length_decides_the_regime():
    assert regime_for_loop(0.03) is SHORT and regime_for_loop(0.1) is SUSTAINED and regime_for_loop(None) is SUSTAINED


def test_short_loops_run_heavy_kernels_below_boost_and_light_ones_at_boost():
    """The power limiter's short-term allowance (clock.short_power_ratio, mb_wgmma --transient): the heaviest GEMM
    runs between the sustained clock and boost in a short loop, a light one (a ragged 16 us GEMM) at boost; a GPU
    without the ratio measured predicts short loops at boost."""
    heavy = derive(P, H100, (128, 256, 64), cluster=(2, 1)).config
    b, s, u = (predict(P, heavy, H100, clock=c) for c in ("boost", "short", "sustained"))
    assert u.clock_hz < s.clock_hz < b.clock_hz == H100.tensor_max_clock_hz and s.clock_regime == "short"
    assert u.tflops < s.tflops < b.tflops
    small = make_problem("1000x1992x1016", "bf16")
    light = derive(small, H100, (128, 128, 64)).config
    assert predict(small, light, H100, clock="short").clock_hz == H100.tensor_max_clock_hz
    import dataclasses
    no_ratio = dataclasses.replace(H100, clock=dataclasses.replace(H100.clock, short_power_ratio=None))
    assert predict(P, heavy, no_ratio, clock="short").clock_hz == H100.tensor_max_clock_hz


def test_the_short_ratio_reproduces_the_transient_burn_clock():
    """mb_wgmma --transient (H100, 2026-11-25): the full-rate bf16 burn's first 30 ms of ~1 ms launches ran at
    1.775 GHz after idle; the power model at the short ratio gives that clock for the burn within 1%."""
    doc = json.loads((ROOT / "data/microbench/h100-80gb-hbm3-2026-11-25-transient.json").read_text())
    f_meas = doc["derived"]["fast_clock_hz"]
    ev_s = 1.11e-3
    act = Activity(1.0, 0.0, at_hz=f_meas, cycles=(ev_s - H100.gpu.launch_overhead_s) * f_meas)
    f = power_limited_clock_hz(act, P, H100, H100.clock.short_power_ratio)
    assert f == pytest.approx(f_meas, rel=0.01)
    assert power_limited_clock_hz(act, P, H100) < 0.93 * f_meas      # the sustained limit: well below


def test_predict_states_its_regime_and_clock():
    boost = predict(P, CFG, H100, clock="boost")
    sus = predict(P, CFG, H100)
    fixed = predict(P, CFG, H100, clock=1500)
    assert (boost.clock_regime, boost.clock_hz) == ("boost", H100.tensor_max_clock_hz)
    assert sus.clock_regime == "sustained" and sus.clock_hz < H100.clock.boost_hz     # heavy: power-limited
    assert (fixed.clock_regime, fixed.clock_hz) == ("fixed", 1.5e9)
    assert predict(P, CFG, H100, clock_hz=1.5e9).tflops == fixed.tflops            # the older keyword
    assert boost.to_dict()["clock_regime"] == "boost"
    with pytest.raises(ClockError):
        resolve("boost", 1.5e9)
    df = predict_many([(P, CFG, H100)], clock="boost")
    assert df["user_attrs_pred_clock_regime"][0] == "boost" and df["user_attrs_pred_clock_hz"][0] == H100.tensor_max_clock_hz


def test_light_kernel_runs_at_boost_in_the_sustained_regime():
    skinny = make_problem("16x4096x4096", "bf16")       # a decode step: HBM-bound, little tensor work
    cfg = derive(skinny, H100, (64, 128, 64)).config
    assert predict(skinny, cfg, H100).clock_hz == H100.tensor_max_clock_hz


def test_hbm_traffic_costs_power():
    base = Activity(0.8, 0.3)
    f0 = power_limited_clock_hz(base, P, H100)
    f1 = power_limited_clock_hz(Activity(0.8, 0.3, hbm=0.5, at_hz=f0), P, H100)
    assert f1 < f0
    assert board_power(Activity(0.8, 0.3, hbm=0.5, at_hz=f0), f1, P, H100) == pytest.approx(1.0, abs=1e-6)
    # the HBM term is the measured watts over the cap, at the datasheet rate, its core-rail share at this clock's voltage
    assert board_power(Activity(0.8, 0.3, hbm=0.5, at_hz=f0), f0, P, H100) - board_power(base, f0, P, H100) \
        == pytest.approx(0.5 * H100.clock.hbm_power_w / H100.gpu.tdp_w * hbm_rail_factor(f0, H100))
    assert hbm_rail_factor(H100.clock.boost_hz, H100) == pytest.approx(1.0)
    assert hbm_rail_factor(f0, H100) < 1.0
    assert H200.clock.hbm_power_w > H100.clock.hbm_power_w     # its own measurement: more bytes/s, more watts


@pytest.mark.parametrize("verb", ["predict", "tune", "report"])
@pytest.mark.parametrize("bad", BAD)
def test_cli_refuses_bad_clocks(verb, bad, capsys):
    args = {"predict": ["predict", *GOOD], "tune": ["tune", *GOOD, "--storage", "memory", "--trials", "1"],
            "report": ["report", "data/measurements/h100_smoke.jsonl"]}[verb]
    assert main(args + [f"--clock={bad}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("perfmodel: error:") and "clock" in err[0]


def test_cli_predict_and_tune_refuse_measured(capsys):
    assert main(["predict", *GOOD, "--clock", "measured"]) == 2
    assert main(["tune", *GOOD, "--storage", "memory", "--clock", "measured"]) == 2
    assert "applies to report" in capsys.readouterr().err


def test_cli_tune_keeps_one_regime_per_study(capsys):
    assert main(["tune", *GOOD, "--storage", "memory", "--trials", "3", "--clock", "boost", "--json",
                 "--set", "tile_m=128", "--set", "tile_n=128,256", "--set", "cluster=1x1,2x1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["clock"] == "boost" and doc["study"].endswith(".pred.boost")


def test_report_measured_clock_per_row_and_fallback():
    frame = pd.DataFrame([{"config_name": CFG.name, "shape": "8192x8192x8192", "m": 8192, "n": 8192, "k": 8192,
                           "dtype": "bf16", "meas_tflops": 600.0, "meas_sm_clock_hz": hz, "meas_loop_s": loop}
                          for hz, loop in ((1.4e9, 0.1), (float("nan"), 0.03), (None, 0.2))])
    df = add_predictions(frame, H100, clock="measured")
    assert list(df["clock_basis"]) == ["measured", "short (no measured clock)", "sustained (no measured clock)"]
    assert df["pred_clock_hz"][0] == 1.4e9 and df["pred_clock_hz"][1] < H100.clock.boost_hz
    auto = add_predictions(frame, H100)
    assert list(auto["clock_basis"]) == ["sustained", "short", "sustained"]
    assert not auto["pred_tflops"].isna().any()


@pytest.mark.parametrize("argv,words", [
    (["--problem", "8192x8192x8192", "--tile", "128x256x64", "--cluster", "2x1"], "short: power-limited under the short-term limit"),
    (["--problem", "1000x1992x1016", "--tile", "128x128x64"], "short: the tensor cores' clock ceiling, clock.tensor_max_hz, under the short-term power limit"),
])
def test_predict_names_the_short_regime(argv, words, capsys):
    assert main(["predict", "--gpu", "h100-sxm", "--dtype", "bf16", "--clock", "short", *argv]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert words in first and "(fixed)" not in first


def test_predict_prints_the_power_law_by_term_and_a_capped_kernel_draws_the_cap(capsys):
    """`predict --clock sustained` says why its clock: the law's watts by term at that clock; a power-limited kernel's
    sum to the 700 W cap, one under the cap (a skinny grid at the tensor clock ceiling) to less."""
    capped = ["predict", "--gpu", "h100-sxm", "--problem", "8192x8192x8192", "--dtype", "bf16", "--config",
              "128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma", "--clock", "sustained"]
    assert main(capped) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("power "))
    total = float(line.split("MHz: ")[1].split(" W =")[0])
    assert total == pytest.approx(H100.gpu.tdp_w, abs=1.0)
    assert all(term in line for term in ("static", "tensor", "l2", "hbm"))
    light = ["predict", "--gpu", "h100-sxm", "--problem", "64x4096x28672", "--dtype", "bf16", "--config",
             "64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma", "--clock", "sustained"]
    assert main(light) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("power "))
    assert float(line.split("MHz: ")[1].split(" W =")[0]) < H100.gpu.tdp_w - 50
