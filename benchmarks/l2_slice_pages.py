"""How the H100's L2 slices move from one 2 MiB page to the next (mb_pitch --l2-slice-pages, and the latency map's
other pages), and whether the box-pitch tables' in-step lines load the slices unevenly at the bad pitches.

    python3 benchmarks/l2_slice_pages.py [--data DIR|FILE] [--draws 8] [--all-pages] [--no-predict]
    python3 benchmarks/l2_slice_pages.py --print-plan     (the program's references, codes and sample, as C arrays)

The one-page map m (data/microbench/l2_slice_map_h100: labels s = 4 quad + 2 kind + partition as
benchmarks/l2_slice_map.py decodes it; a slice contends with its two neighbours in its quad's 4-cycle). The records
(data/microbench/l2_slice_pages_h100): a buffer allocated as mb_tma --box-pitch-table's; a reference line of each of the
80 labels at the same offsets of its first page; every pair of references hammered once; then (if the program got that
far) 128 sample lines at the same offsets of many pages, each with every slot (a chunk of references).

1. The calibration.
2. The references in the buffer's first page: the pairs' three levels (Otsu: fast, middle = neighbours, top = one
   slice), the distinct slices they sit on, whether they form 20 4-cycles (as any relabelling of m would), and the
   in-page XOR offset d whose map m(x ^ d) predicts the most pairs' levels (the offsets that tie, and how m at them
   relates to m at d: identical, a relabelling keeping the cycles, ...). The first call's three pairs
   (first_call.jsonl.xz beside the records, if there) against that d.
3-6. (A run that measured pages.) Every sample line decoded (the reference whose pattern, the slots holding it or a
   reference contending with it, is nearest its slow slots); per page the relabelling sigma_p of m, its linear part
   (class XOR k_p over m's 4 XOR masks), the partition flip, the quads, the best in-page offset; whether they are
   linear in the page bits; the tables with the measured maps.
7. The latency map's buffer (data/microbench/l2_latency_map_h100, another card): the atomic latency of every line of
   its first page from 10 SMs gives each slice of m a latency signature; for each other page (512 lines), the offsets d
   whose m(x ^ d) gives every line its slice's signature (within 2.5 cycles); then the generators g_b (page bit 21 + b)
   with each page's d = the XOR of the g_b of its bits among its ties.
8. The box-pitch tables (128-row boxes, aligned pitches; in-step lines r x pitch + j x 128, r < ctas x 128, j < 8,
   offsets from the buffer's first page) with page p's slice of line x = m(x ^ d_p): (A) d_p = 0 (the one-page
   analysis), (B) d_p = d (section 2) XOR the generators of section 7 over the page's bits 21-23, the bits above left
   out, (C) the same with random generators for bits 24-36 from a random physical base page (draws), (D) every page its
   own random d (draws). Spearman of the rate with the max over mean of the lines' counts over the slices / quads /
   partitions, (a) the whole set and (s) per k-block step averaged, also with the pitch partialled out; the H200's
   table as a check (its map unmeasured). Then the GEMM family's good and bad pitches (9216x4096xK, docs/calibrate.md).

Prints numbers; changes no file.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from l2_partition_map import (LINE_BITS, PAGE_BITS, TABLES, _name, instep_offsets, load_map, otsu,  # noqa: E402
                              parity, read_table, read_text)
from l2_slice_map import (DATA as MAP_DATA, LATENCY, PAGE_LINES, PARTITION_MASK, constant_masks,  # noqa: E402
                          decode_group, load_run, neighbours, pair_levels, slot_matrix, spread)
from perfmodel.calibration.stats import partial_spearman, spearman  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.microbench import MicrobenchError  # noqa: E402
from perfmodel.microbench.runner import parse_records  # noqa: E402

DATA = ROOT / "data/microbench/l2_slice_pages_h100"
NSLICES = 80
GEMM_PITCHES = {"good": (16384, 18432, 32768), "bad": (22016, 31744, 33792)}
# kind-0 reference a (slice 4 (a // 2) + a % 2): 7-bit codes, each bit 1 for 20 of them (a local search for few close
# patterns among the 80 slices' slot patterns); mb_pitch.cu's kPageCodes
CODES = (53, 51, 26, 126, 77, 125, 49, 83, 98, 122, 65, 106, 88, 1, 96, 68, 15, 45, 119, 85, 43, 103, 0, 44, 16, 82,
         63, 21, 95, 123, 28, 100, 30, 25, 6, 34, 9, 40, 110, 70)


# ---------------------------------------------------------------- the records
@dataclass
class PagesRun:
    device: dict
    buffer: dict
    cal: dict
    pair_us: np.ndarray                          # (80, 80): reference pairs; the diagonal: each alone
    refcheck: dict
    load: dict
    plan: dict
    slots: list[list[int]]                       # the reference labels of each slot
    refs: np.ndarray                             # each label's reference line (in-page line index)
    sample: np.ndarray                           # the sample's in-page line indices
    pages: np.ndarray                            # the pages measured, in order
    masks: np.ndarray                            # (pages, lines) slow-slot bit masks
    page_info: np.ndarray                        # (pages, 4): cut, lo, hi us, times within 10% of the cut
    summary: dict = field(default_factory=dict)
    stop: dict = field(default_factory=dict)


def _fail(path: Path, what: str) -> PerfmodelError:
    return PerfmodelError(f"{_name(path)}: {what}")


def load_pages(path: Path) -> PagesRun:
    """The records of one --l2-slice-pages output (the '_raw' records, if there, are skipped)."""
    text = read_text(path)
    try:
        recs = parse_records(text)
    except MicrobenchError as e:
        raise _fail(path, str(e)) from None
    by: dict[str, list[dict]] = {}
    for r in recs:
        by.setdefault(r["bench"], []).append(r)
    for need in ("l2_slice_pages_buffer", "l2_slice_pages_cal"):
        if need not in by:
            raise _fail(path, f"no {need} record (not an --l2-slice-pages output?)")
    stop = by.get("l2_slice_pages_stop", [{}])[0]
    if "l2_slice_pages_refs" not in by:
        raise _fail(path, f"no l2_slice_pages_refs records (the program stopped after {stop.get('after', '?')})")
    try:
        pair = np.full((NSLICES, NSLICES), np.nan)
        refs = np.full(NSLICES, -1, dtype=np.int64)
        for r in by.get("l2_slice_pages_refs", []):
            s, us = int(r["slice"]), np.asarray(r["us"], dtype=float)
            if not 0 <= s < NSLICES or us.shape != (NSLICES,) or int(r["offset"]) % 128:
                raise _fail(path, f"an l2_slice_pages_refs record has slice {s}, {us.size} times or an unaligned "
                                  f"offset")
            pair[s], refs[s] = us, int(r["offset"]) // 128
        if (refs < 0).any():
            raise _fail(path, f"{int((refs < 0).sum())} references have no l2_slice_pages_refs record")
        plan = by.get("l2_slice_pages_plan", [{}])[0]
        slots = [[int(v) for v in sl] for sl in plan.get("slot_slices", [])]
        sample = np.asarray(plan.get("sample", []), dtype=np.int64)
        if plan and (len(slots) != int(plan["slots"]) or len(sample) != int(plan["lines"])
                     or not np.array_equal(np.asarray(plan["refs"], dtype=np.int64) // 128, refs)):
            raise _fail(path, "the l2_slice_pages_plan record's slots, refs or sample do not match")
        if any(v < 0 or v >= NSLICES for sl in slots for v in sl) or (sample % 128).any():
            raise _fail(path, "the l2_slice_pages_plan record has a slot label out of range or an unaligned line")
        if len(slots) > 63:
            raise _fail(path, f"{len(slots)} slots: a mask holds at most 63")
        pages, masks, info = [], [], []
        for r in by.get("l2_slice_pages_page", []):
            m = np.asarray([int(v) for v in r["masks"]], dtype=np.int64)
            if not plan or m.shape != sample.shape or (m < 0).any() or (m >> len(slots)).any():
                raise _fail(path, f"page {r.get('page')}: {m.size} masks for {sample.size} lines, or a mask out of "
                                  f"range")
            pages.append(int(r["page"]))
            masks.append(m)
            info.append([float(r["cut_us"]), float(r["lo_us"]), float(r["hi_us"]), float(r["near"])])
    except (KeyError, TypeError, ValueError) as e:
        raise _fail(path, f"an l2_slice_pages record lacks a field or is malformed ({e})") from None
    if len(set(pages)) != len(pages):
        raise _fail(path, "a page is measured twice")
    return PagesRun(by.get("device", [{}])[0], by["l2_slice_pages_buffer"][0], by["l2_slice_pages_cal"][0], pair,
                    by.get("l2_slice_pages_refcheck", [{}])[0], by.get("l2_slice_pages_load", [{}])[0], plan, slots,
                    refs, sample // 128, np.asarray(pages, dtype=np.int64),
                    np.asarray(masks, dtype=np.int64).reshape(len(pages), len(sample)),
                    np.asarray(info, dtype=float).reshape(len(pages), 4), by.get("l2_slice_pages_summary", [{}])[0],
                    stop)


def committed_map(path: Path = MAP_DATA / "l2_slice_map.jsonl.xz") -> np.ndarray:
    """The one-page slice map (label 4 quad + 2 kind + partition of each line), decoded as benchmarks/l2_slice_map.py
    decodes it."""
    run = load_run(path)
    if "refs" not in run.plan:
        raise PerfmodelError(f"{_name(path)}: no group test")
    refs = np.asarray(run.plan["refs"], dtype=np.int64) // 128
    dec = decode_group(run.group_us, run.group_lines, slot_matrix(run.plan["slot_classes"], len(refs)),
                       parity(refs, PARTITION_MASK))
    if (dec.slice_of < 0).any() or dec.slice_of.max() != NSLICES - 1:
        raise PerfmodelError(f"{_name(path)}: the map does not give all 80 slices to every line")
    return dec.slice_of


def make_plan(sl: np.ndarray, seed: int = 2026) -> tuple[list[int], list[int]]:
    """(references: a line of each label, the group test's reference where it is one; sample: a line of each label,
    then 3 more lines of 3 labels of each linear class), as mb_pitch.cu's kPageRefs and kPageSample."""
    run = load_run(MAP_DATA / "l2_slice_map.jsonl.xz")
    grefs = [int(r) // 128 for r in run.plan["refs"]]
    rng = np.random.default_rng(seed)
    refs = []
    for s in range(NSLICES):
        g = [r for r in grefs if sl[r] == s]
        refs.append(g[0] if g else int(rng.choice(np.nonzero(sl == s)[0])))
    cls = linear_class(sl)
    sample: list[int] = []
    for s in range(NSLICES):
        sample.append(int(rng.choice([c for c in np.nonzero(sl == s)[0] if c not in refs])))
    for c in range(int(cls.max()) + 1):
        for s in rng.choice([s for s in range(NSLICES) if cls[s] == c], 3, replace=False):
            sample.append(int(rng.choice([v for v in np.nonzero(sl == s)[0] if v not in refs and v not in sample])))
    return refs, sample


# ---------------------------------------------------------------- decoding
def linear_class(sl: np.ndarray) -> np.ndarray:
    """Each label's linear class: the parities of the XOR masks constant on every slice, as an integer."""
    masks = constant_masks(sl)
    x = np.array([int(np.nonzero(sl == s)[0][0]) for s in range(int(sl.max()) + 1)])
    return sum(parity(x, m) << i for i, m in enumerate(masks)).astype(np.int64)


def contention(pair_us: np.ndarray) -> tuple[float, np.ndarray]:
    """(cut, slow[a, b]): Otsu's split of the logs of the reference pairs' times."""
    iu = np.triu_indices(NSLICES, 1)
    v = pair_us[iu]
    if not np.isfinite(v).all():
        raise PerfmodelError("the reference pairs are incomplete")
    cut = float(np.exp(otsu(np.log(v)).threshold))
    slow = pair_us > cut
    np.fill_diagonal(slow, False)
    return cut, slow


def quads_of(slow: np.ndarray) -> np.ndarray | None:
    """Each label's quad (0..19, by its lowest label) if the slow pairs form 20 disjoint 4-cycles, else None. The
    labels name the buffer's first page's slices by its references, so these are the physical quads there."""
    if (slow.sum(axis=1) != 2).any():
        return None
    q = np.full(NSLICES, -1, dtype=np.int64)
    n = 0
    for v in range(NSLICES):
        if q[v] >= 0:
            continue
        comp, todo = {v}, [v]
        while todo:
            for w in np.nonzero(slow[todo.pop()])[0].tolist():
                if w not in comp:
                    comp.add(w)
                    todo.append(w)
        if len(comp) != 4:
            return None
        q[list(comp)] = n
        n += 1
    return q


def patterns(slots: list[list[int]], slow: np.ndarray) -> np.ndarray:
    """pats[k, t]: slot t is slow for a line on reference k's slice (t holds k or a reference contending with k, or two
    of its references contend with each other)."""
    pats = np.zeros((NSLICES, len(slots)), dtype=bool)
    for t, sl in enumerate(slots):
        inner = any(slow[a, b] for a in sl for b in sl if a < b)
        for k in range(NSLICES):
            pats[k, t] = inner or k in sl or bool(slow[k, sl].any())
    return pats


def decode(masks: np.ndarray, pats: np.ndarray, max_dist: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(label of each line (-1: a tie or over max_dist), least distance, tie) for slow-slot masks (any shape)."""
    s = pats.shape[1]
    bits = ((masks[..., None] >> np.arange(s)) & 1).astype(bool)
    dist = (bits[..., None, :] != pats).sum(axis=-1)
    least = dist.min(axis=-1)
    tie = (dist == least[..., None]).sum(axis=-1) > 1
    return np.where(tie | (least > max_dist), -1, dist.argmin(axis=-1)), least, tie


# ---------------------------------------------------------------- one page against the one-page map
@dataclass
class Remap:
    page: int
    known: int                                   # sample lines decoded
    relabel: float                               # share explained by one label per m-slice
    sigma: np.ndarray                            # m-label -> p-label (-1: no line of it decoded)
    clashes: int                                 # p-labels taken by two m-labels
    identity: float                              # share with p-label = m-label
    k: int                                       # class(sigma(s)) ^ class(s), the modal value
    k_share: float                               # the share of the known slices at k
    flip: int                                    # partition flip (modal)
    flip_share: float
    quads_kept: bool                             # every quad's known slices go to one quad
    d: int = -1                                  # the best in-page XOR offset, its share and how many tie
    d_share: float = 0.0
    d_ties: int = 0


def remap_page(page: int, lab: np.ndarray, m_lab: np.ndarray, cls: np.ndarray, quad: np.ndarray) -> Remap:
    """sigma_p and its parts from the sample's labels in page p (lab) and in the one-page map (m_lab); quad: each
    label's quad."""
    ok = lab >= 0
    sigma = np.full(NSLICES, -1, dtype=np.int64)
    agree = 0
    for s in np.unique(m_lab[ok]):
        c = Counter(lab[ok & (m_lab == s)].tolist()).most_common(1)[0]
        sigma[s], agree = c[0], agree + c[1]
    known = int(ok.sum())
    have = sigma >= 0
    clashes = int(sum(n - 1 for n in Counter(sigma[have].tolist()).values() if n > 1))
    if clashes == 0 and (~have).sum() == 1:      # one slice not decoded: a permutation leaves it one label
        sigma[~have] = np.setdiff1d(np.arange(NSLICES), sigma[have])
        have = sigma >= 0
    ks = Counter((cls[sigma[have]] ^ cls[have]).tolist()).most_common(1)
    fl = Counter(((sigma[have] ^ np.nonzero(have)[0]) & 1).tolist()).most_common(1)
    quads_kept = all(len(set(quad[sigma[(quad == q) & have]].tolist())) <= 1 for q in np.unique(quad))
    n_have = max(1, int(have.sum()))
    return Remap(page, known, agree / max(1, known), sigma, clashes,
                 float(np.mean(lab[ok] == m_lab[ok])) if known else 0.0,
                 ks[0][0] if ks else -1, ks[0][1] / n_have if ks else 0.0,
                 fl[0][0] if fl else -1, fl[0][1] / n_have if fl else 0.0, quads_kept)


def best_offset(lab: np.ndarray, sample: np.ndarray, base: np.ndarray) -> tuple[int, float, int]:
    """(d, share, ties): the in-page XOR offset d (line index) whose base[sample ^ d] equals the most of lab."""
    ok = lab >= 0
    if not ok.any():
        return -1, 0.0, 0
    d = np.arange(len(base))[:, None]
    share = (base[d ^ sample[ok][None, :]] == lab[ok][None, :]).mean(axis=1)
    best = float(share.max())
    return int(share.argmax()), best, int((share == best).sum())


# ---------------------------------------------------------------- across pages
def power_pages(pages: np.ndarray) -> dict[int, int]:
    """bit -> the row of page 2^bit among the measured pages."""
    return {int(p).bit_length() - 1: i for i, p in enumerate(pages.tolist()) if p > 0 and p & (p - 1) == 0}


def linear_values(pages: np.ndarray, values: np.ndarray, valid: np.ndarray) -> tuple[dict[int, int], int, int]:
    """Is value(p) the XOR of value(2^i) over p's bits (value(0) XOR'd in: an affine map)? (generators, pages that
    agree, pages checked: the valid pages not 0 and not powers of two whose bits all have a valid generator)."""
    rows = power_pages(pages)
    gen = {b: int(values[i] ^ values[0]) for b, i in rows.items() if valid[i]}
    v0 = int(values[0]) if len(pages) and pages[0] == 0 and valid[0] else None
    agree = checked = 0
    for i, p in enumerate(pages.tolist()):
        if v0 is None or not valid[i] or p == 0 or p & (p - 1) == 0:
            continue
        bits = [b for b in range(int(p).bit_length()) if p >> b & 1]
        if not all(b in gen for b in bits):
            continue
        pred = v0
        for b in bits:
            pred ^= gen[b]
        checked += 1
        agree += int(pred == values[i])
    return gen, agree, checked


def compose(pages: np.ndarray, sigmas: np.ndarray, page: int) -> np.ndarray | None:
    """sigma at `page` composed from the powers of two in it (sigma_0 = the identity assumed), or None."""
    rows = power_pages(pages)
    out = np.arange(NSLICES)
    for b in range(int(page).bit_length()):
        if page >> b & 1:
            if b not in rows or (sigmas[rows[b]] < 0).any():
                return None
            out = sigmas[rows[b]][out]
    return out


def composition_check(pages: np.ndarray, sigmas: np.ndarray, complete: np.ndarray) -> tuple[int, int, int]:
    """(pages whose measured sigma equals the composition of its bits' sigmas, pages checked, generator pairs that
    commute of those checked)."""
    agree = checked = 0
    for i, p in enumerate(pages.tolist()):
        if p == 0 or p & (p - 1) == 0 or not complete[i]:
            continue
        c = compose(pages, sigmas, p)
        if c is None:
            continue
        checked += 1
        agree += int((c == sigmas[i]).all())
    rows = power_pages(pages)
    gens = [sigmas[i] for b, i in sorted(rows.items()) if complete[i]]
    commute = sum(int((a[b] == b[a]).all()) for j, a in enumerate(gens) for b in gens[j + 1:])
    return agree, checked, commute


def cycle_type(sigma: np.ndarray) -> str:
    """The cycle lengths of a permutation of the labels, as 'length x count'."""
    seen = np.zeros(len(sigma), dtype=bool)
    lengths = []
    for s in range(len(sigma)):
        n = 0
        while not seen[s]:
            seen[s] = True
            s = int(sigma[s])
            n += 1
        if n:
            lengths.append(n)
    return " ".join(f"{n}x{c}" for n, c in sorted(Counter(lengths).items()))


# ---------------------------------------------------------------- the map of every page, and the pitch tables
def page_maps(run: PagesRun, sigmas: np.ndarray, complete: np.ndarray, npages: int, predict: bool) -> np.ndarray:
    """(npages, 80): each page's sigma (measured where complete; else composed from the powers of two if predict),
    rows of -1 where unknown."""
    out = np.full((npages, NSLICES), -1, dtype=np.int64)
    for i, p in enumerate(run.pages.tolist()):
        if p < npages and complete[i]:
            out[p] = sigmas[i]
    if predict:
        for p in range(npages):
            if out[p, 0] < 0:
                c = compose(run.pages, sigmas, p)
                if c is not None:
                    out[p] = c
    return out


def imbalance(pitch: int, rows: int, lines_per_row: int, m_map: np.ndarray, maps: np.ndarray,
              groups=(1, 4, 0), quad: np.ndarray | None = None) -> list[tuple[float, float]] | None:
    """Per group, (a) max / mean of the in-step lines' counts over the groups of labels ((s) the same per step j,
    averaged), with page p's label of line x = maps[p, m_map[x]]; None if a page is unknown. group 1: slices; 4: quads
    (quad[label], default label // 4); 0: the partition (label & 1)."""
    off = instep_offsets(pitch, rows, lines_per_row)
    pg = off >> PAGE_BITS
    if pg.max() >= len(maps):
        return None
    used = np.bincount(pg.ravel(), minlength=len(maps)) > 0
    if (maps[used, 0] < 0).any():
        return None
    full = maps[pg, m_map[(off >> LINE_BITS) & (PAGE_LINES - 1)]]
    res = group_counts(full, rows, lines_per_row, quad)
    return [res[{1: 0, 4: 1, 0: 2}[g]] for g in groups]


# ---------------------------------------------------------------- a page as the one-page map at x ^ d
def neighbour_matrix() -> np.ndarray:
    nb = np.zeros((NSLICES, NSLICES), dtype=bool)
    for s in range(NSLICES):
        nb[s, list(neighbours(s))] = True
    return nb


def ref_levels(pair_us: np.ndarray) -> tuple[float, float, np.ndarray]:
    """(cut fast / slow, cut middle / top, level[a, b]: 0 fast, 1 middle (a neighbour in a quad's cycle), 2 top (one
    slice)) of the reference pairs, by Otsu's splits of the logs (l2_slice_map.pair_levels)."""
    iu = np.triu_indices(NSLICES, 1)
    if not np.isfinite(pair_us[iu]).all():
        raise PerfmodelError("the reference pairs are incomplete")
    c1, c2, lv = pair_levels(pair_us[iu])
    level = np.zeros((NSLICES, NSLICES), dtype=np.int64)
    level[iu] = lv
    return c1, c2, level + level.T


def groups_of(rel: np.ndarray) -> np.ndarray:
    """The connected components of a symmetric relation, numbered from 0 in order of their lowest member."""
    g = np.full(len(rel), -1, dtype=np.int64)
    n = 0
    for v in range(len(rel)):
        if g[v] >= 0:
            continue
        g[v], todo = n, [v]
        while todo:
            for w in np.nonzero(rel[todo.pop()])[0].tolist():
                if g[w] < 0:
                    g[w] = n
                    todo.append(w)
        n += 1
    return g


def offset_scores(level: np.ndarray, refs: np.ndarray, m_map: np.ndarray) -> np.ndarray:
    """For every in-page XOR offset d (a line index): the share of the reference pairs whose level the one-page map
    at x ^ d predicts (one slice 2, neighbours in its quads' cycles 1, else 0)."""
    nb = neighbour_matrix()
    iu = np.triu_indices(len(refs), 1)
    want = level[iu]
    out = np.empty(len(m_map))
    for d0 in range(0, len(m_map), 512):
        s = m_map[np.arange(d0, min(len(m_map), d0 + 512))[:, None] ^ refs[None, :]]
        a, b = s[:, iu[0]], s[:, iu[1]]
        out[d0:d0 + len(s)] = (np.where(a == b, 2, np.where(nb[a, b], 1, 0)) == want).mean(axis=1)
    return out


def map_kind(m_map: np.ndarray, e: int) -> str:
    """How the map at x ^ e relates to the map: 'identical', 'relabel (cycles kept)', 'relabel' or 'other'."""
    b = m_map[np.arange(len(m_map)) ^ e]
    if np.array_equal(b, m_map):
        return "identical"
    perm = dict(zip(m_map.tolist(), b.tolist()))
    if len(set(zip(m_map.tolist(), b.tolist()))) != len(perm) or len(set(perm.values())) != len(perm):
        return "other"
    kept = all({perm[t] for t in neighbours(s)} == set(neighbours(perm[s])) for s in perm)
    return "relabel (cycles kept)" if kept else "relabel"


def addr_bits(d: int) -> list[int]:
    """The address bits of an in-page line offset, bits 7 and 9 left out (they never move a slice)."""
    return [b + LINE_BITS for b in range(PAGE_BITS - LINE_BITS) if d >> b & 1 and b + LINE_BITS not in (7, 9)]


# ---------------------------------------------------------------- the latency map's pages
def latency_signatures(path: Path = LATENCY) -> tuple[np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]]]:
    """(atomic latency of every line of the buffer's first page from each SM of the main set: (16384, SMs); per other
    page, its lines and their latencies) from an --l2-latency-map output."""
    _, main, _, _ = load_map(path)
    sms = sorted(main)
    sig0 = np.full((PAGE_LINES, len(sms)), np.nan)
    rest: dict[int, dict[int, np.ndarray]] = {}
    for j, sm in enumerate(sms):
        pr = main[sm]
        x = pr.offsets >> LINE_BITS
        pg, ln, a = x >> (PAGE_BITS - LINE_BITS), x & (PAGE_LINES - 1), pr.cycles["atom_min"]
        sig0[ln[pg == 0], j] = a[pg == 0]
        for p in np.unique(pg[pg > 0]).tolist():
            k = pg == p
            for line, v in zip(ln[k].tolist(), a[k].tolist()):
                rest.setdefault(p, {}).setdefault(line, np.full(len(sms), np.nan))[j] = v
    if np.isnan(sig0).any():
        raise PerfmodelError(f"{_name(path)}: the first page is not complete for every SM")
    pages = {}
    for p, d in sorted(rest.items()):
        lines = np.array(sorted(k for k, v in d.items() if np.isfinite(v).all()), dtype=np.int64)
        pages[p] = (lines, np.array([d[k] for k in lines.tolist()]).reshape(len(lines), len(sms)))
    return sig0, pages


