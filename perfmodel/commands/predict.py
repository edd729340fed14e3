"""`perfmodel predict`: simulate a configuration -> throughput, bottleneck, utilisation, stalls, timeline."""
from __future__ import annotations

import json
import math
import os

from ..legality import check
from ..prediction.predict import Prediction, predict
from ..sim.power import below_tensor_ceiling
from .common import add_knob_arguments, add_problem_arguments, resolve
from .outputs import distinct_paths, image_file, writable_file, write_or_fail

NAME = "predict"
HELP = "predict throughput, bottleneck and timeline of a configuration (SimPy model + analytic baseline)"


def add_arguments(p):
    add_problem_arguments(p)
    add_knob_arguments(p)
    p.add_argument("--clock", default="sustained", metavar="boost|short|sustained|MHZ",
                   help="the SM clock the prediction is for: sustained (default; the power-limited clock: what "
                        "loops of 100 ms or more and training jobs see), short (a loop within the first ~40 ms of "
                        "load after idle, where the limiter allows ~1.2x its cap: heavy kernels below boost, light "
                        "ones at boost), boost (the boost clock itself), or a locked clock in MHz")
    p.add_argument("--timeline", metavar="FILE.png", help="write a Gantt chart of one SM over the first tiles")
    p.add_argument("--trace", metavar="FILE.json", help="write the same events as a Chrome/Perfetto trace")


def run(args) -> int:
    distinct_paths({"--timeline": args.timeline, "--trace": args.trace},
                   {"the --gpu hardware file": args.gpu} if args.gpu and os.path.isfile(args.gpu) else {})
    if args.timeline is not None:   # before the simulation: a path that cannot be written fails now, not after
        image_file(args.timeline, "--timeline")
    if args.trace is not None:
        writable_file(args.trace, "--trace")
    from ..sim.clock import parse_clock
    clock = parse_clock(args.clock)    # a bad --clock is a usage error before anything else
    r = resolve(args)
    fam = r.family
    violations = check(r.problem, r.config, r.hw, kernel_rules=fam.restrict_predictions, facts=fam.facts)
    if violations:
        if args.json:
            print(json.dumps({"config": r.config.name, "legal": False, "violations": [
                {"rule": v.rule, "reason": v.reason, "ptx_section": v.ptx_section} for v in violations]}, indent=2))
        else:
            print(f"config   {r.config.name}")
            print(f"ILLEGAL: {len(violations)} violation(s)")
            for v in violations:
                print(f"  {v}")
        return 1
    want_tl = bool(args.timeline or args.trace)
    pred = predict(r.problem, r.config, r.hw, clock=clock, record_timeline=want_tl, family=fam)
    if want_tl and pred.timeline is not None:
        from ..sim.timeline import write_chrome_trace, write_gantt
        title = f"{r.hw.name} {r.problem.shape_name()} {args.dtype}  {r.config.name}"
        if args.timeline:
            write_or_fail("--timeline", args.timeline,
                          lambda: write_gantt(pred.timeline, args.timeline, title=title, clock_hz=pred.clock_hz))
        if args.trace:
            write_or_fail("--trace", args.trace,
                          lambda: write_chrome_trace(pred.timeline, args.trace, clock_hz=pred.clock_hz, title=title))
    if args.json:
        d = pred.to_dict()
        d.update({"dtype": args.dtype, "legal": True, "derived": list(r.derived.notes)})
        print(json.dumps(d, indent=2))
    else:
        _print_text(pred, r, args)
    return 0


