"""The H100's L2 slices from atomic contention (mb_pitch --l2-slice-map), and whether they sort the bad row pitches of
the box-pitch table.

    python3 benchmarks/l2_slice_map.py [--data DIR|FILE] [--box-rows 128]

The records (data/microbench/l2_slice_map_h100): warps on every SM hammer a few lines of one 2 MiB page with
red.global.add (done at each line's home slice), each launch timed by events and scaled to the same requests a line.

1. The calibration: per request width (1, 8, 32 words), one line alone, the same line twice, and Otsu's two classes of
   the pairs (R, X) (fast: another resource; slow: a shared one).
2. The pair scans (every line X against each of a few references R): the slow pairs split again by Otsu into the two
   levels seen (a resource shared with a neighbouring slice, and the same slice), by partition (the parity of address
   bits 12, 13, 16, 17, 19: data/microbench/l2_latency_map_h100); the references' slow sets against each other.
3. The group test (every line X with chunks of the greedy classes' references, each reference contending with none of
   the others): X's slow slots are read as one reference or two (Hamming distance 0 over every single reference and
   pair). Pairs that many lines give are the quads: four slices whose contention is a 4-cycle, two references at
   opposite corners. Then every line's slice: (quad, the corner: a reference's slice, or the quad's other slice in
   X's partition), by the nearest pattern over the references and quads; slice sizes; the slices checked against the
   pair scans (the same slice: the slow level; the two neighbours in the cycle: the middle level; the rest: fast),
   and against the latency map's sub-clusters (data/microbench/l2_latency_map_h100: is each a union of whole slices?).
4. The map's structure: aligned runs over which a line's slice is constant, the address bits whose flip moves it, the
   XOR masks whose parity is constant on every slice / quad (a GF(2) subspace: its dimension is the slice id's linear
   part), the masks the map depends on, and non-linear hints (mod 3 / 5 / 10 / 20 of the address against the quads).
5. For each aligned pitch of the box-pitch tables (the in-step lines as benchmarks/l2_partition_map.py takes them:
   rows 0..ctas x box_rows - 1, lines r x pitch + j x 128, j < 1024 / box_rows), their imbalance over the slices /
   quads by the page's map (address bits 7..20; every 2 MiB page assumed to map as the measured one): (a) max over
   mean of the whole set, (s) the same per k-block step j, averaged, (b) the pages' own maxima summed over the mean
   (what independent maps of the pages could at most give). Spearman of each with the table's rate, and (b) with the
   pitch partialled out (b grows with the pitch). The ten slowest pitches' imbalance.

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

from l2_partition_map import (LINE_BITS, NBITS, PAGE_BITS, TABLES, _name, bits_of, clusters,  # noqa: E402
                              constant_runs, instep_offsets, load_map, otsu, parity, read_table,
                              read_text)
from perfmodel.calibration.stats import partial_spearman, spearman  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.microbench import MicrobenchError  # noqa: E402
from perfmodel.microbench.runner import parse_records  # noqa: E402

DATA = ROOT / "data/microbench/l2_slice_map_h100"
LATENCY = ROOT / "data/microbench/l2_latency_map_h100/l2_latency_map.jsonl.xz"
PARTITION_BITS = (12, 13, 16, 17, 19)            # the home partition (data/microbench/l2_latency_map_h100)
PARTITION_MASK = sum(1 << (b - LINE_BITS) for b in PARTITION_BITS)
PAGE_LINES = 1 << NBITS


# ---------------------------------------------------------------- the records
@dataclass
class SliceRun:
    device: dict
    setup: dict
    cal: list[dict]
    pairs: dict[int, np.ndarray]                 # reference line -> us of (R, X) for every line X (NaN: not run)
    plan: dict
    group_lines: np.ndarray                      # the lines X of the group test
    group_us: np.ndarray                         # (lines, slots)
    other: dict[str, list[dict]] = field(default_factory=dict)


def _arr(path: Path, r: dict, key: str) -> np.ndarray:
    try:
        return np.asarray(r[key], dtype=float)
    except (KeyError, TypeError, ValueError) as e:
        raise PerfmodelError(f"{_name(path)}: an {r.get('bench')} record lacks '{key}' or it is malformed ({e})") \
            from None


def load_run(path: Path) -> SliceRun:
    """Every record of one --l2-slice-map output, the pair scans and the group test as arrays."""
    text = read_text(path)
    try:
        recs = parse_records(text)
    except MicrobenchError as e:
        raise PerfmodelError(f"{_name(path)}: {e}") from None
    by: dict[str, list[dict]] = {}
    for r in recs:
        by.setdefault(r["bench"], []).append(r)
    if "l2_slice_setup" not in by:
        raise PerfmodelError(f"{_name(path)}: no l2_slice_setup record (not an --l2-slice-map output?)")
    pairs: dict[int, np.ndarray] = {}
    try:
        for r in by.get("l2_slice_pair", []):
            ref, first, step, n = (int(r[k]) for k in ("ref", "first_offset", "step", "n"))
            us = _arr(path, r, "us")
            if len(us) != n or step != 128 or ref % 128 or first % 128:
                raise PerfmodelError(f"{_name(path)}: an l2_slice_pair record of {n} lines has {len(us)} times")
            row = pairs.setdefault(ref // 128, np.full(PAGE_LINES, np.nan))
            row[first // 128:first // 128 + n] = us
        plan = by.get("l2_slice_group_plan", [{}])[0]
        lines, rows = [], []
        slots = int(plan.get("slots", 0))
        for r in by.get("l2_slice_group", []):
            first, step, n = int(r["first_offset"]) // 128, int(r["step"]) // 128, int(r["n"])
            us = _arr(path, r, "us")
            if int(r["slots"]) != slots or len(us) != n * slots:
                raise PerfmodelError(f"{_name(path)}: an l2_slice_group record has {len(us)} times, not "
                                     f"{n} lines x {slots} slots")
            lines.append(first + step * np.arange(n))
            rows.append(us.reshape(n, slots))
    except (KeyError, TypeError, ValueError) as e:
        raise PerfmodelError(f"{_name(path)}: an l2_slice record lacks a field or is malformed ({e})") from None
    return SliceRun(by.get("device", [{}])[0], by["l2_slice_setup"][0], by.get("l2_slice_cal_split", []), pairs,
                    plan, np.concatenate(lines) if lines else np.zeros(0, dtype=np.int64),
                    np.concatenate(rows) if rows else np.zeros((0, slots)), by)


# ---------------------------------------------------------------- the group test decoded
@dataclass
class Decode:
    cut: float                                   # slow slot: us over this (Otsu's split of the logs)
    exact: Counter                               # lines read exactly as: ('one',), ('two',), ('ambiguous',), ('none',)
    quads: list[tuple[int, int]]                 # pairs of reference indices
    slice_of: np.ndarray                         # per line of the page: 4 quad + corner, -1 unknown
    distance: np.ndarray                         # Hamming distance of each decoded line's slots to its pattern
    ties: int                                    # lines with two patterns at the least distance


def slot_matrix(slot_classes: list[list[int]], k: int) -> np.ndarray:
    """holds[s, c]: slot s holds class c's reference."""
    h = np.zeros((len(slot_classes), k), dtype=bool)
    for s, cl in enumerate(slot_classes):
        h[s, cl] = True
    return h


