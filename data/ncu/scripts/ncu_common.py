"""Shared by the device scripts that read our GEMM under ncu (2026-11-26, eleventh session): find ncu, run one
launch of a harness binary under it, parse its --csv --page raw output, and (timed_run) a binary's own timed loop.
store_ncu.py (tenth session), drift_lru.py (twenty-fifth), edir_rmw_ncu.py (thirtieth) and wide_k_ncu.py
(thirty-first) run on it too; ksweep_ncu.py, tile_probe.py and cta_spread.py keep their own copies as the records of
what ran."""
import csv
import io
import json
import shutil
import subprocess
from pathlib import Path


def find_ncu():
    return shutil.which("ncu") or next(iter(sorted(Path("/usr/local").glob("cuda*/bin/ncu"))), None)


def timed_run(cmd: list, timeout: int = 60) -> dict:
    """The JSON document a harness binary prints for one run of ``cmd`` (its timed loop), or {"error": ...} when it
    printed none, timed out or printed something else."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return json.loads(r.stdout) if r.stdout.strip() else {"error": r.stderr[-400:]}
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        return {"error": str(e)[:400]}


def parse(text: str, wanted=None) -> dict:
    """{metric: [value, unit]} from ncu's --csv --page raw output (header, units, one row): the ``wanted`` metrics, or
    every column."""
    rows = [r for r in csv.reader(io.StringIO(text[text.find('"ID"'):])) if r]
    if len(rows) < 3:
        return {}
    hdr, units, vals = rows[0], rows[1], rows[-1]
    return {h: [v, u] for h, u, v in zip(hdr, units, vals) if wanted is None or h in wanted}


def run(ncu, binary: str, shape: str, ncu_args: list, timeout: int = 180, wanted=None) -> tuple[dict, int, str]:
    """(metrics (the ``wanted`` ones, or every column), return code, error text) of the third launch of ``binary`` on
    ``shape`` under ncu; return code -1: ncu timed out."""
    m, n, k = shape.split("x")
    cmd = [str(ncu), "--clock-control", "none", "--kernel-name", "regex:gemm_kernel", "--launch-skip", "2",
           "--launch-count", "1", *ncu_args, "--csv", "--page", "raw", binary, m, n, k, "--seed", "1",
           "--warmup-ms", "0", "--min-ms", "0", "--min-reps", "2", "--max-reps", "2", "--rounds", "1", "--cublas", "0",
           "--check", "0"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return {}, -1, str(e)[:400]
    metrics = parse(r.stdout, wanted)
    err = "" if r.returncode == 0 and metrics else (r.stderr or r.stdout)[-600:]
    return metrics, r.returncode, err


def launch_record(ncu, binary: str, shape: str, metrics: str, cache: str, skip: int, reps: int = 6,
                  timeout: int = 150) -> dict:
    """{"metrics": the comma-separated ``metrics``, "rc"} (with "error" where ncu failed; only "error" where it timed
    out) of one launch of ``binary`` on ``shape`` under ncu with ``--cache-control cache``, after ``skip`` launches of
    a run of ``reps`` (edir_rmw_ncu.py, wide_k_ncu.py)."""
    m, n, k = shape.split("x")
    cmd = [str(ncu), "--clock-control", "none", "--cache-control", cache, "--kernel-name", "regex:gemm_kernel",
           "--launch-skip", str(skip), "--launch-count", "1", "--metrics", metrics, "--csv", "--page", "raw",
           binary, m, n, k, "--seed", "1", "--warmup-ms", "0", "--min-ms", "0", "--min-reps", str(reps),
           "--max-reps", str(reps), "--rounds", "1", "--cublas", "0", "--check", "0"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return {"error": str(e)[:400]}
    rec = {"metrics": parse(r.stdout, metrics.split(",")), "rc": r.returncode}
    if r.returncode:
        rec["error"] = r.stderr[-400:]
    return rec
