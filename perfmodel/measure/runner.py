"""Run one built binary on one shape in its own process, with a timeout, and turn its JSON into a
Measurement. A crash, a hang or a wrong result becomes an invalid Measurement, never an exception.

Clocks: the harness samples SM clock and power with NVML during its timed loops; this module also
runs one ``nvidia-smi --query-gpu=clocks.sm,power.draw -lms 100`` for the whole sweep and records the
samples that fall inside each run (start-up and checking included). Clocks and power limits are only
read, never set.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..problem import GemmProblem
from .build import Binary
from .records import CUBLAS, Invalidity, Measurement

EXIT_WRONG_RESULT = 3   # harness_sm90.cu: the check against cuBLAS failed


@dataclass(frozen=True)
class TimingOptions:
    warmup_ms: float = 30.0
    min_ms: float = 100.0
    min_reps: int = 20
    max_reps: int = 2000
    cublas_in_run: bool = False   # also time cuBLAS bf16 inside every kernel run
    rounds: int = 1               # with cublas_in_run: kernel and cuBLAS alternate in this many rounds


class SmiSampler:
    """Background nvidia-smi sampling of SM clock (MHz) and power (W), stamped on arrival."""

    def __init__(self, period_ms: int = 100):
        self.samples: list[tuple[float, float, float]] = []
        self._proc = None
        cmd = ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
               "-lms", str(period_ms)]
        try:
            self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._proc.stdout:
            parts = [x.strip() for x in line.split(",")]
            try:
                self.samples.append((time.monotonic(), float(parts[0]), float(parts[1])))
            except (ValueError, IndexError):
                continue

    def window(self, t0: float, t1: float) -> tuple[float | None, float | None, float | None]:
        """(mean SM clock Hz, min SM clock Hz, mean power W) of the samples in [t0, t1]."""
        got = [s for s in list(self.samples) if t0 <= s[0] <= t1]
        if not got:
            return None, None, None
        mhz = [s[1] for s in got]
        return (sum(mhz) / len(mhz) * 1e6, min(mhz) * 1e6, sum(s[2] for s in got) / len(got))

    def close(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()


def find_cublas() -> str | None:
    """Path of libcublas for the harness to dlopen: $PM_CUBLAS_LIB, pip's nvidia wheels, CUDA dirs."""
    env = os.environ.get("PM_CUBLAS_LIB")
    if env:
        return env
    roots = [Path(p) for p in sys.path if p and Path(p).is_dir()]
    patterns = ["nvidia/cublas/lib/libcublas.so*", "nvidia/cu13/lib/libcublas.so*", "nvidia/*/lib/libcublas.so*"]
    for root in roots:
        for pat in patterns:
            hits = sorted(h for h in root.glob(pat) if "Lt" not in h.name)
            if hits:
                return str(hits[-1])
    for d in ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"):
        hits = sorted(Path(d).glob("libcublas.so*")) if Path(d).is_dir() else []
        hits = [h for h in hits if "Lt" not in h.name]
        if hits:
            return str(hits[-1])
    return None


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    lib = find_cublas()
    if lib:
        env["PM_CUBLAS_LIB"] = lib
        d = str(Path(lib).parent)
        env["LD_LIBRARY_PATH"] = d + (os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _args(binary: Path, p: GemmProblem, seed: int, t: TimingOptions, cublas_only: bool) -> list[str]:
    a = [str(binary), str(p.m), str(p.n), str(p.k), "--seed", str(seed), "--warmup-ms", str(t.warmup_ms),
         "--min-ms", str(t.min_ms), "--min-reps", str(t.min_reps), "--max-reps", str(t.max_reps),
         "--rounds", str(t.rounds if t.cublas_in_run else 1)]
    if cublas_only:
        return a + ["--cublas-only"]
    return a + ["--cublas", "1" if t.cublas_in_run else "0"]


def _execute(cmd: list[str], timeout_s: float, env: dict[str, str]) -> tuple[int | None, str, str]:
    """(exit status or None on timeout, stdout, stderr); the whole process group dies on timeout."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return None, out, err


def _last_json(stdout: str) -> dict | None:
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def _mhz_to_hz(x) -> float | None:
    return float(x) * 1e6 if x else None


def measure(binary: Binary, problem: GemmProblem, config_name: str, kernel_hash: str, *, seed: int,
            timing: TimingOptions, timeout_s: float, sampler: SmiSampler | None = None,
            env: dict[str, str] | None = None, cublas_only: bool = False) -> Measurement:
    """Run ``binary`` on ``problem`` (or cuBLAS alone) and record the outcome."""
    base = dict(config_name=CUBLAS if cublas_only else config_name, m=problem.m, n=problem.n, k=problem.k,
                dtype="bf16" if cublas_only else problem.a_dtype.value, kernel_hash=kernel_hash, seed=seed,
                compile_s=None if cublas_only else binary.compile_s,
                registers=None if cublas_only else binary.registers,
                spill_bytes=None if cublas_only else binary.spill_bytes, measured_at=now_iso())
    t0 = time.monotonic()
    status, out, err = _execute(_args(binary.path, problem, seed, timing, cublas_only), timeout_s,
                                env if env is not None else child_env())
    t1 = time.monotonic()
    smi = sampler.window(t0, t1) if sampler else (None, None, None)
    base.update(run_s=round(t1 - t0, 3), smi_sm_clock_mean_hz=smi[0], smi_sm_clock_min_hz=smi[1],
                smi_power_mean_w=smi[2])
    if status is None:
        return Measurement(invalidity=Invalidity.TIMEOUT, error=f"killed after {timeout_s:g} s", **base)
    doc = _last_json(out)
    if status == EXIT_WRONG_RESULT and doc is not None:
        chk = doc.get("check", {})
        return Measurement(invalidity=Invalidity.CORRECTNESS, rel_err=chk.get("rel_err"),
                           error=f"rel_err {chk.get('rel_err')} > {chk.get('bound')}, "
                                 f"{chk.get('nonfinite')} non-finite outputs", **base)
    if status != 0 or doc is None or not doc.get("ok"):
        why = (doc or {}).get("error") or (err.strip().splitlines() or [f"exit status {status}"])[-1]
        if status is not None and status < 0:
            why = f"killed by signal {-status}: {why}"
        return Measurement(invalidity=Invalidity.RUNTIME, error=str(why)[:400], **base)
    return _parsed(doc, base, cublas_only)


def _parsed(doc: dict, base: dict, cublas_only: bool) -> Measurement:
    t = doc.get("cublas" if cublas_only else "time", {})
    cb = doc.get("cublas") if not cublas_only else None
    kern = doc.get("kernel", {})
    return Measurement(
        invalidity=Invalidity.CORRECT,
        time_median_s=t["median_ms"] * 1e-3, time_p20_s=t["p20_ms"] * 1e-3, time_p80_s=t["p80_ms"] * 1e-3,
        reps=t["reps"], tflops=t["tflops"], rel_err=doc.get("check", {}).get("rel_err"),
        cublas_median_s=cb["median_ms"] * 1e-3 if cb else None, cublas_tflops=cb["tflops"] if cb else None,
        cublas_sm_clock_mean_hz=_mhz_to_hz(cb.get("sm_mhz_mean")) if cb else None,
        sm_clock_mean_hz=_mhz_to_hz(t.get("sm_mhz_mean")), sm_clock_min_hz=_mhz_to_hz(t.get("sm_mhz_min")),
        power_mean_w=t.get("power_w_mean") or None, power_max_w=t.get("power_w_max") or None,
        kernel_clock_median_hz=_mhz_to_hz(t.get("kernel_mhz_median")),
        kernel_clock_min_hz=_mhz_to_hz(t.get("kernel_mhz_min")),
        smem_bytes=kern.get("smem_bytes"), grid_ctas=kern.get("grid_ctas"), **base)
