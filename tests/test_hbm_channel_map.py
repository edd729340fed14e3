"""benchmarks/hbm_channel_map.py: the HBM column-streaming rates (mb_pitch --hbm-channel-map, the thirtieth session)
read from a synthetic record file with a planted rate, and a malformed file's one-line error."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import hbm_channel_map as hcm  # noqa: E402

from perfmodel.errors import PerfmodelError  # noqa: E402


def rec(**kw) -> str:
    return "MB " + json.dumps(kw)


def synthetic(path: Path, slow: set[int]) -> None:
    lines = [rec(bench="device", name="NVIDIA H100 80GB HBM3")]
    for col in (1, 0):
        for b in range(7, 31):
            g = 1000.0 if (col == 1 and b == 13) else 2800.0
            lines.append(rec(bench="hbm_map_rate", kind="bit", round=0, pitch=1 << b, col=col, gbps=g))
    for rnd in range(3):
        for p in range(16384, 65536 + 1, 128):
            g = 2500.0 if p in slow else 2600.0 + (p % 1024) / 1024
            lines.append(rec(bench="hbm_map_rate", kind="pitch", round=rnd, pitch=p, col=1, gbps=g + rnd))
            if rnd == 0:
                lines.append(rec(bench="hbm_map_rate", kind="pitch", round=0, pitch=p, col=0, gbps=2850.0))
    path.write_text("\n".join(lines) + "\n")


def test_synthetic_records(tmp_path):
    f = tmp_path / "hbm_channel_map.jsonl"
    slow = {22016, 31744, 33792}
    synthetic(f, slow)
    run = hcm.read_run(tmp_path)
    assert run.gpu.startswith("NVIDIA H100")
    assert run.bits[(1, 13)] == 1000.0 and run.bits[(0, 13)] == 2800.0
    col = run.mean(1)
    assert len(col) == 385 and col[22016] == pytest.approx(2501.0)
    assert run.pitch[1][16384] == [2600.0, 2601.0, 2602.0]
    # a table slow exactly at the planted pitches: the column rate sorts it
    table = {p: (20.0 if p in slow else 30.0 + (p % 1024) / 1024) for p in col}
    c = hcm.correlations(run, table)
    assert c["n"] == 385 and c["col"] > 0.9 and c["col_slow_rest"] < 1.0
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks/hbm_channel_map.py"), "--data", str(f)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "b=13" in out.stdout and "bad   22016: col" in out.stdout and "h100b" in out.stdout


def test_malformed_file_one_line_error(tmp_path):
    f = tmp_path / "hbm_channel_map.jsonl"
    f.write_text(rec(bench="hbm_map_rate", kind="pitch", round=0, pitch=16384, col=1) + "\n")
    with pytest.raises(PerfmodelError, match="malformed"):
        hcm.read_run(f)
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks/hbm_channel_map.py"), "--data", str(f)],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().startswith("error:") and len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr
