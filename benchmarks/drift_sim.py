"""A research simulation of the long-K drift: every CTA's ring, each SM's own path to the L2, merging and an LRU.

    python3 benchmarks/drift_sim.py [--file data/ncu/drift_lru/drift_ncu.jsonl] [--gpu h100-sxm]

NOT part of the model. It is the twenty-fifth session's second try at the feedback that sets the CTAs' progress (docs/
calibrate.md, "The twenty-fifth session"). It is kept so the next try starts from it, with its shortfall printed.
Each CTA runs its tiles (t = blockIdx + 132 j, `tile_coords`) as a ring of `stages` k-blocks. A k-block issues when the
stage it reuses is consumed. Its A and B slabs come:
- from a sharer's read still in flight (merged: the data arrives with it and uses no path);
- or over the CTA's own path to the L2, at the SM's measured share: `mb_tma --sm-share` (data/microbench/
  sm_share_h100, H100 card 1652824024944): 30.5 B/clk, and 43.5 for the run's fast SMs (the CTAs the probe measured
  10% faster than the median, in any deep ring of the same file). A slab missing from an LRU of 31 MB
  (benchmarks/drift_lru.py) also queues at one HBM (hbm.bandwidth x hbm.achievable_fraction, after
  tma.hbm_miss_latency_cycles).
The consumer holds each stage the tile's tensor-core time (tensor_core.f16_flops_per_clock_per_sm).

Printed per launch of the file (drift_lru.py's runs): ncu's HBM bytes against the simulation's, the 100 ms loop's time
against the simulated one, and the simulated fast class and spread of the rest against the measured ones. What it
showed on data/ncu/drift_lru (2026-11-27): a spread of its own, but too large (s.d. 5-15% against 0.6-4.9% measured),
bytes 0.5-1.9x ncu's with no order between the shapes, times from 6% short to 69% long.
"""
from __future__ import annotations

import argparse
import heapq
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _jsonl  # noqa: E402
from drift_lru import DEFAULT_FILE, FAST, _bytes, _grid, cta_rates  # noqa: E402
from perfmodel import load_hardware  # noqa: E402
from perfmodel.config import Raster  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.sim.scheduler import tile_coords  # noqa: E402

SLOW_BYTES_PER_CLOCK = 30.5     # mb_tma --sm-share, private A panels, 4-7 stages: the 108 SMs' median
FAST_BYTES_PER_CLOCK = 43.5     # the same: the 24 fast SMs' median
LRU_BYTES = 31e6                # benchmarks/drift_lru.py: the capacity that replays ncu's bytes (H100)


@dataclass(frozen=True)
class SimParams:
    clock_hz: float
    l2_latency_cycles: float
    miss_latency_cycles: float
    hbm_bytes_per_s: float
    f16_flops_per_clock_per_sm: float
    lru_bytes: float = LRU_BYTES


@dataclass(frozen=True)
class SimResult:
    hbm_read_bytes: float
    time_s: float
    ns_per_kblock: np.ndarray      # each CTA's mean issue interval
    merged_fraction: float


