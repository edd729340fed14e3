"""The SimPy processes of one SM (one CTA; for cta_group::2 one CTA of a symmetric pair).

Producer (one TMA thread) -> stage ring guarded by full/empty mbarriers -> MMA issuers (sm_90a: the
consumer warpgroups issuing wgmma with ``wait_group`` depth; sm_100a: one thread issuing tcgen05.mma
and ``tcgen05.commit`` onto the stage's empty barrier) -> epilogue (sm_90a: the consumers themselves,
accumulators in registers, no overlap with their next mainloop; sm_100a: epilogue warpgroups reading
TMEM with tcgen05.ld, double-buffered through acc_full/acc_empty barriers so it overlaps the next
tile). Peers in a cluster or CTA pair are symmetric: their multicast bytes and commit arrivals are
mirrored at the same instant as this SM's own.

Events. Every barrier arrival is posted with the cycle it happens at (mbarriers in components.py), so
a wait is one SimPy event, and only where the order of two processes matters: several wgmma consumer
warpgroups take turns at one tensor core and one store path, so each yields to reach its cycle there.
A process that alone uses what it touches (the TMA producer, the tcgen05 issuer, the TMEM epilogue, a
single consumer) computes its cycles from the posted ones and runs without events while its inputs
are posted. The results are those of the one-event-per-step model (same cycles, same stalls).
"""
from __future__ import annotations

import math
from collections import deque

import simpy

from .components import TX_COUNT_MAX, DeadlockError, MBarrier, Recorder, Server, SharedServer, Wakeup, cycles
from .params import HBM_QUEUE_MAX_UTILIZATION, SimParams
from .trace import FirstTile, SimTrace

# Stall counters: "full_barrier" and "epilogue" are tensor-core idle cycles, each gap charged to what
# kept the next MMA from issuing (its data not landed yet / the accumulator or consumers busy in the
# epilogue); "empty_barrier" is the producer's wait for a free stage (large when compute-bound).

COUNTER_NAMES = ("tensor_core", "smem", "tma", "l2", "hbm", "epilogue",
                 "full_barrier", "empty_barrier", "epilogue_stall", "l2_tags")


