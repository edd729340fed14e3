"""Per-SM quantities of one configuration, all derived from HardwareSpec (no literals hide here).

This is the data's path for one CTA (one SM): TMA boxes per stage -> L2/HBM -> SMEM (full barrier,
complete_tx) -> tensor core (operands read from SMEM) -> accumulators (registers or TMEM) -> epilogue
-> store. ``SimParams`` is a pure function of (problem, config, hardware, clock).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..config import Epilogue, KernelConfig, StoreLayout, Swizzle, scale_stage_bytes, stage_bytes
from ..families import KernelFamily, Producer, get_family
from ..hardware import Arch, HardwareSpec
from ..problem import GemmProblem, Major
from .memory import (Traffic, dead_multicast_slice, fill_occupancy_bytes_per_stage, gpc_inflight_bytes_per_stage,
                     l2_occupancy_bytes_per_stage, l2_tag_lookups_per_stage, multicast_factors, store_l2_bytes_per_tile,
                     store_l2_lookups_per_tile, tma_bytes_per_clock, traffic, zero_fill_bytes_per_stage)
from .rates import mma_flops_per_clock_per_sm
from .scheduler import Schedule, make_schedule, operand_fill

SMEM_WAVEFRONT_BYTES = 128     # one conflict-free SMEM access: 32 banks x 4 bytes (CUDA Programming Guide)


@dataclass(frozen=True)
class SimParams:
    tmem: bool                     # sm_100a: one-thread tcgen05.mma, accumulators in Tensor Memory
    stages: int
    k_iters: int
    tiles_per_cta: int
    waves: int
    persistent: bool
    # producer (TMA)
    tma_issue_cycles: float        # issuing one stage's boxes (+ arrive.expect_tx)
    tma_latency_cycles: float      # L2 latency + the stage's miss probability x the HBM miss latency (unloaded)
    #                                + the zero fill's wait (zero_fill_wait_cycles)
    stage_tx_bytes: int            # expected on the stage's full barrier (both CTAs for cta_group::2)
    stage_smem_bytes: int          # written into this CTA's SMEM per stage
    l2_bytes_per_stage: float      # L2 bandwidth occupied (narrow box rows occupy more than they carry)
    hbm_bytes_per_stage: float
    tma_bytes_per_clock: float
    l2_bytes_per_clock: float      # this SM's share of L2 bandwidth
    hbm_bytes_per_clock: float     # this SM's share of HBM bandwidth
    # barriers
    wait_cycles: float
    arrive_cycles: float
    # MMA
    issuers: int                   # consumer warpgroups issuing MMAs (sm_90a), 1 thread on sm_100a
    instr_per_stage: int           # MMA instructions per stage per issuer
    instr_math_cycles: float       # per instruction, at the kind's rate (datapath share included)
    instr_smem_cycles: float       # per instruction: operand reads (+ bank conflicts) + its share of writes
    mma_latency_floor: float
    issue_overhead_cycles: float
    wait_depth: int
    # epilogue
    acc_buffers: int
    acc_load_cycles: float         # tcgen05.ld of one tile's accumulators (0 on sm_90a)
    epi_bytes_per_worker: float    # output bytes each epilogue worker converts and stores per tile
    epi_workers: int
    epi_bytes_per_clock: float
    out_bytes_per_tile: float      # written to L2/HBM per tile
    flops_per_stage: float         # useful FLOPs of one CTA per stage
    l2_moved_bytes_per_stage: float = 0.0   # bytes L2 actually moves (after multicast) + output share: power
    inline_issue_cycles: float = 0.0  # per k-block, on each MMA warpgroup's own path (software-pipelined loads)
    ctas_per_sm: int = 1              # co-resident CTAs simulated as one (their sums above)
    hbm_queue_cycles: float = 0.0     # loaded HBM latency: a stage that misses waits this x u/(1-u) more
    l2_tag_lookups_per_stage: float = 0.0   # L2 tag pipeline (TMA producers; 0: not modelled)
    l2_tag_lookups_per_clock: float = 0.0   # this SM's share of the chip's lookups per SM cycle
    miss_probability: float = 0.0     # share of the stages that wait for HBM (Traffic.stage_miss_probability)
    release_delay_cycles: float = 0.0  # a multicast stage's release reaches its producer this much later (peers)
    wgmma_queue_cycles: float = 0.0   # a wgmma batch's issue returns no earlier than its end less this (0: at once)
    tma_first_issue_cycles: float = -1.0  # a stage's first box is requested this long into its issue (<0: at its end)
    operand_fill: tuple[float, float, float] = (1.0, 1.0, 1.0)   # in-bounds shares of A rows, B rows, K (power)
    cta_setup_cycles: float = 0.0      # a CTA's start before its first load (gpu.cta_setup_s at this clock)
    # the epilogue workers' stores share the SM's store path side by side (direct stores: every warpgroup's st.global
    # interleave on it, so each one's epilogue lasts the whole tile's bytes at the path's rate); False: one after the
    # other, first come first served
    epi_shared_path: bool = False
    # the tile's output stores' L2 occupancy, charged to the SM's L2 share as the epilogue stores them (sm_90a: the
    # consumers store after their mainloop, while the producer refills the ring for the next tile); 0: carried by
    # the k-blocks in l2_bytes_per_stage
    l2_store_bytes_per_tile: float = 0.0
    l2_store_lookups_per_tile: float = 0.0   # and their L2 tag lookups, charged alike (0: in l2_tag_lookups_per_stage)
    # a stage of the CTA's first tile: the grid starts it in step at launch, and the L2 request coalescer merges more of
    # its reads (memory.lrc_merge first=True); 0: as l2_bytes_per_stage
    l2_first_bytes_per_stage: float = 0.0
    gpc_stage_bytes: float = 0.0      # a stage's bytes in flight (its L2 reads) and the part that waits as long
    gpc_miss_bytes: float = 0.0       # as an HBM miss (gpu.gpc_inflight_bytes; memory.gpc_inflight_bytes_per_stage)
    gpc_oob_bytes: float = 0.0        # and of those the zero fill (rows beyond the matrix edge)
    gpc_crowd_sms: int = 0            # SMs of the busiest GPC (0: GPCs not modelled)
    l2_chip_bytes_per_clock: float = 0.0  # this SM's share of the chip's L2 bandwidth, the pool's limit aside (power)
    l2_pool_stage_cycles: float = 0.0     # cycles a stage takes at the GPC in-flight pool's limit (0: no limit)
    grid_zero_fill_bytes: float = 0.0     # zero-fill bytes the grid's active SMs request in one k-block together

    @property
    def l2_share_gpc_bound(self) -> bool:
        """l2_bytes_per_clock is the GPC in-flight pool's limit, below the L2's own share."""
        return self.l2_bytes_per_clock < self.l2_chip_bytes_per_clock

    @property
    def l2_power_bytes_per_clock(self) -> float:
        """The share the L2's activity (and so its power) is counted against: the chip's L2 bandwidth per active SM,
        not the GPC pool's limit (a crowded GPC moves fewer bytes; the L2 is no busier for it)."""
        return self.l2_chip_bytes_per_clock or self.l2_bytes_per_clock

    @property
    def tag_cycles_per_stage(self) -> float:
        """L2 tag-pipeline cycles of one k-block's loads (0 where it is not modelled)."""
        return self.l2_tag_lookups_per_stage / self.l2_tag_lookups_per_clock if self.l2_tag_lookups_per_clock > 0 else 0.0

    @property
    def tag_cycles_per_tile_stores(self) -> float:
        """L2 tag-pipeline cycles of a tile's output stores where they are charged at the epilogue (else 0)."""
        return (self.l2_store_lookups_per_tile / self.l2_tag_lookups_per_clock if self.l2_tag_lookups_per_clock > 0
                else 0.0)

    @property
    def l2_bytes_per_k(self) -> float:
        """The L2 occupancy of one k-block over a tile: its loads and its share of the tile's output stores."""
        return self.l2_bytes_per_stage + self.l2_store_bytes_per_tile / self.k_iters

    @property
    def l2_tag_lookups_per_k(self) -> float:
        """The L2 tag lookups of one k-block over a tile: its loads' and its share of the tile's output stores'."""
        return self.l2_tag_lookups_per_stage + self.l2_store_lookups_per_tile / self.k_iters

    @property
    def steady_stage_cycles(self) -> float:
        """Per k-block cycles of the busiest resource in steady state inside a tile (its loads and MMAs; a tile's output
        stores, charged at its epilogue, are not in it)."""
        return self._steady_cycles(self.l2_bytes_per_stage)

    @property
    def first_tile_l2_bytes(self) -> float:
        """The L2 occupancy of a stage of the CTA's first tile (l2_first_bytes_per_stage, else the later tiles')."""
        return self.l2_first_bytes_per_stage or self.l2_bytes_per_stage

    @property
    def first_in_step(self) -> bool:
        """The first tile's stages occupy L2 differently from the later tiles' (extrapolate measures both)."""
        return self.first_tile_l2_bytes != self.l2_bytes_per_stage

    @property
    def first_tile_l2_reserve_bytes(self) -> float:
        """What a stage of the first tile reserves on the SM's L2 server (rate l2_bytes_per_clock): its own occupancy at
        the chip's L2 share, but never less than the GPC pool's time for a stage (the pool limits stages, not bytes)."""
        if not self.first_in_step:
            return self.l2_bytes_per_stage
        chip = self.l2_chip_bytes_per_clock or self.l2_bytes_per_clock
        return self.l2_bytes_per_clock * max(self.first_tile_l2_bytes / chip, self.l2_pool_stage_cycles)

    @property
    def steady_first_stage_cycles(self) -> float:
        """steady_stage_cycles for the stages of the CTA's first tile."""
        return self._steady_cycles(self.first_tile_l2_reserve_bytes)

    def _steady_cycles(self, l2_bytes_per_stage: float) -> float:
        return max(self.issuers * self.instr_per_stage * self.instr_cycles,
                   self.stage_smem_bytes / self.tma_bytes_per_clock,
                   l2_bytes_per_stage / self.l2_bytes_per_clock,
                   self.hbm_bytes_per_stage / self.hbm_bytes_per_clock,
                   self.tag_cycles_per_stage,
                   self.wait_cycles + self.tma_issue_cycles)

    @property
    def instr_cycles(self) -> float:
        """Tensor-core occupancy of one instruction: the slower of the math and the SMEM operands, plus
        the per-instruction issue cost (tensor_core.mma_issue_overhead_cycles): even back to back, an
        instruction stream leaves that gap in the tensor pipe (Luo et al.: 96.4% of peak for wgmma)."""
        return max(self.instr_math_cycles, self.instr_smem_cycles) + self.issue_overhead_cycles


