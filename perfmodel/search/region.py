"""The promising region of a search space, and the model's optimum over the whole space.

A search space of the stock size (configs/search/sm90.toml: 6.2 million raw points, about a million legal ones
for a large GEMM) cannot be predicted whole (~2 ms a prediction). But most knobs do not change what bounds a
configuration from above: a **group** is every configuration that shares the knobs the bound depends on (tile,
tile K, MMA instructions along N, swizzle, cluster, multicast, consumers, CTA group) and differs only in
``FREE_KNOBS`` (stages, persistence, raster order, group size, epilogue).

Upper bound of a group (``group_bound``, TFLOP/s at the regime's clock): the simulator's own per-k-block demand
of its busiest resource (MMA issue, shared-memory fill, L2, the barrier round trip: ``SimParams.steady_stage_cycles``
without HBM) over every k-block of the busiest SM, and the compulsory HBM traffic (each operand read once, the
output written once) at the chip's HBM rate; neither depends on the free knobs. In the ``sustained`` regime the
clock is bounded too: the power model (sim/power.py) at the tensor and L2 activities of that least number of
cycles, which is the highest clock those activities allow (throughput x clock^-1 is what the cap trades).

``best_region`` is a branch and bound: groups in decreasing bound; every legal configuration of a group is
predicted while the group's bound, raised by ``MARGIN``, reaches the best prediction so far; the first group
below that ends the search, since no configuration after it can beat the best. The predictions exceed their
group's bound by at most 3% on the cases sampled (tests/test_search_region.py; the window's extrapolation and
co-resident CTAs), hence the margin. The result is the model's optimum over the whole space wherever the bound
holds, found with a few hundred to a few thousand predictions.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..config import KernelConfig, smem_bytes
from ..errors import PerfmodelError
from ..hardware import HardwareSpec
from ..problem import GemmProblem
from .space import SearchSpace, Value, violations

FREE_KNOBS = ("stages", "persistent", "raster", "group_size", "epilogue")
MARGIN = 0.05          # predictions sit up to 3% above their group's bound on the cases sampled
POOL_MIN = 64          # predict in a process pool from this many configurations up (2 cores: ~1.9x)


@dataclass(frozen=True)
class Group:
    params: tuple[tuple[str, Value], ...]    # the group's knob values (sorted by the space's knob order)
    bound_tflops: float


@dataclass(frozen=True)
class Scored:
    """One predicted configuration (what a trial records)."""
    params: dict
    config_name: str
    tflops: float
    bottleneck: str
    cycles: float
    time_s: float
    analytic_tflops: float
    deadlock: bool
    reason: str = ""
    smem: int = 0
    cluster: int = 1

    def rank_key(self) -> tuple:
        """Best first, ties as TuneResult ranks them: analytic TFLOP/s, fewer SMEM bytes, smaller cluster, name."""
        return (-self.tflops, -self.analytic_tflops, self.smem, self.cluster, self.config_name)


@dataclass
class RegionResult:
    scored: list[Scored]                      # every configuration predicted, best first
    groups: int                               # groups in the space
    groups_searched: int                      # groups predicted before the bound ended the search
    configurations: int                       # legal configurations predicted
    bound_of_next: float | None = None        # the bound of the first group left out (None: none left)
    exhaustive: bool = False                  # the optimum is proven: the bound ended the search or every group was predicted
    stats: dict = field(default_factory=dict)

    @property
    def best(self) -> Scored | None:
        return self.scored[0] if self.scored else None


def _clock_hz(regime, hw: HardwareSpec) -> float:
    from ..sim.clock import Regime
    return regime.hz if regime.regime is Regime.FIXED else hw.tensor_max_clock_hz


def group_bound(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, regime) -> float:
    """Upper bound (TFLOP/s) of every configuration of cfg's group in the clock regime (see the module doc).

    Time >= t_min(f) = max(per-SM cycles / f, chip L2 bytes / L2 bytes/s at f, compulsory HBM bytes / HBM bytes/s):
    per-SM cycles (MMA issue, shared-memory fill, barrier round trip of the busiest SM's tiles) do not depend on f,
    the L2 and HBM times in seconds only grow as f drops. At a fixed clock (boost, MHz) that is the bound. In the
    sustained regime the clock f is the one at which the board power meets the cap (sim/power.py; in the short
    regime the cap x clock.short_power_ratio on the power while the kernel runs, which bounds the sustained regime too:
    sim/power.py PowerLimits), and power falls as time grows (the same work over more time): the
    time is also >= t_pow(f), the least time the work can take at f under the cap, which grows with f. So time >=
    min over f of max(t_min(f), t_pow(f)) (bisection on f)."""
    from ..sim.params import build_inputs, l2_bytes_per_sm_clock
    from ..sim.power import tensor_power_weight
    f_top = _clock_hz(regime, hw)
    inputs = build_inputs(problem, cfg, hw, f_top)
    p, sched = inputs.params, inputs.schedule
    demand = max(p.issuers * p.instr_per_stage * p.instr_cycles, p.stage_smem_bytes / p.tma_bytes_per_clock,
                 p.wait_cycles + p.tma_issue_cycles)
    per_sm = p.waves * p.k_iters * demand                 # cycles: the busiest SM runs `waves` tiles
    ctas_k = sched.n_tiles * sched.cluster_size * p.k_iters / max(p.ctas_per_sm, 1)
    l2_bytes = ctas_k * p.l2_bytes_per_k                  # bandwidth the stages (and the output) occupy, chip-wide
    hbm_bytes = problem.min_hbm_bytes                     # each operand read once, the output written once
    hbm_bps = hw.hbm.bandwidth_bytes_per_s * hw.hbm.achievable_fraction
    # the L2's tag pipeline, a chip-wide server of its own in the simulator (lookups per second, the L2's clock)
    tag_s = ctas_k * p.l2_tag_lookups_per_k / hw.l2.tag_lookups_per_s if hw.l2.tag_lookups_per_s else 0.0

    def l2_bps(f: float) -> float:
        return l2_bytes_per_sm_clock(hw, f) * f

    # Serial on every schedule's critical path, besides the busiest resource: one load's unloaded latency (a stage
    # lands that long after its last byte is served and nothing computes on it before: the simulator's
    # tma_latency_cycles, L2 in SM cycles plus the miss share of the HBM latency, a time); predict adds the launch
    # overhead. (The last tile's epilogue is serial too, but the sustained clock's rerun tolerance and the window
    # let a prediction beat a bound that counts it: left out.)
    p_miss = inputs.traffic.stage_miss_probability
    fill_cycles = hw.tma.latency_cycles
    fill_s = p_miss * hw.tma.hbm_miss_latency_cycles / hw.clock.boost_hz
    launch_s = hw.gpu.launch_overhead_s or 0.0

    def t_min(f: float) -> float:
        return max(per_sm / f, l2_bytes / l2_bps(f), hbm_bytes / hbm_bps, tag_s, 1e-12) + fill_cycles / f + fill_s

    from ..sim.power import hbm_rail_factor, power_cap
    cap = power_cap(regime, hw)      # the power limit of the regime (None: boost or a fixed clock, no limit)
    if cap is None:
        return problem.flops / (t_min(f_top) + launch_s) / 1e12
    c = hw.clock
    sms = max(sched.sm_count, sched.active_sms, 1)
    math_c = ctas_k * p.issuers * p.instr_per_stage * p.instr_math_cycles    # tensor-busy SM cycles, all SMs
    moved = ctas_k * p.l2_moved_bytes_per_stage
    w = tensor_power_weight(problem, hw, streamed=True)   # a GEMM's operands
    base, a_tc, a_l2 = 1.0 - c.tensor_power_fraction, c.tensor_power_fraction, c.l2_power_fraction
    a_hbm = c.hbm_power_w / hw.gpu.tdp_w

    idle_s = launch_s + (hw.gpu.launch_gap_s or 0.0)   # the SMs idle between launches: power averages over it

    def t_window(f: float, limit: float, idle: float) -> float:
        # (f/fs)^g (base + (a_tc w M/(f sms) + a_l2 moved/l2_bps)/T) + a_hbm hbm/(bw_ds T) <= limit over the period
        # T = t + idle (sim/power.py busy_fraction; idle 0 for the fast, in-kernel window), solved for the kernel's t
        s = (f / c.sustained_tensor_hz) ** c.power_exponent
        room = limit - s * base
        if room <= 0:
            return math.inf
        work = (s * (a_tc * w * math_c / (f * sms) + a_l2 * moved / l2_bps(f))
                + a_hbm * hbm_rail_factor(f, hw) * hbm_bytes / hw.hbm.bandwidth_bytes_per_s)
        return max(work / room - idle, 0.0)

    def t_pow(f: float) -> float:
        slow = t_window(f, cap.average, idle_s) if cap.average is not None else 0.0
        return max(slow, t_window(f, cap.in_kernel, 0.0) if cap.in_kernel is not None else 0.0)

    from ..sim.power import MIN_CLOCK_FRACTION
    lo, hi = MIN_CLOCK_FRACTION * c.sustained_tensor_hz, f_top
    if t_pow(hi) <= t_min(hi):
        return problem.flops / (t_min(hi) + launch_s) / 1e12
    for _ in range(50):          # t_min falls and t_pow rises with f: their crossing is the least time
        mid = 0.5 * (lo + hi)
        if t_pow(mid) > t_min(mid):
            hi = mid
        else:
            lo = mid
    return problem.flops / (min(max(t_min(lo), t_pow(lo)), max(t_min(hi), t_pow(hi))) + launch_s) / 1e12


def _split_knobs(space: SearchSpace) -> tuple[list, list]:
    searched = space.searched
    return [k for k in searched if k.name not in FREE_KNOBS], [k for k in searched if k.name in FREE_KNOBS]


def _bound_one(item: tuple[tuple, str]) -> tuple[tuple, float]:
    params, name = item
    try:
        bound = group_bound(_CTX["problem"], KernelConfig.from_name(name), _CTX["hw"], _CTX["regime"])
    except (PerfmodelError, ZeroDivisionError, ValueError):
        bound = 0.0
    return params, bound


def groups(space: SearchSpace, problem: GemmProblem, hw: HardwareSpec, regime, *,
           kernel_rules: bool = False, jobs: int | None = None) -> list[Group]:
    """Every group of the space with its bound, best first (ties by the group's knob values); the bounds are
    computed in a process pool when there are many (a bound costs about a prediction's set-up, ~4 ms)."""
    bound_knobs, _ = _split_knobs(space)
    work, seen = [], set()
    for combo in itertools.product(*(k.values for k in bound_knobs)):
        params = dict(zip((k.name for k in bound_knobs), combo))
        try:
            cfg = space.config(problem, hw, params)
        except PerfmodelError:
            continue
        key = _group_key(cfg)
        if key in seen:                 # normalised to a group already listed (multicast on a 1x1 cluster)
            continue
        seen.add(key)
        work.append((tuple(params.items()), cfg.name))
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs <= 1 or len(work) < POOL_MIN:
        _init(problem, hw, regime, None)
        bounds = [_bound_one(w) for w in work]
    else:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init,
                                 initargs=(problem, _portable(hw), regime, None)) as ex:
            bounds = list(ex.map(_bound_one, work, chunksize=max(1, len(work) // (8 * jobs))))
    out = [Group(params, b) for params, b in bounds if b > 0 and math.isfinite(b)]
    out.sort(key=lambda g: (-g.bound_tflops, repr(g.params)))
    return out


def _portable(hw: HardwareSpec) -> HardwareSpec:
    import dataclasses
    return dataclasses.replace(hw, sources=dict(hw.sources))     # MappingProxyType does not pickle


def _group_key(cfg: KernelConfig) -> tuple:
    return (cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.mma_n, cfg.swizzle_a, cfg.swizzle_b, cfg.cluster_m, cfg.cluster_n,
            cfg.multicast, cfg.consumers, cfg.cta_group)


def members(space: SearchSpace, problem: GemmProblem, hw: HardwareSpec, group: Group, *,
            kernel_rules: bool = False, seen: set | None = None) -> Iterable[tuple[dict, KernelConfig]]:
    """The legal configurations of a group (the free knobs' product), each once. No legality rule reads the
    tile order (persistent, raster, group size >= 1: perfmodel/legality only checks group_size is positive),
    so the rules run once per (stages, epilogue, group size >= 1) of the group (tests/test_search_region.py
    checks the equivalence), not once per member: most members of a large group fail on shared memory."""
    _, free = _split_knobs(space)
    base = dict(group.params)
    seen = set() if seen is None else seen
    legal: dict[tuple, bool] = {}
    for combo in itertools.product(*(k.values for k in free)):
        params = {**base, **dict(zip((k.name for k in free), combo))}
        try:
            cfg = space.config(problem, hw, params)
        except PerfmodelError:
            continue
        if cfg.name in seen:
            continue
        seen.add(cfg.name)
        key = legality_key(cfg)
        if key not in legal:
            legal[key] = not violations(problem, cfg, hw, kernel_rules=kernel_rules)
        if legal[key]:
            yield params, cfg


def legality_key(cfg: KernelConfig) -> tuple:
    """What of a configuration the legality rules read, less the tile order (see ``members``)."""
    return (_group_key(cfg), cfg.mma_m, cfg.mma_k, cfg.stages, cfg.epilogue, cfg.acc_buffers, cfg.group_size >= 1)


# ---------------------------------------------------------------------------- predicting many, in a pool
_CTX: dict = {}


def _init(problem, hw, regime, family):
    _CTX.update(problem=problem, hw=hw, regime=regime, family=family)


def _score_one(item: tuple[dict, str]) -> Scored:
    from ..prediction.predict import predict
    params, name = item
    problem, hw = _CTX["problem"], _CTX["hw"]
    cfg = KernelConfig.from_name(name)
    try:
        p = predict(problem, cfg, hw, clock=_CTX["regime"], family=_CTX["family"])
    except PerfmodelError as exc:
        return Scored(params, name, 0.0, "illegal", 0.0, math.inf, 0.0, True, str(exc)[:200])
    return Scored(params, name, 0.0 if p.deadlock else p.tflops, p.bottleneck.value, float(p.cycles), p.time_s,
                  float(p.analytic.tflops), p.deadlock, p.reason, smem_bytes(problem, cfg), cfg.cluster_size)


def score(items: list[tuple[dict, KernelConfig]], problem: GemmProblem, hw: HardwareSpec, regime, *,
          family=None, jobs: int | None = None, cache=None) -> list[Scored]:
    """Predict every (params, config), in a process pool when there are many (results in input order). With a
    ``cache`` (search/cache.PredictionCache of this problem, hardware, regime and family) configurations it holds
    are not predicted again, and the new predictions are added to it."""
    if cache is None:
        return _score(items, problem, hw, regime, family=family, jobs=jobs)
    todo = [(params, cfg) for params, cfg in items if cache.get(cfg.name) is None]
    new = {s.config_name: s for s in _score(todo, problem, hw, regime, family=family, jobs=jobs)}
    cache.add(list(new.values()))
    out = []
    for params, cfg in items:
        s = new.get(cfg.name)
        if s is None:
            s = Scored(params, cfg.name, **cache.get(cfg.name))
        elif s.params != params:
            s = dataclasses.replace(s, params=params)
        out.append(s)
    return out


def _score(items: list[tuple[dict, KernelConfig]], problem: GemmProblem, hw: HardwareSpec, regime, *,
           family=None, jobs: int | None = None) -> list[Scored]:
    if not items:
        return []
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    work = [(params, cfg.name) for params, cfg in items]
    if jobs <= 1 or len(work) < POOL_MIN:
        _init(problem, hw, regime, family)
        return [_score_one(w) for w in work]
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init, initargs=(problem, _portable(hw), regime, family)) as ex:
        return list(ex.map(_score_one, work, chunksize=max(1, len(work) // (8 * jobs))))


def best_region(space: SearchSpace, problem: GemmProblem, hw: HardwareSpec, regime, *, kernel_rules: bool = False,
                margin: float = MARGIN, jobs: int | None = None, max_configurations: int | None = None,
                progress: Callable[[str], None] | None = None, cache=None) -> RegionResult:
    """Branch and bound over the groups (module doc): every legal configuration of every group whose bound x
    (1 + margin) reaches the best prediction so far. Groups are predicted in batches (in a pool), so a batch
    may hold a few groups the bound would have left out; they are predicted, not skipped."""
    gs = groups(space, problem, hw, regime, kernel_rules=kernel_rules, jobs=jobs)
    scored: list[Scored] = []
    best, i, seen, cut = 0.0, 0, set(), False
    batch_target = 4 * (jobs or os.cpu_count() or 1) * 16
    while i < len(gs):
        if scored and gs[i].bound_tflops * (1 + margin) < best:
            break
        if max_configurations is not None and len(scored) >= max_configurations:
            cut = True          # stopped by the budget, not by the bound: the optimum is not proven
            break
        items: list[tuple[dict, KernelConfig]] = []
        while i < len(gs) and (not scored or gs[i].bound_tflops * (1 + margin) >= best) and len(items) < batch_target:
            items.extend(members(space, problem, hw, gs[i], kernel_rules=kernel_rules, seen=seen))
            i += 1
        new = score(items, problem, hw, regime, jobs=jobs, cache=cache)
        scored.extend(new)
        best = max([best] + [s.tflops for s in new if not s.deadlock])
        if progress:
            nxt = f"; next group's bound {gs[i].bound_tflops:.1f} (stops below {best / (1 + margin):.1f})" \
                if i < len(gs) else ""
            progress(f"model-optimum search: {len(scored)} configurations predicted ({i} of {len(gs)} groups, "
                     f"best first), best {best:.1f} TFLOP/s{nxt}")
    scored.sort(key=Scored.rank_key)
    return RegionResult(scored, len(gs), i, len(scored), gs[i].bound_tflops if i < len(gs) else None,
                        exhaustive=not cut)     # bound reached or every group predicted: the optimum


def exhaustive(space: SearchSpace, problem: GemmProblem, hw: HardwareSpec, regime, *, kernel_rules: bool = False,
               jobs: int | None = None, limit: int = 20_000_000) -> RegionResult:
    """Every legal configuration of the space predicted (ground truth for benchmarks; slow on large spaces)."""
    items = list(space.enumerate(problem, hw, legal_only=True, kernel_rules=kernel_rules, limit=limit))
    scored = sorted(score(items, problem, hw, regime, jobs=jobs), key=Scored.rank_key)
    return RegionResult(scored, 0, 0, len(scored), None, exhaustive=True)


__all__ = ["FREE_KNOBS", "MARGIN", "Group", "RegionResult", "Scored", "best_region", "exhaustive", "group_bound",
           "groups", "members", "score"]
