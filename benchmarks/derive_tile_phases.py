"""What a tile of our kernel spends outside its mainloop, from the study builds' per-CTA probe (ninth session, 2026-11-26):
a CTA's set-up before its first load (gpu.cta_setup_s), each consumer warpgroup's epilogue (sync.epilogue_bytes_per_clock_per_sm
is the model's per-SM figure; the probe times one warpgroup's chain) and direct stores, how much the two warpgroups'
epilogues overlap, and how long after an epilogue the next tile's first stage lands (the tile switch's restart).

    python3 benchmarks/derive_tile_phases.py

Reads data/ncu/tile_probe, tile_probe4, tile_probe5, smoke_tile, smoke_probe (H100) and h200_tile_probe (H200); prints the medians and ranges the
hardware files and docs/model.md ("A CTA's set-up, the epilogue and the tile switch") quote. Rates are at each row's
in-kernel clock (rows without one are left out of them); times are %globaltimer ns.
"""
from __future__ import annotations

import json
import os
import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from perfmodel.config import Epilogue, KernelConfig  # noqa: E402

import _jsonl  # noqa: E402

NCU = Path(__file__).resolve().parent.parent / "data" / "ncu"
PRODUCER_WORDS = 128          # cta_samples[c][1 : 1 + 128]: the producer's samples; the tile words follow


def rows(path: Path) -> list[dict]:
    return [r for r in map(json.loads, _jsonl.lines(path)) if r.get("ok")]


def tile_words(sample: list[int]) -> list[int]:
    return sample[1 + PRODUCER_WORDS:]


def setup_ns(r: dict) -> float:
    """Median over the first probed launch's CTAs of first instruction -> first load issued."""
    return st.median(s[1] - c[1] for c, s in zip(r["cta_probe"][0], r["cta_samples"]) if s[1] >= 0)


def epilogue_rate(r: dict) -> tuple[str, float] | None:
    """(kind, bytes per SM cycle) of a row of the first study build (its tile words: the first warpgroup's first 32
    tiles as (mainloop end, epilogue end) pairs): a TMA-store row's one warpgroup's bytes over its epilogue time, a
    direct-store row's tile bytes over one warpgroup's time (they share the SM's path)."""
    mhz = r["time"].get("kernel_mhz_median")
    if not mhz:
        return None
    c = KernelConfig.from_name(r["config_name"])
    spans = []
    for s in r["cta_samples"]:
        w = tile_words(s)
        spans += [w[2 * i + 1] - w[2 * i] for i in range(32) if w[2 * i] >= 0 and w[2 * i + 1] >= 0]
    if not spans:
        return None
    cycles = st.median(spans) * 1e-9 * mhz * 1e6
    if c.epilogue is Epilogue.TMA_STORE:
        return "tma", c.tile_m // c.consumers * c.tile_n * 2 / cycles
    return "dir", c.tile_m * c.tile_n * 2 / cycles


def restart_and_overlap(r: dict) -> tuple[float, float] | None:
    """From a row of tile probe 4's build (two warpgroups, 8 tiles of (k0 in, kS in, mainloop end, epilogue end)): median over tiles 2..8 and both warpgroups of (previous epilogue end -> this tile's k-block 0
    data in), and of the share of a warpgroup's epilogue during which the other one is in its epilogue too."""
    rs, ov = [], []
    for s in r["cta_samples"]:
        w = tile_words(s)
        q = [[w[32 * g + 4 * i: 32 * g + 4 * i + 4] for i in range(8)] for g in (0, 1)]
        for g in (0, 1):
            for i in range(1, 8):
                k0, prev_end = q[g][i][0], q[g][i - 1][3]
                if k0 >= 0 and prev_end >= 0:
                    rs.append(k0 - prev_end)
        for i in range(8):
            a, b = q[0][i][2:4], q[1][i][2:4]
            if min(a + b) >= 0 and a[1] > a[0]:
                ov.append(max(0, min(a[1], b[1]) - max(a[0], b[0])) / (a[1] - a[0]))
    return (st.median(rs), st.median(ov)) if rs and ov else None


