"""benchmarks/derive_wide_k_tpc.py and derive_wide_k_knee.py: the committed mb_tma --wide-k-tpc and --wide-k-knee
runs (data/microbench/wide_k_tpc_h100, wide_k_knee_h100) read back, and what the readings rest on holds in them: the
GPC's mix of panels slows the 256-byte-row walk, not the TPC pairing, and the cluster launch's order costs more than its
distinct kilobytes."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import derive_wide_k_knee as knee  # noqa: E402
import derive_wide_k_tpc as tpc  # noqa: E402


def test_tpc_runs_hold_every_variant_and_map_every_sm():
    s = tpc.summary(tpc.read_records())
    assert set(s) == {(tn, kb, v) for tn, kb in tpc.CONFIGS for v in tpc.VARIANTS}
    assert all(x["mapped"] == 132 for x in s.values())


def test_the_gpc_mix_not_the_tpc_pairing_slows_the_256_byte_rows():
    s = tpc.summary(tpc.read_records())
    for tn in (256, 128):
        plain, cluster = s[(tn, 2, "plain")]["cycles"], s[(tn, 2, "as cluster")]["cycles"]
        assert cluster > 1.10 * plain
        assert abs(s[(tn, 2, "plain, TPC split")]["cycles"] / plain - 1) < 0.03          # mates split: still fast
        assert abs(s[(tn, 2, "cluster, TPC paired")]["cycles"] / cluster - 1) < 0.03     # mates paired: still slow
    assert s[(256, 2, "TPC pairs, cluster order")]["cycles"] > 1.10 * s[(256, 2, "plain")]["cycles"]


def test_sharing_of_a_plain_like_placement():
    # consecutive sequences on a TPC's two SMs (pm8 order: the same A panel in every round), 8 GPCs of TPCs t % 8
    smids = list(range(132))
    x = tpc.sharing(smids, [(s // 2) % 8 for s in range(132)], 256)
    assert (x["share_a"], x["share_b"]) == (1.0, 0.0)
    assert x["tpcs_a"] == 66


def test_knee_maps_grow_in_distinct_kilobytes_and_match_mb_tma():
    m, bad = knee.maps(knee.read_records())
    assert bad == 0
    run = knee.RUNS[0]
    kb = [m[(run, 256, 2, v)]["gpc_kb"] for v in ("plain", "move 1", "move 3", "move 4", "move 7")]
    assert kb == sorted(kb) and kb[-1] > 1.4 * kb[0]


def test_the_cluster_order_costs_more_than_its_kilobytes():
    s = knee.summary(knee.read_records())
    plain = s[(256, 2, "plain")]["cycles"]
    assert s[(256, 2, "TPC pairs, cluster order")]["cycles"] > 1.08 * plain
    assert s[(256, 2, "move 8, pairs")]["cycles"] < 1.05 * plain      # about as many A panels, moved whole
    assert all(x["mapped"] == 132 for x in s.values())


def test_the_readers_print_their_tables():
    for script in ("derive_wide_k_tpc.py", "derive_wide_k_knee.py"):
        out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script)], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        assert "| 128x256x128 | 2 |" in out.stdout
