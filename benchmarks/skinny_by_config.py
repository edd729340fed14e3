"""The H200/H100 speed-up of skinny GEMMs (M <= 256) by configuration (issue 8, the thirty-third session): the
calibration half's pairs of bench_accuracy.py (bench_accuracy.skinny_pairs, clock auto), per tile, cluster and ring
depth: points, the mean of predicted / measured - 1 and how many fall within 5%; then per (shape, dtype, sweep) the
speed-up of each GPU's best measured configuration against that of its best predicted one.

    python3 benchmarks/skinny_by_config.py            # the calibration half (model changes may look at it)
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402

import bench_accuracy as ba  # noqa: E402
from perfmodel.calibration.fit import load_split, split  # noqa: E402
from perfmodel.calibration.report import add_predictions, measured_frame  # noqa: E402


def half_frames(half: str = "calibration") -> dict[str, pd.DataFrame]:
    """Every dataset's rows of the half, predicted at clock auto, by GPU spec (the unread sets left out)."""
    sp, parts = load_split(), {}
    for name, spec, note in ba._datasets(ba.unread_sets(sp)):
        if note:
            continue
        frame, _ = measured_frame([ba.DATA / name])
        rows = dict(zip(("calibration", "held_out"), split(frame, sp)))[half]
        if len(rows):
            parts.setdefault(spec, []).append(add_predictions(rows.reset_index(drop=True), ba._hw(spec), clock="auto"))
    return {g: pd.concat(p, ignore_index=True).dropna(subset=["pred_tflops"]) for g, p in parts.items()}


def main() -> int:
    warnings.simplefilter("ignore")
    f = half_frames()
    both = ba.skinny_pairs(f["h100-sxm"], f["h200"])
    cfg = both["config_name"].str.extract(r"^(\d+x\d+x\d+)_.*_cl(\dx\d)_mc(\d)_s(\d+)_")
    both["key"] = cfg[0] + " cl" + cfg[1] + " mc" + cfg[2] + " s" + cfg[3]
    both["ok"] = both["speedup_err"].abs() <= 0.05
    by = both.groupby("key").agg(n=("speedup_err", "size"), mean=("speedup_err", "mean"), within=("ok", "sum"))
    print(f"calibration half, {len(both)} pairs, {int(both['ok'].sum())} within 5%")
    print("| configuration | points | predicted / measured - 1, mean | within 5% |")
    print("| --- | --- | --- | --- |")
    for key, r in by.sort_values("n", ascending=False).iterrows():
        print(f"| {key} | {int(r['n'])} | {r['mean']:+.1%} | {int(r['within'])} |")
    best = []
    for _, g in both.groupby(["shape", "dtype", "sweep"]):
        if len(g) >= 2:
            meas = g["meas_tflops_200"].max() / g["meas_tflops_100"].max()
            pred = g["pred_tflops_200"].max() / g["pred_tflops_100"].max()
            best.append(pred / meas - 1)
    print(f"per (shape, dtype, sweep) with 2+ configurations, each GPU's best: {sum(abs(e) <= 0.05 for e in best)} of "
          f"{len(best)} within 5%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
