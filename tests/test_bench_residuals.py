"""benchmarks/bench_residuals.py: the traits it groups by and its per-row listing (calibration half only)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_residuals  # noqa: E402

SCRIPT = str(ROOT / "benchmarks" / "bench_residuals.py")


def test_one_dataset_gets_every_trait_and_its_kernel_clock_predictions():
    df = bench_residuals.frame("h100-sxm", "calibration", "measured", only="h100_stages")
    assert len(df) == 28 and set(df["dataset"]) == {"h100_stages.jsonl"}
    for t in bench_residuals.TRAITS:
        assert df[t].notna().all(), t
    assert set(df["k_class"]) == {"K > 8192"} and "128x128x64" in set(df["tile"])
    # clock measured: each row is predicted at its own in-kernel clock
    assert (df["pred_clock_hz"] - df["meas_kernel_clock_hz"]).abs().max() < 1e3


def test_rows_lists_each_row_and_an_unknown_name_is_a_one_line_error():
    out = subprocess.run([sys.executable, SCRIPT, "--rows", "h100_stages", "--clock", "measured"],
                         capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    assert out[0].startswith("h100-sxm, calibration half, clock measured") and "28 points" in out[0]
    assert len(out) == 2 + 28 and all("h100_stages" in line for line in out[2:])
    r = subprocess.run([sys.executable, SCRIPT, "--rows", "no_such_dataset"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_tail_splits_each_rows_error_into_the_cycle_model_and_the_clock():
    df = bench_residuals.tail("h100-sxm", "calibration", only="h100_stages")
    assert len(df) == 28 and df["meas_kernel_clock_hz"].notna().all()
    # clock: the predicted clock against the kernel's own; cycles: the prediction made at that clock
    assert ((df["clock"] - (df["pred_clock_hz"] / df["meas_kernel_clock_hz"] - 1)).abs() < 1e-12).all()
    again = bench_residuals.frame("h100-sxm", "calibration", "measured", only="h100_stages")
    by_key = again.set_index(["dataset", "shape", "dtype", "config_name"])["rel_err"]
    for r in df.itertuples():
        assert abs(by_key[(r.dataset, r.shape, r.dtype, r.config_name)] - r.cycles) < 1e-12
    # the prediction in its loop's regime is another prediction than the one at the kernel's clock
    assert (df["auto"] != df["cycles"]).any() and df["regime"].eq("sustained").all()


def test_tail_prints_the_three_counts_and_the_traits():
    out = subprocess.run([sys.executable, SCRIPT, "--tail", "--rows", "h100_stages"], capture_output=True, text=True,
                         timeout=180, check=True).stdout.splitlines()
    assert out[0].startswith("h100-sxm, calibration half: 28 rows with an in-kernel clock")
    assert [line.split()[0] for line in out[1:4]] == ["as", "clock", "cycles"]
    assert any(line.startswith("by bottleneck") for line in out) and any(line.startswith("by regime") for line in out)
