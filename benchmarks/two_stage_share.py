"""2-stage rings against their SM's share of the L2 (issue 8, the thirty-third session): the 8192^3 bf16 rows of
h100_calib48 and h100_calib47 at 2-3 stages without clusters, each at its in-kernel clock: the model's cycles a k-block
that the stage's bytes take at the SM's share of the L2 data path and of its tag pipeline, and the cycles a k-block
measured and predicted (calibration half).

The last column (the thirty-fourth session) is what a closed queueing network gives for the same ring: every SM keeps
its stages - 1 loads in flight (our consumers free a stage only once the next has landed), each load visits the L2's
data path and its tag pipeline as two chip-wide queues (a visit's demand: its share / the SMs) and otherwise waits out
a fixed delay (the model's TMA latency, the stage's bytes at the SM's own TMA rate, two barrier waits and the stage's
issue); exact mean value analysis over 132 SMs. It lets the other SMs' loads hide one SM's latency, which the model's
token bucket does not; nothing in it is fitted.

The --gpus table (the thirty-fourth session): the same rings at 8192^3 from h100_calib47 and h200_calib47 (the same
sweep on both GPUs), cycles a k-block at each row's kernel clock, measured and predicted, and the H200's over the
H100's: the two GPUs share the GH100 die and differ in L2 bandwidth (the H200's is 13% higher in our microbenchmarks,
with its efficiency) and HBM.

    python3 benchmarks/two_stage_share.py
    python3 benchmarks/two_stage_share.py --gpus
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perfmodel import load_hardware, make_problem  # noqa: E402
from perfmodel.calibration.report import measured_frame  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.families import get_family  # noqa: E402
from perfmodel.prediction.predict import predict  # noqa: E402
from perfmodel.sim.params import build_inputs  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data" / "measurements"
FILES = ("h100_calib48.jsonl", "h100_calib47.jsonl")


def mva_cycle(customers: int, demands: tuple[float, ...], delay: float) -> float:
    """Exact single-class mean value analysis of a closed network: ``customers`` circulating through queueing stations
    with the given demands (cycles a visit) and a pure delay; returns one customer's cycle time."""
    queues = [0.0] * len(demands)
    cycle = delay + sum(demands)
    for n in range(1, customers + 1):
        resid = [d * (1.0 + q) for d, q in zip(demands, queues)]
        cycle = delay + sum(resid)
        queues = [n / cycle * r for r in resid]
    return cycle


def shallow_rings(name: str, hw):
    """The 8192^3 bf16 rows of a dataset at 2-3 stages without clusters: (its configuration, problem, kernel clock,
    cycles a k-block measured and predicted at that clock)."""
    for r in measured_frame([DATA / name])[0].itertuples():
        cfg = KernelConfig.from_name(r.config_name)
        if (r.m, r.n, r.k) != (8192, 8192, 8192) or r.dtype != "bf16" or cfg.stages > 3 or cfg.cluster_size > 1:
            continue
        clk, p = r.meas_kernel_clock_hz, make_problem((r.m, r.n, r.k), r.dtype)
        kblocks = 8192 * 8192 / (cfg.tile_m * cfg.tile_n) / hw.sm_count * 8192 / cfg.tile_k
        yield (cfg, p, clk, r.meas_time_s * clk / kblocks, predict(p, cfg, hw, clock_hz=clk).time_s * clk / kblocks)


def rows() -> list[tuple]:
    """(tile, stages, swizzle, file, L2 share cycles, tag share cycles, measured, predicted, closed-network cycles a
    k-block)."""
    hw, fam, out = load_hardware("h100-sxm"), get_family(None), []
    for name in FILES:
        for cfg, p, clk, meas, pred in shallow_rings(name, hw):
            sp = build_inputs(p, cfg, hw, clk, fam, 0.0).params
            l2 = sp.l2_bytes_per_stage / sp.l2_bytes_per_clock
            tags = sp.tag_cycles_per_stage
            delay = (sp.tma_latency_cycles + sp.stage_smem_bytes / sp.tma_bytes_per_clock + 2 * sp.wait_cycles
                     + sp.tma_issue_cycles)
            inflight = cfg.stages - 1
            closed = mva_cycle(hw.sm_count * inflight, (l2 / hw.sm_count, tags / hw.sm_count), delay) / inflight
            mma = sp.instr_per_stage * sp.instr_math_cycles
            out.append((f"{cfg.tile_m}x{cfg.tile_n}x{cfg.tile_k}", cfg.stages, cfg.swizzle_a.value, name, l2, tags,
                        meas, pred, max(closed, mma)))
    return sorted(set(out))


def per_gpu_rows() -> list[tuple]:
    """(tile, stages, swizzle, H100 measured, H100 predicted, H200 measured, H200 predicted cycles a k-block at each
    row's kernel clock) for the 8192^3 bf16 rings of the calib47 sweep at 2-3 stages without clusters on both GPUs."""
    got: dict = {}
    for gpu, name in (("h100-sxm", "h100_calib47.jsonl"), ("h200", "h200_calib47.jsonl")):
        for cfg, _, _, meas, pred in shallow_rings(name, load_hardware(gpu)):
            key = (f"{cfg.tile_m}x{cfg.tile_n}x{cfg.tile_k}", cfg.stages, cfg.swizzle_a.value)
            got.setdefault(key, {})[gpu] = (meas, pred)
    return sorted(k + v["h100-sxm"] + v["h200"] for k, v in got.items() if len(v) == 2)


def main() -> int:
    warnings.simplefilter("ignore")
    if "--gpus" in sys.argv[1:]:
        print("| ring | H100 measured / model | H200 measured / model | H200 / H100 cycles: measured, model |")
        print("| --- | --- | --- | --- |")
        for tile, st, sw, m1, p1, m2, p2 in per_gpu_rows():
            print(f"| {tile} s{st}, {sw}-byte swizzle | {m1:.0f} / {p1:.0f} | {m2:.0f} / {p2:.0f} | {m2 / m1:.3f}, "
                  f"{p2 / p1:.3f} |")
        return 0
    print("| ring | file | share: L2 / tags | measured | model | closed network |")
    print("| --- | --- | --- | --- | --- | --- |")
    for tile, st, sw, name, l2, tags, meas, pred, closed in rows():
        print(f"| {tile} s{st}, {sw}-byte swizzle | {name} | {l2:.0f} / {tags:.0f} | {meas:.0f} | {pred:.0f} "
              f"({pred / meas - 1:+.0%}) | {closed:.0f} ({closed / meas - 1:+.0%}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
