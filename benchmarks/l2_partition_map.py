"""The H100's L2 address -> partition map from its latencies (mb_pitch --l2-latency-map), and whether it sorts the
bad row pitches of the box-pitch table.

    python3 benchmarks/l2_partition_map.py [--data DIR] [--metric auto|atom_min|ld_min|first] [--box-rows 128]

The records (`l2_latency_map`, data/microbench/l2_latency_map_h100): one thread on one SM times chains of dependent
loads and of dependent atomics on each line of an L2-resident buffer, "main" from ten SMs (every line of one 2 MiB
page and the first 512 lines of 7 other pages), "survey" from every SM (the first 512 lines).

1. Per main SM and metric: the two latency classes (Otsu's split), their means, spreads and the empty gap between them
   (positive: no line in between); the clusters the sorted latencies make (breaks wider than --gap cycles).
2. The far / near label of every line (the chosen metric, each SM its own split); how the SMs agree, up to a flip
   (which partition is near); the survey SMs grouped by their flip against the first main SM; with an atomic metric,
   how many of the lines slow on the first load and in the load chains are far-home.
3. The label as a GF(2)-linear function of address bits 7..20 over the 2 MiB page (Gaussian elimination: the solution
   and how many lines contradict the system; and the best linear and affine XOR of any bits by a Walsh-Hadamard
   transform, with its agreement); each other page against it (its constant flip and agreement), and those flips as
   an XOR of the page bits; a second split inside each class (slices at different distances) and its best XOR.
4. If the fit is clean (agreement >= --min-agreement): for each aligned pitch of the box-pitch tables (every SM its
   own panel of box_rows rows, the first 1024 bytes of each row: rows 0..ctas x box_rows - 1, lines r x pitch + j x 128,
   as mb_tma --box-pitch-table reads them), the imbalance of those lines between the two partitions by the fitted
   hash, which covers address bits 7..20 only: (a) every 2 MiB page taken at flip 0, (b) the sum of the pages' own
   imbalances (what any flips of the pages could at most give), (c) the pages flipped as the measured buffer's pages
   were (an XOR of its virtual page bits, carried over to the table's allocation: an assumption). Spearman of each
   with the table's per-pitch rate (the runs' mean of the CTAs' median bytes a cycle), for the H100 cards and the
   H200 as a check.

Prints numbers; changes no file.
"""
from __future__ import annotations

import argparse
import gzip
import lzma
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perfmodel.calibration.stats import spearman  # noqa: E402
from perfmodel.errors import PerfmodelError  # noqa: E402
from perfmodel.microbench import MicrobenchError  # noqa: E402
from perfmodel.microbench.runner import parse_records  # noqa: E402

DATA = ROOT / "data/microbench/l2_latency_map_h100"
TABLES = {"h100": "data/microbench/box_pitch_table_h100", "h100b": "data/microbench/box_pitch_table_h100b",
          "h200": "data/microbench/box_pitch_table_h200"}
METRICS = ("first", "ld_min", "ld_med", "atom_min", "atom_med")
LINE_BITS = 7          # 128-byte lines
PAGE_BITS = 21         # 2 MiB pages: within one, the virtual offset's bits are the physical address's
NBITS = PAGE_BITS - LINE_BITS


def _name(p: Path) -> str:
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def read_text(path: Path) -> str:
    try:
        if path.suffix in (".gz", ".xz"):
            with (gzip if path.suffix == ".gz" else lzma).open(path, "rt") as f:
                return f.read()
        return path.read_text()
    except (OSError, EOFError, UnicodeDecodeError, lzma.LZMAError) as e:
        raise PerfmodelError(f"{_name(path)}: unreadable ({e})") from None


# ---------------------------------------------------------------- the records
@dataclass
class Probe:
    """One SM's lines (byte offsets into the buffer) and their cycles a link, per metric."""
    sm: int
    offsets: np.ndarray
    cycles: dict[str, np.ndarray]


