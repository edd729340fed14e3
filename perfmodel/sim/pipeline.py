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

from .components import DeadlockError, MBarrier, Recorder, Server, SharedServer, cycles
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
    def __init__(self, p: SimParams, n_tiles: int, k_iters: int, record: bool = False):
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
        self.snapshots: dict = {}
        self.done_workers = 0
        self.end = 0.0
        self.events = 0
        self.event_budget = 64 * n_tiles * k_iters * (p.issuers + 2) + 10000

    # ------------------------------------------------------------------ helpers
    def counters(self) -> tuple:
        r = self.rec
        return (self.math_busy, self.smem_busy, self.tma.busy, self.l2.busy, self.hbm.busy, self.epi.busy,
                r.stall_full, r.stall_empty, r.stall_epilogue)

    def _at(self, t: float, fn) -> None:
        ev = self.env.timeout(cycles(t - self.env.now))
        ev.callbacks.append(lambda _e: fn())
        self.events += 1

    def _wait(self, bar: MBarrier, parity: int, row: str, kind: str):
        """Generator: try_wait.parity on bar; records the stall. Returns the stalled cycles."""
        ev = bar.wait(parity)
        if ev is None:
            return 0
        t0 = self.env.now
        self.events += 1
        yield ev
        self.rec.span(row, f"wait {bar.name}", t0, self.env.now, kind)
        return self.env.now - t0

    def _mma(self, t: float, n: int, row: str, label: str, waited_full: float = 0.0,
             after_epilogue: bool = False) -> float:
        """Reserve the tensor core for n back-to-back instructions issued from t; returns completion.
        An idle gap before them is charged to the full-barrier wait (at most its length), the rest to
        the epilogue when the issuer comes from one."""
        p = self.p
        occ = p.instr_cycles
        gap = t - self.tc.free_at
        if gap > 0:
            full = min(gap, waited_full)
            self.rec.stall_full += full
            if after_epilogue:
                self.rec.stall_epilogue += gap - full
        start = max(t, self.tc.free_at)
        self.tc.free_at = start + n * occ
        self.tc.busy += n * occ
        self.math_busy += n * p.instr_math_cycles
        self.smem_busy += n * p.instr_smem_cycles
        done = start + (n - 1) * occ + max(occ, p.mma_latency_floor)
        self.rec.span(row, label, start, done, "mma")
        return done

    def _mark(self, tile: int, k: int) -> None:
        self.snapshots[(tile, k)] = (float(self.env.now), self.counters())

    # ------------------------------------------------------------------ processes
    def producer(self):
        p, env, S = self.p, self.env, self.p.stages
        it = 0
        for tile in range(self.n_tiles):
            for k in range(self.k_iters):
                s, ph = it % S, (it // S) & 1
                self.rec.stall_empty += (yield from self._wait(self.empty[s], ph ^ 1, "TMA producer", "wait_empty"))
                t0 = env.now + p.wait_cycles
                self.full[s].arrive_expect_tx(p.stage_tx_bytes)
                t_req = t0 + p.tma_issue_cycles
                done = max(self.l2.reserve(t_req, p.l2_bytes_per_stage),
                           self.hbm.reserve(t_req, p.hbm_bytes_per_stage),
                           self.tma.reserve(t_req, p.stage_smem_bytes)) + p.tma_latency_cycles
                self.rec.span("TMA producer", f"issue t{tile} k{k}", t0, t_req, "tma_issue")
                self.rec.span(f"stage {s} load", f"t{tile} k{k}", t_req, done, "tma_load")
                bar, tx = self.full[s], p.stage_tx_bytes
                self._at(done, lambda bar=bar, tx=tx: bar.complete_tx(tx))
                self.events += 1
                yield env.timeout(cycles(t_req - env.now))
                it += 1

    def wgmma_consumer(self, c: int):
        """sm_90a consumer warpgroup: wait full, issue its wgmma batch, wait_group(depth), release."""
        p, env, S = self.p, self.env, self.p.stages
        row = f"MMA wg{c}"
        it = 0
        for tile in range(self.n_tiles):
            pending: deque = deque()
            for k in range(self.k_iters):
                s, ph = it % S, (it // S) & 1
                waited = yield from self._wait(self.full[s], ph, row, "wait_full")
                t0 = env.now + p.wait_cycles
                done = self._mma(t0, p.instr_per_stage, row, f"t{tile} k{k}",
                                 waited, after_epilogue=(k == 0 and tile > 0))
                pending.append((s, done))
                self._mark(tile, k)
                nxt = t0 + p.instr_per_stage * p.issue_overhead_cycles
                release = []
                while len(pending) > p.wait_depth:
                    s_old, d_old = pending.popleft()
                    nxt = max(nxt, d_old)
                    release.append(s_old)
                self.events += 1
                yield env.timeout(cycles(nxt - env.now))
                for s_old in release:
                    self.empty[s_old].arrive()
                it += 1
            if pending:                                   # wait_group 0 before touching accumulators
                self.events += 1
                yield env.timeout(cycles(max(d for _, d in pending) - env.now))
                for s_old, _ in pending:
                    self.empty[s_old].arrive()
            yield from self._epilogue_store(f"Epilogue wg{c}", tile)
        self._finish()

    def _epilogue_store(self, row: str, tile: int):
        p, env = self.p, self.env
        t0 = env.now
        end = self.epi.reserve(t0, p.epi_bytes_per_worker)
        self.events += 1
        yield env.timeout(cycles(end - env.now))
        self.rec.span(row, f"t{tile} store", t0, env.now, "epilogue")

    def tcgen05_issuer(self):
        """sm_100a MMA thread: per tile take an accumulator buffer, per stage wait full, issue, commit."""
        p, env, S = self.p, self.env, self.p.stages
        row, it, nacc = "MMA (tcgen05)", 0, max(p.acc_buffers, 1)
        for tile in range(self.n_tiles):
            b = tile % nacc
            acc_wait = yield from self._wait(self.acc_empty[b], ((tile // nacc) & 1) ^ 1, row, "wait_epilogue")
            for k in range(self.k_iters):
                s, ph = it % S, (it // S) & 1
                waited = yield from self._wait(self.full[s], ph, row, "wait_full")
                t0 = env.now + p.wait_cycles
                done = self._mma(t0, p.instr_per_stage, row, f"t{tile} k{k}",
                                 waited, after_epilogue=(k == 0 and acc_wait > 0))
                self._at(done, self.empty[s].arrive)          # tcgen05.commit -> empty[s]
                if k == self.k_iters - 1:
                    self._at(done, self.acc_full[b].arrive)   # tcgen05.commit -> acc_full[b]
                self._mark(tile, k)
                self.events += 1
                yield env.timeout(cycles(t0 + p.instr_per_stage * p.issue_overhead_cycles - env.now))
                it += 1

    def tmem_epilogue(self):
        """sm_100a epilogue warpgroups: wait acc_full, tcgen05.ld, release the buffer, convert+store."""
        p, env = self.p, self.env
        nacc = max(p.acc_buffers, 1)
        for tile in range(self.n_tiles):
            b = tile % nacc
            yield from self._wait(self.acc_full[b], (tile // nacc) & 1, "Epilogue", "wait_acc")
            t0 = env.now + p.wait_cycles
            self.events += 1
            yield env.timeout(cycles(t0 + p.acc_load_cycles - env.now))
            self.rec.span("Epilogue", f"t{tile} tcgen05.ld", t0, env.now, "tmem_ld")
            self.acc_empty[b].arrive()
            yield from self._epilogue_store("Epilogue", tile)
        self._finish()

    def _finish(self) -> None:
        self.done_workers += 1
        self.end = max(self.end, self.env.now)

    # ------------------------------------------------------------------ run
    def _run_guarded(self, limit_cycles: float) -> str:
        """Step until no event is left (done, or a protocol deadlock), with a time and event budget."""
        step, peek = self.env.step, self.env.peek
        budget = self.event_budget
        while True:
            t = peek()
            if t == float("inf"):
                return ""
            if t > limit_cycles or budget <= 0:
                return f"no progress within the guard ({limit_cycles:.0f} cycles, {self.event_budget} events)"
            step()
            budget -= 1

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


def simulate(p: SimParams, n_tiles: int, k_iters: int, *, record: bool = False) -> SimTrace:
    """Run one SM for n_tiles tiles of k_iters k-blocks each."""
    per_k = (p.issuers * p.instr_per_stage * p.instr_cycles + p.tma_issue_cycles + p.tma_latency_cycles
             + p.stage_smem_bytes / min(p.tma_bytes_per_clock, p.l2_bytes_per_clock, p.hbm_bytes_per_clock)
             + p.hbm_bytes_per_stage / p.hbm_bytes_per_clock + 4 * p.wait_cycles)
    per_tile = p.acc_load_cycles + p.out_bytes_per_tile / min(p.epi_bytes_per_clock, p.hbm_bytes_per_clock)
    limit = 4 * n_tiles * (k_iters * per_k + per_tile) + 100000
    return SmSim(p, n_tiles, k_iters, record).run(limit)
