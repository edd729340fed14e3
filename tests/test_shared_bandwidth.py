"""The SM's share of chip-wide bandwidth (sim/components.SharedServer, issue 8): an SM that idled may burst above
its share only into bandwidth the other SMs leave free. The SMs of a wave are alike, so when this one has used a
share u of its rate so far the chip has 1 - u free and a burst runs at most at rate / u."""
import pytest

from perfmodel.sim.components import SharedServer


def test_a_burst_into_an_idle_chip_is_not_held_back():
    s = SharedServer("l2", 10.0, depth=1000.0)
    assert s.reserve(100.0, 500.0) == pytest.approx(100.0)   # nothing used before: u = 0


def test_a_burst_runs_at_rate_over_utilization():
    s = SharedServer("l2", 10.0, depth=1000.0)
    s.reserve(0.0, 500.0)              # 50 cycles of the share, taken at t=0
    # at t=100 it has used 50 of 100 cycles (u = 0.5); 500 bytes covered by tokens take 500 x 0.5 / 10 = 25
    assert s.reserve(100.0, 500.0) == pytest.approx(125.0)


def test_a_saturated_share_gives_no_burst():
    s = SharedServer("hbm", 10.0, depth=10000.0)
    t = 0.0
    for _ in range(20):                # back to back at the share: u -> 1
        t = s.reserve(t, 100.0)
    assert s.reserve(t, 100.0) - t == pytest.approx(10.0, rel=0.05)


def test_two_stage_rings_lose_more_than_deep_ones():
    """The measured pattern (h100_sm90_dataset, 8192^3 bf16 128x256x64: 556 / 672 / 680 TFLOP/s at 2 / 3 / 4
    stages): a 2-stage ring of an L2-bound tile cannot refill from borrowed bandwidth."""
    from perfmodel import derive, load_hardware, make_problem
    from perfmodel.prediction.predict import predict
    hw = load_hardware("h100-sxm")
    problem = make_problem("8192x8192x8192", "bf16")
    t = {s: predict(problem, derive(problem, hw, (128, 256, 64), stages=s).config, hw, clock="boost").tflops
         for s in (2, 3, 4)}
    assert t[2] < 0.85 * t[4] and t[3] > 0.95 * t[4]


def test_a_multicast_stage_waits_for_the_peers_release_over_the_cluster():
    """mb_sync mbarrier_pingpong: the GEMM's arrive from the other CTA of a cluster takes ~203 cycles more than one
    from the same CTA. A multicast load fills both CTAs' stage, so a shallow multicast ring pays it on every turn; a
    deep ring hides it, and without multicast nothing waits for a peer."""
    from perfmodel import derive, load_hardware, make_problem
    from perfmodel.prediction.predict import predict
    hw = load_hardware("h100-sxm")
    none = hw.with_values(**{"sync.cluster_arrive_cycles": 0.0})
    p = make_problem("8192x8192x8192", "bf16")

    def t(h, **kw):
        return predict(p, derive(p, hw, (128, 256, 64), **kw).config, h, clock="boost").tflops
    assert t(hw, cluster=(2, 1), stages=2) < 0.95 * t(none, cluster=(2, 1), stages=2)
    assert t(hw, cluster=(2, 1), stages=4) == pytest.approx(t(none, cluster=(2, 1), stages=4), rel=0.02)
    assert t(hw, stages=2) == pytest.approx(t(none, stages=2), rel=1e-9)
