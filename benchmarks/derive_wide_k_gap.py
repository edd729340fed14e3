"""What makes our GEMM's 2-stage mainloop of 256-byte k-block rows slower than the wgmma walk of the same loads, batches
and release protocol (mb_tma --wide-k-gap, thirty-second session, 2026-11-28: data/microbench/wide_k_gap_h100,
expectation in data/ncu/scripts/wide_k_gap.sh).

    python3 benchmarks/derive_wide_k_gap.py

Per configuration (128x256 / 128x128 tiles, kb = 2 and the kb = 1 controls) and variant of the walk: cycles a stage
(the median CTA's; median over the run's and the repeat's rounds, then the spread of all of them), land (a stage's
issue-to-landing cycles), wait (wgmma.wait_group 1 cycles a stage), the kernel clock and ns a stage; then the same
card's GEMM (timing build, 2 stages, sw128: median ms x its kernel clock over the slowest CTA's tiles x k-blocks).
"share" is the variant's excess over base as a part of the GEMM's.
"""
from __future__ import annotations

import json
import math
import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _mb_records import median_of, read_mb, variant_cycles  # noqa: E402

DIR = Path(__file__).resolve().parent.parent / "data" / "microbench" / "wide_k_gap_h100"
RUNS = ("wide_k_gap.jsonl", "wide_k_gap_repeat.jsonl")
VARIANTS = ("base", "out", "ab", "layout", "out+ab", "out+layout", "ab+layout", "all", "regs", "cluster", "gemm")
CONFIGS = ((256, 2), (128, 2), (256, 1), (128, 1))   # (tile_n, kb): 128 x tile_n x 64 kb tiles
SMS = 132


def read_rows(root: Path = DIR) -> list[dict]:
    """The tma_wide_k_gap records of the run and its repeat, each with "run" set to its file's name."""
    return read_mb(root, RUNS, "tma_wide_k_gap")


def gemm_cycles(root: Path = DIR) -> dict[tuple[int, int], tuple[float, float]]:
    """(tile_n, kb) -> (cycles a stage, kernel MHz) of the same card's GEMM timing builds."""
    out = {}
    for line in (root / "gemm.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["rc"] != 0 or not r["doc"]:
            continue
        tm, tn, tk = map(int, r["config"].split("_")[0].split("x"))
        d, t = r["doc"], r["doc"]["time"]
        tiles = math.ceil(math.ceil(d["m"] / tm) * math.ceil(d["n"] / tn) / SMS)
        kb = tk // 64
        out[(tn, kb)] = (t["median_ms"] * 1e3 * t["kernel_mhz_median"] / (tiles * d["k"] // tk), t["kernel_mhz_median"])
    return out


def summary(rows: list[dict]) -> dict[tuple[int, int, str], dict[str, float]]:
    """(tile_n, kb, variant) -> medians (cycles, per run too; land, wait, MHz, ns) and the cycles' spread."""
    return {key: {**c, **{run: st.median([r["cycles_per_stage"] for r in xs if r["run"] == run]) for run in RUNS},
                  "land": median_of(xs, "land_cycles"), "wait": median_of(xs, "wait_cycles"),
                  "mhz": median_of(xs, "kernel_mhz"), "ns": median_of(xs, "ns_per_stage")}
            for key, (xs, c) in variant_cycles(rows, CONFIGS, VARIANTS).items()}


def main() -> int:
    if not (DIR / RUNS[0]).exists():
        print(f"no data under {DIR}")
        return 1
    s, gemm = summary(read_rows()), gemm_cycles()
    print("cycles a stage: median of both runs' rounds (run / repeat medians) [spread]; land, wait: cycles a stage")
    print("| tile | kb | variant | cycles a stage | vs base | share | land | wait | MHz | ns a stage |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for tn, kb in CONFIGS:
        base = s[(tn, kb, "base")]["cycles"]
        g = gemm.get((tn, kb))
        for v in VARIANTS:
            x = s.get((tn, kb, v))
            if x is None:
                continue
            share = f"{(x['cycles'] - base) / (g[0] - base):+.2f}" if g and abs(g[0] - base) > 0.02 * base else ""
            print(f"| 128x{tn}x{64 * kb} | {kb} | {v} | {x['cycles']:.0f} ({x[RUNS[0]]:.0f} / {x[RUNS[1]]:.0f}) "
                  f"[{x['lo']:.0f}-{x['hi']:.0f}] | {100 * (x['cycles'] / base - 1):+.1f}% | {share} | "
                  f"{x['land']:.0f} | {x['wait']:.0f} | {x['mhz']:.0f} | {x['ns']:.0f} |")
        if g:
            print(f"| 128x{tn}x{64 * kb} | {kb} | GEMM (timing build) | {g[0]:.0f} | {100 * (g[0] / base - 1):+.1f}% | "
                  f"+1.00 | | | {g[1]:.0f} | {g[0] / g[1] * 1e3:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
