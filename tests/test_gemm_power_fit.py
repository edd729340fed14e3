"""Our GEMM's board power in long loops as rows of the power model's fit (calibration/fit.gemm_power_runs,
`calibrate --gemm-power-run`): which rows count, the loss of one row, the CLI's guard."""
import json
import math
from pathlib import Path

import pytest

from perfmodel import load_hardware
from perfmodel.calibration.fit import (GEMM_POWER_LOOP_S, CalibrationError, _gemm_power_row_loss, clock_loss,
                                       gemm_model_power_w, gemm_power_runs)
from perfmodel.cli import main

ROOT = Path(__file__).parent.parent
PROBE2 = ROOT / "data" / "ncu" / "power_probe2_h100"
H100 = load_hardware("h100-sxm")


def test_only_loops_long_enough_for_nvml_power_count():
    """The same 12 kernels timed in 8 s loops all count; timed under the 2000-launch cap (0.05-0.63 s) only those whose
    loop reached half a second."""
    long = gemm_power_runs(PROBE2 / "h100_power_probe2.jsonl")
    assert len(long) == 12 and (long["kind"] == "gemm_power").all()
    capped = gemm_power_runs(PROBE2 / "h100_power_probe2_capped_reps.jsonl")
    assert 0 < len(capped) < 12 and (capped["meas_loop_s"] >= GEMM_POWER_LOOP_S).all()


def test_a_file_without_such_rows_is_one_line_error(tmp_path):
    rows = [json.loads(line) for line in (PROBE2 / "h100_power_probe2_capped_reps.jsonl").read_text().splitlines()]
    short = [r for r in rows if "header" in r or (r.get("reps") or 0) * (r.get("time_median_s") or 0) < 0.2]
    path = tmp_path / "short.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in short) + "\n")
    with pytest.raises(CalibrationError, match="no rows with an in-kernel clock and NVML power"):
        gemm_power_runs(path)


def test_a_row_costs_the_log_of_the_laws_power_over_the_measured():
    """The row's loss is |log(model W / measured W)| at the kernel's own clock: zero where the measurement equals the
    law, log 2 where it is half or double; and it joins clock_loss as a power row (the mean of the power rows)."""
    row = gemm_power_runs(PROBE2 / "h100_power_probe2.jsonl").iloc[[0]].copy()
    model = gemm_model_power_w(next(row.itertuples()), H100)
    assert 300 < model < 800                       # a skinny kernel at its ~1.8 GHz in-kernel clock, below the cap
    for measured, loss in ((model, 0.0), (model / 2, math.log(2)), (model * 2, math.log(2))):
        row["meas_power_w"] = measured
        assert _gemm_power_row_loss(next(row.itertuples()), H100) == pytest.approx(loss, abs=1e-9)
    assert clock_loss(row, H100) == pytest.approx(math.log(2))


def test_the_cli_takes_gemm_power_rows_only_for_the_power_model(capsys):
    rc = main(["calibrate", "--fit", "--dataset", str(ROOT / "data" / "measurements" / "h100_sm90_dataset.jsonl"),
               "--params", "sync.epilogue_bytes_per_clock_per_sm",
               "--gemm-power-run", str(PROBE2 / "h100_power_probe2.jsonl")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--gemm-power-run joins the power model's fit" in err[0]
