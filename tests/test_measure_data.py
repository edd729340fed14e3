"""The sweep files parse, and the committed datasets hold what issue 4 asks of them."""
from __future__ import annotations

from pathlib import Path

import pytest

from perfmodel import KernelConfig, check, load_hardware
from perfmodel.config import Epilogue, Swizzle
from perfmodel.measure import CUBLAS, SweepError, load_sweep, read_dataset

ROOT = Path(__file__).resolve().parent.parent
# sweeps of our own kernel (the cuBLASLt sweep is read by perfmodel.measure.cublaslt_runner, another format)
SWEEPS = sorted(p for p in (ROOT / "configs" / "sweeps").glob("*.toml") if not p.name.startswith("cublaslt"))
DATASETS = [ROOT / "data" / "measurements" / f for f in ("h100_sm90_dataset.jsonl", "h200_sm90_dataset.jsonl")]


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.name)
def test_sweep_files_parse(path):
    sweep = load_sweep(path)
    assert sweep.pairs and len({(c.name, p.shape_name(), p.a_dtype.value) for p, c in sweep.pairs}) == len(sweep.pairs)


def test_dataset_sweep_has_300_legal_points():
    sweep = load_sweep(ROOT / "configs" / "sweeps" / "sm90_dataset.toml")
    hw = load_hardware(sweep.gpu)
    assert sum(not check(p, c, hw) for p, c in sweep.pairs) >= 300


def test_bad_sweep_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('gpu = "h100-sxm"\n[[group]]\nshapes = ["64x64x64"]\nconfigs = [{ tiles = "128x128x64" }]\n')
    with pytest.raises(SweepError, match="unknown knob"):
        load_sweep(bad)


@pytest.mark.parametrize("path", DATASETS, ids=lambda p: p.name)
def test_committed_dataset_covers_the_space(path):
    header, rows = read_dataset(path)
    assert header.gpu_name.startswith("NVIDIA H")
    valid = [r for r in rows if r.valid and r.config_name != CUBLAS]
    assert len(valid) >= 300
    cfgs = [KernelConfig.from_name(r.config_name) for r in valid]
    shapes = {r.shape_name for r in valid}
    assert len(shapes) >= 8 and any(r.m <= 256 for r in valid) and any(r.k >= 4 * max(r.m, r.n) for r in valid)
    assert {r.dtype for r in valid} == {"bf16", "e4m3"}
    assert {c.swizzle_a for c in cfgs} >= {Swizzle.B32, Swizzle.B64, Swizzle.B128}
    assert {c.consumers for c in cfgs} == {1, 2, 3}
    assert {(c.cluster_m, c.cluster_n, c.multicast) for c in cfgs} >= {(1, 1, False), (2, 1, True), (2, 1, False),
                                                                      (1, 2, True), (1, 2, False)}
    assert {c.persistent for c in cfgs} == {True, False} and {c.raster.value for c in cfgs} == {"m", "n"}
    assert {c.epilogue for c in cfgs} == {Epilogue.DIRECT, Epilogue.TMA_STORE}
    assert {r.shape_name for r in rows if r.config_name == CUBLAS and r.valid} == shapes
    assert all(r.sm_clock_mean_hz and r.rel_err is not None and r.reps >= 20 for r in valid)
