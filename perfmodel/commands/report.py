"""`perfmodel report`: predicted versus measured on a committed dataset (MAPE, p90, Spearman per shape)."""
from __future__ import annotations

import glob
import json
import os

from ..errors import PerfmodelError
from .outputs import distinct_paths, file_key, image_file, writable_file, write_or_fail

NAME = "report"
HELP = "compare the model with a measurement dataset: MAPE, p90 error, Spearman per shape, top-8"


def add_arguments(p):
    p.add_argument("datasets", nargs="*", help="measurement JSONL files (default: data/measurements/*dataset*.jsonl "
                                               "of --gpu's spec)")
    p.add_argument("--gpu", help="hardware spec to predict with (default: the dataset header's)")
    p.add_argument("--clock", default="auto", metavar="auto|measured|boost|short|sustained|MHZ",
                   help="the clock each row is predicted at: auto (default: the regime of the row's timed loop: short "
                        "below 50 ms, else sustained), measured (each row's in-kernel SM clock from the harness's "
                        "clock probe, else its NVML mean SM clock; a row without either falls back to auto), boost, "
                        "short, sustained, or a clock in MHz")
    p.add_argument("--csv", help="write the joined per-point table here")
    p.add_argument("--plot", metavar="FILE.png", help="write a predicted-vs-measured scatter plot here")
    p.add_argument("--published", metavar="FILE.csv",
                   help="score the model on published results with known configurations (data/published/*.csv), each row "
                        "in its timing regime (--clock boost/sustained/MHZ: rows stating no clock at that clock) "
                        "instead of a measurement dataset")
    p.add_argument("--json", action="store_true", help="machine-readable summary")


def run(args) -> int:
    from ..sim.clock import Regime, parse_clock
    clock = parse_clock(args.clock, allow_measured=True)   # a bad --clock is a usage error before any work
    if args.published and (args.datasets or args.csv or args.plot or args.gpu):
        raise PerfmodelError("--published FILE.csv is scored on its own: drop the datasets, --csv, --plot "
                             "and --gpu (they apply to measurement datasets)")
    if args.published and clock.regime is Regime.MEASURED:
        raise PerfmodelError("--clock measured applies to measurement datasets; published rows carry their own "
                             "regime (auto), or give boost, short, sustained or MHz")
    distinct_paths({"--csv": args.csv, "--plot": args.plot},
                   {**{f"input dataset {i + 1}": d for i, d in enumerate(args.datasets)},
                    **({"the --published file": args.published} if args.published else {}),
                    **({"the --gpu hardware file": args.gpu} if args.gpu and os.path.isfile(args.gpu) else {})})
    args.datasets = _distinct_files(args.datasets)   # one file named twice (a link, another spelling) counts once
    if args.csv is not None:        # before any prediction: nothing computed is lost to an unwritable path
        writable_file(args.csv, "--csv")
    if args.plot is not None:
        image_file(args.plot, "--plot")
    if args.published:
        return _published(args, None if clock.regime is Regime.AUTO else clock)
    from ..calibration.report import accuracy, compare, per_shape, plot_pred_vs_measured   # pandas/simpy only here
    if args.gpu is not None:
        from ..hardware import load_hardware
        load_hardware(args.gpu)          # an unknown GPU is named as such, before any dataset is read
    paths = args.datasets or _default_datasets(args.gpu)
    df, hw = compare(paths, args.gpu, clock=clock)
    if not df["pred_tflops"].notna().any():
        raise PerfmodelError(f"none of the {len(df)} rows of {', '.join(paths)} can be predicted on {hw.name} "
                             f"(see the warning above)")
    basis = df["clock_basis"].value_counts().to_dict()
    acc = accuracy(df)
    shapes = per_shape(df)
    if args.csv:
        write_or_fail("--csv", args.csv, lambda: df.to_csv(args.csv, index=False))
    if args.plot:
        write_or_fail("--plot", args.plot, lambda: plot_pred_vs_measured(
            df, args.plot, title=f"{hw.name}: predicted vs measured ({len(df)} points)"))
    by_caveat = _by_caveat(df, accuracy)
    if args.json:
        print(json.dumps({"gpu": hw.name, "datasets": paths, "clock": clock.name, "clock_basis": basis, **acc.__dict__,
                          "by_caveat": {k: (v.__dict__ if v else None) for k, v in by_caveat.items()},
                          "per_shape": shapes.to_dict(orient="records")}, indent=2, default=str))
        return 0
    print(f"model {hw.name} (fingerprint {hw.fingerprint}) vs {', '.join(paths)}; clock: {clock.name} "
          f"({', '.join(f'{n} rows {k}' for k, n in basis.items())})")
    print(f"{'shape':<17} {'dtype':<5} {'n':>3} {'MAPE':>6} {'bias':>7} {'rho':>5} {'meas best':>9} "
          f"{'pred best':>9} {'top8':>6} {'cuBLAS':>7}")
    for r in shapes.itertuples():
        cub = f"{r.cublas_tflops:7.0f}" if r.cublas_tflops == r.cublas_tflops and r.cublas_tflops else "      -"
        print(f"{r.shape:<17} {r.dtype:<5} {r.n:>3} {r.mape:>6.1%} {r.bias:>+7.1%} {r.spearman:>5.2f} "
              f"{r.meas_best:>9.1f} {r.pred_best:>9.1f} {'yes' if r.topk_hit else 'NO':>6} {cub}")
    for line in acc.lines():
        print(line)
    for label, a in by_caveat.items():
        if a is not None:
            print(f"{label}: points {a.points}, MAPE {a.mape:.1%}, p90 APE {a.p90_ape:.1%}, bias {a.bias:+.1%}")
    return 0


