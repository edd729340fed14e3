"""``validate``: legality -> parallel compile -> one process per run -> appended dataset rows.

    from perfmodel.measure import validate, TimingOptions
    rows = validate([(problem, config), ...], "data/measurements/h100.jsonl", gpu="h100-sxm")

Runs are serial (one GPU); compiles are parallel. Pairs already in the dataset (same config name,
shape, dtype and kernel hash) are returned from the file without running. Every outcome, valid or
not, is appended as soon as it is known, so a killed sweep resumes where it stopped.
"""
from __future__ import annotations

import logging
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..config import KernelConfig
from ..hardware import load_hardware
from ..legality import check
from ..problem import GemmProblem
from .build import Binary, Builder
from .dataset import Dataset
from ..errors import PerfmodelError
from .records import CUBLAS, DatasetHeader, Invalidity, Measurement, environment_failure, measurement_key
from .runner import SmiSampler, TimingOptions, child_env, measure, now_iso

log = logging.getLogger("perfmodel.measure")
RETRYABLE = (Invalidity.COMPILE, Invalidity.RUNTIME, Invalidity.TIMEOUT)


@dataclass(frozen=True)
class GpuIdentity:
    name: str
    driver: str


class NoGpuError(PerfmodelError):
    """No NVIDIA GPU can be used on this machine (nvidia-smi missing, failing or listing none)."""


class EnvironmentFailure(PerfmodelError):
    """A run failed for a reason outside the kernel (the GPU or its driver went away): the sweep stops,
    the failure is not recorded, what was recorded before stays."""


def _smi_identity() -> GpuIdentity:
    """Name and driver of GPU 0 from nvidia-smi; NoGpuError saying why when there is none."""
    cmd = ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise NoGpuError("no NVIDIA GPU on this machine: nvidia-smi is not installed") from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NoGpuError(f"no NVIDIA GPU on this machine: nvidia-smi does not run ({exc})") from None
    lines = [ln for ln in out.stdout.strip().splitlines() if "," in ln]
    if out.returncode != 0 or not lines:
        said = " ".join((out.stderr.strip() or out.stdout.strip()).split())[:160] or f"exit status {out.returncode}"
        raise NoGpuError(f"no NVIDIA GPU on this machine: nvidia-smi failed ({said})")
    name, driver = (x.strip() for x in lines[0].split(",", 1))
    return GpuIdentity(name, driver)


def require_gpu() -> GpuIdentity:
    """The GPU this machine measures on, checked before anything is compiled or written."""
    return _smi_identity()


def query_gpu() -> GpuIdentity:
    """Name and driver of GPU 0 from nvidia-smi ('unknown' where it cannot be read)."""
    try:
        return _smi_identity()
    except NoGpuError:
        return GpuIdentity("unknown", "unknown")


_SPEC_BY_NAME = (("H200", "h200"), ("H100", "h100-sxm"), ("GB200", "gb200"), ("B200", "b200"))


def spec_for_gpu(name: str) -> str | None:
    """The hardware file for a GPU name as nvidia-smi prints it ('NVIDIA H200' -> 'h200')."""
    return next((spec for key, spec in _SPEC_BY_NAME if key in name.upper()), None)


def _key(p: GemmProblem, cfg_name: str, dtype: str, kh: str) -> tuple:
    return measurement_key(cfg_name, p.shape_name(), dtype, kh)


def _constraint_row(p: GemmProblem, cfg: KernelConfig, kh: str, reasons: list[str]) -> Measurement:
    return Measurement(cfg.name, p.m, p.n, p.k, p.a_dtype.value, kh, Invalidity.CONSTRAINTS,
                       error="; ".join(reasons)[:400], measured_at=now_iso())


def _compile_row(p: GemmProblem, cfg: KernelConfig, kh: str, b: Binary) -> Measurement:
    return Measurement(cfg.name, p.m, p.n, p.k, p.a_dtype.value, kh, Invalidity.COMPILE, error=b.error,
                       compile_s=round(b.compile_s, 2), measured_at=now_iso())


def _describe(m: Measurement) -> str:
    what = f"{m.config_name} {m.shape_name} {m.dtype}"
    if not m.valid:
        return f"{what}: INVALID ({m.invalidity.value}) {m.error}"
    extra = f" (cuBLAS {m.cublas_tflops:.1f})" if m.cublas_tflops else ""
    clk = f" @ {m.sm_clock_mean_hz / 1e6:.0f} MHz" if m.sm_clock_mean_hz else ""
    return f"{what}: {m.tflops:.1f} TFLOP/s{extra}{clk}"


