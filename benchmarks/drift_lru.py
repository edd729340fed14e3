"""Replay the CTAs' own progress through an LRU L2 and compare the HBM reads with ncu's for the same execution.

    python3 benchmarks/drift_lru.py [--capacity-mb 21,26,31] [--file data/ncu/drift_lru/drift_ncu.jsonl]

Each row of the file (data/ncu/scripts/drift_lru.py, 2026-11-27) is ONE launch of a study build of our GEMM: ncu's
dram__bytes_read of it (a single-pass metric set, so the bytes and the samples come from the same execution) and the
producer's issue time of every interval-th k-block of every CTA (`cta_samples`). The replay walks every CTA's run
(tile t = blockIdx + grid x j, its (m, n) from perfmodel.sim.scheduler.tile_coords, every k-block's issue time
interpolated between the samples), reads the A slab (m, k) and the B slab (n, k) of each k-block in time order through
one LRU of the given capacity, and counts the bytes that miss. Printed per row:

- ncu's bytes and the exact replay at each capacity (the CTAs' measured progress);
- the replay with each CTA at its own constant rate (its first to last sample), and with those rates shuffled among
  the CTAs (the same spread, no placement);
- the fast class: the CTAs more than 10% faster than the median (their SMs and how much faster);
- (--estimate MB) estimate(): the constant-rate replay estimated in milliseconds, for a model that would predict the
  CTAs' rates.

What it shows (docs/calibrate.md, "The twenty-fifth session"): the HBM re-reads of the long-K GEMM are the L2's LRU
over the CTAs' progress, and that progress is set by where the CTAs sit.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _jsonl  # noqa: E402
from perfmodel.config import Raster  # noqa: E402
from perfmodel.sim.scheduler import tile_coords  # noqa: E402

DEFAULT_FILE = "data/ncu/drift_lru/drift_ncu.jsonl"     # stored as .xz: _jsonl reads it by this name
UNITS = {"b": 1.0, "Kb": 1e3, "Mb": 1e6, "Gb": 1e9, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
SAMPLES = 128          # progress samples a CTA (PM_PRODUCER_SAMPLES)
FAST = 0.9             # a CTA whose time a k-block is below this of the median's is of the fast class


def _bytes(metric: list) -> float:
    value, unit = metric
    return float(value.replace(",", "")) * UNITS[unit]


def issue_times(run: dict) -> list[np.ndarray]:
    """Each CTA's issue time (ns) of every k-block of its run, interpolated between its samples (and extended at the
    last samples' rate past the last one)."""
    kern = run["kernel"]
    kit = -(-run["k"] // kern["bk"])
    total = -(-run["m"] // kern["bm"]) * -(-run["n"] // kern["bn"])
    grid = kern["grid_ctas"]
    out = []
    for c, row in enumerate(run["cta_samples"]):
        interval, t = row[0], np.asarray(row[1:SAMPLES + 1], dtype=float)
        length = len(range(c, total, grid)) * kit
        at = np.arange(SAMPLES) * interval
        ok = (t >= 0) & (at < length)
        g = np.arange(length)
        times = np.interp(g, at[ok], t[ok])
        if ok.sum() > 1 and length - 1 > at[ok][-1]:
            rate = (t[ok][-1] - t[ok][-2]) / (at[ok][-1] - at[ok][-2])
            beyond = g > at[ok][-1]
            times[beyond] = t[ok][-1] + (g[beyond] - at[ok][-1]) * rate
        out.append(times)
    return out


def cta_rates(run: dict) -> np.ndarray:
    """Each CTA's mean time a k-block (ns), first to last sample."""
    rates = []
    for row in run["cta_samples"]:
        interval, t = row[0], np.asarray(row[1:SAMPLES + 1], dtype=float)
        idx = np.flatnonzero(t >= 0)
        rates.append((t[idx[-1]] - t[idx[0]]) / (interval * (idx[-1] - idx[0])))
    return np.asarray(rates)


def _grid(run: dict) -> tuple[int, int, int, int, tuple[int, int]]:
    """(k-blocks a tile, tiles along M, tiles along N, CTAs, (A's, B's) slab bytes) of a probed run."""
    kern = run["kernel"]
    elem = 1 if run["dtype"] == "e4m3" else 2
    return (-(-run["k"] // kern["bk"]), -(-run["m"] // kern["bm"]), -(-run["n"] // kern["bn"]), kern["grid_ctas"],
            (kern["bm"] * kern["bk"] * elem, kern["bn"] * kern["bk"] * elem))


def replay(run: dict, times: list[np.ndarray], capacities_bytes: list[float]) -> list[float]:
    """HBM bytes an LRU of each capacity misses when every CTA reads its k-blocks' A and B slabs at ``times``."""
    kern = run["kernel"]
    kit, tiles_m, tiles_n, grid, slab = _grid(run)
    total, raster = tiles_m * tiles_n, Raster.N if kern.get("raster_n") else Raster.M
    when, key = [], []
    for c, times_c in enumerate(times):
        for j, t in enumerate(range(c, total, grid)):
            _, mi, ni = tile_coords(t, tiles_m, tiles_n, raster, kern["group"])
            ts = times_c[j * kit:(j + 1) * kit]
            when.extend(ts)
            key.extend((0, mi, kb) for kb in range(kit))
            when.extend(ts + 0.1)                    # B after A within a k-block
            key.extend((1, ni, kb) for kb in range(kit))
    order = np.argsort(np.asarray(when), kind="stable")
    out = []
    for cap in capacities_bytes:
        lru, used, missed = OrderedDict(), 0, 0
        for i in order:
            k = key[i]
            if k in lru:
                lru.move_to_end(k)
                continue
            size = slab[k[0]]
            missed += size
            lru[k] = size
            used += size
            while used > cap:
                used -= lru.popitem(last=False)[1]
        out.append(missed)
    return out


def estimate(run: dict, rates: np.ndarray, capacity_bytes: float, samples_per_tile: int = 8) -> float:
    """The HBM bytes an LRU of ``capacity_bytes`` misses when every CTA runs its k-blocks at a constant rate (ns a
    k-block, from time 0), estimated in milliseconds instead of replayed: ``samples_per_tile`` k-blocks of each tile
    stand for all of them; each slab's reads are sorted in time; the LRU's lifetime L is where the distinct slab bytes
    touched in a window of length L (the sum over reads of min(gap, L) times the slab's bytes, over the run's time)
    equal the capacity; every read whose gap to the slab's previous read exceeds L misses (and every first read)."""
    kern = run["kernel"]
    kit, tiles_m, tiles_n, grid, slab = _grid(run)
    total, raster = tiles_m * tiles_n, Raster.N if kern.get("raster_n") else Raster.M
    t = np.arange(total)
    cta, j = t % grid, t // grid
    coords = np.array([tile_coords(int(x), tiles_m, tiles_n, raster, kern["group"])[1:] for x in t])
    ks = (np.arange(samples_per_tile) + 0.5) * kit / samples_per_tile
    when = (j[:, None] * kit + ks[None, :]) * np.asarray(rates)[cta][:, None]
    run_ns = max(len(range(c, total, grid)) * kit * rates[c] for c in range(grid))
    gaps = []
    for operand in (0, 1):
        keys = (coords[:, operand][:, None] * samples_per_tile + np.arange(samples_per_tile)[None, :]).ravel()
        times = when.ravel()
        order = np.lexsort((times, keys))
        k_sorted, t_sorted = keys[order], times[order]
        g = np.diff(t_sorted, prepend=-np.inf)
        g[np.r_[True, k_sorted[1:] != k_sorted[:-1]]] = np.inf     # a slab's first read
        gaps.append(g)
    scale = kit / samples_per_tile

    def distinct(window: float) -> float:
        return sum(np.minimum(g, window).sum() * b for g, b in zip(gaps, slab)) * scale / run_ns

    lo, hi = 0.0, 4.0 * run_ns
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if distinct(mid) < capacity_bytes else (lo, mid)
    return sum((g > lo).sum() * b for g, b in zip(gaps, slab)) * scale


def constant_rate_times(run: dict, rates: np.ndarray) -> list[np.ndarray]:
    """Every CTA's k-block issue times at a constant rate (ns a k-block) from time 0."""
    kit, tiles_m, tiles_n, grid, _ = _grid(run)
    return [np.arange(len(range(c, tiles_m * tiles_n, grid)) * kit) * r for c, r in enumerate(rates)]


def _row(rec: dict, caps: list[float], rng, estimate_mb: float, logs: list[list[float]]) -> str:
    """One launch's line of the report (and its |log(replay / ncu)| appended to ``logs``)."""
    run = rec.get("program") or {}
    if not run.get("cta_samples") or not rec.get("launches"):
        return f"  {rec.get('shape')} {rec.get('config_name')}: no samples or no ncu row, skipped"
    measured = _bytes(rec["launches"][-1]["dram__bytes_read.sum"]) / 1e9
    exact = [b / 1e9 for b in replay(run, issue_times(run), caps)]
    rates = cta_rates(run)
    const = replay(run, constant_rate_times(run, rates), caps[-1:])[0] / 1e9
    shuffled = replay(run, constant_rate_times(run, rng.permutation(rates)), caps[-1:])[0] / 1e9
    guess_text = ""
    if estimate_mb > 0:
        t0 = time.perf_counter()
        guess = estimate(run, rates, estimate_mb * 1e6) / 1e9
        guess_text = f" | estimate at {estimate_mb:.0f} MB {guess:5.2f} ({(time.perf_counter() - t0) * 1e3:.0f} ms)"
    for i, x in enumerate(exact):
        logs[i].append(abs(np.log(x / measured)))
    rel = rates / np.median(rates)
    fast = rel < FAST
    sms = sorted(int(x[0]) for x, f in zip(run["cta_probe"][0], fast) if f)
    kern = run["kernel"]
    return (f"  {rec['shape']:<16} {kern['bm']}x{kern['bn']} s{kern['stages']} ncu {measured:5.2f} | replay "
            + " ".join(f"{x:5.2f}" for x in exact)
            + f" | constant rates {const:5.2f}, shuffled {shuffled:5.2f} | fast class {int(fast.sum())} CTAs"
            + (f" ({100 * (1 - rel[fast].mean()):.0f}% faster; SMs {sms})" if fast.any() else "") + guess_text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--capacity-mb", default="21,26,31", help="LRU capacities (MB, comma-separated)")
    ap.add_argument("--seed", type=int, default=1, help="the shuffle's seed")
    ap.add_argument("--estimate", type=float, default=0.0, metavar="MB",
                    help="also the millisecond estimate (estimate()) of the constant-rate replay at this capacity")
    args = ap.parse_args()
    try:
        caps = [float(x) * 1e6 for x in args.capacity_mb.split(",")]
        if not caps or min(caps) <= 0:
            raise ValueError
    except ValueError:
        print(f"error: --capacity-mb wants positive numbers, got {args.capacity_mb!r}", file=sys.stderr)
        return 2
    path = ROOT / args.file if not Path(args.file).is_absolute() else Path(args.file)
    try:
        rows = [json.loads(x) for x in _jsonl.lines(path) if x.strip()]
    except (OSError, EOFError, json.JSONDecodeError) as e:
        print(f"error: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    logs: list[list[float]] = [[] for _ in caps]
    last = caps[-1] / 1e6
    print(f"{args.file}: HBM read GB, ncu against the LRU replay at {args.capacity_mb} MB "
          f"(constant-rate and shuffled replays at {last:.0f} MB)")
    for rec in rows:
        try:
            line = _row(rec, caps, rng, args.estimate, logs)
        except (AttributeError, KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as e:
            name = f"{rec.get('shape')} {rec.get('config_name')}" if isinstance(rec, dict) else "a row"
            line = f"  {name}: malformed ({type(e).__name__}: {e}), skipped"
        print(line)
    if logs[0]:
        fits = ", ".join(f"{c / 1e6:.0f} MB {np.mean(v):.3f}" for c, v in zip(caps, logs))
        print(f"  mean |log(replay / ncu)|: {fits} ({len(logs[0])} launches)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
