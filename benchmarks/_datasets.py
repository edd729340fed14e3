"""The committed JSONL datasets of other kernels' measurements (data/triton, data/cublaslt), read by the benchmarks:
header + rows, the GPU spec each ran on, and the rows of one half of a split by shape. A file may be stored compressed
(NAME.jsonl.xz or .gz, read by _jsonl): it is named and globbed by its uncompressed name."""
from __future__ import annotations

import json
import pathlib
import tomllib
from typing import Callable, Iterator

import pandas as pd

import _jsonl

ROOT = pathlib.Path(__file__).resolve().parent.parent
GPU_BY_NAME = {"NVIDIA H100 80GB HBM3": "h100-sxm", "NVIDIA H200": "h200"}


def split_datasets(split_file: str, data_glob: str, split: str, file: str | None = None,
                   keep: Callable[[dict], bool] = lambda row: True
                   ) -> Iterator[tuple[pathlib.Path, dict, str, pd.DataFrame]]:
    """(path, header, GPU spec, rows of the ``split`` half with a ``shape`` column) of ``file`` or of every
    dataset matching ``data_glob`` under the repository root (whether stored plain or compressed, by the
    uncompressed name); ``split`` "all" keeps every row; rows ``keep``
    refuses and datasets with no row left are skipped."""
    halves = tomllib.loads((ROOT / split_file).read_text())["split"]
    files = [pathlib.Path(file).resolve()] if file else _jsonl.glob(ROOT, data_glob)
    for f in files:
        lines = _jsonl.lines(f)
        head = json.loads(lines[0])["header"]
        df = pd.DataFrame([r for r in (json.loads(ln) for ln in lines[1:] if ln.strip()) if keep(r)])
        df["shape"] = [f"{m}x{n}x{k}" for m, n, k in zip(df.m, df.n, df.k)]
        if split != "all":
            df = df[df["shape"].isin(halves[split])]
        if not df.empty:
            yield f, head, GPU_BY_NAME.get(head["gpu_name"], "h100-sxm"), df