def decode_group(us: np.ndarray, lines: np.ndarray, holds: np.ndarray, part_of_ref: np.ndarray,
                 min_share: float = 0.25) -> Decode:
    """Every line's slice from its slots' times (see the module's step 3). part_of_ref: each reference's partition."""
    k = holds.shape[1]
    split = otsu(np.log(us.ravel()))
    cut = float(np.exp(split.threshold))
    slow = us > cut
    part = parity(lines, PARTITION_MASK)
    singles = [(c,) for c in range(k)]

    def exact(cands: list[tuple[int, ...]]) -> tuple[dict[bytes, list], list]:
        pat: dict[bytes, list] = {}
        for c in cands:
            pat.setdefault(holds[:, list(c)].any(axis=1).tobytes(), []).append(c)
        return pat, [pat.get(row.tobytes()) for row in slow]

    pat, got = exact(singles + list(itertools.combinations(range(k), 2)))
    counts = Counter(g[0] for g in got if g is not None and len(g) == 1 and len(g[0]) == 2)
    quads: list[tuple[int, int]] = []

    def take(cnt: Counter) -> None:
        if not cnt:
            return
        floor = max(4.0, min_share * float(np.median(list(cnt.values()))))
        used = set(itertools.chain(*quads))
        for pr, n in cnt.most_common():
            if n >= floor and not used & set(pr) and part_of_ref[pr[0]] != part_of_ref[pr[1]]:
                quads.append(pr)
                used |= set(pr)

    take(counts)
    left = [c for c in range(k) if c not in set(itertools.chain(*quads))]
    if len(left) >= 2:                           # pairs whose pattern another pair shares: among the references left
        _, got2 = exact(singles + quads + list(itertools.combinations(left, 2)))
        take(Counter(g[0] for g in got2 if g is not None and len(g) == 1 and len(g[0]) == 2 and g[0][0] in left))
    exact_kinds = Counter("none" if g is None else "ambiguous" if len(g) > 1 else ("one", "two")[len(g[0]) - 1]
                          for g in got)
    cands = singles + quads
    pats = np.array([holds[:, list(c)].any(axis=1) for c in cands])
    dist = (slow[:, None, :] != pats[None, :, :]).sum(axis=2)
    best = dist.argmin(axis=1)
    least = dist.min(axis=1)
    ties = int(((dist == least[:, None]).sum(axis=1) > 1).sum())
    quad_of = {c: q for q, pr in enumerate(quads) for c in pr}
    slice_of = np.full(PAGE_LINES, -1, dtype=np.int64)
    for i, (x, b) in enumerate(zip(lines.tolist(), best.tolist())):
        c = cands[b]
        if c[0] not in quad_of:
            continue
        if len(c) == 1 and part_of_ref[c[0]] != part[i]:
            continue                             # a reference's slice lies in its own partition
        slice_of[x] = 4 * quad_of[c[0]] + 2 * (len(c) == 2) + int(part[i])
    return Decode(cut, exact_kinds, quads, slice_of, least, ties)


