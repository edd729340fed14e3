"""Memory system: L2 reads per stage (multicast), HBM traffic from the L2 working set, per-SM shares.

HBM traffic depends on tile order and L2 capacity. The tiles of one wave run concurrently and walk K
in step, so a K-slab of a panel that one SM loads is still in L2 when the other SMs of the wave that
share the panel ask for it: within a wave each distinct A row-panel and B column-panel is read from HBM
once, as long as the wave's in-flight K-window (``stages`` k-blocks of every distinct panel) fits in
L2; otherwise every tile reads its own panels. Between waves, a panel the previous wave touched is
still in L2 only if the two waves' full-K panels fit in L2 together; if the whole problem's operands
fit, each byte crosses HBM once. Evaluating every wave would grow with M and N, so at most
``_SAMPLED_WAVES`` evenly spaced waves are evaluated and the rest interpolated (cost independent of
the shape). TMA multicast divides the L2 reads of the multicast operand by the CTAs sharing it
(SemiAnalysis: multicast cuts L2 traffic through the L2 request coalescer); SMEM writes are unchanged.

Row pitch and address alignment: a box row is one L2 request per 128-byte line it touches when it
starts on a 32-byte sector, and a head and a tail request more when it starts mid-sector (our mb_pitch
microbenchmark and ncu's lts__t_requests, 2026-11-23). Rows start at r x pitch + box origin bytes, so the
global row pitch (K x element bytes for K-major operands, N x 2 for the output) sets how many requests
and sectors a box row costs: every extra request and sector occupies L2 bandwidth
(tma.l2_request_bytes, tma.l2_sector_bytes, their store_ counterparts) and every request one cycle of
the SM's TMA unit (tma.request_cycles). A 128-byte aligned pitch costs exactly what it did before.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..config import (EPILOGUE_SUBTILE_N, Epilogue, KernelConfig, StoreLayout, Swizzle, a_stage_bytes, b_stage_bytes,
                      scale_stage_bytes, stage_bytes)
from ..hardware import HardwareSpec
from ..problem import GemmProblem, Major
from .scheduler import Schedule, wave_panels

_SAMPLED_WAVES = 6


@dataclass(frozen=True)
class Traffic:
    hbm_read_bytes: float            # whole kernel
    hbm_write_bytes: float
    l2_read_bytes_per_stage: float   # one CTA, one k-block (after multicast)
    hbm_read_bytes_per_stage: float  # one CTA, one k-block (average over the kernel)
    wave_working_set_bytes: float    # full-K panels of one full wave
    reuse: str                       # "all-fit", "wave-fit", "k-window" or "none"
    a_miss_fraction: float = 0.0     # share of A's (and of B's) L2 reads that come from HBM: a stage waits
    b_miss_fraction: float = 0.0     # for HBM when any of its boxes does
    drift_reads: float = 1.0         # times the wave's shared K-slabs are read from HBM (drift_cohorts; 1: in step)

    @property
    def stage_miss_probability(self) -> float:
        """Share of the stages that wait for an L2 miss: a stage has landed when its last box has, so it
        waits for HBM when its A or its B box does (each operand's boxes of one stage hit or miss
        together: one K-slab of one panel)."""
        return 1.0 - (1.0 - self.a_miss_fraction) * (1.0 - self.b_miss_fraction)


def multicast_factors(cfg: KernelConfig) -> tuple[int, int]:
    """CTAs sharing one L2 read of A (the cluster row) and of B (the cluster column, in CTA pairs)."""
    if not cfg.multicast:
        return 1, 1
    return cfg.cluster_n, max(cfg.cluster_m // cfg.cta_group, 1)


def dead_multicast_slice(problem: GemmProblem, cfg: KernelConfig) -> bool:
    """Whether a multicast box of the edge tile has a slice that lies wholly beyond the matrix edge: each CTA of the
    cluster loads its slice of the box's rows for all of them (edge_fractions), and at M (or N) no more than the tile
    less one slice into the last tile, the last slice is zero fill only. Such a pair runs as slow as the same tile
    without multicast, or slower (the low-fill probe, data/measurements/h100_oob_probe.jsonl: 256x128 tiles multicast
    1x2 at N = 14336, K = 3072 take 61.3 / 66.8 us at M = 128 / 64, where one CTA's 128-row slice is all zero fill,
    against 56.5 / 61.6 us without multicast; at M = 192 / 256 45.8 / 46.7 against 49.1 / 45.5): the model loads such
    a tile as plain loads (sim/params.build_inputs). What the dead slice costs the hardware is not measured."""
    return _dead_slice(problem, cfg, *multicast_factors(cfg))


def _dead_slice(problem: GemmProblem, cfg: KernelConfig, slices_a: int, slices_b: int) -> bool:
    """Whether the edge tile's A box cut in ``slices_a`` equal slices (B's in ``slices_b``) has a slice wholly beyond the
    matrix edge."""
    return any(slices > 1 and _worst_slice_rows(extent, tile, slices)[0] >= tile / slices
               for extent, tile, slices in ((problem.m, cfg.tile_m, slices_a), (problem.n, cfg.tile_n, slices_b)))


def row_bytes(extent_elems: int, elem_bytes: float, sw: Swizzle, hw: HardwareSpec) -> float:
    """Bytes of one TMA box row: the contiguous extent, cut at the swizzle span (or at max_box_dim
    elements without swizzle)."""
    limit = hw.tma.max_box_dim * elem_bytes if sw is Swizzle.NONE else sw.span_bytes
    return min(extent_elems * elem_bytes, limit)


def l2_row_efficiency(row: float, hw: HardwareSpec) -> float:
    """Chip-wide TMA L2->SMEM throughput for boxes of this row width, relative to l2.bandwidth: narrow
    rows fetch 32/64-byte pieces of 128-byte lines (our microbench: 128B rows 8.3 TB/s, 64B 6.8, 32B 3.8 on
    the H100)."""
    t = hw.tma
    return t.l2_efficiency_128b if row >= 128 else t.l2_efficiency_64b if row >= 64 else t.l2_efficiency_32b


def row_requests_sectors(start: int, width: int, sector: int, line: int) -> tuple[int, int]:
    """L2 requests and sectors of one TMA box row of `width` bytes at byte address `start`: a row starting
    (ending) mid-sector sends its head (tail) up to the sector boundary as a request of its own; the
    sector-aligned middle goes as one request per line it touches (our mb_pitch + ncu lts__t_requests,
    H100, 2026-11-23: 1/2/3 requests per 128-byte row at offset 0/32/16, 3 per 64-byte row at 16 or 80)."""
    end = start + width
    sectors = (end - 1) // sector - start // sector + 1
    a, b = -(-start // sector) * sector, end // sector * sector   # the sector-aligned middle [a, b)
    if a > b:                                                      # inside one sector
        return 1, sectors
    requests = (start < a) + (b < end)
    if b > a:
        requests += (b - 1) // line - a // line + 1
    return requests, sectors


@lru_cache(maxsize=4096)
def _mean_geometry(width: int, grain: int, sector: int, line: int) -> tuple[float, float]:
    offsets = range(0, line, grain)
    pairs = [row_requests_sectors(o, width, sector, line) for o in offsets]
    return sum(r for r, _ in pairs) / len(pairs), sum(s for _, s in pairs) / len(pairs)


def _int_bytes(x: float) -> int | None:
    return int(x) if float(x).is_integer() and x > 0 else None


def row_geometry(width: float, pitch: float, step: float, hw: HardwareSpec) -> tuple[float, float]:
    """Mean (requests, sectors) per box row of `width` bytes when row r of a box starts r x pitch + a
    multiple of `step` bytes (the box origin) past a line-aligned base: over the rows of a box the
    offsets inside a line are spread evenly over the multiples of gcd(pitch, step, line). Widths or
    pitches that are not whole bytes (sub-byte types) are taken as aligned."""
    t = hw.tma
    w, p, st = _int_bytes(width), _int_bytes(pitch), _int_bytes(step)
    if t.sector_bytes is None or w is None:
        return 1.0, 1.0
    grain = math.gcd(p, st, t.line_bytes) if p and st else t.line_bytes
    return _mean_geometry(w, grain, t.sector_bytes, t.line_bytes)


def misaligned_row_cost(width: float, pitch: float, step: float, hw: HardwareSpec,
                        store: bool = False) -> tuple[float, float]:
    """(extra L2 bytes, extra TMA requests) of one box row at this pitch over the same row at a
    line-aligned address: tma.l2_request_bytes per extra request and tma.l2_sector_bytes per extra
    sector (tma.store_l2_* for TMA stores). (0, 0) for an aligned pitch or without those parameters."""
    t = hw.tma
    if t.sector_bytes is None:
        return 0.0, 0.0
    r, s = row_geometry(width, pitch, step, hw)
    r0, s0 = row_geometry(width, t.line_bytes, t.line_bytes, hw)
    req_b, sec_b = ((t.store_l2_request_bytes, t.store_l2_sector_bytes) if store
                    else (t.l2_request_bytes, t.l2_sector_bytes))
    return (r - r0) * (req_b or 0.0) + (s - s0) * (sec_b or 0.0), r - r0


def operand_layout(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> tuple[tuple, tuple]:
    """Per operand (A, B): (box row bytes, global row pitch bytes, box origin step bytes, box rows this CTA
    loads per stage after multicast). K-major rows run along K (pitch = K x element bytes, origins at
    k-block and box multiples); MN-major rows along M or N (pitch = M or N x element bytes)."""
    mc_a, mc_b = multicast_factors(cfg)
    ra, rb = operand_rows(problem, cfg, hw)
    ea, eb = problem.a_elem_bytes, problem.b_elem_bytes
    ka = cfg.tile_k // (2 if problem.sparse_a else 1)
    k_a = problem.k // (2 if problem.sparse_a else 1)
    if problem.a_major is Major.K:
        pa, sa = k_a * ea, math.gcd(_int_bytes(ka * ea) or 1, _int_bytes(ra) or 1)
    else:
        pa, sa = problem.m * ea, math.gcd(_int_bytes(cfg.tile_m // mc_a * ea) or 1, _int_bytes(ra) or 1)
    n_cta = cfg.tile_n // cfg.cta_group
    if problem.b_major is Major.K:
        pb, sb = problem.k * eb, math.gcd(_int_bytes(cfg.tile_k * eb) or 1, _int_bytes(rb) or 1)
    else:
        pb, sb = problem.n * eb, math.gcd(_int_bytes(n_cta // mc_b * eb) or 1, _int_bytes(rb) or 1)
    rows_a = a_stage_bytes(problem, cfg) / mc_a / ra
    rows_b = b_stage_bytes(problem, cfg) / mc_b / rb
    return (ra, pa, sa, rows_a), (rb, pb, sb, rows_b)


def tma_bytes_per_clock(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> float:
    """Rate at which this SM's TMA unit fills a stage: tma.bytes_per_clock_per_sm, or one request per
    tma.request_cycles when the stage's box rows need more requests than that (narrow rows, rows split
    at lines or starting mid-sector). Our mb_pitch, one CTA alone: 1.00 cycle per request at 1.5-2.6
    requests per 128-byte row; mb_tma: 64 B/clk for 64-byte rows, 32 B/clk for 32-byte rows."""
    t = hw.tma
    if t.request_cycles is None:
        return t.bytes_per_clock_per_sm
    cycles = tma_requests_per_stage(problem, cfg, hw) * t.request_cycles
    sbytes = stage_bytes(problem, cfg)
    return min(t.bytes_per_clock_per_sm, sbytes / cycles) if cycles > 0 else t.bytes_per_clock_per_sm


def tma_requests_per_stage(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> float:
    """L2 requests one CTA's TMA loads of a stage send (after multicast): one per 128-byte line a box row
    touches, and a head/tail request of its own where a row starts or ends mid-sector (row_geometry; one per
    row without tma.sector_bytes)."""
    return sum(rows * row_geometry(width, pitch, step, hw)[0]
               for width, pitch, step, rows in operand_layout(problem, cfg, hw))


def l2_tag_lookups_per_stage(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, traf: Traffic) -> float:
    """L2 tag lookups one CTA's stage costs (our ncu of the GEMM on the H100, data/ncu, 2026-11-24: with 64- or
    32-byte box rows the tag pipeline, lts__t_tag_requests, is what binds the L2, at 82-90% of one lookup per
    slice per L2 cycle, while the data return path idles at 58-68%): its TMA requests, the lookups the
    partition fabric adds for its L2 reads and its HBM fills (l2.fabric_*_bytes_per_lookup); the output's write
    requests are a tile's (store_l2_lookups_per_tile). 0 without l2.tag_lookups_per_s."""
    l2 = hw.l2
    if not l2.tag_lookups_per_s:
        return 0.0
    lookups = tma_requests_per_stage(problem, cfg, hw)
    if l2.fabric_read_bytes_per_lookup:
        lookups += traf.l2_read_bytes_per_stage / l2.fabric_read_bytes_per_lookup
    if l2.fabric_fill_bytes_per_lookup:
        lookups += traf.hbm_read_bytes_per_stage / l2.fabric_fill_bytes_per_lookup
    return lookups


