"""SimPy building blocks: mbarrier phases, parity waits and transaction bytes; FIFO rate servers."""
import pytest
import simpy

from perfmodel.sim.components import TX_COUNT_MAX, DeadlockError, MBarrier, Server, cycles


@pytest.fixture
def env():
    return simpy.Environment()


def test_phase_completes_on_arrivals_and_tx(env):
    bar = MBarrier(env, "full[0]", 1)
    bar.arrive_expect_tx(1024)            # producer: arrive + expect 1 KiB
    assert bar.phase == 0                 # bytes still in flight
    bar.complete_tx(512)
    assert bar.phase == 0
    bar.complete_tx(512)                  # TMA complete_tx: phase flips
    assert bar.phase == 1 and bar.pending == 1 and bar.tx == 0


def test_parity_wait_semantics(env):
    bar = MBarrier(env, "empty[0]", 2)
    assert bar.wait(1) is None            # the "previous" phase (parity 1) counts as completed
    ev = bar.wait(0)                      # phase 0 is still open
    assert ev is not None and not ev.triggered
    bar.arrive()
    assert not ev.triggered               # 1 of 2 arrivals
    bar.arrive()
    assert ev.triggered and bar.phase == 1
    assert bar.wait(0) is None            # phase 0 done; waiting on it again returns at once


def test_waiters_resume_at_completion_time(env):
    bar = MBarrier(env, "full[0]", 1)
    log = []

    def consumer():
        yield bar.wait(0)
        log.append(("consumer", env.now))

    def producer():
        bar.arrive_expect_tx(64)
        yield env.timeout(600)            # TMA latency
        bar.complete_tx(64)

    env.process(consumer())
    env.process(producer())
    env.run()
    assert log == [("consumer", 600)]


def test_tx_count_limit_is_a_deadlock(env):
    bar = MBarrier(env, "full[0]", 1)
    with pytest.raises(DeadlockError, match="tx-count"):
        bar.expect_tx(TX_COUNT_MAX + 1)


def test_too_many_arrivals_is_an_error(env):
    bar = MBarrier(env, "empty[0]", 1)
    bar.expect_tx(16)                     # keeps the phase open
    bar.arrive()
    with pytest.raises(DeadlockError):
        bar.arrive()


def test_server_is_fifo_at_its_rate():
    s = Server("l2", rate=32.0)
    assert s.reserve(0, 3200) == 100
    assert s.reserve(50, 320) == 110      # queued behind the first request
    assert s.reserve(500, 64) == 502      # idle server starts at once
    assert s.busy == pytest.approx(100 + 10 + 2)
    assert s.reserve(600, 0) == 600


def test_cycles_round_up():
    assert cycles(10.0) == 10 and cycles(10.2) == 11 and cycles(-3) == 0
