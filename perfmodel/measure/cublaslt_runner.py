"""Measure cuBLASLt's algorithm configurations on this machine's GPU (kernels/cublaslt_bench.cu).

``PYTHONPATH=. python3 -m perfmodel.measure.cublaslt_runner --shapes configs/sweeps/cublaslt_h100.toml
--out X.jsonl [--time-budget S] [--names-out N.jsonl] [--dtypes bf16,e4m3] [--only-shapes AxBxC,..]``

Builds the program with nvcc (cached by the hash of its source, the cublasLt.h it compiles against, the
flags and nvcc's version), runs it once per (shape, dtype) in its own process with a time limit, and
appends every line it prints to a JSONL file whose first line is a provenance header (GPU, driver,
cuBLASLt version, nvcc, date, settings, timing method). Rows: ``problem`` (counts, versions), ``algo``
(capabilities of each algorithm id), ``config`` (one measured configuration: its attributes decoded, status
correct / correctness / runtime / timeout, rel_err, time_median_s, time_p20_s, time_p80_s, tflops, and the SM
clock and power that ``nvidia-smi -lms 100`` sampled while its problem ran) and ``end`` (done, stopped by the
budget, crashed or timed out). A configuration that crashes the process or hangs becomes an invalid
``config`` row and the program resumes after it; a rerun with the same --out skips finished problems and
resumes unfinished ones. ``--names-out`` runs ncu (``--clock-control none``: clocks are never set) over the
problems listed under [names] and records the kernel names, grid, block and cluster each configuration
launches. Standard library only; bad input is a one-line error, never a traceback.
"""
from __future__ import annotations

import argparse
import csv
import datetime as _dt
import hashlib
import io
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

FORMAT = "perfmodel-cublaslt/1"
SOURCE = Path(__file__).resolve().parent.parent / "kernels" / "cublaslt_bench.cu"
NVCC_FLAGS = ("-O3", "-std=c++17", "-gencode=arch=compute_90,code=[sm_90,compute_90]")
DTYPES = ("bf16", "e4m3")
DEFAULTS = {"budget": 80, "seed": 1, "warmup_ms": 10.0, "min_ms": 50.0, "min_reps": 20, "max_reps": 2000,
            "workspace_mb": 64.0, "fast_accum": 1, "timeout_s": 180.0, "enum_limit_s": 10.0}
MAX_CRASHES = 3          # per problem and invocation: a crashing configuration is skipped this many times
IDENTITY = ("format", "gpu_name", "driver", "cublaslt_version", "bench_hash", "selection")


class RunnerError(Exception):
    """Bad input or an unusable toolchain: reported in one line."""


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ----------------------------------------------------------------------------- sweep file
def _shape(text: str) -> tuple[int, int, int]:
    parts = str(text).lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise RunnerError(f"malformed shape '{text}' (expected MxNxK)")
    return int(parts[0]), int(parts[1]), int(parts[2])


def _problem(text: str) -> tuple[tuple[int, int, int], str]:
    shape, _, dtype = str(text).partition(":")
    dtype = dtype or "bf16"
    if dtype not in DTYPES:
        raise RunnerError(f"unknown dtype '{dtype}' in '{text}' (bf16 or e4m3)")
    return _shape(shape), dtype


