"""Where the model is systematically off: the prediction error of every committed dataset of our kernel grouped by
one knob or trait at a time (stages, multicast, cluster, swizzle, tile M, epilogue, M class, predicted bottleneck,
dtype, clock regime), each row in its timed loop's clock regime (clock auto).

    python3 benchmarks/bench_residuals.py                       # H100, calibration half (what model changes may read)
    python3 benchmarks/bench_residuals.py --gpu h200 --by stages,swizzle
    python3 benchmarks/bench_residuals.py --rows stages --clock measured   # each row of h100_stages.jsonl

A group whose bias stands out names the physics to look at; the held-out half is for reporting only
(benchmarks/bench_accuracy.py), so this prints the calibration half unless told otherwise.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pandas as pd  # noqa: E402

import bench_accuracy as ba  # noqa: E402
from perfmodel.calibration.fit import load_split, split  # noqa: E402
from perfmodel.calibration.report import add_predictions, measured_frame  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402

TRAITS = ("stages", "multicast", "cluster", "swizzle", "tile_m", "tile", "consumers", "epilogue", "m_class", "k_class",
          "bottleneck", "dtype", "regime")
M_CLASSES = ([0, 64, 256, 1024, float("inf")], ["M <= 64", "M <= 256", "M <= 1024", "M > 1024"])
K_CLASSES = ([0, 1024, 4096, 8192, float("inf")], ["K <= 1024", "K <= 4096", "K <= 8192", "K > 8192"])


def frame(gpu: str, half: str, clock: str = "auto", only: str = "") -> pd.DataFrame:
    """The half's rows of every dataset of ``gpu`` (``only``: those whose file name contains it) with their predictions
    at ``clock`` and the traits."""
    sp = load_split()
    parts = []
    for name, spec, note in ba._datasets():
        if note or spec != gpu or only not in name:
            continue
        measured, _ = measured_frame([ba.DATA / name])
        df = add_predictions(measured, ba._hw(spec), clock=clock)
        cal, held = split(df, sp)
        parts.append(cal if half == "calibration" else held)
    if not any(len(p) for p in parts):
        return pd.DataFrame()
    df = pd.concat([p for p in parts if len(p)], ignore_index=True).dropna(subset=["pred_tflops"])
    cfgs = [KernelConfig.from_name(n) for n in df["config_name"]]
    df["stages"] = [c.stages for c in cfgs]
    df["multicast"] = [c.multicast and c.cluster_size > 1 for c in cfgs]
    df["cluster"] = [f"{c.cluster_m}x{c.cluster_n}" for c in cfgs]
    df["swizzle"] = [c.swizzle_a.value for c in cfgs]
    df["tile_m"] = [c.tile_m for c in cfgs]
    df["tile"] = [f"{c.tile_m}x{c.tile_n}x{c.tile_k}" for c in cfgs]
    df["consumers"] = [c.consumers for c in cfgs]
    df["epilogue"] = [c.epilogue.value for c in cfgs]
    df["m_class"] = pd.cut(df["m"], M_CLASSES[0], labels=M_CLASSES[1])
    df["k_class"] = pd.cut(df["k"], K_CLASSES[0], labels=K_CLASSES[1])
    df["bottleneck"] = df["pred_bottleneck"]
    df["regime"] = df["clock_basis"]
    return df


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="h100-sxm", choices=["h100-sxm", "h200"])
    ap.add_argument("--split", default="calibration", choices=["calibration", "held_out"],
                    help="which half (model changes may look at 'calibration' only)")
    ap.add_argument("--clock", default="auto", choices=["auto", "measured"],
                    help="auto: each row in its timed loop's regime; measured: at each row's NVML mean SM clock "
                         "(the cycle model alone, without the clock model)")
    ap.add_argument("--by", default=",".join(TRAITS), help=f"comma-separated traits (of {', '.join(TRAITS)})")
    ap.add_argument("--rows", metavar="NAME", help="print each row of the datasets whose file name contains NAME "
                                                   "(measured and predicted TFLOP/s, their clocks, the error) instead")
    args = ap.parse_args()
    traits = [t.strip() for t in args.by.split(",") if t.strip()]
    unknown = [t for t in traits if t not in TRAITS]
    if unknown:
        ap.error(f"unknown trait(s) {', '.join(unknown)} (known: {', '.join(TRAITS)})")
    df = frame(args.gpu, args.split, args.clock, args.rows or "")
    if df.empty:
        sys.exit(f"no {args.split} rows of {args.gpu}" + (f" in a dataset named like {args.rows!r}" if args.rows else ""))
    if args.rows:
        print_rows(df, args)
        return
    err = df["rel_err"]
    print(f"{args.gpu}, {args.split} half, clock {args.clock}: {len(df)} points, MAPE {err.abs().mean():.1%}, "
          f"bias {err.mean():+.1%}")
    for t in traits:
        g = df.groupby(t, observed=True)["rel_err"].agg(points="size", mape=lambda e: e.abs().mean(), bias="mean")
        print(f"\nby {t}")
        for key, r in g.iterrows():
            print(f"  {str(key):<12} {int(r.points):>5}  MAPE {r.mape:6.1%}  bias {r.bias:+7.1%}")


def print_rows(df: pd.DataFrame, args) -> None:
    """One line a row: dataset, shape, dtype, configuration, measured TFLOP/s at its clock (the in-kernel one where the
    row has it, else NVML's), predicted TFLOP/s at the clock it was predicted at, the error and the bottleneck."""
    print(f"{args.gpu}, {args.split} half, clock {args.clock}, datasets named like {args.rows!r}: {len(df)} points, "
          f"MAPE {df['rel_err'].abs().mean():.1%}, bias {df['rel_err'].mean():+.1%}")
    print(f"  {'dataset':<28} {'shape':<17} {'dtype':<5} {'configuration':<66} {'meas':>6} {'MHz':>5} "
          f"{'pred':>6} {'MHz':>5} {'error':>7}  bottleneck")
    for r in df.sort_values(["dataset", "shape", "dtype", "config_name"]).itertuples():
        mhz = r.meas_kernel_clock_hz if r.meas_kernel_clock_hz == r.meas_kernel_clock_hz else r.meas_sm_clock_hz
        print(f"  {r.dataset.removesuffix('.jsonl'):<28} {r.shape:<17} {r.dtype:<5} {r.config_name:<66} "
              f"{r.meas_tflops:6.0f} {mhz / 1e6:5.0f} {r.pred_tflops:6.0f} {r.pred_clock_hz / 1e6:5.0f} "
              f"{r.rel_err:+7.1%}  {r.pred_bottleneck}")


if __name__ == "__main__":
    main()
