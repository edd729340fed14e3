"""TPC pairing or GPC composition: which part of the cluster launch's placement slows the 256-byte-row walk
(mb_tma --wide-k-tpc, 2026-11-28: data/microbench/wide_k_tpc_h100, expectation in data/ncu/scripts/wide_k_tpc.sh).

    python3 benchmarks/derive_wide_k_tpc.py

Per configuration (128x256 / 128x128 tiles, kb = 2 and the kb = 1 controls) and variant (every one a plain launch
on a host-built SM -> tile sequence map: the plain and the cluster placements, each re-paired within its GPCs, and the
plain TPC pairs in the cluster launch's TPC order): cycles a stage (the median CTA's; median over the run's and the
repeat's rounds [their spread]), its change against plain, f = its share of the as cluster - plain gap (cycles, then
land), land, wait_group cycles, the kernel clock, the fewest same_sm and mapped; each run's own medians. Then each
map's sharing, recomputed here from its sequence -> SM list and the run's GPC map (and checked against the fields
mb_tma printed): the share of TPC tile rounds whose two SMs walk the same A / B panel, the TPCs sharing A in some
round, the distinct A / B panels a GPC a round.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _mb_records import median_of, placement_sharing, print_run_table, read_mb, variant_cycles  # noqa: E402

DIR = Path(__file__).resolve().parent.parent / "data" / "microbench" / "wide_k_tpc_h100"
RUNS = ("wide_k_tpc.jsonl", "wide_k_tpc_repeat.jsonl")
VARIANTS = ("plain", "as cluster", "plain, TPC split", "plain, TPC split B", "cluster, TPC paired",
            "TPC pairs, cluster order", "TPC pairs, cluster order, split")
CONFIGS = ((256, 2), (128, 2), (256, 1), (128, 1))   # (tile_n, kb): 128 x tile_n x 64 kb tiles
TILES_M, WIDE_N = 64, 8192


def read_records(root: Path = DIR) -> list[dict]:
    """Every record of the run and its repeat, each with "run" set to its file's name."""
    return read_mb(root, RUNS)


def summary(rows: list[dict]) -> dict[tuple[int, int, str], dict[str, float]]:
    """(tile_n, kb, variant) -> medians (cycles, land, wait, MHz), the cycles' spread, samples, the fewest same_sm and
    mapped."""
    rows = [r for r in rows if r["bench"] == "tma_wide_k_tpc"]
    return {key: {**c, "land": median_of(xs, "land_cycles"), "wait": median_of(xs, "wait_cycles"),
                  "mhz": median_of(xs, "kernel_mhz"), "same_sm": min(r["same_sm"] for r in xs),
                  "mapped": min(r["mapped"] for r in xs)}
            for key, (xs, c) in variant_cycles(rows, CONFIGS, VARIANTS).items()}


def sharing(smids: list[int], gpc_of_sm: list[int], tile_n: int) -> dict[str, float]:
    """A placement's (sequence b -> %smid) sharing on the 8192^3 grid of tile_n-wide tiles, as mb_tma's tpc_sharing
    counts it (_mb_records.placement_sharing)."""
    return placement_sharing(smids, gpc_of_sm, TILES_M, WIDE_N // tile_n)


def main() -> int:
    if not (DIR / RUNS[0]).exists():
        print(f"no data under {DIR}")
        return 1
    rows = read_records()
    s = summary(rows)
    print("cycles a stage: median of both runs' rounds [spread]; f: share of the as cluster - plain gap "
          "(cycles / land);")
    print("land, wait: cycles a stage; same_sm, mapped: fewest of the rounds")
    print("| tile | kb | variant | cycles a stage | vs plain | f | land | wait | MHz | same_sm | mapped |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for tn, kb in CONFIGS:
        if (tn, kb, "plain") not in s:
            continue
        p, q = s[(tn, kb, "plain")], s[(tn, kb, "as cluster")]
        for v in VARIANTS:
            x = s[(tn, kb, v)]
            fc = (x["cycles"] - p["cycles"]) / (q["cycles"] - p["cycles"])
            fl = (x["land"] - p["land"]) / (q["land"] - p["land"])
            print(f"| 128x{tn}x{64 * kb} | {kb} | {v} | {x['cycles']:.0f} [{x['lo']:.0f}-{x['hi']:.0f}] | "
                  f"{100 * (x['cycles'] / p['cycles'] - 1):+.0f}% | {fc:.2f} / {fl:.2f} | {x['land']:.0f} | "
                  f"{x['wait']:.0f} | {x['mhz']:.0f} | {x['same_sm']} | {x['mapped']} |")
    print()
    print("each run alone: cycles a stage / land, median of its 4 rounds")
    print_run_table(rows, "tma_wide_k_tpc", RUNS, CONFIGS, VARIANTS, lambda xs, *_: (
        f"{median_of(xs, 'cycles_per_stage'):.0f} / {median_of(xs, 'land_cycles'):.0f}"))
    print()
    for r in rows:
        if r["bench"] == "tma_wide_k_tpc_gpcs":
            print(f"{r['run']}: GPC map from clusters {r['clusters']}: {r['gpcs']} GPCs of {r['gpc_sms']} SMs; "
                  f"by the plain order: {r['by_plain_order']}")
    print()
    print("| run | tile | kb | variant | TPC mates same A | same B | TPCs sharing A | A panels a GPC (max) | "
          "B panels |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    gpc_of = {r["run"]: [int(x) for x in r["gpc_of_sm"].split(",")]
              for r in rows if r["bench"] == "tma_wide_k_tpc_gpcs"}
    bad = 0
    for r in rows:
        if r["bench"] != "tma_wide_k_tpc_map":
            continue
        x = sharing([int(v) for v in r["smids"].split(",")], gpc_of[r["run"]], r["tile_n"])
        bad += any(abs(x[k] - r[k]) > 1e-6 for k in x)
        print(f"| {r['run']} | 128x{r['tile_n']}x{64 * r['kb']} | {r['kb']} | {r['variant']} | {x['share_a']:.2f} | "
              f"{x['share_b']:.2f} | {x['tpcs_a']} | {x['gpc_a']:.2f} ({x['gpc_a_max']}) | {x['gpc_b']:.2f} |")
    print(f"\nmaps whose recomputed sharing differs from mb_tma's fields: {bad}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
