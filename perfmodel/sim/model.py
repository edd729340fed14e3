"""Bounded simulation + extrapolation -> cycles, utilisation, stalls and the bottleneck.

The busiest SM is simulated for a window: a few tiles (``window_tiles``) of at most
``window_k`` k-blocks each (pipeline fill, a steady-state K window, the epilogue overlapping
the next tile). From the window the model measures the steady per-k-block period P (the second half of
the first tile's K window) and the steady tile period D (averaged over the last tiles, one full cycle
of tile starts through the stage ring), and extends:

    T = T_window + n_sim * (K - k_sim) * P + (tiles - n_sim) * (D + (K - k_sim) * P)

applied alike to time and every counter. P (and D) are never taken below the steady demand of the
busiest resource (a window still draining a full ring would otherwise look faster than the steady state).

The window is adaptive (``simulate_window``): a tile that starts after an epilogue finds the ring
full and the L2/HBM token bucket refilled, and runs faster than P for a while; and the first tile
periods can differ from the steady one. So the window is grown (and simulated again) until the last
tile's last k-blocks run at the first tile's period P (a window of one tile: its last k-span at the pace of the
span before it, since a ring still filling or an HBM queue still building runs at another) and the last two tile
periods agree, all within ``STEADY_TOLERANCE``, or until it would exceed ``ADAPTIVE_KBLOCKS`` tile-k-blocks.
``full=True`` simulates every tile and k-block instead (benchmarks/bench_extrapolation.py compares them).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from ..config import KernelConfig
from ..hardware import HardwareSpec
from ..problem import GemmProblem
from .components import TX_COUNT_MAX
from .params import ModelInputs, SimParams, build_inputs
from .pipeline import COUNTER_NAMES, SimTrace, simulate

WINDOW_TILES = 3          # at least: a cold tile, then tile periods between steady tiles
WINDOW_KBLOCKS = 160      # budget of simulated k-blocks when more tiles are needed to see a full period
SATURATED = 0.85          # a unit busier than this is "the" bottleneck (classification only)
STEADY_TOLERANCE = 0.002  # relative: the window is steady when its periods agree this closely
ADAPTIVE_KBLOCKS = 640    # the adaptive window never grows beyond this many tile-k-blocks


def window_k(stages: int, k_iters: int) -> int:
    """K window: enough k-blocks to fill the ring and then see more than a ring's worth in steady state,
    and congruent to the real K loop modulo the stage count, so that tiles start at the same ring
    positions as in the real kernel."""
    base = max(2 * stages + 8, stages + 2 + k_span(stages))
    if k_iters <= base:
        return k_iters
    return base + (k_iters - base) % stages


def k_span(stages: int) -> int:
    """k-blocks over which the steady period P is averaged: per-k-block times repeat with period 2
    (wait_group depth 1 alternates) or with the ring (stages), so a common multiple of both."""
    return stages * 2 // math.gcd(stages, 2)


def k_spans(stages: int, k_sim: int) -> tuple[int, int, int]:
    """(kc, ka, kb): the window's last k-block kb, the start ka of the last k-span before it (the span P is read
    over) and the start kc of the span before that one (a one-tile window's steadiness check)."""
    kb = k_sim - 1
    ka = max(kb - k_span(stages), 0)
    return max(ka - k_span(stages), 0), ka, kb


def window_tiles(stages: int, k_sim: int, tiles: int) -> tuple[int, int]:
    """(tiles to simulate, tiles one period of the tile pattern spans). Tile starts cycle through the
    ring every stages/gcd(stages, k) tiles, so the tile period D is averaged over that many tiles
    (as many as the k-block budget allows)."""
    if tiles * k_sim <= WINDOW_KBLOCKS // 2:
        return tiles, 1                        # cheap enough to simulate every tile
    period = stages // math.gcd(stages, k_sim)
    period = max(1, min(period, WINDOW_KBLOCKS // max(k_sim, 1) - 2))
    return min(tiles, max(WINDOW_TILES, period + 2)), period


@dataclass(frozen=True)
class ModelResult:
    cycles: float
    bottleneck: str
    utilization: dict
    stall_cycles: dict
    deadlock: bool
    reason: str
    details: dict = field(default_factory=dict)
    timeline: object = None


def static_deadlock(p: SimParams) -> str:
    """Protocol checks that need no simulation."""
    if p.stages < 1:
        return "0 pipeline stages: the producer can never acquire a stage and the consumer never gets data"
    if p.stage_tx_bytes > TX_COUNT_MAX:
        return (f"a stage expects {p.stage_tx_bytes} transaction bytes on its full barrier, above the "
                f"mbarrier tx-count limit 2^20-1 (PTX §9.7.13.15): the phase can never complete")
    if p.wait_depth >= p.stages:
        return (f"wgmma.wait_group depth {p.wait_depth} keeps every one of the {p.stages} stages held by the "
                f"consumer: the producer waits on an empty barrier that is never arrived on")
    if p.issuers < 1 or p.epi_workers < 1:
        return "no consumer warpgroup: nobody arrives on the empty barriers"
    if p.tmem and p.acc_buffers < 1:
        return "no TMEM accumulator buffer: the MMA thread waits forever on acc_empty"
    return ""


def _vec(snapshot) -> list[float]:
    t, c = snapshot
    return [t, *c]


def _rate(tr: SimTrace, since: tuple[int, int], until: tuple[int, int], n: int) -> list[float]:
    """(time, counters) from snapshot ``since`` to snapshot ``until`` per one of their ``n`` k-blocks or tiles."""
    return [(y - x) / n for x, y in zip(_vec(tr.snapshots[since]), _vec(tr.snapshots[until]))]


def extrapolate(tr: SimTrace, p: SimParams, n_sim: int, k_sim: int, tiles: int, period: int = 1) -> list[float]:
    end = [tr.end_cycles, *tr.end_counters]
    ext_k, ext_t = p.k_iters - k_sim, tiles - n_sim
    if ext_k == 0 and ext_t == 0:
        return end
    _, ka, kb = k_spans(p.stages, k_sim)
    per_k = [0.0] * len(end)
    if ext_k and kb > ka:
        # measured in the first tile: later tiles' windows also carry the previous tile's output stores,
        # which belong to the tile period D (measured between tiles), not to every k-block
        per_k = _rate(tr, (0, ka), (0, kb), kb - ka)
        per_k[0] = max(per_k[0], p.steady_first_stage_cycles)
    per_k_later = per_k
    per_tile = [0.0] * len(end)
    back = _back(n_sim, period)
    if ext_t:
        per_tile = _rate(tr, (n_sim - 1 - back, kb), (n_sim - 1, kb), back)
        per_tile[0] = max(per_tile[0], k_sim * p.steady_stage_cycles)   # a ring still filling looks faster
    # busy time of every unit per k-block and per tile is exact (bytes / rate): only time and stalls
    # need the measured rates
    busy_k, busy_tile = _busy_per_k(p), _busy_per_tile(p)
    if ext_k and kb > ka and p.first_in_step:
        # the first tile ran in step with the grid (its own L2 occupancy): the later tiles' period as the window's last
        # tile shows it, held between the first tile's and that scaled by their busiest resource's steady pace against
        # the first tile's (the window's last k-blocks may still carry the previous tile's stores and HBM queue), and
        # no faster than the busiest resource allows a whole later tile: a window's short tiles run their k-blocks on
        # the credit the epilogue left (a token bucket refilled while the loads paused), which a full-K tile spends
        # within its K loop, so the floor is per tile, not per k-block (H200 8192^3 128x128 s7 direct stores: 51 of
        # 128 k-blocks at 513 cycles, then 558)
        per_k_later = _rate(tr, (n_sim - 1, ka), (n_sim - 1, kb), kb - ka)
        slower = p.steady_stage_cycles / p.steady_first_stage_cycles
        per_k_later[0] = min(max(per_k_later[0], per_k[0]), per_k[0] * slower)
        tile_busy = max(p.k_iters * b + t for b, t in zip(busy_k, busy_tile))
        if n_sim > 1:
            window_tile = (tr.snapshots[(n_sim - 1, kb)][0] - tr.snapshots[(n_sim - 1 - back, kb)][0]) / back
            per_k_later[0] = max(per_k_later[0], (tile_busy - window_tile) / ext_k)
        else:
            per_k_later[0] = max(per_k_later[0], p.steady_stage_cycles)
    tags = 1 + COUNTER_NAMES.index("l2_tags")
    if per_k_later is not per_k:
        per_k_later[1:7] = busy_k
        per_k_later[tags] = p.tag_cycles_per_stage
    per_k[1:7] = _busy_per_k(p, first=True)
    per_k[tags] = p.tag_cycles_per_stage
    if ext_t:
        per_tile[1:7] = [k_sim * b + t for b, t in zip(busy_k, busy_tile)]
        per_tile[tags] = k_sim * per_k[tags] + p.tag_cycles_per_tile_stores
    # the first tile's K extension at its own period, the window's later tiles' and the tiles beyond it at theirs
    return [e + ext_k * dk0 + (n_sim - 1) * ext_k * dk + ext_t * (dt + ext_k * dk)
            for e, dk0, dk, dt in zip(end, per_k, per_k_later, per_tile)]


def _busy_per_k(p: SimParams, first: bool = False) -> list[float]:
    """tensor-core math, SMEM, TMA, L2, HBM and epilogue busy cycles of one k-block (all issuers; ``first``: a k-block
    of the CTA's first tile)."""
    n = p.issuers * p.instr_per_stage
    l2_b = p.first_tile_l2_reserve_bytes if first else p.l2_bytes_per_stage
    return [n * p.instr_math_cycles, n * p.instr_smem_cycles, p.stage_smem_bytes / p.tma_bytes_per_clock,
            l2_b / p.l2_bytes_per_clock, p.hbm_bytes_per_stage / p.hbm_bytes_per_clock, 0.0]


def _busy_per_tile(p: SimParams) -> list[float]:
    return [0.0] * 3 + [p.l2_store_bytes_per_tile / p.l2_bytes_per_clock, 0.0,
                        p.epi_workers * p.epi_bytes_per_worker / p.epi_bytes_per_clock]


def _classify(util: dict, stalls: dict, total: float, wave_eff: float, deadlock: bool) -> str:
    if deadlock:
        return "latency"
    unit, u = max(((k, v) for k, v in util.items()), key=lambda kv: kv[1])
    tail_loss = 1.0 - wave_eff          # SM-time idle in the last, partial wave
    if tail_loss > max(1.0 - u, 1.0 - SATURATED):
        return "wave_tail"
    if u >= SATURATED:
        return {"tensor_core": "tensor_core", "smem": "shared_memory", "tma": "tma_hbm", "hbm": "tma_hbm",
                "l2": "l2", "epilogue": "epilogue"}[unit]
    if stalls["epilogue"] > max(stalls["full_barrier"], stalls["empty_barrier"]):
        return "epilogue"
    return "latency"


def run_model(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, clock_hz: float, *,
              record_timeline: bool = False, full: bool = False) -> ModelResult:
    inputs = build_inputs(problem, cfg, hw, clock_hz)
    return run_inputs(inputs, record_timeline=record_timeline, full=full)


def run_inputs(inputs: ModelInputs, *, record_timeline: bool = False, full: bool = False,
               window: tuple[int, int, int] | None = None) -> ModelResult:
    """Simulate the adaptive window and extrapolate. ``window`` (tiles, k-blocks, tile period): where the
    adaptive window starts (the window an earlier run of the same configuration settled on, e.g. at
    another clock); it still grows until the trace is steady."""
    p, sched = inputs.params, inputs.schedule
    details = {"k_iters": p.k_iters, "tiles_per_cta": p.tiles_per_cta, "waves": p.waves,
               "wave_efficiency": sched.wave_efficiency, "active_sms": sched.active_sms,
               "hbm_read_bytes": inputs.traffic.hbm_read_bytes, "hbm_write_bytes": inputs.traffic.hbm_write_bytes,
               "l2_reuse": inputs.traffic.reuse, "drift_reads": inputs.traffic.drift_reads,
               "stages": p.stages, "instr_cycles": p.instr_cycles,
               "instr_math_cycles": p.instr_math_cycles, "instr_smem_cycles": p.instr_smem_cycles,
               "gpc_crowd_sms": p.gpc_crowd_sms, "l2_share_gpc_bound": float(p.l2_share_gpc_bound)}
    reason = static_deadlock(p)
    if reason:
        return _deadlocked(reason, details)
    tiles = p.tiles_per_cta
    if full:
        n_sim, k_sim, period = tiles, p.k_iters, 1
        tr = simulate(p, n_sim, k_sim, record=record_timeline)
    else:
        tr, n_sim, k_sim, period = simulate_window(p, tiles, record_timeline, start=window)
    if tr.deadlock:
        return _deadlocked(tr.deadlock, details)
    tot = extrapolate(tr, p, n_sim, k_sim, tiles, period)
    repeat = 1 if p.persistent else p.waves       # non-persistent: every wave is a fresh one-tile CTA
    tail = tail_delta(p, sched, k_sim, tr if n_sim == 1 else tr.first_tile)
    tot = [v * repeat + d for v, d in zip(tot, tail)]
    tot[0] += p.cta_setup_cycles * repeat          # each CTA the SM runs first sets itself up (gpu.cta_setup_s)
    total = tot[0]
    vals = dict(zip(COUNTER_NAMES, tot[1:]))
    vals["l2"] = max(vals["l2"], vals["l2_tags"])     # the L2's data path or its tag pipeline, the busier
    util = {k: min(vals[k] / total, 1.0) for k in ("tensor_core", "tma", "smem", "l2", "hbm", "epilogue")}
    stalls = {"full_barrier": vals["full_barrier"], "empty_barrier": vals["empty_barrier"],
              "epilogue": vals["epilogue_stall"]}
    bottleneck = _classify(util, stalls, total, sched.wave_efficiency, False)
    details.update({"sim_tiles": n_sim, "sim_k_iters": k_sim, "sim_period": period, "sim_events": tr.events,
                    "tail_cycles": tail[0],
                    "later_bottleneck": (_later_bottleneck(p, vals, util, stalls, total, sched.wave_efficiency)
                                         if p.first_in_step else bottleneck)})
    details.update(chip_activity(p, sched, total))
    timeline = None
    if record_timeline:
        from .timeline import Timeline
        timeline = Timeline(tuple(tr.intervals), n_sim, k_sim, p.k_iters)
    return ModelResult(cycles=total, bottleneck=bottleneck,
                       utilization=util, stall_cycles=stalls, deadlock=False, reason="", details=details,
                       timeline=timeline)


def _later_bottleneck(p: SimParams, vals: dict, util: dict, stalls: dict, total: float, wave_eff: float) -> str:
    """The bottleneck of the kernel were its CTAs' first tiles (run in step with the grid) at the later tiles' L2
    occupancy: the first tile's L2 busy cycles back at that occupancy, in the L2's busy time and in the total."""
    extra = max(p.l2_bytes_per_stage - p.first_tile_l2_reserve_bytes, 0.0) / p.l2_bytes_per_clock * p.k_iters
    u = dict(util, l2=min((max(vals["l2"] + extra, vals["l2_tags"])) / (total + extra), 1.0))
    return _classify(u, stalls, total + extra, wave_eff, False)


def chip_activity(p: SimParams, sched, total_cycles: float) -> dict:
    """Chip-wide activity over the whole kernel (for the power-limited clock): tensor math-busy cycles
    of every CTA over (cycles x SMs), and the bytes L2 actually moved over (cycles x L2 bandwidth): power
    follows the bytes moved, not the bandwidth that narrow box rows occupy (our H100 clock runs: the
    32B-swizzle tile runs at 1941 MHz, L2-bound at 3.8 TB/s)."""
    ctas_k = sched.n_tiles * sched.cluster_size * p.k_iters / max(p.ctas_per_sm, 1)   # simulated CTAs' stages
    math = ctas_k * p.issuers * p.instr_per_stage * p.instr_math_cycles
    l2_bytes = ctas_k * p.l2_moved_bytes_per_stage
    sms = max(sched.sm_count, sched.active_sms, 1)
    # HBM bytes over (cycles x achievable HBM bytes per cycle): the share of the achievable bandwidth used
    hbm = ctas_k * p.hbm_bytes_per_stage / (total_cycles * p.hbm_bytes_per_clock * sched.active_sms) \
        if p.hbm_bytes_per_clock > 0 else 0.0
    return {"tensor_activity": min(math / (total_cycles * sms), 1.0),
            "l2_activity": min(l2_bytes / (total_cycles * p.l2_power_bytes_per_clock * sched.active_sms), 1.0),
            "hbm_activity": min(hbm, 1.0)}


def marks(n_sim: int, k_sim: int, p: SimParams, period: int = 1) -> frozenset:
    """The (tile, k) snapshots ``extrapolate`` reads (the per-k span of the first tile, the tile period)
    and those ``steady`` reads (the same span in the last tile, the tile period before the last)."""
    kc, ka, kb = k_spans(p.stages, k_sim)
    last = n_sim - 1
    back = _back(n_sim, period)
    return frozenset({(0, ka), (0, kb), (last, kb), (max(last - back, 0), kb),
                      (last, ka), (max(last - 2 * back, 0), kb)}
                     | ({(0, k) for k in range(kc, kb + 1)} if n_sim == 1 else set()))


def _back(n_sim: int, period: int) -> int:
    return max(1, min(period, n_sim - 2)) if n_sim > 2 else 1


def steady(tr: SimTrace, p: SimParams, n_sim: int, k_sim: int, tiles: int, period: int) -> tuple[bool, bool]:
    """(K window long enough, tile count long enough). K: the last tile's last k-span runs at the first
    tile's period (a tile that starts after an epilogue first runs on a full ring and a refilled token
    bucket). Tiles: the last tile period equals the one before it (tile 0 is cold and never counted)
    and is not below the busiest resource's steady demand."""
    kc, ka, kb = k_spans(p.stages, k_sim)
    last = n_sim - 1
    k_ok = k_sim >= p.k_iters or kb == ka
    if not k_ok and n_sim == 1:
        # one tile: its last k-span against the span before it (a ring still filling, a token bucket still
        # draining, an HBM queue still building run at another pace)
        t = {k: tr.snapshots[(0, k)][0] for k in range(kc, kb + 1)}
        last_span = t[kb] - t[ka]
        before = (t[ka] - t[kc]) * (kb - ka) / max(ka - kc, 1)
        k_ok = ka == kc or abs(last_span - before) <= STEADY_TOLERANCE * max(last_span, 1.0)
        if k_ok and ka - kc == kb - ka:
            # and k-block by k-block: an alternation whose swing still grows keeps the span's sum for a while,
            # then changes pace (a latency-bound 3-stage ring at 256x8192x8192: 719 cycles a k-block for 50
            # k-blocks, then 774)
            k_ok = (sum(abs((t[ka + i + 1] - t[ka + i]) - (t[kc + i + 1] - t[kc + i])) for i in range(kb - ka))
                    <= STEADY_TOLERANCE * max(last_span, 1.0))
    elif not k_ok:
        first = tr.snapshots[(0, kb)][0] - tr.snapshots[(0, ka)][0]
        later = tr.snapshots[(last, kb)][0] - tr.snapshots[(last, ka)][0]
        if p.first_in_step:
            # the first tile ran in step with the grid (its own L2 occupancy): each span against its own busiest
            # resource's steady pace (a window that never agrees grows, to the whole K or the budget)
            first, later = first / p.steady_first_stage_cycles, later / p.steady_stage_cycles
        k_ok = abs(later - first) <= STEADY_TOLERANCE * max(first, 1.0)
    if n_sim >= tiles:
        return k_ok, True
    back = _back(n_sim, period)
    if last - 2 * back < 1:
        return k_ok, False
    d1 = tr.snapshots[(last, kb)][0] - tr.snapshots[(last - back, kb)][0]
    d0 = tr.snapshots[(last - back, kb)][0] - tr.snapshots[(last - 2 * back, kb)][0]
    # a tile period below the busiest resource's demand lives on token-bucket credit, which runs out
    below_demand = d1 < back * k_sim * p.steady_stage_cycles * (1.0 - STEADY_TOLERANCE)
    return k_ok, not below_demand and abs(d1 - d0) <= STEADY_TOLERANCE * max(d1, 1.0)


def simulate_window(p: SimParams, tiles: int, record: bool = False, start: tuple[int, int, int] | None = None):
    """The adaptive window -> (trace, n_sim, k_sim, period): start from window_k / window_tiles (or from
    ``start``) and grow K (the extension doubled, congruent modulo the stages) or the tile count (by one
    tile period) until ``steady`` holds or the next window would exceed ADAPTIVE_KBLOCKS tile-k-blocks."""
    k_sim = window_k(p.stages, p.k_iters)
    n_sim, period = window_tiles(p.stages, k_sim, tiles)
    if start is not None:
        n_sim, k_sim, period = min(start[0], tiles), min(start[1], p.k_iters), start[2]
    while True:
        tr = simulate(p, n_sim, k_sim, record=record, marks=marks(n_sim, k_sim, p, period))
        if tr.deadlock:
            return tr, n_sim, k_sim, period
        k_ok, t_ok = steady(tr, p, n_sim, k_sim, tiles, period)
        n_next, k_next = n_sim, k_sim
        if not k_ok:
            k_next = _grow_k(p, k_sim)
        elif not t_ok:
            n_next = min(tiles, n_sim + max(1, period))
        if (n_next, k_next) == (n_sim, k_sim) or n_next * k_next > ADAPTIVE_KBLOCKS:
            return tr, n_sim, k_sim, period
        n_sim, k_sim = n_next, k_next


def _grow_k(p: SimParams, k_sim: int) -> int:
    k = 2 * k_sim
    if k >= p.k_iters:
        return p.k_iters
    return k + (p.k_iters - k) % p.stages


def _one_tile(p: SimParams, k_sim: int, trace: SimTrace | None = None) -> list[float]:
    """A lone tile of k_sim k-blocks, extrapolated to the full K; ``trace``: that run when another run
    already showed it (SimTrace.first_tile)."""
    tr = trace if trace is not None else simulate(p, 1, k_sim, marks=marks(1, k_sim, p))
    return extrapolate(tr, p, 1, k_sim, 1)


def tail_delta(p: SimParams, sched, k_sim: int, first_tile: SimTrace | None = None) -> list[float]:
    """The last, partial wave: only the CTAs with a tile left run, so each gets a larger share of L2 and
    HBM bandwidth. The busiest CTA's last tile (persistent) or the last wave's tile (non-persistent)
    runs at that share; returns (time, counters) of that tile minus the same tile at the full-wave share
    (``first_tile``: the window's first tile, which is that tile at the full-wave share)."""
    in_tail = sched.n_tiles - (sched.waves - 1) * sched.slots
    if sched.waves < 2 or in_tail >= sched.slots:
        return [0.0] * (1 + len(COUNTER_NAMES))
    scale = sched.slots / in_tail                 # active SMs in a full wave / in the tail
    # every per-SM share of a chip-wide resource (params._memory_shares) grows alike: L2 bandwidth, its tag pipeline,
    # the GPC pool and HBM
    tail_p = dataclasses.replace(p, l2_bytes_per_clock=p.l2_bytes_per_clock * scale,
                                 l2_chip_bytes_per_clock=p.l2_chip_bytes_per_clock * scale,
                                 l2_tag_lookups_per_clock=p.l2_tag_lookups_per_clock * scale,
                                 l2_pool_stage_cycles=p.l2_pool_stage_cycles / scale,
                                 hbm_bytes_per_clock=p.hbm_bytes_per_clock * scale)
    return [t - f for t, f in zip(_one_tile(tail_p, k_sim), _one_tile(p, k_sim, first_tile))]


def _deadlocked(reason: str, details: dict) -> ModelResult:
    zeros = {k: 0.0 for k in ("tensor_core", "tma", "smem", "l2", "hbm", "epilogue")}
    return ModelResult(cycles=math.inf, bottleneck="latency", utilization=zeros,
                       stall_cycles={"full_barrier": 0, "empty_barrier": 0, "epilogue": 0},
                       deadlock=True, reason=reason, details=details)
