"""A GPC's distinct bytes a cycle when its CTAs read their slabs in step, from our walks on chosen SMs (issue 8, the
twenty-eighth session).

    python3 benchmarks/gpc_port.py [--table]

The records: the paced 64x256 walks of 256x4096x14336 (one wave, 64 CTAs, 5 stages; mb_tma --walk-place and
--walk-alone, `tma_walk_place` / `tma_walk_alone`) with each CTA's cycles and SM. The SMs group into GPCs as the run's
16-SM cluster groups say (`gpc_clusters`), the SMs outside them as one more group (the cluster launch's packed GPC,
HardwareSpec.busiest_gpc_sms). A group's distinct bytes a k-block: the A and B slabs of its CTAs' tiles (rank r takes
tile r in pm8 order, sim/scheduler.tile_coords), 64 x 128 B an A slab, 256 x 128 B a B slab. In each walk the group
with the most distinct bytes (the slowest of equals) is the one a per-GPC limit would hold, and it is the walk's
slowest group, or within 1% of it, in every record. It is held where its CTAs' median cycles a k-block exceed the
walk's floor by more than BOUND: the floor is the fastest group of the run's walks with the same B (from HBM, or kept
in L2 by b_kwrap 16, whose modulo slows the walk's producer). The figure: the median over a GPU's held groups of
distinct bytes over cycles.

Tried in the model and not kept (docs/calibrate.md, the twenty-eighth session): a one-wave grid's stages taking at
least the busiest GPC's distinct bytes of the first wave over this figure (458 H100, 554 H200) moved the calibration
half H100 3.565 -> 3.608%, H200 4.251 -> 4.251%.
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perfmodel.config import Raster  # noqa: E402
from perfmodel.microbench import MicrobenchError  # noqa: E402
from perfmodel.microbench.runner import parse_records  # noqa: E402
from perfmodel.sim.scheduler import tile_coords  # noqa: E402

_MB = "data/microbench"
RUNS = {"H100": [f"{_MB}/walk_place_h100/walk_place.jsonl", f"{_MB}/walk_place_h100/walk_place_repeat.jsonl",
                 f"{_MB}/walk_place_h100b/walk_place.jsonl", f"{_MB}/walk_place_h100b/walk_place_repeat.jsonl",
                 f"{_MB}/walk_alone_h100/walk_place.jsonl"],
        "H200": [f"{_MB}/walk_place_h200/walk_place.jsonl", f"{_MB}/walk_place_h200/walk_place_repeat.jsonl",
                 f"{_MB}/walk_place_h200b/walk_place.jsonl", f"{_MB}/walk_place_h200b/walk_place_repeat.jsonl"]}
BOUND = 1.05            # a group this much slower than the floor is held by something beyond the walk's own pace
ROW_BYTES = 128         # a slab's rows: 64 bf16


def records(path: pathlib.Path) -> list[dict]:
    """The run's records (mb_tma's 'MB {json}' lines, perfmodel.microbench.runner.parse_records)."""
    return parse_records(path.read_text())


def groups_of(recs: list[dict]) -> dict[int, int]:
    """SM -> group (1.. the 16-SM cluster groups; SMs outside them: 0)."""
    for r in recs:
        if r.get("bench") == "gpc_clusters" and r.get("cluster") == 16:
            return {sm: i + 1 for i, g in enumerate(r["groups"].split(";")) for sm in map(int, g.split(","))}
    return {}


def walk_groups(r: dict, group: dict[int, int]) -> list[tuple[int, int, float, float]]:
    """(group, CTAs, distinct bytes a k-block, median cycles a k-block) of one walk record."""
    tm, tn = r["m"] // r["tile_m"], r["n"] // r["tile_n"]
    cycles = [float(x) / r["k_iters"] for x in r["cta_cycles"].split(",")]
    sms = [int(x) for x in r["cta_smids"].split(",")]
    acc: dict[int, tuple[set, set, list]] = {}
    for rank, (cyc, sm) in enumerate(zip(cycles, sms)):
        _, m, n = tile_coords(rank, tm, tn, Raster.M, 8)
        a, b, c = acc.setdefault(group.get(sm, 0), (set(), set(), []))
        a.add(m)
        b.add(n)
        c.append(cyc)
    return [(g, len(c), len(a) * r["tile_m"] * ROW_BYTES + len(b) * r["tile_n"] * ROW_BYTES, statistics.median(c))
            for g, (a, b, c) in sorted(acc.items())]


def paced_64x256(recs: list[dict]) -> list[dict]:
    return [r for r in recs if r.get("bench") in ("tma_walk_place", "tma_walk_alone") and r.get("work_cycles", 0) > 0
            and r["tile_m"] == 64 and r["tile_n"] == 256 and r["m"] == 256 and r["ctas"] == 64]


def derive(paths: list[str], table: bool) -> tuple[float, int] | None:
    """(the figure, held groups) over one GPU's runs, or None without a held group."""
    held_rates = []
    for p in paths:
        path = ROOT / p
        if not path.exists():
            continue
        recs = records(path)
        group = groups_of(recs)
        if not group:
            continue
        walks = [(r, walk_groups(r, group)) for r in paced_64x256(recs)]
        floor: dict[int, float] = {}
        for r, gs in walks:
            kw = r.get("b_kwrap", 0)
            floor[kw] = min([floor.get(kw, float("inf"))] + [cyc for _, _, _, cyc in gs])
        for r, gs in walks:
            g, n, d, cyc = max(gs, key=lambda x: (x[2], x[3]))
            f = floor[r.get("b_kwrap", 0)]
            held = cyc > BOUND * f
            if held:
                held_rates.append(d / cyc)
            if table:
                print(f"  {p.split('/')[-2]:<20} {r['placement']:<14} b_kwrap {r.get('b_kwrap', 0):>2} group {g} "
                      f"{n:>2} CTAs {d // 1024:>4} KB {cyc:6.0f} cycles (floor {f:.0f}) {d / cyc:5.0f} B/clk"
                      f"{'  held' if held else ''}")
    return (statistics.median(held_rates), len(held_rates)) if held_rates else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="every group of every walk")
    args = ap.parse_args()
    for gpu, paths in RUNS.items():
        try:
            got = derive(paths, args.table)
        except (MicrobenchError, OSError, KeyError, ValueError) as e:
            print(f"error: {gpu} walks: {e}", file=sys.stderr)
            return 2
        if got is None:
            print(f"{gpu}: no held group in {len(paths)} runs")
            continue
        value, n = got
        print(f"{gpu}: {value:.0f} distinct bytes a cycle a GPC (median of {n} held groups)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
