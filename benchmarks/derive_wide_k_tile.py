"""Where our GEMM's 2-stage rings of 256-byte k-block rows lose their time (thirty-second session, 2026-11-28): the
study builds' tile probe of the eight 8192^3 bf16 configurations of data/ncu/scripts/wide_k.txt
(data/ncu/wide_k_tile_h100), beside the lag-1 wgmma walk of the same loads and batches
(data/microbench/wide_k_mma_h100, mb_tma --wide-k-mma).

    python3 benchmarks/derive_wide_k_tile.py

Per configuration and run, at the row's in-kernel clock: cycles a k-block from the timing loop (median ms over the
slowest CTA's tiles x k-blocks), the producer's pace (its issue samples), the mainloop's pace inside a tile (first stage
in to last wgmma complete, over the k-blocks; median over CTAs and both warpgroups' first 8 tiles), a warpgroup's
epilogue and the cycles from it to the next tile's first stage in. Times in the probe are %globaltimer ns.
"""
from __future__ import annotations

import json
import math
import os
import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from perfmodel.config import KernelConfig  # noqa: E402

import _jsonl  # noqa: E402
from derive_tile_phases import PRODUCER_WORDS, tile_words  # noqa: E402   (the study builds' sample layout)

DIR = Path(__file__).resolve().parent.parent / "data" / "ncu" / "wide_k_tile_h100"
TILES, WORDS = 8, 4       # a warpgroup's sampled tiles: ready, first stage in, mainloop end, epilogue end
SMS = 132


def phases(r: dict) -> dict[str, float]:
    """The row's figures in cycles at its kernel clock (module docstring)."""
    c = KernelConfig.from_name(r["config_name"])
    m, n, k = map(int, r["shape"].split("x"))
    cyc = r["time"]["kernel_mhz_median"] * 1e-3           # cycles a ns
    kb = math.ceil(k / c.tile_k)
    tiles = math.ceil(math.ceil(m / c.tile_m) * math.ceil(n / c.tile_n) / SMS)
    pace, main, epi, restart = [], [], [], []
    for s in r["cta_samples"]:
        prod = [v for v in s[1:1 + PRODUCER_WORDS] if v >= 0]
        pace += [(b - a) / s[0] for a, b in zip(prod, prod[1:])]
        words = tile_words(s)   # 2 warpgroups x TILES tiles x WORDS words
        for w in range(2):
            t = [words[(w * TILES + i) * WORDS:(w * TILES + i + 1) * WORDS] for i in range(TILES)]
            for i, (_, data, end, out) in enumerate(t):
                if min(data, end, out) <= 0:
                    continue
                main.append((end - data) / kb)
                epi.append(out - end)
                if i + 1 < TILES and t[i + 1][1] > 0:
                    restart.append(t[i + 1][1] - out)
    return {"loop": r["time"]["median_ms"] * 1e6 * cyc / (tiles * kb), "producer": st.median(pace) * cyc,
            "mainloop": st.median(main) * cyc, "epilogue": st.median(epi) * cyc, "restart": st.median(restart) * cyc}


def main() -> int:
    runs = [p for p in _jsonl.glob(DIR, "*.jsonl")]
    if not runs:
        print(f"no probe data under {DIR}")
        return 1
    print("cycles a k-block at the kernel clock; epilogue and restart (epilogue end -> next tile's first stage in) "
          "a tile")
    print(f"{'configuration':70s} {'run':6s} {'MHz':>5s} {'loop':>6s} {'prod':>6s} {'main':>6s} {'epi':>6s} "
          f"{'rest':>6s}")
    for path in runs:
        for r in map(json.loads, _jsonl.lines(path)):
            if not r.get("ok"):
                print(f"{r.get('config_name', '?'):70s} failed: {str(r.get('error', ''))[:60]}")
                continue
            f = phases(r)
            print(f"{r['config_name']:70s} {'repeat' if 'repeat' in path.name else 'first':6s} "
                  f"{r['time']['kernel_mhz_median']:5.0f} {f['loop']:6.0f} {f['producer']:6.0f} {f['mainloop']:6.0f} "
                  f"{f['epilogue']:6.0f} {f['restart']:6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
