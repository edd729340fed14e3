"""Build the microbenchmark programs with nvcc, cached by a hash of sources, flags and nvcc version."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import MicrobenchError

SRC_DIR = Path(__file__).resolve().parent
PROGRAMS = ("mb_memory", "mb_sync", "mb_tma", "mb_wgmma", "mb_pitch", "mb_stream")
HEADERS = ("mb_common.cuh", "mb_tma_common.cuh", "mb_wgmma_ops.cuh")
NVCC_FLAGS = ("-O3", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-lineinfo", "-Xptxas", "-v")


@dataclass(frozen=True)
class Built:
    name: str
    path: Path
    ptxas_log: Path
    cached: bool


def find_nvcc() -> str | None:
    """nvcc from $CUDA_HOME/bin, PATH, or /usr/local/cuda/bin (in that order)."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    candidates = [Path(home) / "bin" / "nvcc"] if home else []
    found = shutil.which("nvcc")
    if found:
        candidates.append(Path(found))
    candidates.append(Path("/usr/local/cuda/bin/nvcc"))
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return None


def nvcc_version(nvcc: str) -> str:
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise MicrobenchError(f"cannot run {nvcc}: {exc}") from None
    lines = [ln.strip() for ln in out.stdout.splitlines() if ln.strip()]
    return lines[-1] if lines else "unknown"


def sources_digest(program: str, version: str, extra_flags: tuple[str, ...] = ()) -> str:
    """Hash of one program's source, the shared headers, the flags and the compiler version."""
    h = hashlib.sha256()
    for name in (f"{program}.cu",) + HEADERS:
        h.update(name.encode())
        h.update((SRC_DIR / name).read_bytes())
    h.update(" ".join(NVCC_FLAGS + extra_flags).encode())
    h.update(version.encode())
    return h.hexdigest()[:16]


def all_sources_digest() -> str:
    h = hashlib.sha256()
    for name in sorted(f"{p}.cu" for p in PROGRAMS) + sorted(HEADERS):
        h.update((SRC_DIR / name).read_bytes())
    return h.hexdigest()[:16]


def _compile(nvcc: str, program: str, version: str, build_dir: Path, extra_flags: tuple[str, ...]) -> Built:
    digest = sources_digest(program, version, extra_flags)
    exe = build_dir / f"{program}-{digest}"
    log = build_dir / f"{program}-{digest}.ptxas.txt"
    if exe.is_file() and os.access(exe, os.X_OK):
        return Built(program, exe, log, True)
    tmp = exe.with_suffix(".tmp")
    cmd = [nvcc, *NVCC_FLAGS, *extra_flags, "-o", str(tmp), str(SRC_DIR / f"{program}.cu")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    log.write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        errors = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "error" in ln.lower()]
        first = errors[0] if errors else f"nvcc exited {proc.returncode}"
        raise MicrobenchError(f"building {program} failed: {first} (full log: {log})")
    tmp.replace(exe)
    for stale in build_dir.glob(f"{program}-*"):  # older builds of this program
        if not stale.name.startswith(f"{program}-{digest}"):
            stale.unlink()
    return Built(program, exe, log, False)


def build_all(build_dir: str | os.PathLike, programs: tuple[str, ...] = PROGRAMS, jobs: int | None = None,
              nvcc: str | None = None, extra_flags: tuple[str, ...] = ()) -> dict[str, Built]:
    """Compile (or reuse) every program; raises MicrobenchError without nvcc or on a compile error.
    extra_flags (e.g. ``-DMB_CI_SUBSET``) enter the cache key."""
    nvcc = nvcc or find_nvcc()
    if nvcc is None:
        raise MicrobenchError("nvcc not found (looked in $CUDA_HOME/bin, PATH, /usr/local/cuda/bin); "
                              "the microbenchmarks need the CUDA toolkit")
    unknown = set(programs) - set(PROGRAMS)
    if unknown:
        raise MicrobenchError(f"unknown microbenchmark program(s): {', '.join(sorted(unknown))}")
    out = Path(build_dir)
    out.mkdir(parents=True, exist_ok=True)
    version = nvcc_version(nvcc)
    jobs = jobs or max(1, min(len(programs), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        built = list(pool.map(lambda p: _compile(nvcc, p, version, out, tuple(extra_flags)), programs))
    return {b.name: b for b in built}


__all__ = ["Built", "PROGRAMS", "NVCC_FLAGS", "find_nvcc", "nvcc_version", "build_all", "sources_digest",
           "all_sources_digest"]
