"""The tuner finds the model's optimum (issue 8): group bounds hold, the branch and bound ends where it may,
and tune's best is the exhaustive optimum whatever the seed."""
import math

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.search.region import MARGIN, best_region, exhaustive, group_bound, groups
from perfmodel.search.space import load_space
from perfmodel.search.tuner import tune
from perfmodel.sim.clock import BOOST, SHORT, SUSTAINED
from perfmodel.prediction.predict import predict

H100 = load_hardware("h100-sxm")
SMALL = {"tile_m": (128, 256), "tile_n": (128, 192, 256), "tile_k_bytes": (128,), "mma_n_split": (1,),
         "stages": (3, 4, 5), "swizzle": ("64", "128"), "cluster": ("1x1", "2x1"), "multicast": (True, False),
         "consumers": (2,), "persistent": (True,), "raster": ("m", "n"), "group_size": (8,), "epilogue": ("tma",)}


def _space():
    return load_space(H100.arch).narrow(SMALL)


@pytest.mark.parametrize("shape,dtype", [("8192x8192x8192", "bf16"), ("256x28672x8192", "fp8"),
                                         ("1000x1992x1016", "bf16"), ("256x256x256", "bf16"),
                                         ("64x8192x28672", "bf16"), ("2048x2048x2048", "fp8")])
@pytest.mark.parametrize("regime", [BOOST, SHORT, SUSTAINED])
def test_group_bounds_hold_for_their_members(shape, dtype, regime):
    problem, space = make_problem(shape, dtype), _space()
    items = list(space.enumerate(problem, H100, legal_only=True))[::7]
    assert items
    for _, cfg in items:
        p = predict(problem, cfg, H100, clock=regime)
        assert p.tflops <= group_bound(problem, cfg, H100, regime) * (1 + MARGIN), cfg.name


def test_a_tiny_problems_bound_counts_the_launch_and_the_first_load():
    """At 256^3 a kernel is mostly launch and fill: a bound of resource time alone sat ~9x above every prediction
    and the search predicted 400 000 configurations without proving its best; with the launch overhead and one
    load's latency on the critical path it sits within 2x."""
    problem = make_problem("256x256x256", "bf16")
    for cfg in [c for _, c in _space().enumerate(problem, H100, legal_only=True)][::11]:
        p = predict(problem, cfg, H100, clock=BOOST)
        assert p.tflops <= group_bound(problem, cfg, H100, BOOST) <= 2 * p.tflops, cfg.name


def test_branch_and_bound_finds_the_exhaustive_optimum_with_fewer_predictions():
    problem, space = make_problem("4096x14336x4096", "bf16"), _space()
    full = exhaustive(space, problem, H100, BOOST, jobs=1)
    bb = best_region(space, problem, H100, BOOST, jobs=1)
    assert bb.exhaustive and bb.best.config_name == full.best.config_name
    assert bb.configurations < full.configurations
    assert math.isclose(bb.best.tflops, full.best.tflops)


def test_a_budget_that_cuts_the_search_short_says_so():
    problem, space = make_problem("4096x14336x4096", "bf16"), _space()
    cut = best_region(space, problem, H100, BOOST, jobs=1, max_configurations=1, margin=10.0)   # the bound never ends it
    assert not cut.exhaustive and cut.groups_searched < cut.groups


def test_groups_are_sorted_by_bound_and_unique():
    gs = groups(_space(), make_problem("8192x8192x8192", "bf16"), H100, BOOST, jobs=1)
    assert [g.bound_tflops for g in gs] == sorted((g.bound_tflops for g in gs), reverse=True)
    assert len({g.params for g in gs}) == len(gs)


@pytest.mark.parametrize("shape", ["8192x8192x8192", "128x8192x8192"])
def test_tune_gives_the_same_best_whatever_the_seed_and_it_is_the_exhaustive_optimum(shape):
    problem, space = make_problem(shape, "bf16"), _space()
    best = {tune(problem, H100, n_trials=3, space=space, seed=seed, storage=None, jobs=1).best_config.name
            for seed in (0, 1, 7)}
    assert len(best) == 1
    assert best.pop() == exhaustive(space, problem, H100, SUSTAINED, jobs=1).best.config_name


def test_the_tile_order_does_not_change_legality():
    """members() checks the rules once per legality_key: persistent, raster and group size must not matter."""
    import dataclasses
    from perfmodel.config import Raster
    from perfmodel.search.space import violations
    problem = make_problem("4096x4096x4096", "bf16")
    narrow = {"tile_m": (64, 128, 256), "tile_n": (128, 256), "stages": (2, 4, 8), "cluster": ("1x1", "2x1"),
              "tile_k_bytes": (64, 256), "swizzle": ("32", "128"), "consumers": (1, 2), "persistent": (True,),
              "raster": ("m",), "group_size": (8,), "mma_n_split": (1, 2), "multicast": (True,)}
    items = list(load_space(H100.arch).narrow(narrow).enumerate(problem, H100, legal_only=False))
    assert items
    for _, cfg in items:
        ids = {v.rule for v in violations(problem, cfg, H100, kernel_rules=True)}
        for variant in (dataclasses.replace(cfg, persistent=not cfg.persistent),
                        dataclasses.replace(cfg, raster=Raster.N if cfg.raster is Raster.M else Raster.M),
                        dataclasses.replace(cfg, group_size=1 if cfg.group_size != 1 else 16)):
            assert {v.rule for v in violations(problem, variant, H100, kernel_rules=True)} == ids


def test_cli_tune_auto_predicts_a_small_space_whole(capsys):
    from perfmodel.cli import main
    assert main(["tune", "--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--storage", "memory", "--trials", "2",
                 "--set", "tile_m=128", "--set", "tile_n=128,256", "--set", "cluster=1x1,2x1", "--set", "stages=3,4",
                 "--set", "group_size=8"]) == 0
    assert "exhaustive prediction of the legal space" in capsys.readouterr().out


def test_tune_says_why_our_kernel_cannot_build_its_best():
    """Without --our-kernel, tune ranks what the PTX allows: a best configuration our kernel does not build gets the
    rule it breaks instead of nvcc flags (and a B200 best: that our kernel is sm_90a)."""
    from perfmodel import load_hardware, make_problem
    from perfmodel.commands.tune import _kernel_export_reason
    from perfmodel.config import KernelConfig
    from perfmodel.interop import exports
    hw, p = load_hardware("h100-sxm"), make_problem("8192x8192x8192", "bf16")
    odd = KernelConfig.from_name("256x208x64_i64x208x16_cg1_cl1x2_mc1_s3_sw128-128_wg2_acc1_pn8_etma")
    assert "kernel-sm90-epilogue-tile" in _kernel_export_reason(p, odd, hw, exports(p, odd, hw))
    ok = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma")
    assert _kernel_export_reason(p, ok, hw, exports(p, ok, hw)) == ""
    b200 = load_hardware("b200")
    assert "sm_90a" in _kernel_export_reason(p, ok, b200, {"kernel_sm90": None})
