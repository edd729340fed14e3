"""Microbenchmarks that measure the hardware parameters of `configs/hardware/h100-sxm.toml`.

CUDA sources (package data) are built with nvcc for sm_90a and run on the local GPU; each program
prints one ``MB {json}`` line per measurement. The Python side (this package) is standard library
only, so the same driver runs on a bare GPU machine:

    python3 -m perfmodel.microbench --out data/microbench            # build, run, write results
    perfmodel calibrate --microbench --apply configs/hardware/h100-sxm.toml

Modules: `build` (nvcc, cached by source hash), `runner` (runs the programs, samples nvidia-smi,
records provenance), `derive` (results -> hardware-TOML values), `tomledit` (rewrites only the
value/source of the keys we own), `report` (table and CSVs), `suite` (the whole run).
"""
from __future__ import annotations

from ..errors import PerfmodelError


class MicrobenchError(PerfmodelError):
    """No GPU or nvcc, a benchmark program failed, or results cannot be applied."""


__all__ = ["MicrobenchError"]