def load_sweep(path: str) -> dict:
    try:
        doc = tomllib.loads(Path(path).read_text())
    except OSError as exc:
        raise RunnerError(f"{path}: cannot read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise RunnerError(f"{path}: not valid TOML ({exc})") from None
    shapes = doc.get("shapes")
    dtypes = doc.get("dtypes", ["bf16"])
    if not isinstance(shapes, list) or not shapes:
        raise RunnerError(f"{path}: needs a non-empty 'shapes' list")
    if not isinstance(dtypes, list) or not dtypes or any(d not in DTYPES for d in dtypes):
        raise RunnerError(f"{path}: 'dtypes' must be a non-empty list of {', '.join(DTYPES)}")
    opts = dict(DEFAULTS)
    extra = doc.get("options", {})
    unknown = set(extra) - set(DEFAULTS)
    if unknown:
        raise RunnerError(f"{path}: unknown option(s) {sorted(unknown)}; known: {', '.join(DEFAULTS)}")
    for key, val in extra.items():
        if not isinstance(val, (int, float)) or isinstance(val, bool) or val < 0:
            raise RunnerError(f"{path}: option {key} must be a non-negative number")
        opts[key] = type(DEFAULTS[key])(val)
    names = [_problem(p) for p in doc.get("names", {}).get("problems", [])]
    nb = doc.get("names", {}).get("budget", opts["budget"])
    if not isinstance(nb, int) or isinstance(nb, bool) or nb < 0:
        raise RunnerError(f"{path}: [names] budget must be a non-negative integer")
    return {"shapes": [_shape(s) for s in shapes], "dtypes": dtypes, "options": opts, "names": names,
            "names_budget": nb, "gpu": doc.get("gpu", "")}


# ----------------------------------------------------------------------------- cuBLASLt and the build
def find_cublaslt() -> tuple[Path, Path]:
    """(include dir holding cublasLt.h, lib dir holding libcublasLt.so*): $PM_CUBLASLT_ROOT (with include/
    and lib/), pip's nvidia wheels on sys.path, then the CUDA toolkit."""
    cands = []
    if os.environ.get("PM_CUBLASLT_ROOT"):
        r = Path(os.environ["PM_CUBLASLT_ROOT"])
        cands.append((r / "include", r / "lib"))
    for root in [Path(p) for p in sys.path if p and Path(p).is_dir()]:
        for sub in ("nvidia/cu13", "nvidia/cublas", "nvidia/cu12"):
            cands.append((root / sub / "include", root / sub / "lib"))
    for d in ("/usr/local/cuda", "/usr/local/cuda-13.0", "/usr/local/cuda-12"):
        cands.append((Path(d) / "include", Path(d) / "lib64"))
    cands.append((Path("/usr/include"), Path("/usr/lib/x86_64-linux-gnu")))
    for inc, lib in cands:
        if (inc / "cublasLt.h").is_file() and lib.is_dir() and list(lib.glob("libcublasLt.so*")):
            return inc, lib
    raise RunnerError("cublasLt.h and libcublasLt.so not found (pip install nvidia-cublas, or set PM_CUBLASLT_ROOT)")


def gen_enums(header: str) -> str:
    """C++ tables decoding cublasLt.h's tile, stages, cluster and inner-shape enums (names -> sizes)."""
    tiles = [(0, 0, 0)] + [(int(i), int(r), int(c)) for r, c, i in
                           re.findall(r"CUBLASLT_MATMUL_TILE_(\d+)x(\d+)\s*=\s*(\d+)", header)]
    stages = [(0, 0, -1)] + [(int(i), int(k), 0 if n == "AUTO" else int(n)) for k, n, i in
                             re.findall(r"CUBLASLT_MATMUL_STAGES_(\d+)x(\d+|AUTO)\s*=\s*(\d+)", header)]
    clusters = [(0, 0, 0, 0)] + [(int(i), int(x), int(y), int(z)) for x, y, z, i in
                                 re.findall(r"CUBLASLT_CLUSTER_SHAPE_(\d+)x(\d+)x(\d+)\s*=\s*(\d+)", header)]
    inner = [(int(i), n) for n, i in re.findall(r"CUBLASLT_MATMUL_INNER_SHAPE_(\w+)\s*=\s*(\d+)", header)
             if n != "END"] or [(0, "UNDEFINED")]
    sha = hashlib.sha256(header.encode()).hexdigest()[:16]
    out = ["// generated by perfmodel.measure.cublaslt_runner from cublasLt.h; do not edit",
           f'#define PM_ENUMS_HEADER_SHA "{sha}"',
           "struct PmTile { int id, r, c; };", "struct PmStage { int id, k, n; };",
           "struct PmCluster { int id, x, y, z; };", "struct PmInner { int id; const char* name; };",
           "static const PmTile kTiles[] = {" + ", ".join("{%d, %d, %d}" % t for t in tiles) + "};",
           "static const PmStage kStages[] = {" + ", ".join("{%d, %d, %d}" % t for t in stages) + "};",
           "static const PmCluster kClusters[] = {" + ", ".join("{%d, %d, %d, %d}" % t for t in clusters) + "};",
           "static const PmInner kInner[] = {" + ", ".join('{%d, "%s"}' % t for t in inner) + "};", ""]
    return "\n".join(out)


def nvcc_version(nvcc: str) -> str:
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RunnerError(f"cannot run '{nvcc} --version': {exc}") from None
    rel = [ln.strip() for ln in out.stdout.splitlines() if "release" in ln]
    if out.returncode != 0 or not rel:
        raise RunnerError(f"'{nvcc} --version' failed: {(out.stderr or out.stdout).strip()[:200]}")
    return rel[-1]


def bench_hash() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]


