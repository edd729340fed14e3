"""Accuracy of the model on EVERY committed dataset of our sm_90a kernel (data/measurements/*.jsonl), per dataset
and overall, per half of the committed split (configs/splits/sm90.toml), per clock regime.

    python3 benchmarks/bench_accuracy.py                        # every dataset, both halves (unread sets named)
    python3 benchmarks/bench_accuracy.py --read heldout43       # an unread held-out set's one read
    python3 benchmarks/bench_accuracy.py --split calibration    # what model changes and fits may look at
    python3 benchmarks/bench_accuracy.py --per-shape            # also the per-(shape, dtype) table
    python3 benchmarks/bench_accuracy.py --regimes auto,measured,boost

Clock regimes (perfmodel/sim/clock.py): ``auto`` predicts each row in the regime of its timed loop (boost below
50 ms: the 30 ms smoke loops; sustained otherwise: the 100 ms dataset loops, whose heavy kernels are already
power-limited, the 300 ms headline runs and the 1.5 s clock runs); ``measured`` at each row's NVML mean SM
clock (a row without one falls back to ``auto``); ``boost`` / ``sustained`` for every row. Figures: points,
MAPE, median and p90 absolute percentage error, mean signed error (bias), median over (shape, dtype) of
Spearman's rho between predicted and measured TFLOP/s, the (shape, dtype) whose mean signed error is largest
in magnitude, and the share of (shape, dtype) whose predicted top-8 holds a configuration within 2% of the
measured best. Then the sustained clock runs' predicted vs measured SM clock, and which parameters were
fitted on what (their sources in the hardware files). Everything is computed by perfmodel.calibration;
this script only prints.

Held-out sets that are measured but kept unread for a later model change (``[unread] sets`` of the split file) are
left out of every figure and named on the first lines; ``--read TEXT`` includes one of them: its one read, at the end
of the change it judges (docs/calibrate.md).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import pandas as pd  # noqa: E402

from perfmodel.calibration.fit import SM90_PARAMETERS, SUSTAINED_LOOP_S, load_split, split  # noqa: E402
from perfmodel.calibration.report import accuracy, add_predictions, measured_frame, per_shape  # noqa: E402
from perfmodel.hardware import load_hardware  # noqa: E402
from perfmodel.measure import read_dataset  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data" / "measurements"
HW_FILES: dict[str, str] = {}     # --hw SPEC=FILE


def _hw(spec: str):
    return load_hardware(HW_FILES.get(spec, spec))
# Datasets whose header names a spec other than the GPU they ran on, or an older kernel: (spec, why)
OVERRIDES = {"smoke_kernel_v1_h200.jsonl": ("h200", "kernel v1 (slow multicast, superseded); header names "
                                                    "h100-sxm, ran on an H200; not in the totals")}


def _line(label: str, df: pd.DataFrame) -> str:
    ok = df.dropna(subset=["pred_tflops"]) if len(df) else df
    if ok.empty:
        return f"    {label:<12} (no points)"
    a = accuracy(ok)
    return (f"    {label:<12} n={a.points:<4} MAPE {a.mape:5.1%}  median {a.median_ape:5.1%}  p90 {a.p90_ape:5.1%}  "
            f"bias {a.bias:+6.1%}  rho {a.spearman_median:5.2f}  worst |bias| {a.worst_bias:+6.1%} "
            f"({a.worst_bias_shape})  top8 {a.topk_hit_fraction:4.0%}")


def _shape_table(df: pd.DataFrame) -> None:
    print(f"      {'shape':<17} {'dtype':<5} {'n':>3} {'MAPE':>6} {'bias':>7} {'rho':>5} {'meas best':>9} "
          f"{'pred best':>9} {'top8':>5}")
    for r in per_shape(df).itertuples():
        print(f"      {r.shape:<17} {r.dtype:<5} {r.n:>3} {r.mape:>6.1%} {r.bias:>+7.1%} {r.spearman:>5.2f} "
              f"{r.meas_best:>9.1f} {r.pred_best:>9.1f} {'yes' if r.topk_hit else 'NO':>5}")


def unread_sets(sp, read=()) -> tuple[str, ...]:
    """The split's unread held-out sets, but those ``read`` names (their one read)."""
    return tuple(s for s in sp.unread if s not in set(read))


