"""The SimPy processes of one SM (one CTA; for cta_group::2 one CTA of a symmetric pair).

Producer (one TMA thread) -> stage ring guarded by full/empty mbarriers -> MMA issuers (sm_90a: the
consumer warpgroups issuing wgmma with ``wait_group`` depth; sm_100a: one thread issuing tcgen05.mma
and ``tcgen05.commit`` onto the stage's empty barrier) -> epilogue (sm_90a: the consumers themselves,
accumulators in registers, no overlap with their next mainloop; sm_100a: epilogue warpgroups reading
TMEM with tcgen05.ld, double-buffered through acc_full/acc_empty barriers so it overlaps the next
tile). Peers in a cluster or CTA pair are symmetric: their multicast bytes and commit arrivals are
mirrored at the same instant as this SM's own.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import simpy

from .components import DeadlockError, MBarrier, Recorder, Server, SharedServer, Wakeup, cycles
from .params import SimParams

# Stall counters: "full_barrier" and "epilogue" are tensor-core idle cycles, each gap charged to what
# kept the next MMA from issuing (its data not landed yet / the accumulator or consumers busy in the
# epilogue); "empty_barrier" is the producer's wait for a free stage (large when compute-bound).
COUNTER_NAMES = ("tensor_core", "smem", "tma", "l2", "hbm", "epilogue",
                 "full_barrier", "empty_barrier", "epilogue_stall")


@dataclass(frozen=True)
class SimTrace:
    end_cycles: float
    end_counters: tuple
    snapshots: dict          # (tile, k) -> (time, counters) when the last issuer issued k-block k
    intervals: list
    deadlock: str            # "" or the reason
    events: int


class SmSim:
    """One SM's processes. Barrier arrivals are posted with the cycle they happen at (a TMA load's
    complete_tx when its bytes land, a consumer's release when its wait_group returns, a
    tcgen05.commit when its MMAs complete), so every wait is a single event that resumes the waiter at
    the completion cycle. A process yields only to reach the cycle where it next touches something
    other processes share (the tensor core, the epilogue store path); the producer, the only user of
    its TMA, L2 and HBM servers, issues ahead without yielding while the ring has free stages."""

    def __init__(self, p: SimParams, n_tiles: int, k_iters: int, record: bool = False, marks=None):
        self.p, self.n_tiles, self.k_iters = p, n_tiles, k_iters
        self.env = env = simpy.Environment()
        self.rec = Recorder(keep=record)
        s = p.stages
        self.full = [MBarrier(env, f"full[{i}]", 1) for i in range(s)]
        self.empty = [MBarrier(env, f"empty[{i}]", 1 if p.tmem else p.issuers) for i in range(s)]
        nacc = max(p.acc_buffers, 1)
        self.acc_full = [MBarrier(env, f"acc_full[{i}]", 1) for i in range(nacc)]
        self.acc_empty = [MBarrier(env, f"acc_empty[{i}]", 1) for i in range(nacc)]
        self.tc = Server("tensor_core", 1.0)
        self.tma = Server("tma", p.tma_bytes_per_clock)
        ring = max(p.stages, 1)
        self.l2 = SharedServer("l2", p.l2_bytes_per_clock, depth=ring * p.l2_bytes_per_stage)
        self.hbm = SharedServer("hbm", p.hbm_bytes_per_clock, depth=ring * p.hbm_bytes_per_stage)
        self.epi = Server("epilogue", p.epi_bytes_per_clock)
        self.math_busy = self.smem_busy = 0.0
        self.occ = p.instr_cycles
        self.snapshots: dict = {}
        self.marks = marks               # (tile, k) keys to snapshot; None: all
        self.done_workers = 0
        self.end = 0.0
        self.events = 0
        self.event_budget = 64 * n_tiles * k_iters * (p.issuers + 2) + 10000

    # ------------------------------------------------------------------ helpers
    def counters(self) -> tuple:
        r = self.rec
        return (self.math_busy, self.smem_busy, self.tma.busy, self.l2.busy, self.hbm.busy, self.epi.busy,
                r.stall_full, r.stall_empty, r.stall_epilogue)

    def _until(self, bar: MBarrier, parity: int, earliest: int):
        """The event to yield so as to resume at max(completion of bar's phase of this parity, earliest),
        or None when that cycle is now."""
        ev = bar.wait(parity, earliest)
        if ev is not None:
            self.events += 1
        return ev

    def _mma(self, t: float, n: int, row: str, label, waited_full: float = 0.0,
             after_epilogue: bool = False) -> float:
        """Reserve the tensor core for n back-to-back instructions issued from t; returns completion.
        An idle gap before them is charged to the full-barrier wait (at most its length), the rest to
        the epilogue when the issuer comes from one."""
        p, tc, occ = self.p, self.tc, self.occ
        gap = t - tc.free_at
        if gap > 0:
            full = min(gap, waited_full)
            self.rec.stall_full += full
            if after_epilogue:
                self.rec.stall_epilogue += gap - full
        start = max(t, tc.free_at)
        tc.free_at = start + n * occ
        tc.busy += n * occ
        self.math_busy += n * p.instr_math_cycles
        self.smem_busy += n * p.instr_smem_cycles
        done = start + (n - 1) * occ + max(occ, p.mma_latency_floor)
        if self.rec.keep:
            self.rec.span(row, label(), start, done, "mma")
        return done

    def _mark(self, tile: int, k: int) -> None:
        if self.marks is None or (tile, k) in self.marks:
            self.snapshots[(tile, k)] = (float(self.env.now), self.counters())

    def _waited(self, row: str, bar: MBarrier, since: int, kind: str) -> int:
        """Cycles a wait that began at ``since`` lasted (the process now runs at env.now)."""
        now = self.env.now
        if now > since and self.rec.keep:
            self.rec.span(row, f"wait {bar.name}", since, now, kind)
        return now - since if now > since else 0

    # ------------------------------------------------------------------ processes
    def producer(self):
        """TMA producer: per stage wait empty, arrive.expect_tx, issue the boxes; the stage's full
        barrier completes when the last byte lands (L2/HBM share and TMA rate, plus latency)."""
        p, env, S, rec = self.p, self.env, self.p.stages, self.rec
        keep, tx, free = rec.keep, p.stage_tx_bytes, 0      # free: cycle its last issue is done
        for it in range(self.n_tiles * self.k_iters):
            s, bar = it % S, self.empty[it % S]
            done = bar.ready_at(((it // S) & 1) ^ 1)
            if done is None or done > free:                  # the stage is not free by then: sleep
                yield self._until(bar, ((it // S) & 1) ^ 1, free)
                rec.stall_empty += self._waited("TMA producer", bar, free, "wait_empty")
                start = env.now
            else:
                start = free                                 # free in time: issue ahead, no event
            t0 = start + p.wait_cycles
            full = self.full[s]
            full.arrive_expect_tx(tx)
            t_req = t0 + p.tma_issue_cycles
            land = max(self.l2.reserve(t_req, p.l2_bytes_per_stage),
                       self.hbm.reserve(t_req, p.hbm_bytes_per_stage),
                       self.tma.reserve(t_req, p.stage_smem_bytes)) + p.tma_latency_cycles
            if keep:
                tile, k = divmod(it, self.k_iters)
                rec.span("TMA producer", f"issue t{tile} k{k}", t0, t_req, "tma_issue")
                rec.span(f"stage {s} load", f"t{tile} k{k}", t_req, land, "tma_load")
            full.complete_tx(tx, at=start + cycles(land - start))
            free = start + cycles(t_req - start)

    def wgmma_consumer(self, c: int):
        """sm_90a consumer warpgroup: wait full, issue its wgmma batch, wait_group(depth), release."""
        p, env, S, n = self.p, self.env, self.p.stages, self.p.instr_per_stage
        row = f"MMA wg{c}"
        it, free = 0, 0                    # free: cycle its wait_group (or epilogue) returns
        for tile in range(self.n_tiles):
            pending: deque = deque()
            for k in range(self.k_iters):
                s, ph = it % S, (it // S) & 1
                ev = self._until(self.full[s], ph, free)
                if ev is not None:
                    yield ev
                waited = self._waited(row, self.full[s], free, "wait_full")
                now = env.now
                t0 = now + p.wait_cycles
                done = self._mma(t0, n, row, lambda: f"t{tile} k{k}", waited,
                                 after_epilogue=(k == 0 and tile > 0))
                pending.append((s, done))
                self._mark(tile, k)
                nxt = t0 + n * p.issue_overhead_cycles
                release = []
                while len(pending) > p.wait_depth:
                    s_old, d_old = pending.popleft()
                    nxt = max(nxt, d_old)
                    release.append(s_old)
                free = now + cycles(nxt - now)
                for s_old in release:
                    self.empty[s_old].arrive(at=free)
                it += 1
            if pending:                                   # wait_group 0 before touching accumulators
                free += cycles(max(d for _, d in pending) - free)
                for s_old, _ in pending:
                    self.empty[s_old].arrive(at=free)
            if free > env.now:                            # the store path is shared: be there in order
                self.events += 1
                yield env.timeout(free - env.now)
            end = self.epi.reserve(free, p.epi_bytes_per_worker)
            t0, free = free, free + cycles(end - free)
            self.rec.span(f"Epilogue wg{c}", f"t{tile} store", t0, free, "epilogue")
        self._finish(free)

    def tcgen05_issuer(self):
        """sm_100a MMA thread: per tile take an accumulator buffer, per stage wait full, issue, commit."""
        p, env, S, n = self.p, self.env, self.p.stages, self.p.instr_per_stage
        row, it, nacc, free = "MMA (tcgen05)", 0, max(p.acc_buffers, 1), 0
        for tile in range(self.n_tiles):
            b = tile % nacc
            ev = self._until(self.acc_empty[b], ((tile // nacc) & 1) ^ 1, free)
            if ev is not None:
                yield ev
            acc_wait = self._waited(row, self.acc_empty[b], free, "wait_epilogue")
            free = env.now
            for k in range(self.k_iters):
                s, ph = it % S, (it // S) & 1
                ev = self._until(self.full[s], ph, free)
                if ev is not None:
                    yield ev
                waited = self._waited(row, self.full[s], free, "wait_full")
                now = env.now
                t0 = now + p.wait_cycles
                done = self._mma(t0, n, row, lambda: f"t{tile} k{k}", waited,
                                 after_epilogue=(k == 0 and acc_wait > 0))
                commit = now + cycles(done - now)
                self.empty[s].arrive(at=commit)               # tcgen05.commit -> empty[s]
                if k == self.k_iters - 1:
                    self.acc_full[b].arrive(at=commit)        # tcgen05.commit -> acc_full[b]
                self._mark(tile, k)
                free = now + cycles(t0 + n * p.issue_overhead_cycles - now)
                it += 1

    def tmem_epilogue(self):
        """sm_100a epilogue warpgroups: wait acc_full, tcgen05.ld, release the buffer, convert+store
        (their store path is their own: no need to be there in order)."""
        p, env = self.p, self.env
        nacc, free = max(p.acc_buffers, 1), 0
        for tile in range(self.n_tiles):
            b = tile % nacc
            ev = self._until(self.acc_full[b], (tile // nacc) & 1, free)
            if ev is not None:
                yield ev
            self._waited("Epilogue", self.acc_full[b], free, "wait_acc")
            now = env.now
            t0 = now + p.wait_cycles
            ld_end = now + cycles(t0 + p.acc_load_cycles - now)
            self.rec.span("Epilogue", f"t{tile} tcgen05.ld", t0, ld_end, "tmem_ld")
            self.acc_empty[b].arrive(at=ld_end)
            end = self.epi.reserve(ld_end, p.epi_bytes_per_worker)
            free = ld_end + cycles(end - ld_end)
            self.rec.span("Epilogue", f"t{tile} store", ld_end, free, "epilogue")
        self._finish(free)

    def _finish(self, t: float) -> None:
        self.done_workers += 1
        self.end = max(self.end, t)

    # ------------------------------------------------------------------ run
    def _run_guarded(self, limit_cycles: float) -> str:
        """Step until no event is left (done, or a protocol deadlock), with a time and event budget."""
        step, peek = self.env.step, self.env.peek
        budget = self.event_budget
        while True:
            t = peek()
            if t == float("inf"):
                return "" if self.end <= limit_cycles else self._guard_message(limit_cycles)
            if t > limit_cycles or budget <= 0:
                return self._guard_message(limit_cycles)
            step()
            budget -= 1

    def _guard_message(self, limit_cycles: float) -> str:
        return f"no progress within the guard ({limit_cycles:.0f} cycles, {self.event_budget} events)"

    def run(self, limit_cycles: float) -> SimTrace:
        env, p = self.env, self.p
        env.process(self.producer())
        if p.tmem:
            env.process(self.tcgen05_issuer())
            env.process(self.tmem_epilogue())
            workers = 1
        else:
            for c in range(p.issuers):
                env.process(self.wgmma_consumer(c))
            workers = p.issuers
        reason = ""
        try:
            reason = self._run_guarded(limit_cycles)
        except DeadlockError as exc:
            reason = str(exc)
        if not reason and self.done_workers < workers:
            waiting = [b.name for b in self.full + self.empty + self.acc_full + self.acc_empty if b.waiters]
            reason = (f"pipeline stalled at cycle {env.now:.0f}: every process waits and nobody can arrive on "
                      f"{', '.join(waiting) or 'any barrier'}")
        return SimTrace(self.end, self.counters(), self.snapshots, self.rec.intervals, reason, self.events)


def simulate(p: SimParams, n_tiles: int, k_iters: int, *, record: bool = False, marks=None) -> SimTrace:
    """Run one SM for n_tiles tiles of k_iters k-blocks each. ``marks``: the (tile, k) snapshots to keep
    (default: all)."""
    per_k = (p.issuers * p.instr_per_stage * p.instr_cycles + p.tma_issue_cycles + p.tma_latency_cycles
             + p.stage_smem_bytes / min(p.tma_bytes_per_clock, p.l2_bytes_per_clock, p.hbm_bytes_per_clock)
             + p.hbm_bytes_per_stage / p.hbm_bytes_per_clock + 4 * p.wait_cycles)
    per_tile = p.acc_load_cycles + p.out_bytes_per_tile / min(p.epi_bytes_per_clock, p.hbm_bytes_per_clock)
    limit = 4 * n_tiles * (k_iters * per_k + per_tile) + 100000
    return SmSim(p, n_tiles, k_iters, record, marks).run(limit)
