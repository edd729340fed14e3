"""benchmarks/bench_noise.py: the pairs of runs it forms and what it reports on the committed datasets."""
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_noise  # noqa: E402


def _row(dataset, config, tflops, shape="1024x1024x1024", regime="sustained"):
    return {"gpu": "G", "regime": regime, "config_name": config, "shape": shape, "dtype": "bf16", "dataset": dataset,
            "meas_tflops": tflops}


def test_a_point_in_two_files_is_one_pair_and_a_point_in_one_is_none():
    df = pd.DataFrame([_row("a.jsonl", "c1", 110.0), _row("b.jsonl", "c1", 100.0), _row("a.jsonl", "c2", 50.0),
                       _row("a.jsonl", "c3", 70.0, regime="short"), _row("b.jsonl", "c3", 70.0)])
    p = bench_noise.pairs(df)
    assert len(p) == 1                                       # c2 once; c3 in two regimes is not a repeat
    assert p.iloc[0]["rel"] == pytest.approx(0.10)


def test_three_files_give_three_pairs_and_a_shape_bias():
    rows = [_row(f, c, t * s) for f, s in (("a.jsonl", 1.0), ("b.jsonl", 1.1), ("c.jsonl", 1.0))
            for c, t in (("c1", 100.0), ("c2", 200.0), ("c3", 300.0))]
    p = bench_noise.pairs(pd.DataFrame(rows))
    assert len(p) == 9
    s = bench_noise.per_shape(p)
    assert sorted(round(b, 3) for b in s["bias"]) == [-0.091, 0.0, 0.1]
    assert (s["rho"] == 1.0).all() and s["best_agrees"].all()


def test_the_committed_runs_repeat_within_a_few_percent():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_noise.py"), "--split", "calibration"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    line = next(ln for ln in out.splitlines() if "every pair" in ln)
    mean = float(line.split("mean")[1].split("%")[0])
    assert 0.1 < mean < 5.0


def test_the_speed_up_floor_pairs_two_runs_of_each_gpu_and_skips_points_short_of_them():
    def row(gpu, dataset, tflops, m=64, config="c1"):
        return {"gpu": gpu, "regime": "sustained", "config_name": config, "shape": f"{m}x4096x4096", "m": m,
                "dtype": "bf16", "dataset": dataset, "meas_tflops": tflops}
    h100, h200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
    df = pd.DataFrame([row(h100, "h100_a.jsonl", 100.0), row(h100, "h100_b.jsonl", 100.0),
                       row(h200, "h200_a.jsonl", 150.0), row(h200, "h200_b.jsonl", 120.0),
                       # one H200 run only: no floor from it; M above the goal's bound: left out
                       row(h100, "h100_a.jsonl", 100.0, config="c2"), row(h100, "h100_b.jsonl", 90.0, config="c2"),
                       row(h200, "h200_a.jsonl", 130.0, config="c2"),
                       row(h100, "h100_a.jsonl", 500.0, m=4096), row(h100, "h100_b.jsonl", 500.0, m=4096),
                       row(h200, "h200_a.jsonl", 550.0, m=4096), row(h200, "h200_b.jsonl", 500.0, m=4096)])
    s = bench_noise.speedup_pairs(df)
    assert len(s) == 1
    assert s.iloc[0]["rel"] == pytest.approx(150.0 / 120.0 - 1)


def test_the_committed_speed_up_floor_is_printed():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_noise.py"), "--split", "held_out"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    line = out.splitlines()[out.splitlines().index(next(ln for ln in out.splitlines() if "speed-up of skinny" in ln)) + 1]
    within = float(line.split("within 5%:")[1].split("%")[0])
    assert 50.0 < within <= 100.0
