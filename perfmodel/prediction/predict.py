"""`predict`: (problem, configuration, GPU) -> Prediction (throughput, bottleneck, utilisation, stalls).

The simulator (``perfmodel.sim``) runs one representative SM for a bounded window and extrapolates;
the analytic baseline (``perfmodel.analytic``) is reported beside it.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Iterable, Mapping

from .analytic import AnalyticEstimate, analytic_estimate
from .caveats import caveats
from ..config import KernelConfig
from ..errors import IllegalConfigError
from ..hardware import HardwareSpec
from ..legality import check
from ..problem import GemmProblem

if TYPE_CHECKING:
    from ..sim.power import PowerLimits


class Bottleneck(enum.Enum):
    TENSOR_CORE = "tensor_core"
    TMA_HBM = "tma_hbm"
    L2 = "l2"
    SHARED_MEMORY = "shared_memory"
    LATENCY = "latency"
    EPILOGUE = "epilogue"
    WAVE_TAIL = "wave_tail"


UNITS = ("tensor_core", "tma", "smem", "l2", "hbm", "epilogue")
STALLS = ("full_barrier", "empty_barrier", "epilogue")


@dataclass(frozen=True)
class Prediction:
    config_name: str
    gpu: str
    problem: str
    tflops: float
    time_s: float
    cycles: int
    clock_hz: float
    bottleneck: Bottleneck
    utilization: Mapping[str, float]
    stall_cycles: Mapping[str, int]
    analytic: AnalyticEstimate
    deadlock: bool = False
    reason: str = ""
    details: Mapping[str, float] = field(default_factory=dict, compare=False)
    timeline: object = field(default=None, compare=False, repr=False)
    family: str = "ours"             # the kernel family (schedule) predicted
    clock_regime: str = "sustained"  # boost | sustained | fixed (sim/clock.py): what clock_hz is
    caveats: tuple = ()              # prediction/caveats.py: known misses of the region this point lies in

    @property
    def time_us(self) -> float:
        return self.time_s * 1e6

    def to_dict(self) -> dict:
        finite = math.isfinite(self.time_s)
        return {"config": self.config_name, "family": self.family, "gpu": self.gpu, "problem": self.problem,
                "tflops": self.tflops, "time_us": self.time_us if finite else None,
                "time_s": self.time_s if finite else None, "cycles": self.cycles,
                "clock_hz": self.clock_hz, "clock_regime": self.clock_regime, "bottleneck": self.bottleneck.value,
                "utilization": dict(self.utilization), "stall_cycles": dict(self.stall_cycles),
                "analytic": self.analytic.to_dict(), "deadlock": self.deadlock, "reason": self.reason,
                "details": dict(self.details), "caveats": [{"key": c.key, "text": c.text} for c in self.caveats]}


def check_clock(regime, hw: HardwareSpec) -> None:
    """ClockError for a fixed clock above the GPU's boost clock (no setting runs its SMs faster; NVML reads the
    boost clock exactly, 1980 MHz on our H100s, never above, so measured clocks pass)."""
    from ..sim.clock import ClockError, Regime
    if regime.regime is Regime.FIXED and regime.hz > hw.clock.boost_hz:
        raise ClockError(f"clock {regime.hz / 1e6:g} MHz is above {hw.name}'s boost clock "
                         f"({hw.clock.boost_hz / 1e6:g} MHz): no setting runs its SMs faster")


def problem_key(problem: GemmProblem) -> str:
    """Canonical problem string: shape, operand types, majors, sparsity, batch."""
    s = f"{problem.shape_name()}_{problem.a_dtype.value}x{problem.b_dtype.value}->{problem.out_dtype.value}"
    s += f"_{problem.a_major.value}{problem.b_major.value}"
    if problem.scale_type is not None:
        s += f"_{problem.scale_type.value}v{problem.scale_vec_size}"
    if problem.sparse_a:
        s += "_sp"
    if problem.batch > 1:
        s += f"_b{problem.batch}"
    return s


def predict(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, *, clock=None, clock_hz: float | None = None,
            record_timeline: bool = False, full: bool = False, family=None) -> Prediction:
    """Predict one configuration run by the kernel ``family`` (a name or a KernelFamily; default our
    kernel) in the clock regime ``clock``: ``"sustained"`` (default: the power-limited clock of
    sim/power.py), ``"short"`` (the clock under the power limiter's short-term allowance, the first tens of ms
    of a loop), ``"boost"`` (hw's boost clock), a clock in MHz, or a ``sim.clock.ClockRegime``;
    ``clock_hz`` (Hz) is the same as a fixed clock. Raises IllegalConfigError when ``check`` finds PTX
    violations (or, for families whose predictions need them, such as Triton's, violations of the
    family's own restrictions), ClockError for a clock that is none of these.
    ``full=True`` simulates every k-iteration and every tile of the busiest SM (tests only)."""
    from ..families import get_family
    from ..sim.clock import ClockError, Regime, resolve
    regime = resolve(clock, clock_hz)
    if regime.regime in (Regime.MEASURED, Regime.AUTO):
        raise ClockError(f"clock '{regime.regime.value}' is per measured row (report); give boost, short, sustained "
                         "or MHz")
    check_clock(regime, hw)
    fam = get_family(family)
    violations = check(problem, cfg, hw, kernel_rules=fam.restrict_predictions, facts=fam.facts)
    if violations:
        raise IllegalConfigError(violations)
    from ..sim.model import run_inputs   # local imports keep `import perfmodel` light
    from ..sim.memory import drift_spread, progress_windows
    from ..sim.params import at_clock, build_inputs
    from ..sim.power import below_tensor_ceiling, power_cap
    cap = power_cap(regime, hw)         # None: no power limit applies (a fixed or the boost clock)
    clock0 = {Regime.FIXED: regime.hz, Regime.BOOST: hw.tensor_max_clock_hz}.get(
        regime.regime, hw.tensor_max_clock_hz if cap is None else hw.clock.sustained_tensor_hz)

    def simulate(drift: float):
        inputs = build_inputs(problem, cfg, hw, float(clock0), fam, drift)
        clock = clock0
        if cap is not None:
            # first simulate at the clock the steady-state activity would settle at (a guess: no tails, no stalls)
            clock = _guess_clock(problem, hw, inputs, clock, cap)
            inputs = at_clock(inputs, hw, clock)
        return clock, run_inputs(inputs, record_timeline=record_timeline, full=full), inputs

    clock, res, inputs = simulate(0.0)
    spread = drift_spread(cfg, hw)
    if (spread and fam.name == "ours" and not res.deadlock and res.details.get("later_bottleneck") == "l2"
            and inputs.traffic.reuse == "k-window"):
        # L2-bound (its later tiles: the first ones run in step with the grid): the SMs' unequal L2 shares spread the
        # CTAs apart, and the wave's reuse with them
        # (sim/memory.drift_cohorts, l2.sm_rate_spread): simulated again with the traffic that leaves. Decided at
        # the first window's clock; the power-limited clock is then found for the run that is kept only
        clock, res, inputs = simulate(spread)
    if cap is not None and not res.deadlock:
        clock, res = _power_limited(problem, hw, inputs, clock, res, record_timeline, full, cap)
    base = analytic_estimate(problem, cfg, hw, clock)
    if res.deadlock:
        cycles, time_s = 0, math.inf
    else:
        cycles = max(int(math.ceil(res.cycles)), 1)
        # a launch, as event pairs time it, and the clusters' barrier before their CTAs exit
        time_s = cycles / clock + (hw.gpu.launch_overhead_s or 0.0) + inputs.exit_s
    return Prediction(config_name=cfg.name, gpu=hw.name, problem=problem_key(problem),
                      tflops=0.0 if res.deadlock else problem.flops / time_s / 1e12,
                      time_s=time_s, cycles=cycles, clock_hz=clock, bottleneck=Bottleneck(res.bottleneck),
                      utilization=MappingProxyType(dict(res.utilization)),
                      stall_cycles=MappingProxyType({k: int(round(v)) for k, v in res.stall_cycles.items()}),
                      analytic=base, deadlock=res.deadlock, reason=res.reason,
                      details=MappingProxyType(dict(res.details)), timeline=res.timeline, family=fam.name,
                      clock_regime=regime.regime.value,
                      caveats=() if res.deadlock or fam.name != "ours" else caveats(
                          problem, cfg, hw, res.bottleneck, time_s, drift_reads=inputs.traffic.drift_reads,
                          run_windows=progress_windows(problem, cfg, hw, inputs.schedule, inputs.traffic),
                          power_limited_hbm=res.details.get("hbm_activity", 0.0) if "power_limited_clock_hz"
                          in res.details and below_tensor_ceiling(clock, hw) else 0.0))


CLOCK_RERUN_UTILIZATION = 0.02   # below this HBM (and clock-scaled L2) share, cycles do not depend on the clock
# a window simulated within this of the power-limited clock is not simulated again: its cycles differ from
# those at that clock by less than this times the memory-bound share of the time
CLOCK_RERUN_TOLERANCE = 0.01


def _guess_clock(problem, hw, inputs, clock: float, cap: float | PowerLimits = 1.0) -> float:
    from ..sim.power import power_limited_clock_hz, steady_activity
    return power_limited_clock_hz(steady_activity(inputs.params, inputs.schedule, clock, hw), problem, hw, cap)


def _power_limited(problem, hw, inputs, clock, res, record_timeline, full, cap: float | PowerLimits = 1.0):
    """The clock this kernel's activity settles at under the board power cap (sim/power.py). Cycles
    only depend on the clock through HBM (and, with l2.sm_clock_scaling < 1, L2) bytes per cycle: the
    window is simulated again at the new clock when those carry a share of the time (one fixed-point
    step: the clock of the sustained-clock activity, the cycles at that clock). One step, not the fixed point: a
    memory-bound kernel's tensor cores are busier at the lower clock, which lowers the clock again, and the iteration
    converges geometrically (each step 0.2-0.5 of the one before) to a clock 1.5-2% lower for L2-bound kernels. The
    twentieth session converged it (Aitken's sum of the steps, the cycles linear in the clock between the two runs):
    calibration half H100 3.478 -> 3.465%, H200 4.273 -> 4.256%, but the predicted clock against the kernels' own
    2.78 -> 2.99% / 3.27 -> 3.68%, and 2.84% / 3.71% with the power law refitted under it (H100 3.467%, H200 4.279%):
    the power law's over-count for L2- and HBM-heavy kernels (the hbm-heavy-clock caveat) is larger than the one step
    shows. Not kept (docs/calibrate.md, the twentieth session)."""
    from ..sim.model import run_inputs
    from ..sim.params import at_clock
    from ..sim.power import power_limited_clock_hz, power_terms, zero_fill_weight
    act = _activity(res.details, hw, clock, res.cycles, inputs.params.operand_fill)
    f = power_limited_clock_hz(act, problem, hw, cap)
    power = {"power_limited_clock_hz": f, "operand_fill": tuple(inputs.params.operand_fill),
             "zero_fill_power_weight": zero_fill_weight(hw, inputs.params.operand_fill),
             # the law's board power at that clock by term (W, averaged over back-to-back launches): why this clock
             "board_power_w": {k: v * hw.gpu.tdp_w for k, v in power_terms(act, f, problem, hw).items()}}
    if abs(f / clock - 1.0) < CLOCK_RERUN_TOLERANCE:
        res.details.update(power)
        return f, res
    memory = max(res.utilization.get("hbm", 0.0),
                 res.utilization.get("l2", 0.0) if hw.l2.sm_clock_scaling < 1.0 else 0.0)
    if memory > CLOCK_RERUN_UTILIZATION:
        d = res.details
        window = (d["sim_tiles"], d["sim_k_iters"], d["sim_period"]) if "sim_period" in d else None
        res = run_inputs(at_clock(inputs, hw, f), record_timeline=record_timeline, full=full, window=window)
        res.details["sim_runs"] = 2                # the window at both clocks (cost, bench_predict)
    res.details.update(power)
    return f, res


def activity_at(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, clock_hz: float):
    """(the chip activity sim/power.py weighs, the prediction) of a kernel run at a fixed clock: the tensor, L2 and HBM
    activity simulated at ``clock_hz`` and the in-bounds shares of its tiles (sim/scheduler.operand_fill), as the
    power-limited clock weighs them. For the power law at a measured kernel's own clock (calibration/fit.py's GEMM
    power rows, benchmarks/power_decomposition.py, clock_by_hbm.py --power)."""
    from ..sim.scheduler import make_schedule, operand_fill
    p = predict(problem, cfg, hw, clock_hz=clock_hz)
    return _activity(p.details, hw, clock_hz, p.cycles, operand_fill(problem, cfg, make_schedule(problem, cfg, hw))), p


def _activity(details, hw: HardwareSpec, clock_hz: float, cycles: float, fill):
    """The chip activity sim/power.py weighs, from a simulation's details at ``clock_hz``: a GEMM streaming its operands,
    its HBM activity over the achievable rate, launched back to back (``cycles``), with its tiles' in-bounds ``fill``."""
    from ..sim.power import Activity
    return Activity(details.get("tensor_activity", 0.0), details.get("l2_activity", 0.0),
                    details.get("hbm_activity", 0.0) * hw.hbm.achievable_fraction, clock_hz, cycles=cycles,
                    streamed=True, operand_fill=fill)


def prediction_row(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, p: Prediction | None,
                   error: str = "") -> dict:
    """One Optuna-style row: params_* (the configuration), user_attrs_pred_* (the prediction)."""
    row = {"config_name": cfg.name, "gpu": hw.name, "problem": problem_key(problem)}
    for f in ("tile_m", "tile_n", "tile_k", "mma_m", "mma_n", "mma_k", "cta_group", "cluster_m", "cluster_n",
              "multicast", "stages", "consumers", "acc_buffers", "persistent", "group_size"):
        row[f"params_{f}"] = getattr(cfg, f)
    for f in ("swizzle_a", "swizzle_b", "raster", "epilogue"):
        row[f"params_{f}"] = getattr(cfg, f).value
    if p is None:
        row["user_attrs_pred_error"] = error
        return row
    row.update({"user_attrs_pred_tflops": p.tflops, "user_attrs_pred_time_us": p.time_us,
                "user_attrs_pred_cycles": p.cycles, "user_attrs_pred_clock_hz": p.clock_hz,
                "user_attrs_pred_clock_regime": p.clock_regime,
                "user_attrs_pred_bottleneck": p.bottleneck.value, "user_attrs_pred_deadlock": p.deadlock,
                "user_attrs_pred_analytic_tflops": p.analytic.tflops,
                "user_attrs_pred_analytic_bound": p.analytic.bound, "user_attrs_pred_error": ""})
    for k, v in p.utilization.items():
        row[f"user_attrs_pred_util_{k}"] = v
    for k, v in p.stall_cycles.items():
        row[f"user_attrs_pred_stall_{k}"] = v
    return row


def predict_many(rows: Iterable[tuple[GemmProblem, KernelConfig, HardwareSpec]], *, clock=None,
                 clock_hz: float | None = None, family=None):
    """Predict many (problem, config, hw) triples -> pandas DataFrame with Optuna-style columns, all in one
    clock regime (``clock``/``clock_hz`` as in ``predict``). Illegal configurations become rows with
    ``user_attrs_pred_error`` set (never an exception)."""
    import pandas as pd
    from ..sim.clock import resolve
    regime = resolve(clock, clock_hz)    # a bad clock fails once, before any row
    out = []
    for problem, cfg, hw in rows:
        try:
            p = predict(problem, cfg, hw, clock=regime, family=family)
            out.append(prediction_row(problem, cfg, hw, p))
        except IllegalConfigError as exc:
            out.append(prediction_row(problem, cfg, hw, None, str(exc)))
    return pd.DataFrame(out)
