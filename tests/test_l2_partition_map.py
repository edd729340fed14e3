"""benchmarks/l2_partition_map.py: the L2 partition as an XOR of address bits, from mb_pitch --l2-latency-map's
latencies (the twenty-ninth session)."""
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import l2_partition_map as lpm  # noqa: E402

from perfmodel.errors import PerfmodelError  # noqa: E402

XOR_BITS = (7, 9, 12, 15, 18, 20)     # a made-up hash: the parity of these address bits
XOR_MASK = sum(1 << (b - 7) for b in XOR_BITS)


def _lines() -> np.ndarray:
    return np.arange(1 << lpm.NBITS, dtype=np.int64)          # every line index of one 2 MiB page


def test_gaussian_elimination_recovers_an_xor_hash_exactly():
    x = _lines()
    y = lpm.parity(x, XOR_MASK)
    for affine in (False, True):
        g = lpm.gf2_solve(x, y, lpm.NBITS, affine)
        assert (g.mask, g.const, g.agreement, g.contradicting) == (XOR_MASK, 0, 1.0, 0)
    g = lpm.gf2_solve(x, y ^ 1, lpm.NBITS, True)               # the other partition's view: the constant flips
    assert (g.mask, g.const, g.agreement) == (XOR_MASK, 1, 1.0)
    assert lpm.gf2_solve(x, y ^ 1, lpm.NBITS, False).agreement < 1.0
    lin, aff = lpm.best_xor(x, y ^ 1, lpm.NBITS)
    assert (aff.mask, aff.const, aff.agreement) == (XOR_MASK, 1, 1.0)
    assert lpm.bits_of(aff.mask) == list(XOR_BITS)


def test_a_non_linear_hash_fits_less_than_all():
    x = _lines()
    y = (x % 3 == 0).astype(np.int64)                        # a mod-3 partition: no XOR of bits gives it
    for affine in (False, True):
        g = lpm.gf2_solve(x, y, lpm.NBITS, affine)
        assert g.agreement < 1.0 and g.contradicting > 0
    lin, aff = lpm.best_xor(x, y, lpm.NBITS)
    assert lin.agreement < 1.0 and aff.agreement < 1.0
    y = lpm.parity(x, XOR_MASK) & ((x >> 3) & (x >> 5) & 1)  # an AND of bits with an XOR
    assert lpm.best_xor(x, y, lpm.NBITS)[1].agreement < 1.0


def test_otsu_finds_the_gap_of_two_latency_classes():
    v = np.r_[np.full(100, 260.0) + np.arange(100) % 5, np.full(80, 380.0) + np.arange(80) % 7]
    s = lpm.otsu(v)
    assert 264 < s.threshold < 380 and s.n_lo == 100 and s.n_hi == 80 and s.gap == 116
    assert [n for _, _, n in lpm.clusters(v, 3.0)] == [100, 80]


def test_the_imbalance_of_lines_at_a_pitch():
    # one row of eight lines, the hash = address bit 7: four lines each side
    assert lpm.imbalance(4096, 1, 8, 1) == (0.0, 0.0, 0.0)
    # the hash = address bit 12 and a 4 KB pitch: the rows alternate, two rows balance
    assert lpm.imbalance(4096, 2, 8, 1 << 5) == (0.0, 0.0, 0.0)
    assert lpm.imbalance(8192, 2, 8, 1 << 5) == (1.0, 1.0, 1.0)          # 8 KB: bit 12 never set, all near
    # 2 MiB rows: every row in its own page at the same line, all near by bits 7..20 (a); each page on its own side
    # (b); pages flipped by page bit 0 (address bit 21) balance (c)
    assert lpm.imbalance(2 << 20, 4, 1, 1 << 5, page_mask=1) == (1.0, 1.0, 0.0)