def cache_dir() -> Path:
    env = os.environ.get("PERFMODEL_CACHE_DIR")
    return (Path(env) if env else Path.home() / ".cache" / "perfmodel") / "cublaslt"


def build(nvcc: str = "nvcc", cache: Path | None = None) -> tuple[Path, str, Path]:
    """(binary, nvcc version, lib dir), built once per (source, cublasLt.h, flags, nvcc) key."""
    inc, lib = find_cublaslt()
    header = (inc / "cublasLt.h").read_text(errors="replace")
    ver = nvcc_version(nvcc)
    key = hashlib.sha256("\0".join([SOURCE.read_text(), header, ver, *NVCC_FLAGS]).encode()).hexdigest()[:20]
    final = (cache or cache_dir()) / key
    exe = final / "cublaslt_bench"
    if exe.exists():
        return exe, ver, lib
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix="build-"))
    try:
        (tmp / "cublaslt_enums.inc").write_text(gen_enums(header))
        libs = sorted(lib.glob("libcublasLt.so*"), key=lambda p: len(p.name))
        cmd = [nvcc, *NVCC_FLAGS, f"-I{tmp}", f"-I{inc}", str(SOURCE), "-o", str(tmp / "cublaslt_bench"),
               f"-L{lib}", f"-l:{libs[0].name}", f"-Xlinker=-rpath={lib}"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise RunnerError("nvcc took over 600 s") from None
        if r.returncode != 0:
            errs = [ln for ln in r.stderr.splitlines() if "error" in ln.lower()] or r.stderr.strip().splitlines() or ["?"]
            raise RunnerError(f"cublaslt_bench.cu does not compile: {errs[0].strip()[:300]}")
        (tmp / "build.txt").write_text(" ".join(cmd) + "\n" + ver + "\n")
        try:
            os.replace(tmp, final)
        except OSError:
            if not exe.exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return exe, ver, lib


# ----------------------------------------------------------------------------- clocks
class Smi:
    """Background ``nvidia-smi --query-gpu=clocks.sm,power.draw -lms 100``, samples stamped on arrival."""

    def __init__(self, period_ms: int = 100):
        self.samples: list[tuple[float, float, float]] = []
        self.proc = None
        try:
            self.proc = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw",
                                          "--format=csv,noheader,nounits", "-lms", str(period_ms)],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                mhz, watts = (float(x) for x in line.split(",")[:2])
            except ValueError:
                continue
            self.samples.append((time.monotonic(), mhz, watts))

    def window(self, t0: float, t1: float) -> dict:
        got = [s for s in list(self.samples) if t0 <= s[0] <= t1]
        if not got:
            return {"smi_samples": 0}
        mhz, w = [s[1] for s in got], [s[2] for s in got]
        return {"smi_samples": len(got), "smi_sm_clock_mean_hz": sum(mhz) / len(mhz) * 1e6,
                "smi_sm_clock_min_hz": min(mhz) * 1e6, "smi_power_mean_w": sum(w) / len(w), "smi_power_max_w": max(w)}

    def close(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def smi_identity() -> tuple[str, str]:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip().splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return "", ""
    name, _, driver = (out[0] if out else "").partition(", ")
    return name.strip(), driver.strip()


# ----------------------------------------------------------------------------- running the program
def child_env(lib: Path) -> dict:
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = str(lib) + (os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def stream(cmd: list[str], timeout_s: float, env: dict, on_line) -> tuple[int | None, str]:
    """Run cmd, calling on_line(dict) for each JSON line as it arrives; (exit status or None on timeout,
    last stderr line). The whole process group is killed on timeout."""
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
    except OSError as exc:
        return -1, f"cannot start {cmd[0]}: {exc.strerror}"
    lines: queue.Queue = queue.Queue()
    err: list[str] = []
    threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout] + [lines.put(None)], daemon=True).start()
    threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True).start()
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            ln = lines.get(timeout=max(0.05, min(1.0, deadline - time.monotonic())))
        except queue.Empty:
            if time.monotonic() > deadline:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
                tail = "".join(err).strip().splitlines()
                return None, tail[-1] if tail else ""
            continue
        if ln is None:
            break
        ln = ln.strip()
        if ln.startswith("{"):
            try:
                on_line(json.loads(ln))
            except ValueError:
                pass
    status = proc.wait()
    tail = "".join(err).strip().splitlines()
    return status, tail[-1] if tail else ""


