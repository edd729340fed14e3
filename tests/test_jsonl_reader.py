"""benchmarks/_jsonl.py: committed JSONL files read alike whether stored plain or gzipped."""
import gzip
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
