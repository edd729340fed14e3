"""The Blackwell (sm_100a) pieces the published B200 ladders exercise, each checked on its own: one thread
issuing tcgen05.mma with commits onto the stage's empty barrier, TMEM accumulators double-buffered so the
epilogue overlaps the next tile, the CTA pair of cta_group::2 (B split across the pair, A multicast),
persistent tile scheduling, the SMEM-read bound of small-N SS MMAs, the half datapath of M=64, and the
scale-factor traffic of block-scaled kinds."""
import pytest

from perfmodel import derive, load_hardware, make_problem, predict
from perfmodel.config import a_stage_bytes, b_stage_bytes, scale_stage_bytes
from perfmodel.sim.params import build_inputs, mma_instruction
from perfmodel.sim.pipeline import SmSim

B200 = load_hardware("b200")
P = make_problem("8192x8192x8192", "bf16")
CLOCK = B200.clock.sustained_tensor_hz


def _cfg(problem=P, tile=(128, 256, 64), **kw):
    kw.setdefault("cta_group", 1)
    kw.setdefault("cluster", (1, 1))
    return derive(problem, B200, tile, **kw).config


def test_one_thread_issues_tcgen05_and_commits_free_the_stage():
    p = build_inputs(P, _cfg(consumers=2), B200, CLOCK).params
    assert p.tmem and p.issuers == 1 and p.wait_depth == 0
    sim = SmSim(p, n_tiles=1, k_iters=8)
    assert all(b.count == 1 for b in sim.empty)          # one tcgen05.commit arrival per stage


def test_tmem_double_buffering_overlaps_the_epilogue():
    one = predict(P, _cfg(persistent=True, acc_buffers=1, epilogue="dir"), B200)
    two = predict(P, _cfg(persistent=True, acc_buffers=2, epilogue="dir"), B200)
    assert two.cycles < one.cycles
    assert two.stall_cycles["epilogue"] < one.stall_cycles["epilogue"]


def test_cta_pair_splits_b_and_multicasts_a():
    single = _cfg(tile=(128, 256, 64), cta_group=1, cluster=(2, 1), multicast=False)
    pair = _cfg(tile=(128, 256, 64), cta_group=2, cluster=(2, 1))
    assert b_stage_bytes(P, pair) == b_stage_bytes(P, single) // 2          # each CTA loads half of B
    assert a_stage_bytes(P, pair) == a_stage_bytes(P, single)
    ps = build_inputs(P, single, B200, CLOCK).params
    pp = build_inputs(P, pair, B200, CLOCK).params
    assert pp.stage_smem_bytes < ps.stage_smem_bytes and pp.stage_tx_bytes == 2 * pp.stage_smem_bytes
    assert predict(P, pair, B200).tflops > predict(P, _cfg(tile=(128, 256, 64), cta_group=1), B200).tflops


def test_persistent_ctas_walk_their_tiles_and_pay_one_fill():
    per = build_inputs(P, _cfg(persistent=True), B200, CLOCK)
    non = build_inputs(P, _cfg(persistent=False), B200, CLOCK)
    assert per.params.tiles_per_cta == per.schedule.waves > 1 and non.params.tiles_per_cta == 1
    assert predict(P, _cfg(persistent=True, acc_buffers=2), B200).cycles <= \
        predict(P, _cfg(persistent=False, acc_buffers=2), B200).cycles


def test_small_n_ss_mma_is_bound_by_shared_memory_reads():
    math_c, smem_c, _ = mma_instruction(P, _cfg(tile=(128, 32, 64)), B200)
    assert smem_c > math_c
    math_c, smem_c, _ = mma_instruction(P, _cfg(tile=(128, 256, 64)), B200)
    assert math_c > smem_c


def test_m64_uses_half_the_datapath():
    m64 = mma_instruction(P, _cfg(tile=(64, 256, 64), mma=(64, 256, 16)), B200)
    m128 = mma_instruction(P, _cfg(tile=(128, 256, 64), mma=(128, 256, 16)), B200)
    assert m64[0] / m64[2] == pytest.approx(2 * m128[0] / m128[2])       # cycles per FLOP doubled


@pytest.mark.parametrize("dtype", ["mxfp8", "nvfp4"])
def test_block_scaled_kinds_move_scale_factors_through_the_pipeline(dtype):
    q = make_problem("8192x8192x8192", dtype)
    cfg = _cfg(q, tile=(128, 256, 128))
    assert scale_stage_bytes(q, cfg) > 0
    plain = make_problem("8192x8192x8192", "fp8")
    pq = build_inputs(q, cfg, B200, CLOCK).params
    pp = build_inputs(plain, _cfg(plain, tile=(128, 256, 128)), B200, CLOCK).params
    if dtype == "mxfp8":
        assert pq.stage_smem_bytes == pp.stage_smem_bytes + scale_stage_bytes(q, cfg)
        assert pq.tma_issue_cycles > pp.tma_issue_cycles                 # SFA and SFB boxes issued too