def _args(exe: Path, shape, dtype: str, o: dict) -> list[str]:
    m, n, k = shape
    return [str(exe), str(m), str(n), str(k), "--dtype", dtype, "--budget", str(int(o["budget"])),
            "--seed", str(int(o["seed"])), "--warmup-ms", str(o["warmup_ms"]), "--min-ms", str(o["min_ms"]),
            "--min-reps", str(int(o["min_reps"])), "--max-reps", str(int(o["max_reps"])),
            "--workspace-mb", str(o["workspace_mb"]), "--fast-accum", str(int(o["fast_accum"])),
            "--enum-limit-s", str(o["enum_limit_s"])]


def _config_row(doc: dict) -> dict:
    """The program's config line -> a dataset row (times in seconds, kernel_tuner's invalidity names)."""
    row = {k: v for k, v in doc.items() if k not in ("median_ms", "p20_ms", "p80_ms", "min_ms", "status")}
    ok = doc.get("status") == "correct"
    row.update(invalidity=doc.get("status", "runtime"), valid=ok,
               time_median_s=doc["median_ms"] * 1e-3 if ok else None, time_p20_s=doc["p20_ms"] * 1e-3 if ok else None,
               time_p80_s=doc["p80_ms"] * 1e-3 if ok else None, time_min_s=doc["min_ms"] * 1e-3 if ok else None,
               tflops=doc.get("tflops") if ok else None)
    if row.get("rel_err") is not None and row["rel_err"] < 0:
        row["rel_err"] = None
    return row


class Dataset:
    """Append-only JSONL: header line, then rows; a partial last line (killed run) is dropped."""

    def __init__(self, path: Path, header: dict):
        self.path = path
        self.lock = threading.Lock()
        self.rows: list[dict] = []
        if path.exists() and path.stat().st_size > 0:
            data = path.read_bytes()
            if not data.endswith(b"\n"):
                data = data[:data.rfind(b"\n") + 1]
                path.write_bytes(data)
            lines = data.decode(errors="replace").splitlines()
            try:
                have = json.loads(lines[0])["header"]
            except (ValueError, KeyError, TypeError, IndexError):
                raise RunnerError(f"{path}:1: not a {FORMAT} header") from None
            bad = [f"{f}: file has {have.get(f)!r}, this run has {header.get(f)!r}" for f in IDENTITY
                   if have.get(f) != header.get(f)]
            if bad:
                raise RunnerError(f"{path} was measured under another setup ({'; '.join(bad)}); write to a new file")
            for i, ln in enumerate(lines[1:], start=2):
                try:
                    self.rows.append(json.loads(ln))
                except ValueError:
                    raise RunnerError(f"{path}:{i}: malformed row") from None
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"header": header}) + "\n")

    def append(self, row: dict) -> None:
        with self.lock:
            with self.path.open("a") as f:
                f.write(json.dumps(row) + "\n")
            self.rows.append(row)

    def progress(self, shape, dtype) -> tuple[bool, int]:
        """(finished, next idx) of one problem."""
        m, n, k = shape
        mine = [r for r in self.rows if (r.get("m"), r.get("n"), r.get("k"), r.get("dtype")) == (m, n, k, dtype)]
        done = any(r.get("kind") == "end" and r.get("end") == "done" for r in mine)
        idx = [r["idx"] for r in mine if r.get("kind") == "config" and isinstance(r.get("idx"), int)]
        return done, (max(idx) + 1 if idx else 0)


