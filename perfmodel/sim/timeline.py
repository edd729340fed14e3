"""Timeline of one SM from the simulation window: a matplotlib Gantt (PNG) and a Chrome trace (JSON).

Rows follow the data's path: the TMA producer (box issue, waits on empty barriers), one row per
shared-memory stage (loads in flight until complete_tx), the MMA issuers (tensor-core work, waits on
full barriers and on the epilogue), and the epilogue (tcgen05.ld, convert and store). The window is
the simulated one: the first tiles, each with its K loop cut to the simulated k-blocks.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

COLORS = {"tma_issue": "#1f77b4", "tma_load": "#9ecae1", "mma": "#2ca02c", "wait_full": "#d62728",
          "wait_empty": "#ff7f0e", "wait_epilogue": "#9467bd", "epilogue": "#8c564b", "tmem_ld": "#e377c2",
          "wait_acc": "#bdbdbd"}
LEGEND = {"tma_issue": "TMA issue", "tma_load": "TMA load in flight", "mma": "MMA (tensor core)",
          "wait_full": "wait: full barrier", "wait_empty": "wait: empty barrier",
          "wait_epilogue": "wait: accumulator (epilogue)", "tmem_ld": "tcgen05.ld", "epilogue": "epilogue store",
          "wait_acc": "wait: acc_full"}


@dataclass(frozen=True)
class Timeline:
    intervals: tuple          # (row, label, start_cycle, end_cycle, kind)
    tiles: int                # tiles in the simulated window
    k_window: int             # k-blocks simulated per tile
    k_iters: int              # k-blocks per tile in the real kernel

    def rows(self) -> list[str]:
        def rank(r: str) -> tuple:
            order = ("TMA producer", "stage", "MMA", "Epilogue")
            return (next(i for i, p in enumerate(order + ("",)) if r.startswith(p)), _natural(r))
        return sorted({iv[0] for iv in self.intervals}, key=rank)


def _natural(s: str) -> tuple:
    head, _, tail = s.rpartition(" ")
    return (head, int(tail)) if tail.isdigit() else (s, 0)


def write_gantt(tl: Timeline, path: str, *, title: str = "", clock_hz: float = 0.0) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = tl.rows()
    fig, ax = plt.subplots(figsize=(14, 1.0 + 0.42 * len(rows)))
    y = {r: i for i, r in enumerate(reversed(rows))}
    used = set()
    for row, label, start, end, kind in tl.intervals:
        tile = _tile_of(label)
        alpha = 1.0 if kind != "mma" or tile % 2 == 0 else 0.6
        # waits are thin bars along the bottom of their row: a thread waiting while work it already
        # issued keeps a unit busy is not idle hardware
        y0, h = (y[row] - 0.38, 0.22) if kind.startswith("wait") else (y[row] - 0.3, 0.68)
        ax.broken_barh([(start, end - start)], (y0, h), facecolors=COLORS.get(kind, "#777777"),
                       edgecolor="white" if kind in ("mma", "tma_issue") else "none", linewidth=0.3, alpha=alpha)
        used.add(kind)
    ax.set_yticks(list(y.values()))
    ax.set_yticklabels(list(y.keys()), fontsize=8)
    unit = "cycles"
    if clock_hz:
        ax.secondary_xaxis("top", functions=(lambda c: c / clock_hz * 1e6, lambda us: us * clock_hz / 1e6)) \
            .set_xlabel("time (us)", fontsize=8)
    ax.set_xlabel(f"SM {unit} (simulated window: {tl.tiles} tile(s), first {tl.k_window} of {tl.k_iters} "
                  f"k-blocks each)", fontsize=8)
    ax.set_xlim(left=0)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=[Patch(color=COLORS[k], label=LEGEND[k]) for k in COLORS if k in used],
              loc="upper center", bbox_to_anchor=(0.5, -0.18 if len(rows) > 6 else -0.3), ncol=5, fontsize=8,
              frameon=False)
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _tile_of(label: str) -> int:
    for tok in label.split():
        if tok.startswith("t") and tok[1:].isdigit():
            return int(tok[1:])
    return 0


def chrome_trace(tl: Timeline, *, clock_hz: float, title: str = "") -> dict:
    """Chrome trace-event JSON (``ph: X`` complete events, microseconds); Perfetto loads it."""
    rows = tl.rows()
    tid = {r: i + 1 for i, r in enumerate(rows)}
    us = 1e6 / clock_hz
    events = [{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": title or "SM 0"}}]
    events += [{"name": "thread_name", "ph": "M", "pid": 1, "tid": t, "args": {"name": r}} for r, t in tid.items()]
    events += [{"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": t, "args": {"sort_index": t}}
               for t in tid.values()]
    for row, label, start, end, kind in tl.intervals:
        events.append({"name": label, "cat": kind, "ph": "X", "pid": 1, "tid": tid[row], "ts": start * us,
                       "dur": (end - start) * us, "args": {"start_cycle": start, "end_cycle": end}})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"clock_hz": clock_hz, "tiles": tl.tiles, "k_window": tl.k_window,
                          "k_iters": tl.k_iters}}


def write_chrome_trace(tl: Timeline, path: str, *, clock_hz: float, title: str = "") -> None:
    with open(path, "w") as f:
        json.dump(chrome_trace(tl, clock_hz=clock_hz, title=title), f)
