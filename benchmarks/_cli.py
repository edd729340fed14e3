"""What the benchmark scripts' command lines share: the GPU named by --gpu, or one line on stderr."""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from perfmodel import load_hardware  # noqa: E402


def hardware_or_none(gpu: str, prog: str):
    """The hardware spec of ``gpu``, or None after one line on stderr (an unknown GPU, a broken file)."""
    try:
        return load_hardware(gpu)
    except Exception as exc:       # any failure to load is the user's one line, never a traceback
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
