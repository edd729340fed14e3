"""benchmarks/derive_wide_k_gap.py: the committed mb_tma --wide-k-gap runs (data/microbench/wide_k_gap_h100) read
back, and what the README's reading rests on holds in them: the cluster launch, not the output, the two tensors, the
smem layout or the register split, makes the 256-byte-row rings as slow as the same card's GEMM."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import derive_wide_k_gap as gap  # noqa: E402


def test_the_runs_hold_every_variant_and_configuration_in_eight_rounds():
    rows = gap.read_rows()
    assert len(rows) == 2 * 4 * len(gap.VARIANTS) * len(gap.CONFIGS)
    s = gap.summary(rows)
    assert all(s[(tn, kb, v)]["samples"] == 8 for tn, kb in gap.CONFIGS for v in gap.VARIANTS)
    assert set(gap.gemm_cycles()) == set(gap.CONFIGS)


def test_the_cluster_launch_makes_the_256_byte_row_gap_and_nothing_else_does():
    rows, s, gemm = gap.read_rows(), gap.summary(gap.read_rows()), gap.gemm_cycles()
    for tn in (256, 128):
        base, cluster = s[(tn, 2, "base")], s[(tn, 2, "cluster")]
        assert cluster["cycles"] > 1.10 * base["cycles"] and cluster["lo"] > base["hi"]
        assert cluster["land"] - base["land"] > 0.8 * (cluster["cycles"] - base["cycles"])   # all of it landing
        assert abs(s[(tn, 2, "gemm")]["cycles"] / gemm[(tn, 2)][0] - 1) < 0.03
        for v in ("out", "ab", "layout", "out+ab", "out+layout", "ab+layout", "all", "regs"):
            assert abs(s[(tn, 2, v)]["cycles"] / base["cycles"] - 1) < 0.04, v
        assert s[(tn, 1, "cluster")]["cycles"] < 1.05 * s[(tn, 1, "base")]["cycles"]   # 128-byte rows: small
    assert {r["variant"] for r in rows if r["cluster"]} == {"cluster", "gemm"}


def test_the_reader_prints_the_table():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "derive_wide_k_gap.py")], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0
    assert "| 128x256x128 | 2 | cluster | 3870" in out.stdout and "GEMM (timing build) | 3909" in out.stdout
