"""perfmodel.calibration.fit and `perfmodel calibrate --fit`: split, loss, guarded parameters, recovery of a
known value from synthetic measurements, writing the TOML with a fit source, the CLI paths."""
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from perfmodel import load_hardware
from perfmodel.calibration.fit import (CalibrationError, FitResult, Parameter, SM90_PARAMETERS, apply_fit,
                                       check_fittable, clock_frame, fit, load_split, log_loss, select_parameters,
                                       split, topk_recall)
from perfmodel.cli import main
from perfmodel.hardware import hardware_dir, parse_hardware
from perfmodel.measure import read_dataset
from perfmodel.calibration.report import add_predictions, measured_frame

DATA = Path(__file__).parent.parent / "data" / "measurements"
ROOT = Path(__file__).resolve().parent.parent
H100_DATA = DATA / "h100_sm90_dataset.jsonl"
# a fitted parameter (the direct stores' rate, the earlier example, is measured since 2026-11-26)
EPI = "sync.epilogue_bytes_per_clock_per_sm"


def test_split_is_by_shape_and_covers_the_dataset():
    s = load_split()
    frame, _ = measured_frame([H100_DATA])
    cal, held = split(frame)
    assert set(cal["shape"]) <= set(s.calibration) and set(held["shape"]) <= set(s.held_out)
    assert not set(s.calibration) & set(s.held_out)
    assert len(cal) + len(held) == len(frame) and len(cal) and len(held)
    for part in (cal, held):   # both dtypes of a shape fall on the same side
        assert part.groupby("shape")["dtype"].nunique().min() == 2


def test_the_committed_split_covers_every_dataset_of_our_kernel():
    """Every shape of every committed dataset of our kernel is in exactly one half of configs/splits/sm90.toml,
    the real-shapes split agrees with it, and both halves hold misaligned row pitches and ragged edges."""
    import tomllib
    s = load_split()
    for path in sorted(DATA.glob("*.jsonl")):
        _, ms = read_dataset(path)
        for m in ms:
            assert s.side(m.shape_name) != "unsplit", (path.name, m.shape_name)
    real = tomllib.loads((Path(s.path).parent / "sm90_real_shapes.toml").read_text())
    assert set(real["calibration"]) <= set(s.calibration) and set(real["held_out"]) <= set(s.held_out)
    for half in (s.calibration, s.held_out):
        dims = [tuple(int(x) for x in shape.split("x")) for shape in half]
        assert any(k * 2 % 128 for _, _, k in dims)                  # a bf16 row pitch not 128-byte aligned
        assert any(m % 64 or n % 64 for m, n, _ in dims)              # ragged M or N edge


def test_split_file_errors(tmp_path):
    bad = tmp_path / "s.toml"
    bad.write_text('[split]\ncalibration = ["1x1x1"]\nheld_out = ["1x1x1"]\n')
    with pytest.raises(CalibrationError, match="both sides"):
        load_split(bad)
    with pytest.raises(CalibrationError, match="no such split"):
        load_split(tmp_path / "none.toml")
    for unread in ('[unread]\nsets = "heldout9"\n', '[unread]\nsets = [""]\n', 'unread = 3\n'):
        bad.write_text(unread + '[split]\ncalibration = ["1x1x1"]\nheld_out = ["2x2x2"]\n')
        with pytest.raises(CalibrationError, match="unread"):
            load_split(bad)
    bad.write_text('[split]\ncalibration = ["1x1x1"]\nheld_out = ["2x2x2"]\n')
    assert load_split(bad).unread == ()


def test_the_unread_sets_are_committed_held_out_sets_and_reports_leave_them_out():
    """Every [unread] set of the committed split names committed datasets whose shapes are all held out;
    bench_accuracy.py leaves them out unless --read names one, and refuses to read a set that is not unread."""
    import subprocess
    import sys
    s = load_split()
    for tag in s.unread:
        files = [p for p in DATA.glob("*.jsonl") if tag in p.name]
        assert files, tag
        for path in files:
            _, ms = read_dataset(path)
            assert ms and all(s.side(m.shape_name) == "held_out" for m in ms), path.name
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_accuracy
    assert bench_accuracy.unread_sets(s) == s.unread
    if s.unread:
        assert s.unread[0] not in bench_accuracy.unread_sets(s, read=[s.unread[0]])
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_accuracy.py"), "--read", "no-such-set"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not an unread set" in out.stderr


