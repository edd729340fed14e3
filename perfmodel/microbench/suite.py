"""The whole microbenchmark run: build, run every program, sample clocks under load, write results,
derive hardware values, optionally apply them to a hardware TOML. Shared by
``python3 -m perfmodel.microbench`` and ``perfmodel calibrate --microbench``."""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import time
import tomllib
from pathlib import Path

from ..hardware import hardware_dir
from . import MicrobenchError
from .build import all_sources_digest, build_all, find_nvcc, nvcc_version
from .derive import Update, derive_updates, product_of, rounded, split_for_target
from .report import summary_table, write_csvs
from .runner import SmiSampler, provenance, run_program
from .tomledit import apply_to_file

SCHEMA = "perfmodel.microbench/1"
DEFAULT_OUT = "data/microbench"
DEFAULT_BUILD = "build/microbench"
PROGRAM_TIMEOUT_S = 120   # each program takes seconds; a hang must not eat the GPU lease


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=DEFAULT_OUT, help=f"results folder (default {DEFAULT_OUT})")
    p.add_argument("--build-dir", default=DEFAULT_BUILD, help=f"nvcc output cache (default {DEFAULT_BUILD})")
    p.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke test, not for the TOML)")
    p.add_argument("--burn-seconds", type=float, default=15.0, help="sustained tensor load for the clock (s)")
    p.add_argument("--idle-seconds", type=float, default=3.0, help="nvidia-smi idle sampling before the run (s)")
    p.add_argument("--apply", metavar="TOML", help="write the measured values into this hardware file")
    p.add_argument("--from-json", metavar="FILE", help="use an earlier run's results instead of running")
    p.add_argument("--build-only", action="store_true", help="compile the programs and stop")


def check_gpu() -> None:
    """Exit early (MicrobenchError -> CLI exit 2) where there is plainly no NVIDIA GPU."""
    if not (Path("/dev/nvidia0").exists() or Path("/dev/nvidiactl").exists()):
        if shutil.which("nvidia-smi") is None:
            raise MicrobenchError("no NVIDIA GPU found (no /dev/nvidia* and no nvidia-smi); run the "
                                  "microbenchmarks on a Hopper GPU machine, or use --from-json")


def _clock_summary(samples: list[dict], seconds: float) -> dict:
    def med(key):
        vals = [s[key] for s in samples if s.get(key) is not None]
        return statistics.median(vals) if vals else None
    return {"samples": len(samples), "seconds": seconds, "median_sm_mhz": med("clocks.sm"),
            "max_sm_mhz": med("clocks.max.sm"), "median_power_w": med("power.draw"),
            "power_limit_w": med("power.limit"), "median_temp_c": med("temperature.gpu")}


def _run_one(doc: dict, logs: dict, path: str, name: str, args: list[str], timeout_s: float):
    """Run one program; a failure is recorded in the document and the suite goes on."""
    label = name + ("_" + args[0].lstrip("-") if args and args[0] != "--quick" else "")
    print(f"[microbench] running {label} ...", flush=True)
    entry = {"program": name, "args": args}
    doc["programs"].append(entry)
    try:
        run = run_program(path, args, timeout_s)
    except MicrobenchError as exc:
        entry["error"] = str(exc)
        print(f"[microbench] {label} FAILED: {exc}", flush=True)
        return None
    have_device = any(r["bench"] == "device" for r in doc["records"])
    doc["records"].extend(r for r in run.records if not (have_device and r["bench"] == "device"))
    entry["seconds"] = round(run.seconds, 2)
    logs[label] = run.stdout + run.stderr
    return run


def measure(args, command: str) -> dict:
    """Build and run everything on this machine's GPU; returns the results document."""
    nvcc = find_nvcc()
    if nvcc is None:
        raise MicrobenchError("nvcc not found (looked in $CUDA_HOME/bin, PATH, /usr/local/cuda/bin)")
    check_gpu()
    bins = build_all(args.build_dir, nvcc=nvcc)
    doc = {"schema": SCHEMA, "provenance": provenance(command, nvcc_version(nvcc), all_sources_digest()),
           "quick": bool(args.quick), "programs": [], "records": []}
    extra = ["--quick"] if args.quick else []
    logs: dict[str, str] = {}
    sampler = SmiSampler()
    burn, t_end = None, 0.0
    try:
        t_idle0 = time.monotonic()
        time.sleep(max(args.idle_seconds, 0.0) if sampler.available else 0.0)
        t_idle1 = time.monotonic()
        for name in ("mb_memory", "mb_sync", "mb_wgmma", "mb_tma"):
            _run_one(doc, logs, str(bins[name].path), name, extra, PROGRAM_TIMEOUT_S)
        if args.burn_seconds > 0:
            burn = _run_one(doc, logs, str(bins["mb_wgmma"].path), "mb_wgmma",
                            ["--burn", str(args.burn_seconds)], PROGRAM_TIMEOUT_S + args.burn_seconds)
            t_end = time.monotonic()
    finally:
        sampler.stop()
    doc["clocks"] = {"nvidia_smi": sampler.available, "samples": []}
    if sampler.available:
        doc["clocks"]["idle"] = _clock_summary(sampler.between(t_idle0, t_idle1), t_idle1 - t_idle0)
        if burn is not None and "burn_start" in burn.line_times:
            t0 = burn.line_times["burn_start"] + 2.0   # skip the first 2 s while the clock settles
            doc["clocks"]["load"] = _clock_summary(sampler.between(t0, t_end), t_end - t0)
        t_first = sampler.samples[0][0] if sampler.samples else 0.0
        doc["clocks"]["samples"] = [dict(s, t=round(s["t"] - t_first, 3))
                                    for s in sampler.between(0.0, float("inf"))]
    doc["_logs"] = logs
    return doc


