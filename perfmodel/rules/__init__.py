"""Legality rules, one module per subject. Importing this package registers every rule."""
from . import arch, cluster, registers, smem, swizzle, tcgen05, tma, tmem, types, wgmma  # noqa: F401
