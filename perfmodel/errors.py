"""Exceptions shared across perfmodel. Each carries a one-line, user-facing message."""
from __future__ import annotations


class PerfmodelError(Exception):
    """Base class: anything the CLI turns into a one-line error with exit status 2."""


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