def _datasets(skip=()) -> list[tuple[str, str, str]]:
    """(file, spec, note) of every committed dataset of our kernel, but those whose name contains a ``skip`` text."""
    out = []
    for path in sorted(DATA.glob("*.jsonl")):
        if any(text in path.name for text in skip):
            continue
        header, _ = read_dataset(path)
        spec, note = OVERRIDES.get(path.name, (header.gpu_spec, ""))
        out.append((path.name, spec, note))
    return out


def _loops(frame: pd.DataFrame) -> str:
    loops = frame["meas_loop_s"].dropna()
    return f"loops {loops.median() * 1e3:.0f} ms" if len(loops) else "loops ?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=["all", "calibration", "held_out"], default="all",
                    help="which half to print (model changes may look at 'calibration' only)")
    ap.add_argument("--regimes", default="auto,measured", help="comma-separated clock regimes (default auto,measured)")
    ap.add_argument("--per-shape", action="store_true", help="print the per-(shape, dtype) tables too")
    ap.add_argument("--hw", action="append", default=[], metavar="SPEC=FILE",
                    help="predict SPEC's datasets with this hardware file instead (e.g. an older fit, for before/after)")
    ap.add_argument("--skip", action="append", default=[], metavar="TEXT",
                    help="leave out the datasets whose file name contains TEXT (e.g. heldout3: the older sets alone)")
    ap.add_argument("--read", action="append", default=[], metavar="TEXT",
                    help="include this unread held-out set ([unread] sets of the split file): its one read")
    args = ap.parse_args()
    for item in args.hw:
        spec, _, path = item.partition("=")
        HW_FILES[spec] = path
    sp = load_split()
    unknown = [r for r in args.read if r not in sp.unread]
    if unknown:
        print(f"error: --read {unknown[0]}: not an unread set of {os.path.relpath(sp.path)} "
              f"(unread: {', '.join(sp.unread) or 'none'})", file=sys.stderr)
        raise SystemExit(2)
    unread = unread_sets(sp, args.read)
    skip = list(args.skip) + list(unread)
    halves = ["calibration", "held_out"] if args.split == "all" else [args.split]
    regimes = [r.strip() for r in args.regimes.split(",") if r.strip()]
    print(f"split {os.path.relpath(sp.path)}: {len(sp.calibration)} calibration / {len(sp.held_out)} held-out shapes; "
          f"printing: {', '.join(halves)}; clock regimes: {', '.join(regimes)}")
    if unread:
        held = [p.name for p in sorted(DATA.glob("*.jsonl")) if any(s in p.name for s in unread)]
        print(f"unread held-out sets, left out of every figure (--read TEXT reads one): {', '.join(unread)} "
              f"({', '.join(held)})")
    if args.read:
        print(f"READ: {', '.join(args.read)}, once, for the change it judges")
    t0 = time.perf_counter()
    totals: dict[tuple[str, str, str], list[pd.DataFrame]] = {}
    for name, spec, note in _datasets(skip):
        frame, _ = measured_frame([DATA / name])
        hw = _hw(spec)
        print(f"\n{name} ({frame['gpu_name'].iloc[0]}, predicted as {hw.name}; {len(frame)} valid kernel rows, "
              f"{_loops(frame)}){': ' + note if note else ''}")
        for regime in regimes:
            df = add_predictions(frame, hw, clock=regime)
            basis = ", ".join(f"{n} {k}" for k, n in df["clock_basis"].value_counts().items())
            print(f"  clock {regime} ({basis})")
            parts = dict(zip(("calibration", "held_out"), split(df, sp)))
            for half in halves:
                print(_line(half, parts[half]))
                if args.per_shape and len(parts[half]):
                    _shape_table(parts[half].dropna(subset=["pred_tflops"]))
                if not note:
                    totals.setdefault((hw.name, regime, half), []).append(parts[half])
    print("\noverall (every dataset of the GPU together; a shape measured in several files counts once per file)")
    for (gpu, regime, half), parts in sorted(totals.items()):
        df = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else pd.DataFrame()
        print(f"  {gpu:<9} clock {regime:<9}" + _line(half, df)[4:])
        if regime == "auto" and len(df):   # where predict states a caveat (prediction/caveats.py) and where not
            for label, sub in (("no caveat", df[df["caveats"] == ""]), ("caveat", df[df["caveats"] != ""])):
                print(f"  {'':<9} {'':<15}" + _line(f"  {label}", sub)[4:])
    _goals(totals, halves)
    _clocks(sp, halves, skip)
    _kernel_clocks(totals, halves)
    _sources()
    print(f"\n({time.perf_counter() - t0:.0f} s)")