# A direct-store epilogue writes the wgmma accumulator fragment as it lies in registers (PTX ISA 9.0, 9.7.15.5.1,
# the register fragment of wgmma's D: each thread holds two adjacent columns of a row, four threads a row's eight
# columns): a warp's store writes eight elements of each of eight rows, one L2 write request and one (partial) sector
# write per row. Our ncu of direct-store kernels (data/ncu/store_probe_h200, NVIDIA H200, 2026-11-26): 16.0 output
# bytes per write request and per sector written for bf16 outputs (TMA stores: 128 and 32).
DIRECT_STORE_ROW_ELEMENTS = 8
# The L2's sector, the granule of its data path (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory":
# accesses are served in 32-byte sectors); a hardware file's tma.sector_bytes takes precedence
L2_SECTOR_BYTES = 32


LINE_BYTES = 128    # an L2 line (4 sectors): a coalesced store's request


def _direct_store_piece_bytes(problem: GemmProblem, cfg: KernelConfig, layout: StoreLayout) -> float:
    """Bytes one write request of a direct-store epilogue carries: a row piece of DIRECT_STORE_ROW_ELEMENTS elements
    from the accumulator fragments, or (coalesced rows) a 128-byte line, at most the tile's row."""
    if layout is StoreLayout.COALESCED:
        return min(cfg.tile_n * problem.out_dtype.bits / 8, LINE_BYTES)
    return DIRECT_STORE_ROW_ELEMENTS * problem.out_dtype.bits / 8


