"""The whole microbenchmark run: build, run every program, sample clocks under load, write results,
derive hardware values, optionally apply them to a hardware TOML. Shared by
``python3 -m perfmodel.microbench`` and ``perfmodel calibrate --microbench``."""
from __future__ import annotations

import argparse
import json
import math
import os
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
from .runner import SmiSampler, parse_records, provenance, run_program
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
    p.add_argument("--transient", action=argparse.BooleanOptionalAction, default=True,
                   help="mb_wgmma --transient: the clock of a short loop after the GPU idled (clock.short_power_ratio; "
                        "~15 s; default on)")
    p.add_argument("--gap-seconds", type=float, default=1.5,
                   help="mb_wgmma --gap: seconds per kernel length of back-to-back burn launches (the idle time "
                        "between launches and the clock of short kernels; 0: skip)")
    p.add_argument("--apply", metavar="TOML", help="write the measured values into this hardware file")
    p.add_argument("--from-json", metavar="FILE", help="use an earlier run's results instead of running")
    p.add_argument("--build-only", action="store_true", help="compile the programs and stop")
    p.add_argument("--only", metavar="PROGRAMS", help="comma-separated programs to run (default: all), e.g. mb_pitch")
    p.add_argument("--ncu", action="store_true", help="also read the L2 sector/request counters of mb_pitch --profile "
                                                      "with ncu (--clock-control none: the clocks are left alone)")


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


RUN_ORDER = ("mb_memory", "mb_sync", "mb_wgmma", "mb_tma", "mb_pitch", "mb_stream")
NCU_PITCH_METRICS = ("lts__t_sectors.sum", "lts__t_requests.sum", "lts__t_sectors_srcunit_tex.sum",
                     "lts__t_requests_srcunit_tex.sum")
NCU_TIMEOUT_S = 180


def _selected(args) -> tuple[str, ...]:
    only = getattr(args, "only", None)
    if not only:
        return RUN_ORDER
    names = tuple(n.strip() for n in only.split(",") if n.strip())
    unknown = [n for n in names if n not in RUN_ORDER]
    if unknown:
        raise MicrobenchError(f"--only: unknown program(s) {', '.join(unknown)} (known: {', '.join(RUN_ORDER)})")
    return tuple(n for n in RUN_ORDER if n in names)


def parse_ncu_csv(text: str, kernel: str | None = None) -> list[dict[str, float]]:
    """ncu --csv (details page): one {metric: value} per profiled launch, in launch order; ``kernel``: only the
    launches whose kernel name contains that text."""
    import csv
    import io
    rows = [ln for ln in text.splitlines() if ln.startswith('"')]
    launches: dict[str, dict[str, float]] = {}
    for r in csv.DictReader(io.StringIO("\n".join(rows))):
        name, val = r.get("Metric Name"), (r.get("Metric Value") or "").replace(",", "")
        if not name or r.get("ID") is None or (kernel is not None and kernel not in (r.get("Kernel Name") or "")):
            continue
        try:
            launches.setdefault(r["ID"], {})[name] = float(val)
        except ValueError:
            continue
    return [launches[k] for k in sorted(launches, key=int)]


