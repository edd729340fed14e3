"""benchmarks/drift_lru.py: the LRU replay of the CTAs' own progress counts what an LRU misses, and the command reports
its committed run (the replay within 5% of ncu at 31 MB) and fails in one line."""
import pathlib
import re
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import _jsonl  # noqa: E402
import drift_lru  # noqa: E402

CMD = [sys.executable, str(ROOT / "benchmarks" / "drift_lru.py")]
SLAB = 128 * 64 * 2            # a 128-row bf16 slab of 64 columns


def _run(times_ns: list[list[float]]) -> dict:
    """A 256x256x256 bf16 run of 128x128x64 tiles on 4 CTAs (one tile each), sampled at every k-block."""
    return {"m": 256, "n": 256, "k": 256, "dtype": "bf16",
            "kernel": {"bm": 128, "bn": 128, "bk": 64, "grid_ctas": 4, "group": 8, "raster_n": 0},
            "cta_samples": [[1] + t + [-1] * (drift_lru.SAMPLES - len(t)) for t in times_ns]}


def test_ctas_in_step_read_each_slab_once_and_a_one_slab_lru_keeps_only_the_last():
    run = _run([[100.0 * i for i in range(4)] for _ in range(4)])
    big, tiny = drift_lru.replay(run, drift_lru.issue_times(run), [1e9, SLAB])
    assert big == 4 * 4 * SLAB                  # 2 A and 2 B panels of 4 slabs, each once
    # one slab held: of each k-block's A reads (CTAs 0, 1 on m = 0, then 2, 3 on m = 1) every second one hits the
    # slab just read, and no B read does (n = 0, 1, 0, 1): 2 + 4 misses a k-block
    assert tiny == 4 * (2 + 4) * SLAB


def test_a_ctas_lag_beyond_the_lru_makes_it_read_again():
    lead = [100.0 * i for i in range(4)]
    late = [1e6 + 100.0 * i for i in range(4)]   # CTA 1 shares CTA 0's A panel (same m), a long time after
    run = _run([lead, late, lead, late])
    cap = 8 * SLAB                               # the slabs of one k-block of every panel, and some
    in_step = drift_lru.replay(_run([lead] * 4), drift_lru.issue_times(_run([lead] * 4)), [cap])[0]
    lagged = drift_lru.replay(run, drift_lru.issue_times(run), [cap])[0]
    assert lagged > in_step
    assert np.allclose(drift_lru.cta_rates(run), 100.0)


def test_the_committed_run_replays_within_five_percent_of_ncu():
    out = subprocess.run(CMD + ["--capacity-mb", "31"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    fit = float(re.search(r"31 MB ([0-9.]+) \((\d+) launches\)", out.stdout).group(1))
    assert fit < 0.05
    assert out.stdout.count("fast class 24 CTAs") >= 8


def test_bad_arguments_are_one_line_errors(tmp_path):
    for args in (["--capacity-mb", "x"], ["--capacity-mb", "-3"], ["--file", str(tmp_path / "none.jsonl")]):
        out = subprocess.run(CMD + args, capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert out.returncode == 2 and out.stderr.startswith("error:") and len(out.stderr.strip().splitlines()) == 1


def test_the_estimate_counts_first_reads_in_step_and_more_when_a_sharer_lags():
    run = _run([[100.0 * i for i in range(4)] for _ in range(4)])
    assert drift_lru.estimate(run, np.full(4, 100.0), 1e9) == 4 * 4 * SLAB     # every slab once, as the replay
    slow = np.array([100.0, 1e5, 100.0, 1e5])    # CTAs 1 and 3 read their shared slabs long after 0 and 2
    assert drift_lru.estimate(run, slow, 2 * SLAB) > drift_lru.estimate(run, np.full(4, 100.0), 2 * SLAB)


def test_a_malformed_row_is_one_line_and_the_rest_still_reported(tmp_path):
    first = _jsonl.lines(ROOT / "data/ncu/drift_lru_h100b/drift_ncu.jsonl")[0] + "\n"     # stored as .xz
    bad = tmp_path / "mixed.jsonl"
    bad.write_text('[1, 2]\n{"shape": "x", "config_name": "y", "program": {"cta_samples": [[1]]}, "launches": [{}]}\n'
                   + first)
    out = subprocess.run(CMD + ["--file", str(bad), "--capacity-mb", "31"], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert out.stdout.count(": malformed (") == 2 and "(1 launches)" in out.stdout


SIM = [sys.executable, str(ROOT / "benchmarks" / "drift_sim.py")]


def test_the_drift_simulation_reads_each_slab_once_when_its_ctas_share_in_step():
    import drift_sim
    run = _run([[100.0 * i for i in range(4)] for _ in range(4)])
    run["kernel"]["stages"] = 4
    run["cta_probe"] = [[[s, 0, 0, 0] for s in range(4)]]
    p = drift_sim.SimParams(1.5e9, 368.0, 776.0, 3e12, 4096.0)
    res = drift_sim.simulate(run, set(), p)
    assert res.hbm_read_bytes == 4 * 4 * SLAB       # an LRU of 31 MB keeps every slab: each read from HBM once
    assert 0 < res.merged_fraction < 1 and res.time_s > 0


def test_the_drift_simulation_fails_in_one_line_on_a_missing_file(tmp_path):
    out = subprocess.run(SIM + ["--file", str(tmp_path / "none.jsonl.gz")], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == 2 and out.stderr.startswith("error:") and len(out.stderr.strip().splitlines()) == 1
