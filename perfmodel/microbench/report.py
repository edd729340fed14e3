"""Human-readable output of a microbenchmark run: the short table printed at the end, and CSVs."""
from __future__ import annotations

import csv
from pathlib import Path

from .derive import Update, rounded, select

# Luo et al. arXiv:2501.12084 Tab. 8-9 (H800 PCIe, FP16->FP32 SS, random data): wgmma latency by N.
LUO_SS_LATENCY_CYCLES = {256: 128, 128: 64, 64: 32, 32: 24, 16: 20, 8: 18}


def write_csvs(doc: dict, folder: Path) -> list[Path]:
    """One CSV per benchmark (columns: union of its records' keys) plus the nvidia-smi clock log."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    benches: dict[str, list[dict]] = {}
    for r in doc.get("records", []):
        benches.setdefault(r["bench"], []).append(r)
    for bench, rows in benches.items():
        cols: list[str] = []
        for r in rows:
            cols += [k for k in r if k not in cols]
        path = folder / f"{bench}.csv"
        with path.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(rows)
        written.append(path)
    samples = (doc.get("clocks") or {}).get("samples") or []
    if samples:
        path = folder / "nvidia_smi_clocks.csv"
        cols = list(samples[0])
        with path.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(samples)
        written.append(path)
    return written


def _wgmma_lines(recs: list[dict]) -> list[str]:
    if not select(recs, "wgmma_latency"):
        return []
    lines = [f"{'wgmma':<10}{'N':>5}{'lat':>7}{'chain':>7}{'Luo':>6}{'FLOP/clk/SM':>13}{'W':>3}{'TFLOP/s':>9}"]
    for dtype in ("bf16", "e4m3"):
        for lat in sorted(select(recs, "wgmma_latency", dtype=dtype), key=lambda r: r["n"]):
            n = lat["n"]
            tp = select(recs, "wgmma_throughput", dtype=dtype, n=n)
            best = max(tp, key=lambda r: r["flops_per_clock_per_sm"]) if tp else None
            luo = LUO_SS_LATENCY_CYCLES.get(n) if dtype == "bf16" else None
            lines.append(f"{dtype:<10}{n:>5}{lat['issue_to_wait_cycles']:>7.1f}{lat['chain_cycles_per_wgmma']:>7.1f}"
                         f"{(str(luo) if luo else '-'):>6}"
                         f"{(best['flops_per_clock_per_sm'] if best else 0):>13.0f}"
                         f"{(best['warpgroups'] if best else 0):>3}{(best['tflops'] if best else 0):>9.1f}")
    return lines


def _gap_lines(recs: list[dict]) -> list[str]:
    """mb_wgmma --gap: each burn length's event time, start-to-start period and in-kernel clock."""
    rows = sorted(select(recs, "gap"), key=lambda r: r["event_us"])
    if not rows:
        return []
    lines = [f"{'gap: event us':<16}{'period us':>10}{'gap us':>9}{'clock MHz':>11}"]
    for r in rows:
        lines.append(f"{r['event_us']:<16.1f}{r['period_us']:>10.1f}{r['period_us'] - r['event_us']:>9.2f}"
                     f"{r['kernel_clock_hz'] / 1e6:>11.0f}")
    return lines + [""]


def summary_table(doc: dict, updates: list[Update]) -> str:
    prov = doc.get("provenance", {})
    dev = (select(doc.get("records", []), "device") or [{}])[0]
    out = [f"GPU {dev.get('name', '?')} ({dev.get('sm_count', '?')} SMs), driver "
           f"{prov.get('nvidia_smi', {}).get('driver_version', '?')}, {prov.get('nvcc', '?')}, {prov.get('utc', '?')}"]
    clocks = doc.get("clocks") or {}
    for phase in ("idle", "load"):
        c = clocks.get(phase) or {}
        if c.get("samples"):
            out.append(f"{phase:<5} SM clock {c['median_sm_mhz']:.0f} MHz (max {c.get('max_sm_mhz', 0):.0f}), "
                       f"power {c.get('median_power_w', 0):.0f} W / {c.get('power_limit_w', 0):.0f} W, "
                       f"{c.get('median_temp_c', 0):.0f} C, {c['samples']} samples")
    out.append("")
    wgmma = _wgmma_lines(doc.get("records", []))
    out.extend(wgmma + [""] if wgmma else [])
    out.extend(_gap_lines(doc.get("records", [])))
    out.append(f"{'hardware key':<38}{'value':>12}  from")
    for u in updates:   # as --apply writes them
        out.append(f"{u.key:<38}{rounded(u.key, u.value):>12.4g}  {u.bench}")
    return "\n".join(out)


__all__ = ["write_csvs", "summary_table", "LUO_SS_LATENCY_CYCLES"]
