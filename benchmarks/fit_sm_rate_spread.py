"""Fit l2.sm_rate_spread on the HBM bytes ncu counted for our GEMM (traffic, not time).

    python3 benchmarks/fit_sm_rate_spread.py [--gpu h100-sxm] [--table] [--apply]

`l2.sm_rate_spread` is how fast the CTAs of an L2-bound kernel drift apart (k-blocks per k-block of their run): under
the in-step k-window reuse each K-slab is then read 1 + spread x p / window times on average (sim/memory.drift_cohorts),
and `predict` simulates an L2-bound k-window configuration again with that traffic. The rows: ncu runs of our kernel on
CALIBRATION shapes (data/ncu/ksweep2, ksweep3; 2026-11-26) whose first prediction (sustained clock, no drift) is
L2-bound under the k-window reuse, with rings of at least l2.drift_min_stages: the ones the parameter acts on. The
loss: the mean |log(model / measured HBM read bytes)| (`dram__bytes_read.sum`), golden-section search
(perfmodel.calibration.fit._golden). Our per-CTA probe gives
0.18 directly (the end-time spread of CTAs with equal work, data/ncu/lag): the fit is the check that the traffic law
agrees with it. --apply writes the fitted value with a fit: source into the GPU's hardware file.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perfmodel import load_hardware, make_problem  # noqa: E402
from perfmodel.calibration.fit import _golden, load_split, rounded_value  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.prediction.predict import predict  # noqa: E402
from perfmodel.sim.memory import progress_windows, traffic  # noqa: E402
from perfmodel.sim.scheduler import make_schedule  # noqa: E402

NCU = ["data/ncu/ksweep2/ksweep_ncu.jsonl", "data/ncu/ksweep3/ksweep_ncu.jsonl"]
UNITS = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
BOUNDS = (0.0, 1.0)
ITERS = 24


def rows(hw) -> list[tuple]:
    """(problem, config, schedule, measured HBM read bytes) of the calibration-shape ncu rows the drift acts on."""
    calibration = set(load_split().calibration)
    still = dataclasses.replace(hw, l2=dataclasses.replace(hw.l2, sm_rate_spread=None))
    out = []
    for path in NCU:
        for line in (ROOT / path).read_text().splitlines():
            rec = json.loads(line)
            if not rec.get("metrics") or rec["shape"] not in calibration:
                continue
            value, unit = rec["metrics"]["dram__bytes_read.sum"]
            p, c = make_problem(rec["shape"], rec["dtype"]), KernelConfig.from_name(rec["config_name"])
            sched = make_schedule(p, c, hw)
            first = predict(p, c, still, clock="sustained")
            if (first.bottleneck.value == "l2" and traffic(p, c, hw, sched).reuse == "k-window"
                    and c.stages >= (hw.l2.drift_min_stages or 0)):
                out.append((p, c, sched, float(value.replace(",", "")) * UNITS[unit]))
    return out


def errors(hw, data, spread: float) -> list[float]:
    return [math.log(traffic(p, c, hw, s, spread).hbm_read_bytes / measured) for p, c, s, measured in data]


def fit(hw, data) -> tuple[float, float]:
    """(l2.sm_rate_spread of least loss, its loss) on ``data`` (rows())."""
    def loss(spread: float) -> float:
        e = errors(hw, data, spread)
        return sum(abs(x) for x in e) / len(e)

    now = hw.l2.sm_rate_spread or 0.0
    return _golden(loss, *BOUNDS, now, loss(now), ITERS, False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="h100-sxm")
    ap.add_argument("--table", action="store_true", help="print every row's model / measured bytes")
    ap.add_argument("--apply", action="store_true", help="write the fitted l2.sm_rate_spread into the hardware file")
    args = ap.parse_args()
    try:
        hw = load_hardware(args.gpu)
    except PerfmodelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    data = rows(hw)
    if not data:
        print("error: no ncu rows the drift acts on", file=sys.stderr)
        return 2

    def loss(spread: float) -> float:
        e = errors(hw, data, spread)
        return sum(abs(x) for x in e) / len(e)

    now = hw.l2.sm_rate_spread or 0.0
    longest = max(progress_windows(p, c, hw, s, traffic(p, c, hw, s)) for p, c, s, _ in data)
    print(f"{len(data)} ncu rows (calibration shapes, L2-bound under the k-window reuse); the longest run among them "
          f"{longest:.1f} L2 windows")
    print(f"  in step (spread 0): loss {loss(0.0):.3f}; the file's {now}: loss {loss(now):.3f}")
    spread, best = fit(hw, data)
    e = errors(hw, data, spread)
    print(f"  fitted l2.sm_rate_spread {spread:.4f}: loss {best:.3f}, bias {sum(e) / len(e):+.3f}, "
          f"within 25%: {sum(abs(x) < math.log(1.25) for x in e)}/{len(e)}")
    if args.table:
        for (p, c, _, _), x in zip(data, e):
            print(f"    {p.m}x{p.n}x{p.k:<6} {c.name:<66} model/measured {math.exp(x):.2f}")
    if args.apply:
        path = ROOT / "configs" / "hardware" / f"{args.gpu}.toml"
        lines = path.read_text().splitlines()
        idx = [i for i, t in enumerate(lines) if t.startswith("sm_rate_spread")]
        if not idx:
            print("error: no sm_rate_spread line in the hardware file", file=sys.stderr)
            return 2
        src = (f"fit: python3 benchmarks/fit_sm_rate_spread.py --apply (the model's HBM reads against ncu "
               f"dram__bytes_read of our GEMM, {len(data)} calibration rows of {', '.join(NCU)} that are L2-bound "
               f"under the k-window reuse; loss {loss(0.0):.3f} -> {best:.3f}), {datetime.date.today().isoformat()}; "
               f"our per-CTA probe gives 0.18 (data/ncu/lag)")
        lines[idx[0]] = f'sm_rate_spread = {{ value = {rounded_value("l2.sm_rate_spread", spread)}, source = "{src}" }}'
        path.write_text("\n".join(lines) + "\n")
        print(f"  wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
