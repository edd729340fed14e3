"""benchmarks/_jsonl.py: committed JSONL files read alike whether stored plain, gzipped or as xz."""
import gzip
import lzma
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import _jsonl  # noqa: E402


def test_a_plain_file_its_gzipped_twin_and_a_missing_one(tmp_path):
    plain = tmp_path / "a.jsonl"
    plain.write_text('{"x": 1}\n{"x": 2}\n')
    assert _jsonl.lines(plain) == ['{"x": 1}', '{"x": 2}']
    zipped = tmp_path / "b.jsonl"
    with gzip.open(tmp_path / "b.jsonl.gz", "wt") as f:
        f.write('{"y": 3}\n')
    assert _jsonl.resolve(zipped).name == "b.jsonl.gz"
    assert _jsonl.lines(zipped) == ['{"y": 3}'] == _jsonl.lines(tmp_path / "b.jsonl.gz")
    with pytest.raises(OSError):
        _jsonl.lines(tmp_path / "c.jsonl")


def test_the_committed_tile_probe_reads_from_its_gzipped_file():
    rows = _jsonl.lines(ROOT / "data" / "ncu" / "tile_probe" / "tile_probe.jsonl")
    assert len(rows) >= 30 and rows[0].startswith("{")


def test_an_xz_twin_a_name_of_another_stored_form_and_the_glob_by_plain_name(tmp_path):
    with lzma.open(tmp_path / "a_x.jsonl.xz", "wt") as f:
        f.write('{"z": 4}\n')
    with gzip.open(tmp_path / "b_x.jsonl.gz", "wt") as f:
        f.write('{"w": 5}\n')
    (tmp_path / "c_x.jsonl").write_text('{"v": 6}\n')
    assert _jsonl.resolve(tmp_path / "a_x.jsonl").name == "a_x.jsonl.xz"
    assert _jsonl.lines(tmp_path / "a_x.jsonl") == ['{"z": 4}'] == _jsonl.lines(tmp_path / "a_x.jsonl.gz")
    assert _jsonl.lines(tmp_path / "b_x.jsonl.xz") == ['{"w": 5}']       # asked as .xz, stored as .gz
    assert [p.name for p in _jsonl.glob(tmp_path, "*_x.jsonl")] == ["a_x.jsonl", "b_x.jsonl", "c_x.jsonl"]
    with pytest.raises(OSError):
        _jsonl.lines(tmp_path / "d_x.jsonl.xz")


def test_the_committed_datasets_stored_as_xz_read_by_their_plain_names():
    rows = _jsonl.lines(ROOT / "data" / "triton" / "h100_triton.jsonl")
    assert len(rows) == 2641 and '"header"' in rows[0]
    names = [p.name for p in _jsonl.glob(ROOT, "data/cublaslt/*_cublaslt.jsonl")]
    assert names == ["h100_cublaslt.jsonl", "h200_cublaslt.jsonl"]
