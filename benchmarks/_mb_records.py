"""Records of our microbenchmarks' walks (the "MB {json}" lines mb_tma prints, read by perfmodel.microbench.runner's
parse_records) grouped as the wide-k readers use them (derive_wide_k_gap.py, _place.py, _tpc.py): a run and its
repeat read back, each (tile_n, kb, variant)'s cycles a stage, the walks' tile order, a placement's panel sharing and
each run's own table."""
from __future__ import annotations

import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perfmodel.config import Raster  # noqa: E402
from perfmodel.microbench.runner import parse_records  # noqa: E402
from perfmodel.sim.scheduler import tile_coords  # noqa: E402


def read_mb(root: Path, runs: tuple[str, ...], bench: str | None = None) -> list[dict]:
    """The records of each file of ``runs`` under ``root`` (those of ``bench`` only, if given), each with "run" set to
    its file's name."""
    return [dict(r, run=name) for name in runs for r in parse_records((root / name).read_text())
            if bench is None or r["bench"] == bench]


def variant_cycles(rows: list[dict], configs, variants) -> dict[tuple[int, int, str], tuple[list[dict], dict]]:
    """(tile_n, kb, variant) -> (its records, {cycles: the median of their cycles a stage, lo, hi, samples}), for the
    combinations present."""
    out = {}
    for tn, kb in configs:
        for v in variants:
            xs = [r for r in rows if (r["tile_n"], r["kb"], r["variant"]) == (tn, kb, v)]
            if xs:
                cyc = [r["cycles_per_stage"] for r in xs]
                out[(tn, kb, v)] = (xs, {"cycles": st.median(cyc), "lo": min(cyc), "hi": max(cyc), "samples": len(cyc)})
    return out


def median_of(xs: list[dict], field: str) -> float:
    return st.median([r[field] for r in xs])


def tile_mn(t: int, tiles_m: int, tiles_n: int, group: int = 8) -> tuple[int, int]:
    """mb_tma's tile_mn for the pm8 order (raster along M, groups of ``group`` N columns): tile t -> (m, n), our
    kernel's order as the model has it (perfmodel.sim.scheduler.tile_coords)."""
    _, m, n = tile_coords(t, tiles_m, tiles_n, Raster.M, group)
    return m, n


def placement_sharing(smids: list[int], gpc_of_sm: list[int], tiles_m: int, tiles_n: int) -> dict[str, float]:
    """A placement's (sequence b -> %smid) sharing as mb_tma's tpc_sharing counts it, every round as the walk takes it
    (sequence b's tile in round j: (b + sms j) mod tiles): share_a / share_b (the TPC rounds whose two SMs walk the
    same A / B panel), tpcs_a (TPCs whose SMs share A in some round), gpc_a / gpc_b (distinct A / B panels a GPC a
    round, mean over GPCs and rounds), gpc_a_max."""
    sms, total = len(smids), tiles_m * tiles_n
    rounds = -(-total // sms)
    seq_on = {s: b for b, s in enumerate(smids)}
    gpcs = sorted({gpc_of_sm[s] for s in smids})
    same_a = same_b = pairs = samples = 0
    gpc_a = gpc_b = gpc_a_max = 0
    tpcs_a: set[int] = set()
    for j in range(rounds):
        mn = [tile_mn((b + sms * j) % total, tiles_m, tiles_n) for b in range(sms)]
        for s in sorted(seq_on):
            if s % 2 or s + 1 not in seq_on:
                continue
            (m1, n1), (m2, n2) = mn[seq_on[s]], mn[seq_on[s + 1]]
            same_a, same_b, pairs = same_a + (m1 == m2), same_b + (n1 == n2), pairs + 1
            if m1 == m2:
                tpcs_a.add(s // 2)
        for g in gpcs:
            tiles = [mn[b] for b, s in enumerate(smids) if gpc_of_sm[s] == g]
            da = len({m for m, _ in tiles})
            gpc_a, gpc_b, gpc_a_max = gpc_a + da, gpc_b + len({n for _, n in tiles}), max(gpc_a_max, da)
            samples += 1
    return {"share_a": same_a / pairs, "share_b": same_b / pairs, "tpcs_a": len(tpcs_a), "gpc_a": gpc_a / samples,
            "gpc_b": gpc_b / samples, "gpc_a_max": gpc_a_max}


def print_run_table(rows: list[dict], bench: str, runs: tuple[str, ...], configs, variants, cell) -> None:
    """Each run's own figures: a row per (tile_n, kb, variant), a column per run, ``cell(records, run, tile_n, kb,
    variant)`` the text of one (records: that run's of ``bench`` for the key; "-" where there are none)."""
    print("| tile | kb | variant | " + " | ".join(runs) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in runs) + " |")
    for tn, kb in configs:
        for v in variants:
            cells = []
            for run in runs:
                xs = [r for r in rows if r["bench"] == bench and r["run"] == run
                      and (r["tile_n"], r["kb"], r["variant"]) == (tn, kb, v)]
                cells.append(cell(xs, run, tn, kb, v) if xs else "-")
            print(f"| 128x{tn}x{64 * kb} | {kb} | {v} | " + " | ".join(cells) + " |")