def run_problem(exe, lib, shape, dtype, o, ds: Dataset, smi: Smi, deadline: float) -> str:
    """Measure one problem, resuming after what ds holds; returns how it ended."""
    m, n, k = shape
    crashes, first_run = 0, not any(r.get("kind") == "problem" and (r["m"], r["n"], r["k"], r["dtype"]) ==
                                     (m, n, k, dtype) for r in ds.rows)
    while True:
        done, start = ds.progress(shape, dtype)
        if done:
            return "done"
        left = deadline - time.monotonic()
        if left < 15:
            return "budget"
        limit = min(o["timeout_s"], left)
        state = {"begin": None, "end": None}
        base = {"m": m, "n": n, "k": k, "dtype": dtype}
        t0 = time.monotonic()

        def on_line(doc: dict) -> None:
            kind = doc.get("kind")
            stamp = {**base, "measured_at": now_iso()}
            if kind == "begin":
                state["begin"] = (doc, time.monotonic())
            elif kind == "config":
                w = smi.window(state["begin"][1] if state["begin"] else t0, time.monotonic())
                ds.append({**_config_row(doc), **stamp, **w})
                state["begin"] = None
            elif kind == "algo" and first_run:
                ds.append({**doc, **stamp})
            elif kind == "problem":
                ds.append({**doc, **stamp, "resumed_from": start})
            elif kind in ("done", "stopped", "error"):
                state["end"] = doc

        args = _args(exe, shape, dtype, o) + ["--from", str(start), "--time-limit-s", f"{max(limit - 30, 5):.0f}"]
        status, err = stream(args, limit, child_env(lib), on_line)
        first_run = False
        end = state["end"] or {}
        w = smi.window(t0, time.monotonic())
        if status == 0 and end.get("kind") in ("done", "stopped"):
            ds.append({"kind": "end", **base, "end": "done" if end["kind"] == "done" else "stopped",
                       "next_idx": end.get("next_idx"), "run_s": round(time.monotonic() - t0, 2), **w})
            if end["kind"] == "done":
                return "done"
            continue   # stopped by its own limit: the loop rechecks the budget
        why = "timeout" if status is None else "runtime"
        msg = (f"killed after {limit:.0f} s" if status is None else f"killed by signal {-status}" if status < 0
               else end.get("error") or err or f"exit status {status}")
        ds.append({"kind": "end", **base, "end": why, "error": msg[:400], "run_s": round(time.monotonic() - t0, 2), **w})
        if state["begin"] is None:   # died outside a configuration (start-up, enumeration): give up on it
            return why
        doc = state["begin"][0]
        ds.append({**_config_row({**doc, "kind": "config", "status": why, "error": msg[:400]}), **base,
                   "measured_at": now_iso(), **smi.window(state["begin"][1], time.monotonic())})
        crashes += 1
        if crashes >= MAX_CRASHES:
            return why


