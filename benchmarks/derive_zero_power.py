"""Derive clock.zero_operand_power_ratio and clock.b_operand_power_ratio from mb_wgmma --burn-rows with the board power
sampled during each burn (data/ncu/scripts/burn_power.sh).

    python3 benchmarks/derive_zero_power.py [--gpu h100-sxm] [DIR]     # DIR default data/ncu/burn_power_<gpu short>

A run directory holds the burns' records (burn_power.jsonl: the 10 s wgmma m64n256k16 bf16 burn on every SM, A's rows
from ROWS on and B's from BROWS on zero), their wall-clock windows (windows.txt) and nvidia-smi's samples every 100 ms
(smi_samples.csv: time, power.draw, power.draw.instant, clocks.sm, temperature). Each burn's power is the median
power.draw of the samples in the second half of its window (the limiter settled), its clock the burn's in-kernel
median of the last 40% (late_median_kernel_clock_hz).

The power model (perfmodel/sim/power.py) writes the board power at clock f as P / P_cap = (f / f_s)^gamma x ((1 - a) +
a x w) with the hardware file's a (tensor_power_fraction), gamma (power_exponent), f_s (sustained_tensor_hz) and P_cap
(gpu.tdp_w); w is the tensor power per busy cycle, 1 for the plain burn. So each burn gives w = ((P / P_cap) / (f /
f_s)^gamma - (1 - a)) / a, normalised by the plain burns' mean. With za of A's rows and zb of B's non-zero, the law
w = r0 + rB x zb + (1 - r0 - rB) x za x zb (zero rows multiply nothing; B's data alone still toggles the datapath) is
fitted by least squares over the burns with zero rows: r0 (both operands zero) and rB.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import pathlib
import statistics
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _cli import hardware_or_none  # noqa: E402

A_ROWS, B_ROWS = 64, 256       # the burn's wgmma m64n256k16: A 64 rows, B 256 rows
SETTLED_FROM = 0.5             # the share of a burn's window before its power samples count
END_MARGIN_S = 0.3             # samples this close to a window's end are left out (the process exits)
STAMP = "%Y/%m/%d %H:%M:%S.%f"


def _stamp(text: str) -> dt.datetime:
    return dt.datetime.strptime(text.strip()[:26], STAMP)


class RunError(Exception):
    """A run directory that cannot be read as burns (one line for the user)."""


def _records(run: pathlib.Path) -> list[dict]:
    """The program's burn records (lines "MB {json}"; a line cut short by a killed run is passed over)."""
    recs = []
    for line in (run / "burn_power.jsonl").read_text(errors="replace").splitlines():
        line = line.strip().removeprefix("MB ").strip()
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if r.get("bench") == "burn" and "a_rows_nonzero" in r:
            recs.append(r)
    return recs


def _windows(run: pathlib.Path) -> list[tuple[int, int, dt.datetime, dt.datetime]]:
    """(A rows, B rows, start, end) of every burn whose program exited 0, in order."""
    out, start = [], None
    for line in (run / "windows.txt").read_text(errors="replace").splitlines():
        p = line.split()
        try:
            if p[:1] == ["start"]:
                start = (int(p[1]), int(p[2]), _stamp(" ".join(p[3:5])))
            elif p[:1] == ["end"] and start and (int(p[1]), int(p[2])) == start[:2]:
                if p[-1] == "rc=0":
                    out.append((start[0], start[1], start[2], _stamp(" ".join(p[3:5]))))
                start = None
        except (ValueError, IndexError):
            raise RunError(f"{run / 'windows.txt'}: unreadable line {line!r}")
    return out


