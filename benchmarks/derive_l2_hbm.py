"""The issue-8 memory parameters, derived again from the committed data (no GPU): the loaded HBM latency
(tma.hbm_queue_ns, mb_tma runs) and the L2 tag pipeline (l2.tag_lookups_per_s and l2.fabric_*, our ncu of the
GEMM in data/ncu), next to the values the hardware files hold.

    python3 benchmarks/derive_l2_hbm.py
"""
from __future__ import annotations

import csv
import io
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.hardware import load_hardware  # noqa: E402
from perfmodel.microbench.derive import hbm_queue_ns  # noqa: E402
from perfmodel.sim.memory import LRC_MIN_STAGES  # noqa: E402

MB = ROOT / "data" / "microbench"
NCU = ROOT / "data" / "ncu"
QUEUE_RUNS = {"h100-sxm": ["h100-80gb-hbm3-2026-11-24-tma-sms.json", "h100-80gb-hbm3-2026-11-24-tma-panel.json",
                           "h100-80gb-hbm3-2026-11-24-tma-roworder.json"],
              "h200": ["h200-2026-11-24-stream-tma-pitch.json", "h200-2026-11-24-tma-panel.json"]}
# the 8 H100 kernels at 8192^3 bf16 (data/ncu/README.md); those whose narrow rows bind the tag pipeline
H100_KERNELS = ["e916b041eec84292f90f", "49db12b8067622fa51ad", "748d29b5529dec6c5217", "51085683f255d5c6a2fd",
                "833bef10b4dc72ce3306", "00ee7a05d1e2f7191532", "7f15226f2674b94147c2", "d0ea1c751557ac0409c7"]
TAG_BOUND = ["51085683f255d5c6a2fd", "833bef10b4dc72ce3306", "00ee7a05d1e2f7191532", "7f15226f2674b94147c2",
             "d0ea1c751557ac0409c7"]