def neighbours(s: int) -> tuple[int, int]:
    """The two slices a slice contends with in its quad's 4-cycle: the references' corners (0, 1) and the others'
    (2, 3) alternate."""
    q, c = divmod(s, 4)
    return (4 * q + 2, 4 * q + 3) if c < 2 else (4 * q, 4 * q + 1)


def pair_levels(us: np.ndarray) -> tuple[float, float, np.ndarray]:
    """(cut fast / slow, cut middle / top, level of every pair: 0 fast, 1 the middle (a neighbour), 2 the top (the
    same slice)), by Otsu's splits of the logs."""
    ok = np.isfinite(us)
    s1 = otsu(np.log(us[ok]))
    slow = ok & (np.log(np.where(ok, us, 1)) > s1.threshold)
    s2 = otsu(np.log(us[slow])) if slow.sum() >= 2 else s1
    lvl = np.zeros(len(us), dtype=np.int64)
    lvl[slow] = 1
    lvl[slow & (np.log(np.where(ok, us, 1)) > s2.threshold)] = 2
    return float(np.exp(s1.threshold)), float(np.exp(s2.threshold)), lvl


def check_pairs(slice_of: np.ndarray, ref: int, lvl: np.ndarray) -> tuple[float, Counter]:
    """Agreement of a pair scan's levels with the map's prediction (the same slice 2, a neighbour 1, else 0; the
    reference's own line is left out: the same line twice runs at the middle level), and the (predicted, seen)
    counts."""
    s = slice_of[ref]
    pred = np.where(slice_of == s, 2, np.where(np.isin(slice_of, neighbours(int(s))), 1, 0))
    keep = (slice_of >= 0) & (np.arange(len(slice_of)) != ref)
    return float(np.mean(pred[keep] == lvl[keep])), Counter(zip(pred[keep].tolist(), lvl[keep].tolist()))


# ---------------------------------------------------------------- structure
def wht(f: np.ndarray) -> np.ndarray:
    """Walsh-Hadamard transform of a function on the line indices of a page."""
    f = np.asarray(f, dtype=float).copy()
    h = 1
    while h < len(f):
        f = f.reshape(-1, 2, h)
        f = np.stack((f[:, 0] + f[:, 1], f[:, 0] - f[:, 1]), axis=1).reshape(-1)
        h *= 2
    return f


def gf2_basis(masks) -> list[int]:
    basis: list[int] = []
    for m in masks:
        v = int(m)
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
            basis.sort(reverse=True)
    return basis


