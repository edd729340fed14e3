"""Window + extrapolation against a full simulation (every tile and k-block of the busiest SM): the
distribution of |window / full - 1| of the predicted time over a fixed broad set.

    python3 benchmarks/bench_extrapolation.py                  # all cases, power-limited clock
    python3 benchmarks/bench_extrapolation.py --worst 10       # also list the 10 worst cases
    python3 benchmarks/bench_extrapolation.py --budget 20000   # full runs up to 20000 tile-k-blocks

The set: every configuration of data/measurements/h100_sm90_dataset.jsonl and h200_sm90_dataset.jsonl
at its measured shape (on its GPU), plus the benchmarks/bench_predict.py cases; only the cases that
extrapolate (the window is smaller than the kernel) and whose full run is at most ``--budget``
tile-k-blocks (tiles per CTA x k-blocks) are kept. Goal (issue 3): <= 1% on every case.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.hardware import load_hardware  # noqa: E402
from perfmodel.legality import check  # noqa: E402
from perfmodel.prediction.predict import predict  # noqa: E402
from perfmodel.problem import make_problem  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "measurements")
DATASETS = ["h100_sm90_dataset.jsonl", "h200_sm90_dataset.jsonl"]


def dataset_cases():
    out, seen = [], set()
    for name in DATASETS:
        with open(os.path.join(DATA, name)) as f:
            header, *rows = [json.loads(line) for line in f if line.strip()]
        hw = load_hardware(header["header"]["gpu_spec"])
        for r in rows:
            key = (hw.name, r["config_name"], r["m"], r["n"], r["k"], r["dtype"])
            if key in seen:
                continue
            seen.add(key)
            try:
                p = make_problem((r["m"], r["n"], r["k"]), r["dtype"])
                cfg = KernelConfig.from_name(r["config_name"])
            except PerfmodelError:
                continue
            out.append((f"{name.split('_')[0]}", p, cfg, hw))
    return out


def bench_predict_cases():
    from bench_predict import cases
    return [("bench_predict", p, cfg, hw) for _gpu, _shape, p, cfg, hw in cases()]


def compare(cases, budget: int, clock_hz: float | None):
    """-> list of (relative error, label, gpu, shape, config, window s, full s) of the kept cases."""
    out = []
    for label, p, cfg, hw in cases:
        if check(p, cfg, hw, kernel_rules=False):
            continue
        w = predict(p, cfg, hw, clock_hz=clock_hz)
        d = w.details
        if w.deadlock or (d["sim_k_iters"] >= d["k_iters"] and d["sim_tiles"] >= d["tiles_per_cta"]):
            continue                               # nothing extrapolated
        if d["tiles_per_cta"] * d["k_iters"] > budget:
            continue
        f = predict(p, cfg, hw, clock_hz=clock_hz, full=True)
        out.append((abs(w.time_s / f.time_s - 1.0), label, hw.name, p.shape_name(), p.a_dtype.value, cfg.name,
                    w.time_s, f.time_s))
    return out


def _pct(xs, q):
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=60000, help="largest full run kept, in tile-k-blocks")
    ap.add_argument("--clock-hz", type=float, default=None, help="fixed clock (default: power-limited)")
    ap.add_argument("--worst", type=int, default=5, help="list this many worst cases")
    args = ap.parse_args()
    t0 = time.perf_counter()
    res = compare(dataset_cases() + bench_predict_cases(), args.budget, args.clock_hz)
    errs = sorted(r[0] for r in res)
    clock = f"{args.clock_hz / 1e9:.2f} GHz" if args.clock_hz else "power-limited clock"
    print(f"cases: {len(errs)} that extrapolate, full run <= {args.budget} tile-k-blocks ({clock}; "
          f"{time.perf_counter() - t0:.0f} s)")
    print(f"|window/full - 1|: median {statistics.median(errs):.3%}  p90 {_pct(errs, 0.9):.3%}  "
          f"p99 {_pct(errs, 0.99):.3%}  max {errs[-1]:.3%}  > 1%: {sum(e > 0.01 for e in errs)}  "
          f"> 0.5%: {sum(e > 0.005 for e in errs)}")
    for e, label, gpu, shape, dt, name, w, f in sorted(res, reverse=True)[:args.worst]:
        print(f"  {e:6.2%}  {gpu:<9} {shape:>17} {dt:<5} {name}  window {w * 1e6:9.1f} us  full {f * 1e6:9.1f} us"
              f"  ({label})")


if __name__ == "__main__":
    main()
