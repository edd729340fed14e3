"""The CTAs' drift (sim/memory.drift_cohorts, l2.sm_rate_spread): the committed value is what its fit on the committed ncu
traffic gives, the fit's command reports and fails in one line, and predict counts the drift where the first pass is
L2-bound under the k-window reuse only."""
import pathlib
import re
import subprocess
import sys

from perfmodel import load_hardware, make_problem
from perfmodel.config import KernelConfig
from perfmodel.prediction.predict import predict

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIT = [sys.executable, str(ROOT / "benchmarks" / "fit_sm_rate_spread.py")]


def test_the_committed_spread_is_the_fit_of_the_committed_ncu_rows():
    out = subprocess.run(FIT, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    fitted = float(re.search(r"fitted l2.sm_rate_spread ([0-9.]+)", out.stdout).group(1))
    loss = float(re.search(r"fitted .*: loss ([0-9.]+)", out.stdout).group(1))
    still = float(re.search(r"in step \(spread 0\): loss ([0-9.]+)", out.stdout).group(1))
    assert abs(fitted - load_hardware("h100-sxm").l2.sm_rate_spread) < 0.005
    assert load_hardware("h200").l2.sm_rate_spread == load_hardware("h100-sxm").l2.sm_rate_spread   # a GH100 copy
    assert loss < 0.2 < 0.8 < still          # the in-step model's bytes are off by about e^0.9; the drift brings them in


def test_an_unknown_gpu_is_a_one_line_error():
    out = subprocess.run(FIT + ["--gpu", "h900"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 2 and out.stderr.startswith("error:") and len(out.stderr.strip().splitlines()) == 1


def test_predict_counts_the_drift_only_where_the_first_pass_is_l2_bound():
    hw = load_hardware("h100-sxm")
    l2_bound = KernelConfig.from_name("64x128x64_i64x128x16_cg1_cl1x1_mc0_s9_sw128-128_wg1_acc1_pm8_etma")
    tensor_bound = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    off = hw.with_values(**{"l2.sm_rate_spread": 0.0})
    long_k = make_problem("4096x4096x49152", "bf16")
    drifting, still = predict(long_k, l2_bound, hw, clock="sustained"), predict(long_k, l2_bound, off, clock="sustained")
    assert still.bottleneck.value == "l2" and still.details["drift_reads"] == 1.0
    assert drifting.details["drift_reads"] > 3 and drifting.tflops < 0.85 * still.tflops   # measured 270 against 384
    t1, t0 = predict(long_k, tensor_bound, hw, clock="sustained"), predict(long_k, tensor_bound, off, clock="sustained")
    assert t1.tflops == t0.tflops and t1.details["drift_reads"] == 1.0


def test_a_three_stage_ring_drifts_far_less():
    """l2.drift_min_stages and l2.sm_rate_spread_shallow (our ncu at long K, data/ncu/depth_ncu, cards, fabric, stages:
    3-stage rings read 1.06-1.45x the in-step bytes on most cards, 4-9-stage rings drift at one larger spread): the same
    L2-bound tile reads a little more than in step at 3 stages and far more at 4."""
    from perfmodel.sim.memory import drift_spread
    hw = load_hardware("h100-sxm")
    assert hw.l2.drift_min_stages == 4
    s3 = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s3_sw128-128_wg2_acc1_pm8_etma")
    s4 = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    assert drift_spread(s3, hw) == hw.l2.sm_rate_spread_shallow
    assert 0 < 5 * drift_spread(s3, hw) < drift_spread(s4, hw) == hw.l2.sm_rate_spread
    long_k = make_problem("9216x4096x11008", "bf16")
    shallow, deep = predict(long_k, s3, hw, clock="sustained"), predict(long_k, s4, hw, clock="sustained")
    assert 1.05 < shallow.details["drift_reads"] < 1.5 < deep.details["drift_reads"]
    still = hw.with_values(**{"l2.sm_rate_spread_shallow": 0.0})
    assert predict(long_k, s3, still, clock="sustained").details["drift_reads"] == 1.0
    every = hw.with_values(**{"l2.drift_min_stages": 1})
    assert predict(long_k, s3, every, clock="sustained").details["drift_reads"] > 1.5


def test_the_committed_shallow_spread_is_the_fit_of_the_committed_ncu_rows():
    """benchmarks/fit_sm_rate_spread.py --shallow: the 3-stage rings' ncu HBM bytes give the committed value, and it
    brings the model's bytes in (mean |log(model / measured)| 0.32 in step)."""
    out = subprocess.run(FIT + ["--shallow"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    fitted = float(re.search(r"fitted l2.sm_rate_spread_shallow ([0-9.]+)", out.stdout).group(1))
    loss = float(re.search(r"fitted .*: loss ([0-9.]+)", out.stdout).group(1))
    still = float(re.search(r"in step \(spread 0\): loss ([0-9.]+)", out.stdout).group(1))
    assert abs(fitted - load_hardware("h100-sxm").l2.sm_rate_spread_shallow) < 0.001
    assert load_hardware("h200").l2.sm_rate_spread_shallow == load_hardware("h100-sxm").l2.sm_rate_spread_shallow
    assert loss < 0.2 < 0.3 < still


def test_the_spread_fitted_on_every_ncu_run_is_the_files_and_every_does_not_write():
    """fit_sm_rate_spread.py --every: the deep rings of every committed calibration-shape ncu run (93 since the
    twenty-fourth session) fit the spread the ksweep rows gave, and the check refuses --apply (one line, exit 2)."""
    out = subprocess.run(FIT + ["--every"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    n = int(re.search(r"^(\d+) ncu rows", out.stdout, re.M).group(1))
    fitted = float(re.search(r"fitted l2.sm_rate_spread ([0-9.]+)", out.stdout).group(1))
    loss = float(re.search(r"fitted .*: loss ([0-9.]+)", out.stdout).group(1))
    still = float(re.search(r"in step \(spread 0\): loss ([0-9.]+)", out.stdout).group(1))
    assert n > 30
    assert abs(fitted - load_hardware("h100-sxm").l2.sm_rate_spread) < 0.01
    assert loss < 0.3 < 0.9 < still
    bad = subprocess.run(FIT + ["--every", "--apply"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
