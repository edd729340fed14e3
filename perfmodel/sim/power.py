"""Power-limited SM clock: how fast the clock runs depends on how hard the kernel works.

An H100 SXM under sustained GEMM load is held at its board power limit (700 W): the driver lowers
the SM clock until the power fits. Our microbenchmark measured the end point (1.60 GHz in-kernel
under a full-rate bf16 wgmma burn on every SM at 697 W, ``clock.sustained_tensor_hz``); a kernel that
keeps the tensor cores busy less of the time draws less power per cycle and runs faster, up to the
boost clock. The model (CMOS dynamic power C V^2 f, with V rising with f along the DVFS curve, so
P ~ f^gamma at fixed activity, for everything on the SM clock's rail; HBM on its own clock, mostly on its own rail)::

    P(f) / P_cap = (f / f_sustained)^gamma * ((1 - a_tc) + a_tc * w * u_tc + a_l2 * u_l2)  +  a_hbm * u_hbm(f) * r(f)

    u_tc  chip-wide tensor-core activity: math-busy cycles of all SMs / (cycles x SMs)
    w     tensor power per busy cycle relative to the f16/bf16 burn (``f8_tensor_power_ratio`` for 8-bit kinds, times
          ``stream_tensor_power_ratio`` for a GEMM, whose operands change every k-block: ``Activity.streamed``)
    u_l2  chip-wide L2->SM traffic / L2 bandwidth
    u_hbm HBM bytes/s / datasheet HBM bytes/s; at fixed cycles it grows with f (u_hbm(f) = u_0 f / f_0,
          at most ``hbm.achievable_fraction``)
    a_tc  ``tensor_power_fraction``: share of the capped power that follows tensor activity
    a_l2  ``l2_power_fraction``: power of a saturated L2 path, as a share of the cap
    a_hbm ``hbm_power_w / gpu.tdp_w``: what HBM reads at the datasheet rate add to the board power
          (microbench mb_power at the boost clock: DRAM, PHY, memory controllers and the L2 miss path; W)
    r(f)  ``hbm_rail_factor``: the share s = ``hbm_core_share`` of that power is drawn on the GPU core's rail (memory
          controllers, L2 miss path, crossbar), whose voltage follows the SM clock: (1 - s) + s (f / boost)^(gamma - 1)
          (V^2, as the SM rail's P ~ V^2 f ~ f^gamma); 1 at the boost clock mb_power measured it at

Between launches the SMs idle (the power limiter averages over many launches): a kernel of T = cycles / f
seconds launched back to back, each launch followed by ``launch_overhead_s + launch_gap_s`` of idle SMs, does
its work a fraction d(f) = T / (T + idle) of the time, so every activity above (u_tc, u_l2, u_hbm) is multiplied
by d(f) while the clock-tree/static share (1 - a_tc) stays. A 20 us kernel idles a fifth of the time and runs
~10% faster than the same work in a 2 ms kernel: our mb_wgmma --gap (H100, 2026-11-25) measured 1.59 GHz for
5 ms burn kernels, 1.60 at 450 us, 1.63 at 88 us, 1.69 at 43 us, 1.76 at 20 us, 1.82 at 9 us (tests/test_sim_power.py
reproduces them from this formula). With ``Activity.cycles`` 0 (a kernel that never stops) d = 1.

The limiter has a second, fast window (issue 8, 2026-11-25): whatever the idle time between launches, the power
while the kernel runs stays under ``clock.short_power_ratio`` x the cap (d = 1 in the formula above, the cap raised
by that ratio). mb_wgmma --transient measured that ratio as the first tens of ms of load after idle (a full-rate
burn at 1.775 GHz from its first launch, not 1.98), and mb_wgmma --gap shows it bounds short kernels too: the 5-9 us
burn kernels, idle half the time, run at 1.80-1.82 GHz where the averaged formula alone gives 1.98 (boost); with
both windows the model gives 1.77. ``power_cap`` names the windows of each clock regime (``PowerLimits``): the
``sustained`` clock is the lower of the two solutions, ``short`` (a loop shorter than the slow window's drop) the
fast window's alone.

The reference point (u_tc = 1 at f16, no L2 or HBM traffic, f = f_sustained) gives P = P_cap. Setting
P(f) = P_cap gives f (bisection: P rises with f); it is clamped to [MIN_CLOCK_FRACTION x f_sustained,
boost, or ``clock.tensor_max_hz`` where measured: ``HardwareSpec.tensor_max_clock_hz``, the highest clock a kernel
whose tensor cores run reaches, far under the cap too]. With ``tensor_power_fraction``, ``l2_power_fraction`` and
``hbm_power_w`` all 0 (parts without
measurements) the clock is the sustained clock whatever the kernel does, as before this model existed.
This is the ``sustained`` clock regime (sim/clock.py); ``boost`` and a fixed clock bypass it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..hardware import HardwareSpec
from ..problem import GemmProblem, MmaKind

MIN_CLOCK_FRACTION = 0.5   # numerical floor only (no fitted case comes near it)


@dataclass(frozen=True)
class Activity:
    tensor: float    # chip-wide math-busy fraction of the tensor cores, 0..1
    l2: float        # chip-wide L2->SM bytes / (cycles x L2 bandwidth), 0..1
    hbm: float = 0.0     # HBM bytes/s / datasheet HBM bytes/s, at the clock ``at_hz``
    at_hz: float = 0.0   # the clock the activity was simulated at (0: the sustained clock)
    cycles: float = 0.0  # the kernel's cycles (launched back to back); 0: no idle time between launches
    streamed: bool = False   # a GEMM streaming new operands into its tensor cores every k-block (True), or the
    #                          wgmma burn re-reading one tile (False: the clock.sustained_tensor_hz reference)
    operand_fill: tuple[float, float, float] = (1.0, 1.0, 1.0)   # in-bounds shares of the A tile rows, the B tile
    #                          rows and K (sim/scheduler.operand_fill; the rest is zero fill beyond the matrix edge)


def zero_fill_weight(hw: HardwareSpec, fill: tuple[float, float, float]) -> float:
    """Tensor power per busy cycle of MMAs over operands with zero fill, relative to random operands: with a share za
    of the A rows, zb of the B rows and zk of K in bounds, r0 + zk x (rB x zb + (1 - r0 - rB) x za x zb), r0 =
    clock.zero_operand_power_ratio (all operands zero), rB = clock.b_operand_power_ratio (B's data alone, A zero). Our
    mb_wgmma --burn-rows with power sampled during the burn (data/ncu/burn_power_*, benchmarks/derive_zero_power.py):
    zero A rows (a tile's rows beyond M) save less than zero B rows (its columns beyond N), since B's data still
    toggles the datapath; zero in both draws r0. 1 without the parameters."""
    r0, rb = hw.clock.zero_operand_power_ratio, hw.clock.b_operand_power_ratio
    za, zb, zk = (min(max(x, 0.0), 1.0) for x in fill)
    if r0 is None or rb is None or za * zb * zk >= 1.0:
        return 1.0
    return r0 + zk * (rb * zb + (1.0 - r0 - rb) * za * zb)


def tensor_power_weight(problem: GemmProblem, hw: HardwareSpec, streamed: bool,
                        fill: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> float:
    """Tensor power per busy cycle relative to the f16 burn: 8-bit kinds run twice the FLOPs per cycle
    (clock.f8_tensor_power_ratio); a GEMM's operands (``streamed``, as Activity.streamed) change every k-block where
    the burn re-reads one tile, so its datapath toggles more (clock.stream_tensor_power_ratio, where fitted: our
    in-kernel clocks of GEMMs); the zero fill of tile rows and columns beyond the matrix edge (``fill``, as
    Activity.operand_fill) draws less (zero_fill_weight)."""
    kind = problem.kind
    eight_bit = kind is MmaKind.I8 or (kind is MmaKind.F8F6F4 and max(problem.a_dtype.bits,
                                                                         problem.b_dtype.bits) <= 8)
    w = (hw.clock.f8_tensor_power_ratio if eight_bit else 1.0) * zero_fill_weight(hw, fill)
    return w * (hw.clock.stream_tensor_power_ratio or 1.0) if streamed else w


def busy_fraction(act: Activity, f: float, hw: HardwareSpec) -> float:
    """The share of the time a kernel launched back to back runs at clock f: T / (T + the SMs' idle time between
    launches), T = cycles / f; 1 without cycles or idle time."""
    idle_s = (hw.gpu.launch_overhead_s or 0.0) + (hw.gpu.launch_gap_s or 0.0)
    if act.cycles <= 0 or idle_s <= 0 or f <= 0:
        return 1.0
    run_s = act.cycles / f
    return run_s / (run_s + idle_s)


def _rail_terms(act: Activity, weight: float, hw: HardwareSpec, busy: float) -> tuple[float, float, float]:
    """(static, tensor, L2): the SM-clock rail's power at the sustained clock relative to the cap, its activities
    averaged over the ``busy`` share of the time the kernel runs."""
    c = hw.clock
    a_tc = c.tensor_power_fraction
    return (1.0 - a_tc, busy * a_tc * weight * min(max(act.tensor, 0.0), 1.0),
            busy * c.l2_power_fraction * min(max(act.l2, 0.0), 1.0))


def relative_power(act: Activity, weight: float, hw: HardwareSpec, busy: float = 1.0) -> float:
    """Power of the SM-clock rail at the sustained clock relative to the cap (1.0 = the reference burn), the
    activities averaged over the ``busy`` share of the time the kernel runs."""
    return sum(_rail_terms(act, weight, hw, busy))


def hbm_rail_factor(f: float, hw: HardwareSpec) -> float:
    """HBM power per byte at SM clock f relative to its measurement at the boost clock (mb_power): the share
    ``clock.hbm_core_share`` on the GPU core's rail (memory controllers, L2 miss path, crossbar) follows the core
    voltage, V^2 ~ (f / boost)^(gamma - 1) as the SM rail's P ~ V^2 f ~ f^gamma; the rest (DRAM, PHY) is flat."""
    s = hw.clock.hbm_core_share or 0.0
    if s <= 0:
        return 1.0
    return (1.0 - s) + s * (f / hw.clock.boost_hz) ** (hw.clock.power_exponent - 1.0)


def hbm_share(act: Activity, f: float, hw: HardwareSpec) -> float:
    """HBM power at clock f as a share of the cap while the kernel runs: a_hbm x u_hbm x hbm_rail_factor, u_hbm
    scaled from the simulated clock."""
    a_hbm = hw.clock.hbm_power_w / hw.gpu.tdp_w
    if a_hbm <= 0 or act.hbm <= 0:
        return 0.0
    at = act.at_hz or hw.clock.sustained_tensor_hz
    return a_hbm * min(act.hbm * f / at, hw.hbm.achievable_fraction) * hbm_rail_factor(f, hw)


def power_terms(act: Activity, f: float, problem: GemmProblem, hw: HardwareSpec,
                weight: float | None = None) -> dict[str, float]:
    """The board power at clock f relative to the cap, term by term (static, tensor, l2, hbm), averaged over launches
    and the idle time between them: the SM-clock rail's terms scale as (f / f_s)^gamma, HBM's with its bytes/s.
    ``weight``: tensor_power_weight of (problem, act), where the caller has it (it does not depend on f)."""
    c = hw.clock
    busy = busy_fraction(act, f, hw)
    scale = (f / c.sustained_tensor_hz) ** c.power_exponent
    if weight is None:
        weight = tensor_power_weight(problem, hw, act.streamed, act.operand_fill)
    static, tensor, l2 = _rail_terms(act, weight, hw, busy)
    return {"static": scale * static, "tensor": scale * tensor, "l2": scale * l2, "hbm": busy * hbm_share(act, f, hw)}


def board_power(act: Activity, f: float, problem: GemmProblem, hw: HardwareSpec, weight: float | None = None) -> float:
    """Board power at clock f relative to the cap, averaged over launches and the idle time between them (``weight``:
    as power_terms)."""
    return sum(power_terms(act, f, problem, hw, weight).values())


def below_tensor_ceiling(clock_hz: float, hw: HardwareSpec) -> bool:
    """Whether a clock the power model solved lies below the tensor cores' ceiling (HardwareSpec.tensor_max_clock_hz):
    the power cap, not the ceiling, set it."""
    return clock_hz < hw.tensor_max_clock_hz * (1 - 1e-6)


@dataclass(frozen=True)
class PowerLimits:
    """The power limiter's windows a clock regime meets, each relative to the sustained cap (None: not applied).
    ``average``: the slow window, the board power averaged over launches and the SMs' idle time between them (1 in
    the ``sustained`` regime). ``in_kernel``: the fast window, the power while the kernel runs, idle time not
    counted (``clock.short_power_ratio``)."""
    average: float | None
    in_kernel: float | None


def power_limited_clock_hz(act: Activity, problem: GemmProblem, hw: HardwareSpec,
                           cap: "float | PowerLimits" = 1.0) -> float:
    """The SM clock at which this activity meets its power limit (within [floor, boost]). ``cap`` a number: the
    board power averaged over launches equals ``cap`` x the capped power. ``cap`` PowerLimits: the lowest clock of
    its windows (the fast one solved with the activity of a kernel that never idles)."""
    if isinstance(cap, PowerLimits):
        clocks = [_clock_at_cap(act, problem, hw, cap.average)] if cap.average is not None else []
        if cap.in_kernel is not None:
            clocks.append(_clock_at_cap(replace(act, cycles=0.0), problem, hw, cap.in_kernel))
        return min(clocks) if clocks else hw.tensor_max_clock_hz
    return _clock_at_cap(act, problem, hw, cap)


def _clock_at_cap(act: Activity, problem: GemmProblem, hw: HardwareSpec, cap: float) -> float:
    """The clock at which ``board_power`` equals ``cap`` (bisection; closed form without HBM or idle time)."""
    c = hw.clock
    lo, hi = MIN_CLOCK_FRACTION * c.sustained_tensor_hz, hw.tensor_max_clock_hz
    w = tensor_power_weight(problem, hw, act.streamed, act.operand_fill)     # the same at every clock
    if board_power(act, hi, problem, hw, w) <= cap:
        return hi
    if board_power(act, lo, problem, hw, w) >= cap:
        return lo
    if hbm_share(act, hi, hw) == 0.0 and busy_fraction(act, hi, hw) == 1.0:   # closed form: no HBM, no idle
        rel = relative_power(act, w, hw) / cap
        return min(max(c.sustained_tensor_hz * rel ** (-1.0 / c.power_exponent), lo), hi)
    # P rises with f: regula falsi with the Illinois step (the stale end's residual halved), which converges
    # superlinearly on this smooth, monotone curve, to 1e-10 of the clock (40 bisection steps gave ~1e-12 of the
    # interval at five times the power evaluations)
    g_lo, g_hi = board_power(act, lo, problem, hw, w) - cap, board_power(act, hi, problem, hw, w) - cap
    side = 0
    for _ in range(60):
        mid = hi - g_hi * (hi - lo) / (g_hi - g_lo) if g_hi != g_lo else 0.5 * (lo + hi)
        if not lo < mid < hi:
            mid = 0.5 * (lo + hi)
        g = board_power(act, mid, problem, hw, w) - cap
        if g > 0:
            hi, g_hi = mid, g
            if side == 1:
                g_lo *= 0.5
            side = 1
        else:
            lo, g_lo = mid, g
            if side == -1:
                g_hi *= 0.5
            side = -1
        if abs(g) <= 1e-13:
            return mid
        if hi - lo <= 1e-10 * hi:
            break
    return 0.5 * (lo + hi)


def power_cap(regime, hw: HardwareSpec) -> PowerLimits | None:
    """The power limits a clock regime (sim/clock.py) is solved against, relative to the sustained cap:
    ``sustained`` both windows (the average at 1, the in-kernel power at ``clock.short_power_ratio`` where the GPU
    has it measured), ``short`` the fast window alone (None where the GPU has no measured ratio: ``short`` is then
    the boost clock), None for ``boost`` and fixed clocks."""
    from .clock import Regime
    fast = hw.clock.short_power_ratio
    if regime.regime is Regime.SUSTAINED:
        return PowerLimits(1.0, fast)
    if regime.regime is Regime.SHORT and fast is not None:
        return PowerLimits(None, fast)
    return None


def steady_activity(p, sched, clock_hz: float, hw: HardwareSpec) -> Activity:
    """The chip's activity if every active SM ran at its busiest resource's pace (SimParams.steady_stage_cycles),
    without tails or latency stalls: a first guess of the power-limited clock before anything is simulated."""
    steady = p.steady_stage_cycles
    if steady <= 0:
        return Activity(0.0, 0.0, 0.0, clock_hz)
    frac = sched.active_sms / max(sched.sm_count, sched.active_sms, 1)
    tensor = p.issuers * p.instr_per_stage * p.instr_math_cycles / steady * frac * sched.wave_efficiency
    l2 = (p.l2_moved_bytes_per_stage / (p.l2_power_bytes_per_clock * steady)
          if p.l2_power_bytes_per_clock > 0 else 0.0)
    hbm = p.hbm_bytes_per_stage / (p.hbm_bytes_per_clock * steady) if p.hbm_bytes_per_clock > 0 else 0.0
    return Activity(min(tensor, 1.0), min(l2, 1.0), min(hbm, 1.0) * hw.hbm.achievable_fraction, clock_hz,
                    cycles=p.waves * p.k_iters * steady, streamed=True, operand_fill=p.operand_fill)


__all__ = ["Activity", "MIN_CLOCK_FRACTION", "PowerLimits", "steady_activity", "board_power", "below_tensor_ceiling",
           "busy_fraction", "hbm_share", "power_cap", "power_limited_clock_hz", "power_terms", "relative_power",
           "tensor_power_weight", "zero_fill_weight"]
