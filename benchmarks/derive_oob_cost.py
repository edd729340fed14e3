"""Derive tma.oob_l2_cost from mb_tma --skinny-oob: the L2 time a zero-fill byte takes against an in-bounds one.

    python3 benchmarks/derive_oob_cost.py [FILE.json ...]
    python3 benchmarks/derive_oob_cost.py --land [FILE.json ...]     # mb_tma --oob-land: the landing table

The records (`tma_skinny_oob`, data/microbench/*-skinny-oob*.json): the walk kernel's skinny ring (a 128-row B box,
4 stages) with a 256- or 128-row A box whose A has fewer rows than the box (the rest zero fill), against the same box
in bounds. With B L2-resident (b_kwrap > 0), no work and >= 96 CTAs streaming, the chip's L2 is the limit: the in-bounds
ring moves R = CTAs x stage bytes / its cycles a k-block, and a ring with z zero-fill bytes of its S stage bytes takes
CTAs x ((S - z) + w z) / R cycles, so w = (cycles x R / CTAs - (S - z)) / z. The median over those points is the
value (configs/hardware/h100-sxm.toml `tma.oob_l2_cost`). Also printed: the same w at fewer CTAs and, on the SMs of one
GPC, what its port allows (in bounds, 12 and 16 SMs; the zero fill's w against that rate).
"""
from __future__ import annotations

import argparse
import glob
import json
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
B_BOX_BYTES = 128 * 128      # the ring's B box: 128 rows of 128 bytes
ROW_BYTES = 128              # the A box's rows (64 bf16)
MIN_CTAS = 96                # from here on the chip's L2 is the limit of the in-bounds ring


def records(paths: list[pathlib.Path], bench: str) -> list[dict]:
    """The ``bench`` records of the files, each with its file's index ("file") and GPU ("gpu": the device record's
    name)."""
    out = []
    for i, p in enumerate(paths):
        recs = json.loads(p.read_text()).get("records", [])
        gpu = next((r.get("name") for r in recs if r.get("bench") == "device"), "?")
        out += [{**r, "file": i, "gpu": gpu} for r in recs if r.get("bench") == bench]
    return out


def weights(recs: list[dict], placed: str | None) -> list[tuple[dict, float, float]]:
    """(record, w, the in-bounds twin's bytes a cycle) of every zero-fill ring with an in-bounds twin (same file:
    the same card and call)."""
    def key(r, rows):
        return (r["file"], r["a_box_rows"], rows, r["ctas"], r["stages"], r["work_cycles"], r.get("placement"))
    twin = {key(r, r["a_tensor_rows"]): r for r in recs if r.get("placement") == placed}
    out = []
    for r in recs:
        if r.get("placement") != placed or r["oob_rows"] == 0 or r["work_cycles"] or r["stages"] != 4:
            continue
        t = twin.get(key(r, r["a_box_rows"]))
        if t is None:
            continue
        stage = r["a_box_rows"] * ROW_BYTES + B_BOX_BYTES
        rate = r["ctas"] * stage / t["cycles_per_kblock"]
        z = r["oob_rows"] * ROW_BYTES
        w = (r["cycles_per_kblock"] * rate / r["ctas"] - (stage - z)) / z
        out.append((r, w, rate))
    return out


WAIT_STAGES = 2     # the latency-bound ring: deeper ones are held by their throughput, their landing by the ring


def wait_points(recs: list[dict]) -> list[tuple[float, float]]:
    """(the grid's zero-fill bytes in a k-block, the landing's growth over the in-bounds twin's, cycles) of every
    2-stage zero-fill ring with B from HBM (as our skinny GEMMs stream it), twins from the same file."""
    twin = {(r["file"], r["a_box_rows"], r["ctas"]): r for r in recs
            if r["oob_rows"] == 0 and r["b_kwrap"] == 0 and r["stages"] == WAIT_STAGES}
    out = []
    for r in recs:
        t = twin.get((r["file"], r["a_box_rows"], r["ctas"]))
        if r["oob_rows"] and r["b_kwrap"] == 0 and r["stages"] == WAIT_STAGES and t is not None:
            out.append((r["oob_rows"] * ROW_BYTES * r["ctas"], r["land_cycles"] - t["land_cycles"]))
    return out


def wait_fit(points: list[tuple[float, float]]) -> tuple[float, float, float]:
    """(cycles per byte, free bytes, rms cycles) of growth = rate x max(0, bytes - free): free on a 10 KB grid up to
    the largest grid's bytes, the rate by least squares at each."""
    best = None
    top = max(z for z, _ in points)
    for free in range(0, int(top), 10_000):
        over = [max(z - free, 0.0) for z, _ in points]
        den = sum(x * x for x in over)
        if den == 0 or sum(1 for x in over if x > 0) < 2:
            continue
        rate = sum(x * g for x, (_, g) in zip(over, points)) / den
        rms = (sum((rate * x - g) ** 2 for x, (_, g) in zip(over, points)) / len(points)) ** 0.5
        if best is None or rms < best[2]:
            best = (rate, float(free), rms)
    return best