SKINNY_M = 256          # the bandwidth-bound skinny GEMMs (M <= 256)
SHAPE_BIAS_GOAL = 0.08  # no shape with |bias| above this
SMOKE_GOAL = 0.10       # smoke files: every point within this


def _goals(totals: dict, halves) -> None:
    """The issue-8 goal lines, clock auto: shapes beyond the bias goal, smoke points within 10%, and the H200/H100
    speed-up of skinny GEMMs (M <= 256: the same shape, dtype and configuration measured on both GPUs in
    datasets of the same sweep) against the predicted speed-up."""
    print("\ngoals (clock auto)")
    frames = {}
    for (gpu, regime, half), parts in sorted(totals.items()):
        if regime != "auto" or not any(len(p) for p in parts):
            continue
        df = pd.concat([p for p in parts if len(p)], ignore_index=True).dropna(subset=["pred_tflops"])
        frames[(gpu, half)] = df
        shapes = per_shape(df)
        beyond = shapes[shapes["bias"].abs() > SHAPE_BIAS_GOAL]
        worst = ", ".join(f"{r.shape} {r.dtype} {r.bias:+.0%}" for r in
                          beyond.reindex(beyond["bias"].abs().sort_values(ascending=False).index).head(4).itertuples())
        print(f"  {gpu:<9} {half:<12} shapes with |bias| > {SHAPE_BIAS_GOAL:.0%}: {len(beyond)}/{len(shapes)}"
              f"{' (worst: ' + worst + ')' if worst else ''}")
        smoke = df[df["dataset"].str.contains("smoke")]
        if len(smoke):
            ok = (smoke["rel_err"].abs() <= SMOKE_GOAL).sum()
            print(f"  {gpu:<9} {half:<12} smoke points within {SMOKE_GOAL:.0%}: {ok}/{len(smoke)}")
    for half in halves:
        a, b = frames.get(("h100-sxm", half)), frames.get(("h200", half))
        if a is None or b is None:
            continue
        both = skinny_pairs(a, b)
        if not len(both):
            continue
        meas, err = both["meas_speedup"], both["speedup_err"]
        print(f"  H200/H100 {half:<12} skinny speed-up (M <= {SKINNY_M}, {len(both)} points): measured median "
              f"x{meas.median():.2f}, predicted/measured - 1 median {err.median():+.1%}, within 5%: "
              f"{(err.abs() <= 0.05).sum()}/{len(both)}")


def skinny_pairs(h100: pd.DataFrame, h200: pd.DataFrame) -> pd.DataFrame:
    """The skinny GEMMs (M <= SKINNY_M) measured on both GPUs with the same shape, dtype and configuration in datasets
    of the same sweep (h100_X / h200_X), merged (columns _100 / _200), with the measured and predicted H200/H100
    speed-ups (meas_speedup, pred_speedup) and speedup_err = predicted / measured - 1."""
    key = ["shape", "dtype", "config_name", "sweep"]
    a = h100[h100["m"] <= SKINNY_M].assign(sweep=lambda d: d["dataset"].str.replace("h100_", "", regex=False))
    b = h200[h200["m"] <= SKINNY_M].assign(sweep=lambda d: d["dataset"].str.replace("h200_", "", regex=False))
    both = a.merge(b, on=key, suffixes=("_100", "_200"))
    meas = both["meas_tflops_200"] / both["meas_tflops_100"]
    pred = both["pred_tflops_200"] / both["pred_tflops_100"]
    return both.assign(meas_speedup=meas, pred_speedup=pred, speedup_err=pred / meas - 1)


