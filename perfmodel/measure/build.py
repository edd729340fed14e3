"""Compile the sm_90a kernel once per (KernelConfig, operand type) with nvcc, in parallel, cached.

The harness (harness_sm90.cu) does not depend on the configuration: it is compiled once per cache
key and linked with each kernel object. Cache key = kernel source hash + flags + nvcc version, so
an edited kernel, other flags or another toolchain never reuse a stale binary.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..config import Epilogue, KernelConfig, Raster, smem_bytes
from ..errors import PerfmodelError
from ..problem import DType, GemmProblem

KERNEL_DIR = Path(__file__).resolve().parent.parent / "kernels"
KERNEL_SOURCE = "gemm_sm90.cu"
HARNESS_SOURCE = "harness_sm90.cu"
NVCC_FLAGS = ("-O3", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a")
LINK_LIBS = ("-ldl",)   # cuBLAS and NVML are loaded with dlopen; cudart is linked statically
COMPILE_TIMEOUT_S = 600


class BuildError(PerfmodelError):
    """nvcc is missing or unusable."""


@dataclass(frozen=True)
class Binary:
    """One built kernel binary, or why it could not be built."""
    path: Path | None
    error: str = ""
    compile_s: float = 0.0
    registers: int | None = None
    spill_bytes: int | None = None
    cached: bool = False


def default_cache_dir() -> Path:
    env = os.environ.get("PERFMODEL_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "perfmodel" / "kernels"


def kernel_hash() -> str:
    """sha256 of our kernel's sources (*.cu, *.cuh, names included; the cuBLASLt benchmark, another
    program in the same folder, is not part of it): 16 hex digits."""
    h = hashlib.sha256()
    for p in sorted(KERNEL_DIR.glob("*.cu*")):
        if p.name.startswith("cublaslt"):
            continue
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def nvcc_version(nvcc: str = "nvcc") -> str:
    """nvcc's release line, e.g. 'Cuda compilation tools, release 13.0, V13.0.88'."""
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildError(f"cannot run '{nvcc} --version': {exc}") from None
    lines = [ln.strip() for ln in out.stdout.splitlines() if ln.strip()]
    rel = [ln for ln in lines if "release" in ln]
    if out.returncode != 0 or not lines:
        raise BuildError(f"'{nvcc} --version' failed: {out.stderr.strip()[:200]}")
    return rel[-1] if rel else lines[-1]


def macros(problem: GemmProblem, cfg: KernelConfig) -> tuple[str, ...]:
    """The -D flags that select one configuration of gemm_sm90.cu (see its header)."""
    vals = {
        "PM_BM": cfg.tile_m, "PM_BN": cfg.tile_n, "PM_BK": cfg.tile_k, "PM_MMA_N": cfg.mma_n,
        "PM_STAGES": cfg.stages, "PM_CONSUMERS": cfg.consumers, "PM_CLUSTER_M": cfg.cluster_m,
        "PM_CLUSTER_N": cfg.cluster_n, "PM_MULTICAST": int(cfg.multicast),
        "PM_SWIZZLE_A": cfg.swizzle_a.span_bytes, "PM_SWIZZLE_B": cfg.swizzle_b.span_bytes,
        "PM_PERSISTENT": int(cfg.persistent), "PM_RASTER_N": int(cfg.raster is Raster.N),
        "PM_GROUP": cfg.group_size, "PM_EPI_TMA": int(cfg.epilogue is Epilogue.TMA_STORE),
        "PM_FP8": int(problem.a_dtype is DType.E4M3), "PM_ACC_BUFFERS": cfg.acc_buffers,
        "PM_EXPECT_SMEM": smem_bytes(problem, cfg),   # static_assert: kernel smem == config.smem_bytes
    }
    return tuple(f"-D{k}={v}" for k, v in vals.items())


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)


def _ptxas(stderr: str) -> tuple[int | None, int | None]:
    regs = re.findall(r"Used (\d+) registers", stderr)
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", stderr)
    r = max(int(x) for x in regs) if regs else None
    s = max(int(a) + int(b) for a, b in spills) if spills else None
    return r, s


