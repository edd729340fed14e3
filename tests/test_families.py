"""Kernel families: a family is a schedule over the same simulation components; ours is unchanged by
their existence, Triton's are software-pipelined, non-persistent and may share an SM."""
import math

import pytest

from perfmodel import check, derive, load_hardware, make_problem, predict
from perfmodel.errors import ConfigError, IllegalConfigError
from perfmodel.families import FAMILIES, Producer, TritonKnobs, get_family, UnknownFamilyError
from perfmodel.sim.params import build_inputs

H100 = load_hardware("h100-sxm")
BF16 = make_problem("8192x8192x8192", "bf16")
TMA, PTR = get_family("triton-tma"), get_family("triton-ptr")


def test_registry_and_unknown_family():
    assert set(FAMILIES) == {"ours", "triton-tma", "triton-ptr", "cublaslt"}
    assert get_family(None).name == "ours"
    with pytest.raises(UnknownFamilyError):
        get_family("cutlass-pingpong")


def test_ours_is_the_default_schedule():
    cfg = derive(BF16, H100, (128, 256, 64), cluster=(2, 1)).config
    a = predict(BF16, cfg, H100)
    b = predict(BF16, cfg, H100, family="ours")
    assert a.cycles == b.cycles and a.family == "ours"
    s = get_family("ours").schedule(BF16, cfg, H100)
    assert s.producer is Producer.TMA_WARP and s.ctas_per_sm == 1 and s.issuers == 2 and s.wait_depth == 1


def test_triton_warpgroups_take_64_row_blocks_then_split_n():
    s = TMA.schedule(BF16, TMA.config(BF16, H100, TritonKnobs(128, 256, 64, 8, 8, 3)), H100)
    assert (s.issuers, s.rows_per_issuer, s.cols_per_issuer) == (2, 64, 256)
    s = TMA.schedule(BF16, TMA.config(BF16, H100, TritonKnobs(64, 256, 64, 8, 8, 3)), H100)
    assert (s.issuers, s.rows_per_issuer, s.cols_per_issuer) == (2, 64, 128)
    assert s.producer is Producer.TMA_INLINE and not s.persistent


def test_small_triton_tiles_share_an_sm_and_big_ones_do_not():
    small = TMA.schedule(BF16, TMA.config(BF16, H100, TritonKnobs(64, 64, 64, 8, 4, 3)), H100)
    big = TMA.schedule(BF16, TMA.config(BF16, H100, TritonKnobs(128, 256, 64, 8, 8, 4)), H100)
    assert small.ctas_per_sm >= 2 and big.ctas_per_sm == 1


def test_co_resident_ctas_are_simulated_as_one_sm_with_their_sums():
    cfg = TMA.config(BF16, H100, TritonKnobs(64, 64, 64, 8, 4, 3))
    c = TMA.schedule(BF16, cfg, H100).ctas_per_sm
    p = build_inputs(BF16, cfg, H100, 1.6e9, TMA).params
    assert p.ctas_per_sm == c and p.issuers == c
    assert p.stage_smem_bytes == c * (64 + 64) * 64 * 2


def test_inline_loads_cost_the_mma_warps_and_cp_async_costs_more_than_tma():
    knobs = TritonKnobs(128, 128, 64, 8, 4, 3)
    t = build_inputs(BF16, TMA.config(BF16, H100, knobs), H100, 1.6e9, TMA).params
    q = build_inputs(BF16, PTR.config(BF16, H100, knobs), H100, 1.6e9, PTR).params
    o = build_inputs(BF16, TMA.config(BF16, H100, knobs), H100, 1.6e9, "ours").params
    assert o.inline_issue_cycles == 0 and t.inline_issue_cycles > 0 and q.inline_issue_cycles > 0


def test_triton_predictions_are_finite_below_peak_and_fp16_is_legal():
    fp16 = make_problem("4096x4096x4096", "fp16")
    for fam in (TMA, PTR):
        for k in (TritonKnobs(128, 256, 64, 8, 8, 3), TritonKnobs(64, 64, 32, 1, 4, 2)):
            cfg = fam.config(fp16, H100, k)
            assert not check(fp16, cfg, H100, facts=fam.facts)
            p = predict(fp16, cfg, H100, family=fam)
            peak = H100.tensor_core.f16_flops_per_clock_per_sm * H100.sm_count * p.clock_hz / 1e12
            assert 0 < p.tflops < peak and p.family == fam.name


def test_triton_restrictions_are_applied_to_triton_predictions_only():
    odd = TMA.config(BF16, H100, TritonKnobs(128, 192, 64, 8, 8, 3))
    assert [v.rule for v in check(BF16, odd, H100, facts=TMA.facts)] == ["triton-block-pow2"]
    with pytest.raises(IllegalConfigError):
        predict(BF16, odd, H100, family=TMA)
    assert math.isfinite(predict(BF16, odd, H100).tflops)        # ours may use a 192-wide tile


@pytest.mark.parametrize("knobs, rule", [
    (TritonKnobs(256, 256, 64, 8, 4, 3), "triton-registers"),
    (TritonKnobs(128, 256, 128, 8, 8, 5), "triton-smem"),
    (TritonKnobs(128, 128, 64, 8, 16, 3), "triton-num-warps"),
])
def test_each_triton_rule_fires_with_its_id(knobs, rule):
    cfg = TMA.config(BF16, H100, knobs)
    assert rule in [v.rule for v in check(BF16, cfg, H100, facts=TMA.facts)]


def test_triton_families_are_sm90_only():
    with pytest.raises(ConfigError):
        TMA.config(BF16, load_hardware("b200"), TritonKnobs(128, 128, 64))


def test_ptr_family_needs_no_tma_alignment():
    ragged = make_problem("4096x4096x4001", "bf16")          # 8002-byte rows: no tensor map possible
    cfg_t = TMA.config(ragged, H100, TritonKnobs(128, 128, 64, 8, 4, 3))
    cfg_p = PTR.config(ragged, H100, TritonKnobs(128, 128, 64, 8, 4, 3))
    assert "tma-global-stride" in [v.rule for v in check(ragged, cfg_t, H100, facts=TMA.facts)]
    assert not check(ragged, cfg_p, H100, facts=PTR.facts)


def test_ptr_family_without_16_divisible_k_loads_through_registers_synchronously():
    from perfmodel.families import Producer
    odd = make_problem("1000x1992x1016", "bf16")
    even = make_problem("1000x1992x1024", "bf16")
    k = TritonKnobs(64, 64, 64, 8, 4, 3)
    s_odd = PTR.schedule(odd, PTR.config(odd, H100, k), H100)
    s_even = PTR.schedule(even, PTR.config(even, H100, k), H100)
    assert s_odd.producer is Producer.LDG_INLINE and s_odd.wait_depth == 0
    assert s_even.producer is Producer.CP_ASYNC_INLINE and s_even.wait_depth == 1
    assert TMA.schedule(odd, TMA.config(odd, H100, k), H100).producer is Producer.TMA_INLINE
