"""Append-only JSONL dataset: a header line, then one Measurement per line (kernel_tuner's cache,
as JSONL so that a killed run leaves a readable file and the next run resumes)."""
from __future__ import annotations

import dataclasses
import json
import os
import warnings
from pathlib import Path

from ..errors import PerfmodelError, PerfmodelWarning
from .records import FORMAT, DatasetHeader, Measurement


class DatasetError(PerfmodelError):
    """A dataset file that cannot be read, or whose header does not match this run."""


def read_dataset(path: str | os.PathLike) -> tuple[DatasetHeader, list[Measurement]]:
    """The header and every readable row of a dataset file.

    A file that cannot be read, is empty, has bytes that are not UTF-8 (named by line and column) or
    a broken header line is a DatasetError. A row that is not a measurement (junk, a hand edit, a
    line cut short by a killed run) is skipped with one PerfmodelWarning that counts them and names
    their first line numbers; the other rows are read."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{p}: cannot read ({exc.strerror})") from None
    raw = data.split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()                       # the newline that ends the last row
    cut_short = bool(data) and not data.endswith(b"\n")   # a run killed mid-write
    if not any(line.strip() for line in raw):
        raise DatasetError(f"{p}: empty file (expected a header line)")
    lines = []
    for i, line in enumerate(raw, start=1):
        try:
            lines.append(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            if cut_short and i == len(raw) and i > 1:   # a multi-byte character cut by the kill
                lines.append("\0")
                continue
            raise DatasetError(f"{p}:{i}: not UTF-8 text (byte 0x{line[exc.start]:02x} at column "
                               f"{exc.start + 1}); a perfmodel dataset is UTF-8 JSON lines") from None
    try:
        first = json.loads(lines[0])
        body = first.get("header") if isinstance(first, dict) else None
        if isinstance(body, dict):
            need = [f.name for f in dataclasses.fields(DatasetHeader)
                    if f.default is dataclasses.MISSING and f.name not in body]
            if need:
                raise DatasetError(f"{p}:1: not a perfmodel measurement dataset (its header lacks "
                                   f"{', '.join(need)})")
        header = DatasetHeader.from_dict(first)
        if header.format != FORMAT:
            raise DatasetError(f"{p}:1: dataset format {header.format!r} is not one this perfmodel reads ({FORMAT})")
    except KeyError as exc:
        raise DatasetError(f"{p}:1: not a perfmodel dataset header (no key {exc})") from None
    except (ValueError, TypeError, AttributeError) as exc:
        raise DatasetError(f"{p}:1: not a perfmodel dataset header ({exc})") from None
    rows, bad = [], []
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            rows.append(Measurement.from_dict(json.loads(line)))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            bad.append((i, exc))
    if bad:
        _warn_skipped(p, bad, len(rows), cut_short and bad[-1][0] == len(lines))
    return header, rows


def _warn_skipped(p: Path, bad: list[tuple[int, Exception]], kept: int, last_cut: bool) -> None:
    where = ", ".join(str(i) for i, _ in bad[:5]) + (", ..." if len(bad) > 5 else "")
    first = bad[0][1]
    why = "line cut short by a killed run" if last_cut and len(bad) == 1 else \
        f"first: {type(first).__name__}: {' '.join(str(first).split())[:120]}"
    warnings.warn(f"{p}: skipped {len(bad)} unreadable row(s) (line {where}; {why}); read the other {kept}",
                  PerfmodelWarning, stacklevel=3)


class Dataset:
    """An open dataset file: existing rows by key, and ``append`` (flushed line by line)."""

    def __init__(self, path: str | os.PathLike, header: DatasetHeader):
        self.path = Path(path)
        self.header = header
        self.rows: dict[tuple, Measurement] = {}
        if self.path.exists() and self.path.stat().st_size > 0:
            existing, rows = read_dataset(self.path)
            bad = existing.mismatches(header)
            if bad:
                raise DatasetError(f"{self.path} was measured under another setup ({'; '.join(bad)}); "
                                   f"write to a new file")
            self.header = existing
            self.rows = {r.key: r for r in rows}
            self._repair_tail()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w") as f:
                f.write(json.dumps(header.to_dict()) + "\n")

    def _repair_tail(self) -> None:
        """Drop a partial last line left by a killed run, so appends start on a fresh line."""
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            self.path.write_bytes(data[:cut])

    def __contains__(self, key: tuple) -> bool:
        return key in self.rows

    def get(self, key: tuple) -> Measurement | None:
        return self.rows.get(key)

    def append(self, m: Measurement) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps(m.to_dict()) + "\n")
            f.flush()
        self.rows[m.key] = m