def validate(pairs: Sequence[tuple[GemmProblem, KernelConfig]], out_path: str | Path, *, gpu: str = "h100-sxm",
             jobs: int | None = None, timeout_s: float = 120.0, timing: TimingOptions = TimingOptions(),
             cublas: bool = True, time_budget_s: float | None = None, cache_dir: str | Path | None = None,
             nvcc: str = "nvcc", identity: GpuIdentity | None = None, seed: int | None = None,
             retry_invalid: bool = False) -> list[Measurement]:
    """Measure each (problem, config) on this machine's GPU; returns one Measurement per pair measured
    or found in the dataset (pairs left out by ``time_budget_s`` are not returned). With
    ``retry_invalid``, pairs recorded as compile/runtime/timeout failures are run again.

    Without ``identity`` the GPU is asked of nvidia-smi first: no GPU is a NoGpuError before anything
    is compiled or written. A run that fails for a reason outside the kernel (no device, a driver
    mismatch: ``records.environment_failure``) is not recorded: the sweep stops with
    EnvironmentFailure, the rows written before stay, and a rerun measures the rest. Rows such
    failures left in a dataset written before this rule are run again, never reused."""
    start = time.monotonic()
    hw = load_hardware(gpu)
    ident = identity or require_gpu()
    builder = Builder(Path(cache_dir) if cache_dir else None, nvcc=nvcc, jobs=jobs)
    kh = builder.kernel_hash
    header = DatasetHeader(gpu_spec=hw.name, gpu_name=ident.name, driver=ident.driver, nvcc=builder.nvcc_version,
                           kernel_hash=kh, hw_fingerprint=hw.fingerprint, created=now_iso())
    ds = Dataset(out_path, header)
    results: dict[tuple, Measurement] = {}
    todo: list[tuple[GemmProblem, KernelConfig]] = []
    queued: set[tuple] = set()
    for p, c in pairs:
        key = _key(p, c.name, p.a_dtype.value, kh)
        if key in results or key in queued:
            continue
        old = ds.get(key)
        if old is not None and not (retry_invalid and old.invalidity in RETRYABLE) and not environment_failure(old):
            results[key] = old
            continue
        reasons = [str(v) for v in check(p, c, hw)]
        if reasons:
            row = _constraint_row(p, c, kh, reasons)
            ds.append(row)
            results[key] = row
            log.info("%s", _describe(row))
        else:
            todo.append((p, c))
            queued.add(key)
    if not todo:
        return [results[k] for k in (_key(p, c.name, p.a_dtype.value, kh) for p, c in pairs) if k in results]
    log.info("building %d configuration(s) with %s (%d jobs)", len({(c.name, p.a_dtype.value) for p, c in todo}),
             builder.nvcc_version, builder.jobs)
    binaries = builder.build_all(todo)
    log.info("built in %.1f s", time.monotonic() - start)
    built = [(d, b) for (_, d), b in binaries.items() if b.path is not None]
    cb_bin = next((b for d, b in built if d == "bf16"), built[0][1] if built else None)
    sampler = SmiSampler()
    ctx = _RunCtx(ds, kh, child_env(), sampler, timing, timeout_s, cublas,
                  seed if seed is not None else int(time.time()) % 1_000_000,
                  (start + time_budget_s) if time_budget_s else None, cb_bin)
    try:
        _run_all(todo, binaries, ctx, results)
    finally:
        sampler.close()
    return [results[k] for k in (_key(p, c.name, p.a_dtype.value, kh) for p, c in pairs) if k in results]


@dataclass(frozen=True)
class _RunCtx:
    ds: Dataset
    kernel_hash: str
    env: dict
    sampler: SmiSampler
    timing: TimingOptions
    timeout_s: float
    cublas: bool
    base_seed: int
    deadline: float | None
    cublas_binary: Binary | None   # the harness used for cuBLAS rows (a bf16 build when there is one)


def _run_one(ctx: _RunCtx, b: Binary, p: GemmProblem, name: str, seed: int, cublas_only: bool = False) -> Measurement:
    return measure(b, p, name, ctx.kernel_hash, seed=seed, timing=ctx.timing, timeout_s=ctx.timeout_s,
                   sampler=ctx.sampler, env=ctx.env, cublas_only=cublas_only)


def _run_all(todo, binaries: dict, ctx: _RunCtx, results: dict) -> None:
    kh, ds = ctx.kernel_hash, ctx.ds
    done_shapes: set[str] = set()
    for i, (p, c) in enumerate(todo):
        if ctx.deadline is not None and time.monotonic() > ctx.deadline:
            log.info("time budget spent: %d of %d run(s) left for the next call", len(todo) - i, len(todo))
            return
        b = binaries[(c.name, p.a_dtype.value)]
        if b.path is None:
            row = _compile_row(p, c, kh, b)
        else:
            if ctx.cublas and p.shape_name() not in done_shapes:   # the cuBLAS row of each shape, once
                done_shapes.add(p.shape_name())
                prev = ds.get(_key(p, CUBLAS, "bf16", kh))
                if prev is None or not prev.valid:
                    crow = _run_one(ctx, ctx.cublas_binary or b, p, CUBLAS, ctx.base_seed + i, cublas_only=True)
                    _stop_on_environment_failure(crow, ds, i, len(todo))
                    ds.append(crow)
                    log.info("%s", _describe(crow))
            row = _run_one(ctx, b, p, c.name, ctx.base_seed + i)
            _stop_on_environment_failure(row, ds, i, len(todo))
        ds.append(row)
        results[_key(p, c.name, p.a_dtype.value, kh)] = row
        log.info("[%d/%d] %s", i + 1, len(todo), _describe(row))


def _stop_on_environment_failure(row: Measurement, ds: Dataset, i: int, n: int) -> None:
    if environment_failure(row):
        raise EnvironmentFailure(f"run {i + 1} of {n} failed outside the kernel ({row.error[:160]}); not recorded; "
                                 f"{ds.path} keeps the rows written before; fix the GPU/driver and rerun to "
                                 f"measure the rest")
