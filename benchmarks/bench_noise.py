"""The measurement's own noise floor: how well one committed run of our kernel predicts another run of the same
configurations (another session, loop, card or day), by the figures the accuracy goals use.

    python3 benchmarks/bench_noise.py                       # every GPU, both halves of the split
    python3 benchmarks/bench_noise.py --split calibration

Every (configuration, shape, operand type) that two or more committed datasets measured in the same clock regime (the
timed loop's: short below 50 ms, else sustained, as sim/clock.py's rule) forms pairs of runs (one pair per two files).
For each pair it prints what a model that predicted one run's figure exactly would score against the other: the
per-point |a/b - 1| (MAPE, p90), the per-shape bias between the runs (the mean over the shape's configurations of
a/b - 1; the issue's "no shape beyond 8%"), the per-shape Spearman between them (the 0.92 goal), and whether the two
runs agree on the best configuration within 2% (top-8's ancestor). No prediction is made: measurements only, so the
held-out half may be read (its figures are the runs', not the model's). Rows of one file that repeat a point count
once (measured_frame keeps the last).
"""
from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import pandas as pd  # noqa: E402

from bench_accuracy import _datasets  # noqa: E402

from perfmodel.calibration.fit import load_split  # noqa: E402
from perfmodel.calibration.report import measured_frame  # noqa: E402
from perfmodel.calibration.stats import spearman  # noqa: E402
from perfmodel.measure.dataset import read_dataset  # noqa: E402
from perfmodel.sim.clock import SHORT_LOOP_S  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data" / "measurements"
MIN_SHAPE_CONFIGS = 3          # a shape's bias and Spearman between two runs need this many common configurations


