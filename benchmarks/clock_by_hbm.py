"""The predicted clock against the in-kernel clock, among the rows the model power-caps, by their predicted HBM activity
(the evidence behind the hbm-heavy-clock caveat): each calibration row with the harness's clock probe, predicted in its
timed loop's clock regime (clock auto).

    python3 benchmarks/clock_by_hbm.py [--gpu h100-sxm|h200] [--split calibration|held_out]

Printed per bin of HBM activity, for the kernels with zero fill in their tiles and without: rows, mean and median of
predicted / in-kernel clock - 1. The held-out half is for reporting only (benchmarks/bench_accuracy.py).

    python3 benchmarks/clock_by_hbm.py --power    # also the power law at each kernel's own clock

``--power``: for the power-limited rows timed in sustained loops, the model's board power (sim/power.power_terms, in W)
at the kernel's own in-kernel clock with the activity simulated at that clock, against the cap they ran at; and again
with every activity scaled by the predicted / measured time at that clock (the activity the measured time implies): how
much of the over-count is the power law's and how much the cycles'.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pandas as pd  # noqa: E402

import bench_accuracy as ba  # noqa: E402
import bench_residuals as br  # noqa: E402
from perfmodel import make_problem  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.prediction.predict import activity_at, predict  # noqa: E402
from perfmodel.sim.power import Activity, below_tensor_ceiling, board_power, power_terms  # noqa: E402
from perfmodel.sim.scheduler import make_schedule, operand_fill  # noqa: E402

BINS = [0, 0.4, 0.6, 0.8, 1.01]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", default="h100-sxm", choices=["h100-sxm", "h200"])
    ap.add_argument("--split", default="calibration", choices=["calibration", "held_out"])
    ap.add_argument("--power", action="store_true", help="also the power law at each kernel's own clock")
    args = ap.parse_args()
    hw = ba._hw(args.gpu)
    df = br.frame(args.gpu, args.split, "auto").dropna(subset=["meas_kernel_clock_hz"])
    hbm, zero_fill = [], []
    for _, r in df.iterrows():
        p, cfg = make_problem(r["shape"], r["dtype"]), KernelConfig.from_name(r["config_name"])
        pred = predict(p, cfg, hw, clock=r["clock_basis"])
        hbm.append(pred.details.get("hbm_activity", 0.0))
        a, b, k = operand_fill(p, cfg, make_schedule(p, cfg, hw))
        zero_fill.append(a * b * k < 0.97)
    df = df.assign(u_hbm=hbm, zero_fill=zero_fill,
                   clock_err=df["pred_clock_hz"] / df["meas_kernel_clock_hz"].astype(float) - 1)
    capped = df[[below_tensor_ceiling(f, hw) for f in df["pred_clock_hz"]]]
    print(f"{args.gpu}, {args.split} half: {len(df)} rows with an in-kernel clock, {len(capped)} power-limited "
          "(predicted / in-kernel clock - 1 by predicted HBM activity)")
    for label, rows in (("all", capped), ("full tiles", capped[~capped["zero_fill"]]),
                        ("zero fill", capped[capped["zero_fill"]])):
        g = rows.groupby(pd.cut(rows["u_hbm"], BINS), observed=True)["clock_err"]
        print(f"  {label}")
        for interval, s in g:
            print(f"    HBM {interval}: {len(s):4d} rows  mean {s.mean() * 100:+5.1f}%  median {s.median() * 100:+5.1f}%")
    if args.power:
        power_at_kernel_clock(capped[capped["regime"] == "sustained"], hw)
    return 0


def power_at_kernel_clock(rows: pd.DataFrame, hw) -> None:
    """The power law's terms (W) at each row's in-kernel clock, its activity simulated at that clock, by HBM activity;
    the total against the cap, and the total with the activities scaled by predicted / measured time."""
    out = []
    for _, r in rows.iterrows():
        p, cfg, f = make_problem(r["shape"], r["dtype"]), KernelConfig.from_name(r["config_name"]), \
            float(r["meas_kernel_clock_hz"])
        act, q = activity_at(p, cfg, hw, f)
        t = q.time_s / float(r["meas_time_s"])
        timed = Activity(act.tensor * t, act.l2 * t, act.hbm * t, f, cycles=q.cycles / t, streamed=True,
                         operand_fill=act.operand_fill)
        terms = {k: v * hw.gpu.tdp_w for k, v in power_terms(act, f, p, hw).items()}
        out.append({"u_hbm": q.details.get("hbm_activity", 0.0), **terms, "total": sum(terms.values()),
                    "timed": board_power(timed, f, p, hw) * hw.gpu.tdp_w, "time_ratio": t})
    df = pd.DataFrame(out)
    print(f"  the power law at the kernel's own clock, {len(df)} power-limited rows in sustained loops (cap "
          f"{hw.gpu.tdp_w:.0f} W): mean W by HBM activity")
    print(f"    {'HBM':<13} {'rows':>4} {'static':>7} {'tensor':>7} {'L2':>6} {'HBM':>6} {'total':>7} "
          f"{'time-scaled':>11} {'pred/meas time':>14}")
    for interval, g in df.groupby(pd.cut(df["u_hbm"], BINS), observed=True):
        print(f"    {str(interval):<13} {len(g):4d} {g['static'].mean():7.0f} {g['tensor'].mean():7.0f} "
              f"{g['l2'].mean():6.0f} {g['hbm'].mean():6.0f} {g['total'].mean():7.0f} {g['timed'].mean():11.0f} "
              f"{g['time_ratio'].mean():14.3f}")


if __name__ == "__main__":
    sys.exit(main())
