"""The GPCs' pool of in-flight TMA loads (gpu.gpc_inflight_bytes) and where a grid's CTAs land
(HardwareSpec.busiest_gpc_sms): the placement law reproduces the measured grids, the pool's value is what the
committed microbenchmark gives, and the pool slows grids that crowd one GPC but leaves full-chip grids alone."""
import json
import pathlib

import pytest

from perfmodel.config import KernelConfig
from perfmodel.hardware import load_hardware
from perfmodel.microbench.derive import gpc_inflight_bytes
from perfmodel.prediction.predict import predict
from perfmodel.problem import make_problem

ROOT = pathlib.Path(__file__).resolve().parent.parent
H100 = load_hardware("h100-sxm")
PROBES = ["h100-80gb-hbm3-2026-11-25-gpc-probe.json", "h100-80gb-hbm3-2026-11-25-gpc-probe-second.json",
          "h100-80gb-hbm3-2026-11-25-gpc-probe-third.json"]
SKINNY = "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma"
WIDE = "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"


def _records(names=PROBES) -> list[dict]:
    out = []
    for name in names:
        out += json.loads((ROOT / "data/microbench" / name).read_text())["records"]
    return out


def _gpc_of_sm(records: list[dict]) -> dict[int, int]:
    """GPC of every SM from one probe: the clusters of 16 give seven GPCs; the SMs left over are GPC 0's, but the
    two TPCs (120-123) that the grid of 132 CTAs takes right after SMs of an 18-SM GPC belong to that one."""
    groups = next(r for r in records if r["bench"] == "gpc_clusters" and r["cluster"] == 16)["groups"]
    gpc = {int(s): i + 1 for i, g in enumerate(groups.split(";")) for s in g.split(",")}
    order = [int(s) for s in next(r for r in records if r["bench"] == "gpc_smid_order" and r["ctas"] == 132)
             ["smids"].split(",")]
    for i, sm in enumerate(order):
        if sm not in gpc:
            gpc[sm] = gpc[order[i - 1]] if 120 <= sm < 124 else 0
    return gpc


def _busiest(sms, gpc: dict[int, int]) -> int:
    """CTAs of the most crowded GPC among SMs ``sms`` (one CTA each), with the GPC map ``gpc``."""
    counts: dict[int, int] = {}
    for sm in sms:
        counts[gpc[int(sm)]] = counts.get(gpc[int(sm)], 0) + 1
    return max(counts.values())


def _check_cta_spread(path: str, hw, gpc: dict[int, int]) -> tuple[int, set]:
    """Every probed launch of a --cta-probe file crowds its busiest GPC as the cluster-launch law says; returns the
    number of launches and the grid sizes seen."""
    runs = [json.loads(line) for line in (ROOT / "data/microbench" / path).read_text().splitlines()]
    assert len(runs) == 18
    launches, sizes = 0, set()
    for run in runs:
        cluster = KernelConfig.from_name(run["config_name"]).cluster_size
        for launch in run["cta_probe"]:
            assert hw.busiest_gpc_sms(len(launch), cluster, cluster_launch=True) == _busiest(
                [cta[0] for cta in launch], gpc), run["shape"]
            launches += 1
            sizes.add(len(launch))
    return launches, sizes


def test_the_placement_law_gives_the_measured_busiest_gpc():
    gpc = _gpc_of_sm(_records(PROBES[:1]))
    assert sorted(list(gpc.values()).count(g) for g in set(gpc.values())) == [16] * 6 + [18] * 2
    grids = [r for r in _records() if r["bench"] == "gpc_smid_order"]      # three cards
    assert len(grids) == 21
    for r in grids:
        counts: dict[int, int] = {}
        for sm in r["smids"].split(","):
            counts[gpc[int(sm)]] = counts.get(gpc[int(sm)], 0) + 1
        assert H100.busiest_gpc_sms(r["ctas"]) == max(counts.values()), r["ctas"]
    assert load_hardware("b200").busiest_gpc_sms(64) == 0      # not measured there: not modelled


def test_the_placement_law_gives_the_measured_cluster_grids_on_the_h200():
    """Plain grids on an H200 land as on the H100; clusters of 2 and 4 follow the law's cluster rule."""
    gpc = _gpc_of_sm(_records(PROBES[:1]))
    grids = [r for r in json.loads((ROOT / "data/microbench/h200-2026-11-25-gpc-probe.json").read_text())["records"]
             if r["bench"] == "gpc_smid_order"]
    assert {r.get("cluster", 1) for r in grids} == {1, 2, 4} and len(grids) == 22
    for r in grids:
        counts: dict[int, int] = {}
        for sm in r["smids"].split(","):
            counts[gpc[int(sm)]] = counts.get(gpc[int(sm)], 0) + 1
        assert load_hardware("h200").busiest_gpc_sms(r["ctas"], r.get("cluster", 1)) == max(counts.values()), r


