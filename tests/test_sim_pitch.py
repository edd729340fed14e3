"""Row pitch and address alignment of TMA box rows (issue 8): requests and sectors per row, their L2 and
TMA cost, and that a 128-byte aligned pitch predicts exactly what it did before."""
import dataclasses

import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.config import Epilogue
from perfmodel.prediction import predict
from perfmodel.sim.memory import (l2_occupancy_bytes_per_stage, misaligned_row_cost, operand_layout,
                                  row_geometry, row_requests_sectors, store_l2_bytes_per_tile,
                                  tma_bytes_per_clock)

H100 = load_hardware("h100-sxm")
PITCH_KEYS = ("sector_bytes", "line_bytes", "request_cycles", "l2_request_bytes", "l2_sector_bytes",
              "store_l2_request_bytes", "store_l2_sector_bytes")
ALIGNED_ONLY = dataclasses.replace(H100, tma=dataclasses.replace(H100.tma, **{k: None for k in PITCH_KEYS}))


@pytest.mark.parametrize("start,width,expect", [
    (0, 128, (1, 4)), (32, 128, (2, 4)), (64, 128, (2, 4)), (16, 128, (3, 5)), (112, 128, (3, 5)),
    (48, 128, (4, 5)), (80, 128, (4, 5)),                       # head + middle split at the line + tail
    (0, 64, (1, 2)), (64, 64, (1, 2)), (96, 64, (2, 2)), (16, 64, (3, 3)), (80, 64, (3, 3)),
    (4, 8, (1, 1)), (16, 32, (2, 2)), (0, 512, (4, 16)),
])
def test_requests_and_sectors_of_a_row(start, width, expect):
    # ncu on the H100 (data/microbench/h100-80gb-hbm3-2026-11-23-pitch.json): 1/2/3 requests per 128-byte
    # row at +0/+32/+16 B, 3 per 64-byte row at +16/+80, 1.5 at +96 (half the rows straddle a line)
    assert row_requests_sectors(start, width, 32, 128) == expect


@pytest.mark.parametrize("k_bytes,expect", [
    (4096, (1.0, 4.0)), (4032, (1.5, 4.0)), (4000, (1.75, 4.0)), (4016, (2.625, 4.5)), (2000, (2.625, 4.5)),
])
def test_mean_geometry_by_pitch_alignment(k_bytes, expect):
    # ncu: 0.98 / 1.49 / 1.74 / 2.63 requests per 128-byte row at 128/64/32/16-byte aligned pitches
    assert row_geometry(128, k_bytes, 128, H100) == pytest.approx(expect)


def _cfg(shape, dtype, tile, **kw):
    p = make_problem(shape, dtype)
    return p, derive(p, H100, tile, **kw).config


def test_misaligned_k_costs_the_measured_l2_bytes_and_tma_requests():
    p0, c0 = _cfg("3072x7168x2048", "fp8", (128, 256, 128))
    p1, c1 = _cfg("3072x7168x2000", "fp8", (128, 256, 128))
    t = H100.tma
    rows = 128 + 256                                            # box rows of A and B per stage, 128 B each
    extra = rows * ((2.625 - 1) * t.l2_request_bytes + 0.5 * t.l2_sector_bytes)
    assert l2_occupancy_bytes_per_stage(p1, c1, H100) == pytest.approx(l2_occupancy_bytes_per_stage(p0, c0, H100)
                                                                       + extra)
    assert tma_bytes_per_clock(p0, c0, H100) == t.bytes_per_clock_per_sm          # aligned: bytes-bound
    assert tma_bytes_per_clock(p1, c1, H100) == pytest.approx(rows * 128 / (rows * 2.625 * t.request_cycles))
    # the model turns that into a slower kernel; 32-byte aligned rows cost less than 16-byte aligned ones
    f0, f1 = predict(p0, c0, H100).tflops, predict(p1, c1, H100).tflops
    p2, c2 = _cfg("3072x7168x2016", "fp8", (128, 256, 128))
    f2 = predict(p2, c2, H100).tflops
    assert f1 < f2 < f0
    assert 0.6 < f1 / f0 < 0.85


@pytest.mark.parametrize("shape,dtype,tile,kw", [
    ("3072x7168x2048", "bf16", (128, 256, 64), {}),
    ("3072x7168x2048", "fp8", (128, 256, 128), {"cluster": (2, 1)}),
    ("4096x4096x4096", "bf16", (128, 128, 64), {"consumers": 2}),
    ("1000x1984x1024", "bf16", (128, 256, 64), {}),             # ragged M and N, rows 128-byte aligned
    ("2048x2048x2048", "bf16", (64, 256, 64), {"consumers": 1, "epilogue": Epilogue.DIRECT}),
])
def test_line_aligned_pitch_predicts_what_it_did_before(shape, dtype, tile, kw):
    p, c = _cfg(shape, dtype, tile, **kw)
    assert predict(p, c, H100).time_s == predict(p, c, ALIGNED_ONLY).time_s


def test_hardware_without_the_keys_ignores_alignment():
    p, c = _cfg("3072x7168x2000", "fp8", (128, 256, 128))
    for width, pitch, step, _ in operand_layout(p, c, ALIGNED_ONLY):
        assert misaligned_row_cost(width, pitch, step, ALIGNED_ONLY) == (0.0, 0.0)
    assert tma_bytes_per_clock(p, c, ALIGNED_ONLY) == H100.tma.bytes_per_clock_per_sm
    assert load_hardware("b200").tma.sector_bytes is None


def test_output_pitch_costs_tma_stores_only():
    p0, c0 = _cfg("4096x4096x4096", "bf16", (128, 256, 64))
    p1, c1 = _cfg("4096x4088x4096", "bf16", (128, 256, 64))     # N x 2 B = 8176: 16-byte aligned rows
    out = 128 * 256 * 2
    assert store_l2_bytes_per_tile(p0, c0, H100) == out
    assert store_l2_bytes_per_tile(p1, c1, H100) > out
    # direct stores: a 16-byte row piece per request at any 16-byte aligned pitch, each taking a sector's slot
    assert store_l2_bytes_per_tile(p1, c1.replace(epilogue=Epilogue.DIRECT), H100) == 2 * out
    assert store_l2_bytes_per_tile(p0, c0.replace(epilogue=Epilogue.DIRECT), H100) == 2 * out


def test_narrow_rows_are_request_bound_in_the_tma_unit():
    # mb_tma, one CTA: 64-byte rows stream at 64 B/clk and 32-byte rows at 32 B/clk (one request per clock)
    p, c = _cfg("8192x8192x8192", "bf16", (128, 256, 64), swizzle="64")
    assert tma_bytes_per_clock(p, c, H100) == pytest.approx(64 / H100.tma.request_cycles)
