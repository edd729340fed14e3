"""A file of predictions already made, so that a search killed part-way (or run again with other output flags)
does not predict the same configurations again.

One gzip-compressed JSON-lines file per (problem, hardware fingerprint, clock regime, family, model version) under
``$PERFMODEL_PREDICTION_CACHE_DIR`` (default ``~/.cache/perfmodel/predictions``; ``PERFMODEL_PREDICTION_CACHE=0``
turns it off). The model version is a hash of the package's own Python sources: any change to the model starts a
new file, so a cached figure is always what the running code would predict. Each batch of new predictions is
appended as a gzip member as it is made; a member cut short by a kill ends the reading, the members before it
are kept. A cache that cannot be read or written is left alone: the search predicts as it would without one
(the cache saves time, it never decides a result).
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import os
import zlib
from pathlib import Path

from ..hardware import HardwareSpec
from ..problem import GemmProblem

ENV_DISABLE = "PERFMODEL_PREDICTION_CACHE"      # "0": no cache
ENV_DIR = "PERFMODEL_PREDICTION_CACHE_DIR"     # where the files go (default ~/.cache/perfmodel/predictions)
_PACKAGE = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def model_version() -> str:
    """sha256 (16 hex digits) of every Python source of the perfmodel package, names included."""
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        h.update(str(path.relative_to(_PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    base = os.environ.get(ENV_DIR)
    return Path(base) if base else Path.home() / ".cache" / "perfmodel" / "predictions"


class PredictionCache:
    """config name -> the fields of a Scored (search/region.py) but its params, for one problem and model."""

    FIELDS = ("tflops", "bottleneck", "cycles", "time_s", "analytic_tflops", "deadlock", "reason", "smem", "cluster")

    def __init__(self, path: Path | None):
        self.path = path
        self.rows: dict[str, dict] = {}
        self.loaded = 0
        if path is None:
            return
        for line in _lines(path):
            try:
                row = json.loads(line)      # [name, *FIELDS]
                if isinstance(row, list) and len(row) == len(self.FIELDS) + 1 and isinstance(row[0], str):
                    fields = dict(zip(self.FIELDS, row[1:]))
                    if fields["time_s"] is None:        # written as null (_plain): a deadlock's infinite time
                        fields["time_s"] = math.inf
                    self.rows[row[0]] = fields
            except ValueError:
                continue          # a line cut short by a kill, or not ours
        self.loaded = len(self.rows)

    @classmethod
    def open(cls, problem: GemmProblem, hw: HardwareSpec, regime, family: str | None = None) -> "PredictionCache":
        """The cache of this problem on this hardware, clock regime and family (an inert one when disabled)."""
        if os.environ.get(ENV_DISABLE, "1") == "0":
            return cls(None)
        from ..prediction.predict import problem_key
        key = json.dumps([problem_key(problem), hw.name, hw.fingerprint, str(regime), family or "ours",
                          model_version()])
        return cls(cache_dir() / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".jsonl.gz"))

    def get(self, name: str) -> dict | None:
        return self.rows.get(name)

    def add(self, scored: list) -> None:
        """Record new predictions (Scored objects); a failure to write disables the cache for this run."""
        new = [s for s in scored if s.config_name not in self.rows]
        for s in new:
            self.rows[s.config_name] = {k: getattr(s, k) for k in self.FIELDS}
        if self.path is None or not new:
            return
        lines = "".join(json.dumps([s.config_name, *(_plain(getattr(s, k)) for k in self.FIELDS)],
                                   separators=(",", ":")) + "\n" for s in new)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(self.path, "at", encoding="utf-8") as f:    # one gzip member per batch
                f.write(lines)
        except OSError:
            self.path = None


def _lines(path: Path) -> list[str]:
    """The complete lines of a file of appended gzip members; a member cut short by a kill ends the reading
    (what came before it is kept)."""
    out: list[str] = []
    try:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.endswith("\n"):
                    out.append(line)
    except (OSError, EOFError, zlib.error):
        pass
    return out


def _plain(v):
    """JSON has no infinity: a deadlocked prediction's time is written as null and read back as inf."""
    return None if isinstance(v, float) and not math.isfinite(v) else v


__all__ = ["ENV_DIR", "ENV_DISABLE", "PredictionCache", "cache_dir", "model_version"]