def ncu(name: str) -> dict[str, float]:
    """One ncu --csv --page raw file: metric -> value (the one profiled launch)."""
    lines = [ln for ln in (NCU / name).read_text().splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    out = {}
    for key, val in zip(rows[0], rows[2]):
        try:
            out[key] = float(val.replace(",", ""))
        except ValueError:
            pass
    return out


def peak_lookups_per_s(d: dict) -> tuple[float, float, float]:
    """(slices, L2 clock Hz, peak tag lookups per second: one per slice per L2 cycle)."""
    slices = d["lts__cycles_elapsed.sum"] / d["lts__cycles_elapsed.avg"]
    hz = d["lts__cycles_elapsed.avg.per_second"]
    return slices, hz, slices * hz


def fabric_fit(kernels: list[dict]) -> tuple[float, float]:
    """Least squares (no intercept) of the fabric's lookups on TMA read bytes and HBM read bytes: bytes per lookup."""
    xs = [(d["lts__t_sectors_srcunit_tex.sum"] * 32, d["dram__bytes_read.sum"]) for d in kernels]
    ys = [d["lts__t_requests_srcunit_ltcfabric.sum"] for d in kernels]
    s11 = sum(a * a for a, _ in xs)
    s12 = sum(a * b for a, b in xs)
    s22 = sum(b * b for _, b in xs)
    t1 = sum(a * y for (a, _), y in zip(xs, ys))
    t2 = sum(b * y for (_, b), y in zip(xs, ys))
    det = s11 * s22 - s12 * s12
    ca, cb = (t1 * s22 - t2 * s12) / det, (s11 * t2 - s12 * t1) / det
    return 1.0 / ca, 1.0 / cb


def run_info(name: str) -> dict:
    """The harness's own JSON line inside an ncu file: shape, dtype and kernel knobs of the profiled run."""
    for ln in (NCU / name).read_text().splitlines():
        if ln.startswith('{"ok"'):
            return json.loads(ln)
    return {}


def lrc_csvs() -> list[str]:
    """The committed ncu CSVs that carry the coalescer's counters (data/ncu/ncu_*.csv, data/ncu/lrc/ncu_*.csv), as
    names relative to data/ncu."""
    return [str(f.relative_to(NCU)) for f in sorted(NCU.glob("ncu_*.csv")) + sorted((NCU / "lrc").glob("ncu_*.csv"))]


def lrc_ratio(d: dict[str, float]) -> float:
    """Sectors the SMs received (lrc__xbar2gpc_sectors_op_read) over sectors the L2 slices served
    (lrc__lts2lrc_sectors_op_read) in one ncu run."""
    return d["lrc__xbar2gpc_sectors_op_read.sum"] / d["lrc__lts2lrc_sectors_op_read.sum"]


def lrc_table() -> None:
    """The L2 request coalescer (LRC) in every committed ncu file: lrc_ratio. Above 1 the L2 read each of those
    sectors once for several SMs: multicast, and, without multicast, plain loads of the same sectors by CTAs sharing
    a panel that the LRC merged. The model divides the L2 occupancy of plain 128-byte-row loads by its merge
    (sim/memory.lrc_merge: l2.lrc_merge_128b, falling with ring depth by l2.lrc_merge_per_stage, lrc_depth_law)."""
    print("L2 request coalescing (ncu lrc__*: SM-received / L2-served read sectors; data/ncu/ and data/ncu/lrc/, with "
          "the timed run's TFLOP/s where one was taken)")
    print(f"  {'file':<48} {'shape':<16} {'dtype':<5} {'tile':<11} {'st':>2} {'swz':>4} {'mc':>2} {'order':>5} "
          f"{'recv TB/s':>9} {'L2 TB/s':>8} {'ratio':>6} {'lts util':>8} {'TFLOP/s':>8}")
    for name in lrc_csvs():
        f = NCU / name
        d, info = ncu(name), run_info(name)
        k, t = info.get("kernel", {}), d["gpu__time_duration.sum"] * 1e-9
        recv, served = d["lrc__xbar2gpc_sectors_op_read.sum"] * 32, d["lrc__lts2lrc_sectors_op_read.sum"] * 32
        shape = f"{info.get('m')}x{info.get('n')}x{info.get('k')}"
        tile = f"{k.get('bm')}x{k.get('bn')}x{k.get('bk')}"
        order = f"{'n' if k.get('raster_n') else 'm'}{k.get('group', '?')}"
        timed = f.with_name(f.name.replace("ncu_", "time_", 1)).with_suffix(".json")
        tflops = f"{json.loads(timed.read_text())['time']['tflops']:8.1f}" if timed.is_file() else f"{'-':>8}"
        print(f"  {name:<48} {shape:<16} {info.get('dtype', '?'):<5} {tile:<11} {k.get('stages', 0):>2} "
              f"{k.get('swizzle', ['?'])[0]:>4} {k.get('multicast', 0):>2} {order:>5} {recv / t / 1e12:9.2f} "
              f"{served / t / 1e12:8.2f} {lrc_ratio(d):6.2f} "
              f"{d['lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed']:7.0f}% {tflops}")


def lrc_sweep() -> None:
    """mb_tma's tma_lrc sweep (2026-11-25) beside its ncu run, launch by launch: SM-received over L2-served sectors
    by sharers per panel, CTA grouping and phase offset (L2-resident panels, ring of 4)."""
    recs = [r for r in json.loads((MB / "h100-80gb-hbm3-2026-11-25-tma-lrc.json").read_text())["records"]
            if r.get("bench") == "tma_lrc"]
    lines = [ln for ln in (NCU / "lrc" / "mb_tma_lrc_ncu.csv").read_text().splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    head = rows[0]

    def val(row, key):
        return float(row[head.index(key)].replace(",", ""))
    print("mb_tma tma_lrc (H100, 2026-11-25): coalescing ratio by sharers / grouping / offset in boxes "
          "(source l2, ring of 4; TB/s received, timed)")
    print(f"  {'sharers':>7}  {'consecutive CTAs: off 0   1   4':<34}  {'strided CTAs: off 0   1   4':<30}")
    table = {}
    for r, row in zip(recs, rows[2:]):
        if r["source"] != "l2" or r["stages"] != 4:
            continue
        ratio = val(row, "lrc__xbar2gpc_sectors_op_read.sum") / val(row, "lrc__lts2lrc_sectors_op_read.sum")
        table[(r["group"], r["consecutive"], r["offset_boxes"])] = (ratio, r["chip_bytes_per_s"] / 1e12)
    for g in sorted({k[0] for k in table}):
        cells = []
        for cons in (1, 0):
            cells.append("  ".join(f"{table[(g, cons, o)][0]:4.2f} ({table[(g, cons, o)][1]:4.1f})"
                                   if (g, cons, o) in table else " " * 11 for o in (0, 1, 4)))
        print(f"  {g:>7}  {cells[0]:<40}  {cells[1]}")


def run_traits(shape: tuple[int, int, int], cfg: KernelConfig, share: float | None = None) -> tuple | None:
    """(share of the run's tiles that are the first of their CTA (all of them in one wave), A's share of the stage's
    bytes, whether A and B have co-running readers (sim/memory.lrc_sharers)), on the H100's schedule; None for a run
    whose boxes hold zero fill: every box row is delivered to the SMs, in bounds or not, and the L2 slices serve fewer
    sectors the more of a box is zero fill (the low-fill probe, data/ncu/oob_probe: the same 8.26 M sectors received
    at every M, 6.34 / 5.45 / 4.76 M served at M = 256 / 128 / 64), so its zero fill would count as merges."""
    from perfmodel.config import a_stage_bytes, b_stage_bytes
    from perfmodel.problem import make_problem
    from perfmodel.sim.memory import edge_fractions, lrc_sharers
    from perfmodel.sim.scheduler import make_schedule
    problem = make_problem(shape, "bf16")
    if any(edge_fractions(problem, cfg)):
        return None
    if share is None:
        sched = make_schedule(problem, cfg, load_hardware("h100-sxm"))
        share = min(sched.n_tiles, sched.slots) / max(sched.n_tiles, 1)
    a, b = a_stage_bytes(problem, cfg), b_stage_bytes(problem, cfg)
    return (share, a / (a + b), *lrc_sharers(problem, cfg))


def lrc_depth_points(gpu: str = "h100") -> list[tuple[str, int, float, tuple]]:
    """(where, stages, SM-received / L2-served read sectors, run_traits) of every
    committed H100 ncu run of our GEMM with plain loads of 128-byte box rows (no multicast, 128-byte swizzle, K-major
    128-byte rows) at a 128-byte aligned row pitch (K x element bytes a multiple of 128: a pitch that is not splits
    every box row into requests of two lines, which the coalescer sees otherwise) whose boxes hold no zero fill
    (run_traits): the ncu CSVs of lrc_table and the ksweep_ncu.jsonl files of the ncu folders (``gpu`` "h200": the
    H200's runs instead)."""
    pts = []
    for name in lrc_csvs():
        if ("h200" in name) != (gpu == "h200"):
            continue
        info = run_info(name)
        k = info.get("kernel", {})
        elem = 1 if info.get("dtype") == "e4m3" else 2
        row_b = k.get("bk", 0) * elem
        if (not k.get("multicast") and k.get("swizzle", [0])[0] == 128 and row_b == 128
                and info["k"] * elem % 128 == 0):
            cfg = KernelConfig(tile_m=k["bm"], tile_n=k["bn"], tile_k=k["bk"], mma_m=64, mma_n=k["mma_n"], mma_k=16,
                               stages=k["stages"], cluster_m=k["cluster"][0], cluster_n=k["cluster"][1])
            share = min(k["tiles"], k["clusters_resident"]) / k["tiles"]     # the kernel's own schedule
            traits = run_traits((info["m"], info["n"], info["k"]), cfg, share)
            if traits:
                pts.append((name, k["stages"], lrc_ratio(ncu(name)), traits))
    for f in sorted(NCU.glob("**/*ncu*.jsonl")):
        if ("h200" in str(f)) != (gpu == "h200"):
            continue
        for line in f.read_text().splitlines():
            r = json.loads(line)
            m = r.get("metrics") or {}
            if "lrc__lts2lrc_sectors_op_read.sum" not in m:
                continue
            served = float(m["lrc__lts2lrc_sectors_op_read.sum"][0].replace(",", ""))
            cfg = KernelConfig.from_name(r["config_name"])
            elem = 1 if r["dtype"] == "e4m3" else 2
            shape = tuple(int(x) for x in r["shape"].split("x"))
            if (served and not cfg.multicast and cfg.swizzle_a.value == "128" and cfg.tile_k * elem == 128
                    and shape[2] * elem % 128 == 0):
                traits = run_traits(shape, cfg)
                if traits:
                    recv = float(m["lrc__xbar2gpc_sectors_op_read.sum"][0].replace(",", ""))
                    pts.append((str(f.relative_to(NCU)), cfg.stages, recv / served, traits))
    return pts


def lrc_merge_law(pts: list[tuple[str, int, float, tuple]], c: float, c_first: float) -> list[float]:
    """A run's received / served under the law of sim/memory.lrc_merge: an operand that other tiles read too merges at
    1 + c / stages in a CTA's later tiles and 1 + c_first / stages in its first (stages at least LRC_MIN_STAGES); an
    operand no other tile reads does not merge; the run's ratio the bytes-weighted harmonic mean over its first and
    later tiles' operands."""
    out = []
    for _, s, _, (share, fa, shared_a, shared_b) in pts:
        s = max(s, LRC_MIN_STAGES)
        later_a, later_b = (1 + c / s if shared else 1.0 for shared in (shared_a, shared_b))
        first_a, first_b = (1 + c_first / s if shared else 1.0 for shared in (shared_a, shared_b))
        first = fa / first_a + (1 - fa) / first_b
        later = fa / later_a + (1 - fa) / later_b
        out.append(1.0 / (share * first + (1 - share) * later))
    return out


def fit_lrc_law(pts: list[tuple[str, int, float, tuple]]) -> tuple[float, float, float, float, float]:
    """(c, c_first, one c for every tile, rms residuals of received / served with one c and with first tiles apart):
    least squares of lrc_merge_law over ``pts``, with c_first apart and with c_first = c (grids refined to 0.001)."""
    def sse(c, c1):
        return sum((p - r) ** 2 for p, (_, _, r, _) in zip(lrc_merge_law(pts, c, c1), pts))
    _, c, c1 = min((sse(c / 100, c1 / 100), c / 100, c1 / 100) for c in range(40, 160, 2) for c1 in range(40, 300, 4))
    _, one = min((sse(c / 100, c / 100), c / 100) for c in range(40, 300, 2))
    for step in (0.01, 0.001):                        # refine around the coarse optima
        _, c, c1 = min((sse(c + i * step, c1 + j * step), c + i * step, c1 + j * step)
                       for i in range(-4, 5) for j in range(-8, 9))
        _, one = min((sse(one + i * step, one + i * step), one + i * step) for i in range(-4, 5))
    rms_one, rms_two = ((sse(a, b) / len(pts)) ** 0.5 for a, b in ((one, one), (c, c1)))
    return c, c1, one, rms_one, rms_two


def lrc_depth_law() -> None:
    """l2.lrc_merge_per_stage and l2.lrc_merge_first_per_stage: the coalescer's merge falls with ring depth, and the
    operands of the CTAs' first tiles (launched together, in step) that other tiles read too merge more:
    (received / served) - 1 = c / stages for later tiles, c_first / stages for first tiles' shared operands; the pair
    by least squares over every aligned plain 128-byte-row run (lrc_depth_points, fit_lrc_law)."""
    hw = load_hardware("h100-sxm")
    pts = lrc_depth_points()
    c, c1, one, rms1, rms2 = fit_lrc_law(pts)
    print(f"l2.lrc_merge_per_stage / l2.lrc_merge_first_per_stage ((received / served) - 1 = c / stages for a CTA's later "
          f"tiles, c_first / stages for its first tile's operands that other tiles read; least squares over {len(pts)} "
          f"H100 ncu runs of plain 128-byte-row loads at an aligned pitch): c = {c:.3f}, c_first = {c1:.3f} "
          f"(rms residual {rms2:.3f}; one c for every tile: {one:.3f}, rms {rms1:.3f}); files: "
          f"{hw.l2.lrc_merge_per_stage} / {hw.l2.lrc_merge_first_per_stage}")
    h200 = lrc_depth_points(gpu="h200")
    hc, hc1, _, _, hrms = fit_lrc_law(h200)
    law = lrc_merge_law(h200, c, c1)
    h100_rms = statistics.fmean((p - r) ** 2 for p, (_, _, r, _) in zip(law, h200)) ** 0.5
    print(f"  the H200's own {len(h200)} aligned runs (a check: the H200 file holds the GH100 figures): c = {hc:.3f}, "
          f"c_first = {hc1:.3f} (rms {hrms:.3f}); the H100's law on them: rms {h100_rms:.3f}")
    law1, law2 = lrc_merge_law(pts, one, one), lrc_merge_law(pts, c, c1)
    print("  first-tile share  stages  runs  median ratio  law (one c)  law (first apart)")
    groups: dict[tuple[str, int], list[int]] = {}
    for i, (_, s, _, (share, *_)) in enumerate(pts):
        cls = "1 (one wave)" if share >= 0.999 else ("0.25-1" if share >= 0.25 else "< 0.25")
        groups.setdefault((cls, s), []).append(i)
    for (cls, s), idx in sorted(groups.items()):
        med = statistics.median(pts[i][2] for i in idx)
        print(f"  {cls:<16} {s:>6}  {len(idx):>4}  {med:12.3f}  {statistics.median(law1[i] for i in idx):11.3f}  "
              f"{statistics.median(law2[i] for i in idx):17.3f}")


def main() -> None:
    print("tma.hbm_queue_ns (loaded HBM latency, mb_tma tma_hbm_sms / tma_hbm_panel)")
    for gpu, runs in QUEUE_RUNS.items():
        hw = load_hardware(gpu)
        recs = [r for f in runs for r in json.loads((MB / f).read_text())["records"]]
        q = hbm_queue_ns(recs, hw.hbm.bandwidth_bytes_per_s * hw.hbm.achievable_fraction, hw.tma.latency_cycles,
                         hw.tma.hbm_miss_latency_cycles, hw.tma.bytes_per_clock_per_sm)
        print(f"  {gpu:<9} {q[0]:6.1f} ns over {q[1]} points (rms residual {q[2]:.0f} ns); file: {hw.tma.hbm_queue_ns}")
    kernels = {k: ncu(f"ncu_{k}.csv") for k in H100_KERNELS}
    peaks = [peak_lookups_per_s(kernels[k]) for k in TAG_BOUND]     # the L2 clock of the tag-bound kernels
    slices, hz = peaks[0][0], statistics.median(h for _, h, _ in peaks)
    peak = slices * hz
    util = statistics.median(kernels[k]["lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed"] / 100
                             for k in TAG_BOUND)
    h100, h200 = load_hardware("h100-sxm"), load_hardware("h200")
    print("l2.tag_lookups_per_s (ncu of our kernel at 8192^3 bf16)")
    print(f"  h100-sxm  {slices:.0f} slices x {hz / 1e9:.4f} GHz (median) = {peak / 1e9:.1f} G/s peak x {util:.3f} (median tag "
          f"utilization of the {len(TAG_BOUND)} tag-bound kernels) = {peak * util:.4g}; file: {h100.l2.tag_lookups_per_s:.4g}")
    s2, hz2, peak2 = peak_lookups_per_s(ncu("ncu_h200_833bef10b4dc72ce3306.csv"))
    print(f"  h200      {s2:.0f} slices x {hz2 / 1e9:.4f} GHz = {peak2 / 1e9:.1f} G/s peak (x{peak2 / peak:.3f} the H100's) "
          f"x {util:.3f} = {peak2 * util:.4g}; file: {h200.l2.tag_lookups_per_s:.4g} (from mb_tma's narrow-row ratio)")
    read_b, fill_b = fabric_fit(list(kernels.values()))
    print(f"l2.fabric_read_bytes_per_lookup / fabric_fill_bytes_per_lookup (least squares over {len(kernels)} kernels): "
          f"{read_b:.0f} / {fill_b:.0f}; file: {h100.l2.fabric_read_bytes_per_lookup:.0f} / "
          f"{h100.l2.fabric_fill_bytes_per_lookup:.0f}")
    lrc_table()
    lrc_depth_law()
    lrc_sweep()


if __name__ == "__main__":
    main()
