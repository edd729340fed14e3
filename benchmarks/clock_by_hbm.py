"""The predicted clock against the in-kernel clock, among the rows the model power-caps, by their predicted HBM activity
(the evidence behind the hbm-heavy-clock caveat): each calibration row with the harness's clock probe, predicted in its
timed loop's clock regime (clock auto).

    python3 benchmarks/clock_by_hbm.py [--gpu h100-sxm|h200] [--split calibration|held_out]

Printed per bin of HBM activity, for the kernels with zero fill in their tiles and without: rows, mean and median of
predicted / in-kernel clock - 1. The held-out half is for reporting only (benchmarks/bench_accuracy.py).
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
from perfmodel.prediction.predict import predict  # noqa: E402
from perfmodel.sim.power import below_tensor_ceiling  # noqa: E402
from perfmodel.sim.scheduler import make_schedule, operand_fill  # noqa: E402

BINS = [0, 0.4, 0.6, 0.8, 1.01]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", default="h100-sxm", choices=["h100-sxm", "h200"])
    ap.add_argument("--split", default="calibration", choices=["calibration", "held_out"])
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
