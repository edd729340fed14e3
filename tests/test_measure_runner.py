"""The validation runner without a GPU: a fake nvcc and fake binaries (tests/measure_fakes.py)."""
from __future__ import annotations

import json

import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.measure import (CUBLAS, DatasetError, GpuIdentity, Invalidity, TimingOptions, read_dataset,
                               validate)
from perfmodel.measure.build import macros
from measure_fakes import nvcc_calls, set_log, write_fake_nvcc

HW = load_hardware("h100-sxm")
FAKE_GPU = GpuIdentity("Fake H100", "999.1")
FAST = TimingOptions(warmup_ms=1, min_ms=1, min_reps=1)


def _pair(shape: str, **knobs):
    p = make_problem(shape, "bf16")
    return p, derive(p, HW, (128, 256, 64), **knobs).config


def _run(tmp_path, pairs, out="ds.jsonl", **kw):
    nvcc = write_fake_nvcc(tmp_path)
    return validate(pairs, tmp_path / out, gpu="h100-sxm", nvcc=str(nvcc), cache_dir=tmp_path / "cache",
                    identity=kw.pop("identity", FAKE_GPU), timing=FAST, jobs=2, seed=7, **kw)


def test_valid_run_writes_header_cublas_row_and_measurement(tmp_path, monkeypatch):
    set_log(monkeypatch, tmp_path)
    rows = _run(tmp_path, [_pair("512x256x256")])
    assert len(rows) == 1 and rows[0].valid and rows[0].invalidity is Invalidity.CORRECT
    assert rows[0].tflops == pytest.approx(2e-9 * 512 * 256 * 256)
    assert rows[0].sm_clock_mean_hz == pytest.approx(1755e6) and rows[0].registers == 168
    header, stored = read_dataset(tmp_path / "ds.jsonl")
    assert header.gpu_name == "Fake H100" and header.nvcc.endswith("V99.9.9") and header.gpu_spec == "h100-sxm"
    assert [r.config_name for r in stored] == [CUBLAS, rows[0].config_name]


def test_failures_are_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    set_log(monkeypatch, tmp_path)
    pairs = [_pair("1x256x256"), _pair("2x256x256"), _pair("3x256x256"), _pair("512x256x256"),
             _pair("512x256x512", group_size=99)]
    rows = _run(tmp_path, pairs, timeout_s=1.5)
    got = {r.m: r.invalidity for r in rows}
    assert got[1] is Invalidity.TIMEOUT
    assert got[2] is Invalidity.CORRECTNESS and rows[1].rel_err == 0.5
    assert got[3] is Invalidity.RUNTIME and "signal" in rows[2].error
    assert rows[3].valid
    assert rows[4].invalidity is Invalidity.COMPILE and "static assertion" in rows[4].error


def test_illegal_configuration_is_refused_before_compiling(tmp_path, monkeypatch):
    log = set_log(monkeypatch, tmp_path)
    p = make_problem("512x256x256", "bf16")
    bad = derive(p, HW, (128, 256, 64), consumers=1).config     # 256 accumulator registers per thread
    rows = _run(tmp_path, [(p, bad)])
    assert rows[0].invalidity is Invalidity.CONSTRAINTS and "kernel-sm90-ptxas-registers" in rows[0].error
    assert not any("-c" in c.split() for c in nvcc_calls(log))


def test_rerun_skips_measured_pairs_and_reuses_the_build_cache(tmp_path, monkeypatch):
    log = set_log(monkeypatch, tmp_path)
    pairs = [_pair("512x256x256"), _pair("1024x256x256")]
    first = _run(tmp_path, pairs)
    compiles = sum("-Xptxas" in c for c in nvcc_calls(log))
    assert compiles == 1                                   # one config, two shapes: one build
    again = _run(tmp_path, pairs + [_pair("2048x256x256")])
    assert [r.measured_at for r in again[:2]] == [r.measured_at for r in first]
    assert sum("-Xptxas" in c for c in nvcc_calls(log)) == compiles   # cached binary reused
    _, stored = read_dataset(tmp_path / "ds.jsonl")
    assert len([r for r in stored if r.config_name != CUBLAS]) == 3


def test_header_mismatch_is_refused(tmp_path, monkeypatch):
    set_log(monkeypatch, tmp_path)
    _run(tmp_path, [_pair("512x256x256")])
    with pytest.raises(DatasetError, match="gpu_name"):
        _run(tmp_path, [_pair("512x256x256")], identity=GpuIdentity("Other GPU", "999.1"))


def test_retry_invalid_reruns_runtime_failures_only(tmp_path, monkeypatch):
    set_log(monkeypatch, tmp_path)
    pairs = [_pair("3x256x256"), _pair("2x256x256")]
    _run(tmp_path, pairs)
    _run(tmp_path, pairs, retry_invalid=True)
    _, stored = read_dataset(tmp_path / "ds.jsonl")
    kinds = [r.invalidity for r in stored if r.config_name != CUBLAS]
    assert kinds.count(Invalidity.RUNTIME) == 2 and kinds.count(Invalidity.CORRECTNESS) == 1


def test_partial_last_line_of_a_killed_run_is_dropped(tmp_path, monkeypatch):
    set_log(monkeypatch, tmp_path)
    _run(tmp_path, [_pair("512x256x256")])
    path = tmp_path / "ds.jsonl"
    path.write_text(path.read_text() + '{"config_name": "trunc')
    rows = _run(tmp_path, [_pair("1024x256x256")])
    assert rows[0].valid
    lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in lines)


def test_macros_select_every_knob():
    p = make_problem("4096x4096x4096", "fp8")
    cfg = derive(p, HW, (128, 256, 128), cluster=(2, 1), raster="n", group_size=4, epilogue="dir",
                 persistent=False).config
    flags = dict(f[2:].split("=") for f in macros(p, cfg))
    assert flags["PM_FP8"] == "1" and flags["PM_CLUSTER_M"] == "2" and flags["PM_MULTICAST"] == "1"
    assert flags["PM_RASTER_N"] == "1" and flags["PM_GROUP"] == "4" and flags["PM_EPI_TMA"] == "0"
    assert flags["PM_PERSISTENT"] == "0" and flags["PM_SWIZZLE_A"] == "128" and flags["PM_BK"] == "128"
