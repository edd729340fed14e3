"""The forty-sixth held-out set in the sustained regime against its 100 ms loops (issue 8, the thirty-third session):
per file, its loops, the error at clock auto (MAPE, p90, bias), at each row's in-kernel clock, and the predicted clock
against the kernel's own (median, mean absolute). Held-out files, read once when they were measured (docs/calibrate.md).

    python3 benchmarks/steady_vs_short.py
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perfmodel.calibration.report import accuracy, add_predictions, measured_frame  # noqa: E402
from perfmodel.hardware import load_hardware  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data" / "measurements"
FILES = (("h100_heldout46_steady", "h100-sxm"), ("h200_heldout46_steady", "h200"), ("h100_heldout46_r33", "h100-sxm"),
         ("h100_heldout46", "h100-sxm"), ("h200_heldout46", "h200"))


def main() -> int:
    warnings.simplefilter("ignore")
    print("| file | loops (s) | clock auto: MAPE, p90, bias | at the kernel's clock: MAPE, bias | "
          "predicted clock vs the kernel's: median, MAPE |")
    print("| --- | --- | --- | --- | --- |")
    for name, spec in FILES:
        frame = measured_frame([DATA / f"{name}.jsonl"])[0].reset_index(drop=True)
        hw = load_hardware(spec)
        auto = add_predictions(frame, hw, clock="auto").dropna(subset=["pred_tflops"])
        kern = add_predictions(frame, hw, clock="measured").dropna(subset=["pred_tflops"])
        a, k = accuracy(auto), accuracy(kern)
        clk = auto["pred_clock_hz"] / auto["meas_kernel_clock_hz"].astype(float) - 1
        loops = auto["meas_loop_s"]
        print(f"| {name} | {loops.min():.2f}-{loops.max():.2f} | {a.mape:.2%}, {a.p90_ape:.1%}, {a.bias:+.1%} | "
              f"{k.mape:.2%}, {k.bias:+.1%} | {clk.median():+.1%}, {clk.abs().mean():.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