def _ncu_pitch(doc: dict, logs: dict, exe: str) -> None:
    """mb_pitch --profile under ncu: L2 sectors and requests per box row for a few geometries. A failure
    (no ncu, counters not readable) is recorded and the suite goes on."""
    import subprocess
    import tempfile
    ncu = shutil.which("ncu")
    entry = {"program": "ncu mb_pitch", "args": ["--profile"]}
    doc["programs"].append(entry)
    if ncu is None:
        entry["error"] = "ncu not on PATH"
        return
    print("[microbench] running ncu on mb_pitch --profile ...", flush=True)
    for metrics in (NCU_PITCH_METRICS, NCU_PITCH_METRICS[:2]):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "ncu.csv"
            cmd = [ncu, "--clock-control", "none", "--csv", "--log-file", str(log), "--metrics", ",".join(metrics),
                   "--kernel-name", "regex:pitch_load_kernel", exe, "--profile"]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=NCU_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired) as exc:
                entry["error"] = f"ncu: {exc}"
                return
            text = log.read_text() if log.exists() else ""
        logs["ncu_mb_pitch"] = proc.stdout + proc.stderr + "\n--- ncu csv ---\n" + text
        launches = parse_ncu_csv(text)
        cases = [r for r in parse_records(proc.stdout) if r["bench"] == "tma_pitch_profile"]
        if proc.returncode == 0 and launches and len(launches) == len(cases):
            break
        entry["error"] = f"ncu exited {proc.returncode} with {len(launches)} launches for {len(cases)} cases"
    else:
        return
    entry.pop("error", None)
    entry["metrics"] = list(metrics)
    for case, counters in zip(cases, launches):
        rec = dict(case, bench="tma_pitch_ncu")
        rows = case["box_rows_loaded"]
        for k, v in counters.items():
            rec[k] = v
            rec[k.replace(".sum", "") + "_per_row"] = v / rows if rows else None
        doc["records"].append(rec)


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
        for name in _selected(args):
            _run_one(doc, logs, str(bins[name].path), name, extra, PROGRAM_TIMEOUT_S)
        if "mb_tma" in _selected(args):   # where a grid's CTAs land, and a GPC's pool of in-flight loads (~1 s)
            _run_one(doc, logs, str(bins["mb_tma"].path), "mb_tma", ["--gpc-probe"], PROGRAM_TIMEOUT_S)
        if getattr(args, "ncu", False) and "mb_pitch" in _selected(args):
            _ncu_pitch(doc, logs, str(bins["mb_pitch"].path))
        gap_s = getattr(args, "gap_seconds", 0.0) or 0.0
        if gap_s > 0 and "mb_wgmma" in _selected(args):   # 9 lengths, each a third of warm-up and the timed loop
            _run_one(doc, logs, str(bins["mb_wgmma"].path), "mb_wgmma", ["--gap", str(gap_s)],
                     PROGRAM_TIMEOUT_S + 9 * 1.4 * gap_s)
        if getattr(args, "transient", False) and "mb_wgmma" in _selected(args):   # idles 8.6 s of its ~15
            _run_one(doc, logs, str(bins["mb_wgmma"].path), "mb_wgmma", ["--transient"], PROGRAM_TIMEOUT_S + 30)
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
        doc = json.loads(Path(path).read_bytes().decode("utf-8"))
    except OSError as exc:
        raise MicrobenchError(f"{path}: cannot read results ({exc.strerror})") from None
    except ValueError as exc:   # not JSON, or not UTF-8
        raise MicrobenchError(f"{path}: cannot read results: {' '.join(str(exc).split())[:160]}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise MicrobenchError(f"{path}: not a microbenchmark results file (schema {SCHEMA})")
    _check_results(doc, path)
    return doc


def _check_results(doc: dict, path: str) -> None:
    """The shape derive.py relies on: a provenance object, records that are objects with a bench name, and no
    number that is not finite (Python's json reads NaN and Infinity)."""
    if not isinstance(doc.get("provenance", {}), dict):
        raise MicrobenchError(f"{path}: 'provenance' is not an object")
    recs = doc.get("records", [])
    if not isinstance(recs, list):
        raise MicrobenchError(f"{path}: 'records' is not a list")
    for i, r in enumerate(recs, start=1):
        if not isinstance(r, dict) or not isinstance(r.get("bench"), str):
            raise MicrobenchError(f"{path}: record {i} is not an object with a 'bench' name")
        bad = [k for k, v in r.items() if isinstance(v, float) and not math.isfinite(v)]
        if bad:
            raise MicrobenchError(f"{path}: record {i} ({r['bench']}): {bad[0]} is not a finite number")


def _toml_doc(toml_path: Path) -> dict:
    """A hardware file, parsed once for the facts below; {} if it cannot be read (the facts are then absent)."""
    try:
        return tomllib.loads(toml_path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


_MISSING = (KeyError, TypeError, ValueError, AttributeError)   # a key absent or not a number


def _toml_facts(doc: dict) -> tuple[float | None, str]:
    """(datasheet HBM bytes/s, marketing name) of a parsed hardware file, or (None, '')."""
    try:
        return float(doc["hbm"]["bandwidth_bytes_per_s"]["value"]), str(doc["meta"]["marketing_name"])
    except _MISSING:
        return None, ""


def _l2_efficiency_128b(doc: dict) -> float | None:
    try:
        return float(doc["tma"]["l2_efficiency_128b"]["value"])
    except _MISSING:
        return None


def _tma_latencies(doc: dict) -> tuple[float, float] | None:
    """(tma.latency_cycles, tma.hbm_miss_latency_cycles) of a parsed hardware file: the latency at which
    derive.gpc_inflight_bytes reads the GPC probe, or None if it lacks them."""
    try:
        return float(doc["tma"]["latency_cycles"]["value"]), float(doc["tma"]["hbm_miss_latency_cycles"]["value"])
    except _MISSING:
        return None


def _power_model(doc: dict) -> dict | None:
    """The power model's values of a parsed hardware file that clock.short_power_ratio needs (the in-kernel power
    (f / f_sustained)^gamma, derive._short_ratio), or None if it lacks them."""
    try:
        c = doc["clock"]
        return {"sustained_tensor_hz": float(c["sustained_tensor_hz"]["value"]),
                "power_exponent": float(c["power_exponent"]["value"])}
    except _MISSING:
        return None


def _matching_toml(gpu: str) -> Path:
    """The hardware file of the measured product (for the datasheet HBM figure), else h100-sxm."""
    for path in sorted(hardware_dir().glob("*.toml")):
        if product_of(_toml_facts(_toml_doc(path))[1]) == product_of(gpu) is not None:
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


MAX_PHASE_SECONDS = 3600.0   # --burn/--idle/--gap-seconds: an hour of one phase is surely a typo


def _check_seconds(args) -> None:
    """Phase lengths: finite, 0..MAX_PHASE_SECONDS (an infinite burn would never return)."""
    for flag in ("burn_seconds", "idle_seconds", "gap_seconds"):
        v = getattr(args, flag, None)
        if v is not None and not (math.isfinite(v) and 0.0 <= v <= MAX_PHASE_SECONDS):
            raise MicrobenchError(f"--{flag.replace('_', '-')} {v:g}: expected 0..{MAX_PHASE_SECONDS:g} seconds")


def _check_paths(args) -> None:
    """What a long run would write or edit, refused before it starts (measurements are not lost)."""
    _check_seconds(args)
    for flag in ("apply", "from_json", "out"):
        if getattr(args, flag, None) == "" or (isinstance(getattr(args, flag, None), str)
                                               and not getattr(args, flag).strip()):
            raise MicrobenchError(f"--{flag.replace('_', '-')}: empty path")
    if args.apply:
        try:
            tomllib.loads(Path(args.apply).read_text())
        except (OSError, UnicodeDecodeError):
            pass   # a missing file is refused below with its own message
        except tomllib.TOMLDecodeError as exc:
            raise MicrobenchError(f"--apply {args.apply}: not valid TOML ({exc})") from None
        if Path(args.apply).is_file() and not os.access(args.apply, os.W_OK):
            raise MicrobenchError(f"--apply {args.apply}: cannot write the file")
    if args.apply and not Path(args.apply).is_file():
        raise MicrobenchError(f"--apply {args.apply}: no such hardware file")
    if args.from_json and args.build_only:
        raise MicrobenchError("--from-json reads results, --build-only compiles without running: give one of them")
    if args.from_json or args.build_only:
        return
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise MicrobenchError(f"--out {out}: not a directory")
    parent = out
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise MicrobenchError(f"--out {out}: cannot write in {parent}")


def run(args, command: str) -> int:
    _check_paths(args)
    if args.build_only:   # only the --only programs, if given (the GPU machine's run scripts build one)
        bins = build_all(args.build_dir, programs=_selected(args))
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
    hw_doc = _toml_doc(toml_path)
    datasheet_hbm, target = _toml_facts(hw_doc)
    try:
        updates = derive_updates(doc, datasheet_hbm, _l2_efficiency_128b(hw_doc), _power_model(hw_doc),
                                 _tma_latencies(hw_doc))
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:   # a record missing a field
        raise MicrobenchError(f"{path}: a record lacks a field or holds a wrong type ({type(exc).__name__}: "
                              f"{' '.join(str(exc).split())[:120]})") from None
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
