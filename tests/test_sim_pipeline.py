"""The SimPy processes of one SM: a golden event log (SimPy style), protocol deadlocks, extrapolation."""
import dataclasses
import os
from pathlib import Path

import pytest

from perfmodel.sim.model import extrapolate, static_deadlock
from perfmodel.sim.params import SimParams
from perfmodel.sim.pipeline import simulate

GOLDEN = Path(__file__).parent / "golden"


def small(**over) -> SimParams:
    """A tiny hand-made SM: round numbers so that the log can be checked by hand."""
    base = dict(tmem=False, stages=2, k_iters=3, tiles_per_cta=1, waves=1, persistent=True,
                tma_issue_cycles=10, tma_latency_cycles=100, stage_tx_bytes=1000, stage_smem_bytes=1000,
                l2_bytes_per_stage=1000, hbm_bytes_per_stage=0, tma_bytes_per_clock=10, l2_bytes_per_clock=1e9,
                hbm_bytes_per_clock=1e9, wait_cycles=5, arrive_cycles=0, issuers=1, instr_per_stage=2,
                instr_math_cycles=40, instr_smem_cycles=20, mma_latency_floor=13, issue_overhead_cycles=1,
                wait_depth=1, acc_buffers=1, acc_load_cycles=0, epi_bytes_per_worker=640, epi_workers=1,
                epi_bytes_per_clock=64, out_bytes_per_tile=640, flops_per_stage=1)
    base.update(over)
    return SimParams(**base)


def _log(trace) -> str:
    rows = sorted(trace.intervals, key=lambda iv: (iv[2], iv[0], iv[3]))
    return "\n".join(f"{s:8.1f} {e:8.1f}  {row:<14} {label}" for row, label, s, e, _ in rows) + "\n"


@pytest.mark.parametrize("name,params", [("hopper_2stage", small()),
                                         ("blackwell_acc2", small(tmem=True, acc_buffers=2, wait_depth=0,
                                                                  acc_load_cycles=8, tiles_per_cta=2))])
def test_golden_event_log(name, params):
    trace = simulate(params, params.tiles_per_cta, params.k_iters, record=True)
    got = _log(trace)
    path = GOLDEN / f"sim_{name}.out"
    if os.environ.get("PERFMODEL_UPDATE_GOLDEN"):
        path.write_text(got)
    assert got == path.read_text(), f"event log changed; PERFMODEL_UPDATE_GOLDEN=1 rewrites {path.name}"


def test_hand_checked_first_stage():
    """Stage 0: wait 5, issue 10, 1000 B at 10 B/clk = 100, latency 100 -> lands at 215; the consumer
    then waits 5 and runs 2 instructions of 40 cycles plus 1 issue cycle each -> done at 302."""
    trace = simulate(small(), 1, 3, record=True)
    load = next(iv for iv in trace.intervals if iv[0] == "stage 0 load")
    mma = next(iv for iv in trace.intervals if iv[0] == "MMA wg0" and iv[4] == "mma")
    assert (load[2], load[3]) == (15, 215)
    assert (mma[2], mma[3]) == (220, 302)


def test_deeper_pipeline_is_never_slower():
    times = [simulate(small(stages=s, k_iters=12), 1, 12).end_cycles for s in (2, 3, 4, 6)]
    assert times == sorted(times, reverse=True)
    assert times[0] > times[-1]


@pytest.mark.parametrize("over,needle", [(dict(stages=0), "0 pipeline stages"),
                                         (dict(stage_tx_bytes=1 << 20), "tx-count"),
                                         (dict(wait_depth=2), "wait_group depth"),
                                         (dict(tmem=True, acc_buffers=0, wait_depth=0), "accumulator")])
def test_static_deadlocks_are_named(over, needle):
    assert needle in static_deadlock(small(**over))


def test_dynamic_deadlock_is_detected_not_simulated_forever():
    """wait_group depth == stages: the consumer never releases a stage before it needs the next one.
    The simulation stops when no event is left and names the barriers everybody waits on."""
    trace = simulate(small(wait_depth=2), 1, 6)
    assert "stalled" in trace.deadlock and "empty" in trace.deadlock


def test_extrapolation_equals_full_run_in_steady_state():
    p = small(k_iters=40, tiles_per_cta=6, stages=3)
    full = simulate(p, 6, 40)
    win = simulate(p, 3, 14)
    got = extrapolate(win, p, 3, 14, 6)[0]
    assert got == pytest.approx(full.end_cycles, rel=0.01)


def test_params_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        small().stages = 3


# ---------------------------------------------------------------- event discipline (cost), same results
def _window(gpu, shape, **knobs):
    """A real configuration's params and its bounded window (tiles, k-blocks)."""
    from perfmodel import derive, load_hardware, make_problem
    from perfmodel.sim.model import window_k, window_tiles
    from perfmodel.sim.params import build_inputs
    hw = load_hardware(gpu)
    problem = make_problem(shape, "bf16")
    p = build_inputs(problem, derive(problem, hw, **knobs).config, hw, hw.clock.sustained_tensor_hz).params
    k = window_k(p.stages, p.k_iters)
    return p, window_tiles(p.stages, k, p.tiles_per_cta)[0], k


