"""Caveats (prediction/caveats.py): said where the committed data show the model misses, not elsewhere, and the
figures their texts quote still hold on the calibration half (a model change that moves them fails here)."""
import json
import pathlib

import pandas as pd
import pytest

from perfmodel import cli
from perfmodel.calibration.fit import load_split, split
from perfmodel.calibration.report import add_predictions, measured_frame
from perfmodel.config import KernelConfig
from perfmodel.hardware import load_hardware
from perfmodel.prediction.caveats import (FEW_SHARER_ROWS, HBM_HEAVY_ACTIVITY, SHORT_KERNEL_S, SKINNY_M,
                                          WIDE_K_MAX_STAGES, WIDE_K_ROW_BYTES, caveats, skinny_ctas)
from perfmodel.prediction.predict import predict
from perfmodel.problem import make_problem

ROOT = pathlib.Path(__file__).resolve().parent.parent
H100 = load_hardware("h100-sxm")
ONE_CONSUMER_64x256 = "64x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg1_acc1_pm8_etma"
MC_128x256 = "128x256x64_i64x256x16_cg1_cl2x1_mc1_s4_sw128-128_wg2_acc1_pm8_etma"
SW64_128x256 = "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw64-64_wg2_acc1_pm8_etma"


def _keys(shape, name, dtype="bf16", hw=H100, clock="boost"):
    p = predict(make_problem(shape, dtype), KernelConfig.from_name(name), hw, clock=clock)
    return {c.key for c in p.caveats}, p


def test_l2_bound_wide_rows_get_the_coalescer_caveat_and_the_others_do_not():
    keys, p = _keys("4096x16384x2048", ONE_CONSUMER_64x256)
    assert p.bottleneck.value == "l2" and keys == {"l2-request-coalescing"}
    keys, p = _keys("8192x8192x8192", MC_128x256)          # multicast: the coalescing the model counts
    assert "l2-request-coalescing" not in keys
    keys, p = _keys("8192x8192x8192", SW64_128x256)         # narrow rows: ncu found no coalescing (ratio ~1.0)
    assert "l2-request-coalescing" not in keys
    assert p.bottleneck.value in ("l2", "tensor_core") and "narrow-64-byte-rows" in keys


