"""Two costs of short and skinny GEMMs (issue 8, microbenchmark mb_stream): what a launch adds to a kernel timed
by event pairs, and the loaded latency of HBM misses."""
import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.prediction.predict import predict

H100 = load_hardware("h100-sxm")


def _pred(shape, tile, hw=H100, dtype="bf16", **kw):
    problem = make_problem(shape, dtype)
    return predict(problem, derive(problem, hw, tile, **kw).config, hw, clock="boost")


def test_a_launch_adds_its_measured_time_to_every_prediction():
    p = _pred("2048x2048x2048", (128, 256, 64))
    assert p.time_s == pytest.approx(p.cycles / p.clock_hz + H100.gpu.launch_overhead_s)
    q = _pred("2048x2048x2048", (128, 256, 64), hw=H100.with_values(**{"gpu.launch_overhead_s": 0.0}))
    assert q.time_s == pytest.approx(q.cycles / q.clock_hz)
    assert p.analytic.time_s - q.analytic.time_s == pytest.approx(H100.gpu.launch_overhead_s)


def test_the_launch_matters_for_microsecond_kernels_only():
    no = H100.with_values(**{"gpu.launch_overhead_s": 0.0})
    small = _pred("1000x1992x1016", (128, 256, 64)).tflops / _pred("1000x1992x1016", (128, 256, 64), hw=no).tflops
    big = _pred("8192x8192x8192", (128, 256, 64)).tflops / _pred("8192x8192x8192", (128, 256, 64), hw=no).tflops
    assert small < 0.85 and big > 0.99


def test_hbm_misses_wait_longer_as_the_chip_s_hbm_fills():
    """The loaded HBM latency (tma.hbm_queue_ns x u / (1 - u), mb_tma tma_hbm_sms / tma_hbm_panel): a skinny
    GEMM streaming B from HBM over a few SMs slows as the queueing figure grows; an L2-resident GEMM does not
    wait for HBM and does not move."""
    no = H100.with_values(**{"tma.hbm_queue_ns": 0.0})
    slow = H100.with_values(**{"tma.hbm_queue_ns": 2 * H100.tma.hbm_queue_ns})
    t = [_pred("64x8192x28672", (64, 256, 64), hw=h, consumers=1).time_s for h in (no, H100, slow)]
    assert t[0] < t[1] < t[2]
    small = [_pred("2048x2048x2048", (128, 256, 64), hw=h).time_s for h in (no, slow)]
    assert small[1] == pytest.approx(small[0], rel=0.01)


def test_a_stage_waits_for_hbm_when_any_of_its_operands_misses():
    """64 rows of A are read by every CTA (L2 hits after the first), every B panel by one CTA (all misses):
    every stage waits for HBM, though only half its bytes come from there."""
    from perfmodel.sim.params import build_inputs
    problem = make_problem("64x8192x28672", "bf16")
    cfg = derive(problem, H100, (128, 128, 64)).config
    inp = build_inputs(problem, cfg, H100, H100.clock.boost_hz)
    assert inp.traffic.b_miss_fraction == pytest.approx(1.0)
    assert inp.traffic.a_miss_fraction < 0.05
    assert inp.traffic.stage_miss_probability > 0.99
    assert inp.traffic.hbm_read_bytes_per_stage / inp.traffic.l2_read_bytes_per_stage < 0.6
    from perfmodel.sim.params import zero_fill_wait_cycles       # M = 64 in a 128-row box: zero fill (a small wait)
    assert inp.params.tma_latency_cycles == pytest.approx(
        H100.tma.latency_cycles + inp.traffic.stage_miss_probability * H100.tma.hbm_miss_latency_cycles
        + zero_fill_wait_cycles(H100, H100.clock.boost_hz, inp.params.grid_zero_fill_bytes))


def test_hbm_latency_is_time_not_sm_cycles():
    """At a lower SM clock an L2 miss (and the zero fill's wait) costs fewer SM cycles (measured at boost); the L2 hit
    latency does not."""
    from perfmodel.sim.params import build_inputs
    problem = make_problem("64x8192x28672", "bf16")
    cfg = derive(problem, H100, (128, 128, 64)).config
    hi = build_inputs(problem, cfg, H100, H100.clock.boost_hz).params
    lo = build_inputs(problem, cfg, H100, H100.clock.boost_hz / 2).params
    from perfmodel.sim.params import zero_fill_wait_cycles
    assert hi.tma_latency_cycles - lo.tma_latency_cycles == pytest.approx(
        (hi.miss_probability * H100.tma.hbm_miss_latency_cycles
         + zero_fill_wait_cycles(H100, H100.clock.boost_hz, hi.grid_zero_fill_bytes)) / 2)
    assert lo.hbm_queue_cycles == pytest.approx(hi.hbm_queue_cycles / 2)
