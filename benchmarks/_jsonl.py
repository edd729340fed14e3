"""Read a committed JSONL file that may be stored compressed: ``NAME.jsonl``, ``NAME.jsonl.xz`` or ``NAME.jsonl.gz``
(the large probe files under data/ncu are gzipped since 2026-11-26, and the largest data files are stored as xz since
2026-11-28, so the tracked data stay under the 64 MiB a device call copies). A name stands for its content: code,
tests and docs name a file by its uncompressed name, and ``resolve`` finds whichever form is stored (the bytes inside
are those of the uncompressed file)."""
from __future__ import annotations

import gzip
import lzma
from pathlib import Path

COMPRESSED = (".xz", ".gz")     # the stored forms read besides the plain file, in the order looked for


def plain(path: str | Path) -> Path:
    """``path`` without its .xz or .gz suffix: the name of the content."""
    p = Path(path)
    return p.with_suffix("") if p.suffix in COMPRESSED else p


def resolve(path: str | Path) -> Path:
    """``path`` where it exists, else the first stored form of its content (plain, .xz, .gz); ``path`` if none."""
    p = Path(path)
    if p.exists():
        return p
    base = plain(p)
    return next((q for q in (base, *(base.with_name(base.name + s) for s in COMPRESSED)) if q.exists()), p)


def glob(root: Path, pattern: str) -> list[Path]:
    """The contents stored under ``root`` whose uncompressed name matches ``pattern``, each once by that name,
    sorted."""
    return sorted({plain(p) for s in ("", *COMPRESSED) for p in root.glob(pattern + s)})


def lines(path: str | Path) -> list[str]:
    """The file's lines, decompressed where its stored name ends in .xz or .gz (OSError where no form exists)."""
    p = resolve(path)
    if p.suffix in COMPRESSED:
        with (lzma if p.suffix == ".xz" else gzip).open(p, "rt") as f:
            return f.read().splitlines()
    return p.read_text().splitlines()
