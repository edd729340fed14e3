"""Two costs of short and skinny GEMMs (issue 8, microbenchmark mb_stream): what a launch adds to a kernel timed
by event pairs, and one SM's TMA unit held per copy from HBM."""
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


def test_few_sms_streaming_from_hbm_are_held_per_copy():
    """A 64-row GEMM keeps 28 SMs busy: each streams B from HBM and its TMA unit takes one copy per
    hbm_copy_cycles; a full-chip GEMM is bound by the chip's HBM share long before."""
    no = H100.with_values(**{"tma.hbm_copy_cycles": 0.0})
    slow = H100.with_values(**{"tma.hbm_copy_cycles": 2 * H100.tma.hbm_copy_cycles})
    t = [_pred("64x7168x2000", (64, 256, 64), hw=h, consumers=1).time_s for h in (no, H100, slow)]
    assert t[0] < t[1] < t[2]
    big = [_pred("8192x8192x8192", (128, 256, 64), hw=h).time_s for h in (no, H100)]
    assert big[1] == pytest.approx(big[0], rel=0.01)