def load_map(path: Path) -> tuple[dict, dict[int, Probe], dict[int, Probe], list[dict]]:
    """(device record, main probes, survey probes, info records) of one --l2-latency-map output."""
    text = read_text(path)
    try:
        recs = parse_records(text)
    except MicrobenchError as e:
        raise PerfmodelError(f"{_name(path)}: {e}") from None
    device = next((r for r in recs if r["bench"] == "device"), {})
    parts: dict[tuple[str, int], list[dict]] = {}
    for r in recs:
        if r["bench"] != "l2_latency_map":
            continue
        try:
            key = (str(r["set"]), int(r["sm"]))
            n = len(r["offsets"])
            if any(len(r[m]) != n for m in METRICS):
                raise PerfmodelError(f"{_name(path)}: a record of sm {key[1]} has arrays of different lengths")
        except (KeyError, TypeError, ValueError) as e:
            raise PerfmodelError(f"{_name(path)}: an l2_latency_map record lacks a field or is malformed ({e})") \
                from None
        parts.setdefault(key, []).append(r)
    if not any(k[0] == "main" for k in parts):
        raise PerfmodelError(f"{_name(path)}: no l2_latency_map records of the main set")
    probes: dict[str, dict[int, Probe]] = {"main": {}, "survey": {}}
    for (s, sm), rs in parts.items():
        try:
            off = np.array([o for r in rs for o in r["offsets"]], dtype=np.int64)
            cyc = {m: np.array([v for r in rs for v in r[m]], dtype=float) for m in METRICS}
        except (TypeError, ValueError) as e:
            raise PerfmodelError(f"{_name(path)}: non-numeric values in sm {sm}'s records ({e})") from None
        probes.setdefault(s, {})[sm] = Probe(sm, off, cyc)
    info = [r for r in recs if r["bench"] == "l2_latency_info"]
    return device, probes["main"], probes["survey"], info


# ---------------------------------------------------------------- two classes and clusters
@dataclass
class Split:
    threshold: float
    lo_mean: float
    hi_mean: float
    lo_sd: float
    hi_sd: float
    n_lo: int
    n_hi: int
    gap: float            # least of the high class minus most of the low class (> 0: nothing in between)

    @property
    def separation(self) -> float:
        """Distance of the means over the classes' pooled spread (large: cleanly bimodal)."""
        sd = ((self.lo_sd ** 2 + self.hi_sd ** 2) / 2) ** 0.5
        return (self.hi_mean - self.lo_mean) / sd if sd > 0 else float("inf")


def otsu(values: np.ndarray) -> Split:
    """Otsu's two-class split of 1-D values (the cut maximising the between-class variance)."""
    v = np.sort(np.asarray(values, dtype=float))
    n = len(v)
    if n < 2 or v[0] == v[-1]:
        m = float(v.mean()) if n else float("nan")
        return Split(m, m, m, 0.0, 0.0, n, 0, 0.0)
    c = np.cumsum(v)
    k = np.arange(1, n)                               # low class = v[:k]
    m_lo = c[:-1] / k
    m_hi = (c[-1] - c[:-1]) / (n - k)
    between = k * (n - k) * (m_hi - m_lo) ** 2
    between[v[1:] == v[:-1]] = -1                     # cut only between distinct values
    i = int(np.argmax(between)) + 1
    lo, hi = v[:i], v[i:]
    return Split(float((lo[-1] + hi[0]) / 2), float(lo.mean()), float(hi.mean()), float(lo.std()), float(hi.std()),
                 len(lo), len(hi), float(hi[0] - lo[-1]))


def clusters(values: np.ndarray, gap: float, min_share: float = 0.005) -> list[tuple[float, float, int]]:
    """(low, high, count) of the runs the sorted values make when cut at steps wider than `gap`; runs holding less
    than min_share of the values are left out (outliers)."""
    v = np.sort(np.asarray(values, dtype=float))
    if not len(v):
        return []
    cuts = np.nonzero(np.diff(v) > gap)[0] + 1
    runs = np.split(v, cuts)
    return [(float(r[0]), float(r[-1]), len(r)) for r in runs if len(r) >= min_share * len(v)]


# ---------------------------------------------------------------- GF(2)
_PARITY16 = np.array([bin(i).count("1") & 1 for i in range(1 << 16)], dtype=np.int64)   # parity of a 16-bit word


def parity(x: np.ndarray | int, mask: int) -> np.ndarray | int:
    """Parity of x & mask (elementwise for arrays; x & mask >= 0): the four 16-bit words' parities XOR'd."""
    y = np.asarray(x, dtype=np.int64) & mask
    p = _PARITY16[y & 0xFFFF] ^ _PARITY16[(y >> 16) & 0xFFFF] ^ _PARITY16[(y >> 32) & 0xFFFF] ^ _PARITY16[y >> 48]
    return p if isinstance(x, np.ndarray) else int(p)


