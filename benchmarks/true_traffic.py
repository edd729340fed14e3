"""Timing error with the traffic ncu measured: for every calibration-shape ncu run of our GEMM whose timing is in a
committed dataset, the model's throughput error as it stands and with its HBM reads set to ncu's (a diagnostic: the
drift is forced to the value that makes the model read ncu's dram__bytes_read; nothing is fitted).

    python3 benchmarks/true_traffic.py

Where the error stays with the measured bytes, the model's rate is off, not its traffic (seventeenth session: the
6-stage 128x128 rings at long K, docs/model.md). Only runs whose first prediction is L2-bound under the k-window reuse
take a drift at all (sim/memory.drift_cohorts); the rest print the same figure twice. Sustained clock, H100.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import perfmodel.sim.memory as memory  # noqa: E402
from perfmodel import load_hardware, make_problem  # noqa: E402
from perfmodel.calibration.fit import load_split  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.prediction.predict import predict  # noqa: E402
from perfmodel.sim.scheduler import make_schedule  # noqa: E402

# ncu folders and the dataset their binaries were timed in (data/ncu/README.md)
SOURCES = {"ksweep2": "h100_ksweep.jsonl", "ksweep3": "h100_ksweep.jsonl", "stages": "h100_stages.jsonl",
           "depth_ncu": "h100_calib27.jsonl", "calib27_ncu": "h100_calib27.jsonl"}
UNITS = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}


def measured_tflops(dataset: str, shape: str, dtype: str, name: str) -> float | None:
    vals = []
    for line in (ROOT / "data" / "measurements" / dataset).read_text().splitlines():
        r = json.loads(line)
        if (f"{r.get('m')}x{r.get('n')}x{r.get('k')}" == shape and r.get("dtype") == dtype
                and r.get("config_name") == name and r.get("tflops")):
            vals.append(float(r["tflops"]))
    return statistics.median(vals) if vals else None


def drift_for(problem, cfg, hw, sched, target: float) -> float:
    """The drift at which the model reads ``target`` HBM bytes (bisection; 0 if it reads that many in step)."""
    lo, hi = 0.0, 3.0
    if memory.traffic(problem, cfg, hw, sched).hbm_read_bytes >= target:
        return 0.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if memory.traffic(problem, cfg, hw, sched, mid).hbm_read_bytes < target else (lo, mid)
    return (lo + hi) / 2


def main() -> int:
    hw = load_hardware("h100-sxm")
    calibration = set(load_split().calibration)
    spread = memory.drift_spread
    rows = []
    for folder, dataset in SOURCES.items():
        for line in (ROOT / "data" / "ncu" / folder / "ksweep_ncu.jsonl").read_text().splitlines():
            r = json.loads(line)
            m = r.get("metrics") or {}
            if "dram__bytes_read.sum" not in m or r["shape"] not in calibration:
                continue
            meas = measured_tflops(dataset, r["shape"], r["dtype"], r["config_name"])
            if meas is None:
                continue
            value, unit = m["dram__bytes_read.sum"]
            hbm = float(value.replace(",", "")) * UNITS[unit]
            p, c = make_problem(r["shape"], r["dtype"]), KernelConfig.from_name(r["config_name"])
            d = drift_for(p, c, hw, make_schedule(p, c, hw), hbm)
            model = predict(p, c, hw, clock="sustained").tflops
            memory.drift_spread = lambda cfg, hw_, d=d: d       # the second simulation takes this drift
            try:
                true = predict(p, c, hw, clock="sustained")
            finally:
                memory.drift_spread = spread
            rows.append((r["shape"], c.name, hbm / 1e9, model / meas - 1, true.tflops / meas - 1,
                         true.bottleneck.value))
    print(f"{'shape':<17} {'config':<66} {'ncu GB':>6} {'model':>7} {'ncu bytes':>9}  bound")
    for shape, name, gb, e0, e1, b in sorted(rows, key=lambda x: (x[1], x[0])):
        print(f"{shape:<17} {name:<66} {gb:6.2f} {e0:+7.1%} {e1:+9.1%}  {b}")
    print(f"{len(rows)} runs: MAPE {statistics.fmean(abs(r[3]) for r in rows):.1%} as modelled, "
          f"{statistics.fmean(abs(r[4]) for r in rows):.1%} with ncu's HBM bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
