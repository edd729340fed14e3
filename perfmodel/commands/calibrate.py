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
# --apply writes a fit only if it lowered its loss (mean |log(pred/meas)|) by more than the timing noise of its rows
# can explain: FIT_TIMING_NOISE / sqrt(rows), FIT_TIMING_NOISE the ~1.5% our timings repeat within (device README).
# A smaller gain means the data do not constrain the values: the search would write wherever it ended.
FIT_TIMING_NOISE = 0.015


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
                   help="fit the named model parameters on the calibration shapes of the committed split "
                        "(--split): the power model (clock.*) on sustained clock runs (--clock-dataset), the "
                        "others on throughput (--dataset); prints the calibration split before and after")
    g.add_argument("--dataset", action="append", default=[], metavar="FILE",
                   help="measurement JSONL (repeatable; e.g. data/measurements/h100_sm90_dataset.jsonl): throughput "
                        "of its calibration-split rows, each in its timed loop's clock regime")
    g.add_argument("--clock-dataset", action="append", default=[], metavar="FILE",
                   help="sustained runs (repeatable; e.g. data/measurements/h100_sm90_clock.jsonl, h100_headline.jsonl): "
                        "the measured SM clocks of their calibration-split rows fit the power model")
    g.add_argument("--power-run", action="append", default=[], metavar="FILE",
                   help="mb_power results (repeatable; data/microbench/*-power.json, python3 -m perfmodel.microbench.power): "
                        "their 6 s phases' board power joins the power model's fit")
    g.add_argument("--gemm-power-run", action="append", default=[], metavar="FILE",
                   help="our GEMM timed in loops of 0.5 s or more with NVML power and the in-kernel clock (repeatable; "
                        "e.g. data/ncu/power_probe2_h100/h100_power_probe2.jsonl): the board power of their "
                        "calibration-split rows at their own clocks joins the power model's fit")
    g.add_argument("--at-kernel-clock", action="store_true",
                   help="fit the throughput (cycle) parameters on the --dataset rows that carry the harness's "
                        "in-kernel clock, each predicted at that clock: the cycle model alone, without the clock "
                        "model's errors")
    g.add_argument("--split", metavar="FILE", help="calibration / held-out split by shape (default "
                                                   "configs/splits/sm90.toml)")
    g.add_argument("--gpu", help="hardware spec to fit (default: the dataset header's)")
    g.add_argument("--params", help="comma-separated subset of the fitted keys (default: all of "
                                    "perfmodel.calibration.fit.SM90_PARAMETERS that the given data can fit)")
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
    """Fit the power model on the sustained clock runs, then the other parameters on throughput (both on the
    calibration split only); print the calibration split before and after; optionally write the TOML."""
    import json

    import pandas as pd

    from ..calibration import fit as cal          # pandas/simpy: imported only on the --fit path
    from ..hardware import load_hardware
    if not args.dataset and not args.clock_dataset:
        raise PerfmodelError("--fit needs --dataset FILE (throughput) and/or --clock-dataset FILE (sustained clocks)")
    if args.rounds < 1 or args.jobs < 1:
        raise PerfmodelError("--rounds and --jobs must be >= 1")
    split = cal.load_split(args.split)
    params = cal.select_parameters(args.params)
    power = tuple(p for p in params if p.key.startswith(cal.POWER_PREFIX))
    cycle = tuple(p for p in params if not p.key.startswith(cal.POWER_PREFIX))
    if args.params is None:     # the default: what the given data can fit
        power, cycle = (power if args.clock_dataset else ()), (cycle if args.dataset else ())
    if power and not args.clock_dataset:
        raise PerfmodelError(f"{', '.join(p.key for p in power)}: the power model is fitted on sustained clock runs "
                             f"only; pass --clock-dataset FILE (e.g. data/measurements/h100_sm90_clock.jsonl)")
    if cycle and not args.dataset:
        raise PerfmodelError(f"{', '.join(p.key for p in cycle)}: fitted on throughput; pass --dataset FILE")
    frame, spec = cal.load(args.dataset) if args.dataset else (pd.DataFrame(), None)
    clocks = cal.clock_frame(args.clock_dataset) if args.clock_dataset else None
    if spec is None:
        spec = cal.load(args.clock_dataset)[1]
    hw = load_hardware(args.gpu or spec)
    if args.apply is not None:   # the file the fit will be written to: refused now, not after the fit
        target = hw.path if args.apply == _APPLY_TO_SPEC else args.apply
        if not Path(target).is_file():
            raise PerfmodelError(f"--apply {target}: no such hardware file")
        target_hw = load_hardware(target)
        if target_hw.name != hw.name:
            raise PerfmodelError(f"--apply {target}: that file describes {target_hw.name}, the fit is of {hw.name} "
                                 f"(its data's GPU or --gpu); write each GPU's fit into its own file")
        cal.check_fittable(target_hw, power + cycle)
        writable_file(target, "--apply")
    calib = cal.split(frame, split)[0] if len(frame) else frame
    tclock = "auto"
    if args.at_kernel_clock:
        if not cycle:
            raise PerfmodelError("--at-kernel-clock fits throughput parameters: pass --dataset and non-clock.* "
                                 "--params")
        calib, tclock = cal.kernel_clock_rows(calib), "measured"
        if calib.empty:
            raise PerfmodelError("--at-kernel-clock: none of the --dataset calibration rows carries an in-kernel clock "
                                 "(kernel_clock_median_hz)")
    clocks_cal = cal.split(clocks, split)[0] if clocks is not None else None
    if args.power_run:
        if not power:
            raise PerfmodelError("--power-run joins the power model's fit: fit clock.* parameters with it")
        clocks_cal = pd.concat([clocks_cal, cal.power_runs(args.power_run)], ignore_index=True)
    if args.gemm_power_run:
        if not power:
            raise PerfmodelError("--gemm-power-run joins the power model's fit: fit clock.* parameters with it")
        clocks_cal = pd.concat([clocks_cal, cal.split(cal.gemm_power_runs(args.gemm_power_run), split)[0]],
                               ignore_index=True)
    progress = None if args.json else (lambda line: print(f"  {line}", flush=True))
    results, fitted = [], hw
    if power:
        results.append(cal.fit(calib.iloc[0:0], fitted, power, rounds=args.rounds, jobs=args.jobs, clocks=clocks_cal,
                               progress=progress))
        fitted = fitted.with_values(**results[-1].values)
    if cycle:
        results.append(cal.fit(calib, fitted, cycle, rounds=args.rounds, jobs=args.jobs, progress=progress,
                               throughput_clock=tclock))
        fitted = fitted.with_values(**results[-1].values)
    values = {k: v for r in results for k, v in r.values.items()}
    before_values = {k: v for r in results for k, v in r.before.items()}
    loss_before = cal._loss(calib, hw, clocks_cal, tclock)
    loss_after = cal._loss(calib, fitted, clocks_cal, tclock)
    before = cal.evaluate_split(calib, hw, split)[0].calibration if len(calib) else None
    after = cal.evaluate_split(calib, fitted, split)[0].calibration if len(calib) else None
    where = f"the calibration split of {_relative(split.path)}"
    command = ("perfmodel calibrate --fit --params " + ",".join(values)
               + (" --at-kernel-clock" if args.at_kernel_clock else ""))
    written, kept = {}, []
    if args.apply is not None:
        path = hw.path if args.apply == _APPLY_TO_SPEC else args.apply
        for r, is_power in zip(results, ([True] if power else []) + ([False] if cycle else [])):
            rows = len(clocks_cal) if is_power else len(calib)
            if not r.loss_before - r.loss_after > FIT_TIMING_NOISE / max(rows, 1) ** 0.5:
                kept.extend(r.values)     # the data do not constrain these values: the file keeps its own
                continue
            written.update(cal.apply_fit(path, r, None if is_power else args.dataset,
                                         clock_dataset=args.clock_dataset if is_power else None, shapes=where,
                                         command=command, power_run=args.power_run if is_power else None))
    clock_before = cal.clock_loss(clocks_cal, hw) if clocks_cal is not None and len(clocks_cal) else None
    clock_after = cal.clock_loss(clocks_cal, fitted) if clocks_cal is not None and len(clocks_cal) else None
    if args.json:
        print(json.dumps({"gpu": hw.name, "dataset": args.dataset, "clock_dataset": args.clock_dataset,
                          "split": split.path, "values": values, "before_values": before_values,
                          "loss_before": loss_before, "loss_after": loss_after,
                          "clock_loss_before": clock_before, "clock_loss_after": clock_after,
                          "evaluations": sum(r.evaluations for r in results),
                          "calibration_shapes": sorted(set(calib["shape"]) if len(calib) else set()
                                                       | (set(clocks_cal["shape"]) if clocks_cal is not None else set())),
                          "before": None if before is None else dict(before.__dict__),
                          "after": None if after is None else dict(after.__dict__),
                          "written": {k: v[0] for k, v in written.items()}, "kept": kept}, indent=2))
        return 0
    print(f"fit {hw.name} on {where}: throughput {', '.join(args.dataset) or '-'}; "
          f"sustained clocks {', '.join(args.clock_dataset) or '-'}")
    print(f"{'parameter':<44} {'before':>10} {'fitted':>10}")
    for key, value in values.items():
        print(f"{key:<44} {before_values[key]:>10.4g} {value:>10.4g}")
    print(f"calibration loss (mean |log(pred/meas)| of throughput + of the sustained clocks): "
          f"{loss_before:.4f} -> {loss_after:.4f}")
    if clock_before is not None:
        print(f"sustained runs, calibration split ({len(clocks_cal)} rows): mean |log(pred clock/meas clock)|"
              f"{' + mean |log(pred power/meas power)| of the mb_power phases' if args.power_run else ''} "
              f"{clock_before:.4f} -> {clock_after:.4f}")
    for label, acc in (("before", before), ("after", after)):
        if acc is not None:
            print(f"{label:<6} calibration " + " | ".join(acc.lines()[1:]))
    print("held-out figures: python3 benchmarks/bench_accuracy.py (not printed here: fits are judged on the "
          "calibration split)")
    if kept:
        print(f"not written: {', '.join(kept)} (the fit lowered the calibration loss by less than the timing noise "
              f"of its rows, {FIT_TIMING_NOISE:.1%} / sqrt(rows): the data do not constrain them, the hardware file "
              f"keeps its values)")
    if written:
        print(f"wrote {len(written)} values to {hw.path if args.apply == _APPLY_TO_SPEC else args.apply}")
    return 0


def _relative(path: str) -> str:
    """configs/... for a file of the configuration directory, else the path as given."""
    from ..hardware import config_dir
    try:
        return "configs/" + str(Path(path).resolve().relative_to(config_dir().resolve()))
    except ValueError:
        return str(path)