@dataclass(frozen=True)
class ModelInputs:
    params: SimParams
    schedule: Schedule
    traffic: Traffic
    exit_s: float = 0.0     # seconds a launch adds after its CTAs' work (the clusters' exit barrier, gpu.cluster_exit_s)


def conflict_ways(sw: Swizzle) -> int:
    """Bank-conflict degree of an MMA operand read. The tensor core reads 8x16-byte core matrices (8 rows
    of one 16-byte K chunk). In every swizzle mode the rows are S bytes apart and the swizzle XORs the
    chunk index with the row bits (PTX §9.7.15.5.1.2 swizzling modes; cute Swizzle<B,4,3>), so the 8 rows
    of a core matrix fall in 8 distinct 4-bank groups: 32B, 64B and 128B are conflict-free (32B: rows 0-3
    at byte 0/32/64/96, rows 4-7 XOR-shifted by 16 to 144/176/208/240, 32 distinct banks). Only the
    model's unswizzled boxes (rows up to max_box_dim elements, 128-byte stride) put the 8 chunks of a
    column in the same banks: 8-way. Narrow swizzles are slow at the L2/TMA side instead (memory.py)."""
    return SMEM_WAVEFRONT_BYTES // Swizzle.NONE.span_bytes if sw is Swizzle.NONE else 1


