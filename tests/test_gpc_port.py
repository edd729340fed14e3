"""benchmarks/gpc_port.py: the committed walks on chosen SMs read back, and what the script's docstring and
docs/calibrate.md (the twenty-eighth session) say of them holds: the GPC with the most distinct slabs is each walk's
slowest, and the held GPCs' distinct bytes a cycle sit near one figure a GPU."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpc_port  # noqa: E402

SCRIPT = str(ROOT / "benchmarks" / "gpc_port.py")


def _walks(run: str):
    recs = gpc_port.records(ROOT / run)
    group = gpc_port.groups_of(recs)
    return group, [(r, gpc_port.walk_groups(r, group)) for r in gpc_port.paced_64x256(recs)]


def test_the_runs_read_back_with_their_groups():
    for paths in gpc_port.RUNS.values():
        for p in paths:
            group, walks = _walks(p)
            assert len(set(group.values())) == 7 and len(group) == 112    # seven 16-SM cluster groups
            assert len(walks) >= 4
            for r, gs in walks:
                assert sum(n for _, n, _, _ in gs) == 64


def test_the_group_with_the_most_distinct_slabs_is_the_slowest():
    for paths in gpc_port.RUNS.values():
        for p in paths:
            _, walks = _walks(p)
            for r, gs in walks:
                most = max(gs, key=lambda x: (x[2], x[3]))
                assert most[3] >= 0.99 * max(cyc for _, _, _, cyc in gs)   # the slowest, or within 1% of it


def test_the_held_figures_and_their_spread():
    h100, n100 = gpc_port.derive(gpc_port.RUNS["H100"], False)
    h200, n200 = gpc_port.derive(gpc_port.RUNS["H200"], False)
    assert 440 <= h100 <= 480 and n100 >= 20
    assert 520 <= h200 <= 590 and n200 >= 6
    assert h200 > 1.1 * h100           # the H200's GPC moves more a cycle at the same SM clock


def test_the_script_prints_both_gpus():
    out = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.startswith("H100: ") and "\nH200: " in out and out.count("distinct bytes a cycle a GPC") == 2
