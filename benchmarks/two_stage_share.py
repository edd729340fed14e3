"""2-stage rings against their SM's share of the L2 (issue 8, the thirty-third session): the 8192^3 bf16 rows of
h100_calib48 and h100_calib47 at 2-3 stages without clusters, each at its in-kernel clock: the model's cycles a k-block
that the stage's bytes take at the SM's share of the L2 data path and of its tag pipeline, and the cycles a k-block
measured and predicted (calibration half).

    python3 benchmarks/two_stage_share.py
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


def rows() -> list[tuple]:
    """(tile, stages, swizzle, file, L2 share cycles, tag share cycles, measured, predicted cycles a k-block)."""
    hw, fam, out = load_hardware("h100-sxm"), get_family(None), []
    for name in FILES:
        for r in measured_frame([DATA / name])[0].itertuples():
            cfg = KernelConfig.from_name(r.config_name)
            if (r.m, r.n, r.k) != (8192, 8192, 8192) or r.dtype != "bf16" or cfg.stages > 3 or cfg.cluster_size > 1:
                continue
            clk, p = r.meas_kernel_clock_hz, make_problem((r.m, r.n, r.k), r.dtype)
            sp = build_inputs(p, cfg, hw, clk, fam, 0.0).params
            tags = sp.l2_tag_lookups_per_stage / sp.l2_tag_lookups_per_clock if sp.l2_tag_lookups_per_clock else 0.0
            kblocks = 8192 * 8192 / (cfg.tile_m * cfg.tile_n) / hw.sm_count * 8192 / cfg.tile_k
            out.append((f"{cfg.tile_m}x{cfg.tile_n}x{cfg.tile_k}", cfg.stages, cfg.swizzle_a.value, name,
                        sp.l2_bytes_per_stage / sp.l2_bytes_per_clock, tags, r.meas_time_s * clk / kblocks,
                        predict(p, cfg, hw, clock_hz=clk).time_s * clk / kblocks))
    return sorted(set(out))


def main() -> int:
    warnings.simplefilter("ignore")
    print("| ring | file | share: L2 / tags | measured | model |")
    print("| --- | --- | --- | --- | --- |")
    for tile, st, sw, name, l2, tags, meas, pred in rows():
        print(f"| {tile} s{st}, {sw}-byte swizzle | {name} | {l2:.0f} / {tags:.0f} | {meas:.0f} | {pred:.0f} "
              f"({pred / meas - 1:+.0%}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
