"""Tile order, waves and the L2/HBM traffic model."""
import dataclasses
import random

import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.config import Epilogue, KernelConfig, Raster
from perfmodel.sim.memory import (multicast_factors, store_l2_bytes_per_tile, store_l2_lookups_per_tile,
                                  traffic)
from perfmodel.sim.scheduler import Schedule, make_schedule, tile_coords, wave_panels


@pytest.mark.parametrize("raster", [Raster.M, Raster.N])
@pytest.mark.parametrize("group", [1, 3, 8])
def test_tile_order_is_a_permutation(raster, group):
    tm, tn, b = 7, 5, 2
    seen = {tile_coords(t, tm, tn, raster, group) for t in range(tm * tn * b)}
    assert seen == {(bi, m, n) for bi in range(b) for m in range(tm) for n in range(tn)}


def test_raster_and_grouping_semantics():
    assert [tile_coords(t, 4, 4, Raster.M, 1)[1:] for t in range(3)] == [(0, 0), (1, 0), (2, 0)]  # M fastest
    assert [tile_coords(t, 4, 4, Raster.N, 1)[1:] for t in range(3)] == [(0, 0), (0, 1), (0, 2)]  # N fastest
    assert [tile_coords(t, 4, 4, Raster.M, 2)[1:] for t in range(4)] == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_wave_panels_match_tile_by_tile_walk():
    rng = random.Random(3)
    for _ in range(500):
        tm, tn, b = rng.randint(1, 30), rng.randint(1, 30), rng.randint(1, 2)
        n, slots = tm * tn * b, rng.randint(1, 140)
        s = Schedule(tm, tn, b, n, slots, -(-n // slots), 0, 0, True)
        r, g, w = rng.choice(list(Raster)), rng.randint(1, 9), rng.randrange(-(-n // slots))
        a, bb = set(), set()
        for t in range(w * slots, min((w + 1) * slots, n)):
            bi, mi, ni = tile_coords(t, tm, tn, r, g)
            a.add((bi, mi))
            bb.add((bi, ni))
        assert wave_panels(s, r, g, w) == (a, bb)


def _traffic(gpu, shape, **knobs):
    hw = load_hardware(gpu)
    p = make_problem(shape, "bf16")
    cfg = derive(p, hw, **knobs).config
    return traffic(p, cfg, hw, make_schedule(p, cfg, hw)), p, cfg


def test_operands_that_fit_in_l2_cross_hbm_once():
    t, p, _ = _traffic("h100-sxm", "2048x2048x2048", tile=(128, 256, 64))
    assert t.reuse == "all-fit"
    assert t.hbm_read_bytes == p.min_hbm_bytes - 2048 * 2048 * 2


@pytest.mark.parametrize("shape", ["8192x8192x8192", "16384x16384x4096", "65536x65536x65536"])
def test_hbm_reads_at_least_compulsory(shape):
    t, p, _ = _traffic("h100-sxm", shape, tile=(128, 256, 64), cluster=(2, 1))
    compulsory = p.min_hbm_bytes - p.m * p.n * 2
    assert t.hbm_read_bytes >= compulsory
    assert t.hbm_write_bytes == p.m * p.n * 2


def test_grouped_order_reads_less_than_plain_raster():
    grouped, _, _ = _traffic("h100-sxm", "32768x32768x8192", tile=(128, 256, 64), group_size=8)
    plain, _, _ = _traffic("h100-sxm", "32768x32768x8192", tile=(128, 256, 64), group_size=1)
    assert grouped.wave_working_set_bytes < plain.wave_working_set_bytes
    assert grouped.hbm_read_bytes <= plain.hbm_read_bytes


def test_multicast_factors_and_l2_reads():
    hw = load_hardware("b200")
    p = make_problem("8192x8192x8192", "bf16")
    cg2 = derive(p, hw, (128, 256, 64), cta_group=2, cluster=(4, 1)).config
    assert multicast_factors(cg2) == (1, 2)               # B shared by the 2 CTA pairs along M
    h = load_hardware("h100-sxm")
    c = derive(p, h, (128, 256, 64), cluster=(2, 2)).config
    assert multicast_factors(c) == (2, 2)
    assert multicast_factors(c.replace(multicast=False)) == (1, 1)
    t_mc, _, _ = _traffic("h100-sxm", "8192x8192x8192", tile=(128, 256, 64), cluster=(2, 1))
    t_no, _, _ = _traffic("h100-sxm", "8192x8192x8192", tile=(128, 256, 64), cluster=(2, 1), multicast=False)
    assert t_mc.l2_read_bytes_per_stage == 128 * 64 * 2 + 256 * 64 * 2 / 2
    assert t_no.l2_read_bytes_per_stage == 128 * 64 * 2 + 256 * 64 * 2


def test_schedule_waves_and_tiles_per_cta():
    hw = load_hardware("h100-sxm")
    p = make_problem("17024x256x4096", "bf16")
    s = make_schedule(p, derive(p, hw, (128, 256, 64)).config, hw)
    assert (s.n_tiles, s.slots, s.waves, s.tiles_per_cta) == (133, 132, 2, 2)
    s2 = make_schedule(p, derive(p, hw, (128, 256, 64), persistent=False).config, hw)
    assert s2.tiles_per_cta == 1 and s2.waves == 2


def test_the_l2_request_coalescer_merges_plain_128_byte_row_loads_only():
    """sim/memory.lrc_merge: CTAs that ask for the same line while its first read is pending get it from one slice
    read (ncu of our GEMM: SM-received / slice-served sectors 1.07-1.53 for non-multicast 128-byte rows, ~1.0 with
    multicast or 64/32-byte rows). The model divides the L2 occupancy of such loads by l2.lrc_merge_128b."""
    from perfmodel import load_hardware, make_problem
    from perfmodel.config import KernelConfig
    from perfmodel.prediction.predict import predict
    from perfmodel.sim.memory import l2_occupancy_bytes_per_stage, lrc_merge
    hw = load_hardware("h100-sxm")
    prob = make_problem("2048x2048x2048", "bf16")
    plain = KernelConfig.from_name("64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma")
    mc = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma")
    narrow = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw64-64_wg2_acc1_pm8_etma")
    assert 1.0 < hw.l2.lrc_merge_128b < 1.53
    # the merge of a 4-stage ring, falling with depth as ncu's ratio does (1 + c / stages); 2 stages held at 3's
    c = hw.l2.lrc_merge_per_stage
    at = {s: lrc_merge(prob, plain.replace(stages=s), hw)[0] for s in (2, 3, 4, 5, 9)}
    assert at[4] == pytest.approx(hw.l2.lrc_merge_128b)
    assert at[5] == pytest.approx(hw.l2.lrc_merge_128b * (1 + c / 5) / (1 + c / 4))
    assert at[2] == at[3] > at[4] > at[5] > at[9] >= 1.0
    assert lrc_merge(prob, plain, hw) == (at[5], at[5])         # the later tiles' merge: both operands alike
    assert lrc_merge(prob, mc, hw) == (1.0, 1.0) and lrc_merge(prob, narrow, hw) == (1.0, 1.0)
    # narrow rows merge in the grid's in-step first tile only (ncu: 1.20 in a one-wave grid, 1.00-1.02 over many waves)
    wide_first = lrc_merge(prob, narrow.replace(swizzle_a=plain.swizzle_a, swizzle_b=plain.swizzle_b), hw, first=True)
    assert lrc_merge(prob, narrow, hw, first=True) == wide_first and wide_first[0] > 1.0
    assert lrc_merge(prob, mc, hw, first=True) == (1.0, 1.0)
    assert lrc_merge(prob, narrow.replace(stages=2), hw, first=True) == (1.0, 1.0)
    off = hw.with_values(**{"l2.lrc_merge_128b": 1.0})
    assert l2_occupancy_bytes_per_stage(prob, plain, hw) == pytest.approx(
        l2_occupancy_bytes_per_stage(prob, plain, off) / lrc_merge(prob, plain, hw)[0])
    assert l2_occupancy_bytes_per_stage(prob, mc, hw) == l2_occupancy_bytes_per_stage(prob, mc, off)
    # an L2-bound plain tile runs faster with the merge, a multicast one does not change
    fast, slow = predict(prob, plain, hw, clock="boost"), predict(prob, plain, off, clock="boost")
    assert slow.bottleneck.value == "l2" and fast.tflops > slow.tflops * 1.03
    assert predict(prob, mc, hw, clock="boost").tflops == pytest.approx(predict(prob, mc, off, clock="boost").tflops)
    assert load_hardware("b200").l2.lrc_merge_128b is None      # not measured there: no merge


def test_a_multicast_box_is_as_slow_as_its_slice_with_the_most_zero_fill():
    """sim/memory.edge_fractions: a multicast operand's box is split among the cluster's CTAs and a stage waits for
    every slice, so the zero fill of the slice that holds the most of it sets the pace (the low-fill probe,
    data/measurements/h100_oob_probe.jsonl: 256x128 multicast 1x2 at M = 128, one CTA's 128-row slice all zero fill,
    runs 33% longer than at M = 192, each slice at most half zero fill). Without multicast: the tile's padding."""
    from perfmodel import make_problem
    from perfmodel.config import KernelConfig
    from perfmodel.sim.memory import edge_fractions
    plain = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    mc = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x2_mc1_s4_sw128-128_wg2_acc1_pm8_etma")
    for m, pad, worst in ((256, 0.0, 0.0), (192, 0.25, 0.5), (128, 0.5, 1.0), (64, 0.75, 1.0)):
        p = make_problem(f"{m}x14336x3072", "bf16")
        assert edge_fractions(p, plain) == (pytest.approx(pad), 0.0)
        assert edge_fractions(p, mc) == (pytest.approx(worst), 0.0)
    # over several tile rows only the last one pads: 640 rows = 2.5 tiles of 256; the last tile's second slice is empty
    p = make_problem("640x14336x3072", "bf16")
    assert edge_fractions(p, plain)[0] == pytest.approx(1 - 640 / 768)
    assert edge_fractions(p, mc)[0] == pytest.approx(128 / (128 * 3))


def test_the_slowest_cta_of_a_one_wave_grid_carries_its_edge_tile_s_zero_fill():
    """edge_fractions(tiles_per_cta): the CTA with the most zero fill over its tiles, whose pace the GPC pool's law
    follows (memory.gpc_inflight_bytes_per_stage). One tile a CTA: the edge tile's whole padding (mb_tma --pair-share:
    at M = 160 the grid's slowest CTA runs 642 cycles a k-block, 481 at M = 256); many tiles a CTA, cycling over the
    tile rows: the grid's share."""
    from perfmodel.config import KernelConfig
    from perfmodel.sim.memory import edge_fractions, gpc_inflight_bytes_per_stage
    from perfmodel.sim.params import build_inputs
    hw = load_hardware("h100-sxm")
    cfg = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    one_wave, many = make_problem("160x3584x14336", "bf16"), make_problem("160x57344x4096", "bf16")
    assert edge_fractions(one_wave, cfg) == (pytest.approx(96 / 256), 0.0)          # the grid's share
    assert edge_fractions(one_wave, cfg, 1) == (pytest.approx(96 / 128), 0.0)       # the edge tile's CTA
    assert edge_fractions(many, cfg, 4) == (pytest.approx(96 / 256), 0.0)  # 2 tile rows, 4 tiles: as the grid
    assert edge_fractions(make_problem("256x3584x14336", "bf16"), cfg, 1) == (0.0, 0.0)
    inputs = build_inputs(one_wave, cfg, hw, 1.8e9)
    assert inputs.schedule.tiles_per_cta == 1
    total, miss, oob = gpc_inflight_bytes_per_stage(one_wave, cfg, inputs.traffic, 1)
    _, grid_miss, grid_oob = gpc_inflight_bytes_per_stage(one_wave, cfg, inputs.traffic)
    assert miss - grid_miss == pytest.approx(128 * 128 * (96 / 128 - 96 / 256) * (1 - inputs.traffic.a_miss_fraction))
    assert oob == pytest.approx(128 * 128 * 96 / 128) and grid_oob == pytest.approx(128 * 128 * 96 / 256)
    assert inputs.params.gpc_miss_bytes == pytest.approx(miss) and inputs.params.gpc_oob_bytes == pytest.approx(oob)


def test_a_ctas_first_tile_merges_its_shared_panels_in_step_with_the_grid():
    """sim/memory.lrc_merge(first=True): every CTA starts its first tile at launch, in step with the others that read
    the same panels, and the coalescer merges more of those reads (ncu, aligned 128-byte rows: received / served - 1 =
    c_first / stages there, c / stages later, l2.lrc_merge_first_per_stage > l2.lrc_merge_per_stage); a panel no other
    tile reads (one tile row: B; one tile column: A) has nobody to merge with, and zero fill is no read."""
    from perfmodel import load_hardware, make_problem
    from perfmodel.config import KernelConfig
    from perfmodel.sim.memory import edge_fractions, l2_occupancy_bytes_per_stage, lrc_merge, lrc_sharers
    hw = load_hardware("h100-sxm")
    c, c1 = hw.l2.lrc_merge_per_stage, hw.l2.lrc_merge_first_per_stage
    assert 0 < c < c1
    cfg = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    wide, skinny = make_problem("256x8192x8192", "bf16"), make_problem("64x8192x8192", "bf16")
    assert lrc_sharers(wide, cfg) == (True, True) and lrc_sharers(skinny, cfg) == (True, False)
    later, first = lrc_merge(wide, cfg, hw), lrc_merge(wide, cfg, hw, first=True)
    ratio = (1 + c1 / 6) / (1 + c / 6)
    assert first == pytest.approx((later[0] * ratio, later[1] * ratio))
    # the skinny grid's B panels: one tile row reads each, so B is never merged
    s_later, s_first = lrc_merge(skinny, cfg, hw), lrc_merge(skinny, cfg, hw, first=True)
    assert s_first[0] == pytest.approx(s_later[0] * ratio) and s_first[1] == s_later[1] == 1.0
    assert l2_occupancy_bytes_per_stage(wide, cfg, hw, first=True) == pytest.approx(
        l2_occupancy_bytes_per_stage(wide, cfg, hw) / ratio)
    # the skinny tile's A box is half zero fill: only its rows in bounds merge more in the first tile
    assert edge_fractions(skinny, cfg)[0] == 0.5
    gain = l2_occupancy_bytes_per_stage(skinny, cfg, hw) - l2_occupancy_bytes_per_stage(skinny, cfg, hw, first=True)
    a_in = 64 * 128 / hw.tma.l2_efficiency_128b if hw.tma.l2_efficiency_128b else 64 * 128
    assert gain == pytest.approx(a_in * (1 / s_later[0] - 1 / s_first[0]), rel=0.05)
    mc = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma")
    assert lrc_merge(wide, mc, hw, first=True) == (1.0, 1.0)
    # ncu measured the in-step first tile at 3-9 stages: a 2-stage ring's first tile merges as its later ones
    two = cfg.replace(stages=2)
    assert lrc_merge(wide, two, hw, first=True) == lrc_merge(wide, two, hw) == lrc_merge(wide, cfg.replace(stages=3), hw)


def test_the_in_step_first_tile_runs_one_wave_l2_bound_grids_faster():
    """A one-wave L2-bound grid (256x8192x8192, 128x128: ncu received / served 1.31-1.34 against 1.07-1.12 for the
    same tile at 8192^3) is all first tiles: it runs faster with the in-step merge; a grid of many tiles per CTA gains
    only its first tiles' share, and the window's later tiles keep the later merge's pace."""
    from perfmodel import load_hardware, make_problem
    from perfmodel.config import KernelConfig
    from perfmodel.prediction.predict import predict
    hw = load_hardware("h100-sxm")
    off = hw.with_values(**{"l2.lrc_merge_first_per_stage": hw.l2.lrc_merge_per_stage})
    cfg = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    one = make_problem("256x8192x8192", "bf16")
    fast, slow = predict(one, cfg, hw, clock=1400), predict(one, cfg, off, clock=1400)
    assert fast.tflops > slow.tflops * 1.05
    many = make_problem("8192x8192x8192", "bf16")
    gain = predict(many, cfg, hw, clock=1400).tflops / predict(many, cfg, off, clock=1400).tflops - 1
    assert 0 <= gain < (fast.tflops / slow.tflops - 1) / 4


def test_a_clusters_ctas_without_multicast_read_their_shared_panel_in_step():
    """sim/memory.cluster_in_step (ncu, data/ncu/cluster_mc0_h100: the coalescer's merge 1.08 plain, 1.24 / 1.10 in 2x1
    / 1x2 clusters without multicast at 8192^3): the panel along the cluster's axis merges as an in-step first tile's in
    every tile (B for 2x1, A for 1x2); not with multicast (one read serves the pair), nor where the cluster's edge tile
    lies half beyond the matrix edge (mostly zero fill); the L2-bound 2x1 ring then runs faster than the plain grid."""
    from perfmodel.prediction.predict import predict
    from perfmodel.sim.memory import cluster_in_step, lrc_merge
    hw = load_hardware("h100-sxm")
    p = make_problem("8192x8192x8192", "bf16")
    name = "128x128x64_i64x128x16_cg1_cl{}_mc{}_s6_sw128-128_wg2_acc1_pm8_etma"
    plain, m2, n2, mc = (KernelConfig.from_name(name.format(c, m)) for c, m in
                         (("1x1", 0), ("2x1", 0), ("1x2", 0), ("2x1", 1)))
    assert cluster_in_step(p, plain) == (False, False) and cluster_in_step(p, mc) == (False, False)
    assert cluster_in_step(p, m2) == (False, True) and cluster_in_step(p, n2) == (True, False)
    base, first = lrc_merge(p, plain, hw), lrc_merge(p, plain, hw, first=True)
    assert lrc_merge(p, m2, hw) == pytest.approx((base[0], first[1]))
    assert lrc_merge(p, n2, hw) == pytest.approx((first[0], base[1]))
    assert lrc_merge(p, m2, hw, first=True) == pytest.approx(first)
    skinny = make_problem("128x14336x4096", "bf16")        # 256-row tiles: the 1x2 pair's A box half beyond M
    wide_mc0 = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x2_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    assert cluster_in_step(skinny, wide_mc0) == (False, False)
    assert cluster_in_step(make_problem("8192x8192x8192", "bf16"), wide_mc0) == (True, False)
    fast, slow = predict(p, m2, hw, clock=1400), predict(p, plain, hw, clock=1400)
    assert slow.bottleneck.value == "l2" and fast.tflops > slow.tflops * 1.02


def test_drifting_sharers_reread_the_wave_slabs_under_the_k_window_reuse_only():
    """sim/memory.drift_cohorts: 1 + drift x p / (2 window) reads of a shared K-slab, only where the wave's reuse is the
    in-step k-window; capped at every tile reading its own panels; the measured progress windows say how long a run
    is."""
    from perfmodel.config import KernelConfig
    from perfmodel.sim.memory import drift_cohorts, progress_windows, reuse_capacity_bytes
    assert drift_cohorts(100.0, 0.0, 5000.0) == 1.0
    assert drift_cohorts(100.0, 0.1, 2000.0) == pytest.approx(2.0)
    assert drift_cohorts(100.0, 0.1, 4000.0) > drift_cohorts(100.0, 0.1, 2000.0) > drift_cohorts(50.0 * 4, 0.1, 2000.0)
    hw = load_hardware("h100-sxm")
    cfg = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    long_k, short_k = make_problem("4096x4096x49152", "bf16"), make_problem("2048x2048x2048", "bf16")
    s = make_schedule(long_k, cfg, hw)
    spread = hw.l2.sm_rate_spread
    still, drifting = traffic(long_k, cfg, hw, s), traffic(long_k, cfg, hw, s, spread)
    assert still.reuse == "k-window" and still.drift_reads == 1.0
    windows = progress_windows(long_k, cfg, hw, s, still)
    assert windows > 40
    assert drifting.drift_reads == pytest.approx(drift_cohorts(1.0, spread, windows, still.wave_working_set_bytes
                                                               / reuse_capacity_bytes(hw)))
    assert drifting.hbm_read_bytes == pytest.approx(still.hbm_read_bytes * drifting.drift_reads, rel=1e-6)
    none = still.l2_read_bytes_per_stage * s.n_tiles * 768
    assert traffic(long_k, cfg, hw, s, 50.0).hbm_read_bytes == pytest.approx(none)     # every tile its own panels
    s2 = make_schedule(short_k, cfg, hw)
    fits = traffic(short_k, cfg, hw, s2, spread)                                        # all-fit: nothing to drift from
    assert fits.reuse == "all-fit" and fits.drift_reads == 1.0
    assert fits.hbm_read_bytes == traffic(short_k, cfg, hw, s2).hbm_read_bytes


def test_the_l2_keeps_a_fraction_of_itself_for_a_waves_panels():
    """l2.reuse_capacity_fraction (fitted on our ncu HBM reads): a wave whose panels fill between that fraction and all
    of the L2 no longer fits it: its reuse is the k-window's, whose slabs the drifting sharers re-read; a problem within
    the fraction is unchanged. Our ncu of such waves read 1.5-5x the whole-L2 model's HBM bytes (benchmarks/hbm_traffic.py)."""
    from perfmodel.sim.memory import reuse_capacity_bytes
    hw = load_hardware("h100-sxm")
    frac = hw.l2.reuse_capacity_fraction
    assert 0.3 <= frac < 1.0
    whole = dataclasses.replace(hw, l2=dataclasses.replace(hw.l2, reuse_capacity_fraction=None))
    assert reuse_capacity_bytes(hw) == hw.l2.size_bytes * frac and reuse_capacity_bytes(whole) == hw.l2.size_bytes
    cfg = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    big = make_problem("8192x8192x8192", "bf16")         # a wave's panels: all of the L2 (ncu: 3.4 GB read, not 1.6)
    s = make_schedule(big, cfg, hw)
    spread = hw.l2.sm_rate_spread
    once, kept = traffic(big, cfg, whole, s, spread), traffic(big, cfg, hw, s, spread)
    assert reuse_capacity_bytes(hw) < once.wave_working_set_bytes <= hw.l2.size_bytes
    assert once.reuse == "wave-fit" and once.drift_reads == 1.0          # a wave that fits has nothing to drift from
    assert kept.reuse == "k-window" and kept.hbm_read_bytes > 1.5 * once.hbm_read_bytes   # the drifting sharers re-read
    small = make_problem("2048x2048x2048", "bf16")       # everything within the fraction
    s2 = make_schedule(small, cfg, hw)
    assert traffic(small, cfg, hw, s2) == traffic(small, cfg, whole, s2)


def test_zero_fill_rows_take_more_l2_than_rows_in_bounds():
    """tma.oob_l2_cost (mb_tma --skinny-oob): a box's rows beyond the matrix edge occupy that many times an in-bounds
    row's L2 bandwidth; a shape with no rows beyond the edge is unchanged, and the file's value can be switched off."""
    import dataclasses

    from perfmodel import KernelConfig
    from perfmodel.sim.memory import l2_occupancy_bytes_per_stage, zero_fill_weights
    hw = load_hardware("h100-sxm")
    w = hw.tma.oob_l2_cost
    assert w is not None and 1.5 < w < 4.0
    cfg = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    half = make_problem("128x14336x4096", "bf16")           # A's box: 128 of its 256 rows beyond the edge
    full = make_problem("256x14336x4096", "bf16")
    assert zero_fill_weights(half, cfg, hw) == pytest.approx((1 + (w - 1) * 0.5, 1.0))
    assert zero_fill_weights(full, cfg, hw) == (1.0, 1.0)
    off = dataclasses.replace(hw, tma=dataclasses.replace(hw.tma, oob_l2_cost=None))
    assert zero_fill_weights(half, cfg, off) == (1.0, 1.0)
    from perfmodel.sim.memory import lrc_merge
    merge_a = lrc_merge(half, cfg, hw)[0]                   # one tile row: B is not merged, A is
    eff = hw.tma.l2_efficiency_128b or 1.0
    a_share = 32 * 1024 / eff / merge_a                     # A is 32 of the stage's 48 KB
    assert l2_occupancy_bytes_per_stage(half, cfg, hw) == pytest.approx(
        l2_occupancy_bytes_per_stage(half, cfg, off) + a_share * (w - 1) * 0.5)
    assert l2_occupancy_bytes_per_stage(full, cfg, hw) == pytest.approx(l2_occupancy_bytes_per_stage(full, cfg, off))
    # the software-pipelined families' masked cp.async copies read nothing beyond the edge: no weight for them
    assert l2_occupancy_bytes_per_stage(half, cfg, hw, tma=False) == pytest.approx(
        l2_occupancy_bytes_per_stage(half, cfg, off, tma=False))


def test_direct_stores_cost_a_request_per_row_piece_and_a_sector_slot_each():
    """The direct epilogue writes wgmma's D fragment as it lies (8 elements of a row per request): ncu counted 16 output
    bytes per write request and per sector on bf16 outputs, TMA stores 128 and 32 (data/ncu/store_probe_h200)."""
    hw = load_hardware("h100-sxm")
    problem = make_problem((4096, 4096, 4096), "bf16")
    tma = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    direct = dataclasses.replace(tma, epilogue=Epilogue.DIRECT)
    out = 128 * 128 * 2
    assert store_l2_lookups_per_tile(problem, direct, hw) == out / 16
    assert store_l2_lookups_per_tile(problem, tma, hw) == out / 128
    assert store_l2_bytes_per_tile(problem, direct, hw) == 2 * out       # a 16-byte piece takes a 32-byte sector's slot
    assert store_l2_bytes_per_tile(problem, tma, hw) == out              # whole lines at an aligned pitch


def test_the_drift_spread_counts_up_to_one_tiles_k_loop():
    """sim/memory.drift_cohorts with max_spread_kblocks: CTAs further apart than one tile's K are on different tiles,
    so the spread that re-reads a slab stops growing there (ncu: 16384x10240x8192, 128 k-blocks a tile, read 3.4x the
    in-step bytes where the unbounded law says 6); below the bound the law is unchanged, and the bound is continuous."""
    from perfmodel.sim.memory import drift_cohorts, progress_windows, reuse_capacity_bytes
    assert drift_cohorts(10.0, 0.1, 100.0, 50.0) == drift_cohorts(10.0, 0.1, 100.0) == pytest.approx(1.5)
    assert drift_cohorts(10.0, 0.1, 100.0, 10.0) == pytest.approx(1.5)          # at the bound: the same
    assert drift_cohorts(10.0, 0.1, 1000.0, 10.0) == pytest.approx(1 + (10 - 100 / 200) / 10)
    assert drift_cohorts(10.0, 0.1, 1e6, 10.0) < 2.0 < drift_cohorts(10.0, 0.1, 1e6)
    hw = load_hardware("h100-sxm")
    cfg = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    many, long_k = make_problem("16384x10240x8192", "bf16"), make_problem("4096x4096x49152", "bf16")
    spread = hw.l2.sm_rate_spread
    for problem, bound in ((many, True), (long_k, False)):
        sched = make_schedule(problem, cfg, hw)
        still = traffic(problem, cfg, hw, sched)
        run, tile_k = (progress_windows(problem, cfg, hw, sched, still),
                       still.wave_working_set_bytes / reuse_capacity_bytes(hw))
        assert (spread * run > tile_k) is bound
        assert traffic(problem, cfg, hw, sched, spread).drift_reads == pytest.approx(
            drift_cohorts(1.0, spread, run, tile_k))
    free = drift_cohorts(1.0, spread, progress_windows(many, cfg, hw, make_schedule(many, cfg, hw),
                                                       traffic(many, cfg, hw, make_schedule(many, cfg, hw))))
    assert traffic(many, cfg, hw, make_schedule(many, cfg, hw), spread).drift_reads < free


def test_zero_fill_waits_once_the_grid_requests_more_than_the_free_bytes():
    """tma.oob_wait_* (mb_tma --oob-land, 2-stage rings): a stage lands later by a rate per zero-fill byte that all the
    active SMs request in one k-block beyond a free amount, a time (scaled with the clock); a grid below the free amount,
    a shape with no zero fill and the masked cp.async copies of the software-pipelined families wait nothing."""
    from perfmodel.sim.memory import zero_fill_bytes_per_stage
    from perfmodel.sim.params import build_inputs, zero_fill_wait_cycles
    hw = load_hardware("h100-sxm")
    rate, free = hw.tma.oob_wait_cycles_per_byte, hw.tma.oob_wait_free_bytes
    assert 5e-4 < rate < 2e-3 and 2e5 < free < 1e6
    boost = hw.clock.boost_hz
    assert zero_fill_wait_cycles(hw, boost, free) == 0.0
    assert zero_fill_wait_cycles(hw, boost, free + 1e6) == pytest.approx(rate * 1e6)
    assert zero_fill_wait_cycles(hw, boost / 2, free + 1e6) == pytest.approx(rate * 1e6 / 2)
    off = dataclasses.replace(hw, tma=dataclasses.replace(hw.tma, oob_wait_cycles_per_byte=None))
    assert zero_fill_wait_cycles(off, boost, free + 1e6) == 0.0
    cfg = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    m64 = make_problem("64x14336x3072", "bf16")             # 112 CTAs, each A box 192 of 256 rows beyond the edge
    assert zero_fill_bytes_per_stage(m64, cfg) == 192 * 128
    clock = 1.8e9
    lat = build_inputs(m64, cfg, hw, clock).params.tma_latency_cycles
    assert lat == pytest.approx(build_inputs(m64, cfg, off, clock).params.tma_latency_cycles
                                + zero_fill_wait_cycles(hw, clock, 112 * 192 * 128))
    few = make_problem("64x2048x3072", "bf16")              # 16 CTAs: 0.39 MB of zero fill, below the free amount
    assert build_inputs(few, cfg, hw, clock).params.tma_latency_cycles == pytest.approx(
        build_inputs(few, cfg, off, clock).params.tma_latency_cycles)
    full = make_problem("256x14336x3072", "bf16")
    assert build_inputs(full, cfg, hw, clock).params.grid_zero_fill_bytes == 0.0
    ptr = build_inputs(m64, cfg, hw, clock, family="triton-ptr").params
    assert ptr.grid_zero_fill_bytes == 0.0