def test_power_model_is_fitted_on_sustained_clock_runs_only():
    hw = load_hardware("h100-sxm")
    power = select_parameters("clock.tensor_power_fraction")
    frame, _ = measured_frame([H100_DATA])
    with pytest.raises(CalibrationError, match="sustained clock runs"):
        fit(frame, hw, power)
    clocks = clock_frame([DATA / "h100_sm90_clock.jsonl", DATA / "h100_smoke.jsonl"])
    smoke = clocks[clocks["dataset"] == "h100_smoke.jsonl"]
    assert smoke.empty and (clocks["meas_loop_s"] >= 0.25).all()   # short loops are not the sustained state
    with pytest.raises(CalibrationError, match="alone"):
        fit(frame, hw, power, clocks=clocks)
    res = fit(frame.iloc[0:0], hw, power, rounds=1, iters=2, clocks=clocks)
    assert res.loss_after <= res.loss_before


def test_log_loss_is_symmetric_and_counts_missing_predictions():
    df = pd.DataFrame({"pred_tflops": [200.0, 50.0, float("nan")], "meas_tflops": [100.0, 100.0, 100.0]})
    assert log_loss(df.iloc[:2]) == pytest.approx(0.6931, abs=1e-4)        # x2 and /2 weigh the same
    assert log_loss(df) == pytest.approx((2 * 0.693147 + 1.0) / 3, abs=1e-4)


def test_measured_values_may_not_be_fitted():
    hw = load_hardware("h100-sxm")
    check_fittable(hw, SM90_PARAMETERS)                       # estimates / calibrated / fit: sources
    with pytest.raises(CalibrationError, match="measurement or datasheet"):
        check_fittable(hw, [Parameter("tma.latency_cycles", 100, 1000)])
    with pytest.raises(CalibrationError, match="not a key"):
        check_fittable(hw, [Parameter("tma.no_such_key", 0, 1)])
    with pytest.raises(CalibrationError, match="not a fitted parameter"):
        select_parameters("clock.sustained_tensor_hz")
    assert [p.key for p in select_parameters(EPI)] == [EPI]


def test_the_h200_copies_of_the_h100_fit_may_not_be_fitted():
    """The H200 is never fitted (issue 8): its GH100 die-level values are the H100's fit, marked 'not fitted on H200
    data', and calibrate refuses to fit them there (before 2026-11-25 the copied 'fit:' in their source let it)."""
    h200 = load_hardware("h200")
    for key in ("l2.lrc_merge_128b", "smem.write_port_share", "clock.tensor_power_fraction"):
        with pytest.raises(CalibrationError, match="another GPU's fit"):
            check_fittable(h200, [p for p in SM90_PARAMETERS if p.key == key])


def _synthetic(hw, true_value):
    """TMA-store-epilogue points of a calibration shape of the H100 dataset whose epilogue weighs (2048^3), 'measured'
    as the model predicts them at true_value."""
    frame, _ = measured_frame([H100_DATA])
    rows = frame[frame["config_name"].str.endswith("_etma") & (frame["shape"] == "2048x2048x2048")
                 & frame["shape"].isin(load_split().calibration)]
    truth = add_predictions(rows.reset_index(drop=True), hw.with_values(**{EPI: true_value}))
    return truth.assign(meas_tflops=truth["pred_tflops"])[list(frame.columns)]


def test_fit_recovers_a_known_parameter():
    hw = load_hardware("h100-sxm").with_values(**{EPI: 64.0})
    frame = _synthetic(hw, 16.0)
    assert len(frame) >= 5
    res = fit(frame, hw, select_parameters(EPI), rounds=1, iters=10, jobs=1)
    assert res.values[EPI] == pytest.approx(16.0, rel=0.05)
    assert res.loss_after < 0.01 < res.loss_before and res.before[EPI] == 64.0