def simulate(run: dict, fast_sms: set[int], p: SimParams) -> SimResult:
    """One launch of a probed run (its shape, ring and CTA placement; drift_lru's record) simulated."""
    kern = run["kernel"]
    kit, tiles_m, tiles_n, grid, slab = _grid(run)
    total, raster = tiles_m * tiles_n, Raster.N if kern.get("raster_n") else Raster.M
    ns = 1e9 / p.clock_hz
    smids = [x[0] for x in run["cta_probe"][0]]
    path_rate = [(FAST_BYTES_PER_CLOCK if s in fast_sms else SLOW_BYTES_PER_CLOCK) / ns for s in smids]
    tensor_ns = 2 * kern["bm"] * kern["bn"] * kern["bk"] / p.f16_flops_per_clock_per_sm * ns
    stages = kern["stages"]
    tiles = [list(range(c, total, grid)) for c in range(grid)]
    length = [len(t) * kit for t in tiles]
    consume = [np.zeros(n) for n in length]
    issue = [np.zeros(n) for n in length]
    path_free = np.zeros(grid)
    in_flight: dict[tuple, float] = {}
    lru: OrderedDict = OrderedDict()
    used = missed = 0.0
    hbm_free, merged, reads, end = 0.0, 0, 0, 0.0
    hbm_per_ns = p.hbm_bytes_per_s / 1e9
    heap = [(0.0, c, 0) for c in range(grid)]
    heapq.heapify(heap)
    coords: dict[int, tuple[int, int]] = {}
    while heap:
        t, c, i = heapq.heappop(heap)
        tile = tiles[c][i // kit]
        if tile not in coords:
            coords[tile] = tile_coords(tile, tiles_m, tiles_n, raster, kern["group"])[1:]
        mi, ni = coords[tile]
        ready = t
        for key, size in (((0, mi, i % kit), slab[0]), ((1, ni, i % kit), slab[1])):
            reads += 1
            arrival = in_flight.get(key)
            if arrival is not None and arrival >= t:          # a sharer's read still in flight: merged
                merged += 1
                ready = max(ready, arrival)
                if key in lru:
                    lru.move_to_end(key)
                continue
            path_free[c] = max(t, path_free[c]) + size / path_rate[c]
            arrival = path_free[c] + p.l2_latency_cycles * ns
            if key in lru:
                lru.move_to_end(key)
            else:
                missed += size
                lru[key] = size
                used += size
                while used > p.lru_bytes:
                    used -= lru.popitem(last=False)[1]
                hbm_free = max(hbm_free, t) + size / hbm_per_ns
                arrival = max(arrival, hbm_free + p.miss_latency_cycles * ns)
            in_flight[key] = arrival
            ready = max(ready, arrival)
        consume[c][i] = max(ready, consume[c][i - 1] if i else 0.0) + tensor_ns
        issue[c][i] = t
        if i + 1 < length[c]:
            heapq.heappush(heap, (max(t, consume[c][i + 1 - stages] if i + 1 >= stages else 0.0), c, i + 1))
        else:
            end = max(end, consume[c][i])
    per_kblock = np.array([(issue[c][-1] - issue[c][0]) / max(length[c] - 1, 1) for c in range(grid)])
    return SimResult(missed, end * 1e-9, per_kblock, merged / max(reads, 1))


def _fast_sms(rec: dict, rows: list[dict]) -> set[int]:
    """The SMs whose CTAs ran 10% faster than the median: in this run, else in any run of the file with 24 of them."""
    for r in [rec] + rows:
        run = r.get("program") or {}
        rel = cta_rates(run)
        rel = rel / np.median(rel)
        sms = {int(x[0]) for x, f in zip(run["cta_probe"][0], rel < FAST) if f}
        if r is rec and sms or len(sms) == 24:
            return sms
    return set()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=DEFAULT_FILE, help="drift_lru.py's ncu file (its timed runs beside it)")
    ap.add_argument("--gpu", default="h100-sxm")
    args = ap.parse_args()
    import json
    path = ROOT / args.file if not Path(args.file).is_absolute() else Path(args.file)
    timed_path = path.with_name(path.name.replace("drift_ncu", "drift_timed"))
    try:
        hw = load_hardware(args.gpu)
        rows = [json.loads(x) for x in _jsonl.lines(path) if x.strip()]
        timed = {(r["shape"], r["config_name"]): r for r in
                 (json.loads(x) for x in _jsonl.lines(timed_path) if x.strip())}
    except (PerfmodelError, OSError, EOFError, json.JSONDecodeError, KeyError, TypeError) as e:
        print(f"error: cannot read {args.file} or its timed runs: {e}", file=sys.stderr)
        return 2
    print(f"{args.file} on {hw.name}: HBM GB (ncu, simulated) | time ms (100 ms loop, simulated) | fast class and the "
          "rest's s.d. (measured, simulated)")
    for rec in rows:
        try:
            run, loop = rec["program"], timed[(rec["shape"], rec["config_name"])]["time"]
            params = SimParams(loop["kernel_mhz_median"] * 1e6, hw.tma.latency_cycles, hw.tma.hbm_miss_latency_cycles,
                               hw.hbm.bandwidth_bytes_per_s * (hw.hbm.achievable_fraction or 1.0),
                               hw.tensor_core.f16_flops_per_clock_per_sm)
            res = simulate(run, _fast_sms(rec, rows), params)
            measured = cta_rates(run)
            measured = measured / np.median(measured)
            sim = res.ns_per_kblock / np.median(res.ns_per_kblock)
            kern = run["kernel"]
            ncu_gb = _bytes(rec["launches"][-1]["dram__bytes_read.sum"]) / 1e9
            print(f"  {rec['shape']:<16} {kern['bm']}x{kern['bn']} s{kern['stages']} "
                  f"HBM {ncu_gb:5.2f} {res.hbm_read_bytes / 1e9:5.2f}"
                  f" | {loop['median_ms']:.3f} {res.time_s * 1e3:.3f} ms | fast {int((measured < FAST).sum())} "
                  f"{int((sim < FAST).sum())}, s.d. {measured[measured >= FAST].std():.3f} "
                  f"{sim[sim >= FAST].std():.3f} | merged {res.merged_fraction:.2f}")
        except (AttributeError, KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as e:
            name = rec.get("shape") if isinstance(rec, dict) else "a row"
            print(f"  {name}: malformed ({type(e).__name__}), skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
