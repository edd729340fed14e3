"""Legality rules, one module per subject. Importing this package registers every rule."""
from . import arch, cluster, registers, smem, swizzle, tcgen05, tma, tmem, types, wgmma  # noqa: F401
from . import kernel_sm90, triton  # noqa: F401  (restrictions of kernel families, not PTX)
