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
    for run in ("gpc_load_h100/gpc_load.jsonl", "gpc_load_h100/gpc_load_repeat.jsonl",
                "gpc_load_h100_second/gpc_load.jsonl", "gpc_load_h100_second/gpc_load_repeat.jsonl"):
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
    assert out.count("(NVIDIA H100 80GB HBM3, 60 rings)") == 4 and out.count("(NVIDIA H200, 60 rings)") == 4
    assert "128-row B box, a 128-row A box, 64 rows beyond the edge, 6 stages; 12 SMs of one GPC" in out
    r = subprocess.run([sys.executable, SCRIPT, "/nonexistent"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_zero_fill_hold_share_recovers_a_known_slope_and_needs_zero_fill_rings():
    from perfmodel.microbench.derive import zero_fill_hold_share
    pool, lat, miss, q_ns, clk, hbm = 600_000.0, 400.0, 800.0, 150.0, 2e9, 3e12
    queue = q_ns * 1e-9 * clk
    recs = []
    for load, bps in ((0, 0.6e12), (24, 1.5e12), (48, 2.1e12), (72, 2.4e12), (96, 2.8e12)):
        u = min(bps / hbm, 0.85)
        extra = 500.0 + 2.0 * queue * u / (1 - u)          # intercept 500 cycles, slope 2
        held = 128 * 128 * (lat + miss) + 128 * 128 * lat + 64 * 128 * extra
        recs.append({"bench": "tma_gpc_load", "gpc_sms": 12, "load_sms": load, "a_box_rows": 128, "a_tensor_rows": 64,
                     "tile_n": 128, "b_bytes_per_s": bps, "gpc_cycles_per_kblock": held * 12 / pool})
    fit = zero_fill_hold_share(recs, pool, hbm, lat, miss, q_ns, clk)
    assert abs(fit.share - 2.0) < 1e-6 and abs(fit.intercept_cycles - 500.0) < 1e-3 and fit.points == 5
    in_bounds = [{**r, "a_tensor_rows": 128} for r in recs]        # no zero fill: nothing to fit
    assert zero_fill_hold_share(in_bounds, pool, hbm, lat, miss, q_ns, clk) is None
    few = [{**r, "gpc_sms": 4} for r in recs]                       # an uncrowded GPC: not a pool's hold
    assert zero_fill_hold_share(few, pool, hbm, lat, miss, q_ns, clk) is None


def test_the_hold_share_the_microbenchmark_implies_on_each_gpu_and_the_transfer_tried():
    from perfmodel import load_hardware
    out = subprocess.run([sys.executable, SCRIPT, "--share"], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    fits, cards = {}, {}
    for gpu, dirname in (("NVIDIA H100 80GB HBM3", "gpc_load_h100"), ("NVIDIA H200", "gpc_load_h200")):
        rows = []
        for d in (dirname, dirname + "_second"):            # two cards a GPU, each run twice
            card = []
            for f in sorted((ROOT / "data/ncu" / d).glob("gpc_load*.jsonl")):
                card += gpc_load.read_run(f)[1]
            cards.setdefault(gpu, []).append(gpc_load.hold_fit(gpu, card)[1].share)
            rows += card
        fits[gpu] = gpc_load.hold_fit(gpu, rows)[1]
    h100, h200 = fits["NVIDIA H100 80GB HBM3"], fits["NVIDIA H200"]
    assert h100.points == h200.points == 72
    assert h200.share > 2 * h100.share > 0        # the H200's crowded GPC lags as far at a lower HBM utilization
    assert min(cards["NVIDIA H200"]) > 1.8 * max(cards["NVIDIA H100 80GB HBM3"])   # on every card
    transfer = load_hardware("h100-sxm").tma.pool_queue_share * h200.share / h100.share
    assert 2.0 < transfer < 2.4 and f"= {transfer:.2f} (the H200's by this transfer; tried, not kept)" in out
    # not kept (its held-out half did not improve): the H200 keeps the H100's GEMM fit
    assert load_hardware("h200").tma.pool_queue_share == load_hardware("h100-sxm").tma.pool_queue_share
