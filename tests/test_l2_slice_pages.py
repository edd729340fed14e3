"""benchmarks/l2_slice_pages.py: how the L2 slices move from page to page (mb_pitch --l2-slice-pages, the thirtieth
session), on synthetic runs with a planted one-page map and a planted per-page remap."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import l2_slice_map as lsm  # noqa: E402
import l2_slice_pages as lsp  # noqa: E402

from perfmodel.errors import PerfmodelError  # noqa: E402

LINES = np.arange(lsm.PAGE_LINES)


def planted_map() -> np.ndarray:
    """80 slices, 4 quad + 2 kind + partition: constant over 256-byte pairs, the quad a hash of the pair mod 20, the
    kind address bit 15, the partition the measured parity."""
    pair = LINES >> 1
    q = ((pair * 2654435761) >> 9) % 20
    return 4 * q + 2 * ((LINES >> 8) & 1) + lsm.parity(LINES, lsm.PARTITION_MASK)


def gen_sigma(bit: int) -> np.ndarray:
    """A planted generator for page bit `bit`: quads shifted by 3 bit + 1 mod 20, the partition flipped on odd bits."""
    s = np.arange(lsp.NSLICES)
    q, kind, part = s // 4, (s >> 1) & 1, s & 1
    return 4 * ((q + 3 * bit + 1) % 20) + 2 * kind + (part ^ (bit & 1))


def planted_sigma(page: int, broken: int = -1) -> np.ndarray:
    """The composition of the generators of the page's bits; page `broken` instead gets a slice swap more."""
    out = np.arange(lsp.NSLICES)
    for b in range(12):
        if page >> b & 1:
            out = gen_sigma(b)[out]
    if page == broken:
        out = out[np.r_[4, 1, 2, 3, 0, 5:lsp.NSLICES]]   # labels 0 and 4 (two quads' partition-0 kind 0) swapped
    return out


def plan_slots(adj: list[set], chunk: int = 20) -> list[list[int]]:
    """The program's design "quads" on the reference graph adj: the 4-cycles v0 (lowest) - v1 (its lower neighbour) -
    v2 - v3; family 0 = (v0, v2) of each cycle by kPageCodes bit and side, then twice the v1 and the v3."""
    fam0, fam1, fam2, used = [], [], [], set()
    for v0 in range(lsp.NSLICES):
        if v0 in used:
            continue
        v1, v3 = sorted(adj[v0])
        v2 = next(iter(adj[v1] - {v0}))
        assert adj[v3] == {v0, v2}
        used |= {v0, v1, v2, v3}
        fam0 += [v0, v2]
        fam1.append(v1)
        fam2.append(v3)
    slots = []
    for b in range(7):
        for side in (1, 0):
            refs = [fam0[a] for a in range(40) if (lsp.CODES[a] >> b & 1) == side]
            slots += [refs[i:i + chunk] for i in range(0, len(refs), chunk)]
    for _ in range(2):
        for fam in (fam1, fam2):
            slots += [fam[i:i + chunk] for i in range(0, len(fam), chunk)]
    return slots