def write_map(path: Path, mask: int, flip_sms=(1,), noise: float = 0.0) -> None:
    """A synthetic --l2-latency-map output: far lines (parity(index & mask), flipped for flip_sms) 120 cycles slower."""
    rng = np.random.default_rng(1)
    lines = []
    lines.append("MB " + json.dumps({"bench": "device", "name": "synthetic"}))
    for s, sms, idx in (("main", (0, 1), np.r_[_lines(), (1 << lpm.NBITS) + np.arange(512)]),
                        ("survey", (0, 1, 2), np.arange(512))):
        for sm in sms:
            lines.append("MB " + json.dumps({"bench": "l2_latency_info", "set": s, "sm": sm, "found": 1,
                                             "overhead_cycles": 30, "sm_clock_hz": 1.98e9, "lines": len(idx)}))
            far = lpm.parity(idx & ((1 << lpm.NBITS) - 1), mask) ^ (1 if sm in flip_sms else 0)
            if noise:
                far = far ^ (rng.random(len(idx)) < noise)
            cyc = 270.0 + 120.0 * far + rng.integers(0, 4, len(idx))
            for c0 in range(0, len(idx), 256):
                sl = slice(c0, c0 + 256)
                rec = {"bench": "l2_latency_map", "set": s, "sm": sm, "offsets": (idx[sl] * 128).tolist()}
                for m in lpm.METRICS:
                    rec[m] = cyc[sl].tolist()
                lines.append("MB " + json.dumps(rec))
    with gzip.open(path, "wt") as f:
        f.write("\n".join(lines) + "\n")


def test_the_script_reports_a_synthetic_xor_map(tmp_path):
    write_map(tmp_path / "l2_latency_map.jsonl.gz", XOR_MASK)
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "l2_partition_map.py"), "--data", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"bits {list(XOR_BITS)} const 0: 100.00%" in out.stdout
    assert "100.00% of 16896 lines, flipped" in out.stdout
    assert "survey, flipped as sm 0 (1): 1" in out.stdout


def test_a_malformed_file_is_a_one_line_error(tmp_path):
    (tmp_path / "l2_latency_map.jsonl.gz").write_bytes(gzip.compress(b'MB {"bench": "l2_latency_map", "sm": \n'))
    with pytest.raises(PerfmodelError, match="malformed result line 1"):
        lpm.load_map(tmp_path / "l2_latency_map.jsonl.gz")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "l2_partition_map.py"), "--data", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1
    (tmp_path / "l2_latency_map.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(PerfmodelError, match="unreadable"):
        lpm.load_map(tmp_path / "l2_latency_map.jsonl.gz")
    rec = {"bench": "l2_latency_map", "set": "main", "sm": 0, "offsets": [0, 128], "first": [1.0]}
    (tmp_path / "short.jsonl").write_text("MB " + json.dumps(rec) + "\n")
    with pytest.raises(PerfmodelError, match="lacks a field|different lengths"):
        lpm.load_map(tmp_path / "short.jsonl")
    with pytest.raises(PerfmodelError, match="unreadable"):
        lpm.load_map(tmp_path / "missing.jsonl.gz")


def test_constant_runs():
    x = np.arange(64)
    assert lpm.constant_runs(x, (x >> 1) & 1) == 2
    assert lpm.constant_runs(x, (x >> 3) & 1) == 8
    assert lpm.constant_runs(x, x & 1) == 1


def test_the_committed_map_is_the_xor_of_bits_12_13_16_17_19():
    _, main, survey, _ = lpm.load_map(ROOT / "data/microbench/l2_latency_map_h100/l2_latency_map.jsonl.xz")
    assert len(main) == 10 and len(survey) == 132
    p = main[0]
    page = p.offsets < (1 << lpm.PAGE_BITS)
    y, split = lpm.labels_for(p, "atom_min")
    assert split.gap > 100 and split.n_lo == split.n_hi == 9984
    g = lpm.gf2_solve(p.offsets[page] >> lpm.LINE_BITS, y[page], lpm.NBITS, True)
    assert lpm.bits_of(g.mask) == [12, 13, 16, 17, 19] and g.agreement == 1.0 and g.contradicting == 0
