"""A knee in the distinct bytes a GPC draws a stage round? (mb_tma --wide-k-knee, 2026-11-28:
data/microbench/wide_k_knee_h100, expectation in data/ncu/scripts/wide_k_knee.sh).

    python3 benchmarks/derive_wide_k_knee.py [--4rounds]

Per configuration (128x256 / 128x128 tiles at kb = 2 and kb = 1) and map (every one a plain launch on a host-built
SM -> tile sequence map: the plain, cluster and "TPC pairs, cluster order" maps of --wide-k-tpc, and the plain map
with 1-8 of each GPC's 8-SM blocks' sequences moved to other GPCs, singly or as whole TPCs), ordered by the distinct
kB (1000 B) a GPC draws a stage round: the distinct A / B panels a GPC a round and that kB (recomputed here from the
map's sequence -> SM list and the run's GPC map, and checked against the fields mb_tma printed), cycles a stage (the
median CTA's; median over the run's and the repeat's rounds [their spread]), its change against plain, f = its share
of the as cluster - plain gap, ns a stage (the kernel's time over its stages), land (cycles, and ns at the kernel
clock), the kernel clock, the fewest same_sm and mapped; then each run's own medians and the kernel clock at each place
of a configuration's order of launches. The run has one round per variant (every variant at every place once); with
--4rounds, the first run's 4 rounds (wide_k_knee_4rounds*.jsonl, another card), whose places and so clocks went with
the variant.
"""
from __future__ import annotations

import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _mb_records import median_of, placement_sharing, print_run_table, read_mb, variant_cycles  # noqa: E402

DIR = Path(__file__).resolve().parent.parent / "data" / "microbench" / "wide_k_knee_h100"
RUNS = ("wide_k_knee.jsonl", "wide_k_knee_repeat.jsonl")
RUNS_4 = ("wide_k_knee_4rounds.jsonl", "wide_k_knee_4rounds_repeat.jsonl")   # the first call's 4 rounds
VARIANTS = ("plain", "as cluster", "TPC pairs, cluster order", "move 2, pairs", "move 4, pairs", "move 8, pairs",
            "move 1", "move 2", "move 3", "move 4", "move 5", "move 6", "move 7")
CONFIGS = ((256, 2), (128, 2), (256, 1), (128, 1))   # (tile_n, kb): 128 x tile_n x 64 kb tiles
TILES_M, WIDE_N = 64, 8192


def read_records(root: Path = DIR, runs: tuple[str, ...] = RUNS) -> list[dict]:
    """Every record of the run and its repeat, each with "run" set to its file's name."""
    return read_mb(root, runs)


def land_ns(r: dict) -> float:
    """A record's land (the median CTA's cycles a stage) in ns at its kernel clock."""
    return r["land_cycles"] / r["kernel_mhz"] * 1e3


def summary(rows: list[dict]) -> dict[tuple[int, int, str], dict[str, float]]:
    """(tile_n, kb, variant) -> medians (cycles, ns, land cycles and ns, MHz), the cycles' spread, samples, the fewest
    same_sm and mapped."""
    rows = [r for r in rows if r["bench"] == "tma_wide_k_knee"]
    return {key: {**c, "ns": median_of(xs, "ns_per_stage"), "land": median_of(xs, "land_cycles"),
                  "land_ns": st.median(land_ns(r) for r in xs), "mhz": median_of(xs, "kernel_mhz"),
                  "same_sm": min(r["same_sm"] for r in xs), "mapped": min(r["mapped"] for r in xs)}
            for key, (xs, c) in variant_cycles(rows, CONFIGS, VARIANTS).items()}


def place_of(r: dict) -> int:
    """A record's place in its round's order of launches (recorded by the balanced run; the 4-round run's from the
    rotation: variant i ran at place (i - round) mod the variants)."""
    return r["place"] if "place" in r else (VARIANTS.index(r["variant"]) - r["round"]) % len(VARIANTS)