def land_table(paths: list[pathlib.Path]) -> int:
    """mb_tma --oob-land: each zero-fill ring's k-block and landing cycles against its in-bounds twin (same box, B
    source, stages and CTAs) at every CTA count, and the landing's growth per zero-fill byte the grid has in a k-block
    (cycles per byte x 1000: a wait that grows with the zero fill the grid requests together would be one number)."""
    recs = records(paths, "tma_oob_land")
    if not recs:
        print("no tma_oob_land records", file=sys.stderr)
        return 2
    for i, p in enumerate(paths):
        pts = wait_points([r for r in recs if r["file"] == i])
        if pts:
            rate, free, rms = wait_fit(pts)
            print(f"{p.name}: {len(pts)} rings, {rate * 1e6:.0f} cycles per MB beyond {free / 1e6:.2f} MB "
                  f"(rms {rms:.0f})")
    for gpu in sorted({r["gpu"] for r in recs}):      # each GPU's runs together: its hardware file's values
        files = {r["file"] for r in recs if r["gpu"] == gpu}
        pts = wait_points([r for r in recs if r["gpu"] == gpu])
        if pts:
            rate, free, rms = wait_fit(pts)
            print(f"{gpu}: the zero fill's wait, {WAIT_STAGES}-stage rings with B from HBM, {len(files)} files "
                  f"({len(pts)} rings): tma.oob_wait_cycles_per_byte = {rate:.3g}, tma.oob_wait_free_bytes = "
                  f"{free:.0f} (rms {rms:.0f} cycles)")
    recs = [r for r in recs if r["file"] == 0]       # the table: the first file
    twin = {(r["a_box_rows"], r["b_kwrap"], r["stages"], r["ctas"]): r for r in recs if r["oob_rows"] == 0}
    rows: dict = {}
    for r in recs:
        rows.setdefault((r["b_kwrap"] == 0, r["a_box_rows"], r["oob_rows"], r["stages"]), []).append(r)
    print("mb_tma --oob-land, no work: per CTA count, cycles a k-block / a stage's landing (in-bounds twin's), and the")
    print("landing's growth per zero-fill byte of the grid's k-block (cycles x 1000)")
    print("  B     box  zero rows  stages  CTAs: cycles/landing (in bounds) growth")
    for (hbm, box, oob, st), rs in sorted(rows.items()):
        if oob == 0:
            continue
        cells = []
        for r in sorted(rs, key=lambda x: x["ctas"]):
            t = twin.get((box, r["b_kwrap"], st, r["ctas"]))
            if t is None:
                continue
            growth = (r["land_cycles"] - t["land_cycles"]) / (oob * ROW_BYTES * r["ctas"]) * 1000
            cells.append(f"{r['ctas']:3d}: {r['cycles_per_kblock']:5.0f}/{r['land_cycles']:5.0f} "
                         f"({t['cycles_per_kblock']:4.0f}/{t['land_cycles']:5.0f}) {growth:+5.2f}")
        print(f"  {'HBM' if hbm else 'L2 '}  {box:3d}  {oob:9d}  {st:6d}  " + " | ".join(cells))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--land", action="store_true",
                    help="the mb_tma --oob-land table instead (default files: data/microbench/*oob-land*.json)")
    ap.add_argument("files", nargs="*", help="microbenchmark JSON files (default: data/microbench/*skinny-oob*.json)")
    a = ap.parse_args(argv)
    pattern = "*oob-land*.json" if a.land else "*skinny-oob*.json"
    paths = [pathlib.Path(f) for f in a.files] or [pathlib.Path(f) for f in
                                                    sorted(glob.glob(str(ROOT / "data/microbench" / pattern)))]
    try:
        if a.land:
            return land_table(paths)
        recs = [r for r in records(paths, "tma_skinny_oob") if r.get("b_kwrap")]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"cannot read the microbenchmark records: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 2
    chip = sorted(weights(recs, None), key=lambda x: (x[0]["a_box_rows"], x[0]["oob_rows"], x[0]["ctas"]))
    if not chip:
        print("no tma_skinny_oob records with B L2-resident", file=sys.stderr)
        return 2
    print("chip-wide (plain grids), B L2-resident, no work, 4 stages")
    print("  box  zero-fill rows  CTAs  cycles/k-block  in-bounds B/clk      w")
    for r, w, rate in chip:
        mark = "" if r["ctas"] >= MIN_CTAS else "   (L2 not yet the limit)"
        print(f"  {r['a_box_rows']:3d}  {r['oob_rows']:14d}  {r['ctas']:4d}  {r['cycles_per_kblock']:14.0f}  {rate:15.0f}  "
              f"{w:5.2f}{mark}")
    used = [w for r, w, _ in chip if r["ctas"] >= MIN_CTAS]
    if used:
        print(f"tma.oob_l2_cost: median of {len(used)} points at >= {MIN_CTAS} CTAs = {statistics.median(used):.2f} "
              f"(range {min(used):.2f}-{max(used):.2f})")
    gpc = weights(recs, "one GPC")
    if gpc:
        print("one GPC (its SMs only), the same rings")
        for r, w, rate in sorted(gpc, key=lambda x: (x[0]["a_box_rows"], x[0]["ctas"])):
            print(f"  {r['a_box_rows']:3d}  {r['oob_rows']:14d}  {r['ctas']:4d}  {r['cycles_per_kblock']:14.0f}  "
                  f"{rate:15.0f}  {w:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
