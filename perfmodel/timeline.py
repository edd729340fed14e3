"""Timeline of one SM from the simulation window: a matplotlib Gantt (PNG) and a Chrome trace (JSON)."""
from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Timeline:
    intervals: tuple          # (row, label, start_cycle, end_cycle, kind)
    tiles: int                # tiles in the simulated window
    k_window: int             # k-blocks simulated per tile
    k_iters: int              # k-blocks per tile in the real kernel
