"""benchmarks/gpc_load.py: the committed mb_tma --gpc-load runs read back, and the evidence the pool law rests on
(sim/params._memory_shares: only the zero fill is held longer under HBM load) holds in them."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpc_load  # noqa: E402

SCRIPT = str(ROOT / "benchmarks" / "gpc_load.py")


def _rings(run: str):
    gpu, rows = gpc_load.read_run(ROOT / "data/ncu" / run)
    return gpu, {(int(r["a_box_rows"]), int(r["a_tensor_rows"]), int(r["gpc_sms"]), int(r["load_sms"])): r for r in rows}


def test_the_h100_s_crowded_gpc_keeps_pace_with_all_misses_and_falls_behind_with_zero_fill():
    for run in ("gpc_load_h100/gpc_load.jsonl", "gpc_load_h100/gpc_load_repeat.jsonl"):
        gpu, rows = _rings(run)
        assert gpu == "NVIDIA H100 80GB HBM3" and len(rows) == 60
        for load in (24, 36, 48):             # the HBM saturated (2.8-2.9 TB/s): the fair share
            r = rows[(0, 64, 12, load)]
            assert r["b_bytes_per_s"] > 2.7e12
            assert r["gpc_cycles_per_kblock"] <= 1.05 * r["load_cycles_per_kblock"]
        for load in (12, 24, 36, 48, 60):     # half the A box beyond the edge: 20-40% behind, short of saturation
            r = rows[(128, 64, 12, load)]
            assert r["gpc_cycles_per_kblock"] >= 1.15 * r["load_cycles_per_kblock"]
            assert r["b_bytes_per_s"] < 2.5e12
        alone = rows[(0, 64, 12, 0)]          # the all-miss cap --gpc-probe found: about 548 B a cycle a GPC
        assert 530 <= 12 * 256 * 128 / alone["gpc_cycles_per_kblock"] <= 570


def test_the_h200_check_is_read_too():
    gpu, rows = _rings("gpc_load_h200/gpc_load.jsonl")
    assert gpu == "NVIDIA H200" and len(rows) == 60
    r = rows[(0, 64, 12, 48)]                 # unlike the H100's: behind once its HBM saturates
    assert r["gpc_cycles_per_kblock"] >= 1.1 * r["load_cycles_per_kblock"]


def test_the_script_prints_the_tables_and_a_missing_folder_is_a_one_line_error():
    out = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.count("(NVIDIA H100 80GB HBM3, 60 rings)") == 2 and out.count("(NVIDIA H200, 60 rings)") == 2
    assert "128-row B box, a 128-row A box, 64 rows beyond the edge, 6 stages; 12 SMs of one GPC" in out
    r = subprocess.run([sys.executable, SCRIPT, "/nonexistent"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
