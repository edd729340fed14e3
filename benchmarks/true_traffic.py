"""Timing error with the traffic ncu measured: for every calibration-shape ncu run of our GEMM whose timing is in a
committed dataset, the model's throughput error as it stands and with its HBM reads set to ncu's (a diagnostic: the
drift is forced to the value that makes the model read ncu's dram__bytes_read; nothing is fitted).

    python3 benchmarks/true_traffic.py

Where the error stays with the measured bytes, the model's rate is off, not its traffic (seventeenth session: the
6-stage 128x128 rings at long K, docs/model.md). Only runs whose first prediction is L2-bound under the k-window reuse
take a drift at all (sim/memory.drift_cohorts); the rest print the same figure twice. Sustained clock, H100.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

import perfmodel.sim.memory as memory  # noqa: E402
from _datasets import split_datasets  # noqa: E402
from hbm_traffic import ncu_rows  # noqa: E402
from perfmodel import load_hardware, make_problem  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.prediction.predict import predict  # noqa: E402
from perfmodel.sim.scheduler import make_schedule  # noqa: E402

# ncu folders and the dataset their binaries were timed in (data/ncu/README.md)
SOURCES = {"ksweep2": "h100_ksweep.jsonl", "ksweep3": "h100_ksweep.jsonl", "stages": "h100_stages.jsonl",
           "depth_ncu": "h100_calib27.jsonl", "calib27_ncu": "h100_calib27.jsonl"}


def measured_tflops() -> dict[tuple, float]:
    """(dataset, shape, dtype, config name) -> median TFLOP/s of the calibration rows of SOURCES' datasets."""
    out = {}
    for dataset in set(SOURCES.values()):
        for _, _, _, df in split_datasets("configs/splits/sm90.toml", f"data/measurements/{dataset}", "calibration",
                                          keep=lambda r: bool(r.get("tflops"))):
            for (shape, dtype, name), g in df.groupby(["shape", "dtype", "config_name"]):
                out[(dataset, shape, dtype, name)] = float(g["tflops"].median())
    return out


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
    timed = measured_tflops()
    spread = memory.drift_spread
    rows = []
    for r in ncu_rows("h100-sxm"):                  # calibration shapes, with ncu's dram__bytes_read
        folder = Path(r["path"]).parent.name
        meas = timed.get((SOURCES.get(folder), r["shape"], r["dtype"], r["config_name"]))
        if meas is None:
            continue
        hbm = r["measured"]
        p, c = make_problem(r["shape"], r["dtype"]), KernelConfig.from_name(r["config_name"])
        d = drift_for(p, c, hw, make_schedule(p, c, hw), hbm)
        model = predict(p, c, hw, clock="sustained").tflops
        memory.drift_spread = lambda cfg, hw_, d=d: d           # the second simulation takes this drift
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
