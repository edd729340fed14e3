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