def store_l2_lookups_per_tile(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec,
                              layout: StoreLayout = StoreLayout.FRAGMENT) -> float:
    """L2 tag lookups one output tile's stores cost: one per write request, a TMA store's per 128-byte line, a direct
    store's per request (_direct_store_piece_bytes: a row piece of DIRECT_STORE_ROW_ELEMENTS elements from the
    fragments, a line of coalesced rows). 0 without l2.tag_lookups_per_s."""
    if not hw.l2.tag_lookups_per_s:
        return 0.0
    out = cfg.tile_m * cfg.tile_n * problem.out_dtype.bits / 8
    return out / (LINE_BYTES if cfg.epilogue is Epilogue.TMA_STORE else _direct_store_piece_bytes(problem, cfg, layout))


def store_l2_bytes_per_tile(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec,
                            layout: StoreLayout = StoreLayout.FRAGMENT) -> float:
    """L2 bandwidth one output tile's store occupies: its bytes, plus with the TMA-store epilogue the
    misalignment cost of its box rows (EPILOGUE_SUBTILE_N columns wide, pitch N x output bytes). Direct
    stores write a piece per request (_direct_store_piece_bytes: from the fragments a row piece of
    DIRECT_STORE_ROW_ELEMENTS elements, 16 bytes of bf16), each a sector write of its own: a piece smaller than a
    sector takes a sector's slot (tma.sector_bytes)."""
    out_e = problem.out_dtype.bits / 8
    out = cfg.tile_m * cfg.tile_n * out_e
    if cfg.epilogue is not Epilogue.TMA_STORE:
        piece = _direct_store_piece_bytes(problem, cfg, layout)
        sector = hw.tma.sector_bytes or L2_SECTOR_BYTES
        return out / piece * sector if piece < sector else out
    width = min(cfg.tile_n, EPILOGUE_SUBTILE_N) * out_e
    extra, _ = misaligned_row_cost(width, problem.n * out_e, width, hw, store=True)
    return out + out / width * extra


