"""Figures for `perfmodel tune` (issue 5). No GPU needed.

(a) Model-guided top-8 on a committed measurement dataset: for each (shape, dtype) in it, rank the
    measured configurations by the model's prediction and ask whether the predicted top 8 holds one
    within 2% of the measured best. Goal: >= 90% of the shapes. Beside it, what 8 configurations
    picked at random would achieve (exact, hypergeometric), so that shapes with few measured
    configurations are not mistaken for the model's merit.
(b) Cost of the search: 500 TPE trials of the stock space (in memory and in SQLite). Goal: <= 30 s
    on a 2-core CPU machine.
(c) The tuner finds the model's optimum (issue 8): on each benchmark shape, `tune` with its default sampler
    (auto: exhaustive for small legal spaces, else branch and bound) under three seeds, against every legal
    configuration of the same space predicted (the exhaustive optimum). The space is the stock one narrowed
    to a few thousand legal points so that the exhaustive optimum can be computed here (--region-space stock
    uses the whole stock space: minutes per shape on 2 cores).

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


REGION_SHAPES = [("8192x8192x8192", "bf16"), ("4096x14336x4096", "bf16"), ("128x8192x8192", "bf16"),
                 ("1000x1992x1016", "bf16"), ("256x28672x8192", "fp8"), ("3072x7168x2000", "fp8")]
REGION_NARROW = {"tile_m": (64, 128, 256), "tile_n": (64, 128, 192, 256), "tile_k_bytes": (128,),
                 "mma_n_split": (1,), "stages": (3, 4, 5, 6), "swizzle": ("64", "128"),
                 "cluster": ("1x1", "2x1", "1x2"), "multicast": (True, False), "consumers": (1, 2),
                 "persistent": (True, False), "raster": ("m", "n"), "group_size": (8,), "epilogue": ("tma",)}


REGION_WIDE = {**REGION_NARROW, "tile_n": (64, 96, 128, 160, 192, 224, 256), "stages": (2, 3, 4, 5, 6, 7, 8),
               "group_size": (1, 8)}   # > AUTO_ENUMERATE_LIMIT raw points: tune takes the branch and bound


def region_check(stock: bool, jobs: int | None, wide: bool = False) -> None:
    from perfmodel.search.region import exhaustive
    from perfmodel.search.space import load_space
    from perfmodel.sim.clock import SUSTAINED
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    hw = load_hardware("h100-sxm")
    space = load_space(hw.arch) if stock else load_space(hw.arch).narrow(REGION_WIDE if wide else REGION_NARROW)
    print(f"\n(c) tune's best vs the exhaustive optimum, {hw.name}, sustained clock, "
          f"{'stock space' if stock else 'stock space narrowed'} ({space.size()} raw points), seeds 0, 1, 7")
    same = 0
    shapes = REGION_SHAPES[:3] if wide else REGION_SHAPES
    for shape, dtype in shapes:
        problem = make_problem(shape, dtype)
        t0 = time.perf_counter()
        full = exhaustive(space, problem, hw, SUSTAINED, jobs=jobs)
        t_full = time.perf_counter() - t0
        bests, t_tune, how = set(), [], ""
        for seed in (0, 1, 7):
            t0 = time.perf_counter()
            r = tune(problem, hw, n_trials=8, space=space, seed=seed, jobs=jobs)
            t_tune.append(time.perf_counter() - t0)
            bests.add(r.best_config.name)
            how = f"{r.stats.search}, {r.stats.predicted} predicted"
        ok = len(bests) == 1 and full.best.config_name in bests
        same += ok
        print(f"  {shape:<16} {dtype:<5} legal {full.configurations:>5}  exhaustive {full.best.tflops:7.1f} TFLOP/s "
              f"({t_full:5.1f} s)  tune ({how}; {statistics.median(t_tune):5.1f} s): "
              f"{'same best under every seed' if ok else 'DIFFERENT: ' + ', '.join(sorted(bests))}")
    print(f"  tune's best = the exhaustive optimum on {same}/{len(shapes)} shapes (goal: all)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, help="measurement JSONL (default: the committed H100 one, else H200)")
    ap.add_argument("--trials", type=int, default=500)
    ap.add_argument("--shape", default="8192x8192x8192")
    ap.add_argument("--skip-search", action="store_true")
    ap.add_argument("--skip-replay", action="store_true")
    ap.add_argument("--skip-region", action="store_true")
    ap.add_argument("--region-space", choices=["narrowed", "stock"], default="narrowed")
    ap.add_argument("--jobs", type=int, help="processes for predictions (default: all cores)")
    args = ap.parse_args()
    if not args.skip_replay:
        path = args.dataset or pick_dataset()
        if path is None or not path.exists():
            print("(a) no committed measurement dataset under data/measurements/: skipped")
        else:
            replay(path.resolve())
    if not args.skip_search:
        search_cost(args.trials, args.shape)
    if not args.skip_region:
        region_check(args.region_space == "stock", args.jobs)
        if args.region_space != "stock":
            region_check(False, args.jobs, wide=True)      # a space large enough for the branch and bound


if __name__ == "__main__":
    main()
