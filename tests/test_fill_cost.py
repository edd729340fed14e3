"""L2 fills from HBM take L2 bandwidth (issue 8, the fifteenth session): our mb_tma --miss-mix streams 16 KB TMA boxes
from every SM with a share of them from HBM, and the chip's rate falls as 1 / (1 + c x share) with c ~ 0.16-0.17 of a
hit byte's L2 time (H100 and H200); the model charges each stage's HBM bytes that share of L2 time."""
import json
from pathlib import Path

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.config import KernelConfig
from perfmodel.microbench.derive import fill_cost
from perfmodel.prediction.predict import predict
from perfmodel.sim.memory import fill_occupancy_bytes_per_stage
from perfmodel.sim.params import build_inputs

ROOT = Path(__file__).resolve().parent.parent
H100 = load_hardware("h100-sxm")
H200 = load_hardware("h200")
FREE = {"l2.fill_cost": 0.0}
# an L2-bound long-K ring whose CTAs drift apart (about a fifth of its L2 reads come from HBM) and a one-wave 128x256
# tile whose panels all fit in L2 (each byte read from HBM once)
DRIFT = (make_problem("9216x4096x11008", "bf16"),
         KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma"))
FITS = (make_problem("1024x4096x4096", "bf16"),
        KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"))


@pytest.mark.parametrize("hw, data", [(H100, "h100-80gb-hbm3-2026-11-26-miss-mix.json"),
                                      (H200, "h200-2026-11-26-miss-mix.json")])
def test_the_fill_cost_is_the_microbenchmark_s(hw, data):
    got = fill_cost(json.loads((ROOT / "data" / "microbench" / data).read_text())["records"])
    assert got is not None and got[1] >= 8
    assert hw.l2.fill_cost == pytest.approx(got[0], abs=0.0015)
    assert 0.1 < got[0] < 0.25


def test_fill_cost_needs_all_hit_and_all_miss_points():
    recs = [{"bench": "tma_miss_mix", "stages": 8, "miss_share": 0.25, "chip_bytes_per_s": 6.7e12,
             "hbm_bytes_per_s": 1.7e12}]
    assert fill_cost(recs) is None
    assert fill_cost([]) is None


def test_each_hbm_byte_adds_its_share_of_l2_time():
    problem, cfg = DRIFT
    with_fill = build_inputs(problem, cfg, H100, 1.5e9)
    free = build_inputs(problem, cfg, H100.with_values(**FREE), 1.5e9)
    extra = H100.l2.fill_cost * with_fill.traffic.hbm_read_bytes_per_stage / H100.tma.l2_efficiency_128b
    assert fill_occupancy_bytes_per_stage(with_fill.traffic, H100) == pytest.approx(extra)
    assert fill_occupancy_bytes_per_stage(with_fill.traffic, H100.with_values(**FREE)) == 0.0
    assert with_fill.params.l2_bytes_per_stage - free.params.l2_bytes_per_stage == pytest.approx(extra)


def test_misses_slow_an_l2_bound_kernel_not_one_that_reads_each_byte_once():
    def ratio(problem, cfg):
        return (predict(problem, cfg, H100, clock_hz=1.5e9).tflops
                / predict(problem, cfg, H100.with_values(**FREE), clock_hz=1.5e9).tflops)
    assert ratio(*DRIFT) < 0.98
    assert ratio(*FITS) > 0.995
