"""`perfmodel calibrate`: measure hardware parameters on the local GPU (`--microbench`, sm_90a, standard
library only: the driver is perfmodel.microbench) or fit the model's named parameters to a measured
dataset (`--fit`, perfmodel.calibration.fit: pandas/simpy, imported only then). Either can write its values
into a hardware TOML (`--apply`)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ..errors import PerfmodelError
from .outputs import writable_file
from ..microbench.suite import add_arguments as add_microbench_arguments
from ..microbench.suite import run as run_microbench

NAME = "calibrate"
HELP = ("measure hardware parameters with microbenchmarks (--microbench) or fit the model's named "
        "parameters to a measured dataset (--fit), and update a hardware file")
_APPLY_TO_SPEC = "\0spec"   # `--apply` without a path: the hardware file of --gpu (fit only)


def add_arguments(p):
    p.add_argument("--microbench", action="store_true",
                   help="build and run the sm_90a microbenchmarks on the local GPU (needs nvcc)")
    add_microbench_arguments(p)
    # --apply is the microbenchmarks' option (a TOML path); with --fit the path may be left out
    for action in p._actions:
        if "--apply" in action.option_strings:
            action.nargs, action.const = "?", _APPLY_TO_SPEC
            action.help = ("write the values into this hardware file (with --fit the path may be left out: "
                           "the file of --gpu)")
    g = p.add_argument_group("fit (perfmodel.calibration.fit)")
    g.add_argument("--fit", action="store_true",
                   help="fit the named model parameters on the calibration shapes of --dataset; report the "
                        "held-out shapes before and after")
    g.add_argument("--dataset", help="measurement JSONL (e.g. data/measurements/h100_sm90_dataset.jsonl)")
    g.add_argument("--clock-dataset", metavar="FILE",
                   help="long-loop clock runs (e.g. data/measurements/h100_sm90_clock.jsonl): their measured SM "
                        "clocks join the loss, to pin the power-limited clock")
    g.add_argument("--gpu", help="hardware spec to fit (default: the dataset header's)")
    g.add_argument("--params", help="comma-separated subset of the fitted keys (default: all of "
                                    "perfmodel.calibration.fit.SM90_PARAMETERS)")
    g.add_argument("--rounds", type=int, default=2, help="coordinate-descent rounds per start (default 2)")
    g.add_argument("--jobs", type=int, default=2, help="parallel processes for the search starts (default 2)")
    g.add_argument("--json", action="store_true", help="machine-readable result (--fit)")


def run(args) -> int:
    if args.fit and args.microbench:
        raise PerfmodelError("--fit and --microbench are separate steps: pass one of them")
    if args.fit:
        return _run_fit(args)
    if not args.microbench:
        raise PerfmodelError("nothing to calibrate: pass --microbench or --fit")
    if args.apply == _APPLY_TO_SPEC:
        raise PerfmodelError("--microbench --apply needs the hardware file's path")
    return run_microbench(args, shlex.join(["perfmodel", *sys.argv[1:]]))


def _run_fit(args) -> int:
    """Fit, print before/after on the calibration and held-out shapes, optionally write the TOML."""
    import json

    from ..calibration import fit as cal          # pandas/simpy: imported only on the --fit path
    from ..hardware import load_hardware
    if not args.dataset:
        raise PerfmodelError("--fit needs --dataset FILE (a measurement JSONL)")
    if args.rounds < 1 or args.jobs < 1:
        raise PerfmodelError("--rounds and --jobs must be >= 1")
    frame, spec = cal.load(args.dataset)
    hw = load_hardware(args.gpu or spec)
    params = cal.select_parameters(args.params)
    if args.apply is not None:   # the file the fit will be written to: refused now, not after the fit
        target = hw.path if args.apply == _APPLY_TO_SPEC else args.apply
        if not Path(target).is_file():
            raise PerfmodelError(f"--apply {target}: no such hardware file")
        cal.check_fittable(load_hardware(target), params)
        writable_file(target, "--apply")
    before, _ = cal.evaluate_split(frame, hw)
    calib, _held = cal.split(frame)
    progress = None if args.json else (lambda line: print(f"  {line}", flush=True))
    clocks = cal.clock_frame(args.clock_dataset) if args.clock_dataset else None
    result = cal.fit(calib, hw, params, rounds=args.rounds, jobs=args.jobs, clocks=clocks, progress=progress)
    after, _ = cal.evaluate_split(frame, hw.with_values(**result.values))
    written = {}
    if args.apply is not None:
        path = hw.path if args.apply == _APPLY_TO_SPEC else args.apply
        written = cal.apply_fit(path, result, args.dataset, clock_dataset=args.clock_dataset)
    if args.json:
        print(json.dumps({"gpu": hw.name, "dataset": args.dataset, "values": result.values,
                          "before_values": result.before, "loss_before": result.loss_before,
                          "loss_after": result.loss_after, "evaluations": result.evaluations,
                          "calibration_shapes": list(cal.CALIBRATION_SHAPES),
                          "before": cal.figures_dict(before), "after": cal.figures_dict(after),
                          "written": {k: v[0] for k, v in written.items()}}, indent=2))
        return 0
    print(f"fit {hw.name} on {args.dataset}: calibration shapes {', '.join(cal.CALIBRATION_SHAPES)}")
    print(f"{'parameter':<44} {'before':>10} {'fitted':>10}")
    for key, value in result.values.items():
        print(f"{key:<44} {result.before[key]:>10.4g} {value:>10.4g}")
    what = "mean |log(pred/meas)| on the calibration split" + (" + clock runs" if clocks is not None else "")
    print(f"{what}: {result.loss_before:.4f} -> {result.loss_after:.4f} ({result.evaluations} evaluations)")
    if clocks is not None:
        print(f"clock runs: mean |log(pred clock/meas clock)| {cal.clock_loss(clocks, hw):.4f} -> "
              f"{cal.clock_loss(clocks, hw.with_values(**result.values)):.4f}")
    for label, figs in (("before", before), ("after", after)):
        for part, acc in (("calibration", figs.calibration), ("held-out", figs.held_out)):
            if acc is not None:
                print(f"{label:<6} {part:<11} " + " | ".join(acc.lines()[1:]))
    if written:
        print(f"wrote {len(written)} values to {hw.path if args.apply == _APPLY_TO_SPEC else args.apply}")
    return 0
