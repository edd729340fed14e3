"""Hardware specifications: `configs/hardware/*.toml` is the only source of hardware truth.

Every value in a hardware file is a table ``key = { value = ..., source = "..." }`` so that the
provenance of each number travels with it. Keys carry their unit (``_hz``, ``_bytes``, ``_cycles``).
The schema below is the dataclass fields themselves: each field's metadata gives its type and range,
and loading rejects a missing key, a wrong type, an out-of-range value or an unknown key, naming
the file, the key and the reason.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import ConfigError, HardwareSpecError, UnknownGpuError, decode_utf8


class UnknownHardwareKeyError(HardwareSpecError, KeyError):
    """``with_values`` with a key the schema does not have (a KeyError too, for dict-like callers)."""

    def __str__(self) -> str:   # KeyError would quote the message
        return Exception.__str__(self)


class Arch(enum.Enum):
    SM90A = "sm_90a"
    SM100A = "sm_100a"

    @property
    def family(self) -> str:
        return "hopper" if self is Arch.SM90A else "blackwell"


def _f(lo: float, hi: float, typ: type = float, optional: bool = False):
    """A schema field: allowed type and closed range."""
    return field(metadata={"lo": lo, "hi": hi, "type": typ, "optional": optional},
                 default=None if optional else dataclasses.MISSING)


@dataclass(frozen=True, kw_only=True)
class GpuSection:
    sm_count: int = _f(1, 1024, int)
    max_cluster_size_portable: int = _f(1, 16, int)
    max_cluster_size_nonportable: int = _f(1, 16, int)
    tdp_w: float = _f(50, 3000)
    # SMs that co-resident clusters of 4 / 8 CTAs can occupy (a cluster lives in one GPC; GPCs of uneven
    # size leave SMs idle): cudaOccupancyMaxActiveClusters x cluster size
    cluster4_sms: int = _f(1, 1024, int)
    cluster8_sms: int = _f(1, 1024, int)
    # the same for non-portable clusters of 16 (absent: not measured; predictions of such clusters are refused)
    cluster16_sms: int = _f(1, 1024, int, optional=True)
    max_threads_per_sm: int = _f(32, 1 << 16, int)     # resident threads per SM (occupancy)
    max_ctas_per_sm: int = _f(1, 1024, int)            # resident thread blocks per SM (occupancy)
    # seconds a launch adds to a kernel timed by a CUDA event pair around each launch (our harness, Triton's
    # do_bench, the cuBLASLt benchmark); absent: 0 (predictions are the kernel's own time)
    launch_overhead_s: float = _f(0, 1e-3, optional=True)
    # GPU time between one launch's closing event and the next launch's opening event in such a loop; with
    # launch_overhead_s, the time the SMs idle between back-to-back launches (the power-limited clock averages
    # power over both: sim/power.py); absent: 0
    launch_gap_s: float = _f(0, 1e-3, optional=True)
    # seconds from one of our kernel's CTAs' first instruction to its producer's first load (barrier set-up, register
    # reallocation, first parameter and descriptor reads): every CTA an SM runs pays it before its pipeline starts
    # (sim/model.py); a time, the same at 1.65-1.98 GHz in our tile probe; absent: 0
    cta_setup_s: float = _f(0, 1e-4, optional=True)
    # seconds a kernel whose clusters' CTAs meet at a cluster barrier before they exit (our kernel: no CTA leaves while a
    # peer may still write it) takes longer than one that exits at once (barrier.cluster arrive + wait after the last
    # work, timed as our harness times); absent: 0
    cluster_exit_s: float = _f(0, 1e-4, optional=True)
    # GPCs and the TMA loads each can have in flight (absent: not modelled). A GPC's SMs share one pool of
    # outstanding loads, so a grid whose CTAs crowd one GPC runs that GPC's SMs with fewer bytes in flight each
    # (sim/params.py). How a grid spreads: its first gpc_packed_ctas CTAs land on that many SMs of one GPC (two
    # per TPC), the rest go round-robin over the GPCs, one SM of each TPC first; clusters differ
    # (HardwareSpec.busiest_gpc_sms)
    gpcs: int = _f(1, 64, int, optional=True)
    gpc_packed_ctas: int = _f(0, 64, int, optional=True)
    gpc_inflight_bytes: float = _f(1e4, 1e9, optional=True)   # bytes of TMA loads one GPC holds in flight


@dataclass(frozen=True, kw_only=True)
class ClockSection:
    base_hz: float = _f(1e8, 5e9)
    boost_hz: float = _f(1e8, 5e9)
    tensor_peak_hz: float = _f(1e8, 5e9)          # the clock the datasheet peak is quoted at
    tensor_max_hz: float = _f(1e8, 5e9, optional=True)   # the highest SM clock while tensor cores run (measured)
    sustained_tensor_hz: float = _f(1e8, 5e9)      # observed under sustained tensor load (power cap)
    # power-limited clock (perfmodel/sim/power.py): P ~ f^power_exponent x activity, capped at TDP
    power_exponent: float = _f(1, 6)               # dynamic power ~ f^gamma along the DVFS curve
    tensor_power_fraction: float = _f(0, 1)        # share of the capped power that follows tensor activity
    f8_tensor_power_ratio: float = _f(0.5, 3)      # tensor power per busy cycle, 8-bit kinds / f16
    stream_tensor_power_ratio: float = _f(0.5, 3, optional=True)   # a GEMM's streamed operands / the burn's one tile
    # tensor power per busy cycle of MMAs on zero operands (the zero fill of a tile's rows beyond the matrix edge) /
    # on random ones, and what B's data alone adds (A zero) as a share of the same (sim/power.zero_fill_weight);
    # absent: zeros cost as much as data
    zero_operand_power_ratio: float = _f(0, 1, optional=True)
    b_operand_power_ratio: float = _f(0, 1, optional=True)
    l2_power_fraction: float = _f(0, 2)            # power of a saturated L2->SM path, share of the cap
    hbm_power_w: float = _f(0, 3000)               # W that HBM reads add at the datasheet rate, at the boost clock
    # the share of hbm_power_w drawn on the GPU core's voltage rail (memory controllers, L2 miss path, crossbar), whose
    # voltage follows the SM clock: that share scales as V^2 ~ (f / boost)^(power_exponent - 1) (sim/power.hbm_share);
    # absent: all of it on the memory's own rail, flat in the SM clock
    hbm_core_share: float = _f(0, 1, optional=True)
    # the power the limiter allows over the first tens of ms of load, relative to its sustained cap (the `short`
    # clock regime, sim/clock.py); absent: not measured, `short` predicts at the boost clock
    short_power_ratio: float = _f(1, 3, optional=True)


@dataclass(frozen=True, kw_only=True)
class TensorCoreSection:
    """Dense FLOP (or OP) per clock per SM for each MMA kind; sparse doubles K at equal time."""
    f16_flops_per_clock_per_sm: float = _f(1, 1e6)
    tf32_flops_per_clock_per_sm: float = _f(1, 1e6)
    f8_flops_per_clock_per_sm: float = _f(1, 1e6)
    i8_ops_per_clock_per_sm: float = _f(1, 1e6)
    f6_flops_per_clock_per_sm: float = _f(1, 1e6, optional=True)
    f4_flops_per_clock_per_sm: float = _f(1, 1e6, optional=True)
    mxf8f6f4_flops_per_clock_per_sm: float = _f(1, 1e6, optional=True)
    mxf4_flops_per_clock_per_sm: float = _f(1, 1e6, optional=True)
    mxf4nvf4_flops_per_clock_per_sm: float = _f(1, 1e6, optional=True)
    sparse_speedup: float = _f(1, 4)
    mma_min_latency_cycles: float = _f(1, 1000)    # fixed pipeline latency floor of one MMA
    mma_issue_overhead_cycles: float = _f(0, 1000)  # per-instruction issue cost, also a gap in the tensor pipe
    # sm_90a: a warpgroup's wgmma issue blocks while the SM's tensor core queue is full and returns with this many of the
    # SM's instructions still queued, whichever warpgroups issued them (absent: it returns at once); it frees the
    # previous stage only then
    wgmma_queue_instructions: float = _f(0, 64, optional=True)


@dataclass(frozen=True, kw_only=True)
class SmemSection:
    per_sm_bytes: int = _f(1024, 1 << 22, int)
    per_block_optin_bytes: int = _f(1024, 1 << 22, int)
    read_bytes_per_clock_per_sm: float = _f(1, 4096)
    latency_cycles: float = _f(1, 1000)
    banks: int = _f(1, 128, int)
    bank_conflict_cycles_per_way: float = _f(0, 100)
    reserved_per_block_bytes: int = _f(0, 65536, int)   # driver/system reservation per CTA
    write_port_share: float = _f(0, 1)   # fraction of SMEM write bytes (TMA landing, staging) taking read cycles


@dataclass(frozen=True, kw_only=True)
class RegisterSection:
    per_sm: int = _f(1024, 1 << 20, int)
    max_per_thread: int = _f(16, 1024, int)
    setmaxnreg_max_per_thread: int = _f(16, 1024, int)


@dataclass(frozen=True, kw_only=True)
class TmemSection:
    columns: int = _f(0, 4096, int)
    lanes: int = _f(0, 1024, int)
    load_bytes_per_clock_per_sm: float = _f(0, 1e5)


@dataclass(frozen=True, kw_only=True)
class L2Section:
    size_bytes: int = _f(1 << 20, 1 << 32, int)
    bandwidth_bytes_per_clock: float = _f(1, 1e6)
    hit_latency_cycles: float = _f(1, 10000)
    bandwidth_clock_hz: float = _f(1e8, 5e9)      # SM clock during the bandwidth measurement
    sm_clock_scaling: float = _f(0, 1)            # 1: bytes per SM cycle fixed; 0: bytes/s fixed (own clock)
    # The L2 tag pipeline (sim/memory.l2_tag_lookups_per_stage; absent: not modelled): every request looks its
    # line up once; achievable lookups per second of the chip (the L2 runs its own clock), and the lookups the
    # two-partition fabric adds, one per this many bytes of L2 reads and of HBM fills
    tag_lookups_per_s: float = _f(1e9, 1e13, optional=True)
    fabric_read_bytes_per_lookup: float = _f(1, 1e6, optional=True)
    fabric_fill_bytes_per_lookup: float = _f(1, 1e6, optional=True)
    # The L2 request coalescer (sim/memory.lrc_merge; absent: 1): SM-received over slice-served read sectors of
    # TMA loads with 128-byte box rows and no multicast (ncu lrc__ counters of our GEMM), the model's merge of a ring
    # of memory.LRC_REFERENCE_STAGES stages; and how it falls with ring depth (absent: the same at every depth):
    # ncu's (received / served) - 1 = lrc_merge_per_stage / stages; a CTA's first tile, which every CTA of the grid
    # starts at launch in step with the others, merges as lrc_merge_first_per_stage / stages (absent: as its later tiles)
    lrc_merge_128b: float = _f(1, 8, optional=True)
    lrc_merge_per_stage: float = _f(0, 10, optional=True)
    lrc_merge_first_per_stage: float = _f(0, 10, optional=True)
    # The share of the L2 that keeps a GEMM's operand panels for reuse across a wave (absent: 1, all of it): fitted on
    # our ncu HBM reads of the GEMM (benchmarks/hbm_traffic.py --grid); sim/memory.reuse_capacity_bytes
    reuse_capacity_fraction: float = _f(0.05, 1.0, optional=True)
    # How fast the CTAs of an L2-bound kernel drift apart, in k-blocks per k-block of their run (sim/memory.drift_cohorts;
    # absent: they walk K in step): the spread of the SMs' progress rates when the L2 path sets their pace
    sm_rate_spread: float = _f(0, 2, optional=True)
    # The shallowest ring whose CTAs drift at that rate (absent: every ring): a shallower one keeps its sharers nearly
    # in step, drifting at sm_rate_spread_shallow (absent: 0) (sim/memory.drift_spread)
    drift_min_stages: int = _f(1, 64, int, optional=True)
    sm_rate_spread_shallow: float = _f(0, 2, optional=True)
    # What an L2 fill from HBM costs the L2's data path, as a share of an L2 hit byte's time (absent: 0, fills free):
    # every byte a stage reads from HBM also occupies the L2 this share of a hit (sim/memory.fill_occupancy_bytes_per_stage)
    fill_cost: float = _f(0, 4, optional=True)


@dataclass(frozen=True, kw_only=True)
class HbmSection:
    size_bytes: int = _f(1 << 30, 1 << 42, int)
    bandwidth_bytes_per_s: float = _f(1e10, 1e14)
    achievable_fraction: float = _f(0.1, 1.0)
    latency_cycles: float = _f(1, 10000)


@dataclass(frozen=True, kw_only=True)
class TmaSection:
    issue_cycles: float = _f(0, 10000)
    latency_cycles: float = _f(1, 10000)
    max_box_dim: int = _f(1, 4096, int)
    bytes_per_clock_per_sm: float = _f(1, 4096)
    multicast_issue_cycles: float = _f(0, 10000)
    # chip-wide L2->SMEM throughput of boxes with 128/64/32-byte rows, relative to l2.bandwidth
    l2_efficiency_128b: float = _f(0.05, 1.5)
    l2_efficiency_64b: float = _f(0.05, 1.5)
    l2_efficiency_32b: float = _f(0.05, 1.5)
    hbm_miss_latency_cycles: float = _f(0, 10000)   # extra latency of a box that misses L2 (from HBM), at boost
    # loaded HBM latency: a miss waits hbm_queue_ns x u / (1 - u) more at HBM utilization u (absent: no queueing
    # below saturation; sim/pipeline.py)
    hbm_queue_ns: float = _f(0, 100000, optional=True)
    # how many times that queueing a zero-fill byte in flight holds its GPC's pool of TMA loads (gpu.gpc_inflight_bytes)
    # longer: the pool counts bytes from request to landing, the box latency its last byte (absent / 0: unloaded holds)
    pool_queue_share: float = _f(0, 10, optional=True)
    # the L2 bandwidth a box row beyond the matrix edge (zero fill) occupies, relative to a row in bounds (absent: 1)
    oob_l2_cost: float = _f(0, 100, optional=True)
    # the zero fill's wait: a stage's boxes land oob_wait_cycles_per_byte (SM cycles at the boost clock) later per byte
    # of zero fill that the grid's active SMs request in one k-block together beyond oob_wait_free_bytes (absent: none)
    oob_wait_cycles_per_byte: float = _f(0, 1, optional=True)
    oob_wait_free_bytes: float = _f(0, 1e9, optional=True)
    # Row pitch / address alignment (perfmodel/sim/memory.py; absent: every row costs as if line-aligned).
    # A box row is one L2 request per line it touches, plus a head/tail request when it starts/ends mid-sector.
    sector_bytes: int = _f(1, 1024, int, optional=True)      # L2 sector (granule of a request's data)
    line_bytes: int = _f(1, 4096, int, optional=True)        # L2 line (one request covers sectors of one line)
    request_cycles: float = _f(0, 100, optional=True)        # one SM's TMA unit: cycles per L2 request
    l2_request_bytes: float = _f(0, 4096, optional=True)     # L2 bandwidth (bytes) one extra load request occupies
    l2_sector_bytes: float = _f(0, 4096, optional=True)      # ... one extra sector of a load row (mid-sector start)
    store_l2_request_bytes: float = _f(0, 4096, optional=True)   # the same for TMA stores (output)
    store_l2_sector_bytes: float = _f(0, 4096, optional=True)


@dataclass(frozen=True, kw_only=True)
class SyncSection:
    mbarrier_wait_cycles: float = _f(0, 10000)
    mbarrier_arrive_cycles: float = _f(0, 10000)
    epilogue_bytes_per_clock_per_sm: float = _f(1, 4096)          # TMA-store epilogue (smem staging)
    direct_store_bytes_per_clock_per_sm: float = _f(0.1, 4096)    # epilogue storing fragments to global
    # the store path one GPC's SMs share for those direct stores, bytes per SM cycle (absent: not modelled): the SMs
    # of the grid's busiest GPC each get this over their count, at most the per-SM figure (sim/params.direct_store_rate)
    direct_store_gpc_bytes_per_clock: float = _f(1, 1e5, optional=True)
    # the same two figures for coalesced direct stores (StoreLayout.COALESCED: 16 bytes a thread, whole rows a warp);
    # absent: such stores take the fragment figures above
    coalesced_store_bytes_per_clock_per_sm: float = _f(0.1, 4096, optional=True)
    coalesced_store_gpc_bytes_per_clock: float = _f(1, 1e5, optional=True)
    # what an mbarrier arrive from another CTA of the cluster takes beyond one from the same CTA (a multicast
    # stage is free only when every receiving CTA's consumers released it; absent: 0)
    cluster_arrive_cycles: float = _f(0, 100000, optional=True)


@dataclass(frozen=True, kw_only=True)
class LsuSection:
    """Loads issued by threads (cp.async, as Triton's pointer-based matmul pipelines them) rather than TMA."""
    cp_async_issue_cycles_per_warp_instr: float = _f(0, 1000)   # one warp-wide 16-byte cp.async + its address math
    cp_async_bytes_per_clock_per_sm: float = _f(1, 4096)        # L2 -> SMEM through the LSU, one SM


_SECTIONS = {
    "gpu": GpuSection, "clock": ClockSection, "tensor_core": TensorCoreSection, "smem": SmemSection,
    "registers": RegisterSection, "tmem": TmemSection, "l2": L2Section, "hbm": HbmSection,
    "tma": TmaSection, "sync": SyncSection, "lsu": LsuSection,
}


@dataclass(frozen=True)
class HardwareSpec:
    name: str
    marketing_name: str
    arch: Arch
    gpu: GpuSection
    clock: ClockSection
    tensor_core: TensorCoreSection
    smem: SmemSection
    registers: RegisterSection
    tmem: TmemSection
    l2: L2Section
    hbm: HbmSection
    tma: TmaSection
    sync: SyncSection
    lsu: LsuSection
    path: str = field(default="", compare=False)
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    fingerprint: str = field(default="", compare=False)

    @property
    def sm_count(self) -> int:
        return self.gpu.sm_count

    def resident_clusters(self, cluster_size: int) -> int:
        """Clusters of this many CTAs (one per SM) that run at once: GPC-limited for 4, 8 and 16 (measured,
        the hardware file), as many as the SMs hold for 1 and 2 (a TPC's two SMs share a GPC). Other sizes
        have no measured residency: ConfigError (the PTX allows them, so `check` still calls them legal; the
        model cannot schedule them)."""
        known = {1: self.gpu.sm_count, 2: self.gpu.sm_count, 4: self.gpu.cluster4_sms, 8: self.gpu.cluster8_sms,
                 16: self.gpu.cluster16_sms}
        sms = known.get(cluster_size)
        if sms is None:
            sizes = ", ".join(str(k) for k, v in known.items() if v is not None)
            raise ConfigError(f"clusters of {cluster_size} CTAs: how many reside at once on {self.name} is not measured "
                              f"(a cluster lives in one GPC; the model knows clusters of {sizes} CTAs)")
        return max(min(sms, self.gpu.sm_count) // max(cluster_size, 1), 1)

    def busiest_gpc_sms(self, active_sms: int, cluster_size: int = 1, cluster_launch: bool = False) -> int:
        """SMs of the most crowded GPC when a grid occupies ``active_sms`` SMs (one CTA each) in clusters of
        ``cluster_size``. Plain grids and clusters of 2: the first gpu.gpc_packed_ctas land on that many SMs of
        one GPC (two per TPC). The rest go round-robin over the GPCs, a cluster at a time: a plain grid one SM of
        each free TPC first, then the TPCs' other SMs; clusters take whole TPCs. Clusters of 4 and more start
        spread, and never use those packed SMs. The TPCs some GPCs have beyond sm_count / (2 x gpcs) come last.
        Our mb_tma --gpc-probe: %smid of grids of 8..132 CTAs on two H100 cards and an H200, and of clusters of 2
        and 4 on the H200. 0 where the GPCs are not modelled.

        ``cluster_launch``: a grid of single CTAs launched through the cluster API (cudaLaunchKernelEx with a cluster
        dimension of 1, as our kernel always is) lands otherwise, by rows of TPCs (_tpc_row_order): our GEMM's own
        CTAs' %smid (harness --cta-probe, 18 grids of 16-128 CTAs on an H100, 2026-11-26)."""
        g = self.gpu
        if not g.gpcs or not g.gpc_inflight_bytes:
            return 0
        n = min(max(active_sms, 0), g.sm_count)
        unit = max(cluster_size, 1)
        if cluster_launch and unit == 1:
            taken = self._tpc_row_order()[:n]
            return max(taken.count(i) for i in range(g.gpcs)) if taken else 0
        tpcs = g.sm_count // (2 * g.gpcs)
        region = min(g.gpc_packed_ctas or 0, 2 * tpcs)      # the packed SMs (whole TPCs of GPC 0)
        packed = min(region, n) if unit <= 2 else 0
        counts = [packed] + [0] * (g.gpcs - 1)
        left = n - packed
        caps = [2 * tpcs - region] + [2 * tpcs] * (g.gpcs - 1)   # SMs each GPC offers the round-robin
        if unit == 1:                                    # one SM of each TPC, then the other
            halves = [[c // 2 for c in caps], [c - c // 2 for c in caps]]
        else:
            halves = [caps]
        for avail in halves:
            avail = list(avail)
            while left > 0 and any(a >= min(unit, left) for a in avail):
                for i in range(g.gpcs):
                    take = min(unit, left)
                    if left and avail[i] >= take:
                        counts[i], avail[i], left = counts[i] + take, avail[i] - take, left - take
        for i in range(left):                            # the TPCs beyond 2 x tpcs per GPC, a pair at a time
            counts[(i // 2) % g.gpcs] += 1
        return max(counts)

    def _tpc_row_order(self) -> list[int]:
        """The GPC of each SM in the order a cluster-API launch of single CTAs takes them. The TPCs form rows: the
        first holds GPC 0's gpu.gpc_packed_ctas / 2 packed TPCs and one TPC of every GPC, each later row one TPC of
        every GPC that has one left. A row gives its TPCs' first SMs, then their second SMs (the GPC 0 TPCs of a
        row first: a launch may start the row at another GPC, so this is the busiest case). The TPCs some GPCs
        have beyond sm_count / (2 x gpcs) come last, a pair at a time."""
        g = self.gpu
        tpcs = g.sm_count // (2 * g.gpcs)
        packed = min((g.gpc_packed_ctas or 0) // 2, tpcs)
        left = [tpcs - packed] + [tpcs] * (g.gpcs - 1)
        order, head = [], [0] * packed
        while any(left):
            row = head + [i for i in range(g.gpcs) if left[i] > 0]
            for i in range(g.gpcs):
                left[i] -= left[i] > 0
            order += row + row
            head = []
        order += [(i // 2) % g.gpcs for i in range(g.sm_count - len(order))]
        return order

    @property
    def tensor_max_clock_hz(self) -> float:
        """The highest SM clock of a kernel whose tensor cores run: clock.tensor_max_hz where it is measured (our H100's
        in-kernel clock probe reads 1.80-1.87 GHz, median 1.83, for GEMMs far under the power cap, where NVML reads
        1980 MHz and TMA-only microbenchmarks run at 1.98), else the boost clock."""
        t = self.clock.tensor_max_hz
        return min(self.clock.boost_hz, t) if t else self.clock.boost_hz

    def hbm_bytes_per_clock(self, clock_hz: float) -> float:
        """Achievable HBM bytes per SM-clock cycle for the whole chip at the given clock."""
        return self.hbm.bandwidth_bytes_per_s * self.hbm.achievable_fraction / clock_hz

    def source_of(self, dotted_key: str) -> str:
        return self.sources[dotted_key]

    def with_values(self, **dotted: float) -> "HardwareSpec":
        """A copy with some values replaced: ``spec.with_values(**{"tma.latency_cycles": 700})``.
        Used by calibration; the fingerprint is recomputed from the new values. Each value gets the
        checks loading a TOML applies (type, range, consistency between keys: ``_check_number`` and
        ``_check_consistency``); a bad one raises HardwareSpecError naming the key and the reason, an
        unknown key UnknownHardwareKeyError (also a KeyError)."""
        sections = {s: getattr(self, s) for s in _SECTIONS}
        where = f"{self.path or self.name} (with_values)"
        for key, value in dotted.items():
            sec, _, name = key.partition(".")
            fields = {f.name: f for f in dataclasses.fields(sections[sec])} if sec in sections else {}
            if name not in fields:
                raise UnknownHardwareKeyError(where, key, "unknown hardware key")
            checked = _check_number(where, key, value, fields[name].metadata)
            sections[sec] = dataclasses.replace(sections[sec], **{name: checked})
        _check_consistency(where, self.arch, sections)
        new = dataclasses.replace(self, **sections)
        return dataclasses.replace(new, fingerprint=_fingerprint_of(new))


def config_dir() -> Path:
    env = os.environ.get("PERFMODEL_CONFIG_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "configs"


def hardware_dir() -> Path:
    return config_dir() / "hardware"


def list_gpus() -> list[str]:
    return sorted(p.stem for p in hardware_dir().glob("*.toml"))


def _check_value(path: str, key: str, raw: Any, meta: Mapping[str, Any]) -> Any:
    if not isinstance(raw, dict) or "value" not in raw or "source" not in raw:
        raise HardwareSpecError(path, key, "must be a table { value = ..., source = \"...\" }")
    extra = set(raw) - {"value", "source", "note"}
    if extra:
        raise HardwareSpecError(path, key, f"unexpected fields {sorted(extra)}")
    if not isinstance(raw["source"], str) or not raw["source"].strip():
        raise HardwareSpecError(path, key, "source must be a non-empty string")
    return _check_number(path, key, raw["value"], meta)


def _check_number(path: str, key: str, value: Any, meta: Mapping[str, Any]) -> Any:
    """One value against its schema field (type and closed range): the one check both a TOML file
    and ``HardwareSpec.with_values`` go through. Returns the value as the field's type."""
    typ = meta["type"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise HardwareSpecError(path, key, f"value must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise HardwareSpecError(path, key, f"value must be finite, got {value!r}")
    if typ is int and not (isinstance(value, int) or float(value).is_integer()):
        raise HardwareSpecError(path, key, f"value must be an integer, got {value!r}")
    value = typ(value)
    if not meta["lo"] <= value <= meta["hi"]:
        raise HardwareSpecError(path, key, f"value {value} outside [{meta['lo']}, {meta['hi']}]")
    return value


def _check_consistency(path: str, arch: Arch, sections: Mapping[str, Any]) -> None:
    """Checks between keys (a file and ``with_values`` alike)."""
    if arch is Arch.SM100A and sections["tmem"].columns == 0:
        raise HardwareSpecError(path, "tmem.columns", "sm_100a parts have Tensor Memory (512 columns)")
    if arch is Arch.SM90A and sections["tmem"].columns != 0:
        raise HardwareSpecError(path, "tmem.columns", f"{sections['tmem'].columns} on an sm_90a part: it has no "
                                                      f"Tensor Memory (PTX ISA 9.0 §9.7.16.1: sm_100a/f only), give 0")
    if sections["clock"].boost_hz < sections["clock"].base_hz:
        raise HardwareSpecError(path, "clock.boost_hz", "boost clock below base clock")
    if sections["smem"].per_block_optin_bytes > sections["smem"].per_sm_bytes:
        raise HardwareSpecError(path, "smem.per_block_optin_bytes", "exceeds smem.per_sm_bytes")


def _build_section(path: str, name: str, cls: type, table: Any, sources: dict[str, str]):
    if not isinstance(table, dict):
        raise HardwareSpecError(path, name, "missing section" if table is None else "must be a table")
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(table) - set(known)
    if unknown:
        raise HardwareSpecError(path, f"{name}.{sorted(unknown)[0]}", "unknown key")
    kwargs = {}
    for fname, f in known.items():
        dotted = f"{name}.{fname}"
        if fname not in table:
            if f.metadata["optional"]:
                continue
            raise HardwareSpecError(path, dotted, "required key is missing")
        kwargs[fname] = _check_value(path, dotted, table[fname], f.metadata)
        sources[dotted] = table[fname]["source"]
    return cls(**kwargs)


def _fingerprint_of(spec: HardwareSpec) -> str:
    parts = [spec.name, spec.arch.value] + [repr(getattr(spec, s)) for s in _SECTIONS]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def parse_hardware(text: str, path: str = "<string>") -> HardwareSpec:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HardwareSpecError(path, "<toml>", f"not valid TOML: {exc}") from None
    meta = doc.get("meta")
    if not isinstance(meta, dict):
        raise HardwareSpecError(path, "meta", "missing [meta] table with name, marketing_name, arch")
    for key in ("name", "marketing_name", "arch"):
        if not isinstance(meta.get(key), str):
            raise HardwareSpecError(path, f"meta.{key}", "required string is missing")
    try:
        arch = Arch(meta["arch"])
    except ValueError:
        raise HardwareSpecError(path, "meta.arch",
                                f"unknown arch '{meta['arch']}' (known: {[a.value for a in Arch]})") from None
    unknown = set(doc) - set(_SECTIONS) - {"meta"}
    if unknown:
        raise HardwareSpecError(path, sorted(unknown)[0], "unknown section")
    sources: dict[str, str] = {}
    sections = {n: _build_section(path, n, c, doc.get(n), sources) for n, c in _SECTIONS.items()}
    _check_consistency(path, arch, sections)
    spec = HardwareSpec(name=meta["name"], marketing_name=meta["marketing_name"], arch=arch,
                        path=path, sources=MappingProxyType(sources), **sections)
    return dataclasses.replace(spec, fingerprint=_fingerprint_of(spec))


_CACHE: dict[str, HardwareSpec] = {}


def load_hardware(name_or_path: str | os.PathLike) -> HardwareSpec:
    """Load a GPU by name (``h100-sxm``; ``h100_sxm`` works too) or from a TOML path."""
    key = str(name_or_path)
    if not key.strip():
        raise UnknownGpuError("", list_gpus())
    p = Path(key)
    if p.suffix == ".toml" or p.exists():
        if p.is_dir():
            raise HardwareSpecError(key, "<file>", "is a directory (give a hardware TOML file or a GPU name)")
        if not p.is_file():
            raise HardwareSpecError(key, "<file>", "no such file")
        path = p
    else:
        path = hardware_dir() / f"{key.replace('_', '-').lower()}.toml"
        if not path.is_file():
            raise UnknownGpuError(key, list_gpus())
    cache_key = str(path.resolve())   # by file, so PERFMODEL_CONFIG_DIR and names/paths agree
    if cache_key not in _CACHE:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise HardwareSpecError(str(path), "<file>", f"cannot read ({exc.strerror})") from None
        _CACHE[cache_key] = parse_hardware(decode_utf8(data, path), str(path))
    return _CACHE[cache_key]