# ----------------------------------------------------------------------------- kernel names through ncu
def kernel_names(exe, lib, problems, o, out: Path, deadline: float) -> int:
    """Run each problem's configurations once under ncu; one row per configuration: its attributes and
    the kernels it launched (name, grid, block, cluster, registers, shared memory, duration)."""
    ncu = shutil.which("ncu") or next((str(p) for p in sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))), None)
    if not ncu:
        raise RunnerError("ncu not found")
    rows = 0
    with out.open("a") as f:
        if out.stat().st_size == 0:
            f.write(json.dumps({"header": {"format": "perfmodel-cublaslt-names/1", "created": now_iso(), "settings": o,
                                           "ncu": ncu, "how": "ncu --clock-control none --csv --section LaunchStats "
                                           "--metrics gpu__time_duration.sum; kernels after marker idx belong to "
                                           "configuration idx (one cublasLtMatmul each)"}}) + "\n")
        for i, (shape, dtype) in enumerate(problems):
            timeout_s = (deadline - time.monotonic()) / (len(problems) - i)
            if timeout_s < 10:
                break
            with tempfile.TemporaryDirectory() as tmp:
                log = Path(tmp) / "ncu.csv"
                begins: dict[int, dict] = {}
                cmd = [ncu, "--clock-control", "none", "--csv", "--print-summary", "none", "--log-file", str(log),
                       "--section", "LaunchStats", "--metrics", "gpu__time_duration.sum",
                       *_args(exe, shape, dtype, o), "--names"]
                status, err = stream(cmd, timeout_s, child_env(lib),
                                     lambda d: begins.__setitem__(d["idx"], d) if d.get("kind") == "begin" else None)
                kern = _parse_ncu(log.read_text(errors="replace") if log.exists() else "")
                base = {"m": shape[0], "n": shape[1], "k": shape[2], "dtype": dtype, "measured_at": now_iso()}
                if status != 0 or not kern:
                    f.write(json.dumps({"kind": "error", **base, "error": (err or f"ncu exit status {status}")[:400]}) + "\n")
                for idx, doc in sorted(begins.items()):
                    row = {**{k: v for k, v in doc.items() if k != "kind"}, "kind": "names", **base,
                           "kernels": kern.get(idx, [])}
                    f.write(json.dumps(row) + "\n")
                    rows += 1
    return rows


def _parse_ncu(text: str) -> dict[int, list[dict]]:
    """ncu --csv rows -> {config idx: [kernels launched after marker idx]} (marker grid = idx + 1 blocks)."""
    rows = [ln for ln in text.splitlines() if ln.startswith('"')]   # drop ==PROF== / ==WARNING== lines
    launches: dict[str, dict] = {}
    for r in csv.DictReader(io.StringIO("\n".join(rows))):
        kid = r.get("ID")
        if kid is None:
            continue
        d = launches.setdefault(kid, {"name": r.get("Kernel Name", ""), "grid": r.get("Grid Size", ""),
                                      "block": r.get("Block Size", ""), "metrics": {}})
        if r.get("Metric Name"):
            d["metrics"][r["Metric Name"]] = r.get("Metric Value", "")
    out: dict[int, list[dict]] = {}
    cur = None
    for kid in sorted(launches, key=lambda x: int(x) if x.isdigit() else 0):
        d = launches[kid]
        if "pm_marker" in d["name"]:
            g = re.findall(r"\d+", d["grid"])
            cur = int(g[0]) - 1 if g else None
            if cur is not None:
                out[cur] = []
        elif cur is not None and not any(x in d["name"] for x in ("fill", "ref_gemm", "compare")):
            out[cur].append(d)
    return out


