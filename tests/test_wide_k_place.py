"""benchmarks/derive_wide_k_place.py: the committed mb_tma --wide-k-place runs (data/microbench/wide_k_place_h100)
read back, and what the README's reading rests on holds in them: the 256-byte-row walk's speed follows the SM -> tile
placement, not the launch mode."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import derive_wide_k_place as place  # noqa: E402


def test_the_runs_hold_every_variant_and_configuration_in_eight_rounds():
    s = place.summary(place.read_records())
    assert set(s) == {(tn, kb, v) for tn, kb in place.CONFIGS for v in place.VARIANTS}
    assert all(x["samples"] == 8 for x in s.values())
    assert all(x["mapped"] == place.SMS for (_, _, v), x in s.items() if v not in ("plain", "cluster"))


def test_the_placement_not_the_launch_sets_the_256_byte_row_walk():
    s = place.summary(place.read_records())
    for tn in (256, 128):
        plain, cluster = s[(tn, 2, "plain")]["cycles"], s[(tn, 2, "cluster")]["cycles"]
        assert cluster > 1.10 * plain
        assert abs(s[(tn, 2, "plain as cluster")]["cycles"] / cluster - 1) < 0.03
        assert abs(s[(tn, 2, "cluster as plain")]["cycles"] / plain - 1) < 0.03
        assert abs(s[(tn, 2, "plain as plain")]["cycles"] / plain - 1) < 0.03
        assert abs(s[(tn, 2, "cluster as cluster")]["cycles"] / cluster - 1) < 0.03


def test_tile_order_and_tpc_sharing():
    assert [place.tile_mn(t, 64, 32) for t in (0, 1, 7, 8, 512)] == [(0, 0), (0, 1), (0, 7), (1, 0), (0, 8)]
    assert place.tpc_sharing(list(range(132)), 256) == (1.0, 0.0)   # consecutive CTAs on a TPC: the same A panel


def test_the_reader_prints_the_table():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "derive_wide_k_place.py")], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0
    assert "| 128x256x128 | 2 | plain as cluster | 3999" in out.stdout
