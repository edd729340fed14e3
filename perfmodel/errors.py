"""Exceptions shared across perfmodel. Each carries a one-line, user-facing message."""
from __future__ import annotations


class PerfmodelError(Exception):
    """Base class: anything the CLI turns into a one-line error with exit status 2."""


class PerfmodelWarning(UserWarning):
    """Something was skipped or repaired on the way in (e.g. junk dataset rows); the CLI prints it as one
    ``perfmodel: warning: ...`` line on stderr and goes on."""


class UnknownGpuError(PerfmodelError):
    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        super().__init__(f"unknown GPU '{name}'; known GPUs: {', '.join(known)}")


class HardwareSpecError(PerfmodelError):
    """A hardware TOML file is broken or incomplete: names the file, the key and the reason."""

    def __init__(self, path: str, key: str, reason: str):
        self.path, self.key, self.reason = path, key, reason
        super().__init__(f"{path}: {key}: {reason}")


class ProblemError(PerfmodelError):
    """A malformed GEMM problem (shape, dtype, layout)."""


class ConfigError(PerfmodelError):
    """A malformed kernel configuration (unparseable name, impossible knob value)."""


class IllegalConfigError(PerfmodelError):
    """A configuration that breaks one or more legality rules."""

    def __init__(self, violations):
        self.violations = list(violations)
        lines = "; ".join(f"{v.rule}: {v.reason} ({v.ptx_section})" for v in self.violations)
        super().__init__(f"illegal configuration: {lines}")


class NotUtf8Error(PerfmodelError):
    """A text input (TOML, JSON, JSONL) holding bytes that are not UTF-8: names the file, line and column."""


def decode_utf8(data: bytes, path) -> str:
    """``data`` (the bytes of the file ``path``) as text; NotUtf8Error naming the first bad byte's line
    and column otherwise. Every text file perfmodel reads is UTF-8 (TOML requires it; JSON is written so)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise NotUtf8Error(f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {col})") from None