def signature_scores(sig0: np.ndarray, m_map: np.ndarray, lines: np.ndarray, sig: np.ndarray,
                     tol: float = 2.5) -> np.ndarray:
    """For every in-page XOR offset d: the share of the lines whose latencies (every SM) lie within tol cycles of the
    first page's slice m(x ^ d) (its median latency from each SM)."""
    med = np.array([np.median(sig0[m_map == s], axis=0) for s in range(int(m_map.max()) + 1)])
    out = np.empty(len(m_map))
    for d0 in range(0, len(m_map), 256):
        lab = m_map[np.arange(d0, min(len(m_map), d0 + 256))[:, None] ^ lines[None, :]]
        out[d0:d0 + len(lab)] = (np.abs(med[lab] - sig[None]).max(axis=2) <= tol).mean(axis=1)
    return out


def linear_solutions(ties: dict[int, set[int]], limit: int = 200000) -> list[dict[int, int]]:
    """Generators g (page bit -> offset, from the tie sets of the powers of two) with every other page's offsets
    XOR'd from them among its ties (page 0 offset 0): an XOR-linear map of the page bits."""
    bits = sorted(p.bit_length() - 1 for p in ties if p and p & (p - 1) == 0)
    sizes = [len(ties[1 << b]) for b in bits]
    if not bits or np.prod(sizes, dtype=float) > limit:
        return []
    out = []
    for choice in itertools.product(*(sorted(ties[1 << b]) for b in bits)):
        g = dict(zip(bits, choice))
        ok = True
        for p, t in ties.items():
            if p and p & (p - 1) and all(p >> b & 1 == 0 or b in g for b in range(p.bit_length())):
                v = 0
                for b in range(p.bit_length()):
                    if p >> b & 1:
                        v ^= g[b]
                ok = ok and v in t
        if ok:
            out.append(g)
    return out


