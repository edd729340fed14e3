"""The crowded GPC beside a loaded chip: the tables of mb_tma --gpc-load (issue 8, the twenty-second session).

    python3 benchmarks/gpc_load.py [DIR ...]      # default: data/ncu/gpc_load_h100{,_second} and _h200{,_second}
    python3 benchmarks/gpc_load.py --share        # the zero fill's loaded hold each GPU's runs imply

The records (`tma_gpc_load`, each run's `gpc_load*.jsonl`): n SMs of one GPC (12: crowded, 4: not) stream a skinny
ring, each its own B rows from HBM, while `load` SMs spread over the other GPCs stream the same ring. Per ring, per n
and load: the median cycles a k-block of the GPC's CTAs and of the loading CTAs, their ratio (above 1: the GPC falls
behind), the chip's B bytes a second, and the bytes a cycle the GPC moves (its SMs x the ring's stage bytes over their
cycles). Why the model holds only a pool's zero fill longer under HBM load (sim/params._memory_shares): on the H100
the all-miss rings keep pace with the loaders once the HBM saturates, the zero-fill rings fall behind.

--share: per GPU (all its runs together), the hold's slope as the microbenchmark sees it
(perfmodel.microbench.derive.zero_fill_hold_share at the GPU's hardware file and boost clock), and what the H200's
tma.pool_queue_share would be as the H100's (a fit on its GEMMs, which the microbenchmark's slope overstates) times the
two slopes' ratio. Tried 2026-11-27 and not kept: the H200 file keeps the H100's value (docs/calibrate.md, the
twenty-third session).
"""
from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perfmodel.microbench.runner import MicrobenchError, parse_records  # noqa: E402

DEFAULT = [ROOT / f"data/ncu/{d}" for d in ("gpc_load_h100", "gpc_load_h100_second", "gpc_load_h200",
                                          "gpc_load_h200_second")]
ROW_BYTES = 128          # the rings' box rows (64 bf16)


def read_run(path: pathlib.Path) -> tuple[str, list[dict]]:
    """(GPU name, the tma_gpc_load records) of one run's output: its 'MB {json}' lines, read by the microbenchmark
    driver's own parser (perfmodel.microbench.runner.parse_records)."""
    recs = parse_records(path.read_text())
    gpu = next((r.get("name", "?") for r in recs if r["bench"] == "device"), "?")
    return gpu, [r for r in recs if r["bench"] == "tma_gpc_load"]


def ring_name(r: dict) -> str:
    """The ring in words: its A box (none, in bounds and shared, or partly beyond the edge) and its B box."""
    a_rows, in_bounds = int(r["a_box_rows"]), int(r["a_tensor_rows"])
    a = ("no A box" if a_rows == 0 else f"a shared {a_rows}-row A box" if in_bounds >= a_rows
         else f"a {a_rows}-row A box, {a_rows - in_bounds} rows beyond the edge")
    return f"{int(r['tile_n'])}-row B box, {a}, {int(r['stages'])} stages"


def table(rows: list[dict]) -> list[str]:
    """One line a record, grouped by ring and by the GPC's SMs."""
    out = []
    key = None
    for r in rows:
        k = (ring_name(r), int(r["gpc_sms"]))
        if k != key:
            key = k
            out.append(f"  {k[0]}; {k[1]} SMs of one GPC")
            out.append(f"    {'loading SMs':>11} {'GPC cycles':>10} {'loaders':>8} {'ratio':>6} {'B TB/s':>7} "
                       f"{'GPC B/cycle':>11}")
        stage = (int(r["a_box_rows"]) + int(r["tile_n"])) * ROW_BYTES
        gpc, load = r["gpc_cycles_per_kblock"], r["load_cycles_per_kblock"]
        ratio = f"{gpc / load:6.2f}" if load > 0 else f"{'-':>6}"
        out.append(f"    {int(r['load_sms']):>11} {gpc:>10.0f} {load if load > 0 else float('nan'):>8.0f} {ratio} "
                   f"{r['b_bytes_per_s'] / 1e12:>7.2f} {int(r['gpc_sms']) * stage / gpc:>11.0f}")
    return out


def hold_fit(gpu: str, rows: list[dict]):
    """(hardware file name, HoldFit or None) of one GPU's tma_gpc_load records at its hardware file's figures."""
    from perfmodel import load_hardware
    from perfmodel.measure.api import spec_for_gpu
    from perfmodel.microbench.derive import zero_fill_hold_share
    from perfmodel.sim.params import HBM_QUEUE_MAX_UTILIZATION
    spec = spec_for_gpu(gpu)
    if spec is None:
        return None, None
    hw = load_hardware(spec)
    t = hw.tma
    return spec, zero_fill_hold_share(rows, hw.gpu.gpc_inflight_bytes, hw.hbm.bandwidth_bytes_per_s
                                      * hw.hbm.achievable_fraction, t.latency_cycles, t.hbm_miss_latency_cycles,
                                      t.hbm_queue_ns or 0.0, hw.clock.boost_hz, HBM_QUEUE_MAX_UTILIZATION)


def shares(runs: dict[str, list[dict]]) -> list[str]:
    """The --share lines: each GPU's slope, and the H200's transfer from the H100's fitted value."""
    from perfmodel import load_hardware
    out, fits = [], {}
    for gpu, rows in runs.items():
        spec, fit = hold_fit(gpu, rows)
        if fit is None:
            out.append(f"{gpu}: " + ("no hardware file" if spec is None else "no zero-fill rings of a crowded GPC"))
            continue
        fits[spec] = fit
        out.append(f"{gpu} ({spec}, {fit.points} rings): the zero fill's extra hold = {fit.intercept_cycles:.0f} "
                   f"cycles + {fit.share:.3f} x hbm_queue x u/(1-u) (rms {fit.rms_cycles:.0f} cycles)")
    if "h100-sxm" in fits and "h200" in fits:
        fitted = load_hardware("h100-sxm").tma.pool_queue_share or 0.0
        ratio = fits["h200"].share / fits["h100-sxm"].share
        out.append(f"H200 / H100 slope {ratio:.3f}; the H100's fitted tma.pool_queue_share {fitted:.3f} x {ratio:.3f} "
                   f"= {fitted * ratio:.2f} (the H200's by this transfer; tried, not kept)")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=pathlib.Path, help="run folders holding gpc_load*.jsonl")
    ap.add_argument("--share", action="store_true", help="the zero fill's loaded hold each GPU's runs imply")
    args = ap.parse_args(argv)
    dirs = args.dirs or DEFAULT
    runs: dict[str, list[dict]] = {}
    for d in dirs:
        files = sorted(d.glob("gpc_load*.jsonl")) if d.is_dir() else []
        if not files:
            print(f"gpc_load.py: no gpc_load*.jsonl in {d}", file=sys.stderr)
            return 1
        for f in files:
            try:
                gpu, rows = read_run(f)
            except (OSError, MicrobenchError) as exc:
                print(f"gpc_load.py: {f}: unreadable ({exc.__class__.__name__})", file=sys.stderr)
                return 1
            runs.setdefault(gpu, []).extend(rows)
            if not args.share:
                print(f"{f.relative_to(ROOT) if f.is_relative_to(ROOT) else f} ({gpu}, {len(rows)} rings)")
                print("\n".join(table(rows)))
    if args.share:
        try:
            print("\n".join(shares(runs)))
        except (KeyError, TypeError, ValueError) as exc:
            print(f"gpc_load.py: --share: malformed records ({exc.__class__.__name__})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
