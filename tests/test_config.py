"""KernelConfig canonical names, resource accounting and derive() with its notes."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfmodel import ConfigError, KernelConfig, Swizzle, check, derive, load_hardware, make_problem
from perfmodel.config import (Epilogue, Raster, smem_bytes, stage_bytes, tmem_alloc_columns, tmem_columns)

_NAT = st.integers(0, 10_000)
configs = st.builds(
    KernelConfig, tile_m=_NAT, tile_n=_NAT, tile_k=_NAT, mma_m=_NAT, mma_n=_NAT, mma_k=_NAT,
    cta_group=_NAT, cluster_m=_NAT, cluster_n=_NAT, multicast=st.booleans(), stages=_NAT,
    swizzle_a=st.sampled_from(list(Swizzle)), swizzle_b=st.sampled_from(list(Swizzle)), consumers=_NAT,
    acc_buffers=_NAT, persistent=st.booleans(), raster=st.sampled_from(list(Raster)), group_size=_NAT,
    epilogue=st.sampled_from(list(Epilogue)))


@settings(max_examples=300, deadline=None)
@given(configs)
def test_canonical_name_round_trips_exactly(cfg):
    assert KernelConfig.from_name(cfg.name) == cfg
    assert KernelConfig.from_name(cfg.name).name == cfg.name


def test_name_example():
    cfg = KernelConfig(128, 256, 64, 64, 256, 16, cluster_m=2, multicast=True)
    assert cfg.name == "128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma"


@pytest.mark.parametrize("name", ["", "128x256x64", "128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw96-128_wg2_acc1_pm8_etma",
                                  "128x256x64_i64x256x16_cg1_cl2x1_mc2_s4_sw128-128_wg2_acc1_pm8_etma"])
def test_malformed_names_are_config_errors(name):
    with pytest.raises(ConfigError, match="canonical"):
        KernelConfig.from_name(name)


# ---------------------------------------------------------------------------- accounting
def test_smem_grows_by_one_stage_per_stage():
    p = make_problem("8192x8192x8192", "bf16")
    cfg = KernelConfig(128, 256, 64, 64, 256, 16, stages=3)
    assert stage_bytes(p, cfg) == (128 * 64 + 256 * 64) * 2
    assert smem_bytes(p, cfg.replace(stages=4)) - smem_bytes(p, cfg) == stage_bytes(p, cfg) + 16  # + 2 barriers
    assert smem_bytes(p, cfg.replace(epilogue=Epilogue.DIRECT)) == smem_bytes(p, cfg) - 128 * 64 * 2


def test_tmem_columns_count_buffers_scale_factors_and_sparse_metadata():
    cfg = KernelConfig(128, 256, 256, 256, 256, 64, cta_group=2, acc_buffers=2)
    assert tmem_columns(make_problem("8x8x8", "bf16"), cfg) == 512
    assert tmem_columns(make_problem("8x8x8", "nvfp4"), cfg) == 512 + 32     # 16 scales/row x (SFA+SFB)
    assert tmem_columns(make_problem("8x8x8", "bf16", sparse=True), cfg) == 512 + 8
    assert [tmem_alloc_columns(n) for n in (1, 32, 33, 256, 257, 512, 544)] == [32, 32, 64, 256, 512, 512, 1024]


# ---------------------------------------------------------------------------- derive
def _derive(gpu="h100-sxm", dtype="bf16", tile=(128, 256, 64), **kw):
    p = make_problem("8192x8192x8192", dtype, sparse=kw.pop("sparse", False),
                     a_major=kw.pop("a_major", "k"), b_major=kw.pop("b_major", "k"))
    hw = load_hardware(gpu)
    return p, hw, derive(p, hw, tile, **kw)


def _note(d, knob):
    hits = [n for n in d.notes if n.startswith(knob + "=")]
    return hits[0] if hits else None


def test_every_omitted_knob_is_derived_with_a_note():
    _, _, d = _derive(tile=None)
    for knob in ("tile", "cta_group", "cluster", "multicast", "mma", "swizzle", "consumers", "acc_buffers",
                 "persistent", "raster", "group_size", "epilogue", "stages"):
        assert _note(d, knob), knob


def test_given_knobs_are_taken_as_is_without_notes():
    _, _, d = _derive(stages=3, swizzle="64", cluster=(2, 1), cta_group=1, consumers=2, persistent=False,
                      raster="n", group_size=4, multicast=False, acc_buffers=1, epilogue="dir", mma=(64, 128, 16))
    assert d.notes == ()
    c = d.config
    assert (c.stages, c.swizzle_a, c.cluster_m, c.persistent, c.raster, c.group_size, c.epilogue, c.mma_n) == \
        (3, Swizzle.B64, 2, False, Raster.N, 4, Epilogue.DIRECT, 128)


def test_hopper_default_is_the_done_when_config():
    p, hw, d = _derive()
    assert d.config.name == "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"
    assert check(p, d.config, hw) == []
    assert "215008 B / 49152 B per stage = 4" in _note(d, "stages")


def test_stages_fill_the_shared_memory_left():
    p, hw, d = _derive()
    cfg = d.config
    assert smem_bytes(p, cfg) <= hw.smem.per_block_optin_bytes < smem_bytes(p, cfg.replace(stages=cfg.stages + 1))


def test_stages_are_capped_by_the_k_tiles():
    p = make_problem("256x256x128", "bf16")
    hw = load_hardware("h100-sxm")
    assert derive(p, hw, (128, 128, 64)).config.stages == 2


def test_explicit_zero_stages_is_kept_for_the_rules_to_reject():
    p, hw, d = _derive(stages=0)
    assert d.config.stages == 0 and "stages-min" in [v.rule for v in check(p, d.config, hw)]


def test_acc_buffers_count_scale_factor_columns():
    p, hw, d = _derive("b200", "nvfp4", (128, 256, 256), cta_group=2)
    assert d.config.acc_buffers == 1 and "1024 of 512" in _note(d, "acc_buffers")
    assert [v.rule for v in check(p, d.config, hw)] == []
    _, _, d2 = _derive("b200", "bf16", (128, 256, 64))
    assert d2.config.acc_buffers == 2 and "512 of 512" in _note(d2, "acc_buffers")
    _, _, d3 = _derive("b200", "nvfp4", (128, 128, 256), cta_group=2)
    assert d3.config.acc_buffers == 2


def test_swizzle_is_the_largest_span_dividing_the_extent():
    for tk, sw in ((64, Swizzle.B128), (32, Swizzle.B64), (16, Swizzle.B32), (96, Swizzle.B64), (8, Swizzle.NONE)):
        assert _derive(tile=(128, 256, tk))[2].config.swizzle_a is sw, tk
    # sparse A is stored K/2: a 64-wide bf16 tile holds 64 B of A per row
    d = _derive(tile=(128, 256, 64), sparse=True)[2]
    assert (d.config.swizzle_a, d.config.swizzle_b) == (Swizzle.B64, Swizzle.B128)
    # MN-major tf32 on sm_100a takes the 32B-atomicity mode
    d = _derive("b200", "tf32", (128, 256, 32), a_major="mn")[2]
    assert d.config.swizzle_a is Swizzle.B128_ATOM32 and "128a32" in _note(d, "swizzle")


def test_cta_group_2_and_cluster_derivation_on_blackwell():
    d = _derive("b200", cluster=(2, 1))[2]
    assert (d.config.cta_group, d.config.mma_m, d.config.multicast) == (2, 256, True)
    d = _derive("b200", cta_group=2)[2]
    assert (d.config.cluster_m, d.config.cluster_n) == (2, 1)
    d = _derive("h100-sxm", cluster=(2, 1))[2]
    assert d.config.cta_group == 1


def test_mma_n_is_capped_at_256():
    assert _derive("h100-sxm", tile=(128, 512, 64))[2].config.mma_n == 256
    assert _derive("b200", tile=(128, 512, 64))[2].config.mma_n == 256


@pytest.mark.parametrize("kw", [dict(swizzle="96"), dict(raster="z"), dict(epilogue="smem"), dict(tile=(128, 256, 0))])
def test_bad_knobs_are_config_errors(kw):
    with pytest.raises(ConfigError):
        _derive(**kw)
