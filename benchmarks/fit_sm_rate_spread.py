"""Fit l2.sm_rate_spread on the HBM bytes ncu counted for our GEMM (traffic, not time).

    python3 benchmarks/fit_sm_rate_spread.py [--gpu h100-sxm] [--table] [--apply] [--shallow | --every]

`l2.sm_rate_spread` is how fast the CTAs of an L2-bound kernel drift apart (k-blocks per k-block of their run): under
the in-step k-window reuse each K-slab is then read 1 + spread x p / window times on average (sim/memory.drift_cohorts),
and `predict` simulates an L2-bound k-window configuration again with that traffic. The rows: ncu runs of our kernel on
CALIBRATION shapes (data/ncu/ksweep2, ksweep3; 2026-11-26) whose first prediction (sustained clock, no drift) is
L2-bound under the k-window reuse, with rings of at least l2.drift_min_stages: the ones the parameter acts on. The
loss: the mean |log(model / measured HBM read bytes)| (`dram__bytes_read.sum`), golden-section search
(perfmodel.calibration.fit._golden). Our per-CTA probe gives
0.18 directly (the end-time spread of CTAs with equal work, data/ncu/lag): the fit is the check that the traffic law
agrees with it. --apply writes the fitted value with a fit: source into the GPU's hardware file.

--every fits the same spread on every committed calibration-shape ncu run instead of the ksweep rows (a check of the law
on all the data; it does not write the file).

--shallow fits `l2.sm_rate_spread_shallow` instead: the drift of rings shallower than l2.drift_min_stages, on every
committed ncu run of a calibration shape with such a ring (benchmarks/hbm_traffic.ncu_rows: data/ncu/cards, depth_ncu,
fabric, stages, ...) whose first prediction is L2-bound under the k-window reuse.
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


def rows(hw, shallow: bool = False, every: bool = False) -> list[tuple]:
    """(problem, config, schedule, measured HBM read bytes) of the calibration-shape ncu rows the drift acts on: those of
    NCU (``every``: of every calibration-shape ncu run) with rings of at least l2.drift_min_stages, or (``shallow``)
    every calibration-shape ncu run with a shallower ring (hbm_traffic.ncu_rows)."""
    still = dataclasses.replace(hw, l2=dataclasses.replace(hw.l2, sm_rate_spread=None, sm_rate_spread_shallow=None))
    least = hw.l2.drift_min_stages or 0
    out = []
    for name, shape, dtype, measured in _ncu_records(hw, shallow or every):
        p, c = make_problem(shape, dtype), KernelConfig.from_name(name)
        if (c.stages < least) != shallow:
            continue
        sched = make_schedule(p, c, hw)
        if (traffic(p, c, hw, sched).reuse == "k-window"
                and predict(p, c, still, clock="sustained").bottleneck.value == "l2"):
            out.append((p, c, sched, measured))
    return out


def _ncu_records(hw, every: bool) -> list[tuple[str, str, str, float]]:
    """(configuration, shape, dtype, ncu HBM read bytes) of the calibration-shape runs of NCU (``every``: of every
    committed ncu file of the GPU, hbm_traffic.ncu_rows)."""
    if every:
        from hbm_traffic import ncu_rows
        return [(r["config_name"], r["shape"], r["dtype"], r["measured"])
                for r in ncu_rows(hw.name)]
    calibration = set(load_split().calibration)
    out = []
    for path in NCU:
        for line in (ROOT / path).read_text().splitlines():
            rec = json.loads(line)
            if rec.get("metrics") and rec["shape"] in calibration:
                value, unit = rec["metrics"]["dram__bytes_read.sum"]
                out.append((rec["config_name"], rec["shape"], rec["dtype"], float(value.replace(",", "")) * UNITS[unit]))
    return out


def errors(hw, data, spread: float) -> list[float]:
    return [math.log(traffic(p, c, hw, s, spread).hbm_read_bytes / measured) for p, c, s, measured in data]


def loss(hw, data, spread: float) -> float:
    """The mean |log(model / measured HBM read bytes)| of ``data`` (rows()) at this spread."""
    e = errors(hw, data, spread)
    return sum(abs(x) for x in e) / len(e)


def fit(hw, data, shallow: bool = False) -> tuple[float, float]:
    """(the spread of least loss, its loss) on ``data`` (rows()): l2.sm_rate_spread, or (``shallow``)
    l2.sm_rate_spread_shallow."""
    now = (hw.l2.sm_rate_spread_shallow if shallow else hw.l2.sm_rate_spread) or 0.0
    return _golden(lambda spread: loss(hw, data, spread), *BOUNDS, now, loss(hw, data, now), ITERS, False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="h100-sxm")
    ap.add_argument("--table", action="store_true", help="print every row's model / measured bytes")
    ap.add_argument("--shallow", action="store_true",
                    help="fit l2.sm_rate_spread_shallow (rings below l2.drift_min_stages) instead")
    ap.add_argument("--every", action="store_true",
                    help="fit on every committed calibration-shape ncu run (a check; not with --apply)")
    ap.add_argument("--apply", action="store_true", help="write the fitted value into the hardware file")
    args = ap.parse_args()
    if args.every and args.apply:
        print("error: --every is a check; the file's value is fitted on the ksweep rows (drop --apply)",
              file=sys.stderr)
        return 2
    try:
        hw = load_hardware(args.gpu)
        data = rows(hw, args.shallow, args.every)
    except PerfmodelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not data:
        print("error: no ncu rows the drift acts on", file=sys.stderr)
        return 2
    key = "sm_rate_spread_shallow" if args.shallow else "sm_rate_spread"
    now = getattr(hw.l2, key) or 0.0
    longest = max(progress_windows(p, c, hw, s, traffic(p, c, hw, s)) for p, c, s, _ in data)
    which = (f"rings below {hw.l2.drift_min_stages} stages" if args.shallow
             else f"rings of at least {hw.l2.drift_min_stages or 1} stages")
    print(f"{len(data)} ncu rows (calibration shapes, L2-bound under the k-window reuse, {which}); the longest run "
          f"among them {longest:.1f} L2 windows")
    print(f"  in step (spread 0): loss {loss(hw, data, 0.0):.3f}; the file's {now}: loss {loss(hw, data, now):.3f}")
    spread, best = fit(hw, data, args.shallow)
    e = errors(hw, data, spread)
    print(f"  fitted l2.{key} {spread:.4f}: loss {best:.3f}, bias {sum(e) / len(e):+.3f}, "
          f"within 25%: {sum(abs(x) < math.log(1.25) for x in e)}/{len(e)}")
    if args.table:
        for (p, c, _, _), x in zip(data, e):
            print(f"    {p.m}x{p.n}x{p.k:<6} {c.name:<66} model/measured {math.exp(x):.2f}")
    if args.apply:
        path = ROOT / "configs" / "hardware" / f"{args.gpu}.toml"
        lines = path.read_text().splitlines()
        idx = [i for i, t in enumerate(lines) if t.startswith(key + " ")]
        if not idx:
            print(f"error: no {key} line in the hardware file", file=sys.stderr)
            return 2
        files = ("every committed calibration-shape ncu run of a ring below l2.drift_min_stages (data/ncu)"
                 if args.shallow else ", ".join(NCU))
        src = (f"fit: python3 benchmarks/fit_sm_rate_spread.py{' --shallow' if args.shallow else ''} --apply (the "
               f"model's HBM reads against ncu dram__bytes_read of our GEMM, {len(data)} calibration rows of {files} "
               f"that are L2-bound under the k-window reuse; loss {loss(hw, data, 0.0):.3f} -> {best:.3f}), "
               f"{datetime.date.today().isoformat()}" + ("" if args.shallow else
                                                        "; our per-CTA probe gives 0.18 (data/ncu/lag)"))
        lines[idx[0]] = f'{key} = {{ value = {rounded_value("l2." + key, spread)}, source = "{src}" }}'
        path.write_text("\n".join(lines) + "\n")
        print(f"  wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
