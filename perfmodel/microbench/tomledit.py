"""Rewrite the ``value`` and ``source`` of chosen keys in a hardware TOML, leaving every other byte alone.

Other engineers edit the same files (new keys, comments), so the file is never regenerated: each owned
line ``key = { value = ..., source = "..." }`` inside its ``[section]`` gets a new value and source, and
the result must still load through `perfmodel.hardware.parse_hardware`.
"""
from __future__ import annotations

import os

import json
import re
from pathlib import Path

from . import MicrobenchError

_SECTION = re.compile(r"^\s*\[([A-Za-z0-9_.\-]+)\]\s*(#.*)?$")
_KEYLINE = re.compile(r"^(\s*)([A-Za-z0-9_\-]+)(\s*=\s*)\{(.*)\}(\s*(#.*)?)$")
_VALUE = re.compile(r"(\bvalue\s*=\s*)([^,}]+?)(\s*(,|$))")
_SOURCE = re.compile(r'(\bsource\s*=\s*)"((?:[^"\\]|\\.)*)"')


def toml_string(text: str) -> str:
    """A TOML basic string (JSON escapes are valid TOML escapes)."""
    return json.dumps(text, ensure_ascii=False)


def format_value(value: float | int) -> str:
    if isinstance(value, int) or float(value).is_integer():
        v = int(value)
        return f"{v / 1e9:.4f}e9" if abs(v) >= 1e8 else str(v)
    return repr(float(value))


def apply_updates(text: str, updates: dict[str, tuple[float | int, str]]) -> str:
    """updates: dotted key -> (value, source). Every key must exist as an inline table in its section."""
    lines = text.splitlines(keepends=True)
    section = None
    done: set[str] = set()
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        m = _SECTION.match(body)
        if m:
            section = m.group(1)
            continue
        m = _KEYLINE.match(body)
        if not m or section is None:
            continue
        dotted = f"{section}.{m.group(2)}"
        if dotted not in updates:
            continue
        value, source = updates[dotted]
        inner = m.group(4)
        if not _VALUE.search(inner) or not _SOURCE.search(inner):
            raise MicrobenchError(f"{dotted}: line {i + 1} is not '{{ value = ..., source = \"...\" }}'")
        inner = _VALUE.sub(lambda v: v.group(1) + format_value(value) + v.group(3), inner, count=1)
        inner = _SOURCE.sub(lambda s: s.group(1) + toml_string(source), inner, count=1)
        newline = line[len(body):]
        lines[i] = f"{m.group(1)}{m.group(2)}{m.group(3)}{{{inner}}}{m.group(5)}{newline}"
        done.add(dotted)
    missing = sorted(set(updates) - done)
    if missing:
        raise MicrobenchError(f"keys not found in the hardware file: {', '.join(missing)}")
    return "".join(lines)


def apply_to_file(path: str | Path, updates: dict[str, tuple[float | int, str]]) -> str:
    """Read the file now (others may have edited it), update, validate with the hardware loader, write."""
    from ..hardware import parse_hardware  # stdlib-only module; imported late to keep this one light

    p = Path(path)
    if not p.is_file():
        raise MicrobenchError(f"{path}: no such hardware file")
    new = apply_updates(p.read_text(), updates)
    parse_hardware(new, str(p))  # raises HardwareSpecError (a PerfmodelError) naming file and key
    # a temporary file beside it, renamed over it: a write that fails (disk full, quota) leaves the file as it was
    target = p.resolve()   # through a symbolic link: the link stays, its file is replaced
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(new)
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise MicrobenchError(f"{path}: cannot write the hardware file ({exc.strerror or exc}); it is unchanged") \
            from None
    return new


__all__ = ["apply_updates", "apply_to_file", "format_value", "toml_string"]
