"""Output paths checked before any work: a command that would simulate, fit or measure for minutes
and then fail to write its table, plot or trace refuses at once instead (one line, exit 2), so
nothing computed is lost and no traceback follows a printed table.

``writable_file`` probes the path the way the writer will open it, without changing it: an existing
file is opened for appending (its bytes stay as they are), a new one is created and removed again.
That catches a missing or non-directory parent, a directory given as the file, permissions, a
read-only file system and pseudo file systems such as /proc alike.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import PerfmodelError


class OutputPathError(PerfmodelError):
    """An output path the command could not write (checked before the work)."""


def writable_file(path: str, flag: str, *, create_dirs: bool = False) -> Path:
    """``path`` as a Path if a file can be written there; else OutputPathError naming ``flag``.
    ``create_dirs``: missing parent directories are fine (the writer creates them), as long as the
    nearest existing one is a writable directory."""
    p = Path(path)
    if not str(path).strip():
        raise OutputPathError(f"{flag}: empty path")
    if p.is_dir():
        raise OutputPathError(f"{flag} {path}: is a directory (give a file name)")
    parent = p.parent
    if create_dirs:
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
    if not parent.exists():
        raise OutputPathError(f"{flag} {path}: directory {parent} does not exist")
    if not parent.is_dir():
        raise OutputPathError(f"{flag} {path}: {parent} is not a directory")
    if create_dirs and parent != p.parent:
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputPathError(f"{flag} {path}: cannot create directories in {parent} (permission denied)")
        return p
    existed = p.exists()
    try:
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        os.close(fd)
    except OSError as exc:
        raise OutputPathError(f"{flag} {path}: cannot write ({exc.strerror})") from None
    if not existed:
        try:
            os.unlink(p)
        except OSError:
            pass
    return p


def image_file(path: str, flag: str) -> Path:
    """A writable path whose suffix names an image format matplotlib writes (.png, .pdf, .svg, ...)."""
    if not str(path).strip():
        raise OutputPathError(f"{flag}: empty path")
    from matplotlib.backend_bases import FigureCanvasBase   # only when an image is asked for
    known = sorted(FigureCanvasBase.get_supported_filetypes())
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in known:
        what = f"unknown image suffix '.{suffix}'" if suffix else "no image suffix"
        raise OutputPathError(f"{flag} {path}: {what} (known: {', '.join('.' + k for k in known)})")
    return writable_file(path, flag)


def file_key(path: str):
    """One file, however named: its device and inode when it exists (hard and symbolic links alike), else its
    resolved path."""
    full = os.path.realpath(os.path.expanduser(path))
    try:
        st = os.stat(full)
        return (st.st_dev, st.st_ino)
    except OSError:
        return full


def distinct_paths(outputs: dict[str, str | None], inputs: dict[str, str] | None = None) -> None:
    """Refuse (OutputPathError) when two output options name the same file, or an output names one of the
    inputs: the second write would replace the first, or the output would overwrite the data being read.
    ``outputs``: option -> path (None or empty: not given); ``inputs``: what -> path."""
    seen: dict = {}
    for flag, path in outputs.items():
        if not path:
            continue
        k = file_key(path)
        if k in seen:
            raise OutputPathError(f"{seen[k]} and {flag} name the same file {path}: give each its own")
        seen[k] = flag
    for what, path in (inputs or {}).items():
        if path and file_key(path) in seen:
            raise OutputPathError(f"{seen[file_key(path)]} {path} is {what}: writing it would overwrite the data it "
                                  f"reads (give another file)")


def write_or_fail(flag: str, path: str, write) -> None:
    """Run ``write()`` (which writes ``path``); an OSError while writing (a full disk, a file system gone
    read-only since the check) is one line naming the option and the file."""
    try:
        write()
    except OSError as exc:
        raise OutputPathError(f"{flag} {path}: cannot write ({exc.strerror or exc})") from None


__all__ = ["OutputPathError", "distinct_paths", "file_key", "image_file", "writable_file", "write_or_fail"]