def test_apply_writes_values_with_a_fit_source(tmp_path):
    toml = tmp_path / "h100-sxm.toml"
    shutil.copy(hardware_dir() / "h100-sxm.toml", toml)
    res = FitResult(gpu="h100-sxm", values={EPI: 12.1234}, before={EPI: 10.9}, loss_before=0.2, loss_after=0.1,
                    evaluations=3, calibration_shapes=("8192x8192x8192",))
    apply_fit(str(toml), res, "data/measurements/h100_sm90_dataset.jsonl", date="2026-11-21")
    hw = parse_hardware(toml.read_text(), str(toml))
    assert hw.sync.epilogue_bytes_per_clock_per_sm == pytest.approx(12.1)
    assert hw.source_of(EPI) == ("fit: perfmodel calibrate --fit on data/measurements/h100_sm90_dataset.jsonl "
                                    "calibration shapes 8192x8192x8192, 2026-11-21")
    apply_fit(str(toml), res, ["a/x.jsonl", "y.jsonl"], date="2026-11-24", shapes="the calibration split of S",
              command="perfmodel calibrate --fit --params " + EPI)
    assert parse_hardware(toml.read_text(), str(toml)).source_of(EPI) == (
        f"fit: perfmodel calibrate --fit --params {EPI} on a/x.jsonl, y.jsonl "
        "(each row in its timed loop's clock regime), the calibration split of S, 2026-11-24")
    # a dataset outside the working directory is named where it is, not as if it were a committed file
    outside = tmp_path / "elsewhere.jsonl"
    apply_fit(str(toml), res, [str(outside)], date="2026-11-25", shapes="the calibration split of S")
    assert str(outside) in parse_hardware(toml.read_text(), str(toml)).source_of(EPI)
    bad = FitResult(gpu="h100-sxm", values={"tma.latency_cycles": 1.0}, before={}, loss_before=0, loss_after=0,
                    evaluations=0, calibration_shapes=())
    with pytest.raises(CalibrationError):
        apply_fit(str(toml), bad, "x.jsonl")


def test_topk_recall_counts_shared_configurations():
    df = pd.DataFrame({"shape": ["s"] * 3, "dtype": ["bf16"] * 3, "config_name": ["a", "b", "c"],
                       "pred_tflops": [3.0, 2.0, 1.0], "meas_tflops": [1.0, 2.0, 3.0]})
    assert topk_recall(df, k=1) == 0.0 and topk_recall(df, k=2) == 0.5 and topk_recall(df, k=3) == 1.0


