"""Run the microbenchmark programs, parse their ``MB {json}`` lines, sample nvidia-smi, record provenance."""
from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

from . import MicrobenchError

RECORD_PREFIX = "MB "
SMI_FIELDS = ("clocks.sm", "clocks.max.sm", "power.draw", "power.limit", "temperature.gpu")


def parse_records(text: str) -> list[dict]:
    """Every ``MB {json}`` line of a program's output, in order; other lines are ignored."""
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith(RECORD_PREFIX):
            continue
        try:
            rec = json.loads(line[len(RECORD_PREFIX):])
        except json.JSONDecodeError as exc:
            raise MicrobenchError(f"malformed result line {n}: {exc}: {line[:120]}") from None
        if not isinstance(rec, dict) or "bench" not in rec:
            raise MicrobenchError(f"result line {n} has no 'bench' field: {line[:120]}")
        records.append(rec)
    return records


@dataclass
class ProgramRun:
    records: list[dict]
    stdout: str
    stderr: str
    seconds: float
    line_times: dict[str, float] = field(default_factory=dict)   # bench -> monotonic time first seen


def run_program(path: str, args: list[str], timeout_s: float) -> ProgramRun:
    """Run one program; stdout lines are time-stamped as they arrive (the burn phase needs that)."""
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen([str(path), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        raise MicrobenchError(f"cannot start {path}: {exc}") from None
    lines: list[str] = []
    seen: dict[str, float] = {}
    err: list[str] = []
    t_err = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
    t_err.start()

    def pump():
        for line in proc.stdout:
            lines.append(line)
            if line.startswith(RECORD_PREFIX):
                try:
                    seen.setdefault(json.loads(line[len(RECORD_PREFIX):]).get("bench", ""), time.monotonic())
                except json.JSONDecodeError:
                    pass

    t_out = threading.Thread(target=pump, daemon=True)
    t_out.start()
    try:
        rc = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise MicrobenchError(f"{path} {' '.join(args)} ran past {timeout_s:.0f} s and was killed") from None
    t_out.join(10)
    t_err.join(10)
    stdout, stderr = "".join(lines), "".join(err)
    if rc != 0:
        tail = stderr.strip().splitlines()[-1:] or [f"exit status {rc}"]
        raise MicrobenchError(f"{path} {' '.join(args)} failed: {tail[0]}")
    return ProgramRun(parse_records(stdout), stdout, stderr, time.monotonic() - t0, seen)


class SmiSampler:
    """``nvidia-smi --query-gpu=... -lms 200`` in the background; each sample time-stamped on arrival.
    Reads only: never changes clocks, power limits or modes."""

    def __init__(self, period_ms: int = 200):
        self.samples: list[tuple[float, list[float | None]]] = []
        self.available = shutil.which("nvidia-smi") is not None
        self._proc = None
        if self.available:
            self._proc = subprocess.Popen(
                ["nvidia-smi", f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader,nounits",
                 "-lms", str(period_ms)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self._thread = threading.Thread(target=self._read, daemon=True)
            self._thread.start()

    def _read(self):
        for line in self._proc.stdout:
            vals = []
            for part in line.strip().split(","):
                try:
                    vals.append(float(part))
                except ValueError:
                    vals.append(None)
            if len(vals) == len(SMI_FIELDS):
                self.samples.append((time.monotonic(), vals))

    def stop(self):
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._thread.join(5)

    def between(self, t0: float, t1: float) -> list[dict]:
        return [dict(zip(SMI_FIELDS, v), t=round(t, 3)) for t, v in self.samples if t0 <= t <= t1]


def _smi_query(fields: str) -> list[str]:
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    first = out.stdout.strip().splitlines()[:1]
    return [p.strip() for p in first[0].split(",")] if first else []


def provenance(command: str, nvcc_ver: str, sources_digest: str) -> dict:
    """Who, where, when and with what: GPU, driver, nvcc, date, command."""
    names = ("name", "driver_version", "memory.total", "clocks.max.sm", "clocks.max.mem", "power.limit",
             "pci.bus_id")
    vals = _smi_query(",".join(names))
    now = datetime.now(timezone.utc)
    prov = {"date": now.strftime("%Y-%m-%d"), "utc": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": command, "nvcc": nvcc_ver, "sources_sha256_16": sources_digest}
    prov["nvidia_smi"] = dict(zip(names, vals)) if len(vals) == len(names) else {}
    return prov


__all__ = ["parse_records", "run_program", "ProgramRun", "SmiSampler", "provenance", "SMI_FIELDS"]
