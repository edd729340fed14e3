"""The power-limited clock (sim/power.py) and the memory mechanisms calibration relies on."""
import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.prediction.predict import predict
from perfmodel.sim.memory import l2_row_efficiency
from perfmodel.sim.params import l2_bytes_per_sm_clock
from perfmodel.sim.power import Activity, busy_fraction, power_limited_clock_hz, relative_power

H100 = load_hardware("h100-sxm")
# a power model with clear numbers: half of the capped power follows the tensor cores, P ~ f^3
TOY = H100.with_values(**{"clock.tensor_power_fraction": 0.5, "clock.l2_power_fraction": 0.2,
                          "clock.power_exponent": 3.0, "clock.f8_tensor_power_ratio": 1.5})
BF16 = make_problem("8192x8192x8192", "bf16")
FP8 = make_problem("8192x8192x8192", "fp8")


def test_reference_burn_runs_at_the_sustained_clock():
    """Full-rate f16 tensor activity and no L2 traffic is the microbenchmark burn: exactly the cap."""
    assert relative_power(Activity(1.0, 0.0), 1.0, TOY) == pytest.approx(1.0)
    assert power_limited_clock_hz(Activity(1.0, 0.0), BF16, TOY) == pytest.approx(TOY.clock.sustained_tensor_hz)


def test_clock_solves_the_cubic_power_law():
    """Half the tensor activity: P = 0.75 of the cap at f_s, so f = f_s x 0.75^(-1/3) (below boost)."""
    f = power_limited_clock_hz(Activity(0.5, 0.0), BF16, TOY)
    assert f == pytest.approx(TOY.clock.sustained_tensor_hz * 0.75 ** (-1 / 3))


def test_idle_tensor_cores_run_at_boost_and_memory_traffic_lowers_the_clock():
    assert power_limited_clock_hz(Activity(0.0, 0.0), BF16, TOY) == TOY.tensor_max_clock_hz
    quiet = power_limited_clock_hz(Activity(0.9, 0.0), BF16, TOY)
    busy = power_limited_clock_hz(Activity(0.9, 1.0), BF16, TOY)
    assert busy < quiet < TOY.tensor_max_clock_hz


def test_eight_bit_tensor_work_draws_more_power_per_busy_cycle():
    act = Activity(0.9, 0.3)
    assert power_limited_clock_hz(act, FP8, TOY) < power_limited_clock_hz(act, BF16, TOY)


def test_neutral_fractions_keep_the_sustained_clock_on_blackwell():
    b200 = load_hardware("b200").with_values(**{"clock.tensor_power_fraction": 0.0, "clock.l2_power_fraction": 0.0,
                                                "clock.hbm_power_w": 0.0})
    for act in (Activity(0.0, 0.0), Activity(1.0, 1.0), Activity(0.3, 0.9)):
        assert power_limited_clock_hz(act, BF16, b200) == b200.clock.sustained_tensor_hz


def test_prediction_clock_follows_tensor_activity():
    """A narrow-swizzle kernel (L2-bound, tensor cores mostly idle) runs at a higher clock than the same
    tile with 128B swizzle and a multicast cluster (tensor-bound), and both stay within [floor, boost]."""
    slow = predict(BF16, derive(BF16, TOY, (128, 256, 64), swizzle="32").config, TOY)
    fast = predict(BF16, derive(BF16, TOY, (128, 256, 64), cluster=(2, 1)).config, TOY)
    assert slow.details["tensor_activity"] < fast.details["tensor_activity"]
    assert fast.clock_hz < slow.clock_hz <= TOY.clock.boost_hz


def test_idle_time_between_launches_raises_the_clock_of_short_kernels():
    """A kernel of T seconds, launched back to back, runs T / (T + idle) of the time: the toy burn with 5.4 us of
    idle (the H100's launch overhead + gap) at 21.6 us of work is busy 0.8, P = 0.5 + 0.5 x 0.8 at f_s."""
    idle_s = H100.gpu.launch_overhead_s + H100.gpu.launch_gap_s
    f_s = TOY.clock.sustained_tensor_hz
    act = Activity(1.0, 0.0, at_hz=f_s, cycles=4 * idle_s * f_s)
    assert busy_fraction(act, f_s, TOY) == pytest.approx(0.8)
    assert busy_fraction(Activity(1.0, 0.0), f_s, TOY) == 1.0          # no cycles: a kernel that never stops
    f = power_limited_clock_hz(act, BF16, TOY)
    # at f the kernel runs shorter (cycles / f), so it idles a larger share: solve the fixed point
    busy = busy_fraction(act, f, TOY)
    assert (f / f_s) ** 3 * (0.5 + 0.5 * busy) == pytest.approx(1.0, rel=1e-9)
    assert f_s * 0.9 ** (-1 / 3) < f < TOY.clock.boost_hz
    long = Activity(1.0, 0.0, at_hz=f_s, cycles=1e4 * idle_s * f_s)   # a 54 ms kernel: the gap is nothing
    assert power_limited_clock_hz(long, BF16, TOY) == pytest.approx(f_s, rel=1e-3)


