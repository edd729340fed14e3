"""`perfmodel validate`: compile, check and time our sm_90a kernel on this machine's GPU.

One configuration (``--problem`` + knobs or ``--config``) or a sweep file (``--sweep``); every
outcome is appended to ``--out`` (JSONL with a header). Standard library only: on a GPU machine
without the rest of perfmodel's dependencies run ``PYTHONPATH=. python3 -m perfmodel.measure ...``.
Exit status: 0 ran (each result, valid or not, is in the file), 1 the one configuration asked for is
illegal, 2 usage error -- including no GPU on this machine (nvidia-smi missing or failing: checked
before anything is compiled or written) and a run that failed outside the kernel (no device, a driver
mismatch): such a run is not recorded, the sweep stops, the rows before it stay, a rerun goes on.
"""
from __future__ import annotations

import argparse
import logging
import sys
import warnings

from ..errors import PerfmodelError, PerfmodelWarning
from ..legality import check
from ..problem import DTYPE_PRESETS
from .common import add_knob_arguments, resolve
from .outputs import writable_file

NAME = "validate"
HELP = "measure our sm_90a kernel on this machine's GPU (checked against cuBLAS) and append to a dataset"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", default=None, help="hardware file the measurements validate; 'auto' picks it from "
                                               "nvidia-smi's GPU name (default: the sweep's, else h100-sxm)")
    p.add_argument("--problem", metavar="MxNxK", help="GEMM shape (with knobs or --config)")
    p.add_argument("--dtype", default="bf16", help=f"operand types: bf16 or fp8 (of {', '.join(DTYPE_PRESETS)})")
    p.add_argument("--sweep", metavar="FILE.toml", help="a sweep file (configs/sweeps/*.toml) instead of --problem")
    p.add_argument("--out", required=True, metavar="FILE.jsonl", help="dataset to append to (created if absent)")
    p.add_argument("--jobs", type=int, help="parallel nvcc processes (default: CPU count)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per run before it is killed")
    p.add_argument("--time-budget", type=float, metavar="S", help="start no new run after S seconds (rerun to resume)")
    p.add_argument("--warmup-ms", type=float, default=30.0, help="warm-up per timed kernel (ms)")
    p.add_argument("--min-ms", type=float, default=100.0, help="timed launches cover at least this long (ms)")
    p.add_argument("--min-reps", type=int, default=20, help="at least this many timed launches")
    p.add_argument("--max-reps", type=int, default=2000,
                   help="at most this many timed launches (raise it for >= 1 s loops of kernels shorter than 0.5 ms)")
    p.add_argument("--cublas-each", action="store_true", help="also time cuBLAS bf16 inside every kernel run")
    p.add_argument("--rounds", type=int, default=1, help="with --cublas-each: alternate kernel and cuBLAS timing "
                                                         "in this many rounds (same thermal state)")
    p.add_argument("--no-cublas", action="store_true", help="skip the per-shape cuBLAS reference rows")
    p.add_argument("--retry-invalid", action="store_true", help="rerun pairs recorded as compile/runtime/timeout")
    p.add_argument("--cache-dir", help="compiled kernels (default: $PERFMODEL_CACHE_DIR or ~/.cache/perfmodel)")
    p.add_argument("--nvcc", default="nvcc", help="nvcc to use")
    p.add_argument("--seed", type=int, help="base seed of the random inputs (default: from the clock)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_knob_arguments(p)
    p.set_defaults(sparse=False, a_major="k", b_major="k")


def run(args) -> int:
    from ..measure import TimingOptions, load_sweep, read_dataset, require_gpu, validate   # stdlib-only package
    from ..measure.api import spec_for_gpu
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, format="%(message)s",
                        stream=sys.stderr)
    if bool(args.sweep) == bool(args.problem):
        raise PerfmodelError("give either --problem (with knobs or --config) or --sweep")
    _check_numbers(args)
    # Everything that can be refused without the GPU is refused first, in this order: the dataset
    # path (and, when resuming, the file itself: a broken one is an error naming its line), the
    # sweep or the configuration, then the GPU (nvidia-smi) -- all before anything is compiled or written.
    out = writable_file(args.out, "--out", create_dirs=True)
    if out.is_file() and out.stat().st_size > 0:
        with warnings.catch_warnings():   # skipped rows are reported once, when the run reads the file
            warnings.simplefilter("ignore", PerfmodelWarning)
            read_dataset(out)
    timing = TimingOptions(warmup_ms=args.warmup_ms, min_ms=args.min_ms, min_reps=args.min_reps,
                           max_reps=args.max_reps, cublas_in_run=args.cublas_each, rounds=args.rounds)
    ident = None
    if args.gpu == "auto":
        ident = require_gpu()
        args.gpu = spec_for_gpu(ident.name)
        if args.gpu is None:
            raise PerfmodelError(f"--gpu auto: no hardware file for the GPU '{ident.name}'; name one with --gpu")
    status = 0
    if args.sweep:
        sweep = load_sweep(args.sweep, args.gpu)
        gpu, pairs = sweep.gpu, list(sweep.pairs)
    else:
        args.gpu = args.gpu or "h100-sxm"
        r = resolve(args)
        violations = check(r.problem, r.config, r.hw)
        for v in violations:
            print(f"  {v}", file=sys.stderr)
        status = 1 if violations else 0
        gpu, pairs = args.gpu, [(r.problem, r.config)]
    ident = ident or require_gpu()
    rows = validate(pairs, args.out, gpu=gpu, jobs=args.jobs, timeout_s=args.timeout, timing=timing,
                    cublas=not args.no_cublas, time_budget_s=args.time_budget, cache_dir=args.cache_dir,
                    nvcc=args.nvcc, seed=args.seed, retry_invalid=args.retry_invalid, identity=ident)
    _summary(rows, args.out)
    return status


def _check_numbers(args) -> None:
    bad = [f for f, v, ok in (("--jobs", args.jobs, args.jobs is None or args.jobs >= 1),
                              ("--timeout", args.timeout, args.timeout > 0),
                              ("--time-budget", args.time_budget, args.time_budget is None or args.time_budget > 0),
                              ("--warmup-ms", args.warmup_ms, args.warmup_ms >= 0),
                              ("--min-ms", args.min_ms, args.min_ms > 0),
                              ("--min-reps", args.min_reps, args.min_reps >= 1),
                              ("--max-reps", args.max_reps, args.max_reps >= 1),
                              ("--rounds", args.rounds, args.rounds >= 1))
           if not ok or (isinstance(v, float) and v != v)]
    if bad:
        raise PerfmodelError(f"{', '.join(bad)}: out of range (jobs, min-reps, max-reps and rounds >= 1; timeout, "
                             f"time-budget and min-ms > 0; warmup-ms >= 0)")


def _summary(rows, out) -> None:
    valid = [r for r in rows if r.valid]
    print(f"{len(rows)} result(s), {len(valid)} valid -> {out}")
    for r in rows[:40]:
        perf = f"{r.tflops:8.1f} TFLOP/s" if r.valid else f"INVALID ({r.invalidity.value}): {r.error[:80]}"
        print(f"  {r.shape_name:<18} {r.dtype:<5} {r.config_name:<70} {perf}")
    if len(rows) > 40:
        print(f"  ... {len(rows) - 40} more in {out}")