def gpc_panels(smids: list[int], gpc_of_sm: list[int], tile_n: int, kb: int) -> dict[str, float]:
    """A placement's (sequence b -> %smid) distinct A / B panels a GPC a round (_mb_records.placement_sharing: means
    over GPCs and rounds, every round as the kernel walks it), the most A panels, and the distinct kB a GPC a round:
    A panels x 128 rows + B panels x tile_n rows, each row kb x 128 B."""
    x = placement_sharing(smids, gpc_of_sm, TILES_M, WIDE_N // tile_n)
    a, b = x["gpc_a"], x["gpc_b"]
    return {"gpc_a": a, "gpc_b": b, "gpc_a_max": x["gpc_a_max"], "a_kb": a * 128 * kb * 128 / 1e3,
            "b_kb": b * tile_n * kb * 128 / 1e3, "gpc_kb": (a * 128 + b * tile_n) * kb * 128 / 1e3}


def maps(rows: list[dict]) -> tuple[dict[tuple[str, int, int, str], dict[str, float]], int]:
    """(run, tile_n, kb, variant) -> gpc_panels of its map, and how many maps' figures differ from mb_tma's fields."""
    gpc_of = {r["run"]: [int(x) for x in r["gpc_of_sm"].split(",")]
              for r in rows if r["bench"] == "tma_wide_k_tpc_gpcs"}
    out, bad = {}, 0
    for r in rows:
        if r["bench"] != "tma_wide_k_knee_map":
            continue
        x = gpc_panels([int(v) for v in r["smids"].split(",")], gpc_of[r["run"]], r["tile_n"], r["kb"])
        bad += any(abs(x[k] - r[k]) > 1e-6 for k in x)
        out[(r["run"], r["tile_n"], r["kb"], r["variant"])] = x
    return out, bad


def main(argv: list[str]) -> int:
    runs = RUNS_4 if "--4rounds" in argv else RUNS
    if not (DIR / runs[0]).exists():
        print(f"no data under {DIR}")
        return 1
    rows = read_records(DIR, runs)
    s = summary(rows)
    m, bad = maps(rows)
    print(f"{', '.join(runs)}: per (tile, kb), the maps by distinct kB a GPC a round (the first file's map; kB = 1000 "
          "B); medians of both runs' rounds;")
    print("cycles a stage [spread]; f: share of the as cluster - plain gap (cycles, then ns); ns a stage: the kernel's "
          "time / its stages; land: cycles a stage / ns at the kernel clock; same_sm, mapped: fewest of the rounds")
    print("| tile | kb | variant | A panels (max) | B panels | kB a GPC a round | cycles a stage | vs plain | f | "
          "ns a stage | vs plain | land | land ns, vs plain | MHz | same_sm | mapped |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for tn, kb in CONFIGS:
        if (tn, kb, "plain") not in s:
            continue
        p, q = s[(tn, kb, "plain")], s[(tn, kb, "as cluster")]
        for v in sorted(VARIANTS, key=lambda v: m[(runs[0], tn, kb, v)]["gpc_kb"]):
            x, g = s[(tn, kb, v)], m[(runs[0], tn, kb, v)]
            fc = (x["cycles"] - p["cycles"]) / (q["cycles"] - p["cycles"])
            fn = (x["ns"] - p["ns"]) / (q["ns"] - p["ns"])
            print(f"| 128x{tn}x{64 * kb} | {kb} | {v} | {g['gpc_a']:.1f} ({g['gpc_a_max']}) | {g['gpc_b']:.1f} | "
                  f"{g['gpc_kb']:.0f} | {x['cycles']:.0f} [{x['lo']:.0f}-{x['hi']:.0f}] | "
                  f"{100 * (x['cycles'] / p['cycles'] - 1):+.1f}% | {fc:.2f} / {fn:.2f} | {x['ns']:.0f} | "
                  f"{100 * (x['ns'] / p['ns'] - 1):+.1f}% | {x['land']:.0f} / {x['land_ns']:.0f} | "
                  f"{100 * (x['land_ns'] / p['land_ns'] - 1):+.1f}% | {x['mhz']:.0f} | {x['same_sm']} | "
                  f"{x['mapped']} |")
    print()
    print("each run alone: its map's kB a GPC a round, cycles a stage / ns a stage / land cycles (medians of its "
          "rounds)")
    print_run_table(rows, "tma_wide_k_knee", runs, CONFIGS, VARIANTS, lambda xs, run, tn, kb, v: (
        f"{m[(run, tn, kb, v)]['gpc_kb']:.0f} kB: {median_of(xs, 'cycles_per_stage'):.0f} / "
        f"{median_of(xs, 'ns_per_stage'):.0f} / {median_of(xs, 'land_cycles'):.0f}"))
    print()
    print("the kernel clock (MHz, median over both runs' rounds) at each place of a configuration's order of launches")
    print("| tile | kb | " + " | ".join(str(k) for k in range(len(VARIANTS))) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in VARIANTS) + " |")
    for tn, kb in CONFIGS:
        xs = [r for r in rows if r["bench"] == "tma_wide_k_knee" and (r["tile_n"], r["kb"]) == (tn, kb)]
        cells = [median_of([r for r in xs if place_of(r) == k], "kernel_mhz") for k in range(len(VARIANTS))]
        print(f"| 128x{tn}x{64 * kb} | {kb} | " + " | ".join(f"{x:.0f}" for x in cells) + " |")
    print()
    for r in rows:
        if r["bench"] == "tma_wide_k_tpc_gpcs":
            print(f"{r['run']}: GPC map from clusters {r['clusters']}: {r['gpcs']} GPCs of {r['gpc_sms']} SMs")
    print(f"maps whose recomputed panels and kB differ from mb_tma's fields: {bad}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