def test_skinny_128_row_tiles_get_their_caveat_and_64_row_tiles_do_not():
    keys, _ = _keys("64x8192x28672", "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    assert "skinny-128-row-tiles" in keys
    keys, _ = _keys("64x8192x28672", "64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma")
    assert "skinny-128-row-tiles" not in keys
    keys, _ = _keys("128x8192x28672", "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    assert "skinny-128-row-tiles" not in keys
    # 16 CTAs streaming: the small grids' text (the model holds them slower than they run)
    keys, p = _keys("64x2048x28672", "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    assert "skinny-128-row-tiles" in keys and "faster than predicted" in dict((c.key, c.text) for c in p.caveats)[
        "skinny-128-row-tiles"]


def test_no_caveats_off_our_data():
    b200 = load_hardware("b200")
    assert caveats(make_problem("64x8192x8192", "bf16"), KernelConfig.from_name(ONE_CONSUMER_64x256), b200, "l2") == ()


def test_predict_prints_and_exports_them(capsys):
    argv = ["predict", "--gpu", "h100-sxm", "--problem", "4096x16384x2048", "--config", ONE_CONSUMER_64x256,
            "--clock", "boost"]
    assert cli.main(argv) == 0
    assert "caveat     L2-bound with 128-byte box rows" in capsys.readouterr().out
    assert cli.main(argv + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["key"] for c in doc["caveats"]] == ["l2-request-coalescing"]


def _calibration(gpu: str) -> pd.DataFrame:
    hw = load_hardware(gpu)
    prefix = "h100_" if gpu == "h100-sxm" else "h200_"
    frames = []
    for f in sorted((ROOT / "data/measurements").glob(prefix + "*.jsonl")):
        frame, spec = measured_frame([f])
        if spec == gpu:
            frames.append(frame)
    df = add_predictions(pd.concat(frames, ignore_index=True), hw, clock="auto")
    cal, _ = split(df, load_split())
    cal = cal.dropna(subset=["pred_tflops"])
    cfgs = [KernelConfig.from_name(n) for n in cal["config_name"]]
    cal["tile_m"] = [c.tile_m for c in cfgs]
    cal["wide_no_mc"] = [c.swizzle_a.value == "128" and c.swizzle_b.value == "128"
                         and not (c.multicast and c.cluster_size > 1) for c in cfgs]
    cal["rows64"] = ["64" in (c.swizzle_a.value, c.swizzle_b.value) for c in cfgs]
    cal["drift"] = cal["caveats"].str.contains("long-k-drift")
    return cal


def _assert_figures(rows: pd.DataFrame, gpu: str, mean: tuple, beyond_10: tuple, span: tuple) -> None:
    """A caveat's quoted figures on its calibration rows: the mean error within ``mean`` (an (lo, hi) pair for the
    H100, then one for the H200), the share more than 10% off within ``beyond_10`` (the same), every error within
    ``span``."""
    i = 0 if gpu == "h100-sxm" else 1
    assert mean[i][0] <= rows["rel_err"].mean() <= mean[i][1]
    assert beyond_10[i][0] <= (rows["rel_err"].abs() > 0.10).mean() <= beyond_10[i][1]
    assert span[0] <= rows["rel_err"].min() and rows["rel_err"].max() <= span[1]


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_the_quoted_figures_hold_on_the_calibration_half(gpu):
    cal = _calibration(gpu)
    l2 = cal[(cal["pred_bottleneck"] == "l2") & cal["wide_no_mc"] & ~cal["drift"]]   # "long-K points aside"
    assert len(l2) >= 50
    lo, hi = (-0.02, 0.0) if gpu == "h100-sxm" else (-0.04, -0.02)
    assert lo <= l2["rel_err"].mean() <= hi                    # "predicted 1% (H100) / 3% (H200) slower on average"
    lo, hi = (0.025, 0.04) if gpu == "h100-sxm" else (0.04, 0.06)
    assert lo <= l2["rel_err"].abs().mean() <= hi              # "3% (H100) / 5% (H200) off on average"
    lo, hi = (0.03, 0.06) if gpu == "h100-sxm" else (0.06, 0.11)
    assert lo <= (l2["rel_err"].abs() > 0.10).mean() <= hi     # "1 in 22 (H100) / 1 in 12 (H200) more than 10% off"
    deep = l2[[KernelConfig.from_name(n).stages >= 7 for n in l2["config_name"]]]
    if gpu == "h100-sxm":                                      # "4% (H100) slower at rings of 7 or more stages"
        assert len(deep) >= 5 and -0.05 <= deep["rel_err"].mean() <= -0.02
    sk = cal[(cal["m"] <= SKINNY_M) & (cal["tile_m"] >= 2 * SKINNY_M)].copy()
    hw = load_hardware(gpu)
    sk["ctas"] = [skinny_ctas(make_problem(f"{r.m}x{r.n}x{r.k}", r.dtype), KernelConfig.from_name(r.config_name), hw)
                  for r in sk.itertuples()]
    assert len(sk) >= 10
    lo, hi = (0.09, 0.13) if gpu == "h100-sxm" else (0.15, 0.20)
    assert lo <= sk["rel_err"].max() <= hi                   # "up to 11% (H100) / 17% (H200)"
    mid = sk[(sk["ctas"] >= 40) & (sk["ctas"] <= 100)]["rel_err"]
    lo, hi = (-0.03, 0.0) if gpu == "h100-sxm" else (0.03, 0.07)
    assert len(mid) >= 10 and lo <= mid.mean() <= hi        # "2% faster (H100) and 5% slower (H200) ... at 40-100 CTAs"
    edge = sk[((sk["ctas"] > 24) & (sk["ctas"] < 40)) | (sk["ctas"] > 100)]["rel_err"]
    assert len(edge) >= 5 and -0.04 <= edge.mean() <= 0.05   # "-2% (H100) / -2% (H200) at 25-40 and above 100"
    quiet = sk[sk["ctas"] <= 24]["rel_err"]
    assert len(quiet) >= 2 and -0.05 <= quiet.mean() <= -0.01 and quiet.abs().max() <= 0.10   # "3% / 3% faster, up to 9%"
    n64 = cal[cal["rows64"] & cal["pred_bottleneck"].isin(["l2", "tensor_core"])]
    assert len(n64) >= 8
    lo, hi = (0.0, 0.03) if gpu == "h100-sxm" else (0.03, 0.07)
    assert lo <= n64["rel_err"].mean() <= hi                  # "2% (H100) and 5% (H200) slower"
    assert 0.09 <= n64["rel_err"].max() <= 0.16               # "up to 14%"


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_the_long_k_drift_figures_hold_on_the_calibration_half(gpu):
    """"2% slower (H100) / 4% slower (H200) than predicted on average, 10% / 24% more than 10% off, from 18% faster
    to 47% slower"."""
    cal = _calibration(gpu)
    drift = cal[cal["drift"]]
    assert len(drift) >= (50 if gpu == "h100-sxm" else 30)
    _assert_figures(drift, gpu, mean=((0.0, 0.04), (0.04, 0.08)), beyond_10=((0.04, 0.11), (0.22, 0.36)),
                    span=(-0.25, 0.55))


def test_the_long_k_drift_caveat_follows_the_run_and_the_bottleneck():
    l2_bound = "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma"
    keys, p = _keys("4096x4096x49152", l2_bound, clock="sustained")
    assert p.details["drift_reads"] > 2 and "long-k-drift" in keys and "l2-request-coalescing" not in keys
    keys, _ = _keys("2048x2048x2048", l2_bound, clock="sustained")        # a short run: the in-step reuse holds
    assert "long-k-drift" not in keys
    keys, p = _keys("4096x4096x49152", "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma",
                    clock="sustained")
    assert p.bottleneck.value == "tensor_core" and "long-k-drift" not in keys and p.details["drift_reads"] == 1.0


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_the_short_kernel_figures_hold_on_the_calibration_half(gpu):
    """"predicted under 20 us: 2% (H100) / 1% (H200) slower on average, 7% / 4% of them beyond 10%"; on the H100 the
    rest of the calibration half is closer (on the H200, with the CTA set-up counted, the short kernels are not worse)."""
    cal = _calibration(gpu)
    pred_s = 2 * cal["m"] * cal["n"] * cal["k"] / (cal["pred_tflops"] * 1e12)
    short, rest = cal[pred_s < SHORT_KERNEL_S], cal[pred_s >= SHORT_KERNEL_S]
    assert len(short) >= 20
    lo, hi = (0.005, 0.04) if gpu == "h100-sxm" else (-0.01, 0.03)
    assert lo <= short["rel_err"].mean() <= hi
    lo, hi = (0.03, 0.13) if gpu == "h100-sxm" else (0.02, 0.13)
    assert lo <= (short["rel_err"].abs() > 0.10).mean() <= hi
    if gpu == "h100-sxm":
        assert rest["rel_err"].abs().mean() < short["rel_err"].abs().mean()


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_the_multicast_dead_slice_figures_hold_on_the_calibration_half(gpu):
    """"7% faster (H100) / 5% faster (H200) than predicted on average, 14 in 22 (H100) / 3 in 9 (H200) more than 10%
    off, from 34% faster to 11% slower"."""
    cal = _calibration(gpu)
    dead = cal[cal["caveats"].str.contains("multicast-dead-slice")]
    assert len(dead) >= (15 if gpu == "h100-sxm" else 5)
    _assert_figures(dead, gpu, mean=((-0.09, -0.05), (-0.07, -0.03)), beyond_10=((0.55, 0.70), (0.25, 0.45)),
                    span=(-0.36, 0.12))


def test_a_dead_multicast_slice_is_loaded_as_plain_loads():
    """sim/memory.dead_multicast_slice: at M <= 128 a 256-row tile multicast 1x2 leaves one CTA's 128-row slice all
    zero fill; the model predicts the tile without multicast (and says so), at M = 192 with it."""
    from perfmodel.sim.memory import dead_multicast_slice
    mc = KernelConfig.from_name("256x128x64_i64x128x16_cg1_cl1x2_mc1_s4_sw128-128_wg2_acc1_pm8_etma")
    plain = mc.replace(multicast=False)
    for m, dead in ((64, True), (128, True), (129, False), (192, False), (256, False), (384, True)):
        assert dead_multicast_slice(make_problem(f"{m}x14336x3072", "bf16"), mc) is dead
    assert not dead_multicast_slice(make_problem("64x14336x3072", "bf16"), plain)
    keys, p = _keys("128x14336x3072", mc.name, clock="sustained")
    twin = predict(make_problem("128x14336x3072", "bf16"), plain, H100, clock="sustained")
    assert "multicast-dead-slice" in keys and p.tflops == pytest.approx(twin.tflops)
    keys, p = _keys("192x14336x3072", mc.name, clock="sustained")
    twin = predict(make_problem("192x14336x3072", "bf16"), plain, H100, clock="sustained")
    assert "multicast-dead-slice" not in keys and p.tflops != pytest.approx(twin.tflops)


def test_the_short_kernel_caveat_follows_the_predicted_time():
    from perfmodel.prediction.predict import predict
    hw = load_hardware("h100-sxm")
    cfg = KernelConfig.from_name("128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma")
    small = predict(make_problem("1000x1992x1016", "bf16"), cfg, hw, clock="sustained")
    big = predict(make_problem("8192x8192x8192", "bf16"), cfg, hw, clock="sustained")
    assert small.time_s < SHORT_KERNEL_S and "short-kernel" in [c.key for c in small.caveats]
    assert big.time_s > SHORT_KERNEL_S and "short-kernel" not in [c.key for c in big.caveats]


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_the_hbm_heavy_clock_figures_hold_on_the_calibration_half(gpu):
    """"a clock 3% (H100) / 4% (H200) above the predicted one on average (the others within 2%), 2% (H100) / 4% (H200)
    slower than predicted, 27 in 242 (H100) / 18 in 76 (H200) more than 10% off, from 19% faster to 47% slower"."""
    cal = _calibration(gpu)
    heavy = cal["caveats"].str.contains("hbm-heavy-clock")
    assert heavy.sum() >= (150 if gpu == "h100-sxm" else 25)
    probed = cal.dropna(subset=["meas_kernel_clock_hz"])
    err = probed["pred_clock_hz"] / probed["meas_kernel_clock_hz"].astype(float) - 1
    lo, hi = (-0.035, -0.01) if gpu == "h100-sxm" else (-0.06, -0.03)
    assert lo <= err[heavy[probed.index]].mean() <= hi
    assert abs(err[~heavy[probed.index]].mean()) <= 0.02
    _assert_figures(cal[heavy], gpu, mean=((-0.02, 0.02), (0.03, 0.07)), beyond_10=((0.05, 0.13), (0.2, 0.4)),
                    span=(-0.22, 0.48))


def test_the_hbm_heavy_clock_caveat_follows_the_power_cap_and_the_hbm():
    long_k = "64x128x64_i64x128x16_cg1_cl1x1_mc0_s9_sw128-128_wg1_acc1_pm8_etma"
    keys, p = _keys("2048x6144x49152", long_k, clock="sustained")
    assert p.details["hbm_activity"] >= HBM_HEAVY_ACTIVITY and "hbm-heavy-clock" in keys
    keys, _ = _keys("2048x6144x49152", long_k, clock="boost")          # not power-limited
    assert "hbm-heavy-clock" not in keys
    keys, p = _keys("8192x8192x8192", MC_128x256, clock="sustained")    # power-limited, HBM far from busy
    assert p.details["hbm_activity"] < HBM_HEAVY_ACTIVITY and "hbm-heavy-clock" not in keys


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_the_few_sharer_figures_hold_on_the_calibration_half(gpu):
    """"6% (H100) / 9% (H200) slower than predicted on average, 10 in 42 (H100) / 9 in 22 (H200) more than 10% off, up
    to 31% slower, where the other tiles of the same shapes are within 2% on average"."""
    cal = _calibration(gpu)
    few = cal["caveats"].str.contains("few-sharer-64-row-tiles")
    rows = cal[few]
    assert len(rows) >= (40 if gpu == "h100-sxm" else 20)
    _assert_figures(rows, gpu, mean=((0.03, 0.07), (0.06, 0.11)), beyond_10=((0.15, 0.30), (0.30, 0.50)),
                    span=(-0.12, 0.33))
    others = cal[cal["shape"].isin(rows["shape"].unique()) & ~few]
    assert len(others) >= 50 and abs(others["rel_err"].mean()) <= 0.025


def test_the_few_sharer_caveat_follows_the_tile_rows():
    """One-consumer 64-row tiles with 2-4 tile rows get it; one tile row (B private), 16 tile rows and 128-row tiles
    do not."""
    s5 = "64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma"
    assert FEW_SHARER_ROWS == (2, 4)
    for shape in ("256x4096x14336", "128x8192x3072", "160x3584x14336"):
        assert "few-sharer-64-row-tiles" in _keys(shape, s5)[0]
    for shape in ("64x16384x28672", "1024x1024x32768", "320x4096x14336"):
        assert "few-sharer-64-row-tiles" not in _keys(shape, s5)[0]
    keys, _ = _keys("256x4096x14336", "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma")
    assert "few-sharer-64-row-tiles" not in keys


@pytest.mark.parametrize("gpu", ["h100-sxm", "h200"])
def test_the_wide_k_block_figures_hold_on_the_calibration_half(gpu):
    """"10% (H100) / 7% (H200) slower than predicted at 2 stages, up to 22%, and 7% / 6% slower at 3 ...; 17 in 36
    (H100) / 9 in 34 (H200) more than 10% off, where their twins with 128-byte k-block rows at 2-3 stages are within
    0.3% (H100) / 2% (H200) on average"."""
    cal = _calibration(gpu)
    wide = cal["caveats"].str.contains("wide-k-block-shallow-ring")
    stages = pd.Series([KernelConfig.from_name(n).stages for n in cal["config_name"]], index=cal.index)
    two, three = cal[wide & (stages == 2)], cal[wide & (stages == 3)]
    assert len(two) >= 25 and len(three) >= 8
    lo, hi = (0.08, 0.12) if gpu == "h100-sxm" else (0.055, 0.095)
    assert lo <= two["rel_err"].mean() <= hi
    lo, hi = (0.06, 0.09) if gpu == "h100-sxm" else (0.045, 0.075)
    assert lo <= three["rel_err"].mean() <= hi
    assert 0.20 <= cal[wide]["rel_err"].max() <= 0.23
    share = (cal[wide]["rel_err"].abs() > 0.10).mean()
    assert (0.42 <= share <= 0.52) if gpu == "h100-sxm" else (0.22 <= share <= 0.31)
    rows128 = pd.Series([KernelConfig.from_name(n).tile_k for n in cal["config_name"]], index=cal.index) * \
        cal["dtype"].map({"bf16": 2, "e4m3": 1})
    sw128 = pd.Series([KernelConfig.from_name(n).swizzle_a.value == "128" for n in cal["config_name"]], index=cal.index)
    twins = cal[(rows128 == 128) & (stages <= WIDE_K_MAX_STAGES) & sw128]
    assert len(twins) >= 30 and abs(twins["rel_err"].mean()) <= (0.01 if gpu == "h100-sxm" else 0.03)


def test_the_wide_k_block_caveat_follows_the_row_bytes_and_the_ring():
    """256-byte k-block rows (bf16 x 128, fp8 x 256) at 2-3 stages get it; 128-byte rows, 4 stages and narrower
    swizzles do not."""
    assert (WIDE_K_ROW_BYTES, WIDE_K_MAX_STAGES) == (256, 3)
    on = [("128x256x128_i64x256x16_cg1_cl2x1_mc1_s2_sw128-128_wg2_acc1_pm8_etma", "bf16"),
          ("128x128x128_i64x128x16_cg1_cl1x1_mc0_s3_sw128-128_wg2_acc1_pm8_etma", "bf16"),
          ("128x256x256_i64x256x32_cg1_cl1x1_mc0_s2_sw128-128_wg2_acc1_pm8_etma", "fp8")]
    off = [("128x256x64_i64x256x16_cg1_cl1x1_mc0_s2_sw128-128_wg2_acc1_pm8_etma", "bf16"),
           ("128x256x128_i64x256x32_cg1_cl1x1_mc0_s2_sw128-128_wg2_acc1_pm8_etma", "fp8"),
           ("128x128x128_i64x128x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma", "bf16"),
           ("128x256x128_i64x256x16_cg1_cl1x1_mc0_s2_sw64-64_wg2_acc1_pm8_etma", "bf16")]
    for name, dtype in on:
        assert "wide-k-block-shallow-ring" in _keys("8192x8192x8192", name, dtype)[0], name
    for name, dtype in off:
        cfg = KernelConfig.from_name(name)
        keys = {c.key for c in caveats(make_problem("8192x8192x8192", dtype), cfg, H100, "tensor_core")}
        assert "wide-k-block-shallow-ring" not in keys, name