def _by_caveat(df, accuracy) -> dict:
    """Accuracy of the points where `predict` states a caveat (prediction/caveats.py) and of the others."""
    ok = df.dropna(subset=["pred_tflops"])
    parts = {"no caveat (predict states none)": ok[ok["caveats"] == ""],
             "with a caveat (predict names a known miss)": ok[ok["caveats"] != ""]}
    return {k: (accuracy(v) if len(v) else None) for k, v in parts.items()}


DEFAULT_DATASETS = "data/measurements/*dataset*.jsonl"


def _distinct_files(paths: list[str]) -> list[str]:
    """The paths, each file once (outputs.file_key: by device and inode where it exists), in the order given."""
    seen, out = set(), []
    for path in paths:
        key = file_key(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


def _default_datasets(gpu: str | None) -> list[str]:
    """The committed datasets of one GPU: those of --gpu's spec, or, without --gpu, of the one spec they all
    share (several: say which to pick)."""
    from ..hardware import load_hardware
    from ..measure import read_dataset
    paths = sorted(glob.glob(DEFAULT_DATASETS))
    if not paths:
        raise PerfmodelError(f"no dataset given and none under {DEFAULT_DATASETS} (run from the repository root "
                             f"or name the files)")
    spec_of = {p: read_dataset(p)[0].gpu_spec for p in paths}
    if gpu:
        name = load_hardware(gpu).name
        mine = [p for p in paths if spec_of[p] == name]
        if not mine:
            raise PerfmodelError(f"no dataset of {name} under {DEFAULT_DATASETS}: name the files to compare with")
        return mine
    specs = sorted(set(spec_of.values()))
    if len(specs) > 1:
        raise PerfmodelError(f"the datasets under {DEFAULT_DATASETS} are of {', '.join(specs)}: pass --gpu "
                             f"({' or '.join(specs)}) or name the files")
    return paths


def _published(args, clock) -> int:
    from ..calibration.published import STEP_TOLERANCE_POINTS, score
    res = score(args.published, clock=clock)
    if args.json:
        print(json.dumps({"file": args.published, "clock": clock.name if clock else "auto",
                          "rows": [{**r.__dict__, "rel_error": r.rel_error} for r in res.rows],
                          "not_expressible": [{"id": i, "reason": w} for i, w in res.skipped],
                          "ladders": [{**l.__dict__, "published_steps": l.published_steps,
                                       "predicted_steps": l.predicted_steps, "meets_goal": l.meets_goal}
                                      for l in res.ladders], "summary": res.lines()},
                         indent=2, default=str))
        return 0
    how = (f"every row without a stated clock at --clock {clock.name}" if clock else
           "each row at its stated clock, else in its timing regime (column regime: boost, or sustained = the "
           "power-limited clock)")
    print(f"published results {args.published}: {how}")
    print(f"{'id':<40} {'gpu':<5} {'shape':<15} {'dtype':<5} {'A/B':<6} {'pub':>6} {'pred':>6} {'err':>7} "
          f"{'MHz':>5}  {'clock':<24} bound")
    for r in res.rows:
        head = f"{r.id:<40} {r.gpu:<5} {r.shape:<15} {r.dtype:<5} {r.majors:<6} {r.published_tflops:>6.0f}"
        if r.error:
            print(f"{head} {'-':>6} {'-':>7} {'-':>5}  {r.clock_basis:<24} cannot predict: {r.error}")
            continue
        print(f"{head} {r.predicted_tflops:>6.0f} {r.rel_error:>+7.1%} {r.clock_mhz:>5.0f}  {r.clock_basis:<24} "
              f"{r.bottleneck}")
    for lad in res.ladders:
        print(f"ladder {lad.ladder}: order {'kept' if lad.same_order else 'NOT kept'}; "
              f"{'meets' if lad.meets_goal else 'misses'} the goal (each step within {STEP_TOLERANCE_POINTS:g} points)")
        print(f"  {'step':<50} {'pub':>6} {'pred':>6} {'pub step':>9} {'pred step':>9} {'points':>7}")
        print(f"  {lad.ids[0]:<50} {lad.published[0]:>6.0f} {lad.predicted[0]:>6.0f}")
        for i, (a, b) in enumerate(zip(lad.ids, lad.ids[1:])):
            print(f"  {a + ' -> ' + b:<50} {lad.published[i + 1]:>6.0f} {lad.predicted[i + 1]:>6.0f} "
                  f"{lad.published_steps[i]:>+8.1f}% {lad.predicted_steps[i]:>+8.1f}% {lad.step_points[i]:>+7.1f}")
    for i, why in res.skipped:
        print(f"not expressible: {i}: {why}")
    for line in res.lines():
        print(line)
    return 0
