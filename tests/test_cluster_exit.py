"""A cluster barrier before exit costs a launch (issue 8, the sixteenth session): our kernel's clusters meet at
barrier.cluster before their CTAs leave, and mb_stream --launch-clusters measured what that adds to a launch timed as our
harness times (0.70 us on the H100, 0.26 us on the H200; clusters without the barrier cost nothing more)."""
import json
from pathlib import Path

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.config import KernelConfig
from perfmodel.families import get_family
from perfmodel.microbench.derive import cluster_exit_s
from perfmodel.prediction.predict import predict

ROOT = Path(__file__).resolve().parent.parent
H100 = load_hardware("h100-sxm")
H200 = load_hardware("h200")
PLAIN = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
CLUSTER = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl2x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")


@pytest.mark.parametrize("hw, data", [(H100, "h100-80gb-hbm3-2026-11-26-launch-clusters.json"),
                                      (H200, "h200-2026-11-26-launch-clusters.json")])
def test_the_exit_barrier_s_cost_is_the_microbenchmark_s(hw, data):
    records = json.loads((ROOT / "data" / "microbench" / data).read_text())["records"]
    got = cluster_exit_s(records)
    assert got is not None and got[1] >= 8
    assert hw.gpu.cluster_exit_s == pytest.approx(got[0], rel=0.01)
    # a launch of clusters that exit at once costs what single CTAs cost (within the run-to-run spread)
    free = {(r["ctas"], r["cluster"], r["spin_us_at_1980mhz"], r.get("repeat", 0)): r["us_per_launch"]
            for r in records if r.get("bench") == "launch_clusters" and not r["cluster_sync"]}
    for (ctas, cluster, spin, rep), us in free.items():
        if cluster > 1 and spin > 0 and us < 2 * spin:
            assert us == pytest.approx(free[(ctas, 1, spin, rep)], abs=0.15)


def test_our_kernel_s_clusters_pay_it_once_a_launch():
    p = make_problem("1000x1992x1016", "bf16")
    plain, cluster = predict(p, PLAIN, H100, clock="boost"), predict(p, CLUSTER, H100, clock="boost")
    assert cluster.time_s - cluster.cycles / cluster.clock_hz == pytest.approx(
        plain.time_s - plain.cycles / plain.clock_hz + H100.gpu.cluster_exit_s)
    assert get_family("ours").schedule(p, CLUSTER, H100).cluster_exit_sync
    assert not get_family("ours").schedule(p, PLAIN, H100).cluster_exit_sync