class SmSim:
    """One SM's processes. Barrier arrivals are posted with the cycle they happen at (a TMA load's
    complete_tx when its bytes land, a consumer's release when its wait_group returns, a
    tcgen05.commit when its MMAs complete), so every wait is a single event that resumes the waiter at
    the completion cycle. A process yields only to reach the cycle where it next touches something
    other processes share (the tensor core and the store path of several wgmma consumers); the
    producer, the only user of its TMA, L2 and HBM servers, is a thread run by the release that frees
    its next stage and issues ahead while the ring has free stages. Its empty-barrier waits are counted
    at the cycle they end; a snapshot taken at that very cycle does not see them yet (a woken producer
    ran after the issuer that took it)."""

    def __init__(self, p: SimParams, n_tiles: int, k_iters: int, record: bool = False, marks=None,
                 run_ahead: bool = True):
        self.p, self.n_tiles, self.k_iters = p, n_tiles, k_iters
        self.run_ahead = run_ahead       # False: every process yields to each cycle it acts at (tests)
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
        self.tags = (SharedServer("l2_tags", p.l2_tag_lookups_per_clock, depth=ring * p.l2_tag_lookups_per_stage)
                     if p.l2_tag_lookups_per_stage > 0 and p.l2_tag_lookups_per_clock > 0 else None)
        # the store path: one FIFO, or (p.epi_shared_path) one chain per worker at an equal share of the path's rate
        chains = p.epi_workers if p.epi_shared_path and not p.tmem else 1
        self.epis = [Server("epilogue", p.epi_bytes_per_clock / chains) for _ in range(chains)]
        self.math_busy = self.smem_busy = 0.0
        self.occ = p.instr_cycles
        self.snapshots: dict = {}
        # the (tile, k) keys to snapshot by tile, {tile: k-blocks} (a per-stage test of an int); None: all
        self.mark_ks: dict | None = None
        if marks is not None:
            self.mark_ks = {}
            for t, k in marks:
                self.mark_ks.setdefault(t, set()).add(k)
        self.done_workers = 0
        self.end = 0.0
        self.events = 0
        self.event_budget = 64 * n_tiles * k_iters * (p.issuers + 2) + 10000
        workers = 1 if p.tmem else p.issuers
        self.first = FirstTile(mma_left=workers * k_iters, stores_left=workers)
        self._stalls: deque = deque()    # its empty-barrier waits: (cycle it ended, cycles, first tile's)
        self._resume_producer = self._producer().__next__   # the TMA thread (produce)

    # ------------------------------------------------------------------ helpers
    def counters(self) -> tuple:
        r = self.rec
        return (self.math_busy, self.smem_busy, self.tma.busy, self.l2.busy + self.l2.busy_stores, self.hbm.busy,
                self._epi_busy(), r.stall_full, r.stall_empty, r.stall_epilogue,
                self.tags.busy + self.tags.busy_stores if self.tags is not None else 0.0)

    def _mma(self, tile: int, k: int, t: float, row: str, waited_full: float, after_epilogue: bool) -> float:
        """Reserve the tensor core for one stage's instructions issued from t; returns completion.
        An idle gap before them is charged to the full-barrier wait (at most its length), the rest to
        the epilogue when the issuer comes from one. (wgmma_consumer inlines this: keep the two in step.)"""
        p, tc, occ, rec = self.p, self.tc, self.occ, self.rec
        n = p.instr_per_stage
        free_at = tc.free_at
        gap = t - free_at
        if gap > 0:
            full = gap if gap < waited_full else waited_full
            rec.stall_full += full
            if after_epilogue:
                rec.stall_epilogue += gap - full
        start = t if t > free_at else free_at
        tc.free_at = start + n * occ
        tc.busy += n * occ
        self.math_busy += n * p.instr_math_cycles
        self.smem_busy += n * p.instr_smem_cycles
        done = start + (n - 1) * occ + (occ if occ > p.mma_latency_floor else p.mma_latency_floor)
        if rec.keep:
            rec.span(row, f"t{tile} k{k}", start, done, "mma")
        if self.first.mma_left and self.first.last_mma(tile):
            self.first.mma = (self.math_busy, self.smem_busy, rec.stall_full, rec.stall_epilogue)
        return done

    def _epi_busy(self) -> float:
        """The store path's busy cycles (shared side by side: a chain's, each carrying an equal share)."""
        epis = self.epis
        return epis[0].busy if len(epis) == 1 else sum(e.busy for e in epis) / len(epis)   # one: sum([x]) / 1 == x

    def _store(self, tile: int, t: int, nbytes: float, worker: int = 0) -> int:
        """Epilogue store of ``worker`` from cycle t; returns the cycle it is done."""
        end = self.epis[worker % len(self.epis)].reserve(t, nbytes)
        p, l2_busy, tag_busy = self.p, 0.0, 0.0
        if p.l2_store_bytes_per_tile:            # the stores take the SM's L2 share (and tag lookups) as they go out
            amount = p.l2_store_bytes_per_tile * nbytes / p.out_bytes_per_tile
            self.l2.reserve(t, amount, store=True)
            l2_busy = amount / self.l2.rate
            if self.tags is not None and p.l2_store_lookups_per_tile:
                amount = p.l2_store_lookups_per_tile * nbytes / p.out_bytes_per_tile
                self.tags.reserve(t, amount, store=True)
                tag_busy = amount / self.tags.rate
        done = t + cycles(end - t)
        self.first.stored(tile, done, self._epi_busy(), l2_busy, tag_busy)
        return done

    def _mark(self, tile: int, k: int, now: int) -> None:
        """Snapshot (time, counters) as the last issuer issues k-block k of this tile."""
        self._stalls_until(now)
        counters = self.counters()
        self.snapshots[(tile, k)] = (float(now), counters)
        if tile == 0:
            self.first.snapshot(k, float(now), counters)

    def _waited(self, row: str, bar: MBarrier, since: int, now: int, kind: str) -> int:
        """Cycles a wait that began at ``since`` and ended at ``now`` lasted."""
        if now <= since:
            return 0
        if self.rec.keep:
            self.rec.span(row, f"wait {bar.name}", since, now, kind)
        return now - since

    # ------------------------------------------------------------------ processes
    def produce(self) -> None:
        """TMA producer thread: per stage wait empty, arrive.expect_tx, issue the boxes; the stage's full
        barrier completes when the last byte lands (L2/HBM share and TMA rate, plus latency). It is the
        only user of its TMA, L2 and HBM servers and its timing is explicit (issue at max(stage free,
        previous issue done)), so it runs as soon as the release that frees its next stage is posted,
        with no event of its own, and issues ahead while stages are free (a generator, ``_producer``,
        resumed by that release's barrier: no SimPy event)."""
        self._resume_producer()

    def _producer(self):
        p, S, rec = self.p, self.p.stages, self.rec
        keep, tx, free, first_stalls = rec.keep, p.stage_tx_bytes, 0, 0.0
        l2, hbm, tma, lat = self.l2, self.hbm, self.tma, p.tma_latency_cycles
        tags, tags_n = self.tags, p.l2_tag_lookups_per_stage
        queue = p.miss_probability * p.hbm_queue_cycles
        last_first = self.k_iters - 1
        empty, full_bars, k_iters = self.empty, self.full, self.k_iters
        wait, issue = p.wait_cycles, p.tma_issue_cycles
        l2_b, hbm_b, smem_b = p.l2_bytes_per_stage, p.hbm_bytes_per_stage, p.stage_smem_bytes
        l2_first = p.first_tile_l2_reserve_bytes      # the first tile's stages (in step with the grid)
        first_issue = p.tma_first_issue_cycles
        resume, ceil, tma_rate, stalls_append = self._resume_producer, math.ceil, tma.rate, self._stalls.append
        env, fast_tx = self.env, 0 < tx <= TX_COUNT_MAX
        for it in range(self.n_tiles * k_iters):
            s = it % S
            bar = empty[s]
            while (bar.phase & 1) == ((it // S) & 1) ^ 1:      # the release that frees it is not posted
                bar.waiters.append((resume, free))           # resumes here when it is
                yield
            done, start = bar.done_at, free
            if done > free:                                  # waited for the stage from `free` on
                start = done
                stalls_append((done, done - free, it <= last_first))
                if it <= last_first:
                    first_stalls += done - free
                if keep:
                    rec.span("TMA producer", f"wait {bar.name}", free, done, "wait_empty")
            t_last = t_req = start + wait + issue
            if first_issue >= 0:
                t_req = start + wait + first_issue
            land = l2.reserve(t_req, l2_first if it <= last_first else l2_b)
            h = hbm.reserve(t_req, hbm_b)
            if h > land:
                land = h
            if tags is not None:                         # the L2's tag pipeline: a second L2 resource
                g = tags.reserve(t_req, tags_n)
                if g > land:
                    land = g
            # tma.reserve(t_req, smem_b), inlined (Server.reserve: a FIFO at the TMA's rate)
            if smem_b > 0:
                m = t_req if t_req > tma.free_at else tma.free_at
                tma.free_at = m = m + smem_b / tma_rate
                tma.busy += smem_b / tma_rate
            else:
                m = t_req
            land = (land if land > m else m) + lat
            if land < t_last + lat:
                land = t_last + lat
            if queue:
                # loaded HBM latency: a miss waits hbm_queue x u / (1 - u) more at the chip's HBM utilization u,
                # this SM's recent use of its share (the SMs of a wave are alike), held below
                # HBM_QUEUE_MAX_UTILIZATION (at saturation the share's own queue takes over)
                u = hbm.utilization if hbm.utilization < HBM_QUEUE_MAX_UTILIZATION else HBM_QUEUE_MAX_UTILIZATION
                land += queue * u / (1.0 - u)
            if keep:
                tile, k = divmod(it, k_iters)
                rec.span("TMA producer", f"issue t{tile} k{k}", start + wait, t_req, "tma_issue")
                rec.span(f"stage {s} load", f"t{tile} k{k}", t_req, land, "tma_load")
            c = ceil(land - start - 1e-9)                    # cycles(): whole cycles, rounded up
            at = start + (c if c > 0 else 0)
            b = full_bars[s]
            if fast_tx and b.tx == 0:
                # b.post_tx(tx, at), inlined (MBarrier.post_tx's common path: keep the two in step)
                pend = b.pending - 1
                if pend < 0:
                    raise DeadlockError(f"{b.name}: more arrivals than the count {b.count}")
                b.pending = pend
                now = env.now
                t_land = at if at > now else now
                if t_land > b.latest:
                    b.latest = t_land
                if pend == 0:
                    b._complete()
            else:
                b.post_tx(tx, at)
            c = ceil(t_last - start - 1e-9)
            free = start + (c if c > 0 else 0)
            if it == last_first:
                self.first.loads = (tma.busy, l2.busy, hbm.busy, first_stalls, tags.busy if tags else 0.0)
        yield                                                # done: never resumed again

    def _stalls_until(self, now: float) -> None:
        """Count the producer's empty-barrier waits that ended before cycle ``now``."""
        q, rec = self._stalls, self.rec
        while q and q[0][0] < now:
            _, amount, first = q.popleft()
            rec.stall_empty += amount
            if first:
                self.first.stall_empty += amount

    def wgmma_consumer(self, c: int):
        """sm_90a consumer warpgroup: wait full, issue its wgmma batch, wait_group(depth), release. The issue returns no
        earlier than the batch's end less the SM's tensor core queue (SimParams.wgmma_queue_cycles: it blocks while
        the queue is full), so the previous stage is released no earlier either."""
        p, S, n = self.p, self.p.stages, self.p.instr_per_stage
        row, full_bars, empty, mark_ks = f"MMA wg{c}", self.full, self.empty, self.mark_ks
        ahead = self.run_ahead and p.issuers == 1
        issue, depth = n * p.issue_overhead_cycles, p.wait_depth
        remote = cycles(p.release_delay_cycles)    # the peers' releases of a multicast stage, over the cluster
        inline = cycles(p.inline_issue_cycles)   # its own loads (software-pipelined families), after the release
        it, free = 0, 0                    # free: cycle its wait_group (or epilogue) returns
        env, wait, ceil = self.env, p.wait_cycles, math.ceil
        tc, rec, first, keep = self.tc, self.rec, self.first, self.rec.keep
        occ = self.occ
        batch, batch_math, batch_smem = n * occ, n * p.instr_math_cycles, n * p.instr_smem_cycles
        lead, last = (n - 1) * occ, (occ if occ > p.mma_latency_floor else p.mma_latency_floor)   # done, as _mma
        queue = p.wgmma_queue_cycles
        for tile in range(self.n_tiles):
            marks = None if mark_ks is None else mark_ks.get(tile, ())   # this tile's k-blocks to snapshot
            pending: deque = deque()
            for k in range(self.k_iters):
                s = it % S
                bar, parity = full_bars[s], (it // S) & 1
                if ahead and (bar.phase & 1) != parity:    # its completion is posted (MBarrier.ready_at)
                    done = bar.done_at
                    now = done if done > free else free
                else:
                    # bar.wait(parity, free), inlined (MBarrier.wait: keep the two in step)
                    now = env.now
                    if (bar.phase & 1) == parity:                # some arrivals still to come
                        ev = Wakeup(env)
                        bar.waiters.append((ev, free))
                    else:
                        done = bar.done_at
                        if done <= now and free <= now:
                            ev = None
                        elif done > free:
                            ev = Wakeup(env)
                            ev.at(done - now)
                        else:
                            ev = env.timeout(free - now)
                    if ev is not None:
                        self.events += 1
                        yield ev
                        now = env.now
                waited = (self._waited(row, bar, free, now, "wait_full") if keep else now - free) if now > free else 0
                t0 = now + wait
                # _mma, inlined (the hottest call of a multi-consumer run): reserve the tensor core for the batch
                free_at = tc.free_at
                gap = t0 - free_at
                if gap > 0:
                    full = gap if gap < waited else waited
                    rec.stall_full += full
                    if k == 0 and tile > 0:
                        rec.stall_epilogue += gap - full
                start = t0 if t0 > free_at else free_at
                tc.free_at = start + batch
                tc.busy += batch
                self.math_busy += batch_math
                self.smem_busy += batch_smem
                done = start + lead + last
                if keep:
                    rec.span(row, f"t{tile} k{k}", start, done, "mma")
                if first.mma_left and first.last_mma(tile):
                    first.mma = (self.math_busy, self.smem_busy, rec.stall_full, rec.stall_epilogue)
                pending.append((s, done))
                if marks is None or k in marks:
                    self._mark(tile, k, now)
                nxt = t0 + issue
                if queue and done - queue > nxt:             # the issue blocks while the tensor core's queue is full
                    nxt = done - queue
                if len(pending) > depth:                       # one batch a stage: at most one leaves
                    s_old, d_old = pending.popleft()
                    if d_old > nxt:
                        nxt = d_old
                else:
                    s_old = -1
                c_ = ceil(nxt - now - 1e-9)                    # cycles(): whole cycles, rounded up
                free = now + (c_ if c_ > 0 else 0)
                if s_old >= 0:
                    # empty[s_old].arrive(at=free + remote), inlined (MBarrier.arrive: keep the two in step)
                    b = empty[s_old]
                    pend = b.pending - 1
                    if pend < 0:
                        raise DeadlockError(f"{b.name}: more arrivals than the count {b.count}")
                    b.pending = pend
                    t_rel = free + remote
                    if t_rel > b.latest:
                        b.latest = t_rel
                    if pend == 0 and b.tx == 0:
                        b._complete()
                free += inline
                it += 1
            if pending:                                   # wait_group 0 before touching accumulators
                free += cycles(max(d for _, d in pending) - free)
                for s_old, _ in pending:
                    empty[s_old].arrive(at=free + remote)
            if not ahead and free > self.env.now:         # a shared store path: be there in order
                self.events += 1
                yield self.env.timeout(free - self.env.now)
            t0, free = free, self._store(tile, free, p.epi_bytes_per_worker, c)
            self.rec.span(f"Epilogue wg{c}", f"t{tile} store", t0, free, "epilogue")
        self._finish(free)

    def _ready(self, bar: MBarrier, parity: int, free: int):
        """For a process that is the only user of what it touches: the cycle it resumes at (bar's phase
        complete and ``free`` reached) when bar's completion is posted, else the event to wait on."""
        done = bar.ready_at(parity) if self.run_ahead else None
        if done is not None:
            return done if done > free else free
        ev = bar.wait(parity, free)
        if ev is None:
            return self.env.now
        self.events += 1
        return ev

    def tcgen05_issuer(self):
        """sm_100a MMA thread: per tile take an accumulator buffer, per stage wait full, issue, commit.
        The only user of the tensor core: runs ahead of simulated time while its inputs are posted."""
        p, S, n = self.p, self.p.stages, self.p.instr_per_stage
        row, it, nacc, free = "MMA (tcgen05)", 0, max(p.acc_buffers, 1), 0
        full_bars, empty, issue, last = self.full, self.empty, n * p.issue_overhead_cycles, self.k_iters - 1
        mark_ks, env, mma, wait, ceil = self.mark_ks, self.env, self._mma, p.wait_cycles, math.ceil
        ahead = self.run_ahead
        for tile in range(self.n_tiles):
            marks = None if mark_ks is None else mark_ks.get(tile, ())   # this tile's k-blocks to snapshot
            b = tile % nacc
            now = self._ready(self.acc_empty[b], ((tile // nacc) & 1) ^ 1, free)
            if isinstance(now, simpy.Event):
                yield now
                now = self.env.now
            acc_wait = self._waited(row, self.acc_empty[b], free, now, "wait_epilogue")
            free = now
            for k in range(self.k_iters):
                s = it % S
                bar = full_bars[s]
                if ahead and (bar.phase & 1) != (it // S) & 1:    # its completion is posted (_ready)
                    done = bar.done_at
                    now = done if done > free else free
                else:
                    now = self._ready(bar, (it // S) & 1, free)
                    if isinstance(now, simpy.Event):
                        yield now
                        now = env.now
                waited = self._waited(row, bar, free, now, "wait_full") if now > free else 0
                t0 = now + wait
                c_ = ceil(mma(tile, k, t0, row, waited, k == 0 and acc_wait > 0) - now - 1e-9)
                commit = now + (c_ if c_ > 0 else 0)          # cycles(): whole cycles, rounded up
                empty[s].arrive(at=commit)                    # tcgen05.commit -> empty[s]
                if k == last:
                    self.acc_full[b].arrive(at=commit)        # tcgen05.commit -> acc_full[b]
                if marks is None or k in marks:
                    self._mark(tile, k, now)
                c_ = ceil(t0 + issue - now - 1e-9)
                free = now + (c_ if c_ > 0 else 0)
                it += 1

    def tmem_epilogue(self):
        """sm_100a epilogue warpgroups: wait acc_full, tcgen05.ld, release the buffer, convert+store.
        The only user of its store path: runs ahead of simulated time while acc_full is posted."""
        p = self.p
        nacc, free = max(p.acc_buffers, 1), 0
        for tile in range(self.n_tiles):
            b = tile % nacc
            now = self._ready(self.acc_full[b], (tile // nacc) & 1, free)
            if isinstance(now, simpy.Event):
                yield now
                now = self.env.now
            self._waited("Epilogue", self.acc_full[b], free, now, "wait_acc")
            t0 = now + p.wait_cycles
            ld_end = now + cycles(t0 + p.acc_load_cycles - now)
            self.rec.span("Epilogue", f"t{tile} tcgen05.ld", t0, ld_end, "tmem_ld")
            self.acc_empty[b].arrive(at=ld_end)
            free = self._store(tile, ld_end, p.epi_bytes_per_worker)
            self.rec.span("Epilogue", f"t{tile} store", ld_end, free, "epilogue")
        self._finish(free)

    def _finish(self, t: float) -> None:
        self.done_workers += 1
        self.end = max(self.end, t)

    # ------------------------------------------------------------------ run
    def _run_guarded(self, limit_cycles: float) -> str:
        """Step until no event is left (done, or a protocol deadlock), with a time and event budget."""
        step, peek = self.env.step, self.env.peek
        budget, inf = self.event_budget, math.inf
        while True:
            t = peek()
            if t == inf:
                return "" if self.end <= limit_cycles else self._guard_message(limit_cycles)
            if t > limit_cycles or budget <= 0:
                return self._guard_message(limit_cycles)
            step()
            budget -= 1

    def _guard_message(self, limit_cycles: float) -> str:
        return f"no progress within the guard ({limit_cycles:.0f} cycles, {self.event_budget} events)"

    def run(self, limit_cycles: float) -> SimTrace:
        env, p = self.env, self.p
        self.produce()
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
        self._stalls_until(float("inf"))
        if not reason and self.done_workers < workers:
            waiting = [b.name for b in self.full + self.empty + self.acc_full + self.acc_empty if b.waiters]
            reason = (f"pipeline stalled at cycle {env.now:.0f}: every process waits and nobody can arrive on "
                      f"{', '.join(waiting) or 'any barrier'}")
        first = None if reason or self.n_tiles == 1 else self.first.trace()   # one tile: the run itself
        return SimTrace(self.end, self.counters(), self.snapshots, self.rec.intervals, reason, self.events, first)


def simulate(p: SimParams, n_tiles: int, k_iters: int, *, record: bool = False, marks=None,
             run_ahead: bool = True) -> SimTrace:
    """Run one SM for n_tiles tiles of k_iters k-blocks each. ``marks``: the (tile, k) snapshots to keep
    (default: all); ``run_ahead=False``: no process runs ahead of simulated time (same results)."""
    per_k = (p.issuers * p.instr_per_stage * p.instr_cycles + p.tma_issue_cycles + p.tma_latency_cycles
             + p.stage_smem_bytes / min(p.tma_bytes_per_clock, p.l2_bytes_per_clock, p.hbm_bytes_per_clock)
             + p.hbm_bytes_per_stage / p.hbm_bytes_per_clock + 4 * p.wait_cycles)
    per_tile = p.acc_load_cycles + p.out_bytes_per_tile / min(p.epi_bytes_per_clock, p.hbm_bytes_per_clock)
    limit = 4 * n_tiles * (k_iters * per_k + per_tile) + 100000
    return SmSim(p, n_tiles, k_iters, record, marks, run_ahead).run(limit)
