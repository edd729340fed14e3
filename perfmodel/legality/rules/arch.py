"""Architecture gating and tile/instruction consistency shared by both targets.

Facts the configuration cannot express, so no rule checks them (each would be a rule that can never
fire): ``.ws`` (weight-stationary) MMAs, ``scale-input-d``, the negate bits (``i8`` cannot negate,
PTX ISA 9.0 §9.7.16.10.1 Table 51) and the sparsity selector (§9.7.16.10.8.4, §9.7.15.6.3). "All
tcgen05 instructions in a kernel use the same .cta_group" (§9.7.16.7.1) holds by construction: one
``cta_group`` field drives alloc, mma, cp and commit.
"""
from __future__ import annotations

from ..registry import Ctx, rule
from ._common import SHAPE_FIELDS, positive


@rule("config-positive", "KernelConfig invariant (not PTX): extents and counts are >= 1",
      "tile, MMA shape, cluster, consumer warpgroups and group size must all be at least 1")
def config_positive(c: Ctx):
    bad = [f"{f}={getattr(c.cfg, f)}" for f in SHAPE_FIELDS if getattr(c.cfg, f) < 1]
    if bad:
        yield f"these must be >= 1: {', '.join(bad)}"


@rule("cta-group-arch", "PTX ISA 9.0 §9.7.16.5 / §9.7.16.10.9.1 (tcgen05 Target ISA notes)",
      "cta_group::2 (a CTA pair sharing one MMA) exists only with tcgen05 on sm_100a-family")
def cta_group_arch(c: Ctx):
    if c.cfg.cta_group not in (1, 2):
        yield f"cta_group must be 1 or 2, got {c.cfg.cta_group}"
    elif c.cfg.cta_group == 2 and not c.sm100:
        yield f"cta_group=2 needs tcgen05 (sm_100a family); {c.hw.name} is {c.hw.arch.value}, where wgmma has no CTA pair"


@rule("cta-pair-cluster", "PTX ISA 9.0 §9.7.16.5.1",
      "cta_group::2 pairs CTAs whose %cluster_ctarank differs in bit 0: the cluster extent along M must be even")
def cta_pair_cluster(c: Ctx):
    if c.cfg.cta_group == 2 and c.cfg.cluster_m % 2:
        yield f"cta_group=2 needs an even cluster extent along M to pair CTAs, got cluster {c.cfg.cluster_m}x{c.cfg.cluster_n}"


@rule("mma-n-tile", "perfmodel tiling (config.py): the CTA tile is a whole number of MMA instructions",
      "tile_n must be a multiple of the MMA instruction's N")
def mma_n_tile(c: Ctx):
    if positive(c) and c.cfg.tile_n % c.cfg.mma_n:
        yield f"tile_n={c.cfg.tile_n} is not a multiple of the MMA N={c.cfg.mma_n}"


@rule("mma-k-tile", "perfmodel tiling (config.py): the CTA tile is a whole number of MMA instructions",
      "tile_k must be a multiple of the MMA instruction's K")
def mma_k_tile(c: Ctx):
    if positive(c) and c.cfg.tile_k % c.cfg.mma_k:
        yield f"tile_k={c.cfg.tile_k} is not a multiple of the MMA K={c.cfg.mma_k}"