@dataclass
class Gf2Fit:
    mask: int             # the address bits (of the index: bit i is address bit i + LINE_BITS) XORed
    const: int            # the affine constant (0 for a linear fit)
    agreement: float      # share of the rows the function gives
    contradicting: int    # rows Gaussian elimination found inconsistent with the rows before them (0: exact)


def gf2_solve(x: np.ndarray, y: np.ndarray, nbits: int, affine: bool) -> Gf2Fit:
    """Gaussian elimination over GF(2): y = parity(x & mask) [^ const]. Rows are taken in order; one that reduces to
    0 = 1 against the basis of the rows before it is counted and left out. Free unknowns are set to 0."""
    basis: dict[int, tuple[int, int]] = {}           # pivot bit -> (row, rhs), each row with its pivot as top bit
    bad = 0
    for xi, yi in zip(x.tolist(), y.tolist()):
        row = (int(xi) & ((1 << nbits) - 1)) | ((1 << nbits) if affine else 0)
        rhs = int(yi) & 1
        while row:
            top = row.bit_length() - 1
            if top not in basis:
                basis[top] = (row, rhs)
                break
            brow, brhs = basis[top]
            row ^= brow
            rhs ^= brhs
        else:
            bad += rhs
    sol = 0
    for top in sorted(basis):                        # back substitution, lowest pivot first
        row, rhs = basis[top]
        rest = row & ~(1 << top)
        val = rhs ^ (bin(rest & sol).count("1") & 1)
        sol |= val << top
    mask = sol & ((1 << nbits) - 1)
    const = (sol >> nbits) & 1 if affine else 0
    agree = float(np.mean((parity(x, mask) ^ const) == (y & 1))) if len(y) else float("nan")
    return Gf2Fit(mask, const, agree, bad)


def best_xor(x: np.ndarray, y: np.ndarray, nbits: int) -> tuple[Gf2Fit, Gf2Fit]:
    """The best linear and the best affine XOR of any of the nbits bits, by the Walsh-Hadamard transform of the
    labels (+1 / -1 summed over the rows of each index): (linear, affine), their agreement over all the rows."""
    size = 1 << nbits
    f = np.zeros(size)
    np.add.at(f, np.asarray(x, dtype=np.int64) & (size - 1), 1.0 - 2.0 * (np.asarray(y) & 1))
    h = 1
    while h < size:                                  # in-place fast Walsh-Hadamard transform
        f = f.reshape(-1, 2, h)
        f = np.stack((f[:, 0] + f[:, 1], f[:, 0] - f[:, 1]), axis=1).reshape(-1)
        h *= 2
    n = len(y)
    lin = int(np.argmax(f))
    aff = int(np.argmax(np.abs(f)))
    return (Gf2Fit(lin, 0, (n + f[lin]) / (2 * n), -1),
            Gf2Fit(aff, int(f[aff] < 0), (n + abs(f[aff])) / (2 * n), -1))


def constant_runs(x: np.ndarray, y: np.ndarray) -> int:
    """The longest aligned run of line indices (a power of two) over which y is constant, judged on the runs whose
    every index is among x (1: y changes from one line to the next somewhere)."""
    whole = np.full(1 << NBITS, -1)
    whole[np.asarray(x) & ((1 << NBITS) - 1)] = y
    run = 1
    while run < 1 << NBITS:
        blocks = whole.reshape(-1, 2 * run)
        full = blocks.min(axis=1) >= 0
        if not full.any() or np.any(np.ptp(blocks[full], axis=1) != 0):
            break
        run *= 2
    return run


def bits_of(mask: int) -> list[int]:
    """The address bits of an index mask."""
    return [i + LINE_BITS for i in range(mask.bit_length()) if mask >> i & 1]


