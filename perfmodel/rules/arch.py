"""Architecture gating: which instructions and features exist on which target."""
from __future__ import annotations

from ..legality import Ctx, rule


@rule("cta-group-arch", "PTX ISA 9.0 §9.7.16.2.1 / §11.1.2",
      "cta_group::2 (a CTA pair sharing one MMA) exists only with tcgen05 on sm_100a-family")
def cta_group_arch(c: Ctx):
    if c.cfg.cta_group not in (1, 2):
        yield f"cta_group must be 1 or 2, got {c.cfg.cta_group}"
    elif c.cfg.cta_group == 2 and not c.sm100:
        yield f"cta_group=2 needs tcgen05 (sm_100a family); {c.hw.name} is {c.hw.arch.value}, where wgmma has no CTA pair"


@rule("cta-pair-cluster", "PTX ISA 9.0 §9.7.16.5",
      "cta_group::2 pairs CTAs whose %cluster_ctarank differs in bit 0: the cluster extent along M must be even")
def cta_pair_cluster(c: Ctx):
    if c.cfg.cta_group == 2 and c.cfg.cluster_m % 2:
        yield f"cta_group=2 needs an even cluster extent along M to pair CTAs, got cluster {c.cfg.cluster_m}x{c.cfg.cluster_n}"