class Builder:
    """Builds binaries into ``cache_dir`` (created if needed)."""

    def __init__(self, cache_dir: Path | None = None, nvcc: str = "nvcc", jobs: int | None = None,
                 progress_samples: bool = False):
        """``progress_samples``: build the study variant whose per-CTA probe (harness --cta-probe) also samples each
        CTA's progress along its run (-DPM_PROGRESS_SAMPLES=1; not for timing: it costs the kernel registers)."""
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.extra_flags = ("-DPM_PROGRESS_SAMPLES=1",) if progress_samples else ()
        self.nvcc = nvcc
        self.jobs = jobs or max(1, os.cpu_count() or 1)
        self.nvcc_version = nvcc_version(nvcc)
        self.kernel_hash = kernel_hash()
        self._harness: Path | None = None

    def _harness_object(self) -> Path:
        if self._harness:
            return self._harness
        key = _key(self.kernel_hash, self.nvcc_version, *NVCC_FLAGS, "harness")
        out = self.cache_dir / f"harness-{key}.o"
        if not out.exists():
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=self.cache_dir) as tmp:
                obj = Path(tmp) / "h.o"
                r = _run([self.nvcc, *NVCC_FLAGS, "-c", str(KERNEL_DIR / HARNESS_SOURCE), "-o", str(obj)])
                if r.returncode != 0:
                    raise BuildError(f"the harness does not compile: {r.stderr.strip()[-500:]}")
                os.replace(obj, out)
        self._harness = out
        return out

    def build(self, problem: GemmProblem, cfg: KernelConfig) -> Binary:
        flags = (*macros(problem, cfg), *self.extra_flags)
        key = _key(self.kernel_hash, self.nvcc_version, *NVCC_FLAGS, *flags)
        final = self.cache_dir / key
        binary = final / "gemm"
        if binary.exists():
            meta = (final / "ptxas.txt").read_text() if (final / "ptxas.txt").exists() else ""
            regs, spills = _ptxas(meta)
            return Binary(binary, registers=regs, spill_bytes=spills, cached=True)
        harness = self._harness_object()
        t0 = time.monotonic()
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=self.cache_dir, prefix="build-"))
        try:
            obj, exe = tmp / "k.o", tmp / "gemm"
            r = _run([self.nvcc, *NVCC_FLAGS, "-Xptxas", "-v", *flags, "-c", str(KERNEL_DIR / KERNEL_SOURCE),
                      "-o", str(obj)])
            if r.returncode != 0:
                return Binary(None, error=_first_error(r.stderr), compile_s=time.monotonic() - t0)
            ptxas = r.stderr
            r = _run([self.nvcc, *NVCC_FLAGS, str(harness), str(obj), "-o", str(exe), *LINK_LIBS])
            if r.returncode != 0:
                return Binary(None, error=_first_error(r.stderr), compile_s=time.monotonic() - t0)
            (tmp / "ptxas.txt").write_text(ptxas)
            (tmp / "flags.txt").write_text(" ".join((*NVCC_FLAGS, *flags)) + "\n")
            obj.unlink()
            try:
                os.replace(tmp, final)   # atomic publish of the whole directory
            except OSError:
                if not binary.exists():   # another process published it first: use theirs
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        regs, spills = _ptxas(ptxas)
        return Binary(binary, compile_s=time.monotonic() - t0, registers=regs, spill_bytes=spills)

    def build_all(self, items: list[tuple[GemmProblem, KernelConfig]]) -> dict[tuple[str, str], Binary]:
        """Build each distinct (config name, operand type) once, ``jobs`` nvcc processes at a time."""
        uniq: dict[tuple[str, str], tuple[GemmProblem, KernelConfig]] = {}
        for p, c in items:
            uniq.setdefault((c.name, p.a_dtype.value), (p, c))
        if not uniq:
            return {}
        self._harness_object()
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = {k: pool.submit(self.build, p, c) for k, (p, c) in uniq.items()}
            return {k: f.result() for k, f in futures.items()}


def _first_error(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errs = [ln for ln in lines if "error" in ln.lower()]
    return (errs[0] if errs else (lines[-1] if lines else "nvcc failed"))[:400]


def have_nvcc(nvcc: str = "nvcc") -> bool:
    return shutil.which(nvcc) is not None
