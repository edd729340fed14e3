"""benchmarks/l2_slice_map.py: the L2 slices from mb_pitch --l2-slice-map's atomic contention (the twenty-ninth
session), on synthetic runs with a planted slice map."""
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import l2_slice_map as lsm  # noqa: E402

from perfmodel.errors import PerfmodelError  # noqa: E402

LINES = np.arange(lsm.PAGE_LINES)
PART = lsm.parity(LINES, lsm.PARTITION_MASK)


def planted(quads: int = 5) -> np.ndarray:
    """A made-up map in the measured form: slice 4 quad + 2 kind + partition, constant over aligned 256-byte pairs;
    the quad a non-linear function of the pair index (mod `quads` of a hash), the kind address bit 15."""
    pair = LINES >> 1
    q = ((pair * 2654435761) >> 9) % quads
    kind = (LINES >> (15 - lsm.LINE_BITS)) & 1
    return 4 * q + 2 * kind + PART


def contention_us(lines, sl: np.ndarray, rng) -> float:
    """76 us for lines on distinct slices with no neighbours; 172 when two share a slice; 148 for the same line twice
    or two neighbours in a quad's 4-cycle; 1% noise."""
    slices = [int(sl[x]) for x in lines]
    level = 1.0
    for i, a in enumerate(slices):
        for j in range(i + 1, len(slices)):
            b = slices[j]
            if a == b:
                level = max(level, 1.95 if lines[i] == lines[j] else 2.26)
            elif b in lsm.neighbours(a):
                level = max(level, 1.95)
    return 76.0 * level * (1 + 0.01 * rng.standard_normal())


def plan_slots(k: int, chunk: int) -> tuple[list[list[int]], list[int], list[int]]:
    """The program's slots: class c's code (37 c + 11) mod 128; per bit, side 1 then side 0, in chunks."""
    code = [(37 * c + 11) & 127 for c in range(k)]
    slots, bits, sides = [], [], []
    for b in range(7):
        side = {s: [c for c in range(k) if (code[c] >> b & 1) == s] for s in (0, 1)}
        if not side[0] or not side[1]:
            continue
        for s in (1, 0):
            for c0 in range(0, len(side[s]), chunk):
                slots.append(side[s][c0:c0 + chunk])
                bits.append(b)
                sides.append(s)
    return slots, bits, sides


def write_run(path: Path, sl: np.ndarray, chunk: int = 3, pair_refs=(0,), seed: int = 1) -> list[int]:
    """A synthetic --l2-slice-map output of the planted map: the references two opposite corners of each quad (the
    references' slices, kinds 0), shuffled; pair scans of pair_refs; the group test of every line."""
    rng = np.random.default_rng(seed)
    quads = int(sl.max()) // 4 + 1
    refs = [int(np.nonzero(sl == 4 * q + c)[0][3]) for q in range(quads) for c in (0, 1)]
    refs = [refs[i] for i in rng.permutation(len(refs))]
    recs = [{"bench": "device", "name": "synthetic"},
            {"bench": "l2_slice_setup", "words": 8, "q": 123182, "usable": 1},
            {"bench": "l2_slice_cal_split", "stage": "chosen", "words": 8, "q": 123182, "single_us": 76,
             "same_line_us": 148, "cut_us": 107, "lo_us": 76, "hi_us": 162, "n_hi": 15, "n": 130}]
    for r in pair_refs:
        us = [contention_us([r, x], sl, rng) for x in range(lsm.PAGE_LINES)]
        for x0 in range(0, lsm.PAGE_LINES, 1024):
            recs.append({"bench": "l2_slice_pair", "ref": r * 128, "first_offset": x0 * 128, "step": 128,
                         "n": 1024, "us": [round(v) for v in us[x0:x0 + 1024]]})
    slots, bits, sides = plan_slots(len(refs), chunk)
    recs.append({"bench": "l2_slice_group_plan", "classes": len(refs), "slots": len(slots), "chunk": chunk,
                 "stride": 1, "refs": [r * 128 for r in refs], "slot_bit": bits, "slot_side": sides,
                 "slot_classes": slots})
    for x0 in range(0, lsm.PAGE_LINES, 256):
        us = [round(contention_us([x] + [refs[c] for c in s], sl, rng)) for x in range(x0, x0 + 256) for s in slots]
        recs.append({"bench": "l2_slice_group", "first_offset": x0 * 128, "step": 128, "n": 256,
                     "slots": len(slots), "us": us})
    path.write_bytes(gzip.compress("".join(f"MB {json.dumps(r)}\n" for r in recs).encode()))
    return refs


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    sl = planted()
    p = tmp_path_factory.mktemp("slice") / "l2_slice_map.jsonl.gz"
    refs = write_run(p, sl, pair_refs=(0, 34))
    return p, sl, refs


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """a and b label the lines alike up to the labels' names."""
    return len(set(zip(a.tolist(), b.tolist()))) == len(np.unique(a)) == len(np.unique(b))