# ---------------------------------------------------------------- the pitch tables
def read_table(folder: Path, box_rows: int) -> tuple[str, int, dict[int, float]]:
    """(GPU name, CTAs, pitch -> the runs' mean CTA median bytes a cycle) over the aligned pitches of one
    box-pitch-table folder, box_rows-row boxes."""
    runs = sorted(folder.glob("box_pitch_table_*.jsonl.gz"))
    if not runs:
        raise PerfmodelError(f"{_name(folder)}: no box_pitch_table_*.jsonl.gz")
    per: dict[int, list[float]] = {}
    gpu, ctas = "?", 0
    for p in runs:
        try:
            recs = parse_records(read_text(p))
        except MicrobenchError as e:
            raise PerfmodelError(f"{_name(p)}: {e}") from None
        gpu = next((r.get("name", "?") for r in recs if r["bench"] == "device"), gpu)
        for r in recs:
            try:
                if r["bench"] != "tma_box_pitch_rate" or int(r["box_rows"]) != box_rows:
                    continue
                pitch = int(r["pitch_bytes"])
                ctas = int(r["ctas"])
                if pitch % 128 == 0:
                    per.setdefault(pitch, []).append(float(r["cta_bpc_median"]))
            except (KeyError, TypeError, ValueError) as e:
                raise PerfmodelError(f"{_name(p)}: a tma_box_pitch_rate record is malformed ({e})") from None
    if not per:
        raise PerfmodelError(f"{_name(folder)}: no aligned {box_rows}-row pitches")
    return gpu, ctas, {k: float(np.mean(v)) for k, v in sorted(per.items())}


def instep_offsets(pitch: int, rows: int, lines_per_row: int) -> np.ndarray:
    """The byte offsets r x pitch + j x 128 of a box's in-step lines, shape (rows, lines_per_row)."""
    return (np.arange(rows, dtype=np.int64)[:, None] * pitch
            + np.arange(lines_per_row, dtype=np.int64)[None, :] * 128)


def imbalance(pitch: int, rows: int, lines_per_row: int, mask: int, page_mask: int = 0) -> tuple[float, float, float]:
    """Over the lines r x pitch + j x 128 (r < rows, j < lines_per_row), by parity(address bits 7..20 & mask): (a)
    |far - near| / lines with every 2 MiB page at flip 0, (b) the sum over pages of each page's |far - near| / lines
    (the most any flips of the pages could give), (c) |far - near| / lines with page p flipped by parity(p &
    page_mask) (the measured buffer's page flips carried over to another allocation: an assumption)."""
    off = instep_offsets(pitch, rows, lines_per_row).reshape(-1)
    h = parity((off >> LINE_BITS) & ((1 << NBITS) - 1), mask)
    s = 2 * h - 1
    pages = off >> PAGE_BITS
    per_page = np.bincount(pages - pages.min(), weights=s)
    sc = s * (1 - 2 * parity(pages, page_mask))
    return abs(int(s.sum())) / len(off), float(np.abs(per_page).sum()) / len(off), abs(int(sc.sum())) / len(off)


# ---------------------------------------------------------------- the report
def fmt_split(s: Split) -> str:
    return (f"{s.lo_mean:7.1f} (sd {s.lo_sd:4.1f}, n {s.n_lo:5d}) | {s.hi_mean:7.1f} (sd {s.hi_sd:4.1f}, n {s.n_hi:5d})"
            f"  cut {s.threshold:6.1f}  gap {s.gap:6.1f}  sep {s.separation:5.1f}")


def labels_for(probe: Probe, metric: str) -> tuple[np.ndarray, Split]:
    s = otsu(probe.cycles[metric])
    return (probe.cycles[metric] > s.threshold).astype(np.int64), s


def agreement(a: Probe, la: np.ndarray, b: Probe, lb: np.ndarray) -> tuple[float, bool, int]:
    """(agreement up to a flip, flipped, common lines) of two SMs' labels over their common offsets."""
    common, ia, ib = np.intersect1d(a.offsets, b.offsets, return_indices=True)
    if not len(common):
        return float("nan"), False, 0
    same = float(np.mean(la[ia] == lb[ib]))
    return max(same, 1 - same), same < 0.5, len(common)


