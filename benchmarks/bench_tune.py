"""Figures for `perfmodel tune` (issue 5). No GPU needed.

(a) Model-guided top-8 on a committed measurement dataset: for each (shape, dtype) in it, rank the
    measured configurations by the model's prediction and ask whether the predicted top 8 holds one
    within 2% of the measured best. Goal: >= 90% of the shapes. Beside it, what 8 configurations
    picked at random would achieve (exact, hypergeometric), so that shapes with few measured
    configurations are not mistaken for the model's merit.
(b) Cost of the search: 500 TPE trials of the stock space (in memory and in SQLite). Goal: <= 30 s
    on a 2-core CPU machine.

    python3 benchmarks/bench_tune.py                         # both, newest H100 (else H200) dataset
    python3 benchmarks/bench_tune.py --dataset data/measurements/h200_sm90_dataset.jsonl --skip-search
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import optuna

from perfmodel import load_hardware, make_problem
from perfmodel.calibration.report import add_predictions, measured_frame, per_shape
from perfmodel.search.tuner import tune

ROOT = Path(__file__).resolve().parent.parent
TOP_K, WITHIN = 8, 0.02


def pick_dataset() -> Path | None:
    """The committed dataset to replay: an H100 one if there is, else the largest other sweep."""
    files = sorted((ROOT / "data" / "measurements").glob("*.jsonl"))
    h100 = [f for f in files if f.name.startswith("h100")]
    pool = h100 or [f for f in files if "dataset" in f.name] or files
    return max(pool, key=lambda f: f.stat().st_size) if pool else None


def random_hit_probability(n: int, good: int, k: int = TOP_K) -> float:
    """P(k configurations drawn at random from n include one of the ``good`` ones)."""
    if k >= n:
        return 1.0
    return 1.0 - math.comb(n - good, k) / math.comb(n, k)


def replay(path: Path) -> None:
    frame, spec = measured_frame([path])
    hw = load_hardware(spec)
    df = add_predictions(frame, hw).dropna(subset=["pred_tflops"])   # configurations the model refuses drop out
    shapes = per_shape(df, k=TOP_K, within=WITHIN)
    print(f"(a) dataset {path.relative_to(ROOT)}: {frame['gpu_name'].iloc[0]}, spec {spec}, {len(frame)} valid kernel rows")
    print(f"{'shape':<17} {'dtype':<5} {'n':>3} {'within2%':>8} {'hit':>4} {'random':>6} "
          f"{'best@pred':>9} {'rho':>6}  measured best / predicted top-8 best (TFLOP/s)")
    rand, nontrivial = [], []
    for r in shapes.itertuples():
        g = df[(df["shape"] == r.shape) & (df["dtype"] == r.dtype)]
        good = int((g["meas_tflops"] >= (1 - WITHIN) * r.meas_best).sum())
        order = g.sort_values("pred_tflops", ascending=False, kind="stable")["meas_tflops"].tolist()
        rank = 1 + order.index(r.meas_best)
        p_rand = random_hit_probability(r.n, good)
        rand.append(p_rand)
        if r.n > 2 * TOP_K:
            nontrivial.append(r.topk_hit)
        print(f"{r.shape:<17} {r.dtype:<5} {r.n:>3} {good:>8} {'yes' if r.topk_hit else 'NO':>4} {p_rand:>6.2f} "
              f"{rank:>9} {r.spearman:>6.3f}  {r.meas_best:.1f} / {r.topk_best:.1f}")
    hits = shapes["topk_hit"].tolist()
    print(f"model top-{TOP_K} within {WITHIN:.0%} of the measured best: {sum(hits)}/{len(hits)} shapes "
          f"= {sum(hits) / len(hits):.0%} (goal >= 90%); 8 random picks would: {statistics.mean(rand):.0%} on average")
    if nontrivial:
        print(f"shapes with > {2 * TOP_K} measured configurations: {sum(nontrivial)}/{len(nontrivial)} "
              f"= {sum(nontrivial) / len(nontrivial):.0%}")
    if len(df) < len(frame):
        print(f"{len(frame) - len(df)} measured configurations the model refused (illegal) were left out")


def search_cost(trials: int, shape: str) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    hw, problem = load_hardware("h100-sxm"), make_problem(shape, "bf16")
    print(f"\n(b) {trials} TPE trials, {hw.name} {shape} bf16, stock space; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        for label, storage in (("in memory", None), ("SQLite", f"sqlite:///{tmp}/bench.db")):
            t0 = time.perf_counter()
            r = tune(problem, hw, n_trials=trials, storage=storage, sampler="tpe", seed=0)
            dt = time.perf_counter() - t0
            s = r.stats
            print(f"  {label:<9}: {dt:6.1f} s for {s.completed} trials ({s.asked} trials asked: {s.illegal} illegal; "
                  f"{s.duplicates} repeats, {s.repaired} of them repaired in place); "
                  f"best {r.top(1)[0].tflops:.1f} TFLOP/s  (goal <= 30 s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, help="measurement JSONL (default: the committed H100 one, else H200)")
    ap.add_argument("--trials", type=int, default=500)
    ap.add_argument("--shape", default="8192x8192x8192")
    ap.add_argument("--skip-search", action="store_true")
    ap.add_argument("--skip-replay", action="store_true")
    args = ap.parse_args()
    if not args.skip_replay:
        path = args.dataset or pick_dataset()
        if path is None or not path.exists():
            print("(a) no committed measurement dataset under data/measurements/: skipped")
        else:
            replay(path.resolve())
    if not args.skip_search:
        search_cost(args.trials, args.shape)


if __name__ == "__main__":
    main()
