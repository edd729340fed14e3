"""Direct-store epilogues share their GPC's store path (issue 8, the fifteenth session): our mb_tma --direct-store (the
epilogue's stores alone, in our kernel's fragment layout) writes 8.0 B a cycle an SM while few SMs store, and from 66
CTAs on the busiest GPC's SMs share 63 (H100) / 74 (H200) B a cycle; the model gives each SM the smaller of the two.
The sixteenth session measured the same stores coalesced (16 bytes a thread, whole rows a warp, as Triton's pointer
matmul writes them after its shared-memory layout conversion): 30.8 B a cycle an SM, 220 (H100) / 303 (H200) a GPC."""
import dataclasses
import json
from pathlib import Path

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.config import KernelConfig, StoreLayout
from perfmodel.families import get_family
from perfmodel.microbench.derive import direct_store_rates
from perfmodel.prediction.predict import predict
from perfmodel.sim.memory import store_l2_bytes_per_tile, store_l2_lookups_per_tile
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


@pytest.mark.parametrize("hw, data", [(H100, "h100-80gb-hbm3-2026-11-26-direct-store-vec.json"),
                                      (H200, "h200-2026-11-26-direct-store-vec.json")])
def test_coalesced_stores_have_their_own_measured_rates(hw, data):
    records = json.loads((ROOT / "data" / "microbench" / data).read_text())["records"]
    fragment, coalesced = direct_store_rates(records, hw, 4), direct_store_rates(records, hw, 16)
    # the same run's fragment stores reproduce the fifteenth session's figures (another card)
    assert fragment[0] == pytest.approx(hw.sync.direct_store_bytes_per_clock_per_sm, abs=0.1)
    assert fragment[1] == pytest.approx(hw.sync.direct_store_gpc_bytes_per_clock, rel=0.02)
    assert coalesced[2] >= 12
    assert hw.sync.coalesced_store_bytes_per_clock_per_sm == pytest.approx(coalesced[0], abs=0.05)
    assert hw.sync.coalesced_store_gpc_bytes_per_clock == pytest.approx(coalesced[1], abs=0.1)
    assert coalesced[0] > 3 * fragment[0] and coalesced[1] > 3 * fragment[1]


def test_the_store_layout_picks_the_rates_and_the_l2_requests():
    assert direct_store_rate(H100, 18, StoreLayout.COALESCED) == pytest.approx(220.0 / 18)
    assert direct_store_rate(H100, 4, StoreLayout.COALESCED) == pytest.approx(30.8)
    # a GPU without coalesced figures stores either layout at the fragment rates
    bare = dataclasses.replace(H100, sync=dataclasses.replace(H100.sync, coalesced_store_bytes_per_clock_per_sm=None,
                                                              coalesced_store_gpc_bytes_per_clock=None))
    assert direct_store_rate(bare, 18, StoreLayout.COALESCED) == direct_store_rate(bare, 18)
    p = make_problem("4096x4096x4096", "bf16")
    cfg = KernelConfig.from_name("128x128x64_i64x128x16_cg1_cl1x1_mc0_s3_sw128-128_wg1_acc1_npn8_edir")
    ours = build_inputs(p, cfg, H100, 1.7e9, get_family("ours"))
    ptr = build_inputs(p, cfg, H100, 1.7e9, get_family("triton-ptr"))
    assert ours.schedule is not None and ptr.params.epi_bytes_per_clock > 3 * ours.params.epi_bytes_per_clock
    # whole 128-byte lines: a request per line and no partial sector, where the fragments' 16-byte pieces take a
    # sector's slot each
    out = 128 * 128 * 2
    assert store_l2_bytes_per_tile(p, cfg, H100, StoreLayout.COALESCED) == out
    assert store_l2_bytes_per_tile(p, cfg, H100) == 2 * out
    assert store_l2_lookups_per_tile(p, cfg, H100, StoreLayout.COALESCED) == out / 128
    assert store_l2_lookups_per_tile(p, cfg, H100) == out / 16
    c = ptr.params.ctas_per_sm
    assert ptr.params.l2_store_bytes_per_tile == pytest.approx(c * out)