def constant_masks(labels: np.ndarray) -> list[int]:
    """The basis of the XOR masks (of the line index) whose parity is constant on every label's lines."""
    ok = np.ones(len(labels), dtype=bool)
    for s in np.unique(labels):
        ind = labels == s
        ok &= np.isclose(np.abs(wht(ind)), ind.sum())
    return gf2_basis(np.nonzero(ok)[0])


def support(labels: np.ndarray) -> list[int]:
    """The basis of the masks the labels depend on (the span of their indicators' Walsh spectra)."""
    on = np.zeros(len(labels), dtype=bool)
    for s in np.unique(labels):
        on |= np.abs(wht(labels == s)) > 1e-6
    return gf2_basis(np.nonzero(on)[0])


def purity(labels: np.ndarray, key: np.ndarray) -> float:
    """Share of the lines whose label is their key's most common one (1: the key determines the label)."""
    tot = 0
    for v in np.unique(key):
        tot += np.bincount(labels[key == v]).max()
    return tot / len(labels)


# ---------------------------------------------------------------- the pitch tables
def pitch_imbalance(pitch: int, rows: int, lines_per_row: int, labels: np.ndarray) -> tuple[float, float, float]:
    """(a) max / mean of the in-step lines' counts over the labels (page map for every page), (s) the same per k-block
    step j averaged, (b) the pages' own maxima summed over the overall mean."""
    g = int(labels.max()) + 1
    off = instep_offsets(pitch, rows, lines_per_row)
    lab = labels[(off >> LINE_BITS) & (PAGE_LINES - 1)]
    a, step = spread(lab, g)
    pages = (off >> PAGE_BITS).ravel()
    pages -= pages.min()
    pc = np.bincount(pages * g + lab.ravel(), minlength=(int(pages.max()) + 1) * g).reshape(-1, g)
    return a, step, float(pc.max(axis=1).sum() / (off.size / g))


def spread(lab: np.ndarray, g: int) -> tuple[float, float]:
    """(a) max / mean of the counts of labels 0..g-1 over the in-step lines' labels lab (rows, lines_per_row), (s) the
    same per k-block step j (a column of lab), averaged."""
    rows, lines_per_row = lab.shape
    c = np.bincount(lab.ravel(), minlength=g)
    per = np.bincount((lab + g * np.arange(lines_per_row)[None, :]).ravel(),
                      minlength=g * lines_per_row).reshape(lines_per_row, g)
    return float(c.max() / c.mean()), float(np.mean(per.max(axis=1) / (rows / g)))


