"""How unequal our kernel's CTAs run, from the per-CTA probe (`harness --cta-probe`) of the committed ncu studies.

    python3 benchmarks/cta_imbalance.py [FILE.jsonl ...] [--sms]

Each probed launch gives every CTA its SM, start and end (data/ncu/*/ksweep_cta_probe.jsonl, lag_probe.jsonl). A
persistent CTA b of a grid g runs the tiles b, b + g, ...; its time per tile is (end - start) / its tile count. Printed
per configuration and shape (medians over the probed launches):
  loss      the launch's time (the last CTA's end) over the time had every CTA run at the mean time per tile
            (the longest CTA's tile count x that mean) - 1: what the CTAs' unequal pace costs a static schedule;
  spread    the slowest CTA's time per tile over the fastest's - 1;
  fast      the share of CTAs more than 7% faster than the mean per tile; with --sms, their SM ids (first launch).
The model runs one SM at the mean share (or at its busiest GPC's mean share); it has no term for this loss. A study of
the eighth session (2026-11-26, docs/model.md): the loss is 0-3% at shallow rings, 3-8% for L2-bound tiles at deep
rings, and the fast SMs are the same two TPCs of five GPCs on the cards probed.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import _jsonl  # noqa: E402
FAST = 0.93   # a CTA whose time per tile is below this x the mean counts as fast


def launch_stats(run: list, tiles: int, grid: int) -> tuple[float, float, float, list[int]]:
    """(loss, spread, fast share, fast SMs) of one probed launch ([smid, start, end, producer end] per CTA)."""
    per_tile, sms = [], []
    for b, cta in enumerate(run):
        count = len(range(b, tiles, grid))
        if count:
            per_tile.append((cta[2] - cta[1]) / count)
            sms.append(cta[0])
    mean = statistics.fmean(per_tile)
    fair = math.ceil(tiles / grid) * mean
    fast = sorted(s for s, t in zip(sms, per_tile) if t < FAST * mean)
    return max(c[2] for c in run) / fair - 1.0, max(per_tile) / min(per_tile) - 1.0, len(fast) / len(per_tile), fast


def rows(path: pathlib.Path):
    for line in _jsonl.lines(path):
        r = json.loads(line)
        if not r.get("cta_probe"):
            continue
        kn = r["kernel"]
        tiles = math.ceil(r["m"] / kn["bm"]) * math.ceil(r["n"] / kn["bn"])
        stats = [launch_stats(run, tiles, kn["grid_ctas"]) for run in r["cta_probe"]]
        yield r, stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="probe JSONL files (default: data/ncu/*/*probe*.jsonl, stored plain, "
                                             ".xz or .gz)")
    ap.add_argument("--sms", action="store_true", help="print the fast CTAs' SM ids of each row's first launch")
    a = ap.parse_args(argv)
    files = [pathlib.Path(f) for f in a.files] or [pathlib.Path(f) for f in
                                                    sorted(glob.glob(str(ROOT / "data/ncu/*/*probe*.jsonl"))
                                                           + glob.glob(str(ROOT / "data/ncu/*/*probe*.jsonl.gz"))
                                                           + glob.glob(str(ROOT / "data/ncu/*/*probe*.jsonl.xz")))]
    for f in files:
        try:
            found = list(rows(f))
        except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
            print(f"{f}: cannot read the probe records ({exc.__class__.__name__}: {exc})", file=sys.stderr)
            return 2
        if not found:
            continue
        print(f"{f.relative_to(ROOT) if f.is_absolute() and ROOT in f.parents else f}")
        for r, stats in found:
            med = [statistics.median(s[i] for s in stats) for i in range(3)]
            clock = r.get("time", {}).get("kernel_mhz_median") or 0
            line = (f"  {r['config_name'][:58]:58s} {r['shape']:>16s}  loss {med[0]:+.3f}  spread {med[1]:.3f}  "
                    f"fast {med[2]:.2f}  {r['time']['tflops']:7.1f} TFLOP/s at {clock:.0f} MHz")
            print(line + (f"  fast SMs {stats[0][3]}" if a.sms else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
