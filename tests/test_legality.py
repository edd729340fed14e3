"""Every legality rule: one (or more) legal and illegal cases each, plus property tests.

A case is a derived configuration (what `perfmodel check` would build) with some fields replaced.
Legal cases must be entirely legal, so a rule that is too strict shows up here too.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from perfmodel import (DType, GemmProblem, KernelConfig, Major, ScaleType, Swizzle, Violation, check, derive,
                       list_gpus, load_hardware, make_problem)
from perfmodel.config import Epilogue, Raster
from perfmodel.errors import ProblemError
from perfmodel.legality import RULES
from perfmodel.problem import DTYPE_PRESETS

_MY_MODULES = {f"perfmodel.legality.rules.{m}" for m in
               ("arch", "wgmma", "tcgen05", "tmem", "smem", "registers", "tma", "swizzle", "cluster", "types")}
_SQ = "8192x8192x8192"


@dataclass(frozen=True)
class Case:
    gpu: str
    dtype: str = "bf16"
    tile: tuple | None = (128, 256, 64)
    shape: str = _SQ
    p: dict = field(default_factory=dict)        # make_problem keywords (sparse, a_major, b_major)
    d: dict = field(default_factory=dict)        # derive keywords
    r: dict = field(default_factory=dict)        # KernelConfig fields replaced after derivation
    problem: GemmProblem | None = None           # a hand-built problem instead of the dtype preset

    def build(self):
        hw = load_hardware(self.gpu)
        prob = self.problem or make_problem(self.shape, self.dtype, **self.p)
        cfg = derive(prob, hw, self.tile, **self.d).config
        changes = {k: (Swizzle(v) if k.startswith("swizzle") else v) for k, v in self.r.items()}
        return prob, cfg.replace(**changes), hw

    def rules(self) -> list[str]:
        """Violations of the PTX/hardware suite (kernel-specific rules, e.g. kernel-sm90-*, are left out)."""
        return ptx_rules(*self.build())


def ptx_rules(prob, cfg, hw) -> list[str]:
    return [v.rule for v in check(prob, cfg, hw) if _is_mine(v.rule)]


def _is_mine(rule_id: str) -> bool:
    return next(r for r in RULES if r.id == rule_id).fn.__module__ in _MY_MODULES


def _raw(a, b, acc=DType.F32, out=DType.BF16, st_=None, vec=0, **kw) -> GemmProblem:
    return GemmProblem(8192, 8192, 8192, a, b, acc, out, scale_type=st_, scale_vec_size=vec, **kw)


H, B = "h100-sxm", "b200"
NVFP4_CG2 = dict(dtype="nvfp4", tile=(128, 256, 256), d={"cta_group": 2})
TF32_MN_B200 = Case(B, "tf32", (128, 256, 32), p={"a_major": "mn", "b_major": "mn"})

# rule id -> (legal cases, illegal cases)
CASES: dict[str, tuple[list[Case], list[Case]]] = {
    "config-positive": ([Case(H)], [Case(H, r={"group_size": 0}), Case(B, r={"consumers": 0})]),
    "cta-group-arch": ([Case(B, d={"cluster": (2, 1)})],
                       [Case(H, tile=(256, 128, 64), d={"cta_group": 2}), Case(B, r={"cta_group": 3})]),
    "cta-pair-cluster": ([Case(B, d={"cta_group": 2, "cluster": (2, 2)})],
                         [Case(B, d={"cta_group": 2, "cluster": (1, 2)})]),
    "mma-n-tile": ([Case(H, d={"mma": (64, 128, 16)})], [Case(H, d={"mma": (64, 96, 16)})]),
    "mma-k-tile": ([Case(H, tile=(128, 256, 128))], [Case(H, r={"mma_k": 48}), Case(H, tile=(128, 256, 72))]),
    "cluster-size": ([Case(B, d={"cluster": (4, 4)})], [Case(B, d={"cluster": (8, 4)})]),
    "cluster-grid": ([Case(H, tile=(128, 128, 64), shape="256x256x4096", d={"cluster": (2, 1)})],
                     [Case(H, tile=(128, 128, 64), shape="256x256x4096", d={"cluster": (4, 1)})]),
    "multicast-cluster": ([Case(H, d={"cluster": (2, 1), "multicast": True})],
                          [Case(H, d={"multicast": True})]),
    "wgmma-acc-registers": ([Case(H)], [Case(H, d={"consumers": 1})]),
    "register-pool": ([Case(H, tile=(192, 256, 64))], [Case(H, tile=(256, 256, 64), d={"consumers": 4})]),
    "threads-per-cta": ([Case(B, d={"consumers": 4})], [Case(B, d={"consumers": 8})]),
    "smem-capacity": ([Case(H, d={"stages": 4})], [Case(H, d={"stages": 5})]),
    "stages-min": ([Case(H, d={"stages": 1})], [Case(H, d={"stages": 0})]),
    "swizzle-atom32-arch": ([TF32_MN_B200], [Case(H, p={"a_major": "mn"}, r={"swizzle_a": "128a32"})]),
    "swizzle-atom32-use": ([TF32_MN_B200],
                           [Case(B, d={"swizzle": "128a32"}), Case(B, p={"a_major": "mn"}, r={"swizzle_a": "128a32"})]),
    "tf32-mn-major-swizzle": ([TF32_MN_B200], [dataclasses.replace(TF32_MN_B200, d={"swizzle": "128"})]),
    "swizzle-extent": ([Case(H, tile=(128, 256, 32), d={"swizzle": "64"})],
                       [Case(H, tile=(128, 256, 32), d={"swizzle": "128"}),
                        Case(H, tile=(128, 256, 96), d={"swizzle": "128"})]),
    "tcgen05-m": ([Case(B, tile=(64, 256, 64))], [Case(B, tile=(256, 128, 64), d={"cta_group": 1})]),
    "tcgen05-m-block-scaled": ([Case(B, "mxfp8", (128, 256, 128))],
                               [Case(B, "mxfp8", (64, 256, 128)),
                                Case(B, "mxfp8", (64, 256, 256), p={"sparse": True}, d={"cluster": (2, 1)})]),
    "tcgen05-n": ([Case(B, tile=(128, 144, 64), d={"cluster": (2, 1)}), Case(B, "int8", (128, 48, 128))],
                  [Case(B, tile=(128, 136, 64), d={"cluster": (2, 1)}), Case(B, "int8", (128, 40, 128))]),
    "tcgen05-k": ([Case(B)], [Case(B, r={"mma_k": 32})]),
    "tcgen05-m-tile": ([Case(B)], [Case(B, r={"mma_m": 64})]),
    "tcgen05-transpose": ([Case(B, "fp8", (128, 256, 128), p={"b_major": "mn"})],
                          [Case(B, "mxfp4", (128, 256, 256), p={"a_major": "mn"}),
                           Case(B, "fp4", (128, 256, 128), p={"b_major": "mn"})]),
    "tcgen05-n-transpose-8bit": ([Case(B, "fp8", (128, 256, 128), p={"b_major": "mn"})],
                                 [Case(B, "fp8", (128, 200, 128), p={"b_major": "mn"})]),
    "tma-box-dim": ([Case(B)], [Case(B, tile=(128, 512, 64))]),
    "tma-inner-box-bytes": ([Case(H)], [Case(H, tile=(128, 256, 4), d={"swizzle": "0"})]),
    "tma-global-stride": ([Case(H), Case(B, "fp4", (128, 256, 128), shape="8192x8192x8256"),
                           Case(H, shape="8192x8190x8192", d={"epilogue": "dir"})],
                          [Case(H, shape="8192x8192x8190"), Case(H, shape="8192x8190x8192"),
                           Case(B, "fp4", (128, 256, 128), shape="8192x8192x8224")]),
    "tma-subbyte-swizzle": ([Case(B, "fp4", (128, 256, 128))], [Case(B, "fp4", (128, 256, 128), r={"swizzle_b": "64"})]),
    "tmem-capacity": ([Case(B, **NVFP4_CG2)], [Case(B, **NVFP4_CG2, r={"acc_buffers": 2})]),
    "acc-buffers": ([Case(B, d={"acc_buffers": 2})], [Case(H, d={"acc_buffers": 2}), Case(B, d={"acc_buffers": 3})]),
    "kind-arch": ([Case(H, "fp8", (128, 256, 128))],
                  [Case(H, "nvfp4", (128, 256, 256)), Case(H, "fp4", (128, 256, 128))]),
    "acc-dtype": ([Case(H, problem=_raw(DType.F16, DType.F16, DType.F16, DType.F16))],
                  [Case(H, problem=_raw(DType.BF16, DType.BF16, DType.F16)),
                   Case(B, "int8", (128, 256, 128), problem=_raw(DType.S8, DType.S8, DType.F32, DType.S32))]),
    "scale-type": ([Case(B, "mxfp8", (128, 256, 128))],
                   [Case(B, tile=(128, 256, 128), problem=_raw(DType.E4M3, DType.E4M3, st_=ScaleType.UE4M3, vec=32))]),
    "scale-vec": ([Case(B, **NVFP4_CG2),
                   Case(B, tile=(128, 256, 256), problem=_raw(DType.E2M1, DType.E2M1, st_=ScaleType.UE8M0, vec=16))],
                  [Case(B, tile=(128, 256, 256), problem=_raw(DType.E2M1, DType.E2M1, st_=ScaleType.UE4M3, vec=32)),
                   Case(B, tile=(128, 256, 128), problem=_raw(DType.E4M3, DType.E4M3, st_=ScaleType.UE8M0, vec=16))]),
    "wgmma-m": ([Case(H)], [Case(H, r={"mma_m": 128})]),
    "wgmma-n": ([Case(H, "int8", (128, 256, 128)), Case(H, "int8", (128, 48, 128))],
                [Case(H, "int8", (128, 40, 128)), Case(H, r={"mma_n": 4})]),
    "wgmma-k": ([Case(H, tile=(128, 256, 128), p={"sparse": True})], [Case(H, r={"mma_k": 32})]),
    "wgmma-major": ([Case(H, p={"a_major": "mn", "b_major": "mn"})],
                    [Case(H, "fp8", (128, 256, 128), p={"b_major": "mn"}),
                     Case(H, "tf32", (128, 256, 32), p={"a_major": "mn"})]),
    "wgmma-consumer-split": ([Case(H, tile=(256, 128, 64))],
                             [Case(H, d={"consumers": 3}), Case(H, tile=(192, 128, 64), d={"consumers": 2})]),
}

_LEGAL = [(rid, c) for rid, (legal, _) in CASES.items() for c in legal]
_ILLEGAL = [(rid, c) for rid, (_, illegal) in CASES.items() for c in illegal]


def test_every_rule_of_the_suite_has_cases():
    mine = {r.id for r in RULES if r.fn.__module__ in _MY_MODULES}
    assert mine == set(CASES), f"rules without cases: {mine - set(CASES)}; stale cases: {set(CASES) - mine}"


@pytest.mark.parametrize("rule_id,case", _LEGAL, ids=[f"{r}-legal{i}" for i, (r, _) in enumerate(_LEGAL)])
def test_legal_case_is_legal(rule_id, case):
    assert case.rules() == [], f"{rule_id}: a legal case drew {case.rules()}"


@pytest.mark.parametrize("rule_id,case", _ILLEGAL, ids=[f"{r}-illegal{i}" for i, (r, _) in enumerate(_ILLEGAL)])
def test_illegal_case_names_its_rule(rule_id, case):
    violations = check(*case.build())
    hits = [v for v in violations if v.rule == rule_id]
    assert hits, f"{rule_id} did not fire; got {[v.rule for v in violations]}"
    for v in hits:
        assert v.ptx_section and "\n" not in v.reason and v.reason
        assert v.rule in str(v) and v.ptx_section in str(v)


def test_rules_are_registered_once_with_section_and_summary():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    for r in RULES:
        assert r.section.strip() and r.summary.strip() and r.id == r.id.lower()


def test_ptx_sections_cite_pdf_sections_or_name_their_non_ptx_source():
    for r in RULES:
        assert "§" in r.section or "not PTX" in r.section or "perfmodel" in r.section, r


def test_done_when_cta_group_2_on_hopper_names_rule_and_section():
    prob, cfg, hw = Case(H, tile=(256, 128, 64), d={"cta_group": 2}).build()
    v = [x for x in check(prob, cfg, hw) if x.rule == "cta-group-arch"]
    assert len(v) == 1 and "§9.7.16" in v[0].ptx_section and "sm_90a" in v[0].reason


# ---------------------------------------------------------------------------- derived defaults
@pytest.mark.parametrize("gpu", ["h100-sxm", "h200", "b200", "gb200"])
@pytest.mark.parametrize("dtype", sorted(DTYPE_PRESETS))
@pytest.mark.parametrize("sparse", [False, True])
def test_derived_default_is_legal_wherever_the_kind_exists(gpu, dtype, sparse):
    hw = load_hardware(gpu)
    prob = make_problem(_SQ, dtype, sparse=sparse)
    rules = ptx_rules(prob, derive(prob, hw).config, hw)
    wgmma_types = (DType.BF16, DType.F16, DType.TF32, DType.E4M3, DType.E5M2, DType.S8)
    if hw.arch.value == "sm_90a" and (prob.kind.block_scaled or prob.a_dtype not in wgmma_types):
        assert rules == ["kind-arch"]
    else:
        assert rules == []


# ---------------------------------------------------------------------------- property tests
_INTS = st.integers(-2, 600)


@st.composite
def problems(draw):
    if draw(st.booleans()):
        prob = make_problem((draw(st.integers(1, 1 << 16)), draw(st.integers(1, 1 << 16)),
                             draw(st.integers(1, 1 << 16))), draw(st.sampled_from(sorted(DTYPE_PRESETS))),
                            sparse=draw(st.booleans()), a_major=draw(st.sampled_from("k mn".split())),
                            b_major=draw(st.sampled_from("k mn".split())))
        return dataclasses.replace(prob, acc_dtype=draw(st.sampled_from(list(DType))),
                                   out_dtype=draw(st.sampled_from(list(DType)))) if draw(st.booleans()) else prob
    scale = draw(st.sampled_from([(None, 0), (ScaleType.UE8M0, 32), (ScaleType.UE8M0, 16),
                                  (ScaleType.UE4M3, 16), (ScaleType.UE4M3, 32)]))
    try:
        return GemmProblem(draw(st.integers(1, 1 << 20)), draw(st.integers(1, 1 << 20)), draw(st.integers(1, 1 << 20)),
                           draw(st.sampled_from(list(DType))), draw(st.sampled_from(list(DType))),
                           draw(st.sampled_from(list(DType))), draw(st.sampled_from(list(DType))),
                           draw(st.sampled_from(list(Major))), draw(st.sampled_from(list(Major))),
                           scale[0], scale[1], draw(st.booleans()))
    except ProblemError:
        assume(False)


configs = st.builds(
    KernelConfig, tile_m=_INTS, tile_n=_INTS, tile_k=_INTS, mma_m=_INTS, mma_n=_INTS, mma_k=_INTS,
    cta_group=st.integers(-1, 4), cluster_m=st.integers(-1, 20), cluster_n=st.integers(-1, 20),
    multicast=st.booleans(), stages=st.integers(-1, 20), swizzle_a=st.sampled_from(list(Swizzle)),
    swizzle_b=st.sampled_from(list(Swizzle)), consumers=st.integers(-1, 10), acc_buffers=st.integers(-1, 4),
    persistent=st.booleans(), raster=st.sampled_from(list(Raster)), group_size=st.integers(-1, 16),
    epilogue=st.sampled_from(list(Epilogue)))

_RULE_IDS = {r.id for r in RULES}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(problems(), configs, st.sampled_from(list_gpus()))
def test_random_configurations_yield_named_violations_never_exceptions(prob, cfg, gpu):
    out = check(prob, cfg, load_hardware(gpu))
    assert isinstance(out, list)
    for v in out:
        assert isinstance(v, Violation) and v.rule in _RULE_IDS and v.ptx_section.strip()
        assert v.reason.strip() and "\n" not in v.reason


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(problems(), st.sampled_from(list_gpus()),
       st.tuples(st.sampled_from([64, 128, 192, 256]), st.sampled_from(range(16, 257, 16)),
                 st.sampled_from([16, 32, 64, 128, 256])),
       st.sampled_from([None, (1, 1), (2, 1), (1, 2), (2, 2), (4, 1)]))
def test_derived_configurations_check_without_exceptions(prob, gpu, tile, cluster):
    hw = load_hardware(gpu)
    cfg = derive(prob, hw, tile, cluster=cluster).config
    assert KernelConfig.from_name(cfg.name) == cfg
    for v in check(prob, cfg, hw):
        assert v.rule in _RULE_IDS
