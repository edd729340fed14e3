"""Placement or launch mode: is the cluster launch's slowdown of the 256-byte-row walk where its CTAs (and so which
tiles) sit, or the launch itself (mb_tma --wide-k-place, thirty-second session, 2026-11-28:
data/microbench/wide_k_place_h100, expectation in data/ncu/scripts/wide_k_place.sh).

    python3 benchmarks/derive_wide_k_place.py

Per configuration (128x256 / 128x128 tiles, kb = 2 and the kb = 1 controls) and variant (plain, cluster, each remapped
onto the other's SM -> tile placement, each remapped onto its own): cycles a stage (the median CTA's; median over the
run's and the repeat's rounds [their spread]), land (issue-to-landing cycles a stage), the kernel clock, and how many
CTAs sat on the SM their launch's reference put them (same_sm, fewest of the rounds). Then, per reference placement,
how often the two SMs of a TPC (%smid 2t, 2t+1) walk tiles of the same A panel (same m) or B panel (same n).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _mb_records import median_of, read_mb, tile_mn, variant_cycles  # noqa: E402

DIR = Path(__file__).resolve().parent.parent / "data" / "microbench" / "wide_k_place_h100"
RUNS = ("wide_k_place.jsonl", "wide_k_place_repeat.jsonl")
VARIANTS = ("plain", "cluster", "plain as cluster", "cluster as plain", "plain as plain", "cluster as cluster")
CONFIGS = ((256, 2), (128, 2), (256, 1), (128, 1))   # (tile_n, kb): 128 x tile_n x 64 kb tiles
SMS, TILES_M, WIDE_N = 132, 64, 8192


def read_records(root: Path = DIR) -> list[dict]:
    """Every record of the run and its repeat, each with "run" set to its file's name."""
    return read_mb(root, RUNS)


def summary(rows: list[dict]) -> dict[tuple[int, int, str], dict[str, float]]:
    """(tile_n, kb, variant) -> medians (cycles, land, MHz), the cycles' spread, samples and the fewest same_sm."""
    rows = [r for r in rows if r["bench"] == "tma_wide_k_place"]
    return {key: {**c, "land": median_of(xs, "land_cycles"), "mhz": median_of(xs, "kernel_mhz"),
                  "same_sm": min(r["same_sm"] for r in xs), "mapped": min(r["mapped"] for r in xs)}
            for key, (xs, c) in variant_cycles(rows, CONFIGS, VARIANTS).items()}


def tpc_sharing(smids: list[int], tile_n: int, tiles_per_cta: int = 16) -> tuple[float, float]:
    """The share of (TPC, tile round) pairs whose two SMs walk the same A panel, and the same B panel."""
    tiles_n = WIDE_N // tile_n
    total, cta_on = TILES_M * tiles_n, {s: b for b, s in enumerate(smids)}
    same_a = same_b = n = 0
    for j in range(tiles_per_cta):
        for tpc in range(len(smids) // 2):
            b1, b2 = cta_on.get(2 * tpc), cta_on.get(2 * tpc + 1)
            if b1 is None or b2 is None or max(b1, b2) + len(smids) * j >= total:
                continue
            (m1, n1), (m2, n2) = (tile_mn(b + len(smids) * j, TILES_M, tiles_n) for b in (b1, b2))
            same_a, same_b, n = same_a + (m1 == m2), same_b + (n1 == n2), n + 1
    return same_a / n, same_b / n


def main() -> int:
    if not (DIR / RUNS[0]).exists():
        print(f"no data under {DIR}")
        return 1
    rows = read_records()
    s = summary(rows)
    print("cycles a stage: median of both runs' rounds [spread]; land: cycles a stage; same_sm: fewest of the rounds")
    print("| tile | kb | variant | cycles a stage | vs plain | land | MHz | same_sm | mapped |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for tn, kb in CONFIGS:
        plain = s[(tn, kb, "plain")]["cycles"]
        for v in VARIANTS:
            x = s[(tn, kb, v)]
            print(f"| 128x{tn}x{64 * kb} | {kb} | {v} | {x['cycles']:.0f} [{x['lo']:.0f}-{x['hi']:.0f}] | "
                  f"{100 * (x['cycles'] / plain - 1):+.0f}% | {x['land']:.0f} | {x['mhz']:.0f} | {x['same_sm']} | "
                  f"{x['mapped']} |")
    print()
    print("| run | tile | kb | reference launch | TPC mates same A panel | same B panel |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        if r["bench"] == "tma_wide_k_place_smids":
            a, b = tpc_sharing([int(x) for x in r["smids"].split(",")], r["tile_n"])
            print(f"| {r['run']} | 128x{r['tile_n']}x{64 * r['kb']} | {r['kb']} | {r['launch']} | {a:.2f} | {b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