def test_the_group_test_recovers_a_planted_slice_map(run_file):
    path, sl, refs = run_file
    run = lsm.load_run(path)
    assert sorted(run.pairs) == [0, 34] and run.group_us.shape == (lsm.PAGE_LINES, len(run.plan["slot_classes"]))
    refs_g = np.asarray(run.plan["refs"]) // 128
    assert refs_g.tolist() == refs
    holds = lsm.slot_matrix(run.plan["slot_classes"], len(refs_g))
    dec = lsm.decode_group(run.group_us, run.group_lines, holds, lsm.parity(refs_g, lsm.PARTITION_MASK))
    assert len(dec.quads) == 5 and (dec.slice_of >= 0).all()
    assert same_partition(dec.slice_of, sl)
    for a, b in dec.quads:                        # each quad's references: two corners of one planted quad
        assert sl[refs[a]] // 4 == sl[refs[b]] // 4
    for ref in (0, 34):
        _, _, lvl = lsm.pair_levels(run.pairs[ref])
        agree, cnt = lsm.check_pairs(dec.slice_of, ref, lvl)
        assert agree == 1.0 and set(cnt) == {(0, 0), (1, 1), (2, 2)}


def test_the_structure_of_the_planted_map(run_file):
    _, sl, _ = run_file
    assert lsm.constant_runs(LINES, sl) == 2
    cm = lsm.constant_masks(sl)
    # linear: the partition and the kind (bit 15); the 5 quads of a mod-5 hash are not
    span = lsm.gf2_basis([lsm.PARTITION_MASK, 1 << (15 - lsm.LINE_BITS)])
    assert len(cm) == 2 and sorted(lsm.gf2_basis(cm + span)) == sorted(span)
    assert lsm.purity(sl // 4, sl // 4) == 1.0 and lsm.purity(sl // 4, np.zeros_like(sl)) < 0.3


def test_the_in_step_lines_imbalance():
    # slices by address bit 7 alone: a 256-byte pitch puts every row's first line on slice 0
    lab = LINES & 1
    a, s, b = lsm.pitch_imbalance(256, 64, 1, lab)
    assert (a, s, b) == (2.0, 2.0, 2.0)
    a, s, b = lsm.pitch_imbalance(128, 64, 1, lab)
    assert (a, s, b) == (1.0, 1.0, 1.0)
    # two rows, one a page: each page holds one line, its own maximum (b) counts both
    a, s, b = lsm.pitch_imbalance(2 << 20, 2, 1, lab)
    assert (a, b) == (2.0, 2.0)


def test_a_malformed_run_is_a_one_line_error(tmp_path, run_file):
    p = tmp_path / "l2_slice_map.jsonl.gz"
    p.write_bytes(b"not gzip")
    with pytest.raises(PerfmodelError, match="unreadable"):
        lsm.load_run(p)
    p.write_bytes(gzip.compress(b'MB {"bench": "l2_slice_setup", "words": 8}\n'
                                b'MB {"bench": "l2_slice_group_plan", "slots": 4}\n'
                                b'MB {"bench": "l2_slice_group", "first_offset": 0, "step": 128, "n": 2, "slots": 4, '
                                b'"us": [1, 2, 3]}\n'))
    with pytest.raises(PerfmodelError, match="6 times|has 3 times"):
        lsm.load_run(p)
    p.write_bytes(gzip.compress(b'MB {"bench": "l2_slice_pair", "ref": 0}\n'))
    with pytest.raises(PerfmodelError, match="no l2_slice_setup"):
        lsm.load_run(p)
    p.write_bytes(gzip.compress(b'MB {"bench": "l2_slice_setup"}\nMB {"bench": "l2_slice_pair", "ref": 0}\n'))
    with pytest.raises(PerfmodelError, match="lacks a field"):
        lsm.load_run(p)
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks/l2_slice_map.py"), "--data", str(p)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_the_committed_map_has_80_slices_in_20_quads():
    run = lsm.load_run(lsm.DATA / "l2_slice_map.jsonl.xz")
    refs_g = np.asarray(run.plan["refs"]) // 128
    holds = lsm.slot_matrix(run.plan["slot_classes"], len(refs_g))
    dec = lsm.decode_group(run.group_us, run.group_lines, holds, lsm.parity(refs_g, lsm.PARTITION_MASK))
    sizes = np.bincount(dec.slice_of)
    assert len(dec.quads) == 20 and (dec.slice_of >= 0).all() and sorted(set(sizes.tolist())) == [200, 208]
    for ref, us in run.pairs.items():
        agree, _ = lsm.check_pairs(dec.slice_of, ref, lsm.pair_levels(us)[2])
        assert agree > 0.999