def frames() -> pd.DataFrame:
    """Every committed dataset's valid kernel rows, with its GPU and the timed loop's regime (the datasets
    bench_accuracy.py leaves out of its totals, e.g. a superseded kernel's, left out here too)."""
    parts = []
    for name, _, note in _datasets():
        if note:
            continue
        path = DATA / name
        header, _ = read_dataset(path)
        df, _ = measured_frame([path])
        df["gpu"] = header.gpu_name
        df["regime"] = ["short" if s is not None and 0 < s < SHORT_LOOP_S else "sustained" for s in df["meas_loop_s"]]
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def pairs(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, pair of files that both measured it): a/b - 1, a and b in file-name order."""
    keys = ["gpu", "regime", "config_name", "shape", "dtype"]
    out = []
    for key, g in df.groupby(keys):
        if g["dataset"].nunique() < 2:
            continue
        by_file = g.drop_duplicates("dataset", keep="last").set_index("dataset")["meas_tflops"]
        for fa, fb in itertools.combinations(sorted(by_file.index), 2):
            out.append(dict(zip(keys, key), file_a=fa, file_b=fb, a=by_file[fa], b=by_file[fb]))
    p = pd.DataFrame(out)
    if not p.empty:
        p["rel"] = p["a"] / p["b"] - 1
    return p


def per_shape(p: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (gpu, regime, shape, dtype, fa, fb), g in p.groupby(["gpu", "regime", "shape", "dtype", "file_a", "file_b"]):
        if len(g) < MIN_SHAPE_CONFIGS:
            continue
        best_a, best_b = g.loc[g["a"].idxmax()], g.loc[g["b"].idxmax()]
        rows.append({"gpu": gpu, "shape": shape, "dtype": dtype, "n": len(g), "bias": g["rel"].mean(),
                     "rho": spearman(g["a"], g["b"]),
                     # the configuration best in run a is within 2% of run b's best, in run b (and the other way)
                     "best_agrees": best_a["b"] >= 0.98 * g["b"].max() and best_b["a"] >= 0.98 * g["a"].max()})
    return pd.DataFrame(rows)


def report(p: pd.DataFrame, label: str) -> None:
    if p.empty:
        print(f"  {label:24s} no point measured twice")
        return
    err = p["rel"].abs()
    s = per_shape(p)
    line = (f"  {label:24s} pairs {len(p):5d}  |a/b-1| mean {err.mean() * 100:4.1f}%  median {err.median() * 100:4.1f}%  "
            f"p90 {err.quantile(0.9) * 100:4.1f}%  (one run vs the truth, if both carry the same noise: "
            f"~{err.mean() / math.sqrt(2) * 100:.1f}%)")
    if not s.empty:
        line += (f"\n  {'':24s} shape pairs {len(s):3d}: |bias| > 8% on {int((s['bias'].abs() > 0.08).sum())}, "
                 f"> 4% on {int((s['bias'].abs() > 0.04).sum())}; Spearman median {s['rho'].median():.2f} "
                 f"(p10 {s['rho'].quantile(0.1):.2f}); best within 2% in both runs on "
                 f"{int(s['best_agrees'].sum())}/{len(s)}")
    print(line)


SKINNY_M = 256          # issue 8's H200/H100 speed-up goal: GEMMs with M <= 256
SPEEDUP_WITHIN = 0.05   # ... within 5% of measured


def speedup_pairs(df: pd.DataFrame) -> pd.DataFrame:
    """The H200/H100 speed-up goal's floor: for every skinny point (M <= SKINNY_M) that two or more committed runs
    measured on each GPU (in the same clock regime), the speed-up of one H100 run and one H200 run against that of two
    other runs: (h200_a / h100_a) / (h200_b / h100_b) - 1, over every pair of H100 runs and every pair of H200 runs.
    What a model exact on the first two runs would score on the goal against the other two."""
    df = df[df["m"] <= SKINNY_M]
    keys = ["regime", "config_name", "shape", "dtype"]
    gpu = df["gpu"].str.contains("H200").map({True: "h200", False: "h100"})
    out = []
    for key, g in df.assign(card=gpu).groupby(keys):
        runs = {c: gg.drop_duplicates("dataset", keep="last")["meas_tflops"].tolist() for c, gg in g.groupby("card")}
        a, b = runs.get("h100", []), runs.get("h200", [])
        if len(a) < 2 or len(b) < 2:
            continue
        for (a1, a2), (b1, b2) in itertools.product(itertools.combinations(a, 2), itertools.combinations(b, 2)):
            out.append(dict(zip(keys, key), rel=(b1 / a1) / (b2 / a2) - 1))
    return pd.DataFrame(out)


def report_speedup(df: pd.DataFrame) -> None:
    s = speedup_pairs(df)
    print(f"\nH200/H100 speed-up of skinny GEMMs (M <= {SKINNY_M}), points with two or more runs on each GPU")
    if s.empty:
        print("  no such point")
        return
    err = s["rel"].abs()
    points = s.groupby(["regime", "config_name", "shape", "dtype"]).ngroups
    print(f"  {points} points, {len(s)} run quadruples: |speed-up a / speed-up b - 1| mean {err.mean() * 100:.1f}%, "
          f"p90 {err.quantile(0.9) * 100:.1f}%; within {SPEEDUP_WITHIN:.0%}: {(err <= SPEEDUP_WITHIN).mean():.1%} "
          f"(the goal's ceiling for a model exact on one run of each GPU)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=["all", "calibration", "held_out"], default="all")
    ap.add_argument("--files", action="store_true", help="also print every pair of files")
    args = ap.parse_args()
    df = frames()
    cal = set(load_split().calibration)
    if args.split != "all":
        df = df[df["shape"].isin(cal) == (args.split == "calibration")]
    p = pairs(df)
    print(f"the measurement's noise floor: points measured by two committed runs ({args.split} shapes; measurements "
          f"only, no prediction)")
    for gpu, g in p.groupby("gpu") if not p.empty else []:
        print(f"\n{gpu}")
        report(g, "every pair")
        for regime, r in g.groupby("regime"):
            report(r, f"{regime} loops")
        if args.files:
            for (fa, fb), r in g.groupby(["file_a", "file_b"]):
                report(r, f"{fa[:-6]} / {fb[:-6]}"[:24])
    report_speedup(df)


if __name__ == "__main__":
    main()