def _slug(name: str) -> str:
    s = re.sub(r"^nvidia\s+", "", name.strip().lower())
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-") or "gpu"


def write_results(doc: dict, out_dir: str) -> Path:
    dev = next((r for r in doc["records"] if r["bench"] == "device"), {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{_slug(dev.get('name', 'gpu'))}-{doc['provenance']['date']}"
    if (out / f"{stem}.json").exists():
        stem += "-" + doc["provenance"]["utc"][11:19].replace(":", "")
    logs = doc.pop("_logs", {})
    (out / f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
    folder = out / stem
    write_csvs(doc, folder)
    for name, text in logs.items():
        (folder / f"{name}.log").write_text(text)
    return out / f"{stem}.json"


def load_results(path: str) -> dict:
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise MicrobenchError(f"{path}: cannot read results: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise MicrobenchError(f"{path}: not a microbenchmark results file (schema {SCHEMA})")
    return doc


def _toml_facts(toml_path: Path) -> tuple[float | None, str]:
    """(datasheet HBM bytes/s, marketing name) of a hardware file, or (None, '') if unreadable."""
    try:
        doc = tomllib.loads(toml_path.read_text())
        return float(doc["hbm"]["bandwidth_bytes_per_s"]["value"]), str(doc["meta"]["marketing_name"])
    except (OSError, KeyError, TypeError, ValueError, tomllib.TOMLDecodeError):
        return None, ""


def _matching_toml(gpu: str) -> Path:
    """The hardware file of the measured product (for the datasheet HBM figure), else h100-sxm."""
    for path in sorted(hardware_dir().glob("*.toml")):
        if product_of(_toml_facts(path)[1]) == product_of(gpu) is not None:
            return path
    return hardware_dir() / "h100-sxm.toml"


def measured_gpu(doc: dict) -> str:
    return doc["provenance"].get("nvidia_smi", {}).get("name") or next(
        (r.get("name") for r in doc["records"] if r["bench"] == "device"), "GPU")


def toml_updates(doc: dict, updates: list[Update], results: str | None = None) -> dict[str, tuple[float, str]]:
    prov = doc["provenance"]
    gpu = measured_gpu(doc)
    where = f", data {results}" if results else ""
    return {u.key: (rounded(u.key, u.value),
                    f"our microbench {u.bench}, {gpu}, {prov['date']}, command: {prov['command']}{where}; {u.detail}")
            for u in updates}


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def run(args, command: str) -> int:
    if args.build_only:
        bins = build_all(args.build_dir)
        for b in bins.values():
            print(f"{b.name}: {b.path} ({'cached' if b.cached else 'built'})")
        return 0
    if args.from_json:
        doc, path = load_results(args.from_json), Path(args.from_json)
    else:
        doc = measure(args, command)
        path = write_results(doc, args.out)
    toml_path = Path(args.apply) if args.apply else _matching_toml(measured_gpu(doc))
    if doc.get("quick") and args.apply:
        raise MicrobenchError("refusing to apply a --quick run to a hardware file; rerun without --quick")
    datasheet_hbm, target = _toml_facts(toml_path)
    updates = derive_updates(doc, datasheet_hbm)
    print(summary_table(doc, updates))
    print(f"\nresults: {path}")
    if args.apply:
        write, skipped = split_for_target(updates, measured_gpu(doc), target)
        if skipped:
            print(f"measured on {measured_gpu(doc)}, not {target or toml_path}: writing die-level keys only; "
                  f"skipped {', '.join(u.key for u in skipped)}")
        if not write:
            raise MicrobenchError("the results hold no measurement that maps to a hardware key")
        apply_to_file(toml_path, toml_updates(doc, write, _relative(path)))
        print(f"updated {len(write)} keys in {toml_path}")
    return 0


__all__ = ["add_arguments", "run", "measure", "write_results", "load_results", "toml_updates", "SCHEMA"]
