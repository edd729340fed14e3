"""`perfmodel tune`: search the legal configuration space with Optuna, the model as the objective."""
from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import os
import sys

from ..config import KernelConfig, derive
from ..errors import PerfmodelError
from ..hardware import Arch, load_hardware
from ..legality import check
from ..interop import exports
from ..interop.triton import export_reason as triton_export_reason
from ..problem import make_problem
from ..search.tuner import SAMPLERS, SearchError, TuneResult, tune
from ..search.space import load_space, parse_override
from ..legality.capacity import require_fits
from .common import add_problem_arguments, require_our_kernel_arch
from .outputs import distinct_paths, writable_file

NAME = "tune"
HELP = "search the legal configuration space for the best predicted configuration (Optuna)"
DEFAULT_STORAGE = "sqlite:///perfmodel.db"
DEFAULT_TRIALS = 100
DEFAULT_MEASUREMENTS = "perfmodel_measurements.jsonl"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_problem_arguments(p)
    p.add_argument("--trials", type=int, default=None, help="new complete trials to run (default 100, or as many "
                   "as --target needs); illegal and repeated suggestions do not count. With --sampler auto the "
                   "model's optimum is found first whatever --trials (a large space: seconds to minutes, with "
                   "progress lines on stderr)")
    p.add_argument("--target", type=int, metavar="N", help="stop once the study holds N complete trials "
                   "(all workers together): rerunning after a kill finishes the same study; alone, a run "
                   "keeps going until then (with --trials, whichever comes first)")
    p.add_argument("--storage", help=f"Optuna storage URL (default: $OPTUNA_STORAGE, else {DEFAULT_STORAGE}); "
                   "postgresql://... shares one study between machines; 'memory' keeps nothing")
    p.add_argument("--study", help="study name (default <gpu>.<MxNxK>.<dtype>.pred)")
    p.add_argument("--sampler", choices=SAMPLERS, default="auto", help="search strategy: auto (default: the model's "
                   "optimum whatever the seed: a small legal space predicted whole, a large one searched by branch "
                   "and bound over groups with an upper bound; then the best configurations not yet in the study "
                   "are recorded), tpe / random / cmaes (Optuna samplers), grid (every legal configuration)")
    p.add_argument("--seed", type=int, help="sampler seed")
    p.add_argument("--top", type=int, default=10, metavar="K", help="configurations to list (default 10)")
    p.add_argument("--space", metavar="FILE", help="search-space TOML (default configs/search/<arch>.toml)")
    p.add_argument("--set", action="append", default=[], metavar="KNOB=V1,V2",
                   help="narrow one knob of the space, e.g. --set stages=3,4 --set cluster=1x1,2x1")
    p.add_argument("--our-kernel", action="store_true",
                   help="search only what perfmodel's own sm_90a kernel builds (its kernel-* rules too)")
    p.add_argument("--validate-top", type=int, default=0, metavar="K",
                   help="search what our sm_90a kernel builds (implies --our-kernel), run the top K structurally distinct ones on this machine's GPU; compare with the predictions")
    p.add_argument("--baseline", action="append", default=[], metavar="CONFIG",
                   help="with --validate-top: also time this configuration (a canonical name, e.g. the one in use or "
                        "the best known) in the same run, before the top K, and report the best of the top K over "
                        "it (one thermal state for both; repeatable)")
    p.add_argument("--measurements", default=None, metavar="FILE",
                   help=f"JSONL dataset the --validate-top runs append to (reruns reuse it; default "
                        f"{DEFAULT_MEASUREMENTS})")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: when stderr is a terminal)")
    p.add_argument("--grace-period", type=int, default=60, metavar="S",
                   help="seconds without a heartbeat after which a dead worker's RUNNING trial is failed")
    p.add_argument("--clock", default="sustained", metavar="boost|short|sustained|MHZ",
                   help="the SM clock the predictions are for (as in predict): sustained (default), short, boost, or "
                        "MHz; "
                        "a study holds one clock regime (non-default ones add it to the study name)")
    p.add_argument("--cache", action=argparse.BooleanOptionalAction, default=True,
                   help="reuse and record the model-optimum search's predictions (default on: a killed or repeated "
                        "search does not predict a configuration twice; one file per problem, GPU, clock and model "
                        "version under $PERFMODEL_PREDICTION_CACHE_DIR, default ~/.cache/perfmodel/predictions)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _storage(arg: str | None) -> str | None:
    url = arg or os.environ.get("OPTUNA_STORAGE") or DEFAULT_STORAGE
    return None if url in ("memory", ":memory:") else url


def run(args) -> int:
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    from ..sim.clock import parse_clock
    clock = parse_clock(args.clock)    # a bad --clock is a usage error before anything else
    trials = _trials(args)
    if args.top < 1:
        raise SearchError("--top must be >= 1")
    if args.seed is not None and not 0 <= args.seed < 2 ** 32:
        raise SearchError(f"--seed {args.seed}: must be in 0 .. 2^32-1 (the samplers' numpy seed range)")
    hw = load_hardware(args.gpu)
    problem = make_problem(args.problem, args.dtype, sparse=args.sparse, a_major=args.a_major,
                           b_major=args.b_major)
    require_fits(problem, hw)   # no configuration runs it: refuse before searching
    from ..prediction.predict import check_clock
    check_clock(clock, hw)      # a clock no setting reaches: refused now, not by every prediction of the search
    if args.our_kernel or args.validate_top:
        require_our_kernel_arch(hw, "--our-kernel / --validate-top")
    if args.measurements is not None and not args.validate_top:
        raise SearchError("--measurements is where --validate-top appends its runs: give --validate-top K too")
    if args.baseline and not args.validate_top:
        raise SearchError("--baseline is timed beside the top K of --validate-top: give --validate-top K (K >= 1) too")
    baselines = [_baseline(name, problem, hw) for name in args.baseline]
    if getattr(args, "kernel", "ours") == "cublaslt":
        raise SearchError("cuBLASLt's algorithms are ranked by `perfmodel rank-cublaslt MxNxK` (its configurations "
                          "are the library's, not a search space)")
    if getattr(args, "kernel", "ours") != "ours":
        return _tune_triton(args, hw, problem, clock)
    args.measurements = args.measurements or DEFAULT_MEASUREMENTS
    if args.validate_top:   # fail before a long search, not after it
        from ..search.validate_top import local_runner
        writable_file(args.measurements, "--measurements", create_dirs=True)
        url = _storage(args.storage) or ""
        if url.startswith("sqlite:///"):
            distinct_paths({"--measurements": args.measurements, "--storage": url[len("sqlite:///"):]})
        local_runner(hw.name, args.measurements)
    space = load_space(args.space) if args.space else load_space(hw.arch)
    if args.set:
        overrides = [parse_override(s) for s in args.set]
        names = [n for n, _ in overrides]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise SearchError(f"--set {', '.join(dup)} given more than once: list every value in one "
                              f"(e.g. --set {dup[0]}=3,4)")
        space = space.narrow(dict(overrides))
    kernel_rules = args.our_kernel or bool(args.validate_top)
    refused = _problem_violations(problem, hw, kernel_rules)
    if refused:   # every point of any space would be illegal: say so now, not after 1000 suggestions
        return _print_refused(args, problem, hw, refused)
    storage = _storage(args.storage)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    result = tune(problem, hw, n_trials=trials, target_trials=args.target, storage=storage,
                  study_name=args.study, sampler=args.sampler, seed=args.seed, space=space,
                  show_progress_bar=progress, grace_period_s=max(1, args.grace_period),
                  heartbeat_interval_s=max(1, min(10, args.grace_period // 3)),
                  kernel_rules=kernel_rules, clock=clock,   # with --validate-top: only what our kernel builds
                  search_progress=_throttled_progress(),   # stderr: --json's stdout stays one document
                  prediction_cache=args.cache)
    validation = None
    if args.validate_top:
        from ..search.validate_top import validate_top
        validation = validate_top(result, args.validate_top, measurements_path=args.measurements,
                                  baselines=baselines)
    doc = _document(result, storage, args.top, validation, clock)
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        _print(doc)
    return 0 if doc["top"] else 1   # no legal configuration found: exit 1, as for an illegal one


def _baseline(name: str, problem, hw):
    """A --baseline configuration: a canonical name our kernel builds for this problem (checked before the search)."""
    try:
        cfg = KernelConfig.from_name(name.strip())
    except (PerfmodelError, ValueError) as exc:
        raise SearchError(f"--baseline '{name}': not a configuration name ({exc})") from None
    bad = check(problem, cfg, hw, kernel_rules=True)
    if bad:
        raise SearchError(f"--baseline {cfg.name}: cannot run on {problem.shape_name()} with our kernel: {bad[0]}")
    return cfg


# Rules that refuse the problem itself on this GPU (its types, accumulator, scales, layouts, and the
# row strides of A and B, which our kernel always loads by TMA), whatever the configuration: a search
# could only find illegal points. (D's stride matters only to a TMA-store epilogue: not listed.)
PROBLEM_RULES = ("kind-arch", "acc-dtype", "scale-type", "scale-vec", "wgmma-major", "tcgen05-transpose")


def _problem_violations(problem, hw, kernel_rules: bool) -> list:
    """The PROBLEM_RULES (and with ``kernel_rules`` our kernel's type restrictions) that the problem's
    default configuration breaks; they do not depend on the configuration."""
    try:
        cfg = derive(problem, hw).config
    except PerfmodelError:
        return []
    rules = PROBLEM_RULES + (("kernel-sm90-types",) if kernel_rules else ())
    return [v for v in check(problem, cfg, hw, kernel_rules=kernel_rules) if v.rule in rules
            or (v.rule == "tma-global-stride" and v.reason.startswith(("A ", "B ")))]   # loaded by TMA in any config


def _print_refused(args, problem, hw, violations) -> int:
    if args.json:
        print(json.dumps({"gpu": hw.name, "problem": problem.shape_name(), "dtype": args.dtype, "legal": False,
                          "violations": [{"rule": v.rule, "reason": v.reason, "ptx_section": v.ptx_section}
                                         for v in violations]}, indent=2))
        return 1
    print(f"problem  {problem.shape_name()} {args.dtype} cannot run on {hw.name} whatever the configuration "
          f"({len(violations)} violation(s)); nothing searched")
    for v in violations:
        print(f"  {v}")
    return 1


def _illegal_rules(result: TuneResult) -> dict[str, int]:
    """How often each rule refused a suggestion of this study (most frequent first)."""
    from collections import Counter
    from optuna.trial import TrialState
    counts = Counter(rule for t in result.study.get_trials(deepcopy=False, states=(TrialState.PRUNED,))
                     for rule in t.user_attrs.get("violations", ()))
    return dict(counts.most_common())


SEARCH_PROGRESS_S = 10.0   # a region search that outlives this says how far it is, every as often


def _throttled_progress():
    """Progress lines of the model-optimum search (a branch and bound over groups can predict tens of thousands
    of configurations, minutes on 2 cores): one line on stderr every SEARCH_PROGRESS_S seconds, none before."""
    import time
    start = last = time.monotonic()

    def say(line: str) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= SEARCH_PROGRESS_S:
            last = now
            print(f"perfmodel: {now - start:.0f} s: {line}", file=sys.stderr, flush=True)
    return say


def _trials(args) -> int:
    """New complete trials this run may add: --trials (default 100); with --target alone, the target
    itself (the study then stops at N complete trials whatever it held before; the tuner also stops
    after 10 x that many suggestions or when the legal space is exhausted)."""
    for flag in ("trials", "target", "validate_top", "grace_period"):
        v = getattr(args, flag)
        if v is not None and v < 0:
            raise SearchError(f"--{flag.replace('_', '-')} must be >= 0")
    if args.trials == 0:
        raise SearchError("--trials 0: no trial would run (give at least 1)")
    if args.trials is not None:
        return args.trials
    return args.target if args.target is not None else DEFAULT_TRIALS


def _tune_triton(args, hw, problem, clock=None) -> int:
    """A Triton family: its space (configs/search/triton.toml, a few hundred points) is predicted whole,
    so the best is the model's optimum whatever the seed; prints triton.Config objects to paste."""
    import math
    from ..interop.triton import config_text, load_space as load_triton_space, rank
    if hw.arch is not Arch.SM90A:
        raise SearchError(f"the {args.kernel} family is modelled on sm_90a only ({hw.name} is {hw.arch.value})")
    if args.validate_top or args.our_kernel or args.set:
        raise SearchError("--validate-top, --our-kernel and --set apply to --kernel ours only")
    ignored = [f for f, v in (("--trials", args.trials), ("--target", args.target), ("--storage", args.storage),
                              ("--study", args.study), ("--seed", args.seed)) if v is not None]
    if args.sampler != "auto":
        ignored.append("--sampler")
    if ignored:
        raise SearchError(f"{', '.join(ignored)}: the {args.kernel} family's space is predicted whole (no study, no "
                          f"sampler); drop them")
    knobs = load_triton_space(args.space)
    df = rank(knobs, problem.m, problem.n, problem.k, gpu=hw, dtype=args.dtype, kernel=args.kernel, clock=clock)
    legal = df[df["pred_ms"].apply(math.isfinite)]
    top = legal.head(args.top)
    rows = [{"rank": i + 1, "pred_ms": float(r.pred_ms), "pred_tflops": float(r.pred_tflops),
             "bottleneck": r.bottleneck, "triton_config": config_text(r.config),
             "kwargs": {"BLOCK_M": int(r.BLOCK_M), "BLOCK_N": int(r.BLOCK_N), "BLOCK_K": int(r.BLOCK_K),
                        "GROUP_M": int(r.GROUP_M)}, "num_warps": int(r.num_warps), "num_stages": int(r.num_stages)}
            for i, r in enumerate(top.itertuples())]
    doc = {"gpu": hw.name, "problem": problem.shape_name(), "dtype": args.dtype, "kernel": args.kernel,
           "space_points": len(df), "legal": len(legal), "search": "exhaustive", "top": rows}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0 if rows else 1
    print(f"kernel   {args.kernel} on {hw.name}, {problem.shape_name()} {args.dtype}: every one of {len(df)} "
          f"configurations predicted ({len(legal)} legal)")
    print(f"{'rank':>4} {'TFLOP/s':>9} {'ms':>9}  {'bound':<12} triton.Config")
    for r in rows:
        print(f"{r['rank']:>4} {r['pred_tflops']:>9.1f} {r['pred_ms']:>9.4f}  {r['bottleneck']:<12} {r['triton_config']}")
    return 0 if rows else 1


def _plain(obj):
    if isinstance(obj, enum.Enum):
        return obj.value
    if dataclasses.is_dataclass(obj):
        return {k: _plain(v) for k, v in dataclasses.asdict(obj).items()}
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


def config_dict(cfg: KernelConfig) -> dict:
    return {"name": cfg.name, **{f.name: _plain(getattr(cfg, f.name)) for f in dataclasses.fields(cfg)}}


def _caveat_keys(problem, hw, name: str, clock) -> list[str]:
    """The caveats `predict` prints beside this configuration (prediction/caveats.py: regions where the committed
    data show the model misses, with how far), as keys; none where it cannot be predicted."""
    from ..prediction.predict import predict
    try:
        return [c.key for c in predict(problem, KernelConfig.from_name(name), hw, clock=clock).caveats]
    except PerfmodelError:
        return []


def _document(result: TuneResult, storage: str | None, k: int, validation, clock=None) -> dict:
    s = result.stats
    doc = {"study": result.study.study_name, "storage": storage or "memory", "gpu": result.hw.name,
           "clock": result.study.user_attrs.get("clock", "sustained"),
           "problem": result.problem.shape_name(), "space": {"path": result.space.path,
           "fingerprint": result.space.fingerprint(), "points": result.space.size(),
           "searched": [k_.name for k_ in result.space.searched]},
           "stats": dataclasses.asdict(s), "study_complete_trials": len(result.complete_trials()),
           "top": [dict(dataclasses.asdict(r), caveats=_caveat_keys(result.problem, result.hw, r.config_name, clock))
                   for r in result.top(k)]}
    if not doc["top"]:
        doc["illegal_rules"] = _illegal_rules(result)
    if doc["top"]:
        best = result.best_config
        doc["best"] = {"tflops": doc["top"][0]["tflops"], "config": config_dict(best)}
        doc["exports"] = exports(result.problem, best, result.hw)
        doc["triton_why_not"] = triton_export_reason(result.problem, best, result.hw)
        doc["kernel_sm90_why_not"] = _kernel_export_reason(result.problem, best, result.hw, doc["exports"])
    if validation is not None:
        doc["validation"] = validation
    return doc


def _kernel_export_reason(problem, cfg: KernelConfig, hw, ex: dict) -> str:
    """Why our sm_90a kernel has no variant for the best configuration ("" where it has one): the first rule
    it breaks (a search without --our-kernel ranks what the PTX allows, which our kernel may not build)."""
    if ex.get("kernel_sm90"):
        return ""
    if hw.arch is not Arch.SM90A:
        return "no variant for this GPU: our kernel is sm_90a"
    from ..legality import check
    found = check(problem, cfg, hw)
    if not found:
        return "no variant for this GPU/type"
    v = found[0]
    return f"not buildable: {v.reason} [{v.rule}]; `tune --our-kernel` searches only what it builds"


def _print(doc: dict) -> None:
    s = doc["stats"]
    print(f"study    {doc['study']}  ({doc['storage']}); predictions at the {doc['clock']} clock")
    sp = doc["space"]
    print(f"space    {sp['path'] or '<given>'}: {len(sp['searched'])} searched knobs, {sp['points']} points"
          + (f", {s['legal_space']} legal" if s["legal_space"] is not None else ""))
    mode = {"exhaustive": f"exhaustive prediction of the legal space ({s.get('predicted', 0)} configurations)",
            "region": f"branch and bound ({s.get('predicted', 0)} configurations predicted in "
                      f"{s.get('groups_searched', 0)} of {s.get('groups', 0)} groups"
                      + (f", then {s.get('refined', 0)} TPE trials" if s.get("refined") else "") + ")"}.get(
        s.get("search", ""), "exhaustive enumeration of the legal space" if s["exhaustive"] else "sampler")
    print(f"run      {s['completed']} new trials in {s['elapsed_s']:.1f} s by {mode} ({s['asked']} trials: "
          f"{s['illegal']} illegal; {s['duplicates']} suggestions already in the study, {s['repaired']} of them "
          f"repaired in place"
          + (f", {s['lost']} lost to a stale-trial check" if s["lost"] else "")
          + (f", {s['errors']} failed in the model" if s["errors"] else "") + f"); {s['stopped']}")
    print(f"study    {doc['study_complete_trials']} complete trials in all")
    if not doc["top"]:
        rules = ", ".join(f"{k} ({n})" for k, n in list(doc.get("illegal_rules", {}).items())[:5])
        print("no legal configuration found: widen the space (--set / --space)"
              + (f"; suggestions refused by {rules}" if rules else ""))
        return
    print(f"\n{'rank':>4} {'TFLOP/s':>9}  {'bottleneck':<14} config")
    for r in doc["top"]:
        flags = f"  caveats: {', '.join(r['caveats'])}" if r.get("caveats") else ""
        print(f"{r['rank']:>4} {r['tflops']:>9.1f}  {r['bottleneck']:<14} {r['config_name']}{flags}")
    if any(r.get("caveats") for r in doc["top"]):
        print("(a caveat marks a region where the committed measurements show the model off; "
              "`perfmodel predict --config NAME` says how far)")
    print("\nbest configuration (JSON):")
    print(json.dumps(doc["best"]["config"], indent=2))
    ex = doc["exports"]
    print("\nexports:")
    if ex["kernel_sm90"]:
        print(f"  our sm_90a kernel   nvcc {' '.join(ex['kernel_sm90']['nvcc_flags'])} {ex['kernel_sm90']['source']}")
    else:
        print(f"  our sm_90a kernel   ({doc.get('kernel_sm90_why_not') or 'no variant for this GPU/type'})")
    c = ex["cutlass"]
    print(f"  CUTLASS             {c['procedural_name']}")
    print(f"                      {c['KernelSchedule']}, {c['EpilogueSchedule']}, {c['TileScheduler']}"
          f" ({c['RasterOrderOptions']}, max_swizzle_size {c['max_swizzle_size']})")
    t = ex["triton"]
    if t:
        print(f"  Triton (triton-tma) {t['text']}")
    else:
        print(f"  Triton (triton-tma) (no equivalent: {doc.get('triton_why_not') or 'see perfmodel check --kernel triton-tma'})")
    if "validation" in doc:
        _print_validation(doc["validation"])


def _print_validation(v: dict) -> None:
    print(f"\nvalidated on {v['device']}: {v['measured']} of {v['asked']} measured "
          f"({v['invalid']} invalid, {v['skipped_unbuildable']} better-predicted ones our kernel cannot build "
          f"skipped); hardware study {v['study']}")
    print(f"{'pred rank':>9} {'pred TFLOP/s':>12} {'meas TFLOP/s':>12}  config")
    for r in v["rows"]:
        meas = f"{r['measured_tflops']:.1f}" if r["measured_tflops"] is not None else r.get("invalidity", "invalid")
        print(f"{r['pred_rank']:>9} {r['pred_tflops']:>12.1f} {meas:>12}  {r['config_name']}")
    if v.get("best"):
        print(f"measured best: {v['best']['config_name']} at {v['best']['measured_tflops']:.1f} TFLOP/s "
              f"(predicted rank {v['best']['pred_rank']}); Spearman {v['spearman']}")
    for b in v.get("baselines", ()):
        meas = f"{b['measured_tflops']:.1f} TFLOP/s" if b["measured_tflops"] is not None else b.get("invalidity")
        print(f"baseline (timed in the same run): {b['config_name']} {meas}")
    if v.get("best_over_baseline") is not None:
        print(f"measured best of the top {v['asked']} / best baseline: {v['best_over_baseline']:.3f}")
