"""A fake nvcc and a fake kernel binary, so that the runner's logic is tested without a GPU.

The fake nvcc logs each invocation, fails on -DPM_GROUP=99 (a "compile error"), writes objects and,
on link, a Python script standing in for the harness. The fake binary's behaviour is chosen by M:
M=1 hangs (timeout), M=2 reports a wrong result (exit 3), M=3 aborts (SIGABRT), M=4 finds no CUDA device
(an environment failure), else it prints a valid JSON record like harness_sm90.cu does.
"""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

FAKE_BINARY = r'''
import json, os, sys, time
m, n, k = (int(x) for x in sys.argv[1:4])
cublas_only = "--cublas-only" in sys.argv
if m == 1:
    time.sleep(60)
if m == 2:
    print(json.dumps({"ok": True, "check": {"rel_err": 0.5, "bound": 0.01, "nonfinite": 0, "correct": False}}))
    sys.exit(3)
if m == 3:
    os.abort()
if m == 4:   # the machine, not the kernel: what the harness prints when the GPU is gone
    print(json.dumps({"ok": False, "stage": "runtime",
                      "error": "cudaGetDeviceCount(&n) failed: no CUDA-capable device is detected (line 12)"}))
    sys.exit(2)
t = {"reps": 25, "median_ms": 1.0, "p20_ms": 0.9, "p80_ms": 1.1, "tflops": 2e-9 * m * n * k,
     "sm_mhz_mean": 1755.0, "sm_mhz_min": 1700.0, "power_w_mean": 500.0, "power_w_max": 650.0}
doc = {"ok": True, "m": m, "n": n, "k": k, "kernel": {"smem_bytes": 1234, "grid_ctas": 132},
       "check": {"rel_err": 0.0, "correct": True}}
doc["cublas" if cublas_only else "time"] = t
print(json.dumps(doc))
'''

FAKE_NVCC = r'''
import os, pathlib, sys
args = sys.argv[1:]
log = os.environ.get("FAKE_NVCC_LOG")
if log:
    with open(log, "a") as f:
        f.write(" ".join(args) + "\n")
if "--version" in args:
    print("nvcc: fake\nCuda compilation tools, release 99.9, V99.9.9")
    sys.exit(0)
out = args[args.index("-o") + 1]
if "-DPM_GROUP=99" in args:
    sys.stderr.write("gemm_sm90.cu(1): error: static assertion failed with \"fake\"\n")
    sys.exit(1)
if "-c" in args:
    pathlib.Path(out).write_text(" ".join(args))
    if "-Xptxas" in args:
        sys.stderr.write("ptxas info    : Used 168 registers, used 16 barriers\n"
                         "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n")
    sys.exit(0)
pathlib.Path(out).write_text("#!" + sys.executable + "\n" + BINARY)
os.chmod(out, 0o755)
'''


def write_fake_nvcc(directory: Path) -> Path:
    """Create the fake nvcc in ``directory`` and return its path."""
    path = directory / "fake-nvcc"
    body = FAKE_NVCC.replace("BINARY)", repr(FAKE_BINARY) + ")")
    path.write_text(f"#!{sys.executable}\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def nvcc_calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def set_log(monkeypatch, tmp_path: Path) -> Path:
    log = tmp_path / "nvcc.log"
    monkeypatch.setenv("FAKE_NVCC_LOG", str(log))
    monkeypatch.setenv("PM_CUBLAS_LIB", "/nonexistent/libcublas.so")
    monkeypatch.setenv("PATH", os.environ.get("PATH", ""))
    return log