def test_short_burn_kernels_run_at_the_clock_mb_wgmma_gap_measured():
    """Our mb_wgmma --gap (H100, 2026-11-25): the wgmma burn at 5 us .. 5 ms per launch, back to back with an event
    pair around each launch. The power model (fitted on >= 250 ms GEMM loops, not on these) with the SMs idle for
    launch_overhead_s + launch_gap_s between launches gives each length's in-kernel clock within 1.5% from 28 us
    of event time on (it was 2-12% low without the idle time); the two shortest, 13 and 17 us, run at ~1.82 GHz
    where the model says 1.87-1.98 (a limit the model does not have)."""
    import json
    from pathlib import Path
    doc = json.loads((Path(__file__).resolve().parents[1] / "data/microbench/h100-80gb-hbm3-2026-11-25-gap.json")
                     .read_text())
    rows = [r for r in doc["records"] if r.get("bench") == "gap"]
    assert len(rows) == 9
    checked = 0
    for r in rows:
        f_meas = r["kernel_clock_hz"]
        run_s = r["event_us"] * 1e-6 - H100.gpu.launch_overhead_s      # the kernel's own time in the event pair
        with_gap = power_limited_clock_hz(Activity(1.0, 0.0, at_hz=f_meas, cycles=run_s * f_meas), BF16, H100)
        without = power_limited_clock_hz(Activity(1.0, 0.0, at_hz=f_meas), BF16, H100)
        if r["event_us"] >= 28:
            assert with_gap / f_meas - 1 == pytest.approx(0.0, abs=0.015), r["event_us"]
            checked += 1
        if r["event_us"] <= 60:
            assert without / f_meas - 1 < -0.04, r["event_us"]
    assert checked == 7


def test_explicit_clock_bypasses_the_power_model():
    cfg = derive(BF16, TOY, (128, 256, 64)).config
    assert predict(BF16, cfg, TOY, clock_hz=1.2e9).clock_hz == 1.2e9


def test_l2_bytes_per_sm_cycle_grow_when_l2_keeps_its_own_clock():
    own = H100.with_values(**{"l2.sm_clock_scaling": 0.0})
    same = H100.with_values(**{"l2.sm_clock_scaling": 1.0})
    ref = H100.l2.bandwidth_clock_hz
    assert l2_bytes_per_sm_clock(own, ref / 2) == pytest.approx(2 * H100.l2.bandwidth_bytes_per_clock)
    assert l2_bytes_per_sm_clock(same, ref / 2) == pytest.approx(H100.l2.bandwidth_bytes_per_clock)


def test_narrow_box_rows_occupy_more_l2_bandwidth():
    assert l2_row_efficiency(128, H100) > l2_row_efficiency(64, H100) > l2_row_efficiency(32, H100)
    assert l2_row_efficiency(256, H100) == H100.tma.l2_efficiency_128b


def test_gpc_limits_resident_clusters_of_four():
    """Our H100: 30 resident 2x2 clusters (120 SMs), 66 of 2 (all 132)."""
    assert H100.resident_clusters(4) == 30 and H100.resident_clusters(2) == 66 and H100.resident_clusters(1) == 132
    p = make_problem("4096x4096x4096", "bf16")
    two = predict(p, derive(p, H100, (128, 256, 64), cluster=(2, 1)).config, H100)
    four = predict(p, derive(p, H100, (128, 256, 64), cluster=(2, 2)).config, H100)
    assert four.details["waves"] > two.details["waves"]