def test_cli_fit_json_and_apply(tmp_path, capsys):
    """A small dataset (TMA-store-epilogue rows of one shape) through `perfmodel calibrate --fit`."""
    header, ms = read_dataset(H100_DATA)
    keep = [m for m in ms if m.valid and m.shape_name == "2048x2048x2048" and m.config_name.endswith("_etma")]
    path = tmp_path / "tiny.jsonl"
    path.write_text("\n".join([json.dumps(header.to_dict())] + [json.dumps(m.to_dict()) for m in keep]) + "\n")
    toml = tmp_path / "h100.toml"
    shutil.copy(hardware_dir() / "h100-sxm.toml", toml)
    rc = main(["calibrate", "--fit", "--dataset", str(path), "--gpu", str(toml), "--params", EPI,
               "--rounds", "1", "--jobs", "1", "--apply", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and set(out["values"]) == {EPI} and out["loss_after"] <= out["loss_before"]
    assert parse_hardware(toml.read_text(), str(toml)).source_of(EPI).startswith("fit: perfmodel calibrate")


def test_cli_refuses_unclear_requests(capsys):
    assert main(["calibrate"]) == 2
    assert main(["calibrate", "--microbench", "--apply"]) == 2          # microbench still needs a path
    assert main(["calibrate", "--fit"]) == 2                             # no dataset
    assert main(["calibrate", "--fit", "--dataset", str(H100_DATA), "--params", "clock.power_exponent"]) == 2
    assert main(["calibrate", "--fit", "--microbench", "--dataset", "x"]) == 2
    err = capsys.readouterr().err
    assert "needs the hardware file's path" in err and "--dataset" in err and "--clock-dataset" in err


def test_apply_keeps_values_the_data_do_not_constrain(tmp_path, capsys, monkeypatch):
    """A fit that does not lower its loss (a flat direction: the rows do not depend on the parameter) writes
    nothing: the hardware file keeps its sourced value instead of wherever the search ended."""
    from perfmodel import cli
    root = Path(__file__).resolve().parent.parent
    lines = (root / "data/measurements/h100_smoke.jsonl").read_text().splitlines()
    rows = [ln for ln in lines[1:] if '"m": 8192, "n": 8192, "k": 8192' in ln][:6]
    ds = tmp_path / "small.jsonl"
    ds.write_text("\n".join([lines[0], *rows]) + "\n")
    toml = tmp_path / "h100-sxm.toml"
    shutil.copy(hardware_dir() / "h100-sxm.toml", toml)
    before = toml.read_bytes()
    monkeypatch.chdir(root)
    code = cli.main(["calibrate", "--fit", "--dataset", str(ds), "--params", "smem.write_port_share", "--rounds", "1",
                     "--jobs", "1", "--apply", str(toml)])
    out = capsys.readouterr().out
    assert code == 0 and "not written: smem.write_port_share" in out
    assert toml.read_bytes() == before


def test_apply_writes_a_value_the_data_do_constrain(tmp_path, capsys, monkeypatch):
    """The other side of the guard: a parameter the rows depend on, started far off, is fitted and written (the
    8192^3 rows of h100_sm90_repeat, 100 ms loops, bring a 1 B/clk epilogue up to where those rows alone put it:
    16 B/clk with the MMA issue cost of 2026-11-26, ~39 with the sixth session's refit, where those big tiles no
    longer feel it; the refit at the in-kernel clocks of the whole calibration half gives 10.9)."""
    from perfmodel import cli
    root = Path(__file__).resolve().parent.parent
    lines = (root / "data/measurements/h100_sm90_repeat.jsonl").read_text().splitlines()
    ds = tmp_path / "small.jsonl"
    ds.write_text("\n".join([lines[0], *[ln for ln in lines[1:] if '"m": 8192, "n": 8192, "k": 8192' in ln]]) + "\n")
    toml = tmp_path / "h100-sxm.toml"
    text = (hardware_dir() / "h100-sxm.toml").read_text()
    text, n = re.subn(r"epilogue_bytes_per_clock_per_sm = \{ value = [0-9.]+",
                      "epilogue_bytes_per_clock_per_sm = { value = 1.0", text)
    assert n == 1
    toml.write_text(text)
    monkeypatch.chdir(root)
    code = cli.main(["calibrate", "--fit", "--dataset", str(ds), "--gpu", str(toml), "--params",
                     "sync.epilogue_bytes_per_clock_per_sm", "--rounds", "1", "--jobs", "1", "--apply", str(toml)])
    assert code == 0 and "wrote 1 values" in capsys.readouterr().out
    fitted = parse_hardware(toml.read_text(), str(toml)).sync.epilogue_bytes_per_clock_per_sm
    bound = next(p for p in SM90_PARAMETERS if p.key == "sync.epilogue_bytes_per_clock_per_sm")
    assert 8.0 <= fitted <= bound.hi


def test_at_kernel_clock_fits_on_the_probe_rows_at_their_own_clock(capsys, monkeypatch):
    """--at-kernel-clock: the throughput loss is taken on the rows with the harness's in-kernel clock, each predicted at
    that clock (the cycle model alone); a dataset without such rows is a one-line error, not a fit on nothing."""
    from perfmodel import cli
    from perfmodel.calibration import fit as cal
    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    ds = "data/measurements/h100_kclock_clock.jsonl"
    frame, _ = cal.load([ds])
    rows = cal.kernel_clock_rows(cal.split(frame, cal.load_split())[0])
    assert len(rows) >= 3
    hw = load_hardware("h100-sxm")
    at_kernel = cal._loss(rows, hw, None, "measured")
    auto = cal._loss(rows, hw, None, "auto")
    assert at_kernel != auto      # the two losses predict at different clocks
    code = main(["calibrate", "--fit", "--at-kernel-clock", "--dataset", ds, "--gpu", "h100-sxm", "--params",
                 "sync.epilogue_bytes_per_clock_per_sm", "--rounds", "1", "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 0 and f"{at_kernel:.4f} ->" in out
    code = main(["calibrate", "--fit", "--at-kernel-clock", "--dataset", "data/measurements/h100_sm90_repeat.jsonl",
                 "--gpu", "h100-sxm", "--params", "sync.epilogue_bytes_per_clock_per_sm", "--jobs", "1"])
    err = capsys.readouterr().err
    assert code != 0 and "carries an in-kernel clock" in err and "Traceback" not in err
