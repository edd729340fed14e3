"""Analytic baseline: roofline + wave quantisation."""
import math

import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.prediction.analytic import analytic_estimate


def est(gpu, shape, dtype="bf16", **knobs):
    """The roofline arithmetic alone: without the launch's fixed time (tests/test_launch_and_stream.py checks it)."""
    hw = load_hardware(gpu)
    if hw.gpu.launch_overhead_s:
        hw = hw.with_values(**{"gpu.launch_overhead_s": 0.0})
    p = make_problem(shape, dtype)
    cfg = derive(p, hw, **knobs).config
    return analytic_estimate(p, cfg, hw, hw.clock.sustained_tensor_hz), p, hw


def test_full_waves_of_compute_bound_tiles_reach_peak():
    e, p, hw = est("h100-sxm", "16896x2048x8192", tile=(128, 256, 64), cluster=(2, 1))  # 132 x 8 tiles
    assert e.waves == 8 and e.wave_efficiency == pytest.approx(1.0)
    peak = hw.tensor_core.f16_flops_per_clock_per_sm * hw.sm_count * hw.clock.sustained_tensor_hz / 1e12
    assert e.bound == "compute" and e.tflops == pytest.approx(peak, rel=1e-6)


def test_one_extra_tile_costs_a_wave():
    a, _, hw = est("h100-sxm", "16896x256x4096", tile=(128, 256, 64))
    b, _, _ = est("h100-sxm", "17024x256x4096", tile=(128, 256, 64))
    assert (a.waves, b.waves) == (1, 2) and a.tile_cycles == pytest.approx(b.tile_cycles)
    # (one wave alone sits on the HBM roofline, a little above its tile time; two waves are tile-bound)
    assert b.time_s == pytest.approx(2 * a.tile_cycles / hw.clock.sustained_tensor_hz, rel=1e-6)
    assert b.wave_efficiency == pytest.approx(133 / 264)


def test_memory_roofline_for_tiny_k():
    e, p, hw = est("h100-sxm", "16384x16384x16", tile=(128, 256, 16))
    assert e.bound == "hbm-roofline"
    assert e.time_s == pytest.approx(p.min_hbm_bytes / (hw.hbm.bandwidth_bytes_per_s * hw.hbm.achievable_fraction),
                                     rel=1e-3)


def test_l2_bound_without_multicast_and_not_with_it():
    plain, _, _ = est("h100-sxm", "8192x8192x8192", tile=(128, 128, 64))
    assert plain.bound == "l2"
    mc, _, _ = est("b200", "8192x8192x8192", tile=(128, 256, 64), cta_group=2, cluster=(2, 1))
    assert mc.bound == "compute"


def test_to_dict_round_numbers():
    e, _, _ = est("b200", "4096x4096x4096", tile=(128, 256, 64))
    d = e.to_dict()
    assert d["cycles"] == e.cycles and math.isclose(d["time_us"], e.time_s * 1e6)
