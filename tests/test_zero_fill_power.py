"""The zero fill's tensor power (sim/power.zero_fill_weight, sim/scheduler.operand_fill) and its source
(benchmarks/derive_zero_power.py on data/ncu/burn_power_*)."""
import dataclasses
import importlib.util
import pathlib

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.config import KernelConfig
from perfmodel.prediction.predict import predict
from perfmodel.sim.power import Activity, power_limited_clock_hz, zero_fill_weight
from perfmodel.sim.scheduler import make_schedule, operand_fill

ROOT = pathlib.Path(__file__).resolve().parents[1]
H100 = load_hardware("h100-sxm")
H200 = load_hardware("h200")


def _without_law(hw):
    return dataclasses.replace(hw, clock=dataclasses.replace(hw.clock, zero_operand_power_ratio=None,
                                                             b_operand_power_ratio=None))


def test_the_law_at_its_corners():
    c = H100.clock
    r0, rb = c.zero_operand_power_ratio, c.b_operand_power_ratio
    assert zero_fill_weight(H100, (1.0, 1.0, 1.0)) == 1.0
    assert zero_fill_weight(H100, (0.0, 0.0, 1.0)) == pytest.approx(r0)
    assert zero_fill_weight(H100, (1.0, 0.0, 1.0)) == pytest.approx(r0)          # A's data alone adds nothing
    assert zero_fill_weight(H100, (0.0, 1.0, 1.0)) == pytest.approx(r0 + rb)     # B's data alone adds rB
    assert zero_fill_weight(H100, (1.0, 1.0, 0.0)) == pytest.approx(r0)          # an all-zero K: both operands zero
    # zero B rows (columns beyond N) save more than as many zero A rows (rows beyond M)
    assert zero_fill_weight(H100, (1.0, 0.5, 1.0)) < zero_fill_weight(H100, (0.5, 1.0, 1.0)) < 1.0
    assert zero_fill_weight(_without_law(H100), (0.5, 0.5, 0.5)) == 1.0


def test_operand_fill_is_the_in_bounds_share_of_the_padded_tiles():
    def fill(shape, name):
        p, cfg = make_problem(shape, "bf16"), KernelConfig.from_name(name)
        return operand_fill(p, cfg, make_schedule(p, cfg, H100))
    t128 = "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma"
    assert fill("64x8192x28672", t128) == (0.5, 1.0, 1.0)
    assert fill("64x8192x28672", "64x128x64_i64x128x16_cg1_cl1x1_mc0_s9_sw128-128_wg1_acc1_pm8_etma") == (1.0, 1.0, 1.0)
    got = fill("1000x1992x1016", "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    assert got == pytest.approx((1000 / 1024, 1992 / 2048, 1016 / 1024))
    # a cluster's tile spans cluster_m tiles: 2x1 clusters of 128-row tiles pad M = 160 to 256
    assert fill("160x4096x4096", "128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma")[0] == \
        pytest.approx(160 / 256)


def test_zero_fill_raises_the_power_limited_clock_of_a_skinny_tile_only():
    skinny = make_problem("64x16384x28672", "bf16")
    half = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    full = KernelConfig.from_name("64x128x64_i64x128x16_cg1_cl1x1_mc0_s9_sw128-128_wg1_acc1_pm8_etma")
    for hw in (H100, H200):
        with_law = predict(skinny, half, hw, clock="sustained").clock_hz
        without = predict(skinny, half, _without_law(hw), clock="sustained").clock_hz
        assert with_law > without * 1.02
        assert predict(skinny, full, hw, clock="sustained").clock_hz == pytest.approx(
            predict(skinny, full, _without_law(hw), clock="sustained").clock_hz)
    # the power model itself: the same activity with half its A rows zero runs a faster clock under the cap
    act = Activity(0.95, 0.1, streamed=True)
    assert power_limited_clock_hz(dataclasses.replace(act, operand_fill=(0.5, 1.0, 1.0)), skinny, H100) > \
        power_limited_clock_hz(act, skinny, H100)


def _derive():
    spec = importlib.util.spec_from_file_location("derive_zero_power", ROOT / "benchmarks/derive_zero_power.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("gpu,run", [("h100-sxm", "burn_power_h100"), ("h200", "burn_power_h200")])
def test_the_committed_values_are_the_fit_on_the_committed_burns(gpu, run):
    mod = _derive()
    hw = load_hardware(gpu)
    rows = mod.burns(ROOT / "data/ncu" / run)
    assert len(rows) == 13 and all(r["samples"] >= 30 for r in rows)
    r0, rb, rms = mod.fit(mod.weights(rows, hw))
    assert hw.clock.zero_operand_power_ratio == pytest.approx(r0, abs=0.002)
    assert hw.clock.b_operand_power_ratio == pytest.approx(rb, abs=0.002)
    assert rms < 0.04
