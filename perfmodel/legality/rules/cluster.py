"""Thread-block clusters and TMA multicast.

The PTX gives no maximum cluster size (§9.7.13, .reqnctapercluster); its 16-bit ctaMask (§9.7.9.25.5.2)
addresses at most 16 CTAs. The CUDA Programming Guide sets 8 as the portable size and 16 as the
non-portable one (cudaFuncAttributeNonPortableClusterSizeAllowed); both come from the hardware file.
A cluster above the portable size is legal (a kernel opts in), so only the non-portable limit is a rule.
"""
from __future__ import annotations

from ..registry import Ctx, rule


@rule("cluster-size", "CUDA Programming Guide: cluster size <= 8 portable, <= 16 non-portable (hardware file); not PTX",
      "cluster_m x cluster_n <= the non-portable cluster limit (above the portable 8 the kernel must opt in)")
def cluster_size(c: Ctx):
    lim = c.hw.gpu.max_cluster_size_nonportable
    if c.cfg.cluster_size > lim:
        yield (f"cluster {c.cfg.cluster_m}x{c.cfg.cluster_n} = {c.cfg.cluster_size} CTAs > {lim} (non-portable limit "
               f"on {c.hw.name}; portable limit {c.hw.gpu.max_cluster_size_portable})")


@rule("cluster-grid", "CUDA Programming Guide: grid dimensions are a multiple of the cluster dimensions; not PTX",
      "the cluster must not span more CTAs along M or N than the problem has tiles")
def cluster_grid(c: Ctx):
    cfg, p = c.cfg, c.problem
    if min(cfg.tile_m, cfg.tile_n, cfg.cluster_m, cfg.cluster_n) < 1 or c.facts.library_kernel:
        return                       # a library kernel launches its idle CTAs (cuBLASLt accepts such clusters)
    tiles_m, tiles_n = -(-p.m // cfg.tile_m), -(-p.n // cfg.tile_n)
    if cfg.cluster_m > tiles_m or cfg.cluster_n > tiles_n:
        yield (f"cluster {cfg.cluster_m}x{cfg.cluster_n} exceeds the {tiles_m}x{tiles_n} tile grid of "
               f"{p.shape_name()}: some CTAs of every cluster would have no tile")


@rule("multicast-cluster", "PTX ISA 9.0 §9.7.9.25.5.2 (.multicast::cluster, ctaMask)",
      "TMA multicast needs a cluster of more than one CTA")
def multicast_cluster(c: Ctx):
    if c.cfg.multicast and c.cfg.cluster_size <= 1:
        yield f"multicast is on but the cluster {c.cfg.cluster_m}x{c.cfg.cluster_n} has a single CTA"
