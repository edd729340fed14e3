"""How evenly a pitched column of rows spreads over the HBM channels (mb_pitch --hbm-channel-map, the thirtieth
session), and whether it sorts the bad row pitches of the box-pitch tables.

    python3 benchmarks/hbm_channel_map.py [--data DIR_OR_FILE ...] [--box-rows 128]

The records (`hbm_map_rate`, data/microbench/hbm_channel_map_h100 and _h200): every SM streams R rows x W bytes of an
8 GiB buffer at row pitch P, each line once a launch (256 MiB a launch), in column order (col 1: the lines
r x P + k x 128 of all rows, k-block by k-block, the GEMM's in-step reads) or in row order (col 0: the same bytes in
address order); GB/s is the median of 5 event-timed launches.

1. Per address bit b (P = 2^b): the column and row rates and their ratio. A stride whose column stays on few channels
   streams far below the row order.
2. Per aligned pitch of 16-64 KB: the column rate (mean of the rounds), the row rate, at the GEMM family's good
   (16384, 18432, 32768) and bad (22016, 31744, 33792) pitches; the rounds' agreement.
3. Spearman, over the pitches measured, of the column rate (and of the row rate and the column / row ratio) with the
   box-pitch table's rate at the same pitch (the runs' mean of the CTAs' median bytes a cycle, box_rows-row boxes):
   H100 records against both H100 cards' tables, H200 records against the H200's (the other GPU's as a check); also
   with the pitch partialled out (the rates fall with the pitch); the mean rate at the table's slowest tenth of the
   pitches over the rest's (slow_rest).

Prints numbers; changes no file.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from l2_partition_map import TABLES, _name, read_table, read_text  # noqa: E402

from perfmodel.calibration.stats import partial_spearman, spearman  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.microbench import MicrobenchError  # noqa: E402
from perfmodel.microbench.runner import parse_records  # noqa: E402

DATA = [ROOT / "data/microbench/hbm_channel_map_h100", ROOT / "data/microbench/hbm_channel_map_h200"]
GOOD, BAD = (16384, 18432, 32768), (22016, 31744, 33792)


class Run:
    """One run's records: gpu, bits[(col, b)] -> GB/s, pitch[col][P] -> the rounds' GB/s."""

    def __init__(self, gpu: str, bits: dict[tuple[int, int], float], pitch: dict[int, dict[int, list[float]]]):
        self.gpu, self.bits, self.pitch = gpu, bits, pitch

    def mean(self, col: int) -> dict[int, float]:
        return {p: float(np.mean(v)) for p, v in sorted(self.pitch.get(col, {}).items())}


def read_run(path: Path) -> Run:
    if path.is_dir():
        path = next((p for p in (path / "hbm_channel_map.jsonl.xz", path / "hbm_channel_map.jsonl.gz",
                                 path / "hbm_channel_map.jsonl") if p.exists()), path / "hbm_channel_map.jsonl.gz")
    if not path.exists():
        raise PerfmodelError(f"{_name(path)}: no such file")
    try:
        recs = parse_records(read_text(path))
    except MicrobenchError as e:
        raise PerfmodelError(f"{_name(path)}: {e}") from None
    gpu = next((str(r.get("name", "?")) for r in recs if r.get("bench") == "device"), "?")
    bits: dict[tuple[int, int], float] = {}
    pitch: dict[int, dict[int, list[float]]] = {}
    for r in recs:
        if r.get("bench") != "hbm_map_rate":
            continue
        try:
            kind, p, col, g = str(r["kind"]), int(r["pitch"]), int(r["col"]), float(r["gbps"])
        except (KeyError, TypeError, ValueError) as e:
            raise PerfmodelError(f"{_name(path)}: an hbm_map_rate record is malformed ({e})") from None
        if not (g > 0 and math.isfinite(g)) or p <= 0 or col not in (0, 1):
            raise PerfmodelError(f"{_name(path)}: an hbm_map_rate record has pitch {p}, col {col}, gbps {g}")
        if kind == "bit":
            if p & (p - 1):
                raise PerfmodelError(f"{_name(path)}: a per-bit record's pitch {p} is not a power of two")
            bits[(col, p.bit_length() - 1)] = g
        elif kind == "pitch":
            pitch.setdefault(col, {}).setdefault(p, []).append(g)
    if not bits and not pitch:
        raise PerfmodelError(f"{_name(path)}: no hbm_map_rate records")
    if 1 not in pitch:
        raise PerfmodelError(f"{_name(path)}: no column-order pitch records")
    return Run(gpu, bits, pitch)


def correlations(run: Run, table: dict[int, float]) -> dict[str, float]:
    col, row = run.mean(1), run.mean(0)
    ps = [p for p in col if p in table]
    out = {"n": float(len(ps))}
    if len(ps) < 3:
        return out
    t = [table[p] for p in ps]
    out["col"] = spearman([col[p] for p in ps], t)
    out["col_partial"] = partial_spearman([col[p] for p in ps], t, [float(p) for p in ps])
    slow = sorted(ps, key=lambda p: table[p])[:max(1, len(ps) // 10)]
    rest = [p for p in ps if p not in set(slow)]
    out["col_slow_rest"] = float(np.mean([col[p] for p in slow]) / np.mean([col[p] for p in rest]))
    pr = [p for p in ps if p in row]
    if len(pr) >= 3:
        out["row"] = spearman([row[p] for p in pr], [table[p] for p in pr])
        out["ratio"] = spearman([col[p] / row[p] for p in pr], [table[p] for p in pr])
        rs = [p for p in slow if p in row]
        rr = [p for p in rest if p in row]
        if rs and rr:
            out["row_slow_rest"] = float(np.mean([row[p] for p in rs]) / np.mean([row[p] for p in rr]))
    return out


def report(paths: list[Path], box_rows: int) -> int:
    for path in paths:
        run = read_run(path)
        print(f"== {_name(path)}: {run.gpu}")
        if run.bits:
            print("1. per address bit (P = 2^b): GB/s column order, row order, column / row")
            for b in sorted({b for _, b in run.bits}):
                c, r = run.bits.get((1, b)), run.bits.get((0, b))
                ratio = f"{c / r:6.3f}" if c and r else "     -"
                cs, rs = (f"{v:7.0f}" if v else "      -" for v in (c, r))
                print(f"   b={b:2d} P={1 << b:>10d}  col {cs}  row {rs}  {ratio}")
        col, row = run.mean(1), run.mean(0)
        cv = np.array(list(col.values()))
        print(f"2. {len(col)} pitches {min(col)}..{max(col)} B: column GB/s min {cv.min():.0f} median "
              f"{np.median(cv):.0f} max {cv.max():.0f}", end="")
        if row:
            rv = np.array(list(row.values()))
            print(f"; row ({len(row)}) min {rv.min():.0f} median {np.median(rv):.0f} max {rv.max():.0f}")
        else:
            print()
        rounds = [v for v in run.pitch[1].values() if len(v) >= 2]
        if rounds:
            k = min(len(v) for v in rounds)
            m = np.array([v[:k] for v in rounds])
            agree = [spearman(m[:, i], m[:, j]) for i in range(k) for j in range(i + 1, k)]
            print(f"   rounds: median sd / mean {np.median(m.std(1) / m.mean(1)):.4f}; Spearman between rounds "
                  + ", ".join(f"{a:+.2f}" for a in agree))
        print(f"   column rate against the pitch: Spearman {spearman(list(col.values()), list(col)):+.2f}")
        for name, ps in (("good", GOOD), ("bad", BAD)):
            for p in ps:
                if p in col:
                    rr = f"{row[p]:7.0f}" if p in row else "      -"
                    print(f"   {name:4s} {p:6d}: col {col[p]:7.0f} (rounds "
                          + " ".join(f"{g:.0f}" for g in run.pitch[1][p]) + f")  row {rr}")
        print(f"3. Spearman with the box-pitch tables ({box_rows}-row boxes): col, col with the pitch partialled out, "
              "row, col / row")
        for key, folder in TABLES.items():
            gpu, _, table = read_table(ROOT / folder, box_rows)
            c = correlations(run, table)
            mine = ("H200" in run.gpu) == ("H200" in gpu)
            vals = "  ".join(f"{k} {c[k]:+.3f}" for k in ("col", "col_partial", "row", "ratio") if k in c)
            vals += "".join(f"  {k} {c[k]:.3f}" for k in ("col_slow_rest", "row_slow_rest") if k in c)
            print(f"   {key:6s} ({gpu}{'' if mine else ', the other GPU: a check'}; {int(c['n'])} pitches): {vals}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, nargs="+", default=DATA,
                    help="folders holding hbm_channel_map.jsonl.gz (or .xz), or the files")
    ap.add_argument("--box-rows", type=int, default=128, choices=(64, 128, 256))
    args = ap.parse_args()
    try:
        return report(args.data, args.box_rows)
    except PerfmodelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