def restart_split(r: dict) -> tuple[float, float, float, float, float] | None:
    """From a row of tile probe 5's build (two warpgroups, 8 tiles of (ready for the first stage, its data in, mainloop
    end, epilogue end)), medians in ns over tiles 2..8 and both warpgroups: previous epilogue end -> ready, ready -> data
    in; over the first warpgroup's tiles 2..8: the producer's issue of the tile's k-block 0 against the previous
    mainloop's end, and that stage's data in after its issue (where the producer sampled that k-block); over the CTAs:
    a CTA's very first stage in after its issue."""
    ready, wait, lead, land, first = [], [], [], [], []
    for s in r["cta_samples"]:
        iv, prod, w = s[0], s[1:1 + PRODUCER_WORDS], tile_words(s)
        q = [[w[32 * g + 4 * i: 32 * g + 4 * i + 4] for i in range(8)] for g in (0, 1)]
        if prod[0] >= 0 and q[0][0][1] >= 0:
            first.append(q[0][0][1] - prod[0])
        for g in (0, 1):
            for i in range(1, 8):
                top, k0, prev_end = q[g][i][0], q[g][i][1], q[g][i - 1][3]
                if min(top, k0, prev_end) >= 0:
                    ready.append(top - prev_end)
                    wait.append(k0 - top)
        kit = -(-r["k"] // KernelConfig.from_name(r["config_name"]).tile_k)
        for i in range(1, 8):
            k = i * kit
            if k % iv or k // iv >= PRODUCER_WORDS:
                continue
            issued = prod[k // iv]
            if min(issued, q[0][i - 1][2], q[0][i][1]) >= 0:
                lead.append(q[0][i - 1][2] - issued)
                land.append(q[0][i][1] - issued)
    if not (ready and lead and first):
        return None
    return st.median(ready), st.median(wait), st.median(lead), st.median(land), st.median(first)


GPC0 = {0, 1, 16, 17, 32, 33, 48, 49, *range(124, 132)}   # data/microbench/README.md, mb_tma --gpc-probe's H100 cards


def gpc0_pace(r: dict) -> tuple[float, float] | None:
    """Median ns per k-block of the producer's samples (from the second on) of the CTAs on GPC 0 and of the others."""
    inside, outside = [], []
    for c, s in zip(r["cta_probe"][0], r["cta_samples"]):
        prod = [x for x in s[1:1 + PRODUCER_WORDS] if x >= 0]
        if len(prod) > 4:
            (inside if c[0] in GPC0 else outside).append((prod[-1] - prod[1]) / ((len(prod) - 2) * s[0]))
    return (st.median(inside), st.median(outside)) if inside and outside else None


def summary(name: str, values: list[float], unit: str) -> None:
    if values:
        print(f"  {name:<52} median {st.median(values):7.1f} {unit}  ({min(values):.1f}-{max(values):.1f}, "
              f"{len(values)} rows)")


def main() -> None:
    for gpu, probe in (("H100", "tile_probe/tile_probe.jsonl"), ("H200", "h200_tile_probe/tile_probe1.jsonl")):
        print(f"{gpu} (data/ncu/{probe})")
        data = rows(NCU / probe)
        summary("a CTA's set-up (first instruction -> first load)", [setup_ns(r) for r in data], "ns")
        rates = [x for r in data if (x := epilogue_rate(r))]
        summary("TMA-store epilogue, one warpgroup's chain", [v for k, v in rates if k == "tma"], "B/clk")
        summary("direct-store epilogue, a tile (the SM's path)", [v for k, v in rates if k == "dir"], "B/clk")
    print("H100, tile probe 4 (two warpgroups, short and long loops)")
    got = [x for f in ("tile_probe4_short.jsonl", "tile_probe4_long.jsonl")
           for r in rows(NCU / "tile_probe4" / f) if (x := restart_and_overlap(r))]
    summary("epilogue end -> next tile's k-block 0 data in (restart)", [a for a, _ in got], "ns")
    summary("share of an epilogue the other warpgroup is in its own", [100 * b for _, b in got], "%")
    print("H100, tile probe 5 (two warpgroups, short and long loops)")
    got = [x for f in ("tile_probe5_short.jsonl", "tile_probe5_long.jsonl")
           for r in rows(NCU / "tile_probe5" / f) if (x := restart_split(r))]
    for i, name in enumerate(("epilogue end -> ready for the next tile's first stage", "ready -> its data in",
                              "its load issued before the previous mainloop's end", "its data in after its issue",
                              "a CTA's very first stage in after its issue")):
        summary(name, [x[i] for x in got], "ns")
    print("H100, smoke tile probe (card 1752824026463; 64-CTA 128x256 s4 grids): ns per k-block, GPC 0 / the others")
    for f in ("smoke_tile.jsonl", "smoke_tile_repeat.jsonl"):
        for r in rows(NCU / "smoke_tile" / f):
            if r["config_name"].startswith("128x256x64") and "_pm8_" in r["config_name"] and "cl1x1" in r["config_name"]:
                pace = gpc0_pace(r)
                if pace:
                    print(f"  {f:<24} {r['shape']:<16} {pace[0]:6.0f} / {pace[1]:6.0f}")
    print("H100, smoke probe (card 1753024032753; normal builds, 8 launches): a CTA's start-to-end us, GPC 0 / the others")
    for r in rows(NCU / "smoke_probe" / "ksweep_cta_probe.jsonl"):
        if r["shape"] == "1000x1992x1016" and r["config_name"].startswith("128x256x64") and "cl1x1" in r["config_name"]:
            dur = [[(c[2] - c[1]) / 1e3 for c in launch if (c[0] in GPC0) == on] for on in (True, False)
                   for launch in r["cta_probe"]]
            g0, rest = [x for d in dur[:len(dur) // 2] for x in d], [x for d in dur[len(dur) // 2:] for x in d]
            print(f"  {r['config_name'].rsplit('_', 2)[-2]:<6} {min(g0):5.1f}-{max(g0):5.1f} / {min(rest):5.1f}-{max(rest):5.1f}")


if __name__ == "__main__":
    main()