def smem_read_cycles(nbytes: float, sw: Swizzle, hw: HardwareSpec) -> float:
    """Reading nbytes of an operand: bandwidth time plus bank_conflict_cycles_per_way per extra way
    on every 128-byte wavefront."""
    extra = (conflict_ways(sw) - 1) * hw.smem.bank_conflict_cycles_per_way
    return nbytes / hw.smem.read_bytes_per_clock_per_sm + nbytes / SMEM_WAVEFRONT_BYTES * extra


def half_datapath(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> bool:
    """PTX §9.7.16.10.5 layouts F and C: M=64 cta_group::1 and M=128 cta_group::2 sparse use half the
    datapath lanes (ptx-digest §6/§16: about half the peak)."""
    if hw.arch is not Arch.SM100A:
        return False
    return (cfg.mma_m == 64 and cfg.cta_group == 1) or (cfg.mma_m == 128 and cfg.cta_group == 2
                                                        and problem.sparse_a)


def mma_instruction(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> tuple[float, float, float]:
    """(math cycles, SMEM read cycles, useful FLOPs) of ONE MMA instruction on one SM."""
    # wgmma: M = 64 per instruction. tcgen05 cta_group::2: each SM computes its mma_m/2 rows against all
    # mma_n columns; it holds half of B and its SMEM serves that half to both tensor cores of the pair,
    # so each SM's SMEM still reads A-rows + a full B per instruction (its TMA loads only half of B).
    rows = 64 if hw.arch is Arch.SM90A else cfg.mma_m // cfg.cta_group
    cols_b = cfg.mma_n
    flops = 2.0 * rows * cfg.mma_n * cfg.mma_k
    rate = mma_flops_per_clock_per_sm(problem, hw) * (0.5 if half_datapath(problem, cfg, hw) else 1.0)
    a_bytes = problem.operand_bytes(problem.a_dtype, rows * cfg.mma_k) / (2 if problem.sparse_a else 1)
    b_bytes = problem.operand_bytes(problem.b_dtype, cols_b * cfg.mma_k)
    smem = smem_read_cycles(a_bytes, cfg.swizzle_a, hw) + smem_read_cycles(b_bytes, cfg.swizzle_b, hw)
    return flops / rate, smem, flops


def wgmma_latency_cycles(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> float:
    """Latency of one SS wgmma issued alone: max(math, SMEM operands, pipeline floor)."""
    math_c, smem_c, _ = mma_instruction(problem, cfg, hw)
    return max(math_c, smem_c, hw.tensor_core.mma_min_latency_cycles)


def _boxes(inner: int, outer: int, elem_bytes: float, sw: Swizzle, hw: HardwareSpec) -> int:
    """TMA boxes for an inner x outer block: a swizzled box's inner extent is at most the swizzle span
    (cuTensorMapEncodeTiled), every box dimension at most tma.max_box_dim."""
    max_box = hw.tma.max_box_dim
    inner_limit = max_box if sw is Swizzle.NONE else max(int(sw.span_bytes / elem_bytes), 1)
    return math.ceil(inner / min(inner_limit, max_box)) * math.ceil(outer / max_box)


def _box_counts(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> tuple[int, int, int, int]:
    """TMA copies one CTA issues per stage: A boxes, B boxes, scale-factor copies, and of A and B those
    that are multicast."""
    mc_a, mc_b = multicast_factors(cfg)
    rows = max(cfg.tile_m // mc_a, 1)
    cols = max(cfg.tile_n // cfg.cta_group // mc_b, 1)
    ka = cfg.tile_k // (2 if problem.sparse_a else 1)
    if problem.a_major is Major.K:
        na = _boxes(ka, rows, problem.a_elem_bytes, cfg.swizzle_a, hw)
    else:
        na = _boxes(rows, ka, problem.a_elem_bytes, cfg.swizzle_a, hw)
    if problem.b_major is Major.K:
        nb = _boxes(cfg.tile_k, cols, problem.b_elem_bytes, cfg.swizzle_b, hw)
    else:
        nb = _boxes(cols, cfg.tile_k, problem.b_elem_bytes, cfg.swizzle_b, hw)
    n_sf = 2 if problem.scale_vec_size else 0
    return na, nb, n_sf, (na if mc_a > 1 else 0) + (nb if mc_b > 1 else 0)


def _tma_issue_cycles(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> float:
    na, nb, n_sf, mc_boxes = _box_counts(problem, cfg, hw)
    return ((na + nb + n_sf) * hw.tma.issue_cycles + mc_boxes * hw.tma.multicast_issue_cycles
            + hw.sync.mbarrier_arrive_cycles)


def _hbm_latency(hw: HardwareSpec, clock_hz: float) -> tuple[float, float]:
    """(unloaded miss latency, queueing scale) of an L2 miss in SM cycles at this clock. HBM's latency is
    time, not SM cycles: tma.hbm_miss_latency_cycles was measured at the boost clock (mb_tma/tma_latency) and
    is scaled to this clock; tma.hbm_queue_ns is a time (mb_tma tma_hbm_sms / tma_hbm_panel)."""
    scale = clock_hz / hw.clock.boost_hz
    return hw.tma.hbm_miss_latency_cycles * scale, (hw.tma.hbm_queue_ns or 0.0) * 1e-9 * clock_hz


def l2_bytes_per_sm_clock(hw: HardwareSpec, clock_hz: float) -> float:
    """Chip L2 bandwidth per SM cycle at this SM clock: measured at l2.bandwidth_clock_hz; with
    sm_clock_scaling s < 1 part of it is fixed in bytes/s (the L2 keeps its clock when the power cap lowers
    the SM clock), bytes per SM cycle ~ (f_ref / f)^(1 - s)."""
    l2 = hw.l2
    return l2.bandwidth_bytes_per_clock * (l2.bandwidth_clock_hz / clock_hz) ** (1.0 - l2.sm_clock_scaling)


# tma.hbm_queue_ns was fitted on mb_tma points up to this HBM utilization; above it the ring is bound by the
# chip's HBM share itself, which the pipeline's SharedServer queues (sim/pipeline.py, and the pool below).
HBM_QUEUE_MAX_UTILIZATION = 0.85


def _loaded_pool_rate(pool_bytes: float, held0: float, queue_byte_cycles: float, hbm_cycles_per_stage: float) -> float:
    """Stages a cycle r that an SM's share of its GPC's pool (pool_bytes) allows when its zero-filled bytes wait at the
    loaded HBM latency: r x (held0 + queue_byte_cycles x u / (1 - u)) = pool_bytes, with u = r x hbm_cycles_per_stage
    the SM's use of its HBM share, held below HBM_QUEUE_MAX_UTILIZATION as in the pipeline (the left side grows
    with r: bisection)."""
    umax = HBM_QUEUE_MAX_UTILIZATION

    def need(r: float) -> float:
        u = min(r * hbm_cycles_per_stage, umax)
        return r * (held0 + queue_byte_cycles * u / (1.0 - u))
    lo, hi = 0.0, pool_bytes / held0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if need(mid) < pool_bytes else (lo, mid)
    return lo


def _memory_shares(hw: HardwareSpec, clock_hz: float, sched: Schedule, l2_bytes_per_stage: float,
                   gpc_bytes: tuple[float, float, float], crowd: int, hbm_bytes_per_stage: float = 0.0) -> dict:
    """This SM's share of L2 and HBM bandwidth per SM cycle: the only inputs that depend on the clock. The L2
    share is also held to what the SM's share of its GPC's in-flight TMA loads allows (gpu.gpc_inflight_bytes
    over the ``crowd`` SMs of the busiest GPC, HardwareSpec.busiest_gpc_sms: a grid that crowds one GPC is as
    slow as that GPC's SMs): a stage holds its bytes (gpc_bytes: all, the miss-like part, the zero fill among those)
    for tma.latency_cycles, the miss-like ones an HBM miss longer, so the SM completes at most (its share of the pool)
    / (those byte-cycles) stages a cycle; converted to the L2 occupancy bytes the L2 server counts. Under load the
    zero-filled bytes are held tma.pool_queue_share of the loaded HBM queueing longer (tma.hbm_queue_ns x u / (1 - u),
    u this SM's use of its HBM share, as in the pipeline; _loaded_pool_rate); the misses are not: mb_tma --gpc-load
    (data/ncu/gpc_load_h100) finds a crowded GPC's all-miss rings given their SMs' fair share of a saturated HBM (12
    SMs of one GPC beside 24-48 others: 796 / 791, 1016 / 1018, 1274 / 1230 cycles a k-block), while its rings with
    zero fill fall 20-40% behind the loading SMs as the chip loads, before the HBM saturates."""
    l2 = chip = l2_bytes_per_sm_clock(hw, clock_hz) / sched.active_sms
    hbm_share = hw.hbm_bytes_per_clock(clock_hz) / sched.active_sms
    total, miss, oob = gpc_bytes
    pool_cycles = 0.0
    if crowd and total > 0 and l2_bytes_per_stage > 0:
        miss_c, queue_c = _hbm_latency(hw, clock_hz)
        held = total * hw.tma.latency_cycles + miss * miss_c   # byte-cycles a stage
        rate = hw.gpu.gpc_inflight_bytes / crowd / held
        share = hw.tma.pool_queue_share or 0.0
        if share and queue_c and oob and hbm_bytes_per_stage > 0:     # zero fill held longer while HBM queues
            rate = _loaded_pool_rate(hw.gpu.gpc_inflight_bytes / crowd, held, oob * queue_c * share,
                                     hbm_bytes_per_stage / hbm_share)
        l2 = min(l2, rate * l2_bytes_per_stage)
        pool_cycles = 1.0 / rate
    return {"l2_bytes_per_clock": l2, "l2_chip_bytes_per_clock": chip, "l2_pool_stage_cycles": pool_cycles,
            "hbm_bytes_per_clock": hbm_share,
            "l2_tag_lookups_per_clock": (hw.l2.tag_lookups_per_s or 0.0) / clock_hz / sched.active_sms}


def zero_fill_wait_cycles(hw: HardwareSpec, clock_hz: float, grid_zero_fill_bytes: float) -> float:
    """How much later a stage lands for the zero fill the grid requests in a k-block: tma.oob_wait_cycles_per_byte per
    byte beyond tma.oob_wait_free_bytes (a time, measured at the boost clock, in SM cycles at this clock)."""
    t = hw.tma
    if not t.oob_wait_cycles_per_byte:
        return 0.0
    over = grid_zero_fill_bytes - (t.oob_wait_free_bytes or 0.0)
    return t.oob_wait_cycles_per_byte * over * clock_hz / hw.clock.boost_hz if over > 0 else 0.0


def _latencies(hw: HardwareSpec, clock_hz: float, traf: Traffic, grid_zero_fill_bytes: float = 0.0) -> dict:
    """The load latency of a stage (with the zero fill's wait, zero_fill_wait_cycles) and the HBM queueing scale at
    this clock (the other clock-dependent inputs)."""
    miss_c, queue_c = _hbm_latency(hw, clock_hz)
    p_miss = traf.stage_miss_probability
    return {"tma_latency_cycles": hw.tma.latency_cycles + p_miss * miss_c
            + zero_fill_wait_cycles(hw, clock_hz, grid_zero_fill_bytes), "hbm_queue_cycles": queue_c,
            "miss_probability": p_miss}


def _setup_cycles(hw: HardwareSpec, clock_hz: float) -> float:
    """A CTA's set-up before its first load in SM cycles at this clock (gpu.cta_setup_s is a time)."""
    return (hw.gpu.cta_setup_s or 0.0) * clock_hz


def at_clock(inputs: ModelInputs, hw: HardwareSpec, clock_hz: float) -> ModelInputs:
    """The same inputs at another SM clock (equal to build_inputs at that clock, without recomputing the
    schedule, the traffic and the per-stage quantities)."""
    p = inputs.params
    params = dataclasses.replace(p, **_memory_shares(hw, clock_hz, inputs.schedule,
                                                     p.l2_bytes_per_k,
                                                     (p.gpc_stage_bytes, p.gpc_miss_bytes, p.gpc_oob_bytes),
                                                     p.gpc_crowd_sms,
                                                     p.hbm_bytes_per_stage),
                                 **_latencies(hw, clock_hz, inputs.traffic, p.grid_zero_fill_bytes),
                                 cta_setup_cycles=_setup_cycles(hw, clock_hz) if p.cta_setup_cycles else 0.0)
    return dataclasses.replace(inputs, params=params)


def direct_store_rate(hw: HardwareSpec, crowd: int, layout: StoreLayout = StoreLayout.FRAGMENT) -> float:
    """Bytes a cycle one SM's direct-store epilogue writes: its own path's (sync.direct_store_bytes_per_clock_per_sm),
    at most its share of its GPC's store path (sync.direct_store_gpc_bytes_per_clock over the ``crowd`` SMs of the
    grid's busiest GPC, HardwareSpec.busiest_gpc_sms): the SMs of a grid end their tiles' mainloops together, so their
    epilogues store together. Our mb_tma --direct-store (the epilogue's stores alone): 8.0 B a cycle an SM up to 16
    CTAs; from 66 CTAs on the slowest CTA, the busiest GPC's, gets 63 (H100) / 74 (H200) B a cycle over its SMs.
    ``layout`` COALESCED (16 bytes a thread, whole rows a warp: Triton's pointer matmul) takes the
    sync.coalesced_store_* figures of the same microbenchmark where the hardware file has them (about 4x: 30 B a cycle
    an SM), else the fragment ones."""
    s = hw.sync
    rate, gpc = s.direct_store_bytes_per_clock_per_sm, s.direct_store_gpc_bytes_per_clock
    if layout is StoreLayout.COALESCED and s.coalesced_store_bytes_per_clock_per_sm:
        rate, gpc = s.coalesced_store_bytes_per_clock_per_sm, s.coalesced_store_gpc_bytes_per_clock
    return min(rate, gpc / crowd) if gpc and crowd > 0 else rate


def build_inputs(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, clock_hz: float,
                 family: "KernelFamily | str | None" = None, drift: float = 0.0) -> ModelInputs:
    """The simulation's inputs for one SM running ``family``'s schedule (default: our kernel). Co-resident
    CTAs of a non-persistent kernel (``Schedule.ctas_per_sm`` = c > 1) start together and run in step:
    the SM is simulated as one CTA with c times the MMA warpgroups, stage bytes, load issue work and
    output of one, sharing one tensor core, one TMA/LSU path, its L2/HBM share and its store path."""
    if cfg.multicast and dead_multicast_slice(problem, cfg):
        # a multicast box with a slice wholly beyond the matrix edge runs as the plain tile (sim/memory)
        cfg = cfg.replace(multicast=False)
    sch = get_family(family).schedule(problem, cfg, hw)
    c = sch.ctas_per_sm
    sched = make_schedule(problem, cfg, hw, c)
    traf = traffic(problem, cfg, hw, sched, drift)
    sm100 = hw.arch is Arch.SM100A
    k_iters = math.ceil(problem.k / cfg.tile_k)
    math_c, read_c, flops = mma_instruction(problem, cfg, hw)
    if sm100:
        issuers = 1
        n_instr = (math.ceil(cfg.tile_m * cfg.cta_group / cfg.mma_m) * math.ceil(cfg.tile_n / cfg.mma_n)
                   * math.ceil(cfg.tile_k / cfg.mma_k))
    else:
        issuers = sch.issuers
        n_instr = (max(sch.rows_per_issuer // 64, 1) * math.ceil(sch.cols_per_issuer / cfg.mma_n)
                   * math.ceil(cfg.tile_k / cfg.mma_k))
    out_bytes = cfg.tile_m * cfg.tile_n * problem.out_dtype.bits / 8
    sbytes = stage_bytes(problem, cfg)
    inline = _inline_issue_cycles(problem, cfg, hw, sch, sbytes)
    cp_async = sch.producer in (Producer.CP_ASYNC_INLINE, Producer.LDG_INLINE)
    # SMEM banks serve TMA writes, MMA operand reads, tcgen05.cp of scale factors and (on sm_100a, where
    # it overlaps the mainloop) the epilogue's staging: each instruction carries its share of the writes,
    # weighted by smem.write_port_share (1: writes take read cycles one for one; 0: a separate write path).
    writes = sbytes + scale_stage_bytes(problem, cfg)
    if sm100 and cfg.epilogue is Epilogue.TMA_STORE:
        writes += 2 * out_bytes / k_iters
    smem_c = read_c + hw.smem.write_port_share * writes / (issuers * n_instr) / hw.smem.read_bytes_per_clock_per_sm
    acc_bytes = cfg.tile_m * cfg.tile_n * problem.acc_dtype.bits / 8
    # the L2 occupancy of a stage's loads and of a tile's output stores: sm_90a charges the stores when the epilogue
    # issues them (after the mainloop, as the tile probes time it); sm_100a, whose epilogue overlaps the next
    # mainloop, spreads them over the tile's k-blocks
    # (and the L2 fills of the stage's HBM reads: l2.fill_cost)
    fill_occ = c * fill_occupancy_bytes_per_stage(traf, hw)
    load_occ = c * l2_occupancy_bytes_per_stage(problem, cfg, hw, tma=not cp_async) + fill_occ
    # the first tile's loads in step with the grid's (a non-persistent grid's later waves start staggered: the model
    # repeats its one simulated tile, so they all take the later tiles' merge; every wave in step was tried and judged
    # by the third Triton held-out set: better on the H100, worse on the H200, not kept)
    first_occ = (c * l2_occupancy_bytes_per_stage(problem, cfg, hw, tma=not cp_async, first=True) + fill_occ
                 if sch.persistent or sched.waves == 1 else load_occ)
    store_occ = c * store_l2_bytes_per_tile(problem, cfg, hw, sch.store_layout)
    store_lookups = store_l2_lookups_per_tile(problem, cfg, hw, sch.store_layout)
    l2_occ = load_occ + store_occ / k_iters
    # (all, miss-like, zero-filled) bytes a stage holds in its GPC's pool of TMA loads (measured for TMA; cp.async and
    # ld.global loads of the software-pipelined families are not counted in it)
    gpc_b = (0.0, 0.0, 0.0) if cp_async else tuple(
        c * x for x in gpc_inflight_bytes_per_stage(problem, cfg, traf, sched.tiles_per_cta))
    # clock-free: at_clock reuses it
    crowd = hw.busiest_gpc_sms(sched.active_sms, sched.cluster_size, sch.cluster_launch)
    grid_z = 0.0 if cp_async else c * sched.active_sms * zero_fill_bytes_per_stage(problem, cfg)
    hbm_b = c * (traf.hbm_read_bytes_per_stage + traf.hbm_write_bytes / (sched.n_tiles * cfg.cluster_size * k_iters))
    params = SimParams(
        tmem=sm100, stages=cfg.stages, k_iters=k_iters, tiles_per_cta=sched.tiles_per_cta, waves=sched.waves,
        persistent=sch.persistent,
        # one TMA unit per SM issues every co-resident CTA's boxes; cp.async copies are issued by each CTA's
        # own warps in parallel
        tma_issue_cycles=inline if cp_async else c * _tma_issue_cycles(problem, cfg, hw),
        stage_tx_bytes=c * sbytes * cfg.cta_group, stage_smem_bytes=c * sbytes,
        # output stores are posted to L2 and written back to HBM in the background: on sm_90a their L2 share is
        # taken when the epilogue issues them, ahead of the next tile's loads queued behind them (tile probe 5: the
        # next tile's first stage lands 3.8-5.3 us after its issue, a ring's worth inside a tile ~3 us); their HBM
        # write-back is carried by the k-blocks
        l2_bytes_per_stage=l2_occ if sm100 else load_occ,
        l2_store_bytes_per_tile=0.0 if sm100 else store_occ,
        l2_first_bytes_per_stage=first_occ + (store_occ / k_iters if sm100 else 0.0),
        l2_moved_bytes_per_stage=c * (traf.l2_read_bytes_per_stage + out_bytes / k_iters),
        l2_tag_lookups_per_stage=0.0 if cp_async else c * (l2_tag_lookups_per_stage(problem, cfg, hw, traf)
                                                            + (store_lookups / k_iters if sm100 else 0.0)),
        l2_store_lookups_per_tile=0.0 if cp_async or sm100 else c * store_lookups,
        hbm_bytes_per_stage=hbm_b,
        tma_bytes_per_clock=(hw.lsu.cp_async_bytes_per_clock_per_sm if cp_async
                             else tma_bytes_per_clock(problem, cfg, hw)),
        gpc_stage_bytes=gpc_b[0], gpc_miss_bytes=gpc_b[1], gpc_oob_bytes=gpc_b[2], gpc_crowd_sms=crowd,
        **_memory_shares(hw, clock_hz, sched, l2_occ, gpc_b, crowd, hbm_b), **_latencies(hw, clock_hz, traf, grid_z),
        grid_zero_fill_bytes=grid_z,
        wait_cycles=hw.sync.mbarrier_wait_cycles, arrive_cycles=hw.sync.mbarrier_arrive_cycles,
        issuers=c * issuers, instr_per_stage=n_instr, instr_math_cycles=math_c, instr_smem_cycles=smem_c,
        mma_latency_floor=hw.tensor_core.mma_min_latency_cycles,
        issue_overhead_cycles=hw.tensor_core.mma_issue_overhead_cycles,
        wait_depth=sch.wait_depth,
        acc_buffers=cfg.acc_buffers if sm100 else 1,
        acc_load_cycles=acc_bytes / hw.tmem.load_bytes_per_clock_per_sm if sm100 else 0.0,
        epi_bytes_per_worker=out_bytes if sm100 else out_bytes / issuers,
        epi_workers=1 if sm100 else c * issuers,
        epi_bytes_per_clock=(hw.sync.epilogue_bytes_per_clock_per_sm if cfg.epilogue is Epilogue.TMA_STORE
                             else direct_store_rate(hw, crowd, sch.store_layout)),
        # direct stores of warpgroups that finish their mainloops together interleave on the SM's path (tile probe:
        # each of a 256x128 tile's two warpgroups stores at about half the path's rate, and both end together)
        epi_shared_path=not sm100 and cfg.epilogue is not Epilogue.TMA_STORE and c * issuers > 1,
        out_bytes_per_tile=c * out_bytes, flops_per_stage=c * flops * n_instr * issuers,
        inline_issue_cycles=inline if sch.producer.inline else 0.0, ctas_per_sm=c,
        cta_setup_cycles=_setup_cycles(hw, clock_hz) if sch.pays_cta_setup else 0.0,
        # a multicast load fills every receiving CTA's stage: the producer waits for the peers' releases too,
        # which arrive over the cluster (symmetric peers release when this CTA's consumers do)
        release_delay_cycles=(hw.sync.cluster_arrive_cycles or 0.0) if cfg.multicast and cfg.cluster_size > 1
        and not sm100 else 0.0,
        # the SM's tensor core queues wgmma_queue_instructions of its warpgroups' instructions (one queue, whoever issued)
        wgmma_queue_cycles=0.0 if sm100 else (hw.tensor_core.wgmma_queue_instructions or 0.0) * (
            max(math_c, smem_c) + hw.tensor_core.mma_issue_overhead_cycles),
        # a stage's boxes are issued one after another by one thread: the first is requested after its own issue
        # (and the stage's expect_tx), the others stream in while the rest are issued (tma.issue_cycles a box)
        tma_first_issue_cycles=-1.0 if cp_async else hw.tma.issue_cycles + hw.sync.mbarrier_arrive_cycles,
        operand_fill=operand_fill(problem, cfg, sched))
    return ModelInputs(params, sched, traf, (hw.gpu.cluster_exit_s or 0.0) if sch.cluster_exit_sync else 0.0)


def _inline_issue_cycles(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, sch, sbytes: int) -> float:
    """Cycles the MMA warps spend per k-block issuing their own loads (software-pipelined families): the
    TMA boxes and expect_tx of one stage (one thread issues them, the others wait at the CTA barrier), or
    a stage's 16-byte cp.async copies spread over the CTA's warps, each warp-wide copy with its address
    and mask arithmetic (lsu.cp_async_issue_cycles_per_warp_instr)."""
    if sch.producer is Producer.TMA_INLINE:
        return _tma_issue_cycles(problem, cfg, hw)
    if sch.producer is Producer.CP_ASYNC_INLINE:
        warps = 4 * sch.issuers
        warp_instrs = sbytes / (16 * 32)
        return warp_instrs / warps * hw.lsu.cp_async_issue_cycles_per_warp_instr
    if sch.producer is Producer.LDG_INLINE:
        # element-wide loads through registers: a 2-byte ld.global and an st.shared per element and thread,
        # each taken at the issue cost of one warp-wide cp.async (an assumption, not a measurement)
        warps = 4 * sch.issuers
        warp_instrs = 2 * sbytes / (problem.a_elem_bytes * 32)
        return warp_instrs / warps * hw.lsu.cp_async_issue_cycles_per_warp_instr
    return 0.0


__all__ = ["SimParams", "ModelInputs", "at_clock", "build_inputs", "mma_instruction", "wgmma_latency_cycles",
           "conflict_ways", "smem_read_cycles", "half_datapath"]
