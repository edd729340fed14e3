"""Accuracy of the model against the committed hardware datasets, on the calibration split and on the
held-out shapes the fit never saw (perfmodel.calibration.fit.CALIBRATION_SHAPES), plus the H200 dataset as an
independent check and the tuner's top-8 / headline configurations.

    python3 benchmarks/bench_accuracy.py                 # H100 split + H200 + top-8 files
    python3 benchmarks/bench_accuracy.py --per-shape     # also the per-(shape, dtype) table

Figures per part: points, MAPE, median and p90 absolute percentage error, mean signed error (bias),
median over (shape, dtype) of Spearman's rho between predicted and measured TFLOP/s, the share of
(shape, dtype) whose predicted top-8 holds a configuration within 2% of the measured best, and the
top-8 recall (measured top-8 found in the predicted top-8). Everything is computed by
perfmodel.calibration.report / perfmodel.calibration.fit; this script only prints.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from perfmodel.calibration.fit import (CALIBRATION_SHAPES, clock_frame, clock_loss, evaluate_split, load, split,  # noqa: E402
                                 topk_recall)
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.hardware import load_hardware  # noqa: E402
from perfmodel.prediction.predict import predict  # noqa: E402
from perfmodel.problem import make_problem  # noqa: E402
from perfmodel.calibration.report import accuracy, add_predictions, measured_frame, per_shape  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "measurements")
SPLIT_DATASETS = [("H100 SXM", "h100_sm90_dataset.jsonl"), ("H200", "h200_sm90_dataset.jsonl")]
TOP_FILES = [("H100 second held-out set (3 new shapes, never fitted)", ["h100_sm90_heldout2.jsonl"]),
             ("H100 tune --validate-top 8 + headline", ["h100_validate_top.jsonl", "h100_headline.jsonl"]),
             ("H200 headline", ["h200_headline.jsonl"])]
CLOCK_FILE = "h100_sm90_clock.jsonl"


def _line(label: str, df) -> str:
    if df is None or df.empty:
        return f"  {label:<12} (no points)"
    a = accuracy(df)
    return (f"  {label:<12} n={a.points:<4} MAPE {a.mape:5.1%}  median {a.median_ape:5.1%}  p90 {a.p90_ape:5.1%}  "
            f"bias {a.bias:+6.1%}  rho {a.spearman_median:4.2f}  top8-hit {a.topk_hit_fraction:4.0%}  "
            f"top8-recall {topk_recall(df):4.0%}")


def _shape_table(df) -> None:
    print(f"    {'shape':<17} {'dtype':<5} {'n':>3} {'MAPE':>6} {'bias':>7} {'rho':>5} {'meas best':>9} "
          f"{'pred best':>9} {'top8':>5}")
    for r in per_shape(df).itertuples():
        print(f"    {r.shape:<17} {r.dtype:<5} {r.n:>3} {r.mape:>6.1%} {r.bias:>+7.1%} {r.spearman:>5.2f} "
              f"{r.meas_best:>9.1f} {r.pred_best:>9.1f} {'yes' if r.topk_hit else 'NO':>5}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-shape", action="store_true", help="print the per-(shape, dtype) table too")
    args = ap.parse_args()
    print(f"calibration shapes: {', '.join(CALIBRATION_SHAPES)} (both dtypes); held out: the others")
    for label, name in SPLIT_DATASETS:
        path = os.path.join(DATA, name)
        t0 = time.perf_counter()
        frame, spec = load(path)
        hw = load_hardware(spec)
        figs, df = evaluate_split(frame, hw)
        cal, held = split(df)
        print(f"{label}: {name} vs {hw.name} (fingerprint {hw.fingerprint}), {time.perf_counter() - t0:.1f} s")
        print(_line("calibration", cal))
        print(_line("held-out", held))
        print(_line("all", df))
        print(f"  mean |log(pred/meas)|: calibration {figs.loss_calibration:.4f}, held-out {figs.loss_held_out:.4f}")
        if args.per_shape:
            _shape_table(df)
    for label, names in TOP_FILES:
        paths = [os.path.join(DATA, n) for n in names if os.path.exists(os.path.join(DATA, n))]
        if not paths:
            continue
        frame, spec = measured_frame(paths)
        df = add_predictions(frame, load_hardware(spec))
        print(f"{label}: {', '.join(os.path.basename(p) for p in paths)}")
        print(_line("all", df))
        if args.per_shape:
            _shape_table(df)
    _clocks(os.path.join(DATA, CLOCK_FILE))


def _clocks(path: str) -> None:
    """Predicted power-limited clock against the steady-state NVML clock of the 1.5 s runs."""
    if not os.path.exists(path):
        return
    frame = clock_frame(path)
    hw = load_hardware(measured_frame([path])[1])
    print(f"H100 clock runs ({os.path.basename(path)}): predicted vs measured SM clock and TFLOP/s")
    for row in frame.itertuples():
        p = predict(make_problem((row.m, row.n, row.k), row.dtype), KernelConfig.from_name(row.config_name), hw)
        print(f"  {row.config_name[:52]:<52} {row.dtype:<5} clock {p.clock_hz / 1e6:5.0f} vs {row.meas_sm_clock_hz / 1e6:5.0f} MHz"
              f"   TFLOP/s {p.tflops:6.0f} vs {row.meas_tflops:6.0f}")
    print(f"  mean |log(pred clock / meas clock)| {clock_loss(frame, hw):.4f}")


if __name__ == "__main__":
    main()