def write_run(path: Path, sl: np.ndarray, pages, broken: int = -1, errors: int = 0, seed: int = 3,
              mangle=None, pi0: np.ndarray | None = None) -> np.ndarray:
    """A synthetic --l2-slice-pages output: references the first line of each label, the sample a line of each label
    and 48 more; a line x of page p is on the physical slice G_p(pi0(m(x))) (G_p = planted_sigma(p), pi0 the first
    page's relabelling of the one-page map m, the identity by default); physical slices contend with their cycle
    neighbours; a slot is slow where it holds a reference on the line's slice or a neighbour; `errors` random slot bits
    flipped a page. Returns the sample."""
    rng = np.random.default_rng(seed)
    pi0 = np.arange(lsp.NSLICES) if pi0 is None else pi0
    refs = np.array([int(np.nonzero(sl == s)[0][0]) for s in range(lsp.NSLICES)])
    sample = [int(rng.choice(np.nonzero(sl == s)[0][1:])) for s in range(lsp.NSLICES)]
    sample += [int(v) for v in rng.choice(np.setdiff1d(LINES, np.r_[refs, sample]), 48, replace=False)]
    sample = np.array(sample)
    adj = [{b for b in range(lsp.NSLICES) if pi0[b] in lsm.neighbours(int(pi0[a]))} for a in range(lsp.NSLICES)]
    slots = plan_slots(adj)
    recs = [{"bench": "device", "name": "synthetic"},
            {"bench": "l2_slice_pages_buffer", "bytes": 2 ** 33, "base_mod_2mib": 0, "first_page_offset": 0,
             "pages": 4096, "ctas": 132},
            {"bench": "l2_slice_pages_cal", "words": 8, "q_cal": 65536, "single_us": 42, "other_us": 42,
             "same_us": 88, "neighbour_us": 82, "q": 70000}]
    for a in range(lsp.NSLICES):
        us = [45.0 if b == a else 88.0 if b in adj[a] else 45.0 * (1 + 0.01 * rng.standard_normal())
              for b in range(lsp.NSLICES)]
        recs.append({"bench": "l2_slice_pages_refs", "slice": a, "offset": int(refs[a]) * 128, "alone_us": 45,
                     "us": us})
    recs.append({"bench": "l2_slice_pages_plan", "q": 70000, "words": 8, "chunk": 20, "slots": len(slots),
                 "lines": len(sample), "pages": 4096, "page_lines": lsm.PAGE_LINES,
                 "refs": [int(r) * 128 for r in refs], "codes": list(lsp.CODES),
                 "sample": [int(x) * 128 for x in sample], "slot_bit": [0] * len(slots), "slot_side": [0] * len(slots),
                 "slot_slices": slots})
    for p in pages:
        phys = planted_sigma(p, broken)[pi0[sl[sample]]]
        masks = []
        for y in phys:
            near = {int(y), *lsm.neighbours(int(y))}
            masks.append(sum(1 << t for t, s in enumerate(slots) if near & set(pi0[s].tolist())))
        for _ in range(errors):
            i = rng.integers(len(masks))
            masks[i] ^= 1 << int(rng.integers(len(slots)))
        recs.append({"bench": "l2_slice_pages_page", "page": p, "cut_us": 60, "lo_us": 50, "hi_us": 95, "n_hi": 9,
                     "near": 0, "masks": masks})
    recs.append({"bench": "l2_slice_pages_summary", "pages_done": len(pages), "seconds": 1.0})
    if mangle:
        mangle(recs)
    path.write_text("".join("MB " + json.dumps(r) + "\n" for r in recs))
    return sample


PAGES = list(range(16)) + [32, 64, 128, 256, 512, 1024, 2048, 300, 777, 1500]
CHECKABLE = [p for p in PAGES if p & (p - 1) and not p & 16]   # not 0 nor 2^i; page 16 (bit 4) is not measured


@pytest.fixture(scope="module")
def sl():
    return planted_map()


def test_planted_remap_is_recovered(tmp_path, sl):
    path = tmp_path / "pages.jsonl"
    write_run(path, sl, PAGES, errors=3)
    run = lsp.load_pages(path)
    lab, remaps, least = lsp.analyse(run, sl)
    assert (lab >= 0).mean() > 0.99
    cls = lsp.linear_class(sl)
    for rm in remaps:
        want = planted_sigma(rm.page)
        assert rm.relabel > 0.98
        known = rm.sigma >= 0
        assert known.sum() >= 78 and (rm.sigma[known] == want[known]).all(), rm.page
        assert rm.k == int(Counter_mode(cls[want] ^ cls))
        assert rm.flip == (bin(rm.page & 0xAAA).count("1") & 1)
        assert rm.quads_kept
    sig = np.array([rm.sigma for rm in remaps])
    complete = np.ones(len(remaps), dtype=bool)
    agree, checked, commute = lsp.composition_check(run.pages, sig, complete)
    assert len(CHECKABLE) - 2 <= checked == agree     # a generator may miss a slice
    gen, agree, checked = lsp.linear_values(run.pages, np.array([rm.flip for rm in remaps]), complete)
    assert agree == checked > 10 and gen[1] == 1 and gen[0] == 0


def Counter_mode(v: np.ndarray) -> int:
    vals, counts = np.unique(v, return_counts=True)
    return int(vals[counts.argmax()])


def test_broken_page_fails_the_composition(tmp_path, sl):
    path = tmp_path / "pages.jsonl"
    write_run(path, sl, PAGES, broken=777)
    run = lsp.load_pages(path)
    _, remaps, _ = lsp.analyse(run, sl)
    sig = np.array([rm.sigma for rm in remaps])
    agree, checked, _ = lsp.composition_check(run.pages, sig, np.ones(len(remaps), dtype=bool))
    assert checked == len(CHECKABLE) and agree == checked - 1
    complete = np.ones(len(remaps), dtype=bool)
    maps = lsp.page_maps(run, sig, complete, 4096, predict=True)
    assert (maps[2600] == planted_sigma(2600)).all()        # composed from pages 8, 32, 512, 2048
    assert (maps[777] == planted_sigma(777, broken=777)).all()   # measured pages keep their own
    assert (lsp.page_maps(run, sig, complete, 4096, predict=False)[2600] < 0).all()


