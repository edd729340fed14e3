"""The search space: files, overrides, fixed distributions, normalisation, enumeration."""
import itertools

import optuna
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfmodel import check, load_hardware, make_problem
from perfmodel.hardware import Arch
from perfmodel.search.space import SearchSpace, SpaceError, load_space, parse_override, parse_space

H100 = load_hardware("h100-sxm")
B200 = load_hardware("b200")
BF16 = make_problem("8192x8192x8192", "bf16")


def test_stock_spaces_cover_the_issue_knobs_with_sources():
    for arch in Arch:
        space = load_space(arch)
        assert space.arch is arch
        names = {k.name for k in space.knobs}
        assert {"tile_m", "tile_n", "tile_k_bytes", "mma_n_split", "stages", "swizzle", "cluster",
                "multicast", "consumers", "persistent", "raster", "group_size"} <= names
        assert all(k.source.strip() for k in space.knobs)
    assert load_space(Arch.SM100A).knob("cta_group").values == (1, 2)
    assert load_space(Arch.SM90A).knob("cta_group") is None   # no CTA pair on Hopper


def test_distributions_are_fixed_and_ordinal_where_evenly_spaced():
    space = load_space(Arch.SM90A)
    d1, d2 = space.distributions(), load_space(Arch.SM90A).distributions()
    assert d1 == d2
    assert isinstance(d1["stages"], optuna.distributions.IntDistribution)
    assert (d1["stages"].low, d1["stages"].high, d1["stages"].step) == (2, 8, 1)
    assert isinstance(d1["tile_k_bytes"], optuna.distributions.CategoricalDistribution)   # 64,128,256
    assert isinstance(d1["cluster"], optuna.distributions.CategoricalDistribution)
    assert "acc_buffers" not in d1   # a single value is fixed, not searched


def test_suggest_gives_the_same_distributions_in_every_trial():
    space = load_space(Arch.SM90A)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    for _ in range(5):
        trial = study.ask()
        cfg = space.suggest(trial, BF16, H100)
        assert cfg.name == space.config(BF16, H100, trial.params).name
        study.tell(trial, 1.0)
    dists = [t.distributions for t in study.trials]
    assert all(d == dists[0] for d in dists)


def test_parse_override_types_values_and_rejects_nonsense():
    assert parse_override("stages=3,4") == ("stages", (3, 4))
    assert parse_override("cluster=1x1,2X1") == ("cluster", ("1x1", "2x1"))
    assert parse_override("multicast=off") == ("multicast", (False,))
    assert parse_override("group-size=8") == ("group_size", (8,))
    for bad in ("stages", "stages=", "stagez=3", "stages=three", "multicast=maybe", "cluster=2", "stages=3,3"):
        with pytest.raises(SpaceError):
            parse_override(bad)


def test_narrow_changes_values_fingerprint_and_tile_k_units():
    space = load_space(Arch.SM90A)
    narrow = space.narrow({"stages": (4,), "tile_k": (64,)})
    assert narrow.knob("stages").fixed and "stages" not in narrow.distributions()
    assert narrow.knob("tile_k_bytes") is None
    assert narrow.fingerprint() != space.fingerprint()
    cfg = narrow.config(BF16, H100, {"tile_m": 128, "tile_n": 128})
    assert (cfg.tile_k, cfg.stages) == (64, 4)
    fp8 = make_problem("4096x4096x4096", "fp8")
    assert space.config(fp8, H100, {"tile_m": 128, "tile_n": 128, "tile_k_bytes": 128}).tile_k == 128


@pytest.mark.parametrize("text, message", [
    ("[meta]\narch='sm_80'\n[knobs]\ntile_m={values=[64],source='x'}\ntile_n={values=[64],source='x'}", "meta.arch"),
    ("[meta]\narch='sm_90a'\n[knobs]\ntile_m={values=[64],source='x'}", "tile_n is required"),
    ("[meta]\narch='sm_90a'\n[knobs]\ntile_m={values=[64]}\ntile_n={values=[64],source='x'}", "knobs.tile_m"),
    ("[meta]\narch='sm_90a'\n[knobs]\ntile_m={values=['64'],source='x'}\ntile_n={values=[64],source='x'}", "int"),
    ("[meta]\narch='sm_90a'\n[knobs]\nwarp={values=[1],source='x'}", "unknown knob"),
    ("not toml [", "not valid TOML"),
])
def test_broken_space_files_are_refused_with_the_reason(text, message):
    with pytest.raises(SpaceError, match=message):
        parse_space(text, "x.toml")


def test_multicast_is_normalised_off_in_a_one_cta_cluster():
    space = load_space(Arch.SM90A)
    base = {"tile_m": 128, "tile_n": 128, "cluster": "1x1"}
    a = space.config(BF16, H100, {**base, "multicast": True})
    b = space.config(BF16, H100, {**base, "multicast": False})
    assert a == b and not a.multicast
    c = space.config(BF16, H100, {**base, "cluster": "2x1", "multicast": True})
    assert c.multicast


def test_mma_shape_follows_the_architecture():
    sm90 = load_space(Arch.SM90A).config(BF16, H100, {"tile_m": 128, "tile_n": 256, "mma_n_split": 2})
    assert (sm90.mma_m, sm90.mma_n, sm90.mma_k) == (64, 128, 16)
    sm100 = load_space(Arch.SM100A).config(BF16, B200, {"tile_m": 128, "tile_n": 256, "cta_group": 2,
                                                         "cluster": "2x1"})
    assert (sm100.mma_m, sm100.mma_n, sm100.cta_group) == (256, 256, 2)


def _small_space() -> SearchSpace:
    return load_space(Arch.SM90A).narrow({
        "tile_m": (64, 128, 256), "tile_n": (128, 256), "tile_k_bytes": (128,), "mma_n_split": (1,),
        "stages": (3, 4, 6), "swizzle": ("64", "128"), "cluster": ("1x1", "2x1"), "multicast": (True, False),
        "consumers": (1, 2), "persistent": (True,), "raster": ("m",), "group_size": (8,), "epilogue": ("tma",)})


def test_enumerate_yields_each_distinct_legal_configuration_once():
    space = _small_space()
    got = list(space.enumerate(BF16, H100))
    names = [cfg.name for _, cfg in got]
    assert len(names) == len(set(names)) > 0
    assert all(not check(BF16, cfg, H100) for _, cfg in got)
    # brute force over the raw product gives the same set
    searched = space.searched
    expect = set()
    for combo in itertools.product(*(k.values for k in searched)):
        cfg = space.config(BF16, H100, dict(zip((k.name for k in searched), combo)))
        if not check(BF16, cfg, H100):
            expect.add(cfg.name)
    assert set(names) == expect
    assert len(list(space.enumerate(BF16, H100, legal_only=False))) < space.size()   # multicast on 1x1 merged
    with pytest.raises(SpaceError, match="narrow it"):
        next(load_space(Arch.SM90A).enumerate(BF16, H100, limit=1000))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([("h100-sxm", Arch.SM90A), ("b200", Arch.SM100A)]),
       st.sampled_from(["bf16", "fp8", "tf32"]))
def test_any_point_of_a_stock_space_builds_and_checks_without_raising(data, gpu_arch, dtype):
    hw, space = load_hardware(gpu_arch[0]), load_space(gpu_arch[1])
    problem = make_problem("4096x2048x1024", dtype)
    params = {k.name: data.draw(st.sampled_from(k.values), label=k.name) for k in space.searched}
    cfg = space.config(problem, hw, params)
    assert isinstance(check(problem, cfg, hw), list)