def _clocks(sp, halves, skip=()) -> None:
    """The sustained runs' predicted power-limited clock against their NVML mean clock."""
    rows = []
    for name, spec, note in _datasets(skip):
        if note:
            continue
        frame, _ = measured_frame([DATA / name])
        frame = frame[(frame["meas_loop_s"] >= SUSTAINED_LOOP_S) & frame["meas_sm_clock_hz"].notna()]
        if len(frame):
            rows.append(add_predictions(frame.reset_index(drop=True), _hw(spec), clock="sustained")
                        .assign(gpu=spec))
    if not rows:
        return
    df = pd.concat(rows, ignore_index=True)
    df["clock_err"] = df["pred_clock_hz"] / df["meas_sm_clock_hz"] - 1
    print(f"\nsustained runs (loops >= {SUSTAINED_LOOP_S * 1e3:.0f} ms): predicted vs NVML SM clock")
    for half, part in zip(("calibration", "held_out"), split(df, sp)):
        if half not in halves:
            continue
        for gpu, g in part.groupby("gpu"):
            e = g["clock_err"]
            print(f"  {gpu:<9} {half:<12} n={len(g):<3} clock MAPE {e.abs().mean():5.1%}  bias {e.mean():+6.1%}  "
                  f"worst {e.loc[e.abs().idxmax()]:+6.1%}  (TFLOP/s MAPE {g['rel_err'].abs().mean():5.1%})")


def _kernel_clocks(totals: dict, halves) -> None:
    """Rows with an in-kernel clock (the harness's clock probe): the clock each is predicted at in its timed loop's
    regime (clock auto) against the clock its kernel ran at, and the cycle model alone (TFLOP/s at that clock: the
    rows' ``measured`` predictions, which take that clock). Reads the predictions the totals already hold."""
    keys = ["dataset", "config_name", "shape", "dtype"]

    def frame(gpu: str, regime: str, half: str) -> pd.DataFrame:
        parts = [p for p in totals.get((gpu, regime, half), []) if len(p)]
        df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=keys + ["meas_kernel_clock_hz"])
        return df[df["meas_kernel_clock_hz"].notna()]

    lines = []
    for half in halves:
        for gpu in sorted({g for g, r, h in totals if r == "auto" and h == half}):
            g = frame(gpu, "auto", half)
            if g.empty:
                continue
            at = frame(gpu, "measured", half)
            c = g[keys].merge(at[keys + ["rel_err"]], on=keys, how="left")["rel_err"] if len(at) else None
            e = g["pred_clock_hz"] / g["meas_kernel_clock_hz"] - 1
            cycles = (f"at the kernel's clock: TFLOP/s MAPE {c.abs().mean():5.1%}  bias {c.mean():+6.1%}"
                      if c is not None else "at the kernel's clock: (run with --regimes auto,measured)")
            lines.append(f"  {gpu:<9} {half:<12} n={len(g):<3} clock MAPE {e.abs().mean():5.1%}  bias {e.mean():+6.1%}  "
                         f"worst {e.loc[e.abs().idxmax()]:+6.1%}  | {cycles}  (auto: {g['rel_err'].abs().mean():5.1%})")
    if lines:
        print("\nin-kernel clocks (rows with the harness's clock probe): predicted clock (auto) vs the kernel's; "
              "TFLOP/s at the kernel's clock (the cycle model alone)")
        print("\n".join(lines))


def _sources() -> None:
    """Which parameters were fitted, on what (their sources in the hardware files)."""
    print("\nfitted parameters and their sources")
    for gpu in ("h100-sxm", "h200"):
        hw = _hw(gpu)
        for key in [p.key for p in SM90_PARAMETERS] + ["clock.hbm_power_w"]:
            sec, _, field = key.partition(".")
            src = hw.source_of(key)
            print(f"  {gpu:<9} {key:<42} {getattr(getattr(hw, sec), field):>8.4g}  {src[:150]}"
                  f"{'...' if len(src) > 150 else ''}")


if __name__ == "__main__":
    main()