# ---------------------------------------------------------------- the report
def report(path: Path, box_rows: int) -> int:
    run = load_run(path)
    st = run.setup
    print(f"{_name(path)}: {run.device.get('name', '?')}; words {st.get('words')}, q {st.get('q'):.0f} requests a "
          f"line; usable {st.get('usable')}")

    print("\n1. calibration (us for q requests a line; pairs: Otsu's classes of the logs)")
    for c in run.cal:
        print(f"  {c['stage']:7s} words {c['words']:2.0f} q {c['q']:7.0f}: one line {c['single_us']:6.1f}, the same "
              f"line twice {c['same_line_us']:6.1f}; pairs fast {c['lo_us']:6.1f} | slow {c['hi_us']:6.1f} "
              f"({c['n_hi']:.0f} of {c['n']:.0f}), x{c['hi_us'] / c['lo_us']:.2f}")

    print("\n2. pair scans (R, X) over the page: levels by Otsu (fast | middle | top), by X's partition")
    part = parity(np.arange(PAGE_LINES), PARTITION_MASK)
    levels: dict[int, np.ndarray] = {}
    for ref, us in run.pairs.items():
        c1, c2, lvl = pair_levels(us)
        levels[ref] = lvl
        own = part == part[ref]
        means = [float(np.exp(np.nanmean(np.log(us[lvl == v])))) if (lvl == v).any() else float("nan")
                 for v in range(3)]
        between = int(((us > means[0] * 1.05) & (lvl == 0)).sum())
        print(f"  R {ref:5d} (partition {part[ref]}): {np.isfinite(us).sum()} lines; means {means[0]:.0f} | "
              f"{means[1]:.0f} | {means[2]:.0f} us (cuts {c1:.0f}, {c2:.0f}); middle {int((lvl == 1)[own].sum())} own "
              f"+ {int((lvl == 1)[~own].sum())} other partition, top {int((lvl == 2)[own].sum())} own + "
              f"{int((lvl == 2)[~own].sum())} other; fast but > 1.05 x fast {between}")
    refs = sorted(levels)
    if refs:
        print("  slow sets shared (lines):  " + " ".join(f"{r:5d}" for r in refs))
        for a in refs:
            print(f"  {a:5d}                    " + " ".join(f"{int(((levels[a] > 0) & (levels[b] > 0)).sum()):5d}"
                                                         for b in refs))
        mixed = [int(np.sum(np.diff((levels[r] > 0).reshape(-1, 2).astype(int), axis=1) != 0)) for r in refs]
        print("  aligned pairs of lines (256 B) half slow, half fast: " + ", ".join(f"R {r} {m}"
                                                                                for r, m in zip(refs, mixed)))

    print("\n3. the group test")
    if not len(run.group_lines) or "refs" not in run.plan:
        print("  no group test in the records")
        return 0
    refs_g = (np.asarray(run.plan["refs"], dtype=np.int64) // 128)
    holds = slot_matrix(run.plan["slot_classes"], len(refs_g))
    dec = decode_group(run.group_us, run.group_lines, holds, parity(refs_g, PARTITION_MASK))
    print(f"  {len(refs_g)} references, {holds.shape[0]} slots (chunk {run.plan.get('chunk')}), {len(run.group_lines)}"
          f" lines; slow slot over {dec.cut:.0f} us")
    print("  read exactly as: " + ", ".join(f"{k} {v}" for k, v in sorted(dec.exact.items())))
    print(f"  quads (reference pairs, one in each partition): {len(dec.quads)}: "
          + " ".join(f"({a},{b})" for a, b in dec.quads))
    known = dec.slice_of >= 0
    print(f"  lines with a slice: {int(known.sum())} of {PAGE_LINES}; Hamming distance to the pattern "
          + ", ".join(f"{d}: {n}" for d, n in sorted(Counter(dec.distance.tolist()).items()))
          + f"; ties {dec.ties}")
    sizes = np.bincount(dec.slice_of[known], minlength=4 * len(dec.quads))
    print(f"  {int((sizes > 0).sum())} slices; sizes " + ", ".join(f"{s} lines x {n}"
                                                            for s, n in sorted(Counter(sizes.tolist()).items()))
          + "; per quad " + " ".join(str(int(sizes[4 * q:4 * q + 4].sum())) for q in range(len(dec.quads))))
    for ref in refs:
        if dec.slice_of[ref] < 0:
            print(f"  R {ref:5d}: no slice")
            continue
        agree, cnt = check_pairs(dec.slice_of, ref, levels[ref])
        print(f"  R {ref:5d} (slice {dec.slice_of[ref]}): the pair scan's levels as the map predicts for "
              f"{100 * agree:.2f}%; (predicted, seen): " + ", ".join(f"{k}: {v}" for k, v in sorted(cnt.items())))

    if LATENCY.exists() and known.all():
        _, main, _, _ = load_map(LATENCY)
        print(f"  against the latency map ({_name(LATENCY)}: atom_min, clusters cut at 2-cycle steps): per SM, "
              f"clusters that are whole slices / all, and the atomic latency's spread inside a slice (median, max sd)")
        for sm, pr in sorted(main.items()):
            pg = pr.offsets < (1 << PAGE_BITS)
            x, a = pr.offsets[pg] >> LINE_BITS, pr.cycles["atom_min"][pg]
            cl = clusters(a, 2.0)
            sizes_all = np.bincount(dec.slice_of)
            whole = sum(1 for lo, hi, n in cl
                        if sizes_all[np.unique(dec.slice_of[x[(a >= lo) & (a <= hi)]])].sum() == n)
            lat = np.full(PAGE_LINES, np.nan)
            lat[x] = a
            sd = [float(np.nanstd(lat[dec.slice_of == v])) for v in np.unique(dec.slice_of)]
            print(f"  sm {sm:3d}: {whole} / {len(cl)} clusters ({', '.join(str(n) for _, _, n in cl)} lines); sd "
                  f"{np.median(sd):.2f} / {max(sd):.2f} cycles")

    print("\n4. the map's structure (line index bits = address bits 7..20)")
    if not known.all():
        print(f"  skipped: {int((~known).sum())} lines without a slice")
        return 0
    sl = dec.slice_of
    x = np.arange(PAGE_LINES)
    print(f"  constant over aligned runs of {constant_runs(x, sl)} lines")
    moves = [(b + LINE_BITS, float(np.mean(sl != sl[x ^ (1 << b)])), float(np.mean(sl // 4 != sl[x ^ (1 << b)] // 4)))
             for b in range(NBITS)]
    print("  flipping address bit b moves the slice / the quad of this share of the lines: "
          + ", ".join(f"{b}: {s:.2f}/{q:.2f}" for b, s, q in moves))
    images = []
    for b in range(NBITS):                       # setting bit b: a fixed permutation of the slices gives 1 image each
        lo = x[(x >> b) & 1 == 0]
        pairs = np.unique(np.stack((sl[lo], sl[lo | (1 << b)]), axis=1), axis=0)
        images.append((b + LINE_BITS, int(np.bincount(pairs[:, 0]).max())))
    print("  setting address bit b sends one slice to at most this many slices: "
          + ", ".join(f"{b}: {n}" for b, n in images))
    for name, lab in (("slice", sl), ("quad", sl // 4)):
        cm, sp = constant_masks(lab), support(lab)
        n = len(np.unique(lab))
        print(f"  {name} ({n}): XOR masks constant on each: dim {len(cm)} {[bits_of(m) for m in cm]} "
              f"({2 ** len(cm)} linear classes, {n / 2 ** len(cm):g} {name}s each); depends on a span of dim "
              f"{len(sp)} {[bits_of(m) for m in sp]}")
    part_const = all(np.ptp(part[sl == s]) == 0 for s in np.unique(sl))
    print(f"  the partition (bits {list(PARTITION_BITS)}) is {'' if part_const else 'not '}constant on every slice")
    lin = constant_masks(sl // 4)
    cls = sum(parity(x, m) << i for i, m in enumerate(lin))
    hints = sorted(((purity(sl // 4, cls * 64 + ((x << LINE_BITS) >> s) % mm), mm, s) for mm in (3, 5, 10, 20)
                    for s in range(LINE_BITS, PAGE_BITS)), reverse=True)[:4]
    print("  non-linear hints: quad given (linear class, address >> s mod m), best purities "
          + ", ".join(f"mod {mm} >> {s}: {p:.3f}" for p, mm, s in hints))

    print(f"\n5. the box-pitch tables ({box_rows}-row boxes, aligned pitches) against the in-step lines' imbalance")
    for card, folder in TABLES.items():
        gpu, ctas, table = read_table(ROOT / folder, box_rows)
        rows, lines_per_row = ctas * box_rows, 1024 // box_rows
        pitches = sorted(table)
        rate = [table[p] for p in pitches]
        for name, lab in (("slices", sl), ("quads", sl // 4)):
            imb = np.array([pitch_imbalance(p, rows, lines_per_row, lab) for p in pitches])
            slow10 = np.argsort(rate)[:10]
            print(f"  {card} ({gpu}, {len(pitches)} pitches) {name}: Spearman(rate, imbalance) a "
                  f"{spearman(rate, imb[:, 0]):+.3f}, s {spearman(rate, imb[:, 1]):+.3f}, b "
                  f"{spearman(rate, imb[:, 2]):+.3f} (pitch partialled out "
                  f"{partial_spearman(rate, imb[:, 2], pitches):+.3f}; rate ~ pitch {spearman(rate, pitches):+.3f});"
                  f" median a {np.median(imb[:, 0]):.3f} s {np.median(imb[:, 1]):.3f}; the 10 slowest pitches: a "
                  f"{np.median(imb[slow10, 0]):.3f} s {np.median(imb[slow10, 1]):.3f} (medians)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA,
                    help="folder holding l2_slice_map.jsonl.xz, or the file (.xz, .gz or plain)")
    ap.add_argument("--box-rows", type=int, default=128, choices=(64, 128, 256))
    args = ap.parse_args()
    path = args.data
    if path.is_dir():
        path = next((p for p in (path / "l2_slice_map.jsonl.xz", path / "l2_slice_map.jsonl.gz") if p.exists()),
                    path / "l2_slice_map.jsonl.xz")
    try:
        return report(path, args.box_rows)
    except PerfmodelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