def report(path: Path, metric: str, gap: float, min_agreement: float, box_rows: int) -> int:
    device, main, survey, info = load_map(path)
    print(f"{_name(path)}: {device.get('name', '?')}, {len(main)} main SMs, {len(survey)} survey SMs "
          f"({sum(1 for r in info if r.get('set') == 'survey' and not r.get('found'))} survey smids not found)")
    hz = [r["sm_clock_hz"] for r in info if r.get("found") and r.get("sm_clock_hz")]
    ov = [r["overhead_cycles"] for r in info if r.get("found")]
    if hz:
        print(f"SM clock {min(hz) / 1e6:.0f}-{max(hz) / 1e6:.0f} MHz; timing overhead {min(ov):.0f}-{max(ov):.0f} "
              f"cycles (in each chain of 8, i.e. /8 in the cycles a link)")

    print("\n1. two classes per SM and metric (low | high: mean, sd, count; the cut, the empty gap, the separation)")
    seps: dict[str, list[float]] = {m: [] for m in METRICS}
    for sm, p in sorted(main.items()):
        page0 = p.offsets < (1 << PAGE_BITS)
        for m in METRICS:
            s = otsu(p.cycles[m][page0])
            seps[m].append(s.separation if s.gap > 0 else min(s.separation, 0.0))
            print(f"  sm {sm:3d} {m:8s} {fmt_split(s)}")
    if metric == "auto":
        metric = max(("atom_min", "ld_min", "first"), key=lambda m: float(np.median(seps[m])))
    print(f"  metric used below: {metric}")
    print(f"\n   clusters of {metric} (runs of sorted cycles cut at steps > {gap} cycles; runs < 0.5% left out)")
    for sm, p in sorted(main.items()):
        cl = clusters(p.cycles[metric][p.offsets < (1 << PAGE_BITS)], gap)
        print(f"  sm {sm:3d}: " + ", ".join(f"[{lo:.1f}..{hi:.1f}] {n}" for lo, hi, n in cl))

    print("\n2. agreement of the SMs' far / near labels, up to a flip (against the first main SM)")
    sms = sorted(main)
    ref = main[sms[0]]
    lref, _ = labels_for(ref, metric)
    labels = {sm: labels_for(main[sm], metric)[0] for sm in sms}
    for sm in sms:
        a, flip, n = agreement(ref, lref, main[sm], labels[sm])
        print(f"  sm {sm:3d}: {100 * a:6.2f}% of {n} lines, {'flipped' if flip else 'same'}")
    groups: dict[str, list[int]] = {"same": [], "flipped": [], "unclear": []}
    for sm, p in sorted(survey.items()):
        ls, s = labels_for(p, metric)
        a, flip, n = agreement(ref, lref, p, ls)
        if n == 0 or a < 0.95 or s.gap <= 0:
            groups["unclear"].append(sm)
        else:
            groups["flipped" if flip else "same"].append(sm)
    for g, v in groups.items():
        print(f"  survey, {g} as sm {sms[0]} ({len(v)}): {' '.join(map(str, v))}")
    if metric.startswith("atom"):
        print(f"  the other metrics' slow class against {metric}'s far lines (the home partition), 2 MiB page")
        for sm in sms:
            p = main[sm]
            pg = p.offsets < (1 << PAGE_BITS)
            far = labels[sm][pg]
            row = []
            for m in ("first", "ld_min"):
                slow = labels_for(p, m)[0][pg]
                row.append(f"{m} slow {int(slow.sum()):5d} ({int((slow & far).sum()):5d} far-home)")
            print(f"  sm {sm:3d}: far-home {int(far.sum())}; " + "; ".join(row))

    print(f"\n3. the partition (far for sm {sms[0]}) as XOR of address bits 7..20 over the 2 MiB page")
    page0 = ref.offsets < (1 << PAGE_BITS)
    x = (ref.offsets[page0] >> LINE_BITS).astype(np.int64)
    y = lref[page0]
    fits = {}
    for aff in (False, True):
        g = gf2_solve(x, y, NBITS, aff)
        print(f"  Gaussian elimination, {'affine' if aff else 'linear'}: bits {bits_of(g.mask)} const {g.const}: "
              f"{100 * g.agreement:.2f}% of {len(y)} lines, {g.contradicting} rows contradict the rows before them")
    lin, aff = best_xor(x, y, NBITS)
    fits["linear"], fits["affine"] = lin, aff
    for k, g in fits.items():
        print(f"  best {k} XOR (Walsh-Hadamard): bits {bits_of(g.mask)} const {g.const}: {100 * g.agreement:.2f}%")
    hash_ = fits["affine"]
    for sm in sms[1:]:
        p = main[sm]
        pg = p.offsets < (1 << PAGE_BITS)
        pred = parity(p.offsets[pg] >> LINE_BITS, hash_.mask)
        same = float(np.mean(pred == labels[sm][pg]))
        print(f"  sm {sm:3d}: the hash gives {100 * max(same, 1 - same):.2f}% ({'flipped' if same < 0.5 else 'same'})")
    others = ref.offsets >= (1 << PAGE_BITS)
    flips: dict[int, int] = {0: hash_.const}
    if others.any():
        pages = ref.offsets[others] >> PAGE_BITS
        pred = parity((ref.offsets[others] >> LINE_BITS) & ((1 << NBITS) - 1), hash_.mask)
        for pgn in np.unique(pages):
            sel = pages == pgn
            same = float(np.mean(pred[sel] == lref[others][sel]))
            flips[int(pgn)] = int(same < 0.5)
            print(f"  page {int(pgn)} (offset {int(pgn) * 2} MiB, {int(sel.sum())} lines): "
                  f"{100 * max(same, 1 - same):.2f}%, flip {int(same < 0.5)}")
    pg_idx = np.array(sorted(flips), dtype=np.int64)
    page_fit = gf2_solve(pg_idx, np.array([flips[k] ^ hash_.const for k in sorted(flips)]),
                         max(1, int(pg_idx.max()).bit_length()), False)
    print(f"  the pages' flips as XOR of the buffer's virtual page bits: bits "
          f"{[b + PAGE_BITS for b in range(page_fit.mask.bit_length()) if page_fit.mask >> b & 1]}, "
          f"{100 * page_fit.agreement:.0f}% of {len(pg_idx)} pages")
    print("  a second split inside each class (slices at different distances?), its best affine XOR")
    vals = ref.cycles[metric][page0]
    for cls, name in ((0, "near"), (1, "far")):
        sel = y == cls
        if sel.sum() < 16:
            continue
        s = otsu(vals[sel])
        sub = (vals[sel] > s.threshold).astype(np.int64)
        _, a2 = best_xor(x[sel], sub, NBITS)
        print(f"  {name}: {fmt_split(s)}; best XOR bits {bits_of(a2.mask)}: {100 * a2.agreement:.2f}%; constant "
              f"over aligned runs of {constant_runs(x[sel], sub)} lines")

    print(f"\n4. the box-pitch tables ({box_rows}-row boxes, aligned pitches) against the hash's partition imbalance")
    if hash_.agreement < min_agreement:
        print(f"  skipped: the best fit gives {100 * hash_.agreement:.2f}%, under {100 * min_agreement:.0f}%")
        return 0
    print(f"  hash: bits {bits_of(hash_.mask)} (address bits 7..20 only; the pages' flips from bits 21+ unknown)")
    for card, folder in TABLES.items():
        gpu, ctas, table = read_table(ROOT / folder, box_rows)
        rows, lines_per_row = ctas * box_rows, 1024 // box_rows
        pitches = sorted(table)
        imb = [imbalance(pch, rows, lines_per_row, hash_.mask, page_fit.mask) for pch in pitches]
        rate = [table[pch] for pch in pitches]
        cols = {k: [i[n] for i in imb] for n, k in enumerate("abc")}
        print(f"  {card} ({gpu}, {len(pitches)} pitches): Spearman(rate, imbalance) "
              + ", ".join(f"{k} {spearman(rate, v):+.3f}" for k, v in cols.items()) + "; imbalance "
              + ", ".join(f"{k} median {np.median(v):.4f} max {max(v):.4f}" for k, v in cols.items()))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA,
                    help="folder holding l2_latency_map.jsonl.xz, or the file (.xz, .gz or plain)")
    ap.add_argument("--metric", default="auto", choices=("auto",) + METRICS)
    ap.add_argument("--gap", type=float, default=3.0, help="cycles between clusters (default 3)")
    ap.add_argument("--min-agreement", type=float, default=0.99, help="a clean hash's agreement (default 0.99)")
    ap.add_argument("--box-rows", type=int, default=128, choices=(64, 128, 256))
    args = ap.parse_args()
    path = args.data
    if path.is_dir():   # the committed map is xz (the tracked tree's size); a fresh run's is gzip
        path = next((p for p in (path / "l2_latency_map.jsonl.xz", path / "l2_latency_map.jsonl.gz") if p.exists()),
                    path / "l2_latency_map.jsonl.xz")
    try:
        return report(path, args.metric, args.gap, args.min_agreement, args.box_rows)
    except PerfmodelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
