"""The crowded GPC beside a loaded chip: the tables of mb_tma --gpc-load (issue 8, the twenty-second session).

    python3 benchmarks/gpc_load.py [DIR ...]      # default: data/ncu/gpc_load_h100 data/ncu/gpc_load_h200

The records (`tma_gpc_load`, each run's `gpc_load*.jsonl`): n SMs of one GPC (12: crowded, 4: not) stream a skinny
ring, each its own B rows from HBM, while `load` SMs spread over the other GPCs stream the same ring. Per ring, per n
and load: the median cycles a k-block of the GPC's CTAs and of the loading CTAs, their ratio (above 1: the GPC falls
behind), the chip's B bytes a second, and the bytes a cycle the GPC moves (its SMs x the ring's stage bytes over their
cycles). Why the model holds only a pool's zero fill longer under HBM load (sim/params._memory_shares): on the H100
the all-miss rings keep pace with the loaders once the HBM saturates, the zero-fill rings fall behind.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT = [ROOT / "data/ncu/gpc_load_h100", ROOT / "data/ncu/gpc_load_h200"]
ROW_BYTES = 128          # the rings' box rows (64 bf16)


def read_run(path: pathlib.Path) -> tuple[str, list[dict]]:
    """(GPU name, the tma_gpc_load records) of one run's output: lines 'MB {json}' (mb_tma's records)."""
    gpu, rows = "?", []
    for line in path.read_text().splitlines():
        if not line.startswith("MB "):
            continue
        rec = json.loads(line[3:])
        if rec.get("bench") == "device":
            gpu = rec.get("name", gpu)
        elif rec.get("bench") == "tma_gpc_load":
            rows.append(rec)
    return gpu, rows


def ring_name(r: dict) -> str:
    """The ring in words: its A box (none, in bounds and shared, or partly beyond the edge) and its B box."""
    a_rows, in_bounds = int(r["a_box_rows"]), int(r["a_tensor_rows"])
    a = ("no A box" if a_rows == 0 else f"a shared {a_rows}-row A box" if in_bounds >= a_rows
         else f"a {a_rows}-row A box, {a_rows - in_bounds} rows beyond the edge")
    return f"{int(r['tile_n'])}-row B box, {a}, {int(r['stages'])} stages"


def table(rows: list[dict]) -> list[str]:
    """One line a record, grouped by ring and by the GPC's SMs."""
    out = []
    key = None
    for r in rows:
        k = (ring_name(r), int(r["gpc_sms"]))
        if k != key:
            key = k
            out.append(f"  {k[0]}; {k[1]} SMs of one GPC")
            out.append(f"    {'loading SMs':>11} {'GPC cycles':>10} {'loaders':>8} {'ratio':>6} {'B TB/s':>7} "
                       f"{'GPC B/cycle':>11}")
        stage = (int(r["a_box_rows"]) + int(r["tile_n"])) * ROW_BYTES
        gpc, load = r["gpc_cycles_per_kblock"], r["load_cycles_per_kblock"]
        ratio = f"{gpc / load:6.2f}" if load > 0 else f"{'-':>6}"
        out.append(f"    {int(r['load_sms']):>11} {gpc:>10.0f} {load if load > 0 else float('nan'):>8.0f} {ratio} "
                   f"{r['b_bytes_per_s'] / 1e12:>7.2f} {int(r['gpc_sms']) * stage / gpc:>11.0f}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=pathlib.Path, help="run folders holding gpc_load*.jsonl")
    args = ap.parse_args(argv)
    dirs = args.dirs or DEFAULT
    for d in dirs:
        files = sorted(d.glob("gpc_load*.jsonl")) if d.is_dir() else []
        if not files:
            print(f"gpc_load.py: no gpc_load*.jsonl in {d}", file=sys.stderr)
            return 1
        for f in files:
            try:
                gpu, rows = read_run(f)
            except (OSError, json.JSONDecodeError, KeyError) as exc:
                print(f"gpc_load.py: {f}: unreadable ({exc.__class__.__name__})", file=sys.stderr)
                return 1
            print(f"{f.relative_to(ROOT) if f.is_relative_to(ROOT) else f} ({gpu}, {len(rows)} rings)")
            print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
