"""The model's board power beside the measured watts: each row of a dataset timed in long loops, predicted at its
in-kernel clock, with the power law's terms (sim/power.py) at that clock.

    python3 benchmarks/power_decomposition.py [--gpu h100-sxm] [FILE.jsonl ...]   # default data/measurements/<gpu>_power_probe.jsonl

NVML's power is a one-second average, so only loops of half a second or more are printed (shorter ones read the idle
time around them). A kernel at the cap measures ~700 W whatever it does; the model's total at the kernel's own clock
should then be the cap too: the gap is what the power law over- or under-counts for that mix of activities.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _cli import hardware_or_none  # noqa: E402
from perfmodel import make_problem  # noqa: E402
from perfmodel.calibration.fit import GEMM_POWER_LOOP_S  # noqa: E402
from perfmodel.config import KernelConfig  # noqa: E402
from perfmodel.prediction.predict import activity_at  # noqa: E402
from perfmodel.sim.power import power_terms  # noqa: E402

def terms(row: dict, hw) -> dict | None:
    """The power law's terms in W at the row's in-kernel clock (static, tensor, L2, HBM) and the activities; None for a
    row without an in-kernel clock, NVML power or a loop of GEMM_POWER_LOOP_S."""
    clk, watts = row.get("kernel_clock_median_hz"), row.get("power_mean_w")
    loop = (row.get("reps") or 0) * (row.get("time_median_s") or 0)
    if not clk or not watts or loop < GEMM_POWER_LOOP_S or row.get("error"):
        return None
    p = make_problem(f"{row['m']}x{row['n']}x{row['k']}", row["dtype"])
    cfg = KernelConfig.from_name(row["config_name"])
    act, pred = activity_at(p, cfg, hw, clk)
    d = pred.details
    out = {k: v * hw.gpu.tdp_w for k, v in power_terms(act, clk, p, hw).items()}
    return {**out, "model": sum(out.values()), "measured": watts, "clock_hz": clk, "loop_s": loop,
            "tflops": row["tflops"], "pred_tflops": pred.tflops, "u_tensor": d["tensor_activity"],
            "u_l2": d["l2_activity"], "u_hbm": d["hbm_activity"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", default="h100-sxm")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    hw = hardware_or_none(args.gpu, "power_decomposition")
    if hw is None:
        return 2
    files = [pathlib.Path(f) for f in args.files] or [ROOT / f"data/measurements/{args.gpu.split('-')[0]}_power_probe.jsonl"]
    print(f"{'shape':>17} {'dtype':5} {'config':24} {'loop':>5} {'clock':>6} {'meas W':>7} {'model W':>8} = "
          f"{'static':>6} {'tensor':>6} {'L2':>5} {'HBM':>5}   u: tensor  L2  HBM")
    for f in files:
        try:
            lines = f.read_text().splitlines()
        except OSError as exc:
            print(f"power_decomposition: {f}: {exc.strerror}", file=sys.stderr)
            return 2
        for line in lines:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if row.get("config_name") in (None, "cublas"):
                continue
            t = terms(row, hw)
            if t is None:
                continue
            print(f"{row['m']:>5}x{row['n']:>5}x{row['k']:>5} {row['dtype']:5} {row['config_name'][:24]:24} "
                  f"{t['loop_s']:4.1f}s {t['clock_hz'] / 1e6:5.0f}M {t['measured']:6.0f}W {t['model']:7.0f}W = "
                  f"{t['static']:6.0f} {t['tensor']:6.0f} {t['l2']:5.0f} {t['hbm']:5.0f}   "
                  f"{t['u_tensor']:.2f} {t['u_l2']:.2f} {t['u_hbm']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
