"""What a simulated window returns (SimTrace), and the first tile's own run read off a longer one.

A window's first tile never waits behind a later tile's work: its loads are the producer's first
k-blocks, its MMAs reach the tensor core before any later tile's and its stores reach the store path
first. So the run of that tile alone (what the wave-tail correction needs) can be read off the window
instead of simulated again: the counters as they stood when each of those streams finished its part
of the first tile, the producer's waits for the first tile's stages only. ``FirstTile`` keeps them
and says when the premise did not hold (a later tile's MMA or store came first).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SimTrace:
    end_cycles: float
    end_counters: tuple
    snapshots: dict          # (tile, k) -> (time, counters) when the last issuer issued k-block k
    intervals: list
    deadlock: str            # "" or the reason
    events: int
    # the run of the first tile alone as this run shows it (FirstTile), None when it cannot be read off
    # this run or when this run has one tile (it is then that run itself)
    first_tile: "SimTrace | None" = None


@dataclass
class FirstTile:
    mma_left: int                    # first-tile MMA batches still to reach the tensor core
    stores_left: int                 # first-tile epilogue stores still to reach the store path
    ok: bool = True                  # no later tile's MMA or store came before the first tile's last
    end: float = 0.0                 # when the first tile's last store is done
    stall_empty: float = 0.0         # producer waits for first-tile stages counted so far (snapshots)
    mma: tuple | None = None         # (math, smem, stall_full, stall_epilogue) after its last MMA
    loads: tuple | None = None       # (tma, l2, hbm busy, empty stalls, l2 tags busy) after its last load
    epi_busy: float | None = None    # store path busy after its last store
    l2_stores: float = 0.0           # L2 busy of its output stores (charged at the epilogue, after its last load)
    tag_stores: float = 0.0          # and their L2 tag pipeline busy
    snaps: dict = field(default_factory=dict)

    def last_mma(self, tile: int) -> bool:
        """An MMA batch of ``tile`` reached the tensor core: True when it was the first tile's last
        (the caller then records ``mma``)."""
        if tile == 0:
            self.mma_left -= 1
            return self.mma_left == 0
        if self.mma_left:
            self.ok = False
        return False

    def stored(self, tile: int, done: float, epi_busy: float, l2_busy: float = 0.0, tag_busy: float = 0.0) -> None:
        if tile == 0:
            self.l2_stores += l2_busy
            self.tag_stores += tag_busy
            self.stores_left -= 1
            self.end = max(self.end, done)
            if self.stores_left == 0:
                self.epi_busy = epi_busy
        elif self.stores_left:
            self.ok = False

    def snapshot(self, k: int, now: float, counters: tuple) -> None:
        """The window's snapshot of first-tile k-block k, with the producer's waits for later tiles'
        stages left out."""
        self.snaps[(0, k)] = (now, counters[:7] + (self.stall_empty,) + counters[8:])

    def trace(self) -> SimTrace | None:
        if not self.ok or self.mma is None or self.loads is None or self.epi_busy is None:
            return None
        math_busy, smem_busy, s_full, s_epi = self.mma
        tma, l2, hbm, s_empty, tags = self.loads
        counters = (math_busy, smem_busy, tma, l2 + self.l2_stores, hbm, self.epi_busy, s_full, s_empty, s_epi,
                    tags + self.tag_stores)
        return SimTrace(self.end, counters, self.snaps, [], "", 0)


__all__ = ["FirstTile", "SimTrace"]