def test_the_pool_is_what_the_microbenchmark_gives():
    got = gpc_inflight_bytes(_records(), H100.tma.latency_cycles, H100.tma.hbm_miss_latency_cycles)
    assert got is not None and got[1] >= 6
    assert got[0] == pytest.approx(H100.gpu.gpc_inflight_bytes, rel=0.01)
    h200 = load_hardware("h200")                 # its own probe, at its own latencies
    got = gpc_inflight_bytes(json.loads((ROOT / "data/microbench/h200-2026-11-25-gpc-probe.json").read_text())
                             ["records"], h200.tma.latency_cycles, h200.tma.hbm_miss_latency_cycles)
    assert got is not None and got[0] == pytest.approx(h200.gpu.gpc_inflight_bytes, rel=0.01)


def _tflops(shape: str, name: str, hw) -> float:
    return predict(make_problem(shape, "bf16"), KernelConfig.from_name(name), hw, clock="boost").tflops


def test_the_pool_slows_crowded_grids_only():
    unbounded = H100.with_values(**{"gpu.gpc_inflight_bytes": 1e9})
    # 64 CTAs: 12 on the busiest GPC, each with 6 stages of 32 KB whose B boxes and out-of-bounds A rows wait
    # as long as an HBM miss
    assert _tflops("64x8192x28672", SKINNY, H100) < 0.97 * _tflops("64x8192x28672", SKINNY, unbounded)
    # 8 CTAs: all on one GPC, but their MMAs bound them
    assert _tflops("64x1024x28672", SKINNY, H100) == pytest.approx(_tflops("64x1024x28672", SKINNY, unbounded),
                                                                   rel=0.01)
    # the whole chip: L2 hits return fast, so 18 SMs' share of the pool holds their rings
    assert _tflops("8192x8192x8192", WIDE, H100) == pytest.approx(_tflops("8192x8192x8192", WIDE, unbounded),
                                                                  rel=0.002)


def test_calibrate_microbench_derives_the_pool():
    """`perfmodel calibrate --microbench` writes gpu.gpc_inflight_bytes from a run's GPC probe, read at the hardware
    file's TMA latencies; without them (or without probe records) it writes nothing for it."""
    from perfmodel.microbench.derive import derive_updates
    doc = {"records": _records(PROBES[2:])}
    lat = (H100.tma.latency_cycles, H100.tma.hbm_miss_latency_cycles)
    pool = [u for u in derive_updates(doc, 3.35e12, 0.886, None, lat) if u.key == "gpu.gpc_inflight_bytes"]
    assert len(pool) == 1 and pool[0].value == pytest.approx(H100.gpu.gpc_inflight_bytes, rel=0.01)
    assert not [u for u in derive_updates(doc, 3.35e12, 0.886, None, None) if u.key.startswith("gpu.gpc")]
    assert not [u for u in derive_updates({"records": []}, 3.35e12, 0.886, None, lat) if u.key.startswith("gpu.gpc")]


def test_the_pool_does_not_make_the_l2_look_busier():
    """A crowded GPC moves fewer bytes: the L2's activity (its power, so the power-limited clock) counts the bytes
    moved against the chip's L2 bandwidth, not against the pool's smaller limit on this SM's share."""
    from perfmodel.sim.params import build_inputs
    problem, cfg = make_problem("64x8192x28672", "bf16"), KernelConfig.from_name(SKINNY)
    p = build_inputs(problem, cfg, H100, 1.98e9).params
    assert p.l2_share_gpc_bound and p.l2_bytes_per_clock < 0.8 * p.l2_chip_bytes_per_clock
    assert p.l2_power_bytes_per_clock == p.l2_chip_bytes_per_clock
    pred = predict(problem, cfg, H100, clock_hz=1.98e9)
    moved = pred.details["l2_activity"] * pred.cycles * p.l2_chip_bytes_per_clock * 64
    assert moved == pytest.approx(p.l2_moved_bytes_per_stage * 64 * p.k_iters, rel=0.01)
    # without the pool binding, the same law as before: the share is the chip's
    wide = build_inputs(make_problem("8192x8192x8192", "bf16"), KernelConfig.from_name(WIDE), H100, 1.6e9).params
    assert not wide.l2_share_gpc_bound and wide.l2_power_bytes_per_clock == wide.l2_bytes_per_clock


