"""`perfmodel report`: predicted versus measured on a committed dataset (MAPE, p90, Spearman per shape)."""
from __future__ import annotations

import glob
import json

from ..errors import PerfmodelError
from .outputs import image_file, writable_file

NAME = "report"
HELP = "compare the model with a measurement dataset: MAPE, p90 error, Spearman per shape, top-8"


def add_arguments(p):
    p.add_argument("datasets", nargs="*", help="measurement JSONL files (default: data/measurements/*dataset*.jsonl)")
    p.add_argument("--gpu", help="hardware spec to predict with (default: the dataset header's)")
    p.add_argument("--clock", default="auto", metavar="auto|measured|boost|sustained|MHZ",
                   help="the clock each row is predicted at: auto (default: the regime of the row's timed loop: boost "
                        "below 50 ms, else sustained), measured (each row's NVML mean SM clock; a row without one "
                        "falls back to auto), boost, sustained, or a clock in MHz")
    p.add_argument("--csv", help="write the joined per-point table here")
    p.add_argument("--plot", metavar="FILE.png", help="write a predicted-vs-measured scatter plot here")
    p.add_argument("--published", metavar="FILE.csv",
                   help="score the model on published results with known configurations (data/published/*.csv) "
                        "instead of a measurement dataset")
    p.add_argument("--json", action="store_true", help="machine-readable summary")


def run(args) -> int:
    from ..sim.clock import parse_clock
    clock = parse_clock(args.clock, allow_measured=True)   # a bad --clock is a usage error before any work
    if args.published and (args.datasets or args.csv or args.plot or args.gpu or args.clock != "auto"):
        raise PerfmodelError("--published FILE.csv is scored on its own: drop the datasets, --csv, --plot, "
                             "--gpu and --clock (they apply to measurement datasets)")
    if args.csv:        # before any prediction: nothing computed is lost to an unwritable path
        writable_file(args.csv, "--csv")
    if args.plot:
        image_file(args.plot, "--plot")
    if args.published:
        return _published(args)
    from ..calibration.report import accuracy, compare, per_shape, plot_pred_vs_measured   # pandas/simpy only here
    paths = args.datasets or sorted(glob.glob("data/measurements/*dataset*.jsonl"))
    if not paths:
        raise PerfmodelError("no dataset given and none under data/measurements/*dataset*.jsonl")
    df, hw = compare(paths, args.gpu, clock=clock)
    basis = df["clock_basis"].value_counts().to_dict()
    acc = accuracy(df)
    shapes = per_shape(df)
    if args.csv:
        df.to_csv(args.csv, index=False)
    if args.plot:
        plot_pred_vs_measured(df, args.plot, title=f"{hw.name}: predicted vs measured ({len(df)} points)")
    if args.json:
        print(json.dumps({"gpu": hw.name, "datasets": paths, "clock": clock.name, "clock_basis": basis, **acc.__dict__,
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
    return 0


def _published(args) -> int:
    from ..calibration.published import score
    res = score(args.published)
    if args.json:
        print(json.dumps({"file": args.published,
                          "rows": [{**r.__dict__, "rel_error": r.rel_error} for r in res.rows],
                          "not_expressible": [{"id": i, "reason": w} for i, w in res.skipped],
                          "ladders": [l.__dict__ for l in res.ladders], "summary": res.lines()},
                         indent=2, default=str))
        return 0
    print(f"published results {args.published}: predicted at the stated clock, else the model's sustained clock")
    print(f"{'id':<28} {'gpu':<6} {'shape':<16} {'dtype':<6} {'pub':>7} {'pred':>7} {'err':>7} {'MHz':>6}  clock")
    for r in res.rows:
        if r.error:
            print(f"{r.id:<28} {r.gpu:<6} {r.shape:<16} {r.dtype:<6} {r.published_tflops:>7.0f} {'-':>7} {'-':>7} "
                  f"{'-':>6}  cannot predict: {r.error}")
            continue
        print(f"{r.id:<28} {r.gpu:<6} {r.shape:<16} {r.dtype:<6} {r.published_tflops:>7.0f} {r.predicted_tflops:>7.0f} "
              f"{r.rel_error:>+7.1%} {r.clock_mhz:>6.0f}  {r.clock_basis}")
    for lad in res.ladders:
        steps = ", ".join(f"{p:+.1f}" for p in lad.step_points)
        print(f"ladder {lad.ladder}: {' -> '.join(lad.ids)}; published {' -> '.join(f'{v:.0f}' for v in lad.published)}; "
              f"predicted {' -> '.join(f'{v:.0f}' for v in lad.predicted)}; order {'kept' if lad.same_order else 'NOT kept'}; "
              f"step ratio error (points) {steps}")
    for i, why in res.skipped:
        print(f"not expressible: {i}: {why}")
    for line in res.lines():
        print(line)
    return 0
