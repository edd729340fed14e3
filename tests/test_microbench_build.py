"""Compiles the microbenchmark sources for sm_90a with nvcc (skipped when nvcc is absent): a broken
CUDA source, a register spill or a serialised wgmma fails here, on a machine without a GPU."""
from __future__ import annotations

import os

import pytest

from perfmodel.microbench import MicrobenchError
from perfmodel.microbench.build import PROGRAMS, build_all, find_nvcc

pytestmark = pytest.mark.nvcc
needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not on PATH")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    # MB_CI_SUBSET: mb_wgmma with N = 8 and 256 only, to keep CI fast (the GPU run builds all six N)
    return build_all(tmp_path_factory.mktemp("mb"), jobs=os.cpu_count(), extra_flags=("-DMB_CI_SUBSET",))


@needs_nvcc
def test_every_program_compiles_without_spills(built):
    assert set(built) == set(PROGRAMS)
    for b in built.values():
        assert b.path.is_file() and os.access(b.path, os.X_OK)
        log = b.ptxas_log.read_text()
        assert "Compiling entry function" in log
        spills = [ln for ln in log.splitlines() if "spill" in ln and "0 bytes spill stores, 0 bytes spill loads" not in ln]
        assert spills == [], f"{b.name}: {spills[:2]}"
        assert "serialized" not in log, f"{b.name}: wgmma serialised by ptxas"


@needs_nvcc
def test_second_build_is_cached(built):
    again = build_all(next(iter(built.values())).path.parent, extra_flags=("-DMB_CI_SUBSET",))
    assert all(b.cached for b in again.values())


def test_build_without_nvcc_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    if find_nvcc() is not None:   # /usr/local/cuda/bin/nvcc exists: name a missing compiler instead
        with pytest.raises(MicrobenchError):
            build_all(tmp_path, nvcc=str(tmp_path / "nvcc"))
        return
    with pytest.raises(MicrobenchError, match="nvcc not found"):
        build_all(tmp_path)
