"""A multicast stage's release reaches the peer CTA's producer 203 cycles later than a local one (issue 8, the
seventeenth session): mb_sync's cluster ping-pong with the arrive our GEMM releases a stage with
(mbarrier.arrive.shared::cluster, default .release.cta) on the H100 and the H200 alike. The figure the files held before
(839 / 520 cycles) timed mbarrier.arrive.release.cluster, whose GPU-scope memory barrier our kernel does not execute."""
import json
import re
from pathlib import Path

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.config import KernelConfig
from perfmodel.microbench.derive import cluster_arrive_cycles
from perfmodel.prediction.predict import predict

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("gpu, data", [("h100-sxm", "h100-80gb-hbm3-2026-11-26-cluster-arrive.json"),
                                       ("h200", "h200-2026-11-26-cluster-arrive.json")])
def test_the_release_delay_is_the_microbenchmark_s_gemm_arrive(gpu, data):
    records = json.loads((ROOT / "data" / "microbench" / data).read_text())["records"]
    got = cluster_arrive_cycles(records)
    assert got is not None and got[1] >= 2
    assert load_hardware(gpu).sync.cluster_arrive_cycles == pytest.approx(got[0], abs=0.1)
    ping = {r["mode"]: r["one_way_cycles"] for r in records if r.get("bench") == "mbarrier_pingpong"}
    # the .release.cluster arrive pays a GPU-scope memory barrier on top: several times the GEMM arrive's cost
    assert ping["cross_cta_cluster2"] - ping["cross_warp_try_wait"] > 2 * got[0]


def test_only_pingpong_pairs_of_one_run_are_compared():
    recs = [{"bench": "mbarrier_pingpong", "mode": "cross_warp_try_wait", "one_way_cycles": 100.0},
            {"bench": "mbarrier_pingpong", "mode": "cross_cta_cluster2_gemm_arrive", "one_way_cycles": 300.0},
            {"bench": "mbarrier_pingpong", "mode": "cross_warp_try_wait", "one_way_cycles": 120.0},
            {"bench": "mbarrier_pingpong", "mode": "cross_cta_cluster2_gemm_arrive", "one_way_cycles": 360.0},
            {"bench": "mbarrier_pingpong", "mode": "cross_warp_try_wait", "one_way_cycles": 90.0}]
    assert cluster_arrive_cycles(recs) == (220.0, 2)
    assert cluster_arrive_cycles([r for r in recs if r["mode"] == "cross_warp_try_wait"]) is None


def test_the_gemm_and_the_microbenchmark_use_the_same_arrive():
    """The ping-pong's GEMM mode must time the instruction our kernel releases a multicast stage with."""
    form = re.compile(r'mbarrier\.arrive\.shared::cluster\.b64 _, \[\w+\];')
    assert form.search((ROOT / "perfmodel" / "kernels" / "gemm_sm90.cu").read_text())
    assert form.search((ROOT / "perfmodel" / "microbench" / "mb_common.cuh").read_text())


def test_a_three_stage_multicast_ring_is_no_longer_held_latency_bound():
    """8192^3 128x192 multicast 2x1 at 3 stages measured 598-601 TFLOP/s (h100_validate_top_v4, sustained); with an
    839-cycle release the model held it latency-bound at 513."""
    p = predict(make_problem("8192x8192x8192", "bf16"),
                KernelConfig.from_name("128x192x64_i64x192x16_cg1_cl2x1_mc1_s3_sw64-64_wg1_acc1_pn8_etma"),
                load_hardware("h100-sxm"), clock="sustained")
    assert 570 < p.tflops < 630