def test_the_fast_window_holds_short_burn_kernels_below_boost():
    """The limiter's fast window (sim/power.py PowerLimits): the in-kernel power stays under clock.short_power_ratio
    x the cap whatever the idle time between launches. On our mb_wgmma --gap runs (H100, 2026-11-25, four machines)
    the 13-17 us burn launches ran at 1.80-1.82 GHz: the averaged window alone gives 1.87-1.98 (up to 10% high), both
    windows 1.77 (within 3%), and every longer launch keeps the averaged window's clock (both agree from 28 us on)."""
    import json
    from pathlib import Path
    from perfmodel.sim.clock import SHORT, SUSTAINED
    from perfmodel.sim.power import PowerLimits, power_cap
    limits = power_cap(SUSTAINED, H100)
    assert limits == PowerLimits(1.0, H100.clock.short_power_ratio)
    assert power_cap(SHORT, H100) == PowerLimits(None, H100.clock.short_power_ratio)
    worst_avg = 0.0
    for name in ("gap", "gap-repeat", "gap-third", "gap-fourth"):
        doc = json.loads((Path(__file__).resolve().parents[1] /
                          f"data/microbench/h100-80gb-hbm3-2026-11-25-{name}.json").read_text())
        for r in (r for r in doc["records"] if r.get("bench") == "gap"):
            f_meas = r["kernel_clock_hz"]
            act = Activity(1.0, 0.0, at_hz=f_meas, cycles=(r["event_us"] * 1e-6 - H100.gpu.launch_overhead_s) * f_meas)
            both = power_limited_clock_hz(act, BF16, H100, limits)
            averaged = power_limited_clock_hz(act, BF16, H100)
            assert both <= averaged
            assert both / f_meas - 1 == pytest.approx(0.0, abs=0.03), (name, r["event_us"])
            if r["event_us"] < 20:
                worst_avg = max(worst_avg, averaged / f_meas - 1)
                assert both < averaged
            else:
                assert both == pytest.approx(averaged, rel=1e-6)
    assert 0.0 < worst_avg < 0.03
    # a light kernel stays at boost under both windows
    assert power_limited_clock_hz(Activity(0.2, 0.1), BF16, H100, limits) == H100.tensor_max_clock_hz


def test_a_streamed_gemm_weighs_its_tensor_power_by_the_stream_ratio_and_the_burn_does_not():
    """clock.stream_tensor_power_ratio: a GEMM's operands change every k-block (Activity.streamed, set by predict),
    the wgmma burn that defines clock.sustained_tensor_hz re-reads one tile (the Activity default)."""
    from perfmodel.sim.power import tensor_power_weight
    hot = H100.with_values(**{"clock.stream_tensor_power_ratio": 1.15})
    assert tensor_power_weight(BF16, hot, streamed=False) == 1.0
    assert tensor_power_weight(BF16, hot, streamed=True) == pytest.approx(1.15)
    assert power_limited_clock_hz(Activity(1.0, 0.0), BF16, hot) == pytest.approx(hot.clock.sustained_tensor_hz)
    assert power_limited_clock_hz(Activity(0.9, 0.2, streamed=True), BF16, hot) < power_limited_clock_hz(
        Activity(0.9, 0.2), BF16, hot)


def test_the_clock_fit_takes_in_kernel_clocks_from_100_ms_loops_and_nvml_only_from_long_ones():
    from perfmodel.calibration.fit import clock_frame
    root = __import__("pathlib").Path(__file__).resolve().parents[1] / "data/measurements"
    f = clock_frame([root / "h100_kclock_skinny.jsonl", root / "h100_sm90_dataset.jsonl"])
    assert f["meas_kernel_clock_hz"].notna().sum() == 30          # the 100 ms loops with the probe
    assert (f.loc[f["meas_kernel_clock_hz"].isna(), "meas_loop_s"] >= 0.25).all()   # NVML rows: long loops only
    assert (f["fit_clock_hz"] == f["meas_kernel_clock_hz"].fillna(f["meas_sm_clock_hz"])).all()


def test_the_core_rail_share_of_hbm_power_follows_the_core_voltage():
    """clock.hbm_core_share: that share of the HBM path's power (measured by mb_power at the boost clock) scales as
    V^2 ~ (f / boost)^(gamma - 1); the rest stays flat. Below boost an HBM-heavy kernel draws less at the same clock,
    so the power-limited clock it runs at rises; at boost (where mb_power measured it) nothing changes."""
    from perfmodel.sim.power import hbm_rail_factor
    boost = TOY.clock.boost_hz
    flat = TOY.with_values(**{"clock.hbm_power_w": 300.0, "clock.hbm_core_share": 0.0})
    core = flat.with_values(**{"clock.hbm_core_share": 0.4})
    assert hbm_rail_factor(0.7 * boost, flat) == 1.0
    assert hbm_rail_factor(boost, core) == pytest.approx(1.0)
    assert hbm_rail_factor(0.7 * boost, core) == pytest.approx(0.6 + 0.4 * 0.7 ** 2.0)    # gamma 3 of TOY
    act = Activity(0.9, 0.5, hbm=0.8)
    assert power_limited_clock_hz(act, BF16, core) > power_limited_clock_hz(act, BF16, flat)
    no_hbm = Activity(0.9, 0.5)
    assert power_limited_clock_hz(no_hbm, BF16, core) == power_limited_clock_hz(no_hbm, BF16, flat)
