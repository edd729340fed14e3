"""Turn microbenchmark records into hardware-TOML values (the units of `configs/hardware/*.toml`).

Latencies are clock64 cycles already. Bandwidths measured in bytes/s are divided by the SM clock that
the same kernel measured for itself (clock64 cycles over %globaltimer nanoseconds), so bytes per clock
are at the clock the GPU actually ran. Each derivation names the benchmark it used and how.
"""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from typing import Callable

MIB = 1 << 20
SMEM_BANK_LIMIT_BYTES_PER_CLOCK = 128   # 32 banks x 4 bytes per clock (CUDA Programming Guide)


@dataclass(frozen=True)
class Update:
    key: str          # dotted hardware key, e.g. "tma.latency_cycles"
    value: float
    bench: str        # microbenchmark (program/record) it came from
    detail: str       # how the value was derived, one line


def select(records: list[dict], bench: str, **match) -> list[dict]:
    return [r for r in records if r.get("bench") == bench and all(r.get(k) == v for k, v in match.items())]


def fit_line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares (slope, intercept) of y on x; needs two distinct x."""
    slope, intercept = statistics.linear_regression(xs, ys)
    return slope, intercept


def _tma_latency(recs: list[dict]) -> Update | None:
    l2 = select(recs, "tma_latency", source="l2")
    if not l2:
        return None
    xs = [r["box_bytes"] for r in l2]
    ys = [r["cycles"] for r in l2]
    hbm = {r["box_bytes"]: r["cycles"] for r in select(recs, "tma_latency", source="hbm")}
    miss = f"; HBM miss {hbm[8192]:.0f} cycles for an 8 KB box" if 8192 in hbm else ""
    if len(set(xs)) >= 2:
        slope, intercept = fit_line(xs, ys)
        if slope > 0 and intercept > 0:
            swz = "/".join(str(x) if x else "none" for x in sorted({r["swizzle"] for r in l2}))
            return Update("tma.latency_cycles", intercept, "mb_tma/tma_latency",
                          f"intercept of L2-hit box latency vs box bytes over {len(xs)} boxes "
                          f"({min(xs) / 1024:.0f}-{max(xs) / 1024:.0f} KB, swizzle {swz}; "
                          f"slope {1 / slope:.0f} B/clk; {min(ys):.0f}-{max(ys):.0f} cycles){miss}")
    return Update("tma.latency_cycles", min(ys), "mb_tma/tma_latency", f"smallest L2-hit box latency{miss}")


def _tma_issue(recs: list[dict]) -> list[Update]:
    """Issue cost from the smallest box at the longest burst: the instruction itself, not the data rate."""
    rows = select(recs, "tma_issue")
    if not rows:
        return []
    r = min(rows, key=lambda r: (r.get("box_bytes", 8192), -r["burst"]))
    plain, mc = r["plain_issue_cycles"], r["multicast_issue_cycles"]
    box = r.get("box_bytes", 8192)
    return [Update("tma.issue_cycles", plain, "mb_tma/tma_issue",
                   f"back-to-back issue of {r['burst']} {box} B boxes by one thread, cycles per box"),
            Update("tma.multicast_issue_cycles", max(mc - plain, 0.0), "mb_tma/tma_issue",
                   f"multicast (cluster 2) minus plain issue cycles per {box} B box ({mc:.1f} - {plain:.1f})")]


# wgmma instructions this wide or wider are math-bound (below it, shared-memory reads of the operands bind)
MMA_ISSUE_MIN_N = 64


def _mma_issue(recs: list[dict]) -> Update | None:
    """The wgmma issue cost: the cycles a back-to-back instruction takes beyond its math (FLOPs / the per-SM peak per
    clock), median over the throughput records of N >= MMA_ISSUE_MIN_N (bf16 k16, e4m3 k32; 1-4 warpgroups)."""
    vals = []
    for r in select(recs, "wgmma_throughput"):
        if r.get("n", 0) < MMA_ISSUE_MIN_N or not r.get("flops_per_clock_per_sm"):
            continue
        eight_bit = r.get("dtype") == "e4m3"
        flops = 64 * r["n"] * (32 if eight_bit else 16) * 2
        vals.append(flops / r["flops_per_clock_per_sm"] - flops / (8192 if eight_bit else 4096))
    if not vals:
        return None
    return Update("tensor_core.mma_issue_overhead_cycles", max(statistics.median(vals), 0.0),
                  "mb_wgmma/wgmma_throughput",
                  f"median over {len(vals)} back-to-back wgmma records of N >= {MMA_ISSUE_MIN_N} of cycles per "
                  f"instruction (FLOPs / FLOP per clock) beyond its math ({min(vals):.2f}-{max(vals):.2f})")


def _tma_bandwidth(recs: list[dict]) -> Update | None:
    rows = select(recs, "tma_stream", source="l2", ctas=1, swizzle=128)
    if not rows:
        return None
    best = max(rows, key=lambda r: r["bytes_per_clock_per_sm"])
    return Update("tma.bytes_per_clock_per_sm", best["bytes_per_clock_per_sm"], "mb_tma/tma_stream",
                  f"one CTA alone streaming {best['box_inner']}x{best['box_outer']} bf16 boxes (128B swizzle, "
                  f"{best['stages']} stages) from L2, best box size")


SECTOR_BYTES, LINE_BYTES = 32, 128   # L2 sector and line (CUDA C++ Best Practices Guide); checked by ncu below


def _pitch_geometry(r: dict) -> tuple[float, float]:
    """Mean (requests, sectors) per box row of one mb_pitch case, over a full cycle of row offsets."""
    from ..sim.memory import row_requests_sectors   # standard library only
    row, pitch, origin = int(r["row_bytes"]), int(r["pitch_bytes"]), int(r.get("origin_bytes", 0))
    pairs = [row_requests_sectors(origin + i * pitch + j * row, row, SECTOR_BYTES, LINE_BYTES)
             for i in range(LINE_BYTES) for j in range(max(1024 // row, 1))]
    return sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs)


def _lstsq2(xs: list[tuple[float, float]], ys: list[float]) -> tuple[float, float]:
    """Least squares y = a x0 + b x1 (no intercept)."""
    s00 = sum(x[0] * x[0] for x in xs)
    s01 = sum(x[0] * x[1] for x in xs)
    s11 = sum(x[1] * x[1] for x in xs)
    t0 = sum(x[0] * y for x, y in zip(xs, ys))
    t1 = sum(x[1] * y for x, y in zip(xs, ys))
    det = s00 * s11 - s01 * s01
    if abs(det) < 1e-12:
        return (t0 / s00 if s00 else 0.0), 0.0
    return (t0 * s11 - t1 * s01) / det, (s00 * t1 - s01 * t0) / det


def _pitch(recs: list[dict], eff128: float | None) -> list[Update]:
    """Row-pitch / alignment parameters from mb_pitch (tma_pitch records, tma_pitch_ncu counters)."""
    rows = select(recs, "tma_pitch")
    if not rows:
        return []
    out: list[Update] = []
    ncu = select(recs, "tma_pitch_ncu")
    if ncu:
        def _at(row, o, pitch=4096):
            return next((r for r in ncu if r["row_bytes"] == row and r["origin_bytes"] == o
                         and r["pitch_bytes"] == pitch), None)
        a, m = _at(128, 0), _at(128, 16)
        if a and m and "lts__t_sectors_per_row" in a:
            detail = (f"ncu lts__t_sectors / lts__t_requests per 128-byte box row: "
                      f"{a['lts__t_sectors_per_row']:.2f} / "
                      f"{a['lts__t_requests_per_row']:.2f} line-aligned, {m['lts__t_sectors_per_row']:.2f} / "
                      f"{m['lts__t_requests_per_row']:.2f} starting 16 B into a line")
            out.append(Update("tma.sector_bytes", SECTOR_BYTES, "mb_pitch --profile (ncu)",
                              f"L2 sector, CUDA C++ Best Practices Guide; {detail}"))
            out.append(Update("tma.line_bytes", LINE_BYTES, "mb_pitch --profile (ncu)",
                              f"L2 line, one request per line touched; {detail}"))
    one = [r for r in rows if r["op"] == "load" and r["source"] == "l2" and r["ctas"] == 1]
    per_req = []
    for r in one:
        req, _ = _pitch_geometry(r)
        if req >= 1.25:   # request-bound (aligned 128-byte rows are bound by bytes and box issue instead)
            per_req.append(r["row_bytes"] / r["bytes_per_clock_per_sm"] / req)
    if per_req:
        out.append(Update("tma.request_cycles", statistics.median(per_req), "mb_pitch/tma_pitch",
                          f"one CTA alone streaming 128-byte rows from L2 at 64/32/16-byte aligned pitches "
                          f"(1.5-2.6 requests per row): median cycles per request over {len(per_req)} cases "
                          f"({min(per_req):.3f}-{max(per_req):.3f})"))

    def fit(sel: list[dict], key) -> tuple[float, float, int, float] | None:
        ref: dict[tuple, float] = {}
        for r in sel:
            if r.get("origin_bytes", 0) == 0 and int(r["pitch_bytes"]) % LINE_BYTES == 0:
                ref[(key(r), r["row_bytes"])] = r["row_bytes"] / r["chip_bytes_per_clock"]
        xs, ys = [], []
        for r in sel:
            k = (key(r), r["row_bytes"])
            if k not in ref or (key(r), 128) not in ref or (r.get("origin_bytes", 0) == 0
                                                            and int(r["pitch_bytes"]) % LINE_BYTES == 0):
                continue
            req, sec = _pitch_geometry(r)
            xs.append((req - 1.0, sec - r["row_bytes"] / SECTOR_BYTES))
            ys.append((r["row_bytes"] / r["chip_bytes_per_clock"] - ref[k]) / ref[(key(r), 128)])
        if len(xs) < 2:
            return None
        a, b = _lstsq2(xs, ys)
        rms = math.sqrt(statistics.fmean([(a * x[0] + b * x[1] - y) ** 2 for x, y in zip(xs, ys)]))
        return a, b, len(xs), rms

    loads = [r for r in rows if r["op"] == "load" and r["source"] == "l2" and r["ctas"] > 1]
    f = fit(loads, lambda r: (r["sweep"], r["dtype"]))
    if f and eff128:
        a, b, n, rms = f
        row = LINE_BYTES / eff128   # L2 bytes an aligned 128-byte row occupies in the model
        how = (f"least squares over {n} chip-wide L2 cases (one CTA per SM; origin sweep 0..112 B and bf16/fp8 "
               f"pitches 128/64/32/16-byte aligned, 64- and 128-byte rows) of the extra time per box row over the "
               f"line-aligned row in the same series, against extra requests and sectors: {a:.3f} and {b:.3f} of an "
               f"aligned 128-byte row (= 128 / tma.l2_efficiency_128b = {row:.1f} B), rms residual {rms:.3f}")
        out.append(Update("tma.l2_request_bytes", a * row, "mb_pitch/tma_pitch", f"per extra request; {how}"))
        out.append(Update("tma.l2_sector_bytes", b * row, "mb_pitch/tma_pitch", f"per extra sector; {how}"))
    stores = [r for r in rows if r["op"] == "store" and r["source"] == "l2"]
    f = fit(stores, lambda r: (r["sweep"], r["dtype"]))
    if f:
        a, b, n, rms = f
        how = (f"least squares over {n} chip-wide TMA stores of 64x64 bf16 boxes (128B swizzle, the epilogue's) into "
               f"an L2-resident tensor at 64/32/16-byte aligned pitches, extra time per row over the aligned "
               f"pitch against extra requests and sectors: {a:.3f} and {b:.3f} of an aligned 128-byte row (which "
               f"the model counts as its 128 bytes), rms residual {rms:.3f}")
        out.append(Update("tma.store_l2_request_bytes", max(a, 0.0) * 128, "mb_pitch/tma_pitch",
                          f"per extra request; {how}"))
        out.append(Update("tma.store_l2_sector_bytes", max(b, 0.0) * 128, "mb_pitch/tma_pitch",
                          f"per extra sector; {how}"))
    return out


def _sync(recs: list[dict]) -> list[Update]:
    rows = select(recs, "mbarrier_local")
    if not rows:
        return []
    r = rows[0]
    out = [Update("sync.mbarrier_wait_cycles", r["try_wait_completed_cycles"], "mb_sync/mbarrier_local",
                  "try_wait.parity on an already-completed phase (dependent chain)"),
           Update("sync.mbarrier_arrive_cycles", r["arrive_issue_cycles"], "mb_sync/mbarrier_local",
                  "back-to-back local mbarrier.arrive by one thread, cycles each")]
    arrive = cluster_arrive_cycles(recs)
    if arrive is not None:
        out.append(Update("sync.cluster_arrive_cycles", arrive[0], "mb_sync/mbarrier_pingpong",
                          f"one-way mbarrier signal between the two CTAs of a cluster of 2 with our GEMM's arrive "
                          f"(mbarrier.arrive.shared::cluster, .release.cta) minus the same between two warps of one "
                          f"CTA (try_wait), median over {arrive[1]} runs"))
    return out


def cluster_arrive_cycles(records: list[dict]) -> tuple[float, int] | None:
    """(cycles, runs) a multicast stage's release takes longer to reach a peer CTA's producer than a local one
    (sync.cluster_arrive_cycles): mb_sync's one-way ping-pong between the two CTAs of a cluster with the arrive our
    GEMM releases a stage with (mbarrier.arrive.shared::cluster at its default .release.cta semantics; mode
    cross_cta_cluster2_gemm_arrive) minus the same between two warps of one CTA (cross_warp_try_wait), each run (repeats
    too) against its own; the median. The .release.cluster form (cross_cta_cluster2) puts a GPU-scope memory barrier
    before the arrive (SASS MEMBAR.ALL.GPU), which our GEMM does not execute. None without such a pair."""
    runs: list[dict] = []
    for r in records:                       # a run's records in order: a mode seen again starts the next run
        if r.get("bench") != "mbarrier_pingpong":
            continue
        if not runs or r["mode"] in runs[-1]:
            runs.append({})
        runs[-1][r["mode"]] = r["one_way_cycles"]
    diffs = [m["cross_cta_cluster2_gemm_arrive"] - m["cross_warp_try_wait"] for m in runs
             if "cross_cta_cluster2_gemm_arrive" in m and "cross_warp_try_wait" in m]
    return (statistics.median(diffs), len(diffs)) if diffs else None


def _smem(recs: list[dict]) -> list[Update]:
    out = []
    all_sms = [r for r in select(recs, "smem_read_bw") if r["ctas"] == max(x["ctas"] for x in select(recs, "smem_read_bw"))]
    if all_sms:
        r = max(all_sms, key=lambda r: r["bytes_per_clock_per_sm"])
        widths = ", ".join(f"{x.get('load_bytes', 16)} B loads {x['bytes_per_clock_per_sm']:.1f}"
                           for x in sorted(all_sms, key=lambda x: x.get("load_bytes", 16)))
        measured = r["bytes_per_clock_per_sm"]
        # A measurement within 1% of the bank limit confirms the limit (the rest is our loop's overhead).
        value = SMEM_BANK_LIMIT_BYTES_PER_CLOCK if measured >= 0.99 * SMEM_BANK_LIMIT_BYTES_PER_CLOCK else measured
        why = (f"bank limit 32 x 4 B confirmed: measured {measured:.1f} B/clk "
               f"({measured / SMEM_BANK_LIMIT_BYTES_PER_CLOCK:.1%})" if value != measured else "measured")
        out.append(Update("smem.read_bytes_per_clock_per_sm", value, "mb_memory/smem_read_bw",
                          f"{why}; ld.shared by {r['threads']} threads, one CTA on each of {r['ctas']} SMs, "
                          f"median ({widths} B/clk)"))
    lat = select(recs, "smem_latency")
    if lat:
        out.append(Update("smem.latency_cycles", lat[0]["cycles"], "mb_memory/smem_latency",
                          "ld.shared.u32 pointer chase, one thread"))
    return out


def _l2(recs: list[dict], l2_bytes: float) -> list[Update]:
    out = []
    cands = []   # (bytes per clock, bench, detail): loads from every SM, and TMA from every SM
    for r in select(recs, "l2_read_bw"):
        if r["working_set_bytes"] <= l2_bytes:
            cands.append((r["bytes_per_clock"], "mb_memory/l2_read_bw",
                          f"all SMs re-reading a {r['working_set_bytes'] / MIB:.0f} MiB working set "
                          f"(ld.global.cg.v4), {r['bytes_per_s'] / 1e12:.2f} TB/s at {r['sm_clock_hz'] / 1e9:.3f} GHz"))
    for r in select(recs, "tma_stream", source="l2"):
        if r["ctas"] > 1 and r.get("sm_clock_hz"):
            cands.append((r["chip_bytes_per_s"] / r["sm_clock_hz"], "mb_tma/tma_stream",
                          f"TMA from every SM, {r['box_inner']}x{r['box_outer']} boxes of a 2 MiB L2-resident tensor, "
                          f"{r['chip_bytes_per_s'] / 1e12:.2f} TB/s at {r['sm_clock_hz'] / 1e9:.3f} GHz"))
    if cands:
        bpc, bench, detail = max(cands)
        loads = max((c[0] for c in cands if c[1] == "mb_memory/l2_read_bw"), default=0.0)
        extra = f"; ld.global.cg from all SMs reaches {loads:.0f} B/clk" if bench != "mb_memory/l2_read_bw" and loads else ""
        out.append(Update("l2.bandwidth_bytes_per_clock", bpc, bench, f"best of loads and TMA: {detail}{extra}"))
    lat = select(recs, "l2_latency")
    if lat:
        r = min(lat, key=lambda r: abs(r["region_bytes"] - 4 * MIB))
        out.append(Update("l2.hit_latency_cycles", r["cycles"], "mb_memory/l2_latency",
                          f"ld.global.cg pointer chase over a random cycle of {r['region_bytes'] / MIB:.0f} MiB "
                          "(near and far L2 partitions mixed)"))
    return out


def _hbm(recs: list[dict], datasheet_bytes_per_s: float | None) -> list[Update]:
    out = []
    rd = select(recs, "hbm_read_bw")
    if rd and datasheet_bytes_per_s:
        bps = rd[0]["bytes_per_s"]
        copy = select(recs, "hbm_copy_bw")
        extra = f"; copy kernel {copy[0]['bytes_per_s'] / 1e12:.2f} TB/s read+write" if copy else ""
        out.append(Update("hbm.achievable_fraction", min(bps / datasheet_bytes_per_s, 1.0), "mb_memory/hbm_read_bw",
                          f"read of {rd[0]['bytes'] / 2**30:.0f} GiB at {bps / 1e12:.2f} TB/s / datasheet "
                          f"{datasheet_bytes_per_s / 1e12:.2f} TB/s{extra}"))
    lat = sorted(select(recs, "hbm_latency"), key=lambda r: r["region_bytes"])
    if lat:
        far = f"; {lat[-1]['cycles']:.0f} cycles over {lat[-1]['region_bytes'] / 2**30:.0f} GiB (TLB misses)" \
            if len(lat) > 1 else ""
        out.append(Update("hbm.latency_cycles", lat[0]["cycles"], "mb_memory/hbm_latency",
                          f"first-touch pointer chase over random lines of {lat[0]['region_bytes'] / MIB:.0f} MiB "
                          f"after an L2 flush (TLB warm){far}"))
    return out


def _clock(doc: dict) -> Update | None:
    """The clock the SMs really ran at under sustained wgmma load: clock64 cycles over %globaltimer in
    the burn kernels (it agrees with TFLOP/s / 4096 FLOP/clk/SM); nvidia-smi's clocks.sm is reported
    beside it (it read higher than the effective clock on our power-capped runs)."""
    load = (doc.get("clocks") or {}).get("load") or {}
    smi = (f"; nvidia-smi clocks.sm median {load['median_sm_mhz']:.0f} MHz over {load['samples']} samples, "
           f"power {load.get('median_power_w') or 0:.0f} W of {load.get('power_limit_w') or 0:.0f} W"
           if load.get("median_sm_mhz") else "")
    burn = select(doc.get("records", []), "burn")
    if burn:
        b = burn[0]
        return Update("clock.sustained_tensor_hz", b["median_kernel_clock_hz"], "mb_wgmma --burn",
                      f"median in-kernel SM clock (clock64 / globaltimer) over {b.get('launches', 0):.0f} launches in "
                      f"{b.get('seconds', 0):.0f} s of wgmma m64n256k16 bf16 on all SMs "
                      f"({b.get('median_tflops', 0):.0f} TFLOP/s){smi}")
    if load.get("median_sm_mhz"):
        return Update("clock.sustained_tensor_hz", load["median_sm_mhz"] * 1e6, "nvidia-smi under load",
                      f"median nvidia-smi clocks.sm under wgmma load (no in-kernel clock){smi}")
    return None


def _launch(recs: list[dict]) -> list[Update]:
    """What an event-timed launch adds (mb_stream launch_gap: event time - spin time of kernels spinning 5-100 us)
    and the GPU time between two such launches (mb_wgmma --gap: start-to-start period - event time of burn
    kernels up to 500 us; longer ones: one batch's period is within the events' resolution)."""
    out = []
    spin = [r["added_us"] for r in select(recs, "launch_gap", kernel="spin") if 4.5 <= r.get("spin_us", 0) <= 100.0]
    if spin:
        out.append(Update("gpu.launch_overhead_s", statistics.median(spin) * 1e-6, "mb_stream/launch_gap",
                          f"kernels spinning 5-100 us, a CUDA event pair around every launch, back to back: event "
                          f"time - spin time = {min(spin):.2f}-{max(spin):.2f} us over {len(spin)} points "
                          f"(median {statistics.median(spin):.2f} us)"))
    gap = [r["period_us"] - r["event_us"] for r in select(recs, "gap") if r.get("in_kernel_us", 1e9) < 500]
    if gap:
        out.append(Update("gpu.launch_gap_s", statistics.median(gap) * 1e-6, "mb_wgmma --gap",
                          f"wgmma burn kernels up to 500 us launched back to back with an event pair around each: "
                          f"start-to-start period - event time = {min(gap):.2f}-{max(gap):.2f} us over {len(gap)} "
                          f"lengths (median {statistics.median(gap):.2f} us)"))
    return out


TRANSIENT_FAST_MS = 30.0   # launches starting this soon after the first: before the limiter's drop (37-90 ms)


def _short_ratio(recs: list[dict], power: dict | None) -> Update | None:
    """clock.short_power_ratio from mb_wgmma --transient: the full-rate burn's clock over the first
    TRANSIENT_FAST_MS of load after idle, as the power while the kernel runs relative to the sustained cap with the
    hardware file's power model: (f / f_sustained)^gamma (the limiter's fast window counts no idle time:
    sim/power.py PowerLimits)."""
    fast = [r for r in select(recs, "transient") if 0 < r.get("start_ms", -1) <= TRANSIENT_FAST_MS]
    if not fast or not power:
        return None
    f = statistics.median(r["kernel_clock_hz"] for r in fast)
    ratio = (f / power["sustained_tensor_hz"]) ** power["power_exponent"]
    return Update("clock.short_power_ratio", ratio, "mb_wgmma --transient",
                  f"the full-rate bf16 burn's in-kernel clock over the first {TRANSIENT_FAST_MS:.0f} ms of ~1 ms "
                  f"launches after idle: {f / 1e6:.0f} MHz (median of {len(fast)} launches); (f / "
                  f"{power['sustained_tensor_hz'] / 1e9:.2f} GHz)^{power['power_exponent']:g} = {ratio:.2f} of the "
                  "sustained cap while the kernel runs")


def derive_updates(doc: dict, datasheet_hbm_bytes_per_s: float | None,
                   l2_efficiency_128b: float | None = None, power: dict | None = None,
                   tma_latencies: tuple[float, float] | None = None) -> list[Update]:
    """All hardware values the records support (missing benchmarks are skipped). The pitch parameters
    are in L2 bytes relative to an aligned 128-byte row, so they need the hardware file's
    tma.l2_efficiency_128b; the GPC pool is read at its tma.latency_cycles + tma.hbm_miss_latency_cycles."""
    recs = doc.get("records", [])
    dev = (select(recs, "device") or [{}])[0]
    l2_bytes = dev.get("l2_bytes", 50 * MIB)
    # wgmma latencies are reported (report.py) but not written: tensor_core.mma_min_latency_cycles is the
    # model's floor on the issue interval (Luo's RS 13 cycles), while we measure SS issue -> completion.
    found: list[Update | None] = [_tma_latency(recs), _tma_bandwidth(recs), _clock(doc), _short_ratio(recs, power),
                                  _mma_issue(recs)]
    groups: list[Callable[[], list[Update]]] = [
        lambda: _tma_issue(recs), lambda: _sync(recs), lambda: _smem(recs), lambda: _l2(recs, l2_bytes),
        lambda: _hbm(recs, datasheet_hbm_bytes_per_s), lambda: _pitch(recs, l2_efficiency_128b),
        lambda: _launch(recs)]
    for g in groups:
        found.extend(g())
    if tma_latencies is not None:
        found.append(_gpc_pool(recs, *tma_latencies))
    return [u for u in found if u is not None]


def _gpc_pool(recs: list[dict], latency_cycles: float, miss_latency_cycles: float) -> Update | None:
    got = gpc_inflight_bytes(recs, latency_cycles, miss_latency_cycles)
    if got is None:
        return None
    return Update("gpu.gpc_inflight_bytes", got[0], "mb_tma/tma_gpc_ring",
                  f"median over {got[1]} all-miss skinny rings on {GPC_POOL_MIN_SMS}+ SMs of one GPC of SMs x bytes a "
                  f"k-block / cycles a k-block x {latency_cycles + miss_latency_cycles:.0f} cycles (Little's law at "
                  f"tma.latency_cycles + tma.hbm_miss_latency_cycles)")


# Sections whose values belong to the product (memory type, L2 enabled, power limit and cooling) rather
# than to the GH100 die: an H200 measurement says nothing about an H100 SXM's HBM, L2 or clock.
PRODUCT_SECTIONS = ("l2", "hbm", "clock")
_PRODUCT = re.compile(r"\b(G?[HB]\d{3})\b", re.IGNORECASE)


def product_of(name: str) -> str | None:
    """'NVIDIA H100 80GB HBM3' -> 'H100'; None where no product code appears."""
    m = _PRODUCT.search(name or "")
    return m.group(1).upper() if m else None


def split_for_target(updates: list[Update], measured_gpu: str, target_gpu: str) -> tuple[list[Update], list[Update]]:
    """(to write, skipped): all of them when the measured GPU is the target product, else die-level only."""
    same = product_of(measured_gpu) is not None and product_of(measured_gpu) == product_of(target_gpu)
    if same:
        return list(updates), []
    keep = [u for u in updates if u.key.split(".")[0] not in PRODUCT_SECTIONS]
    return keep, [u for u in updates if u not in keep]


def rounded(key: str, value: float) -> float | int:
    """Values as written to the TOML: clocks to 1 MHz, seconds to 0.01 us, fractions to 3 digits, ratios to 2, others
    to 0.1."""
    if key.endswith("_hz"):
        return round(value / 1e6) * 1e6
    if key.endswith("_s"):
        return round(value * 1e8) / 1e8
    if key.endswith("overhead_cycles"):
        return round(value, 2)
    if key.endswith("_fraction"):
        return round(value, 3)
    if key.endswith("_ratio"):
        return round(value, 2)
    return round(value, 1)


__all__ = ["Update", "derive_updates", "select", "fit_line", "rounded", "product_of", "split_for_target",
           "gpc_inflight_bytes", "zero_fill_hold_share", "HoldFit", "PRODUCT_SECTIONS"]


# tma.hbm_queue_ns: the loaded HBM latency of tensor-map boxes (issue 8). Points of mb_tma tma_hbm_sms /
# tma_hbm_panel whose ring is short enough to be latency-bound (<= 4 stages, not at the issue floor) and whose
# chip HBM utilization u (chip bytes/s over the model's achievable HBM bandwidth) lies in [0.2, 0.85], the range
# sim/pipeline.py applies the term over (sim/params.py HBM_QUEUE_MAX_UTILIZATION).
QUEUE_FIT_UTILIZATION = (0.2, 0.85)


def hbm_queue_ns(records: list[dict], hbm_bytes_per_s: float, latency_cycles: float, miss_latency_cycles: float,
                 tma_bytes_per_clock: float) -> tuple[float, int, float] | None:
    """(queue ns, points, rms residual ns): least squares through the origin of the extra latency per box over
    the model's unloaded figure (tma.latency_cycles + tma.hbm_miss_latency_cycles + box bytes at the SM's TMA
    rate), against u / (1 - u). Per box in flight: stages x box bytes / per-SM bytes per clock (Little's law).
    None without such points."""
    pts = []
    for r in records:
        if r.get("bench") not in ("tma_hbm_sms", "tma_hbm_panel") or r["stages"] > 4:
            continue
        if r["cycles_per_box"] < 250 or not r.get("sm_clock_hz"):
            continue
        u = r["chip_bytes_per_s"] / hbm_bytes_per_s
        if not QUEUE_FIT_UTILIZATION[0] <= u <= QUEUE_FIT_UTILIZATION[1]:
            continue
        loaded = r["stages"] * r["box_bytes"] / r["bytes_per_clock_per_sm"]
        unloaded = latency_cycles + miss_latency_cycles + r["box_bytes"] / tma_bytes_per_clock
        pts.append(((loaded - unloaded) / r["sm_clock_hz"] * 1e9, u / (1.0 - u)))
    if not pts:
        return None
    q = sum(e * x for e, x in pts) / sum(x * x for _, x in pts)
    rms = (sum((e - q * x) ** 2 for e, x in pts) / len(pts)) ** 0.5
    return q, len(pts), rms


# Rings on at least this many SMs of one GPC fill its pool of in-flight loads (mb_tma --gpc-probe: 8 SMs of one GPC
# run as fast as 8 spread over the GPCs, 12 and 16 do not).
GPC_POOL_MIN_SMS = 12


def gpc_inflight_bytes(records: list[dict], latency_cycles: float, miss_latency_cycles: float) -> tuple[float, int] | None:
    """(bytes, points): the TMA loads one GPC holds in flight. Every load of these rings misses L2 (B boxes from
    HBM, alone or with each CTA's own A rows), so each byte is held for tma.latency_cycles +
    tma.hbm_miss_latency_cycles; on GPC_POOL_MIN_SMS or more SMs of one GPC the pool is full, and by Little's law
    it holds SMs x (bytes a k-block / cycles a k-block of the median CTA) x that latency. Median over the points;
    None without any."""
    vals = []
    for r in records:
        if r.get("bench") != "tma_gpc_ring" or r.get("placement") != "one GPC" or r["ctas"] < GPC_POOL_MIN_SMS:
            continue
        if r.get("b_source", "hbm") != "hbm" or r["a_box"] not in ("none", "128 rows, each CTA its own"):
            continue
        stage = 128 * r["tile_n"] * (2 if r["a_box"] != "none" else 1)
        vals.append(r["ctas"] * stage / r["cycles_per_kblock"] * (latency_cycles + miss_latency_cycles))
    return (statistics.median(vals), len(vals)) if vals else None


@dataclass(frozen=True)
class HoldFit:
    """zero_fill_hold_share's least squares: extra hold cycles per zero-fill byte = intercept_cycles + share x
    queue x u / (1 - u)."""
    share: float
    intercept_cycles: float
    points: int
    rms_cycles: float


def zero_fill_hold_share(records: list[dict], pool_bytes: float, hbm_bytes_per_s: float, latency_cycles: float,
                         miss_latency_cycles: float, queue_ns: float, clock_hz: float,
                         max_utilization: float = 0.85) -> HoldFit | None:
    """How much longer a crowded GPC's pool holds its zero-fill bytes as the chip's HBM loads, from mb_tma --gpc-load
    (``tma_gpc_load`` records): the rings of GPC_POOL_MIN_SMS or more SMs of one GPC whose A box reaches beyond the
    matrix edge, beside 0..96 loading SMs. By Little's law each of the GPC's SMs holds its share of the pool
    (``pool_bytes``, gpu.gpc_inflight_bytes) for its cycles a k-block, so beyond the unloaded hold of a stage (its B
    rows as misses: latency_cycles + miss_latency_cycles; its A rows, in bounds or not: latency_cycles) the zero-fill
    bytes are held (cycles x pool / SMs - unloaded) / zero-fill bytes longer. Least squares of that against
    queue x u / (1 - u) (queue: queue_ns at clock_hz, the rings' clock; u: the chip's B bytes/s over
    ``hbm_bytes_per_s``, at most ``max_utilization``, as sim/params._loaded_pool_rate holds it) with an intercept
    (the hold the zero fill has unloaded). The slope is the hold's tma.pool_queue_share as this microbenchmark sees
    it. None with fewer than three such rings."""
    queue = queue_ns * 1e-9 * clock_hz
    xs, ys = [], []
    for r in records:
        if r.get("bench") != "tma_gpc_load" or int(r["gpc_sms"]) < GPC_POOL_MIN_SMS:
            continue
        box, inb = int(r["a_box_rows"]), int(r["a_tensor_rows"])
        zero = (box - inb) * 128
        if zero <= 0:
            continue
        b = int(r["tile_n"]) * 128
        held = b * (latency_cycles + miss_latency_cycles) + box * 128 * latency_cycles
        u = min(r["b_bytes_per_s"] / hbm_bytes_per_s, max_utilization)
        xs.append(queue * u / (1.0 - u))
        ys.append((r["gpc_cycles_per_kblock"] * pool_bytes / int(r["gpc_sms"]) - held) / zero)
    if len(xs) < 3:
        return None
    slope, intercept = fit_line(xs, ys)
    rms = (sum((intercept + slope * x - y) ** 2 for x, y in zip(xs, ys)) / len(xs)) ** 0.5
    return HoldFit(slope, intercept, len(xs), rms)


# mb_tma --miss-mix points count toward l2.fill_cost while their HBM rate stays below this share of the all-miss
# point's (the chip's HBM not yet the limit: H100 up to a miss share of 0.3125, H200 0.5)
FILL_COST_MAX_HBM_SHARE = 0.75


def fill_cost(records: list[dict]) -> tuple[float, int] | None:
    """(c, points): what an L2 fill from HBM costs the L2, as a share of a hit byte's time. mb_tma --miss-mix streams
    16 KB boxes from every SM, a share x of them from HBM; with a fill costing c of a hit the chip moves its all-hit
    rate T0 / (1 + c x). Least squares of T0 / T - 1 = c x through the origin over the deepest ring's points (a
    shallower one turns latency-bound as misses grow) whose HBM rate is under FILL_COST_MAX_HBM_SHARE of the all-miss
    point's, every run (repeats too) against its own all-hit point. None without such points."""
    mix = [r for r in records if r.get("bench") == "tma_miss_mix"]
    if not mix:
        return None
    deepest = max(r["stages"] for r in mix)
    xy = []
    for rep in {r.get("repeat", 0) for r in mix}:
        run = [r for r in mix if r["stages"] == deepest and r.get("repeat", 0) == rep]
        base = [r["chip_bytes_per_s"] for r in run if r["miss_share"] == 0]
        full = [r["hbm_bytes_per_s"] for r in run if r["miss_share"] == 1]
        if not base or not full:
            continue
        for r in run:
            if 0 < r["miss_share"] and r["hbm_bytes_per_s"] <= FILL_COST_MAX_HBM_SHARE * full[0]:
                xy.append((r["miss_share"], base[0] / r["chip_bytes_per_s"] - 1))
    if not xy:
        return None
    return sum(x * y for x, y in xy) / sum(x * x for x, _ in xy), len(xy)


# mb_tma --direct-store points whose grid fills a GPC's pool of SMs well enough to bind its store path (the 16-CTA
# grids put 9 SMs on the busiest GPC, where the SMs' own limit, 8 B a cycle, binds first)
DIRECT_STORE_GPC_MIN_CTAS = 64


def direct_store_rates(records: list[dict], hw, vector_bytes: int = 4) -> tuple[float, float, int] | None:
    """(per-SM bytes a cycle, per-GPC bytes a cycle, GPC points) of a direct-store epilogue's stores (mb_tma
    --direct-store) of ``vector_bytes`` a thread a store (4: our kernel's accumulator fragments, the records without the
    field; 16: coalesced rows). The per-SM figure: the median CTA's issue rate of the 16-CTA grids (their stores do not
    fill a GPC's path). The per-GPC figure: the slowest CTA's rate times the SMs of the busiest GPC of a plain grid of
    that many CTAs (HardwareSpec.busiest_gpc_sms), the median over the grids of at least DIRECT_STORE_GPC_MIN_CTAS: the
    slowest CTAs are the crowded GPC's, and the whole GPC shares one store path. None without both kinds of point."""
    recs = [r for r in records if r.get("bench") == "direct_store" and r.get("vector_bytes", 4) == vector_bytes]
    sm = [r["issue_bytes_per_clock_per_sm"] for r in recs if r["ctas"] <= 16]
    gpc = [r["min_issue_bytes_per_clock_per_sm"] * hw.busiest_gpc_sms(int(r["ctas"]))
           for r in recs if r["ctas"] >= DIRECT_STORE_GPC_MIN_CTAS]
    if not sm or not gpc:
        return None
    return statistics.median(sm), statistics.median(gpc), len(gpc)


def cluster_exit_s(records: list[dict]) -> tuple[float, int] | None:
    """(seconds, pairs) a cluster barrier before exit adds to a launch (mb_stream --launch-clusters ->
    gpu.cluster_exit_s): per (CTAs, cluster size, spin) the launch time with the barrier minus without, over the
    spinning kernels (spin > 0) whose grid ran in one wave (the barrier-free launch shorter than twice the spin), every
    run's pair; the median. None without such a pair."""
    def key(r: dict) -> tuple:
        return r["ctas"], r["cluster"], r["spin_us_at_1980mhz"], r.get("repeat", 0)

    recs = [r for r in records if r.get("bench") == "launch_clusters"]
    free = {key(r): r["us_per_launch"] for r in recs if not r["cluster_sync"]}
    diffs = [r["us_per_launch"] - free[key(r)] for r in recs
             if r["cluster_sync"] and r["spin_us_at_1980mhz"] > 0 and key(r) in free
             and free[key(r)] < 2 * r["spin_us_at_1980mhz"]]
    return (statistics.median(diffs) * 1e-6, len(diffs)) if diffs else None
