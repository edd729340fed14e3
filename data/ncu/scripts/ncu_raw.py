"""Shared by the ncu record scripts of this folder (run as `python3 data/ncu/scripts/X.py` on the GPU machine, so this
folder is on sys.path): where ncu is, and the requested metrics of one `ncu --csv --page raw` run."""
import csv
import io
import shutil
from pathlib import Path


def find_ncu():
    """ncu on PATH, else the newest CUDA install's, else None."""
    return shutil.which("ncu") or next(iter(sorted(Path("/usr/local").glob("cuda*/bin/ncu"))), None)


def parse(text: str, metrics: str) -> dict:
    """{metric: [value, unit]} of the comma-separated ``metrics`` from ncu's --csv --page raw output (header, units,
    one row a kernel: the last is kept)."""
    rows = [r for r in csv.reader(io.StringIO(text[text.find('"ID"'):])) if r]
    if len(rows) < 3:
        return {}
    hdr, units, vals = rows[0], rows[1], rows[-1]
    wanted = metrics.split(",")
    return {h: [v, u] for h, u, v in zip(hdr, units, vals) if h in wanted}