def test_first_page_relabelled(tmp_path, sl):
    """The buffer's first page a relabelling of the one-page map that does not keep its quads (as on the card): the
    labels read the first page's slices, sigma_p = pi0^-1 G_p pi0, and the measured quads are pi0^-1 of the planted."""
    pi0 = np.random.default_rng(9).permutation(lsp.NSLICES)
    path = tmp_path / "pages.jsonl"
    write_run(path, sl, PAGES, pi0=pi0)
    run = lsp.load_pages(path)
    lab, remaps, _ = lsp.analyse(run, sl)
    inv = np.argsort(pi0)
    _, slow = lsp.contention(run.pair_us)
    q = lsp.quads_of(slow)
    assert q is not None and all(len(set((pi0[q == k] // 4).tolist())) == 1 for k in range(20))
    for rm in remaps:
        assert (rm.sigma == inv[planted_sigma(rm.page)[pi0]]).all() and rm.quads_kept, rm.page
    sig = np.array([rm.sigma for rm in remaps])
    agree, checked, _ = lsp.composition_check(run.pages, sig, np.ones(len(remaps), dtype=bool))
    assert checked == len(CHECKABLE) == agree


def test_imbalance_matches_the_one_page_count(sl):
    """With every page the identity, the imbalance is l2_slice_map's count with the page's map for every page."""
    maps = np.tile(np.arange(lsp.NSLICES), (600, 1))
    for p in (4096, 22016, 33792):
        (a, s), = lsp.imbalance(p, 132 * 128, 8, sl, maps, (1,))
        a0, s0, _ = lsm.pitch_imbalance(p, 132 * 128, 8, sl)
        assert a == pytest.approx(a0) and s == pytest.approx(s0)
    assert lsp.imbalance(131072, 132 * 128, 8, sl, maps[:10]) is None    # pages past the known ones
    maps[3] = -1
    assert lsp.imbalance(4096, 132 * 128, 8, sl, maps) is None           # a page unknown


def test_offset_search_finds_a_shift(sl):
    rng = np.random.default_rng(5)
    sample = rng.choice(lsm.PAGE_LINES, 128, replace=False)
    d, share, ties = lsp.best_offset(sl[sample ^ 0x1230], sample, sl)
    assert share == 1.0 and (d ^ 0x1230) & ~0b101 == 0 and ties >= 2


def test_report_runs(tmp_path, sl, capsys):
    path = tmp_path / "pages.jsonl"
    write_run(path, sl, PAGES)
    assert lsp.report(path, sl, tables={}, latency=None, draws=1) == 0
    out = capsys.readouterr().out
    assert f"{len(CHECKABLE)} of {len(CHECKABLE)} pages equal the composition" in out
    assert "page 1024" in out and "at d = 0 100.00%" in out     # the first page is m itself


def ref_run(path: Path, sl: np.ndarray, d: int, noise: int = 0, seed: int = 4) -> None:
    """A run that stopped after the reference pairs (as on the card): the first page maps as m(x ^ d); levels 45 us
    (fast), 85 (neighbours), 98 (one slice); `noise` pairs moved to another level."""
    rng = np.random.default_rng(seed)
    refs = np.array([int(rng.choice(np.nonzero(sl == s)[0])) for s in range(lsp.NSLICES)])
    s = sl[refs ^ d]
    us = np.full((lsp.NSLICES, lsp.NSLICES), 45.0)
    for a in range(lsp.NSLICES):
        for b in range(lsp.NSLICES):
            if a != b:
                us[a, b] = 98.0 if s[a] == s[b] else 85.0 if s[b] in lsm.neighbours(int(s[a])) else 45.0
    for _ in range(noise):
        a, b = rng.choice(lsp.NSLICES, 2, replace=False)
        us[a, b] = us[b, a] = 85.0 if us[a, b] < 60 else 45.0
    us *= 1 + 0.005 * rng.standard_normal(us.shape)
    us = (us + us.T) / 2
    recs = [{"bench": "device", "name": "synthetic"},
            {"bench": "l2_slice_pages_buffer", "bytes": 2 ** 32, "base_mod_2mib": 0, "first_page_offset": 0,
             "pages": 2048},
            {"bench": "l2_slice_pages_cal", "q_cal": 65536, "single_us": 42, "other_us": 42, "same_us": 93, "q": 70000}]
    recs += [{"bench": "l2_slice_pages_refs", "slice": a, "offset": int(refs[a]) * 128, "alone_us": 45,
              "us": us[a].tolist()} for a in range(lsp.NSLICES)]
    recs.append({"bench": "l2_slice_pages_stop", "after": "refs", "families": 5})
    path.write_text("".join("MB " + json.dumps(r) + "\n" for r in recs))


def test_first_page_offset_is_found(tmp_path, sl):
    path = tmp_path / "refs.jsonl"
    d = 0b10110010100                            # line bits 2, 4, 7, 8, 10
    ref_run(path, sl, d, noise=3)
    run = lsp.load_pages(path)
    assert run.stop["after"] == "refs" and len(run.pages) == 0
    _, _, level = lsp.ref_levels(run.pair_us)
    sc = lsp.offset_scores(level, run.refs, sl)
    ties = np.nonzero(sc == sc.max())[0]
    assert sc.max() > 0.995 and d in ties and sc[0] < sc.max() - 0.005
    assert all(lsp.map_kind(sl, int(e ^ d)) != "other" for e in ties)
    assert lsp.quads_of(level > 0) is None       # not a relabelling: some references share a slice


def test_report_on_a_stopped_run(tmp_path, sl, capsys):
    path = tmp_path / "refs.jsonl"
    ref_run(path, sl, 0b1100000)
    assert lsp.report(path, sl, tables={}, latency=None, draws=1) == 0
    out = capsys.readouterr().out
    assert "stopped after 'refs'" in out and "the one-page map at x ^ d predicts the levels of 100.00%" in out


def test_latency_generators_are_found(sl):
    """Pages 1..7 of a planted map m(x ^ d_p), d_p XOR-linear in the page bits, seen through per-slice latency
    signatures from 10 SMs: the generators come back (up to offsets that leave m identical)."""
    rng = np.random.default_rng(7)
    med = rng.uniform(280, 520, (lsp.NSLICES, 10)).round()
    sig0 = med[sl] + rng.uniform(-0.5, 0.5, (lsm.PAGE_LINES, 10))
    gens = {0: 0b1000100110, 1: 0b10010000010, 2: 0b100000111000}
    lines = np.arange(512)
    ties = {}
    for p in range(8):
        d = lsp.xor_offsets(p + 1, gens)[p]
        sc = lsp.signature_scores(sig0, sl, lines, med[sl[lines ^ d]])
        ties[p] = set(np.nonzero(sc == sc.max())[0].tolist())
        assert sc.max() == 1.0 and d in ties[p]
    sols = lsp.linear_solutions(ties)
    assert sols and all(lsp.map_kind(sl, g[b] ^ gens[b]) == "identical" for g in sols for b in gens)


def test_xor_model_imbalance(sl):
    """d_p = 0 for every page gives l2_slice_map's one-page count; xor_offsets composes the bits of base + p."""
    d0 = np.zeros(600, dtype=np.int64)
    for p in (4096, 22016):
        (a, s), _, _ = lsp.imbalance_xor(p, 132 * 128, 8, sl, d0)
        a0, s0, _ = lsm.pitch_imbalance(p, 132 * 128, 8, sl)
        assert a == pytest.approx(a0) and s == pytest.approx(s0)
    assert lsp.imbalance_xor(131072, 132 * 128, 8, sl, d0) is None
    d = lsp.xor_offsets(4, {0: 3, 1: 8}, base_page=5, d_base=64)
    assert d.tolist() == [64 ^ 3 ^ 0, 64 ^ 8, 64 ^ 8 ^ 3, 64]      # pages 5, 6, 7, 8 (bit 3: no generator)


@pytest.mark.parametrize("mangle, needle", [
    (lambda recs: recs[-2]["masks"].pop(), "masks for"),
    (lambda recs: [recs.remove(r) for r in list(recs) if r["bench"] == "l2_slice_pages_refs"],
     "no l2_slice_pages_refs"),
    (lambda recs: recs[5].pop("us"), "lacks a field"),
    (lambda recs: recs.pop(5), "have no l2_slice_pages_refs record"),
])
def test_malformed_input_is_one_line(tmp_path, sl, mangle, needle):
    path = tmp_path / "bad.jsonl"
    write_run(path, sl, [0, 1], mangle=mangle)
    with pytest.raises(PerfmodelError, match=needle):
        lsp.load_pages(path)
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks/l2_slice_pages.py"), "--data", str(path)],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error:") and "Traceback" not in res.stderr


def test_missing_file_is_one_line(tmp_path):
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks/l2_slice_pages.py"), "--data",
                          str(tmp_path / "none")], capture_output=True, text=True)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and res.stderr.startswith("error:")
