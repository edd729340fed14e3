"""SimPy building blocks: mbarriers with phase/parity and transaction bytes, FIFO rate servers, a recorder.

Time is in SM clock cycles; every ``env.timeout`` is an integer number of cycles. A server keeps a
fractional ``free_at`` so that many small requests do not accumulate rounding.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import simpy

TX_COUNT_MAX = (1 << 20) - 1    # PTX §9.7.13.15: tx-count range [-(2^20-1), 2^20-1]


class DeadlockError(Exception):
    """A barrier protocol that cannot make progress (raised inside the simulation)."""


class Wakeup(simpy.Event):
    """An event a barrier schedules for a later cycle (``at``): one event resumes the waiter at the
    cycle its phase completes, however early that completion became known. A waiter the barrier held
    back resumes after the other events of that cycle (LATE), as it would behind the completing event."""

    __slots__ = ()
    LATE = 2     # after simpy's NORMAL (1) events of the same cycle

    def at(self, delay: int, late: bool = True) -> None:
        # what Event.succeed does, scheduled `delay` cycles ahead (as simpy.Timeout does)
        self._ok, self._value = True, None
        self.env.schedule(self, self.LATE if late else simpy.core.NORMAL, delay)


class MBarrier:
    """An mbarrier (PTX §9.7.13.15): a phase completes when its pending arrivals reach zero and its
    transaction count is back to zero; the phase then flips and the arrival count reloads. ``wait(p)``
    is ``try_wait.parity``: it succeeds once the phase with parity ``p`` has completed.

    Arrivals and transaction completions may be posted ahead with the cycle they happen at (``at=``):
    a TMA load's complete_tx lands when its bytes do, a consumer's release when its wait_group returns.
    The phase then completes at the latest posted cycle (``done_at``), known as soon as the last of
    them is posted, and a waiter sleeps until that cycle with one event."""

    __slots__ = ("env", "name", "count", "pending", "tx", "phase", "waiters", "latest", "done_at")

    def __init__(self, env: simpy.Environment, name: str, count: int):
        if not 1 <= count <= TX_COUNT_MAX:
            raise DeadlockError(f"{name}: arrival count {count} outside [1, 2^20-1]")
        self.env, self.name, self.count = env, name, count
        self.pending, self.tx, self.phase = count, 0, 0
        self.latest = self.done_at = 0
        self.waiters: list = []     # (Wakeup, earliest cycle to resume) or (callable, earliest)

    def expect_tx(self, nbytes: int) -> None:
        self.tx += nbytes
        if self.tx > TX_COUNT_MAX:
            raise DeadlockError(f"{self.name}: expected transaction bytes {self.tx} exceed the tx-count "
                                f"limit 2^20-1; the phase can never complete")

    def complete_tx(self, nbytes: int, at: int | None = None) -> None:
        self.tx -= nbytes
        t = self.env.now if at is None else at
        if t > self.latest:
            self.latest = t
        if self.pending == 0 and self.tx == 0:
            self._complete()

    def arrive(self, n: int = 1, at: int | None = None) -> None:
        pending = self.pending - n
        if pending < 0:
            raise DeadlockError(f"{self.name}: more arrivals than the count {self.count}")
        self.pending = pending
        t = self.env.now if at is None else at
        if t > self.latest:
            self.latest = t
        if pending == 0 and self.tx == 0:
            self._complete()

    def arrive_expect_tx(self, nbytes: int) -> None:
        self.expect_tx(nbytes)
        self.arrive()

    def post_tx(self, nbytes: int, at: int) -> None:
        """A TMA load: arrive.expect_tx(nbytes) now and its complete_tx posted for the cycle ``at`` its
        bytes land (at >= now). (sim/pipeline.py's TMA producer inlines the common path: keep the two in step.)"""
        if nbytes <= 0 or self.tx + nbytes > TX_COUNT_MAX:
            self.arrive_expect_tx(nbytes)             # the general path (and its tx-count error)
            self.complete_tx(nbytes, at=at)
            return
        self.pending -= 1
        if self.pending < 0:
            raise DeadlockError(f"{self.name}: more arrivals than the count {self.count}")
        now = self.env.now
        t = at if at > now else now
        if t > self.latest:
            self.latest = t
        if self.pending == 0 and self.tx == 0:
            self._complete()

    def _complete(self) -> None:
        self.phase += 1
        self.pending = self.count
        self.done_at = done = self.latest
        if self.waiters:
            now = self.env.now
            waiters, self.waiters = self.waiters, []
            for ev, earliest in waiters:
                if ev.__class__ is Wakeup:
                    ev.at((done if done > earliest else earliest) - now, late=done > earliest)
                else:
                    ev()                  # a thread that runs at once on the posted completion

    def ready_at(self, parity: int) -> int | None:
        """The cycle the phase of this parity completed (or will complete: its arrivals are all posted),
        or None while some are still to come. A fresh barrier's "previous" phase (parity 1) is at 0."""
        return self.done_at if (self.phase & 1) != parity else None

    def wait(self, parity: int, earliest: int | None = None) -> simpy.Event | None:
        """None when the phase of this parity has completed by ``earliest`` (default: now), else an
        event that fires at max(completion, earliest). (sim/pipeline.py's wgmma consumers inline this and ``arrive``:
        keep them in step.)"""
        env = self.env
        now = env.now
        t0 = now if earliest is None else earliest
        if (self.phase & 1) == parity:                   # ready_at: some arrivals still to come
            ev = Wakeup(env)
            self.waiters.append((ev, t0))
            return ev
        done = self.done_at
        if done <= now and t0 <= now:
            return None
        if done > t0:
            ev = Wakeup(env)
            ev.at(done - now)
            return ev
        return env.timeout(t0 - now)


@dataclass
class Server:
    """A FIFO bandwidth: requests are served in order at ``rate`` units per cycle."""
    name: str
    rate: float
    free_at: float = 0.0
    busy: float = 0.0

    def reserve(self, t: float, amount: float) -> float:
        """Serve ``amount`` from time t on; returns the finish time."""
        if amount <= 0:
            return t
        dur = amount / self.rate
        start = t if t > self.free_at else self.free_at
        self.free_at = start + dur
        self.busy += dur
        return self.free_at


@dataclass
class SharedServer(Server):
    """This SM's share of a chip-wide bandwidth (L2, HBM) as a token bucket: tokens accrue at ``rate``
    (the share: chip bandwidth / active SMs) up to ``depth``; a request covered by tokens is not held
    back by the share (the SM's own TMA engine still limits it), the rest waits for tokens. Over a long
    stream the SM gets exactly its share; an SM that idled (a latency-bound ring, a pipeline fill) may
    draw a burst from bandwidth the other SMs' idle moments leave free. ``depth`` is one stage ring's
    bytes: the SMs of a wave are not in phase, but no SM runs more than its ring ahead."""
    depth: float = 0.0
    tokens: float = 0.0
    t_tokens: float = 0.0
    recent_busy: float = 0.0   # busy cycles and elapsed cycles, both decayed over the last ring's worth of time
    recent_time: float = 0.0
    t_last: float = 0.0
    utilization: float = 0.0  # the recent utilization seen by the last request
    busy_stores: float = 0.0  # busy cycles of the output stores' requests (``store=True``), apart from ``busy``

    def reserve(self, t: float, amount: float, store: bool = False) -> float:
        if amount <= 0:
            return t
        # the chip's recent utilization of this resource: the SMs of a wave are alike, so it is this SM's own
        # over about the time its ring's bytes take at its share (tau), decayed as tau / (tau + elapsed)
        rate, t_last = self.rate, self.t_last
        if t > t_last:
            dt = t - t_last
            self.t_last = t
        else:
            dt = 0.0
        tau = self.depth / rate
        decay = tau / (tau + dt) if tau > 0 else 0.0
        self.recent_time = recent_time = self.recent_time * decay + dt
        u = self.recent_busy / recent_time if recent_time > 0 else 0.0
        busy = amount / rate
        self.recent_busy = self.recent_busy * decay + busy
        self.utilization = u
        if store:
            self.busy_stores += busy
        else:
            self.busy += busy
        t_tokens = self.t_tokens
        if t > t_tokens:
            tokens = self.tokens + (t - t_tokens) * rate
            if tokens > self.depth:
                tokens = self.depth
            start = t
        else:
            tokens, start = self.tokens, t_tokens
        if tokens >= amount:
            # a burst draws on bandwidth the other SMs leave free: they are like this one, so with the chip's
            # resource at utilization u a burst runs at most at rate / u
            self.tokens, self.t_tokens = tokens - amount, start
            return start + amount * (u if u < 1.0 else 1.0) / rate
        finish = start + (amount - tokens) / rate
        self.tokens, self.t_tokens = 0.0, finish
        return finish


@dataclass
class Recorder:
    """Intervals for the timeline (only when asked) and stall counters (always)."""
    keep: bool = False
    intervals: list = field(default_factory=list)     # (row, label, start, end, kind)
    stall_full: float = 0.0
    stall_empty: float = 0.0
    stall_epilogue: float = 0.0

    def span(self, row: str, label: str, start: float, end: float, kind: str) -> None:
        if self.keep and end > start:
            self.intervals.append((row, label, float(start), float(end), kind))


def cycles(x: float) -> int:
    """Durations are whole cycles, rounded up. (sim/pipeline.py's per-stage loops inline this rule, ceil(x - 1e-9)
    clipped at 0, for speed: keep them in step.)"""
    c = math.ceil(x - 1e-9)
    return c if c > 0 else 0