def burns(run: pathlib.Path) -> list[dict]:
    """One dict a burn: a_rows, b_rows, clock_hz (in-kernel, late median), power_w (median power.draw of its settled
    samples), samples. RunError when a file is missing or the records and windows do not pair up."""
    try:
        recs, windows = _records(run), _windows(run)
        samples = []
        for line in (run / "smi_samples.csv").read_text(errors="replace").splitlines():
            p = [x.strip() for x in line.split(",")]
            try:
                samples.append((_stamp(p[0]), float(p[1])))
            except (ValueError, IndexError):
                continue
    except OSError as exc:
        raise RunError(f"{exc.filename}: {exc.strerror}")
    if len(recs) != len(windows) or any((r["a_rows_nonzero"], r.get("b_rows_nonzero", B_ROWS)) != w[:2]
                                        for r, w in zip(recs, windows)):
        raise RunError(f"{run}: {len(recs)} burn records against {len(windows)} completed windows, or out of order")
    out = []
    for r, (a_rows, b_rows, t0, t1) in zip(recs, windows):
        dur = (t1 - t0).total_seconds()
        lo, hi = t0 + dt.timedelta(seconds=SETTLED_FROM * dur), t1 - dt.timedelta(seconds=END_MARGIN_S)
        watts = [w for t, w in samples if lo <= t <= hi]
        if not watts:
            continue
        out.append({"a_rows": a_rows, "b_rows": b_rows,
                    "clock_hz": float(r["late_median_kernel_clock_hz"] or r["median_kernel_clock_hz"]),
                    "power_w": statistics.median(watts), "samples": len(watts)})
    return out


def weights(rows: list[dict], hw) -> list[tuple[float, float, float]]:
    """(za, zb, w) a burn, w normalised by the plain burns' mean."""
    c = hw.clock
    a, g, fs, cap = c.tensor_power_fraction, c.power_exponent, c.sustained_tensor_hz, hw.gpu.tdp_w
    raw = [(r["a_rows"] / A_ROWS, r["b_rows"] / B_ROWS,
            ((r["power_w"] / cap) / (r["clock_hz"] / fs) ** g - (1.0 - a)) / a) for r in rows]
    plain = [w for za, zb, w in raw if za == 1 and zb == 1]
    if not plain:
        raise RunError("no plain burn (64 A rows, 256 B rows) with power samples in the run")
    ref = statistics.mean(plain)
    return [(za, zb, w / ref) for za, zb, w in raw]


def fit(ws: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """(r0, rB, rms) of w = r0 + rB zb + (1 - r0 - rB) za zb over the burns with zero rows."""
    pts = [(za, zb, w) for za, zb, w in ws if za * zb < 1]
    if len(pts) < 2:
        raise RunError("fewer than two burns with zero rows and power samples in the run")
    x = np.array([[1 - za * zb, zb - za * zb] for za, zb, _ in pts])
    y = np.array([w - za * zb for za, zb, w in pts])
    (r0, rb), *_ = np.linalg.lstsq(x, y, rcond=None)
    model = [r0 + rb * zb + (1 - r0 - rb) * za * zb for za, zb, _ in ws]
    rms = float(np.sqrt(np.mean([(m - w) ** 2 for m, (_, _, w) in zip(model, ws)])))
    return float(r0), float(rb), rms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", default="h100-sxm")
    ap.add_argument("run", nargs="?", help="the run directory (default data/ncu/burn_power_<h100|h200>)")
    args = ap.parse_args()
    hw = hardware_or_none(args.gpu, "derive_zero_power")
    if hw is None:
        return 2
    run = pathlib.Path(args.run) if args.run else ROOT / "data/ncu" / f"burn_power_{args.gpu.split('-')[0]}"
    if not (run / "burn_power.jsonl").is_file():
        print(f"derive_zero_power: no burn_power.jsonl in {run}", file=sys.stderr)
        return 2
    try:
        rows = burns(run)
        ws = weights(rows, hw)
        r0, rb, rms = fit(ws)
    except RunError as exc:
        print(f"derive_zero_power: {exc}", file=sys.stderr)
        return 2
    print(f"{run.relative_to(ROOT) if run.is_relative_to(ROOT) else run} ({hw.name}): {len(rows)} burns")
    print(" A rows  B rows  clock MHz  power W   w     law")
    for r, (za, zb, w) in zip(rows, ws):
        law = r0 + rb * zb + (1 - r0 - rb) * za * zb
        print(f"  {r['a_rows']:4d}  {r['b_rows']:6d}  {r['clock_hz'] / 1e6:8.0f}  {r['power_w']:7.1f}  {w:.3f}  {law:.3f}")
    print(f"clock.zero_operand_power_ratio = {r0:.3f}   clock.b_operand_power_ratio = {rb:.3f}   (rms {rms:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
