"""A stand-in objective for search tests: deterministic, cheap, with a known shape.

It is NOT the model: the search tests check the search (counts, states, resumption, sharing), which
must hold for any objective. Tests of the real predictor inside a study are in test_search.py too.
"""
from __future__ import annotations

import math
import os
import time
import zlib
from dataclasses import dataclass


@dataclass(frozen=True)
class FakePrediction:
    config_name: str
    tflops: float
    cycles: int
    time_s: float
    bottleneck: str


def fake_objective(problem, cfg, hw):
    """Bigger tiles, deeper pipelines, 128B swizzle and a 2-CTA cluster score higher; distinct
    configurations get distinct values (a small hash term breaks ties)."""
    tiles = math.ceil(problem.m / cfg.tile_m) * math.ceil(problem.n / cfg.tile_n)
    waves = tiles / hw.sm_count
    score = 800 * (waves / math.ceil(waves)) * min(1.0, cfg.tile_m * cfg.tile_n / (cfg.tile_m + cfg.tile_n) / 128)
    score *= (1 - 0.5 ** cfg.stages) * {16: 0.5, 32: 0.7, 64: 0.85, 128: 1.0}[cfg.swizzle_a.span_bytes]
    score *= 1.03 if cfg.cluster_size == 2 else 1.0
    score += (zlib.crc32(cfg.name.encode()) % 1000) * 1e-6
    delay = float(os.environ.get("FAKE_OBJECTIVE_DELAY_S", "0"))
    if delay:
        time.sleep(delay)
    t = problem.flops / (score * 1e12)
    return FakePrediction(cfg.name, score, int(t * 1.8e9), t, "tensor_core" if score > 500 else "tma_hbm")
