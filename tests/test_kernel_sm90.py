"""Our sm_90a kernel: it compiles for sm_90a (when nvcc is on PATH), its generated wgmma header is up
to date, and the kernel-specific legality rules refuse what it cannot build."""
from __future__ import annotations

import shutil

import pytest

from perfmodel import check, derive, load_hardware, make_problem
from perfmodel.kernels import gen_wgmma
from perfmodel.measure.build import Builder

HW = load_hardware("h100-sxm")


def _rules(shape, dtype, tile, **knobs):
    p = make_problem(shape, dtype)
    return {v.rule for v in check(p, derive(p, HW, tile, **knobs).config, HW)}


def test_generated_wgmma_header_is_up_to_date():
    assert gen_wgmma.HEADER.read_text() == gen_wgmma.render()


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_kernel_compiles_for_sm90a(tmp_path):
    """Three configurations that together use every knob; PM_EXPECT_SMEM makes the kernel's own
    shared-memory size a compile-time check of perfmodel.config.smem_bytes. With 3 consumer
    warpgroups ptxas has 128 registers per thread: a multicast cluster spills a few bytes there
    (recorded in the dataset as spill_bytes); the 1-2 consumer paths must not spill."""
    b = Builder(tmp_path, jobs=3)
    cases = []
    for shape, dtype, tile, knobs in [
        ("8192x8192x8192", "bf16", (128, 256, 64), dict(cluster=(2, 1))),
        ("4096x4096x4096", "fp8", (192, 192, 128), dict(consumers=3, cluster=(1, 2), epilogue="dir",
                                                        persistent=False, raster="n")),
        ("2048x2048x2048", "bf16", (64, 128, 32), dict(consumers=1, swizzle="32", group_size=1)),
    ]:
        p = make_problem(shape, dtype)
        cfg = derive(p, HW, tile, **knobs).config
        assert not check(p, cfg, HW)
        cases.append((p, cfg))
    built = b.build_all(cases)
    for (name, dtype), binary in built.items():
        assert binary.path is not None, f"{name} {dtype}: {binary.error}"
        assert 0 < binary.registers <= 240
        assert binary.spill_bytes <= (64 if "_wg3_" in name else 0), name


def test_kernel_rules_accept_the_fast_path():
    assert not _rules("8192x8192x8192", "bf16", (128, 256, 64), cluster=(2, 1))
    assert not _rules("8192x8192x8192", "fp8", (128, 256, 128), cluster=(1, 2))


@pytest.mark.parametrize("shape,dtype,tile,knobs,rule", [
    ("4096x4096x4096", "bf16", (128, 256, 64), dict(consumers=1), "kernel-sm90-ptxas-registers"),
    ("4096x4096x4096", "bf16", (192, 256, 64), dict(consumers=3), "kernel-sm90-ptxas-registers"),
    ("4096x4096x4096", "bf16", (256, 128, 64), dict(consumers=4), "kernel-sm90-consumers"),
    ("4096x4096x4096", "bf16", (128, 96, 64), dict(epilogue="tma"), "kernel-sm90-epilogue-tile"),
    ("4096x4096x4096", "bf16", (128, 8, 64), dict(cluster=(2, 1), epilogue="dir"), "kernel-sm90-multicast-slice"),
    ("8192x8192x8192", "bf16", (128, 128, 64), dict(cluster=(4, 4)), "kernel-sm90-cluster"),
    ("4096x4096x4096", "bf16", (128, 128, 8), dict(swizzle="0"), "kernel-sm90-swizzle"),
    ("4096x4096x4096", "int8", (128, 128, 128), {}, "kernel-sm90-types"),
])
def test_kernel_rules_refuse_what_our_kernel_cannot_build(shape, dtype, tile, knobs, rule):
    assert rule in _rules(shape, dtype, tile, **knobs)


def test_kernel_rules_leave_other_targets_alone():
    b200 = load_hardware("b200")
    p = make_problem("4096x4096x4096", "int8")
    assert not {v.rule for v in check(p, derive(p, b200).config, b200) if v.rule.startswith("kernel-sm90")}