WINDOWS = [("h100-sxm", "8192x8192x8192", dict(tile=(128, 256, 64))),
           ("h100-sxm", "8192x8192x8192", dict(tile=(64, 128, 64))),                 # one consumer
           ("h200", "8192x8192x4096", dict(tile=(192, 128, 64), consumers=3)),
           ("b200", "8192x8192x8192", dict(tile=(128, 256, 64), cta_group=2, cluster=(2, 1))),
           ("b200", "8192x8192x2048", dict(tile=(128, 128, 64), cta_group=1, cluster=(1, 1), acc_buffers=1))]


@pytest.mark.parametrize("gpu,shape,knobs", WINDOWS)
def test_one_event_per_wait_at_most(gpu, shape, knobs):
    """Posted arrivals make every wait one event; only several consumers sharing the tensor core and
    the store path take any (one per k-block and one per tile each, at most)."""
    p, n, k = _window(gpu, shape, **knobs)
    trace = simulate(p, n, k)
    if p.tmem or p.issuers == 1:
        assert trace.events <= 2 * n
    else:
        assert trace.events <= p.issuers * (n * k + n)


@pytest.mark.parametrize("gpu,shape,knobs", WINDOWS)
def test_running_ahead_changes_nothing(gpu, shape, knobs):
    """A process that alone uses what it touches may run ahead of simulated time: the cycles, the
    stalls, the snapshots' times and the timeline are those of every process yielding to each cycle."""
    p, n, k = _window(gpu, shape, **knobs)
    a, b = simulate(p, n, k, record=True), simulate(p, n, k, record=True, run_ahead=False)

    def seen(tr):
        return (tr.end_cycles, tr.end_counters, sorted(tr.intervals),
                {key: (t, c[6:]) for key, (t, c) in tr.snapshots.items()})
    assert seen(a) == seen(b)


@pytest.mark.parametrize("gpu,shape,knobs", WINDOWS)
def test_first_tile_read_off_the_window_is_a_one_tile_run(gpu, shape, knobs):
    """The wave-tail correction's full-share tile is read off the window's first tile: bitwise the
    run of that tile alone, extrapolated alike."""
    p, n, k = _window(gpu, shape, **knobs)
    assert n > 1
    window, alone = simulate(p, n, k), simulate(p, 1, k)
    first = window.first_tile
    assert first is not None
    assert (first.end_cycles, first.end_counters) == (alone.end_cycles, alone.end_counters)
    assert extrapolate(first, p, 1, k, 1) == extrapolate(alone, p, 1, k, 1)


def test_snapshots_kept_only_where_extrapolation_reads():
    from perfmodel.sim.model import marks, window_tiles
    p = small(k_iters=40, tiles_per_cta=6, stages=3)
    _, period = window_tiles(p.stages, 14, 6)
    kept = simulate(p, 3, 14, marks=marks(3, 14, p, period))
    every = simulate(p, 3, 14)
    assert set(kept.snapshots) < set(every.snapshots)
    assert extrapolate(kept, p, 3, 14, 6, period) == extrapolate(every, p, 3, 14, 6, period)


def _epilogues(trace, tile: int = 0) -> dict:
    return {iv[0]: (iv[2], iv[3]) for iv in trace.intervals if iv[1] == f"t{tile} store"}


def test_shared_store_path_ends_every_warpgroups_stores_together():
    """Direct stores of two warpgroups interleave on the SM's path: each epilogue lasts the tile's bytes at the
    path's rate (the tile probe's 256x128 direct-store tiles), where a FIFO path lets the first one out early."""
    fifo = simulate(small(issuers=2, epi_workers=2, epi_bytes_per_worker=640, out_bytes_per_tile=1280), 1, 3,
                    record=True)
    shared = simulate(small(issuers=2, epi_workers=2, epi_bytes_per_worker=640, out_bytes_per_tile=1280,
                            epi_shared_path=True), 1, 3, record=True)
    f, s = _epilogues(fifo), _epilogues(shared)
    assert f["Epilogue wg0"][1] - f["Epilogue wg0"][0] == 10            # 640 B at 64 B/clk, alone on the path
    assert [e - b for b, e in s.values()] == [20, 20]                   # 1280 B at 64 B/clk each, side by side
    assert shared.end_cycles >= fifo.end_cycles      # (an approximation: it assumes the warpgroups store at once)
    assert shared.end_counters[5] == pytest.approx(fifo.end_counters[5])   # the path carries the same bytes


def test_output_stores_take_the_l2_share_at_the_epilogue():
    """The stores' L2 occupancy, charged when the epilogue issues them, delays the next tile's loads queued
    behind them on the SM's L2 share; over the run the L2 carries the same bytes as when spread over k-blocks."""
    slow_l2 = dict(l2_bytes_per_clock=4.0, k_iters=4, tiles_per_cta=3)
    spread = simulate(small(**slow_l2, l2_bytes_per_stage=1000 + 4000 / 4), 3, 4)
    at_epi = simulate(small(**slow_l2, l2_store_bytes_per_tile=4000), 3, 4, record=True)
    assert at_epi.end_counters[3] == pytest.approx(spread.end_counters[3])
    store_end = _epilogues(at_epi)["Epilogue wg0"][0]
    loads = [iv for iv in at_epi.intervals if iv[0].startswith("stage") and iv[1].startswith("t1")]
    assert max(iv[3] for iv in loads) > store_end + 4000 / 4.0          # a load of tile 1 waited for the stores
