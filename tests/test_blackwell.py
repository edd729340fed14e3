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


# ---------------------------------------------------------------- the B200 / GB200 clock (issue 10)
from perfmodel.cli import main  # noqa: E402
from perfmodel.sim.power import Activity, power_limited_clock_hz  # noqa: E402

GB200 = load_hardware("gb200")
GN_V7A = "128x256x64_i256x256x16_cg2_cl2x1_mc0_s7_sw128-128_wg1_acc2_pn2_edir"


def test_b200_clock_regimes_mean_what_they_mean_on_h100():
    from perfmodel.config import KernelConfig
    cfg = KernelConfig.from_name(GN_V7A)     # gau-nernst v7a (data/published/b200.csv), as cuBLAS-like as we have
    boost, sustained = predict(P, cfg, B200, clock="boost"), predict(P, cfg, B200, clock="sustained")
    fixed = predict(P, cfg, B200, clock=1500)
    assert boost.clock_hz == B200.clock.boost_hz == 1.965e9 and boost.clock_regime == "boost"
    assert fixed.clock_hz == 1.5e9 and fixed.clock_regime == "fixed"
    # a heavy 8192^3 GEMM is power-limited well below boost: inside the band the public figures imply for
    # long cuBLAS loops (data/published/b200_clock.md: 1200-1370 MHz), which nothing was fitted to
    assert sustained.clock_regime == "sustained" and 1.2e9 <= sustained.clock_hz <= 1.45e9
    assert boost.cycles == pytest.approx(sustained.cycles, rel=0.05)   # cycles barely depend on the clock
    assert boost.tflops / sustained.tflops == pytest.approx(boost.clock_hz / sustained.clock_hz, rel=0.05)


def test_b200_power_model_is_monotone_and_light_kernels_run_at_boost():
    for hw in (B200, GB200):
        c = hw.clock
        assert 0 < c.tensor_power_fraction < 1 and c.hbm_power_w > 0 and c.sustained_tensor_hz < c.boost_hz
        assert power_limited_clock_hz(Activity(0.0, 0.0), P, hw) == c.boost_hz     # idle-ish: under the cap
        assert power_limited_clock_hz(Activity(1.0, 0.0), P, hw) == pytest.approx(c.sustained_tensor_hz)
        prev = None
        for u in (0.5, 0.7, 0.9, 1.0):      # more tensor work: lower clock
            f = power_limited_clock_hz(Activity(u, 0.3, 0.3), P, hw)
            assert prev is None or f <= prev
            prev = f
        base = power_limited_clock_hz(Activity(0.9, 0.2, 0.1), P, hw)
        assert power_limited_clock_hz(Activity(0.9, 0.6, 0.1), P, hw) < base      # more L2 traffic
        assert power_limited_clock_hz(Activity(0.9, 0.2, 0.6), P, hw) < base      # more HBM traffic
        f8 = make_problem("8192x8192x8192", "e4m3")
        assert power_limited_clock_hz(Activity(0.9, 0.2), f8, hw) < power_limited_clock_hz(Activity(0.9, 0.2), P, hw)
    act = Activity(0.9, 0.4, 0.3)
    assert power_limited_clock_hz(act, P, GB200) > power_limited_clock_hz(act, P, B200)    # 1200 W vs 1000 W


def test_b200_power_parameters_carry_sources():
    import tomllib
    from pathlib import Path
    for name in ("b200", "gb200"):
        clock = tomllib.loads((Path(__file__).parents[1] / f"configs/hardware/{name}.toml").read_text())["clock"]
        for key in ("boost_hz", "sustained_tensor_hz", "power_exponent", "tensor_power_fraction", "hbm_power_w"):
            assert len(clock[key]["source"]) > 40, (name, key)
        assert "data/published" not in clock["sustained_tensor_hz"]["source"].replace("Not derived from data/published", "")


@pytest.mark.parametrize("clock,says", [("fast", "expected boost, short, sustained"), ("0", "above 0"),
                                        ("1.5e9", "MHz, not Hz"), ("measured", "applies to report")])
def test_b200_bad_clock_is_one_line_through_the_cli(capsys, clock, says):
    rc = main(["predict", "--gpu", "b200", "--problem", "4096x4096x4096", "--dtype", "bf16", "--tile", "128x256x64",
               "--cta-group", "2", "--clock", clock])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1 and says in err