# ---------------------------------------------------------------- the XOR model over many pages
def xor_offsets(npages: int, gens: dict[int, int], base_page: int = 0, d_base: int = 0) -> np.ndarray:
    """d_p for pages 0..npages-1: d_base XOR the generators of the bits of base_page + p (bit i: page bit 21 + i)."""
    phys = base_page + np.arange(npages, dtype=np.int64)
    d = np.full(npages, d_base, dtype=np.int64)
    for b, g in gens.items():
        d ^= np.where(phys >> b & 1, g, 0)
    return d


def imbalance_xor(pitch: int, rows: int, lines_per_row: int, m_map: np.ndarray,
                  d_pages: np.ndarray) -> list[tuple[float, float]] | None:
    """As imbalance, with page p's slice of line x = m(x ^ d_pages[p]); None past the pages given."""
    off = instep_offsets(pitch, rows, lines_per_row)
    pg = off >> PAGE_BITS
    if pg.max() >= len(d_pages):
        return None
    full = m_map[((off >> LINE_BITS) & (PAGE_LINES - 1)) ^ d_pages[pg]]
    return group_counts(full, rows, lines_per_row)


def group_counts(full: np.ndarray, rows: int, lines_per_row: int,
                 quad: np.ndarray | None = None) -> list[tuple[float, float]]:
    """(a, s) over the slices, the quads (quad[label], default label // 4) and the partitions (label & 1) of the
    labels of the in-step lines (rows, lines_per_row)."""
    quad = np.arange(NSLICES) // 4 if quad is None else quad
    return [spread(lab, g) for lab, g in ((full, NSLICES), (quad[full], NSLICES // 4), (full & 1, 2))]


# ---------------------------------------------------------------- the report
GROUPS = (("slices", 1), ("quads", 4), ("partitions", 0))


def analyse(run: PagesRun, m_map: np.ndarray) -> tuple[np.ndarray, list[Remap], np.ndarray]:
    """(the sample's labels (pages, lines), each page's remap, the decode's least distances)."""
    _, slow = contention(run.pair_us)
    pats = patterns(run.slots, slow)
    lab, least, _ = decode(run.masks, pats)
    cls = linear_class(m_map)
    m_lab = m_map[run.sample]
    quad = label_quads(slow)
    remaps = [remap_page(int(p), lab[i], m_lab, cls, quad) for i, p in enumerate(run.pages.tolist())]
    return lab, remaps, least


def label_quads(slow: np.ndarray) -> np.ndarray:
    """The measured quads (quads_of), or the one-page map's (label // 4) where the pairs do not form 4-cycles."""
    q = quads_of(slow)
    return np.arange(NSLICES) // 4 if q is None else q


def report_sampled(run: PagesRun, m_map: np.ndarray, all_pages: bool, predict: bool, tables: dict[str, str]) -> None:
    """Sections 3-6: the sample of every page decoded, each page against the one-page map, linearity, the tables."""
    b = run.buffer
    _, slow = contention(run.pair_us)
    quad = label_quads(slow)
    ld = run.load
    if ld:
        print(f"\n  design {run.plan.get('design', '?')}; load: family 0's first {ld.get('family0_lines')} references "
              f"together: {ld.get('family0_us')} us; the other families' 20 {ld.get('other_families_20_us')}; quarter "
              f"point {ld.get('quarter_us', 0):.1f}; chunk {ld.get('chunk', 0):.0f}, {len(run.slots)} slots")
    lab, remaps, least = analyse(run, m_map)
    print(f"\n3. the sample decoded ({run.masks.size} lines): least distance "
          + ", ".join(f"{d}: {n}" for d, n in sorted(Counter(least.ravel().tolist()).items()))
          + f"; labels for {int((lab >= 0).sum())}; per page Otsu: cut {np.median(run.page_info[:, 0]):.0f} us, fast "
          f"{np.median(run.page_info[:, 1]):.1f}, slow {np.median(run.page_info[:, 2]):.1f} (medians), times within 10%"
          f" of the cut {np.median(run.page_info[:, 3]):.0f} a page (median; max {run.page_info[:, 3].max():.0f})")

    base = m_map
    for rm in remaps:
        rm.d, rm.d_share, rm.d_ties = best_offset(lab[run.pages.tolist().index(rm.page)], run.sample, base)
    print("\n4. each page against the one-page map (m): relabel share, clashes, identity, k (linear-class XOR) and "
          "its share, partition flip, quads kept, best in-page XOR offset d (share, ties)")
    for rm in remaps:
        p = rm.page
        if all_pages or p < 16 or (p & (p - 1) == 0):
            print(f"  page {p:4d}: {rm.known:3d} lines, relabel {rm.relabel:.3f}, clashes {rm.clashes}, identity "
                  f"{rm.identity:.3f}, k {rm.k:2d} ({rm.k_share:.2f}), flip {rm.flip} ({rm.flip_share:.2f}), quads "
                  f"{'kept' if rm.quads_kept else 'not kept'}; d {rm.d} ({rm.d_share:.2f}, {rm.d_ties} ties)")
    rel = np.array([rm.relabel for rm in remaps])
    complete = np.array([(rm.sigma >= 0).all() and rm.clashes == 0 and rm.relabel >= 0.98 for rm in remaps])
    print(f"  all {len(remaps)} pages: relabel share min {rel.min():.3f}, median {np.median(rel):.3f}; pages with a "
          f"complete one-to-one sigma (relabel >= 0.98) {int(complete.sum())}; k's share min "
          f"{min(rm.k_share for rm in remaps):.2f}; flip's share min {min(rm.flip_share for rm in remaps):.2f}; quads "
          f"kept on {sum(rm.quads_kept for rm in remaps)}; identity on "
          f"{sum(rm.identity >= 0.98 for rm in remaps)}; best XOR offset share median "
          f"{np.median([rm.d_share for rm in remaps]):.3f} (>= 0.95 on {sum(rm.d_share >= 0.95 for rm in remaps)})")
    print("  distinct sigmas: " + str(len({tuple(rm.sigma.tolist()) for rm, ok in zip(remaps, complete) if ok}))
          + "; k values " + ", ".join(f"{k}: {n}" for k, n in sorted(Counter(rm.k for rm in remaps).items())))

    print("\n5. linear in the page's bits? (value at p = value at 0 XOR the values at p's powers of two)")
    sig = np.array([rm.sigma for rm in remaps]).reshape(len(remaps), NSLICES)
    for name, vals, valid in (("k", np.array([rm.k for rm in remaps]), np.array([rm.k_share >= 0.98 for rm in remaps])),
                              ("partition flip", np.array([rm.flip for rm in remaps]),
                               np.array([rm.flip_share >= 0.98 for rm in remaps])),
                              ("d", np.array([rm.d for rm in remaps]), np.array([rm.d_share >= 0.95 and rm.d_ties
                                                                                  <= 4 for rm in remaps]))):
        gen, agree, checked = linear_values(run.pages, vals, valid)
        print(f"  {name}: generators (page bit: value) " + ", ".join(f"{bb + 21}: {v}" for bb, v in sorted(gen.items()))
              + f"; {agree} of {checked} other pages as predicted")
    agree, checked, commute = composition_check(run.pages, sig, complete)
    n_gen = sum(complete[i] for i in power_pages(run.pages).values())
    print(f"  sigma: {agree} of {checked} pages equal the composition of their bits' sigmas; {commute} of "
          f"{n_gen * (n_gen - 1) // 2} generator pairs commute")
    for bb, i in sorted(power_pages(run.pages).items()):
        if complete[i]:
            fixed = int((sig[i] == np.arange(NSLICES)).sum())
            kept = "kept" if remaps[i].quads_kept else "not kept"
            print(f"    page bit {bb + 21}: sigma's cycles {cycle_type(sig[i])}; fixed slices {fixed}, quads {kept}, "
                  f"k {remaps[i].k}, flip {remaps[i].flip}")

    print("\n6. the box-pitch tables (128-row boxes, aligned pitches) with every page's map as measured")
    npages = int(b.get("pages", 0)) or int(run.pages.max()) + 1
    maps = page_maps(run, sig, complete, npages, predict)
    print(f"  pages known: {int((maps[:, 0] >= 0).sum())} of {npages} ({int(complete.sum())} measured"
          f"{', the rest composed from the powers of two' if predict else ''})")
    cache: dict[int, list[tuple[float, float]] | None] = {}

    def imb(p: int, rows: int) -> list[tuple[float, float]] | None:
        if (p, rows) not in cache:
            cache[(p, rows)] = imbalance(p, rows, 8, m_map, maps, tuple(grp for _, grp in GROUPS), quad)
        return cache[(p, rows)]
    for card, folder in tables.items():
        gpu, ctas, table = read_table(ROOT / folder, 128)
        rows = ctas * 128
        pitches, rate, got = [], [], []
        for p in sorted(table):
            v = imb(p, rows)
            if v is not None:
                pitches.append(p)
                rate.append(table[p])
                got.append(v)
        skipped = len(table) - len(pitches)
        if len(pitches) < 3:
            print(f"  {card}: {len(pitches)} pitches with every page known ({skipped} not)")
            continue
        slow10 = np.argsort(rate)[:10]
        print(f"  {card} ({gpu}{', map unmeasured' if 'H200' in gpu else ''}): {len(pitches)} pitches "
              f"({pitches[0]}..{pitches[-1]} B; {skipped} with a page unknown), rate ~ pitch "
              f"{spearman(rate, pitches):+.3f}")
        for gi, (g, _) in enumerate(GROUPS):
            v = np.array([x[gi] for x in got])
            print(f"    {g:10s}: Spearman(rate, a) {spearman(rate, v[:, 0]):+.3f} (pitch out "
                  f"{partial_spearman(rate, v[:, 0], pitches):+.3f}), (rate, s) {spearman(rate, v[:, 1]):+.3f} "
                  f"(pitch out {partial_spearman(rate, v[:, 1], pitches):+.3f}); median a {np.median(v[:, 0]):.3f} s "
                  f"{np.median(v[:, 1]):.3f}; the 10 slowest: a {np.median(v[slow10, 0]):.3f} s "
                  f"{np.median(v[slow10, 1]):.3f}; max a {v[:, 0].max():.3f} s {v[:, 1].max():.3f}")
    print("  the GEMM family's pitches (9216x4096xK; box-table geometry, 132 CTAs x 128 rows): a / s")
    for kind, ps in GEMM_PITCHES.items():
        for p in ps:
            v = imb(p, 132 * 128)
            print(f"    {kind} {p:6d} B (K {p // 2}): " + ("pages unknown" if v is None else "; ".join(
                f"{g} {a:.3f} / {st:.3f}" for (g, _), (a, st) in zip(GROUPS, v))))


def _band(vals) -> str:
    v = np.asarray(vals, dtype=float)
    return f"{np.median(v):+.3f} [{v.min():+.3f}, {v.max():+.3f}]"


def load_first_call(path: Path) -> dict:
    """The first call's calibration (its references' pairs (0, 4), (0, 2) and reference 0 with its line ^ 1)."""
    try:
        cal = next(r for r in parse_records(read_text(path)) if r["bench"] == "l2_slice_pages_cal")
        return {"single_us": float(cal["single_us"]),
                "pairs": {(0, 4): float(cal["other_us"]), (0, 2): float(cal["neighbour_us"]),
                          (0, -1): float(cal["same_us"])}}
    except (StopIteration, KeyError, TypeError, ValueError, MicrobenchError) as e:
        raise _fail(path, f"no usable l2_slice_pages_cal record ({e})") from None


def pred_level(m_map: np.ndarray, refs: np.ndarray, d: int, a: int, b: int) -> int:
    """The level the one-page map at x ^ d predicts for references a and b (b = -1: a's line ^ 1)."""
    sa = m_map[refs[a] ^ d]
    sb = m_map[(refs[a] ^ 1 if b < 0 else refs[b]) ^ d]
    return 2 if sa == sb else 1 if sb in neighbours(int(sa)) else 0


def report(path: Path, m_map: np.ndarray, all_pages: bool = False, predict: bool = True,
           tables: dict[str, str] | None = None, draws: int = 8, latency: Path | None = LATENCY,
           first_call: Path | None = None) -> int:
    run = load_pages(path)
    tables = TABLES if tables is None else tables
    b, c = run.buffer, run.cal
    print(f"{_name(path)}: {run.device.get('name', '?')}; buffer {b.get('bytes', 0) / 2 ** 30:.2f} GiB, base "
          f"{b.get('base_mod_2mib', 0):.0f} past a 2 MiB boundary, {b.get('pages', 0):.0f} whole pages, "
          f"{b.get('buf_minus_big_mib', 0):.0f} MiB from the 1 GiB buffer allocated before it; {len(run.pages)} pages "
          f"measured" + (f"; the program stopped after '{run.stop.get('after')}'" if run.stop else ""))
    if b.get("base_mod_2mib", 0) or b.get("first_page_offset", 0):
        print("  the buffer's first whole page is not at its offset 0: the pages below count from that page")
    print(f"\n1. calibration (us, q {c.get('q_cal', 0):.0f}): alone {c.get('single_us', 0):.1f}, with 24 other "
          f"references {c.get('other_us', 0):.1f} (median; max {c.get('others_max_us', 0):.1f}), a line with its "
          f"line ^ 1 {c.get('same_us', 0):.1f}; then q {c.get('q', 0):.0f}")

    print("\n2. the references (a line of each slice of the one-page map, the same offsets) in the buffer's first page")
    c1, c2, level = ref_levels(run.pair_us)
    single = float(np.median(np.diag(run.pair_us)))
    c1_ratio, c2_ratio = c1 / single, c2 / single
    iu = np.triu_indices(NSLICES, 1)
    lv, us = level[iu], run.pair_us[iu]
    print(f"  {len(lv)} pairs in three levels (cuts {c1:.1f}, {c2:.1f} us): "
          + ", ".join(f"{name} {int((lv == k).sum())} (median {np.median(us[lv == k]) if (lv == k).any() else 0:.1f})"
                      for k, name in enumerate(("fast", "middle", "top"))))
    same = groups_of(level == 2)
    slow_deg = (level > 0).sum(axis=1)
    print(f"  one slice (top): {same.max() + 1} distinct slices among the 80 references (groups of "
          + ", ".join(f"{n}: {k}" for n, k in sorted(Counter(np.bincount(same).tolist()).items()))
          + "); slow partners a reference " + ", ".join(f"{k}: {n}" for k, n in sorted(Counter(slow_deg.tolist())
                                                                                          .items())))
    q = quads_of(level > 0)
    print("  a relabelling of the one-page map would put the 80 on 80 slices in 20 4-cycles: "
          + ("it does" if q is not None else "it does not"))
    scores = offset_scores(level, run.refs, m_map)
    best = float(scores.max())
    ties = np.nonzero(scores == best)[0]
    d_first = int(ties.min())
    kinds = Counter(map_kind(m_map, int(e ^ d_first)) for e in ties)
    nb = neighbour_matrix()
    sd = m_map[run.refs ^ d_first]
    pred = np.where(sd[:, None] == sd[None, :], 2, np.where(nb[sd[:, None], sd[None, :]], 1, 0))[iu]
    print(f"  the one-page map at x ^ d predicts the levels of {100 * best:.2f}% of the pairs at d = {d_first} "
          f"(address bits {addr_bits(d_first)}; {len(ties)} offsets tie, as the map at d: "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + f"); next best {100 * np.unique(scores)[-2]:.2f}%"
          f", at d = 0 {100 * scores[0]:.2f}%, median {100 * np.median(scores):.2f}%")
    print("  at that d, (seen, predicted) levels: " + ", ".join(f"{k}: {n}" for k, n in
                                                              sorted(Counter(zip(lv.tolist(), pred.tolist())).items())))
    if first_call is not None and first_call.exists():
        fc = load_first_call(first_call)
        seen = {pr: 0 if t < c1_ratio * fc["single_us"] else 1 if t < c2_ratio * fc["single_us"] else 2
                for pr, t in fc["pairs"].items()}
        print(f"  {_name(first_call)} (another card; it stopped after its calibration): the pairs (0, 4), (0, 2), "
              f"(0, 0 ^ 1) ran {', '.join(f'{t:.1f}' for t in fc['pairs'].values())} us against {fc['single_us']:.1f} "
              f"alone: levels {list(seen.values())}; the one-page map at the d above predicts "
              f"{[int(pred_level(m_map, run.refs, d_first, a, b)) for a, b in fc['pairs']]}")

    if len(run.pages):
        report_sampled(run, m_map, all_pages, predict, tables)

    gens: dict[int, int] = {}
    if latency is not None:
        print(f"\n7. the latency map's pages ({_name(latency)}: another card, a 16 MiB buffer; every line of its first "
              f"page and 512 of each other, atomic latency from 10 SMs): the offsets d whose one-page map m(x ^ d) "
              f"gives every line a latency within 2.5 cycles of its slice's in the first page (from every SM)")
        sig0, pages = latency_signatures(latency)
        lat_ties: dict[int, set[int]] = {}
        for p, (lines, sig) in [(0, (np.arange(512), sig0[:512]))] + list(pages.items()):
            sc = signature_scores(sig0, m_map, lines, sig)
            t = np.nonzero(sc == sc.max())[0]
            lat_ties[p] = set(t.tolist())
            flips = sorted(set(parity(t, PARTITION_MASK).tolist()))
            print(f"  page {p} ({len(lines)} lines): {100 * sc.max():.1f}% at {len(t)} offsets (least {int(t.min())}, "
                  f"address bits {addr_bits(int(t.min()))}; partition parity {flips}); next "
                  f"{100 * np.unique(sc)[-2]:.1f}%, median {100 * np.median(sc):.1f}%")
        if 0 not in lat_ties[0]:
            print("  the first page does not fit the one-page map at d = 0: no linear solution tried")
        else:
            sols = linear_solutions(lat_ties)
            print(f"  XOR-linear in the page bits (d_p = the XOR of the generators of p's bits, each page's d among its"
                  f" ties): {len(sols)} generator choices fit every page")
            if sols:
                for bit in sorted(sols[0]):
                    choices = sorted({g[bit] for g in sols})
                    k = Counter(map_kind(m_map, v ^ choices[0]) for v in choices)
                    gens[bit] = choices[0]
                    print(f"    page bit {bit + 21}: d {choices[0]} (address bits {addr_bits(choices[0])}; partition "
                          f"flip {parity(choices[0], PARTITION_MASK)}); {len(choices)} choices, as the map at the "
                          f"first: " + ", ".join(f"{kk} {n}" for kk, n in sorted(k.items())))

    print("\n8. the box-pitch tables (128-row boxes, aligned pitches) if every page maps as the one-page map at "
          "x ^ d_p: Spearman of the rate with the imbalance a (whole set) and s (per step), slices / quads / "
          "partitions")
    npages = int(b.get("pages", 0)) or 2112
    rng = np.random.default_rng(2026)
    known = ", ".join(f"{bt + 21}" for bt in sorted(gens))
    scen = {"A": [np.zeros(npages, dtype=np.int64)],
            "B": [xor_offsets(npages, gens, 0, d_first)],
            "C": [], "D": []}
    for _ in range(draws):
        g = dict(gens)
        for bt in range(len(gens), 16):
            g[bt] = int(rng.integers(PAGE_LINES)) & ~0b101
        base = int(rng.integers(0, 40960 - npages))
        d = xor_offsets(npages, g, base) ^ xor_offsets(1, g, base)[0] ^ d_first
        scen["C"].append(d)
        scen["D"].append(rng.integers(0, PAGE_LINES, npages))
    names = {"A": "every page d = 0 (the one-page analysis)",
             "B": f"page bits {known or '(none)'} as the latency map's, the bits above 0, the first page at "
                  f"d = {d_first} (section 2)",
             "C": f"the first page at d = {d_first}, bits {known or '(none)'} as the latency map's, bits above random,"
                  f" from a random physical page ({draws} draws: median [min, max])",
             "D": f"every page its own random d ({draws} draws)"}
    data = {card: read_table(ROOT / folder, 128) for card, folder in tables.items()}
    for key in "ABCD":
        print(f"  {key}: {names[key]}")
        per_draw = []
        for d in scen[key]:
            cache: dict[tuple[int, int], list] = {}
            res = {}
            for card, (gpu, ctas, table) in data.items():
                ps = sorted(table)
                v = []
                for p in ps:
                    kk = (p, ctas * 128)
                    if kk not in cache:
                        cache[kk] = imbalance_xor(p, ctas * 128, 8, m_map, d)
                    v.append(cache[kk])
                res[card] = (ps, [table[p] for p in ps], np.array(v))
            gem = {p: imbalance_xor(p, 132 * 128, 8, m_map, d) for ps in GEMM_PITCHES.values() for p in ps}
            per_draw.append((res, gem))
        for card, (gpu, ctas, table) in data.items():
            tag = f"{card} ({gpu}{', map unmeasured' if 'H200' in gpu else ''})"
            for label, fn in (("", lambda ps, rate, x: spearman(rate, x)),
                              ("pitch out", lambda ps, rate, x: partial_spearman(rate, x, ps))):
                cells = []
                for gi, (g, _) in enumerate(GROUPS):
                    for k, nm in ((0, "a"), (1, "s")):
                        vals = [fn(*r[card][:2], r[card][2][:, gi, k]) for r, _ in per_draw]
                        cells.append(f"{g} {nm} " + (f"{vals[0]:+.3f}" if len(vals) == 1 else _band(vals)))
                print(f"    {tag}{' ' + label if label else ''}: " + "; ".join(cells))
        card0 = next(iter(data), None)
        if card0:
            v = np.concatenate([r[card0][2] for r, _ in per_draw])
            print(f"    imbalance over the pitches (median): slices a {np.median(v[:, 0, 0]):.3f} s "
                  f"{np.median(v[:, 0, 1]):.3f}, quads a {np.median(v[:, 1, 0]):.3f}, partitions a "
                  f"{np.median(v[:, 2, 0]):.3f}")
        for kind, ps in GEMM_PITCHES.items():
            cells = []
            for p in ps:
                a = [gem[p][0][0] for _, gem in per_draw]
                st = [gem[p][0][1] for _, gem in per_draw]
                cells.append(f"{p} a {np.median(a):.3f} s {np.median(st):.3f}" + (
                    f" (s {min(st):.3f}-{max(st):.3f})" if len(per_draw) > 1 else ""))
            print(f"    GEMM {kind} pitches, slices: " + "; ".join(cells))
    return 0


def print_plan() -> int:
    sl = committed_map()
    refs, sample = make_plan(sl)

    def wrap(vals) -> str:
        out, line = [], "    "
        for v in vals:
            if len(line) + len(str(v)) + 1 > 120:
                out.append(line.rstrip())
                line = "    "
            line += f"{v}, "
        return "\n".join(out + [line.rstrip().rstrip(",")])
    for name, vals in (("kPageRefs[80]", refs), ("kPageCodes[40]", CODES), ("kPageSample[128]", sample)):
        print(f"{name} = {{\n{wrap(vals)}}};")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA,
                    help="folder holding l2_slice_pages.jsonl.xz, or the file (.xz, .gz or plain)")
    ap.add_argument("--all-pages", action="store_true", help="step 3 for every page, not the first 16 and 2^i")
    ap.add_argument("--no-predict", action="store_true", help="section 6 with the measured pages only")
    ap.add_argument("--draws", type=int, default=8, help="random draws of the unknown page offsets (section 8)")
    ap.add_argument("--print-plan", action="store_true", help="print mb_pitch.cu's kPageRefs, kPageCodes, kPageSample")
    args = ap.parse_args()
    try:
        if args.print_plan:
            return print_plan()
        path = args.data
        if path.is_dir():
            path = next((p for p in (path / "l2_slice_pages.jsonl.xz", path / "l2_slice_pages.jsonl.gz")
                         if p.exists()), path / "l2_slice_pages.jsonl.xz")
        load_pages(path)                         # malformed input fails before the one-page map is decoded
        first = path.parent / "first_call.jsonl.xz"
        return report(path, committed_map(), args.all_pages, not args.no_predict, draws=args.draws,
                      first_call=first if first.exists() else None)
    except PerfmodelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
