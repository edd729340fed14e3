"""Direct-store epilogues share their GPC's store path (issue 8, the fifteenth session): our mb_tma --direct-store (the
epilogue's stores alone, in our kernel's fragment layout) writes 8.0 B a cycle an SM while few SMs store, and from 66
CTAs on the busiest GPC's SMs share 63 (H100) / 74 (H200) B a cycle; the model gives each SM the smaller of the two."""
import json
from pathlib import Path

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.config import KernelConfig
from perfmodel.microbench.derive import direct_store_rates
from perfmodel.prediction.predict import predict
from perfmodel.sim.params import build_inputs, direct_store_rate

ROOT = Path(__file__).resolve().parent.parent
H100 = load_hardware("h100-sxm")
H200 = load_hardware("h200")
EDIR = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_edir")


@pytest.mark.parametrize("hw, data", [(H100, "h100-80gb-hbm3-2026-11-26-direct-store.json"),
                                      (H200, "h200-2026-11-26-direct-store.json")])
def test_the_store_rates_are_the_microbenchmark_s(hw, data):
    got = direct_store_rates(json.loads((ROOT / "data" / "microbench" / data).read_text())["records"], hw)
    assert got is not None and got[2] >= 12
    assert hw.sync.direct_store_bytes_per_clock_per_sm == pytest.approx(got[0], abs=0.05)
    assert hw.sync.direct_store_gpc_bytes_per_clock == pytest.approx(got[1], abs=0.1)
    assert 50 < got[1] < 90 and 7.5 < got[0] < 8.5


def test_an_sm_gets_the_smaller_of_its_path_and_its_gpc_share():
    assert direct_store_rate(H100, 18) == pytest.approx(62.8 / 18)
    assert direct_store_rate(H100, 4) == pytest.approx(8.0)                  # a GPC of few storing SMs: the SM's own
    assert direct_store_rate(H100.with_values(**{"sync.direct_store_bytes_per_clock_per_sm": 5.0}), 0) == 5.0
    assert direct_store_rate(H200, 18) > direct_store_rate(H100, 18)


def test_a_full_grid_stores_slower_than_a_few_ctas():
    big = build_inputs(make_problem("12288x1408x512", "bf16"), EDIR, H100, 1.7e9)       # 132 CTAs
    few = build_inputs(make_problem("1024x1408x512", "bf16"), EDIR, H100, 1.7e9)        # 44 CTAs
    assert big.params.epi_bytes_per_clock == pytest.approx(62.8 / big.params.gpc_crowd_sms)
    assert few.params.epi_bytes_per_clock > big.params.epi_bytes_per_clock
    tma = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    assert build_inputs(make_problem("12288x1408x512", "bf16"), tma, H100, 1.7e9).params.epi_bytes_per_clock == \
        H100.sync.epilogue_bytes_per_clock_per_sm
    # an epilogue-heavy full grid is slower with the GPC's share than at the SM's own rate
    own = H100.with_values(**{"sync.direct_store_gpc_bytes_per_clock": 1e5})
    p = make_problem("12288x1408x512", "bf16")
    assert predict(p, EDIR, H100, clock_hz=1.7e9).tflops < 0.9 * predict(p, EDIR, own, clock_hz=1.7e9).tflops
