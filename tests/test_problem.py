"""GemmProblem, dtype presets and shape parsing."""
from __future__ import annotations

import pytest

from perfmodel import DType, GemmProblem, MmaKind, ProblemError, ScaleType, make_problem
from perfmodel.problem import DTYPE_PRESETS, parse_shape

KINDS = {"bf16": MmaKind.F16, "fp16": MmaKind.F16, "f16": MmaKind.F16, "tf32": MmaKind.TF32,
         "fp8": MmaKind.F8F6F4, "e4m3": MmaKind.F8F6F4, "e5m2": MmaKind.F8F6F4, "fp6": MmaKind.F8F6F4,
         "fp4": MmaKind.F8F6F4, "int8": MmaKind.I8, "mxfp8": MmaKind.MXF8F6F4, "mxfp6": MmaKind.MXF8F6F4,
         "mxfp4": MmaKind.MXF4, "nvfp4": MmaKind.MXF4NVF4}


def test_every_preset_has_a_kind():
    assert set(KINDS) == set(DTYPE_PRESETS)
    for name, kind in KINDS.items():
        assert make_problem("128x128x128", name).kind is kind
        assert make_problem("128x128x128", name.upper()).kind is kind


@pytest.mark.parametrize("text,dims", [("8192x8192x8192", (8192, 8192, 8192)), (" 1 X 2 x 3 ", (1, 2, 3))])
def test_parse_shape(text, dims):
    assert parse_shape(text) == dims


@pytest.mark.parametrize("text", ["8192x8192", "8192x8192x", "axbxc", "", "1x2x3x4", "-1x2x3", "0x8x8", "8x8x0"])
def test_malformed_shapes_are_problem_errors(text):
    with pytest.raises(ProblemError):
        parse_shape(text)


def test_unknown_dtype_lists_known_ones():
    with pytest.raises(ProblemError, match="known: .*bf16.*nvfp4"):
        make_problem("8x8x8", "bf17")


@pytest.mark.parametrize("kwargs", [dict(m=0), dict(n=-1), dict(k=True), dict(m=1 << 31), dict(batch=0),
                                    dict(scale_type=ScaleType.UE8M0), dict(scale_vec_size=32),
                                    dict(a_dtype=DType.E2M1, b_dtype=DType.E2M1, scale_type=ScaleType.UE8M0,
                                         scale_vec_size=8),
                                    dict(a_dtype=DType.BF16, b_dtype=DType.F16),
                                    dict(a_dtype=DType.S8, b_dtype=DType.E4M3),
                                    dict(a_dtype=DType.BF16, b_dtype=DType.BF16, scale_type=ScaleType.UE8M0,
                                         scale_vec_size=32)])
def test_invalid_problems_are_rejected(kwargs):
    base = dict(m=64, n=64, k=64)
    with pytest.raises(ProblemError):
        GemmProblem(**{**base, **kwargs})


def test_mixed_fp8_and_int8_signedness_are_kinds():
    assert GemmProblem(64, 64, 64, DType.E4M3, DType.E5M2).kind is MmaKind.F8F6F4
    assert GemmProblem(64, 64, 64, DType.S8, DType.U8, DType.S32, DType.S32).kind is MmaKind.I8


def test_sub_byte_padding_follows_the_kind():
    fp4 = make_problem("64x64x64", "fp4")        # kind::f8f6f4: padded to one byte in SMEM
    mxfp4 = make_problem("64x64x64", "mxfp4")    # kind::mxf4: two per byte
    assert fp4.a_elem_bytes == 1 and mxfp4.a_elem_bytes == 0.5
    assert fp4.operand_bytes(DType.E2M1, 128) == 128 and mxfp4.operand_bytes(DType.E2M1, 128) == 64


def test_flops_and_compulsory_bytes():
    p = make_problem("256x512x1024", "bf16")
    assert p.flops == 2 * 256 * 512 * 1024
    assert p.min_hbm_bytes == 2 * (256 * 1024 + 1024 * 512 + 256 * 512)
    sp = make_problem("256x512x1024", "bf16", sparse=True)
    assert sp.flops == p.flops and sp.min_hbm_bytes == p.min_hbm_bytes - 2 * 256 * 1024 // 2
    assert p.shape_name() == "256x512x1024"


def test_majors_are_validated():
    assert make_problem("8x8x8", "bf16", a_major="mn").a_major.value == "mn"
    with pytest.raises(ProblemError):
        make_problem("8x8x8", "bf16", a_major="row")