def _print_text(p: Prediction, r, args) -> None:
    a = p.analytic
    print(f"gpu        {r.hw.name} ({r.hw.arch.value}), clock {p.clock_hz / 1e6:.0f} MHz ({_clock_words(p, r.hw)})")
    print(f"problem    {r.problem.shape_name()} {args.dtype} (kind::{r.problem.kind.value})")
    print(f"config     {p.config_name}  (kernel {p.family})")
    for note in r.derived.notes:
        print(f"  derived  {note}")
    if p.deadlock:
        print(f"DEADLOCK   {p.reason}")
        print("bottleneck latency (the pipeline cannot make progress)")
        return
    print(f"{'':11}{'simulation':>14}{'analytic':>14}")
    print(f"{'TFLOP/s':11}{p.tflops:>14.1f}{a.tflops:>14.1f}")
    print(f"{'time (us)':11}{p.time_us:>14.2f}{a.time_us:>14.2f}")
    print(f"{'cycles':11}{p.cycles:>14d}{a.cycles:>14d}")
    print(f"{'bound':11}{p.bottleneck.value:>14}{a.bound:>14}")
    d = p.details
    print(f"schedule   {d['tiles_per_cta']} tile(s) per CTA, {d['waves']} wave(s), wave efficiency "
          f"{d['wave_efficiency']:.3f}, {d['k_iters']} k-blocks per tile, L2 reuse: {d['l2_reuse']}"
          + (f" (the CTAs drift apart: each shared K-slab read {d['drift_reads']:.2f}x from HBM, l2.sm_rate_spread)"
             if d.get("drift_reads", 1.0) > 1.0 else ""))
    if d.get("l2_share_gpc_bound"):
        print(f"placement  {d['active_sms']} CTAs crowd {d['gpc_crowd_sms']} SMs of one GPC: its pool of in-flight "
              "loads (gpu.gpc_inflight_bytes, its zero fill held longer under HBM load: tma.pool_queue_share) holds "
              "their L2 share below the chip's")
    print("utilisation " + "  ".join(f"{k} {v * 100:.0f}%" for k, v in p.utilization.items()))
    if "tensor_activity" in d and p.clock_regime in ("sustained", "short"):
        print(_power_words(d))
    total = max(p.cycles, 1)
    print("stalls      " + "  ".join(f"{k} {v} cyc ({v / total * 100:.1f}%)" for k, v in p.stall_cycles.items()))
    print(f"mma        {d['instr_cycles']:.1f} cycles/instruction (math {d['instr_math_cycles']:.1f}, "
          f"shared memory {d['instr_smem_cycles']:.1f})")
    for c in p.caveats:
        print(f"caveat     {c.text}")
    if math.isfinite(p.time_s) and args.timeline:
        print(f"timeline   {args.timeline}")
    if args.trace:
        print(f"trace      {args.trace}")


def _power_words(d) -> str:
    """What sets the power-limited clock (sim/power.py): the chip-wide activities, and the zero fill's lighter tensor
    power where the grid's tiles reach beyond the matrix edge."""
    line = (f"power      activity: tensor cores {d['tensor_activity'] * 100:.0f}%, L2 {d.get('l2_activity', 0.0) * 100:.0f}%, "
            f"HBM {d.get('hbm_activity', 0.0) * 100:.0f}%")
    watts = d.get("board_power_w")
    if watts:
        line += (f"; the power law at {d['power_limited_clock_hz'] / 1e6:.0f} MHz: {sum(watts.values()):.0f} W = "
                 + " + ".join(f"{k} {v:.0f}" for k, v in watts.items())
                 + " (averaged over back-to-back launches, sim/power.py)")
    w = d.get("zero_fill_power_weight", 1.0)
    if w < 1.0:
        a, b, k = d["operand_fill"]
        line += (f"; the tiles' zero fill (in bounds: A rows {a * 100:.0f}%, B rows {b * 100:.0f}%, K {k * 100:.0f}%) "
                 f"draws {w:.2f}x the tensor power a busy cycle (clock.zero_operand_power_ratio, "
                 f"clock.b_operand_power_ratio)")
    return line


def _clock_words(p: Prediction, hw) -> str:
    top = ("boost" if hw.tensor_max_clock_hz >= hw.clock.boost_hz
           else "the tensor cores' clock ceiling, clock.tensor_max_hz")
    if p.clock_regime == "boost":
        return "boost" if top == "boost" else f"boost: {top}"
    limited = below_tensor_ceiling(p.clock_hz, hw)
    if p.clock_regime == "sustained":
        return "sustained: power-limited under the cap" if limited else f"sustained: {top}, under the power cap"
    if p.clock_regime == "short":
        if hw.clock.short_power_ratio is None:
            return f"short: {top} (no short-term power limit measured for this GPU)"
        return ("short: power-limited under the short-term limit" if limited
                else f"short: {top}, under the short-term power limit")
    return "fixed"
