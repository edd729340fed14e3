"""Records of our microbenchmarks' walks (the "MB {json}" lines mb_tma prints, read by perfmodel.microbench.runner's
parse_records) grouped as the wide-k readers use them (derive_wide_k_gap.py, _place.py, _tpc.py): a run and its
repeat read back, each (tile_n, kb, variant)'s cycles a stage, and the walks' tile order."""
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