def test_a_second_h200_card_numbers_its_sms_otherwise_but_follows_the_same_law():
    """Another H200 (card 1653724064278): 15 of its 22 grids land on other SM numbers than the first card's, but with
    the GPCs of its own clusters of 16 the busiest GPC of every grid is the law's, and its pool is the same (792 KB
    against 797 KB)."""
    first, second = (json.loads((ROOT / "data/microbench" / f).read_text())["records"]
                     for f in ("h200-2026-11-25-gpc-probe.json", "h200-2026-11-25-gpc-probe-second.json"))
    grids = [r for r in second if r["bench"] == "gpc_smid_order"]
    assert len(grids) == 22
    assert sum(a["smids"] != b["smids"] for a, b in zip(
        [r for r in first if r["bench"] == "gpc_smid_order"], grids)) >= 10
    gpc = _gpc_of_sm(second)
    assert sorted(list(gpc.values()).count(g) for g in set(gpc.values())) == [16] * 6 + [18] * 2
    h200 = load_hardware("h200")
    for r in grids:
        counts: dict[int, int] = {}
        for sm in r["smids"].split(","):
            counts[gpc[int(sm)]] = counts.get(gpc[int(sm)], 0) + 1
        assert h200.busiest_gpc_sms(r["ctas"], r.get("cluster", 1)) == max(counts.values()), r
    pool, _ = gpc_inflight_bytes(second, h200.tma.latency_cycles, h200.tma.hbm_miss_latency_cycles)
    assert pool == pytest.approx(h200.gpu.gpc_inflight_bytes, rel=0.02)


def test_our_kernels_cluster_launches_land_by_tpc_rows():
    """Our GEMM launches through the cluster API (a cluster dimension of 1 included): its own CTAs' %smid (harness
    --cta-probe, 18 grids of 16-128 CTAs, data/microbench/h100-80gb-hbm3-2026-11-26-cta-spread.jsonl) crowd GPC 0
    as the row law says, and more than plain grids do at 48-80 CTAs."""
    gpc = _gpc_of_sm(_records(PROBES[:1]))
    launches, seen = _check_cta_spread("h100-80gb-hbm3-2026-11-26-cta-spread.jsonl", H100, gpc)
    assert launches == 144
    assert {48, 64, 80} <= seen
    assert [H100.busiest_gpc_sms(n, 1, cluster_launch=True) for n in (48, 64, 80)] == [13, 15, 16]
    assert [H100.busiest_gpc_sms(n) for n in (48, 64, 80)] == [12, 12, 14]        # plain grids (mb_tma --gpc-probe)
    cfg = KernelConfig.from_name(SKINNY)
    from perfmodel.sim.params import build_inputs
    assert build_inputs(make_problem("64x8192x28672", "bf16"), cfg, H100, 1.83e9).params.gpc_crowd_sms == 15


def test_the_pool_holds_zero_fill_longer_under_hbm_load_and_not_the_misses():
    """tma.pool_queue_share: a crowded GPC's zero-filled bytes hold the pool part of the loaded HBM queueing longer, so a
    skinny grid that crowds GPC 0 with half its A box beyond the matrix edge (128x128 at M = 64) is slower than with
    unloaded holds; its misses do not (mb_tma --gpc-load, data/ncu/gpc_load_h100: a crowded GPC's all-miss rings get
    their SMs' fair share of a saturated HBM), so the 64x256 tile at M = 64 (no zero fill, every B byte a miss) is
    unchanged, and so is a full-chip grid, where the pool does not bind; the share's absence means unloaded holds."""
    assert 0.0 < H100.tma.pool_queue_share <= 1.0
    unloaded = H100.with_values(**{"tma.pool_queue_share": 0.0})
    skinny = make_problem("64x8192x28672", "bf16"), KernelConfig.from_name(SKINNY)
    all_miss = make_problem("64x8192x28672", "bf16"), KernelConfig.from_name(
        "64x256x64_i64x256x16_cg1_cl1x1_mc0_s5_sw128-128_wg1_acc1_pm8_etma")
    full = make_problem("8192x8192x8192", "bf16"), KernelConfig.from_name(WIDE)
    slow = predict(*skinny, H100, clock="1830").tflops
    fast = predict(*skinny, unloaded, clock="1830").tflops
    assert slow < 0.9 * fast
    for case in (all_miss, full):
        assert predict(*case, H100, clock="1830").tflops == pytest.approx(
            predict(*case, unloaded, clock="1830").tflops, rel=1e-9)


def test_our_kernels_cluster_launches_land_by_tpc_rows_on_the_h200():
    """The same 18 runs on an H200 (card 1653724050019), with that card's own GPC map from mb_tma --gpc-probe run right
    before them: every one of the 144 launches crowds GPC 0 as the row law says."""
    gpc = _gpc_of_sm(json.loads((ROOT / "data/microbench/h200-2026-11-26-gpc-probe-third.json").read_text())["records"])
    launches, _ = _check_cta_spread("h200-2026-11-26-cta-spread.jsonl", load_hardware("h200"), gpc)
    assert launches == 144
    assert json.loads((ROOT / "data/microbench/h200-2026-11-26-cta-spread.jsonl").read_text().splitlines()[0])[
        "gpu"]["name"] == "NVIDIA H200"
