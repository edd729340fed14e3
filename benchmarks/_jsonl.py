"""Read a committed JSONL file that may be stored gzipped: ``NAME.jsonl`` or ``NAME.jsonl.gz`` (the large probe files
under data/ncu are gzipped since 2026-11-26 so the tracked data stay under the 64 MiB a device call copies)."""
from __future__ import annotations

import gzip
from pathlib import Path


def resolve(path: str | Path) -> Path:
    """``path``, or its ``.gz`` twin where only that exists."""
    p = Path(path)
    gz = p.with_name(p.name + ".gz")
    return gz if not p.exists() and gz.exists() else p


def lines(path: str | Path) -> list[str]:
    """The file's lines, gunzipped where its name ends in .gz (OSError where neither form exists)."""
    p = resolve(path)
    if p.suffix == ".gz":
        with gzip.open(p, "rt") as f:
            return f.read().splitlines()
    return p.read_text().splitlines()
