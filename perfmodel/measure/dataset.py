"""Append-only JSONL dataset: a header line, then one Measurement per line (kernel_tuner's cache,
as JSONL so that a killed run leaves a readable file and the next run resumes)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import PerfmodelError
from .records import DatasetHeader, Measurement


class DatasetError(PerfmodelError):
    """A dataset file that cannot be read, or whose header does not match this run."""


def read_dataset(path: str | os.PathLike) -> tuple[DatasetHeader, list[Measurement]]:
    p = Path(path)
    try:
        lines = p.read_text().splitlines()
    except OSError as exc:
        raise DatasetError(f"{p}: cannot read ({exc.strerror})") from None
    if not lines:
        raise DatasetError(f"{p}: empty file (expected a header line)")
    try:
        header = DatasetHeader.from_dict(json.loads(lines[0]))
    except (ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"{p}:1: not a perfmodel dataset header ({exc})") from None
    rows = []
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            rows.append(Measurement.from_dict(json.loads(line)))
        except (ValueError, KeyError, TypeError) as exc:
            if i == len(lines):   # a run killed mid-write leaves a partial last line: ignore it
                break
            raise DatasetError(f"{p}:{i}: malformed measurement ({exc})") from None
    return header, rows


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
