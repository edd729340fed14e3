"""Board power of HBM traffic (``mb_power.cu``), for ``clock.hbm_power_w`` of the power-limited clock.

    python3 -m perfmodel.microbench.power --out DIR [--seconds 6] [--build-dir build/microbench]

Runs four phases of SECONDS each on the local GPU (idle; blocks resident and sleeping; 16-byte
``ld.global.cg`` reads of an L2-resident 16 MiB buffer; the same reads of a 4 GiB buffer, from HBM)
while nvidia-smi samples board power and the SM clock every 100 ms, and writes ``DIR/<gpu>-<date>-power.json``
(provenance, every record, every sample, the derivation). Reads only: clocks and power limits are
never changed. Standard library only.

Derivation (medians of the samples of each phase, skipping its first ``SETTLE_S`` seconds):
    e_l2      = (P_l2 - P_resident) / (bytes/s)_l2          W per (byte/s): SM load path + L2
    P_hbm     = (P_hbm - P_resident) - e_l2 x (bytes/s)_hbm    W: what the HBM (DRAM + PHY) adds
    hbm_power_w = P_hbm x datasheet bytes/s / (bytes/s)_hbm     the same energy per byte at the datasheet rate
The reads run below the power cap (at the boost clock), so the SM-side terms are at one clock. The same derivation
over the bulk-copy phases (``bulk_l2``, ``bulk_hbm``: the TMA unit's bulk copies into shared memory, one CTA per SM,
a GEMM's load path without the LSU's work) is ``derived["bulk"]``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import MicrobenchError
from .build import NVCC_FLAGS, SRC_DIR, find_nvcc, nvcc_version, sources_digest
from .runner import SmiSampler, provenance, run_program

SETTLE_S = 2.0
PHASES = ("idle", "resident", "l2", "hbm", "resident2", "bulk_l2", "bulk_hbm", "resident3")


def build(build_dir: Path) -> Path:
    nvcc = find_nvcc()
    if nvcc is None:
        raise MicrobenchError("nvcc not found; mb_power needs the CUDA toolkit")
    ver = nvcc_version(nvcc)
    exe = build_dir / f"mb_power-{sources_digest('mb_power', ver)}"
    if not exe.is_file():
        build_dir.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([nvcc, *NVCC_FLAGS, "-o", str(exe), str(SRC_DIR / "mb_power.cu")],
                              capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            raise MicrobenchError(f"building mb_power failed: {(proc.stdout + proc.stderr)[-2000:]}")
    return exe


def summarize(records: list[dict], times: dict[str, float], sampler_samples: list[dict]) -> dict:
    """Per phase: the record, the median power and nvidia-smi SM clock of the settled samples."""
    by = {r["bench"]: r for r in records}
    out = {}
    for name in PHASES:
        t0, t1 = times.get(f"phase_start_{name}"), times.get(name)
        if t0 is None or t1 is None:
            continue
        s = [x for x in sampler_samples if t0 + SETTLE_S <= x["t"] <= t1]
        power = [x["power.draw"] for x in s if x.get("power.draw") is not None]
        clk = [x["clocks.sm"] for x in s if x.get("clocks.sm") is not None]
        out[name] = {**by.get(name, {}), "samples": len(s),
                     "power_w": statistics.median(power) if power else None,
                     "smi_sm_clock_mhz": statistics.median(clk) if clk else None}
    return out


def derive(phases: dict, datasheet_bytes_per_s: float | None, l2_name: str = "l2", hbm_name: str = "hbm") -> dict:
    """The HBM power of the ``hbm_name`` phase's reads beyond what the same bytes cost from L2 (``l2_name``), each
    against the resident phases' power; with ``derived["bulk"]`` for the bulk-copy phases where the run has them."""
    rest = [phases[k]["power_w"] for k in ("resident", "resident2", "resident3")
            if k in phases and phases[k]["power_w"] is not None]
    res = statistics.mean(rest)
    l2, hbm = phases[l2_name], phases[hbm_name]
    e_l2 = (l2["power_w"] - res) / l2["bytes_per_s"]
    p_hbm = (hbm["power_w"] - res) - e_l2 * hbm["bytes_per_s"]
    out = {"resident_power_w": res, "l2_power_w_per_tb_s": e_l2 * 1e12, "hbm_power_w_measured": p_hbm,
           "hbm_bytes_per_s": hbm["bytes_per_s"], "hbm_pj_per_bit": p_hbm / hbm["bytes_per_s"] / 8 * 1e12}
    if datasheet_bytes_per_s:
        out["datasheet_bytes_per_s"] = datasheet_bytes_per_s
        out["hbm_power_w_at_datasheet"] = p_hbm * datasheet_bytes_per_s / hbm["bytes_per_s"]
    if l2_name == "l2" and all(phases.get(k, {}).get("power_w") is not None for k in ("bulk_l2", "bulk_hbm")):
        out["bulk"] = derive(phases, datasheet_bytes_per_s, "bulk_l2", "bulk_hbm")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="python3 -m perfmodel.microbench.power", description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="directory for the JSON result")
    p.add_argument("--seconds", type=float, default=6.0, help="seconds per phase (default 6)")
    p.add_argument("--build-dir", default="build/microbench")
    p.add_argument("--datasheet-tb-s", type=float, help="datasheet HBM bandwidth (TB/s) to scale to")
    args = p.parse_args(argv)
    try:
        exe = build(Path(args.build_dir))
        smi = SmiSampler(period_ms=100)
        t_base = time.monotonic()
        try:
            run = run_program(str(exe), ["--seconds", str(args.seconds)], 120 + 6 * args.seconds)
        finally:
            smi.stop()
        samples = smi.between(t_base - 5, time.monotonic() + 5)
        phases = summarize(run.records, run.line_times, samples)
        ver = nvcc_version(find_nvcc() or "nvcc")
        doc = {"schema": "perfmodel.microbench.power/1",
               "provenance": provenance("python3 -m perfmodel.microbench.power " + " ".join(argv), ver,
                                        sources_digest("mb_power", ver)),
               "records": run.records, "phases": phases, "samples": samples,
               "derived": derive(phases, args.datasheet_tb_s * 1e12 if args.datasheet_tb_s else None)}
    except MicrobenchError as exc:
        print(f"mb_power: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = doc["provenance"].get("nvidia_smi", {}).get("name", "gpu").lower().replace(" ", "-")
    path = out / f"{name}-{doc['provenance']['date']}-power.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({"phases": {k: {kk: v.get(kk) for kk in ("power_w", "bytes_per_s", "sm_clock_hz",
                                                                "smi_sm_clock_mhz", "samples")}
                                 for k, v in phases.items()}, "derived": doc["derived"]}, indent=1))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
