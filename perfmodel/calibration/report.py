"""Predicted versus measured: join a measurement dataset with the model, and score the model.

Figures (all on valid kernel rows; cuBLAS rows are references, not predictions):
- APE = |pred / meas - 1| per point; MAPE, median and p90 APE; signed bias (mean of pred/meas - 1);
- Spearman's rho of predicted versus measured TFLOP/s within each (shape, dtype);
- top-k: whether the model's k best-predicted configurations hold one within 2% of the measured best.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Iterable

import pandas as pd

from ..config import KernelConfig
from ..errors import PerfmodelError, PerfmodelWarning
from ..hardware import HardwareSpec, load_hardware
from ..measure import CUBLAS, read_dataset
from ..prediction.predict import predict
from ..problem import make_problem
from ..sim.clock import ClockRegime, Regime, parse_clock, regime_for_loop
from .stats import spearman


def measured_frame(paths: Iterable[str | os.PathLike]) -> tuple[pd.DataFrame, str]:
    """Valid kernel measurements of one or more dataset files (same hardware spec) as a DataFrame."""
    rows, specs = [], set()
    for path in paths:
        header, ms = read_dataset(path)
        specs.add(header.gpu_spec)
        cublas = {(m.shape_name, m.dtype): m.tflops for m in ms if m.config_name == CUBLAS and m.valid}
        for m in ms:
            if not m.valid or m.config_name == CUBLAS or not m.tflops:
                continue
            rows.append({"config_name": m.config_name, "shape": m.shape_name, "m": m.m, "n": m.n, "k": m.k,
                         "dtype": m.dtype, "meas_tflops": m.tflops, "meas_time_s": m.time_median_s,
                         "meas_sm_clock_hz": m.sm_clock_mean_hz, "meas_kernel_clock_hz": m.kernel_clock_median_hz,
                         "cublas_tflops": cublas.get((m.shape_name, "bf16")),
                         "meas_loop_s": m.time_median_s * m.reps if m.time_median_s and m.reps else None,
                         "meas_power_w": m.power_mean_w,
                         "gpu_name": header.gpu_name, "dataset": os.path.basename(str(path))})
    if len(specs) > 1:
        raise PerfmodelError(f"datasets measured against different hardware specs: {sorted(specs)}")
    if not rows:
        raise PerfmodelError("no valid kernel measurements in the given datasets")
    # a configuration measured again in the same file (a rerun) counts once; in another file (another session,
    # another loop length) it is another measurement
    frame = pd.DataFrame(rows).drop_duplicates(["config_name", "shape", "dtype", "dataset"], keep="last")
    return frame.reset_index(drop=True), specs.pop()


def row_regime(row, clock: ClockRegime) -> tuple[ClockRegime, str]:
    """The clock one measured row is predicted at, and why: ``auto`` (the default) takes the regime of the
    row's timed loop (sim/clock.py: regime_for_loop); ``measured`` its in-kernel clock (the median of the timed
    loop's sampled launches, clock64 / %globaltimer of block 0: basis ``measured (in-kernel)``) where the row has
    one, else its NVML mean SM clock (which under load reads above the kernel's), or, for a row with neither,
    its loop's regime (basis ``auto (no measured clock)``); anything else is used as given."""
    loop = getattr(row, "meas_loop_s", None)
    loop = None if loop is None or loop != loop else loop
    if clock.regime is Regime.MEASURED:
        hz = getattr(row, "meas_kernel_clock_hz", None)
        if hz and hz == hz:
            return ClockRegime(Regime.FIXED, float(hz)), "measured (in-kernel)"
        hz = getattr(row, "meas_sm_clock_hz", None)
        if hz and hz == hz:
            return ClockRegime(Regime.FIXED, float(hz)), "measured"
        r = regime_for_loop(loop)
        return r, f"{r.name} (no measured clock)"
    if clock.regime is Regime.AUTO:
        r = regime_for_loop(loop)
        return r, r.name
    return clock, clock.name


def add_predictions(frame: pd.DataFrame, hw: HardwareSpec, *, clock="auto") -> pd.DataFrame:
    """Predict every row in the clock regime ``clock``: ``auto`` (default; each row's timed-loop regime),
    ``measured`` (each row's measured SM clock), ``boost``, ``sustained`` or MHz (sim/clock.py).
    Adds pred_tflops, pred_bottleneck, pred_clock_hz, clock_basis (the regime each row was predicted in),
    caveats (the keys of the prediction's caveats, comma-separated) and rel_err."""
    regime = parse_clock(clock, allow_measured=True)
    preds, bottlenecks, clocks, basis, unpredicted, notes = [], [], [], [], [], []
    for row in frame.itertuples():
        r, why = row_regime(row, regime)
        try:
            problem = make_problem((row.m, row.n, row.k), row.dtype)
            p = predict(problem, KernelConfig.from_name(row.config_name), hw, clock=r)
            preds.append(p.tflops)
            bottlenecks.append(p.bottleneck.value)
            clocks.append(p.clock_hz)
            notes.append(",".join(c.key for c in p.caveats))
        except PerfmodelError as exc:
            preds.append(float("nan"))
            bottlenecks.append("illegal")
            clocks.append(float("nan"))
            notes.append("")
            unpredicted.append((row.config_name, row.shape, row.dtype, " ".join(str(exc).split())))
        basis.append(why)
    if unpredicted:     # stated, not dropped in silence (a mistyped configuration name, a shape the GPU refuses)
        name, shape, dtype, why = unpredicted[0]
        warnings.warn(f"{len(unpredicted)} of {len(frame)} rows cannot be predicted on {hw.name} and are left out "
                      f"(first: {name} {shape} {dtype}: {why[:160]})", PerfmodelWarning, stacklevel=2)
    out = frame.copy()
    out["pred_tflops"] = preds
    out["pred_bottleneck"] = bottlenecks
    out["pred_clock_hz"] = clocks
    out["clock_basis"] = basis
    out["caveats"] = notes            # prediction/caveats.py keys, comma-separated ("": none)
    out["rel_err"] = out["pred_tflops"] / out["meas_tflops"] - 1.0
    return out


@dataclass(frozen=True)
class Accuracy:
    points: int
    mape: float
    median_ape: float
    p90_ape: float
    bias: float
    spearman_median: float
    topk_hit_fraction: float
    shapes: int
    worst_bias: float = float("nan")     # the (shape, dtype) mean signed error largest in magnitude
    worst_bias_shape: str = ""
    within_10pct: int = 0                # points predicted within 10% (issue 8's per-point goal for the smoke files)

    def lines(self, label: str = "") -> list[str]:
        return [f"{label}points {self.points}, shapes {self.shapes}",
                f"{label}MAPE {self.mape:.1%}  median APE {self.median_ape:.1%}  p90 APE {self.p90_ape:.1%}  "
                f"bias {self.bias:+.1%}  within 10%: {self.within_10pct}/{self.points}",
                f"{label}Spearman per shape (median) {self.spearman_median:.2f}  "
                f"top-8 within 2% of measured best: {self.topk_hit_fraction:.0%} of shapes",
                f"{label}worst |bias| of a shape: {self.worst_bias:+.1%} ({self.worst_bias_shape})"]


def per_shape(df: pd.DataFrame, k: int = 8, within: float = 0.02) -> pd.DataFrame:
    rows = []
    for (shape, dtype), g in df.dropna(subset=["pred_tflops"]).groupby(["shape", "dtype"]):
        best = g["meas_tflops"].max()
        top = g.nlargest(k, "pred_tflops")["meas_tflops"].max()
        rho = spearman(g["pred_tflops"], g["meas_tflops"]) if len(g) >= 3 else float("nan")
        ape = (g["rel_err"].abs())
        rows.append({"shape": shape, "dtype": dtype, "n": len(g), "mape": ape.mean(), "bias": g["rel_err"].mean(),
                     "spearman": rho, "meas_best": best, "pred_best": g["pred_tflops"].max(),
                     "topk_best": top, "topk_hit": top >= (1 - within) * best,
                     "cublas_tflops": g["cublas_tflops"].iloc[0]})
    return pd.DataFrame(rows)


def accuracy(df: pd.DataFrame) -> Accuracy:
    ok = df.dropna(subset=["pred_tflops"])
    ape = ok["rel_err"].abs()
    shapes = per_shape(ok)
    worst = shapes.loc[shapes["bias"].abs().idxmax()] if len(shapes) else None
    return Accuracy(points=len(ok), mape=float(ape.mean()), median_ape=float(ape.median()),
                    p90_ape=float(ape.quantile(0.9)), bias=float(ok["rel_err"].mean()),
                    spearman_median=float(shapes["spearman"].median()) if len(shapes) else float("nan"),
                    topk_hit_fraction=float(shapes["topk_hit"].mean()) if len(shapes) else float("nan"),
                    shapes=len(shapes), worst_bias=float(worst["bias"]) if worst is not None else float("nan"),
                    worst_bias_shape=f"{worst['shape']} {worst['dtype']}" if worst is not None else "",
                    within_10pct=int((ape <= 0.10).sum()))


def compare(paths: Iterable[str | os.PathLike], gpu: str | None = None, *, clock="auto"
            ) -> tuple[pd.DataFrame, HardwareSpec]:
    frame, spec = measured_frame(paths)
    hw = load_hardware(gpu or spec)
    return add_predictions(frame, hw, clock=clock), hw


__all__ = ["Accuracy", "accuracy", "add_predictions", "compare", "measured_frame", "per_shape", "plot_pred_vs_measured",
           "row_regime"]


def plot_pred_vs_measured(df: pd.DataFrame, path: str | os.PathLike, *, title: str = "") -> None:
    """Scatter of predicted versus measured TFLOP/s (one colour per dtype, the y = x line, +-10% band)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = df.dropna(subset=["pred_tflops"])
    fig, ax = plt.subplots(figsize=(6, 6))
    for dtype, g in ok.groupby("dtype"):
        ax.scatter(g["meas_tflops"], g["pred_tflops"], s=12, alpha=0.7, label=dtype)
    hi = float(max(ok["meas_tflops"].max(), ok["pred_tflops"].max())) * 1.05
    ax.plot([0, hi], [0, hi], "k-", lw=1, label="y = x")
    ax.fill_between([0, hi], [0, 0.9 * hi], [0, 1.1 * hi], color="grey", alpha=0.15, label="+-10%")
    ax.set(xlim=(0, hi), ylim=(0, hi), xlabel="measured TFLOP/s", ylabel="predicted TFLOP/s",
           title=title or "perfmodel: predicted vs measured")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