def operand_rows(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> tuple[float, float]:
    """Box row bytes of A and B (K-major: the K extent; MN-major: the M/N extent)."""
    ka = cfg.tile_k // (2 if problem.sparse_a else 1)
    a_ext = ka if problem.a_major is Major.K else cfg.tile_m
    b_ext = cfg.tile_k if problem.b_major is Major.K else cfg.tile_n // cfg.cta_group
    return (row_bytes(a_ext, problem.a_elem_bytes, cfg.swizzle_a, hw),
            row_bytes(b_ext, problem.b_elem_bytes, cfg.swizzle_b, hw))


# The coalescer's merge against ring depth (l2.lrc_merge_per_stage): l2.lrc_merge_128b is the merge of a ring of
# LRC_REFERENCE_STAGES stages (half our calibration points run 4), and LRC_MIN_STAGES is the shallowest ring ncu
# measured (a 2-stage ring is held at its value)
LRC_REFERENCE_STAGES = 4
LRC_MIN_STAGES = 3


def lrc_merge(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, first: bool = False) -> tuple[float, float]:
    """(A's, B's) requesters per L2 slice read that the L2 request coalescer merges, for this configuration's TMA
    loads: the mean merge of a LRC_REFERENCE_STAGES-stage ring, scaled as ncu's ratio falls with depth (a deeper ring
    lets the CTAs that share a panel drift out of step: 1 + c / stages, c = l2.lrc_merge_per_stage). ``first``: a
    CTA's first tile, which the whole grid starts at launch in step: 1 + c_first / stages (c_first =
    l2.lrc_merge_first_per_stage, absent: c; at the 3-9 stages ncu measured it, a 2-stage ring's first tile as its later
    ones), against the same reference. Only an operand that another tile reads too (lrc_sharers) has anyone to merge
    with; one no other tile reads is not merged. Boxes with 64- or 32-byte rows merge only in that in-step first tile:
    ncu of our GEMM (H100) counts 1.00-1.02 for them at 8192^3 (many waves, data/ncu/ncu_*.csv) but 1.20 in the
    one-wave grid of 1000x1992x1016 (128x256x32 at 64-byte rows and 128x256x16 at 32-byte rows, data/ncu/smoke_probe),
    as much as its 128-byte-row tiles (1.10-1.24). The panel a cluster's CTAs share without multicast merges as an
    in-step first tile's in every tile (cluster_in_step)."""
    if cfg.multicast and cfg.cluster_size > 1:
        return 1.0, 1.0
    ra, rb = operand_rows(problem, cfg, hw)
    l2 = hw.l2
    if not l2.lrc_merge_128b or (min(ra, rb) < 128 and not (first and cfg.stages >= LRC_MIN_STAGES)):
        return 1.0, 1.0
    c = l2.lrc_merge_per_stage or 0.0
    # the in-step first tile only within the depths ncu measured it (a 2-stage ring: as its later tiles)
    c_in_step = (l2.lrc_merge_first_per_stage or c) if cfg.stages >= LRC_MIN_STAGES else c
    s = max(cfg.stages, LRC_MIN_STAGES)
    ref = 1 + c / LRC_REFERENCE_STAGES
    return tuple(max(1.0, l2.lrc_merge_128b * (1 + (c_in_step if first or in_pair else c) / s) / ref) if shared else 1.0
                 for shared, in_pair in zip(lrc_sharers(problem, cfg), cluster_in_step(problem, cfg)))


def cluster_in_step(problem: GemmProblem, cfg: KernelConfig) -> tuple[bool, bool]:
    """(A, B): whether the CTAs of a cluster without multicast read that operand's panel together in every tile, as the
    grid's in-step first tiles do (lrc_merge gives it their merge, l2.lrc_merge_first_per_stage): a cluster's CTAs launch
    together on one GPC and walk the same k-blocks of the panel along the cluster's axis (A along N, B along M). Our ncu
    of 128x128 6-stage rings (data/ncu/cluster_mc0_h100, H100): the coalescer's merge 1.08 / 1.24 / 1.10 (plain / 2x1 /
    1x2) at 8192^3, 1.22 / 1.39 / 1.57 at 2048^3, 1.07 / 1.16 / 1.09 at 4096x16384x2048, the time following it. Not
    where the cluster's edge tile lies half or more beyond the matrix edge along that axis (dead_multicast_slice's
    geometry: there the pair's boxes are mostly zero fill, which the coalescer's law leaves out), nor for a cta_group::2
    pair (sm_100a: its two CTAs split the operands of one MMA rather than read the same panel)."""
    if (cfg.multicast or cfg.cluster_size < 2 or cfg.cta_group > 1
            or _dead_slice(problem, cfg, cfg.cluster_n, cfg.cluster_m)):   # the slices a multicast would cut
        return False, False
    return cfg.cluster_n > 1, cfg.cluster_m > 1


def lrc_sharers(problem: GemmProblem, cfg: KernelConfig) -> tuple[bool, bool]:
    """(A, B): whether other tiles read the same panel (an A panel: another tile column; a B panel: another tile
    row): a panel only one tile reads has nobody to be in step with."""
    return (math.ceil(problem.n / (cfg.tile_n * cfg.cluster_n)) > 1 or cfg.cluster_n > 1,
            math.ceil(problem.m / (cfg.tile_m * cfg.cluster_m)) > 1 or cfg.cluster_m > 1)


def edge_fractions(problem: GemmProblem, cfg: KernelConfig, tiles_per_cta: int = 0) -> tuple[float, float]:
    """The shares of A's and of B's box rows that lie beyond the matrix edge (zero fill): the padding of M (N) up to a
    whole number of tiles over that padded extent, a CTA's share when its tiles cycle over the tile rows (columns), and
    so the grid's. A multicast operand's box is split among the cluster's CTAs (each loads its slice of the tile's rows
    and multicasts it), and a stage waits for every slice: the slice with the most zero fill sets the pace (the low-fill
    probe, data/measurements/h100_oob_probe.jsonl: 256x128 tiles multicast 1x2 at M = 128, one CTA's 128-row slice all
    zero fill, run 33% longer than at M = 192, where each slice is at most half zero fill).

    ``tiles_per_cta`` (> 0): the share of the CTA that loads the most of them, which the slowest CTA's pace follows: at
    least the edge tile's padding over that many tiles. In a one-wave grid the CTAs of the edge tiles carry the whole
    edge tile's zero fill (mb_tma --pair-share, data/ncu/pair_share: a 56-CTA grid of 128x128 tiles at M = 160, whose
    second tile's A box is 3/4 zero fill, runs its slowest CTA 642 cycles a k-block against 481 at M = 256)."""
    mc_a, mc_b = multicast_factors(cfg)
    fa, fb = _worst_slice_padding(problem.m, cfg.tile_m, mc_a), _worst_slice_padding(problem.n, cfg.tile_n, mc_b)
    if tiles_per_cta > 0:
        fa = max(fa, min(fa * math.ceil(problem.m / cfg.tile_m) / tiles_per_cta, 1.0))
        fb = max(fb, min(fb * math.ceil(problem.n / cfg.tile_n) / tiles_per_cta, 1.0))
    return fa, fb


def _worst_slice_rows(extent: int, tile: int, slices: int) -> tuple[float, int]:
    """(rows beyond ``extent`` in the fullest-of-padding of ``slices`` equal slices of the last tile, tiles along
    ``extent``): a slice is dead, all padding, when those rows are its tile / slices."""
    tiles = math.ceil(extent / tile)
    rows = tile / slices
    in_last = extent - (tiles - 1) * tile
    return max(rows - min(max(in_last - j * rows, 0.0), rows) for j in range(slices)), tiles


def _worst_slice_padding(extent: int, tile: int, slices: int) -> float:
    """Rows beyond ``extent`` in the fullest-of-padding of ``slices`` equal slices of the last tile, over the slice's
    rows in all tiles (one slice: the padding over the padded extent)."""
    worst, tiles = _worst_slice_rows(extent, tile, slices)
    return worst / (tile / slices * tiles)


def zero_fill_weights(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec) -> tuple[float, float]:
    """L2 bandwidth of A's and of B's TMA boxes relative to their bytes in bounds: the rows beyond the matrix edge (the
    zero fill of the last tile row / column, every tile when M or N is below the tile) occupy tma.oob_l2_cost times
    an in-bounds row's share (absent: 1; our mb_tma --skinny-oob: 2-3.2 with the chip's L2 the limit). TMA boxes
    only: the software-pipelined families' masked cp.async copies read nothing beyond the edge (the microbenchmark
    measured TMA boxes; Triton's pointer family, calibration half: 13.3 -> 15.4% MAPE with the weight)."""
    w = hw.tma.oob_l2_cost
    if w is None:
        return 1.0, 1.0
    oob_a, oob_b = edge_fractions(problem, cfg)
    return 1 + (w - 1) * oob_a, 1 + (w - 1) * oob_b


def zero_fill_bytes_per_stage(problem: GemmProblem, cfg: KernelConfig) -> float:
    """Bytes of one CTA's stage that its TMA boxes fill with zeros (the rows beyond the matrix edge, edge_fractions: of
    a multicast box, the slice with the most), after multicast."""
    mc_a, mc_b = multicast_factors(cfg)
    oob_a, oob_b = edge_fractions(problem, cfg)
    return a_stage_bytes(problem, cfg) / mc_a * oob_a + b_stage_bytes(problem, cfg) / mc_b * oob_b


def l2_occupancy_bytes_per_stage(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec,
                                 tma: bool = True, first: bool = False) -> float:
    """L2 bandwidth one CTA's stage occupies, in bytes at the full l2.bandwidth rate: each operand's L2
    reads (after multicast) divided by the row-width efficiency of its boxes and the coalescer's merge (``first``: of
    a CTA's first tile, lrc_merge), plus (TMA loads) the extra requests and sectors of box rows that a pitch not
    128-byte aligned splits."""
    mc_a, mc_b = multicast_factors(cfg)
    ra, rb = operand_rows(problem, cfg, hw)
    eff128 = hw.tma.l2_efficiency_128b
    za, zb = zero_fill_weights(problem, cfg, hw) if tma else (1.0, 1.0)   # a TMA box's zero fill (cp.async: masked)
    oob_a, oob_b = edge_fractions(problem, cfg)
    merge_a, merge_b = lrc_merge(problem, cfg, hw, first)
    steady_a, steady_b = lrc_merge(problem, cfg, hw) if first else (merge_a, merge_b)

    def merged(z: float, oob: float, merge: float, steady: float) -> float:
        # the rows in bounds at this tile's merge; the zero fill (no read: nothing for the grid's in-step start to
        # merge) at the merge its tma.oob_l2_cost was measured against
        return (1 - oob) / merge + (z - (1 - oob)) / steady
    base = (a_stage_bytes(problem, cfg) / mc_a / l2_row_efficiency(ra, hw) * merged(za, oob_a, merge_a, steady_a)
            + b_stage_bytes(problem, cfg) / mc_b / l2_row_efficiency(rb, hw) * merged(zb, oob_b, merge_b, steady_b)
            + scale_stage_bytes(problem, cfg) / eff128 / min(merge_a, merge_b))
    if not tma:
        return base
    return base + sum(rows * misaligned_row_cost(w, p, st, hw)[0]
                      for w, p, st, rows in operand_layout(problem, cfg, hw))


def fill_occupancy_bytes_per_stage(traf: Traffic, hw: HardwareSpec) -> float:
    """L2 bandwidth, in bytes at the full l2.bandwidth rate (as l2_occupancy_bytes_per_stage), that one CTA's stage
    takes for its L2 fills from HBM: l2.fill_cost of a hit byte per byte filled, a hit byte of a 128-byte box row
    costing 1 / tma.l2_efficiency_128b (0 without l2.fill_cost). Our mb_tma --miss-mix (every SM streaming 16 KB boxes,
    a share of them from HBM): the chip moves 1 / (1 + 0.16 x share) of its all-hit rate up to a share of 0.375 (H100)
    and 0.5 (H200), where the all-hit rate is the same on both (7.0 TB/s)."""
    c = hw.l2.fill_cost or 0.0
    return c * traf.hbm_read_bytes_per_stage / hw.tma.l2_efficiency_128b if c else 0.0


def _panel_bytes(problem: GemmProblem, cfg: KernelConfig) -> tuple[float, float]:
    """Full-K bytes of one cluster-row panel of A and one cluster-column panel of B (+ scale factors)."""
    rows, cols = cfg.cluster_m * cfg.tile_m, cfg.cluster_n * cfg.tile_n
    a = problem.operand_bytes(problem.a_dtype, rows * problem.k) / (2 if problem.sparse_a else 1)
    b = problem.operand_bytes(problem.b_dtype, cols * problem.k)
    if problem.scale_vec_size:
        a += rows * problem.k / problem.scale_vec_size
        b += cols * problem.k / problem.scale_vec_size
    return a, b


def _wave_new_bytes(sched, cfg, wave, pa, pb, l2, prev) -> tuple[tuple[float, float], tuple]:
    """HBM bytes of A and of B that one wave reads (its panels the previous wave left in L2 are free)."""
    a, b = wave_panels(sched, cfg.raster, cfg.group_size, wave)
    if prev is not None:
        pa_prev, pb_prev = prev
        union = len(a | pa_prev) * pa + len(b | pb_prev) * pb
        if union <= l2:
            return (len(a - pa_prev) * pa, len(b - pb_prev) * pb), (a, b)
    return (len(a) * pa, len(b) * pb), (a, b)


def _run_windows(tiles_per_cta: int, k_iters: int, wave_bytes: float, l2_bytes: float) -> float:
    """A CTA's run (tiles x k-blocks) in L2 windows: the k-blocks of every panel of the wave that L2 holds (its size
    over the wave's bytes per k-block)."""
    return tiles_per_cta * k_iters / (l2_bytes / (wave_bytes / k_iters)) if wave_bytes > 0 else 0.0


def drift_spread(cfg: KernelConfig, hw: HardwareSpec) -> float:
    """How fast this configuration's CTAs drift apart when the L2 sets their pace: l2.sm_rate_spread, and
    l2.sm_rate_spread_shallow (absent: 0) for a ring shallower than l2.drift_min_stages. Our ncu of the GEMM at long K
    (data/ncu/depth_ncu, calib27_ncu, cards, fabric, stages) found 4-9-stage rings at one spread with no trend beyond 4,
    and 3-stage rings near the in-step reads but not at them (128x128: 1.06-1.45x the in-step bytes on most cards, a
    spread of 0.003-0.009; 64x256: 0.02-0.035): a CTA whose ring holds three k-blocks can hardly run ahead of the sharers
    it waits on in the L2 (benchmarks/fit_sm_rate_spread.py --shallow fits the shallow spread on those runs)."""
    if cfg.stages < (hw.l2.drift_min_stages or 0):
        return hw.l2.sm_rate_spread_shallow or 0.0
    return hw.l2.sm_rate_spread or 0.0


def drift_cohorts(window_kblocks: float, drift: float, progress_kblocks: float,
                  max_spread_kblocks: float | None = None) -> float:
    """Mean number of times a wave's shared K-slab is read from HBM when its sharers drift apart.

    The in-step reuse assumes that the CTAs sharing a panel read each K-slab close together. Nothing resynchronises
    a persistent kernel's CTAs: after p k-blocks of their run they are spread over drift x p k-blocks (our per-CTA
    probe, data/ncu/lag: a panel's sharers spread over 0.1-0.2 x their progress in L2-bound tiles). L2 holds
    ``window_kblocks`` k-blocks of every panel the wave reads, so each window's worth of that spread is a cohort
    that reads the slab again: 1 + drift x p / window reads, p / 2 on average over the run.

    The spread that counts stops growing at ``max_spread_kblocks``: a tile's whole K loop (traffic() passes it in
    windows, the wave's panels over the L2's reuse capacity). CTAs further apart than one tile's K are on different
    tiles, and a slab's readers are the sharers on the same tile: at 16384x10240x8192 (128 k-blocks a tile, 78 tiles a
    CTA) ncu counted 3.4x the in-step reads where the unbounded law says 6; at 4096x4096x49152 (768 k-blocks a tile,
    8 tiles a CTA) 4.5x, which the bound leaves alone (data/ncu/ksweep3, ksweep2; benchmarks/fit_sm_rate_spread.py)."""
    if drift <= 0 or progress_kblocks <= 0 or window_kblocks <= 0:
        return 1.0
    spread = drift * progress_kblocks
    if max_spread_kblocks is None or spread <= max_spread_kblocks:
        return 1.0 + spread / 2.0 / window_kblocks
    c = max_spread_kblocks          # the spread held at c from progress c / drift on: its mean over the run
    return 1.0 + (c - c * c / (2.0 * spread)) / window_kblocks


def traffic(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, sched: Schedule,
            drift: float = 0.0) -> Traffic:
    """HBM and L2 traffic of the kernel (module docstring). ``drift``: how fast the CTAs sharing a panel drift
    apart (k-blocks per k-block of their run; 0: in step): under the in-step k-window reuse each slab is read
    drift_cohorts() times, the spread bound at one tile's K loop, up to once by every tile."""
    k_iters = math.ceil(problem.k / cfg.tile_k)
    cohorts = 1.0
    mc_a, mc_b = multicast_factors(cfg)
    sf = scale_stage_bytes(problem, cfg)
    l2_a = a_stage_bytes(problem, cfg) / mc_a + sf / 2
    l2_b = b_stage_bytes(problem, cfg) / mc_b + sf / 2
    pa, pb = _panel_bytes(problem, cfg)
    write = problem.m * problem.n * problem.out_dtype.bits / 8 * problem.batch
    l2 = reuse_capacity_bytes(hw)
    a0, b0 = wave_panels(sched, cfg.raster, cfg.group_size, 0)
    ws = len(a0) * pa + len(b0) * pb
    window = ws * min(1.0, cfg.stages * cfg.tile_k / problem.k)
    cta_stages = sched.n_tiles * cfg.cluster_size * k_iters
    if pa * sched.tiles_m * sched.batch + pb * sched.tiles_n * sched.batch <= l2:
        # each byte crosses HBM once: A (and its scale factors) once, B once
        a_bytes = _a_bytes(problem)
        read_a, reuse = float(a_bytes), "all-fit"
        read_b = float(problem.min_hbm_bytes - problem.m * problem.n * problem.out_dtype.bits // 8 * problem.batch
                       - a_bytes)
    elif window > l2:
        read_a, read_b, reuse = l2_a * cta_stages, l2_b * cta_stages, "none"   # no reuse beyond multicast
    else:
        (read_a, read_b), reuse = (_sampled_wave_reads(sched, cfg, pa, pb, l2),
                                   "wave-fit" if ws <= l2 else "k-window")
        if reuse == "k-window" and drift > 0:
            run = _run_windows(sched.tiles_per_cta, k_iters, ws, l2)
            cohorts = drift_cohorts(1.0, drift, run, ws / l2)
            read_a, read_b = min(read_a * cohorts, l2_a * cta_stages), min(read_b * cohorts, l2_b * cta_stages)
    read = read_a + read_b
    return Traffic(hbm_read_bytes=read, hbm_write_bytes=write, l2_read_bytes_per_stage=l2_a + l2_b,
                   hbm_read_bytes_per_stage=read / cta_stages, wave_working_set_bytes=ws, reuse=reuse,
                   drift_reads=cohorts,
                   a_miss_fraction=min(read_a / (l2_a * cta_stages), 1.0) if l2_a > 0 else 0.0,
                   b_miss_fraction=min(read_b / (l2_b * cta_stages), 1.0) if l2_b > 0 else 0.0)


def progress_windows(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, sched: Schedule,
                     traf: Traffic) -> float:
    """How many L2 windows one CTA's run spans when the wave's reuse is the in-step k-window (0 otherwise): its
    k-blocks (tiles x k-blocks a tile) over the k-blocks of every panel of the wave that L2 holds (its size over
    the wave's bytes per k-block). The model's reuse assumes the panel's sharers read each K-slab close together;
    our per-CTA probe (data/ncu/lag, H100, 2026-11-26) found them spread over 0.1-0.2 x their progress in L2-bound
    tiles, and ncu (data/ncu/ksweep2, ksweep3) 2-5x the model's HBM reads once the run spans tens of windows
    (the long-k-drift caveat, prediction/caveats.py)."""
    if traf.reuse != "k-window":
        return 0.0
    return _run_windows(sched.tiles_per_cta, math.ceil(problem.k / cfg.tile_k), traf.wave_working_set_bytes,
                        reuse_capacity_bytes(hw))


def reuse_capacity_bytes(hw: HardwareSpec) -> float:
    """The L2 bytes that keep a GEMM's operand panels for reuse (l2.reuse_capacity_fraction of its size). With the whole
    L2 the model read 1.5-5x too few HBM bytes wherever a wave's panels filled 0.4-1x of it (our ncu of the GEMM,
    benchmarks/hbm_traffic.py). Our microbenchmarks: TMA-loaded panels that SMs all over the chip read stay in 24 MiB of
    the 50 MiB L2 but not in 28 (mb_tma --l2-residency, data/ncu/l2_residency), while plain ld.global.cg loads keep 48
    MiB (mb_memory l2_partition_bw): the TMA path keeps about half of it, as if each L2 partition held its own copy."""
    return hw.l2.size_bytes * (hw.l2.reuse_capacity_fraction or 1.0)


def gpc_inflight_bytes_per_stage(problem: GemmProblem, cfg: KernelConfig, traf: Traffic,
                                 tiles_per_cta: int = 0) -> tuple[float, float, float]:
    """(bytes one CTA's stage has in flight, the part that waits as long as an L2 miss, the zero-filled part of it): its
    L2 reads after multicast, of which the rows that miss L2 and the rows beyond the matrix edge (zero fill: they hold
    their place as long as a miss; our mb_tma --gpc-probe, a half out-of-bounds A box against one in bounds), for the
    CTA with the most zero fill over its ``tiles_per_cta`` tiles (edge_fractions; 0: the grid's share)."""
    mc_a, mc_b = multicast_factors(cfg)
    a = a_stage_bytes(problem, cfg) / mc_a
    b = b_stage_bytes(problem, cfg) / mc_b
    oob_a, oob_b = edge_fractions(problem, cfg, tiles_per_cta)
    sf = scale_stage_bytes(problem, cfg)
    oob = a * oob_a + b * oob_b
    miss = (oob + a * (1 - oob_a) * traf.a_miss_fraction + b * (1 - oob_b) * traf.b_miss_fraction
            + sf * max(traf.a_miss_fraction, traf.b_miss_fraction))
    return a + b + sf, miss, oob


def _a_bytes(problem: GemmProblem) -> int:
    """A's share of problem.min_hbm_bytes (the compulsory traffic)."""
    return problem.operand_bytes(problem.a_dtype, problem.m * problem.k) // (2 if problem.sparse_a else 1) * problem.batch


def _sampled_wave_reads(sched: Schedule, cfg: KernelConfig, pa: float, pb: float, l2: float) -> tuple[float, float]:
    """HBM bytes of A and of B over the kernel's waves (at most _SAMPLED_WAVES of them evaluated)."""
    if sched.waves <= _SAMPLED_WAVES:
        ta = tb = 0.0
        prev = None
        for w in range(sched.waves):
            (na, nb), prev = _wave_new_bytes(sched, cfg, w, pa, pb, l2, prev)
            ta, tb = ta + na, tb + nb
        return ta, tb
    (fa, fb), prev = _wave_new_bytes(sched, cfg, 0, pa, pb, l2, None)
    (la, lb), _ = _wave_new_bytes(sched, cfg, sched.waves - 1, pa, pb, l2,
                                  wave_panels(sched, cfg.raster, cfg.group_size, sched.waves - 2))
    mids = []
    for i in range(1, _SAMPLED_WAVES - 1):
        w = 1 + (sched.waves - 3) * (i - 1) // max(_SAMPLED_WAVES - 3, 1)
        new, _ = _wave_new_bytes(sched, cfg, w, pa, pb, l2,
                                 wave_panels(sched, cfg.raster, cfg.group_size, w - 1))
        mids.append(new)
    scale = (sched.waves - 2) / len(mids)
    return (fa + la + scale * sum(a for a, _ in mids), fb + lb + scale * sum(b for _, b in mids))