# ----------------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m perfmodel.measure.cublaslt_runner")
    ap.add_argument("--shapes", required=True, help="sweep TOML (configs/sweeps/cublaslt_h100.toml)")
    ap.add_argument("--out", help="dataset JSONL (appended; a rerun resumes)")
    ap.add_argument("--time-budget", type=float, default=540.0, help="seconds for the whole sweep")
    ap.add_argument("--dtypes", help="comma-separated subset of the file's dtypes")
    ap.add_argument("--only-shapes", help="comma-separated subset of the file's shapes")
    ap.add_argument("--budget", type=int, help="override options.budget (configurations per problem)")
    ap.add_argument("--names-out", help="also record kernel names with ncu for the file's [names] problems")
    ap.add_argument("--binary", help="use this program instead of building one (tests)")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--build-only", action="store_true", help="build (or find cached) and print the binary's path")
    args = ap.parse_args(argv)
    t_begin = time.monotonic()
    try:
        sw = load_sweep(args.shapes)
        o = sw["options"]
        if args.budget is not None:
            o["budget"] = args.budget
        dtypes = sw["dtypes"] if not args.dtypes else [d for d in args.dtypes.split(",") if d]
        if any(d not in sw["dtypes"] for d in dtypes):
            raise RunnerError(f"--dtypes {args.dtypes}: the sweep has {', '.join(sw['dtypes'])}")
        shapes = sw["shapes"] if not args.only_shapes else [_shape(s) for s in args.only_shapes.split(",") if s]
        if args.binary:
            exe, ver = Path(args.binary), "prebuilt"
            lib = Path(os.environ.get("PM_CUBLASLT_LIB", "/nonexistent"))
            if not os.access(exe, os.X_OK):
                raise RunnerError(f"--binary {exe}: not an executable file")
        else:
            exe, ver, lib = build(args.nvcc)
        if args.build_only:
            print(exe)
            return 0
        if not args.out and not args.names_out:
            raise RunnerError("nothing to do: give --out and/or --names-out")
        info: dict = {}
        status, err = stream([str(exe), "--info"], 120, child_env(lib), lambda d: info.update(d))
        if status != 0 or info.get("kind") != "info":
            raise RunnerError(f"{exe} --info failed: {info.get('error') or err or f'exit status {status}'}")
        name, driver = smi_identity()
        header = {"format": FORMAT, "gpu_name": name or info["gpu"]["name"], "driver": driver,
                  "cublaslt_version": info.get("cublaslt_version"), "bench_hash": bench_hash(),
                  "selection": {k: v for k, v in o.items() if k != "timeout_s"}, "settings": o,
                  "nvcc": ver, "gpu": info.get("gpu"), "cublaslt_cudart_version": info.get("cublaslt_cudart_version"),
                  "cublaslt_lib": str(lib), "enums_header_sha": info.get("enums_header_sha"),
                  "layout": "TN: D (MxN row-major, bf16) = A (MxK, K-contiguous) * B (NxK, K-contiguous)^T; "
                            "cuBLASLt m'=N, n'=M, transa=T, transb=N; tile RxC and cluster XxY in its terms "
                            "(R, X along our N; tile_m/tile_n/cluster_m/cluster_n in ours)",
                  "timing": f"CUDA events per launch after {o['warmup_ms']} ms warm-up, >= {int(o['min_reps'])} "
                            f"launches and >= {o['min_ms']} ms, inputs rotated over sets > 3 x L2; median, p20, p80",
                  "check": "||D - R||_F / ||R||_F vs fp32 CUDA-core reference; bound 1e-2 bf16, 5e-2 e4m3",
                  "clocks": "nvidia-smi --query-gpu=clocks.sm,power.draw -lms 100 (read only, never set)",
                  "created": now_iso()}
    except RunnerError as exc:
        print(f"cublaslt_runner: error: {exc}", file=sys.stderr)
        return 2
    deadline = t_begin + args.time_budget
    smi = Smi()
    try:
        if args.out:
            try:
                ds = Dataset(Path(args.out), header)
            except RunnerError as exc:
                print(f"cublaslt_runner: error: {exc}", file=sys.stderr)
                return 2
            for dtype in dtypes:
                for shape in shapes:
                    how = run_problem(exe, lib, shape, dtype, o, ds, smi, deadline)
                    cfg = [r for r in ds.rows if r.get("kind") == "config" and (r["m"], r["n"], r["k"], r["dtype"]) ==
                           (*shape, dtype)]
                    ok = [r for r in cfg if r.get("valid")]
                    best = max((r["tflops"] for r in ok), default=0)
                    print(f"{'x'.join(map(str, shape))} {dtype}: {how}, {len(cfg)} configs, {len(ok)} valid, "
                          f"best {best:.0f} TFLOP/s ({time.monotonic() - t_begin:.0f} s)", flush=True)
        if args.names_out:
            probs = [p for p in sw["names"] if p[1] in dtypes]
            n = kernel_names(exe, lib, probs, {**o, "budget": sw["names_budget"]}, Path(args.names_out), deadline)
            print(f"kernel names: {n} configurations", flush=True)
    except RunnerError as exc:
        print(f"cublaslt_runner: error: {exc}", file=sys.stderr)
        return 2
    finally:
        smi.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
