"""The model's HBM read bytes against ncu's for every committed ncu run of our GEMM on a calibration shape (traffic,
not time): the fit of l2.reuse_capacity_fraction and the check of the drift fit (l2.sm_rate_spread).

    python3 benchmarks/hbm_traffic.py [--gpu h100-sxm|h200] [--rows] [--grid]

Reads every data/ncu/**/*ncu*.jsonl row with dram__bytes_read.sum (the H200's from files whose path names h200),
predicts it at the short clock, and prints log(measured / model) by the model's reuse class (all-fit: every panel
fits the L2's reuse capacity; wave-fit: one wave's panels do; k-window: only a K window of them), overall and with
the whole L2 keeping the panels (l2.reuse_capacity_fraction 1) for comparison. --grid: the mean |log| at each fraction
of GRID_FRACTIONS with the drift (l2.sm_rate_spread) fitted at it by fit_sm_rate_spread.py,
the fit of the fraction (the least mean |log|).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perfmodel import load_hardware, make_problem  # noqa: E402
from perfmodel.calibration.fit import load_split  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.prediction.predict import predict  # noqa: E402

UNITS = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
GRID_FRACTIONS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0)


def ncu_rows(gpu: str) -> list[dict]:
    """The calibration-shape ncu rows of one GPU (H200 rows live in paths naming h200)."""
    calibration = set(load_split().calibration)
    out = []
    for path in sorted((ROOT / "data" / "ncu").glob("**/*ncu*.jsonl")):
        if ("h200" in str(path.relative_to(ROOT))) != (gpu == "h200"):
            continue
        for no, line in enumerate(path.read_text().splitlines(), 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise PerfmodelError(f"{path.relative_to(ROOT)}:{no}: not a JSON line") from None
            metric = (rec.get("metrics") or {}).get("dram__bytes_read.sum")
            if metric and rec.get("shape") in calibration:
                value, unit = metric
                out.append({**rec, "path": str(path.relative_to(ROOT)),
                            "measured": float(value.replace(",", "")) * UNITS[unit]})
    return out


def model_rows(hw, rows: list[dict]) -> list[tuple[dict, float, str]]:
    """(row, log(measured / model HBM read bytes), reuse class) of the rows the model predicts."""
    out = []
    for r in rows:
        try:
            p = predict(make_problem(r["shape"], r["dtype"]), KernelConfig.from_name(r["config_name"]), hw,
                        clock="short")
        except PerfmodelError:
            continue
        if p.deadlock:
            continue
        out.append((r, math.log(r["measured"] / p.details["hbm_read_bytes"]), p.details["l2_reuse"]))
    return out


def summary(label: str, res: list[tuple[dict, float, str]]) -> None:
    def line(name: str, xs: list[float]) -> str:
        rms = math.sqrt(sum(x * x for x in xs) / len(xs))
        return (f"  {label:<22} {name:<9} n={len(xs):<4} mean log(measured/model) {statistics.fmean(xs):+.3f}  "
                f"rms {rms:.3f}  beyond 35%: {sum(abs(x) > math.log(1.35) for x in xs)}")
    print(line("all", [x for _, x, _ in res]))
    for reuse in ("all-fit", "wave-fit", "k-window"):
        xs = [x for _, x, c in res if c == reuse]
        if xs:
            print(line(reuse, xs))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="h100-sxm", choices=["h100-sxm", "h200"])
    ap.add_argument("--rows", action="store_true", help="print every row")
    ap.add_argument("--grid", action="store_true", help="fit l2.reuse_capacity_fraction over a grid (with the drift)")
    args = ap.parse_args()
    try:
        hw, rows = load_hardware(args.gpu), ncu_rows(args.gpu)
    except PerfmodelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"error: no ncu rows with HBM read bytes for {args.gpu}", file=sys.stderr)
        return 2
    res = model_rows(hw, rows)
    print(f"{args.gpu}: {len(res)} ncu runs of our GEMM on calibration shapes (data/ncu), HBM read bytes")
    summary(f"reuse fraction {hw.l2.reuse_capacity_fraction or 1.0}", res)
    whole = dataclasses.replace(hw, l2=dataclasses.replace(hw.l2, reuse_capacity_fraction=None))
    summary("reuse fraction 1 (all)", model_rows(whole, rows))
    if args.grid:
        import fit_sm_rate_spread as drift_fit
        fits = []
        for frac in GRID_FRACTIONS:
            h = dataclasses.replace(hw, l2=dataclasses.replace(hw.l2, reuse_capacity_fraction=frac))
            spread, _ = drift_fit.fit(h, drift_fit.rows(h))
            h = dataclasses.replace(h, l2=dataclasses.replace(h.l2, sm_rate_spread=spread))
            xs = [x for _, x, _ in model_rows(h, rows)]
            fits.append((statistics.fmean(abs(x) for x in xs), frac, spread))
            print(f"    fraction {frac:4.2f} (the drift fitted at it: spread {spread:.4f}): "
                  f"mean |log(measured/model)| {fits[-1][0]:.3f}  mean {statistics.fmean(xs):+.3f}")
        best, frac, spread = min(fits)
        print(f"  least mean |log|: l2.reuse_capacity_fraction {frac} (spread {spread:.4f}): {best:.3f}")
    if args.rows:
        for r, x, reuse in sorted(res, key=lambda t: t[1]):
            print(f"    {r['shape']:<17} {r['dtype']:<5} {r['config_name']:<70} {reuse:<9} measured/model "
                  f"{math.exp(x):5.2f}  {r['path']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
