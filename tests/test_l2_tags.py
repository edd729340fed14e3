"""The L2 tag pipeline (issue 8; our ncu of the GEMM, data/ncu): every L2 request looks its line up once, and the
partition fabric adds lookups for reads and fills. Narrow (64/32-byte) box rows double / quadruple the requests
per byte, so the tag pipeline, not the data path, is what binds them."""
import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.prediction.predict import predict
from perfmodel.sim.memory import l2_tag_lookups_per_stage, tma_requests_per_stage
from perfmodel.sim.params import build_inputs

H100 = load_hardware("h100-sxm")
P = make_problem("8192x8192x8192", "bf16")


def _cfg(swizzle):
    return derive(P, H100, (128, 256, 64), swizzle=swizzle).config


def test_requests_follow_the_row_width():
    r128, r64, r32 = (tma_requests_per_stage(P, _cfg(s), H100) for s in (128, 64, 32))
    assert r64 == pytest.approx(2 * r128) and r32 == pytest.approx(4 * r128)
    # one request per 128-byte row of A (128 rows) and B (256 rows) of a 64-deep bf16 k-block
    assert r128 == pytest.approx(128 + 256)


def test_the_fabric_adds_lookups_for_reads_and_fills():
    cfg = _cfg(64)
    traf = build_inputs(P, cfg, H100, H100.clock.boost_hz).traffic
    base = l2_tag_lookups_per_stage(P, cfg, H100.with_values(**{"l2.fabric_read_bytes_per_lookup": 1e6,
                                                                  "l2.fabric_fill_bytes_per_lookup": 1e6}), traf)
    full = l2_tag_lookups_per_stage(P, cfg, H100, traf)
    extra = (traf.l2_read_bytes_per_stage / H100.l2.fabric_read_bytes_per_lookup
             + traf.hbm_read_bytes_per_stage / H100.l2.fabric_fill_bytes_per_lookup)
    assert full - base == pytest.approx(extra, rel=1e-3)


def test_narrow_rows_are_bound_by_tags_wide_ones_are_not():
    unbounded = H100.with_values(**{"l2.tag_lookups_per_s": 1e13})
    t = {s: (predict(P, _cfg(s), H100, clock="boost").tflops, predict(P, _cfg(s), unbounded, clock="boost").tflops)
         for s in (128, 64, 32)}
    assert t[32][0] < 0.95 * t[32][1] and t[64][0] < 0.97 * t[64][1]   # the tags bind narrow rows
    assert t[128][0] == pytest.approx(t[128][1], rel=0.01)             # the data path binds 128-byte rows


def test_the_ncu_figures_agree_with_the_model_s_requests():
    """data/ncu: 8192^3 bf16 128x256x64, 64B swizzle: lts__t_requests_srcunit_tex 205.7 M over the kernel."""
    cfg = _cfg(64)
    inp = build_inputs(P, cfg, H100, H100.clock.boost_hz)
    stages = inp.schedule.n_tiles * inp.params.k_iters
    assert tma_requests_per_stage(P, cfg, H100) * stages == pytest.approx(205.7e6, rel=0.05)
