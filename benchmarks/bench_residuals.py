"""Where the model is systematically off: the prediction error of every committed dataset of our kernel grouped by
one knob or trait at a time (stages, multicast, cluster, swizzle, tile M, epilogue, M class, predicted bottleneck,
dtype, clock regime), each row in its timed loop's clock regime (clock auto).

    python3 benchmarks/bench_residuals.py                       # H100, calibration half (what model changes may read)
    python3 benchmarks/bench_residuals.py --gpu h200 --by stages,swizzle
    python3 benchmarks/bench_residuals.py --rows stages --clock measured   # each row of h100_stages.jsonl
    python3 benchmarks/bench_residuals.py --tail                # the clock's and the cycles' share of the large errors

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
    # without the sets kept unread (all held out; their one read is bench_accuracy.py --read)
    for name, spec, note in ba._datasets(ba.unread_sets(sp)):
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


TAIL = 0.08     # the p90 goal: an error beyond it is in the tail the goal counts


def tail(gpu: str, half: str, only: str = "") -> pd.DataFrame:
    """The rows with the harness's in-kernel clock, each with three errors: ``auto`` (the prediction in its timed loop's
    regime, what the accuracy goals count), ``cycles`` (predicted at the kernel's own clock: the cycle model alone, as
    if the clock model were exact) and ``clock`` (predicted / in-kernel clock - 1: the error if the cycles were exact
    and time scaled as 1 / clock; HBM-bound time does not, so this one is an approximation)."""
    auto = frame(gpu, half, "auto", only)
    kern = frame(gpu, half, "measured", only)
    if auto.empty or kern.empty:
        return pd.DataFrame()
    keys = ["dataset", "shape", "dtype", "config_name"]
    auto = auto.dropna(subset=["meas_kernel_clock_hz"])
    kern = kern.dropna(subset=["meas_kernel_clock_hz"])[keys + ["rel_err"]].rename(columns={"rel_err": "cycles"})
    df = auto.merge(kern.drop_duplicates(keys), on=keys, how="inner").rename(columns={"rel_err": "auto"})
    df["clock"] = df["pred_clock_hz"] / df["meas_kernel_clock_hz"] - 1
    return df


def print_tail(df: pd.DataFrame, args, threshold: float = TAIL) -> None:
    """How many rows lie beyond ``threshold`` as predicted, with the clock exact and with the cycles exact, their p90,
    and the tail's rows by trait (which of the two models puts them there)."""
    print(f"{args.gpu}, {args.split} half: {len(df)} rows with an in-kernel clock; beyond {threshold:.0%} and p90 of "
          "|error|")
    for col, what in (("auto", "as predicted (clock auto)"), ("cycles", "clock exact (at the kernel's clock)"),
                      ("clock", "cycles exact (predicted / kernel clock - 1)")):
        e = df[col].abs()
        print(f"  {what:<46} {int((e > threshold).sum()):>5}  p90 {e.quantile(0.9):6.1%}")
    big = df[df["auto"].abs() > threshold]
    print(f"\nthe {len(big)} rows beyond {threshold:.0%} as predicted: how many are beyond it in the cycle model alone, "
          f"and how many have a clock off by more than {threshold / 2:.0%}")
    for t in ("bottleneck", "tile", "stages", "m_class", "k_class", "regime"):
        g = big.groupby(t, observed=True).agg(rows=("auto", "size"), over=("auto", lambda e: int((e > 0).sum())),
                                              cyc=("cycles", lambda e: int((e.abs() > threshold).sum())),
                                              clk=("clock", lambda e: int((e.abs() > threshold / 2).sum())))
        print(f"\nby {t}")
        for key, r in g.iterrows():
            print(f"  {str(key):<12} {int(r.rows):>4} rows ({int(r.over)} over-predicted)  "
                  f"cycles beyond: {int(r.cyc):>4}  clock beyond half: {int(r.clk):>4}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="h100-sxm", choices=["h100-sxm", "h200"])
    ap.add_argument("--split", default="calibration", choices=["calibration", "held_out"],
                    help="which half (model changes may look at 'calibration' only)")
    ap.add_argument("--clock", default="auto", choices=["auto", "measured"],
                    help="auto: each row in its timed loop's regime; measured: at each row's NVML mean SM clock "
                         "(the cycle model alone, without the clock model)")
    ap.add_argument("--by", default=",".join(TRAITS), help=f"comma-separated traits (of {', '.join(TRAITS)})")
    ap.add_argument("--tail", action="store_true",
                    help="the rows beyond the p90 goal (8%%): as predicted, with the clock exact and with the cycles "
                         "exact, and by trait")
    ap.add_argument("--rows", metavar="NAME", help="print each row of the datasets whose file name contains NAME "
                                                   "(measured and predicted TFLOP/s, their clocks, the error) instead")
    args = ap.parse_args()
    traits = [t.strip() for t in args.by.split(",") if t.strip()]
    unknown = [t for t in traits if t not in TRAITS]
    if unknown:
        ap.error(f"unknown trait(s) {', '.join(unknown)} (known: {', '.join(TRAITS)})")
    if args.tail:
        df = tail(args.gpu, args.split, args.rows or "")
        if df.empty:
            sys.exit(f"no {args.split} rows of {args.gpu} with an in-kernel clock")
        print_tail(df, args)
        return
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
