"""Fit a small set of named physical parameters of a HardwareSpec to a measured dataset.

The design rule (design.md, "Honest parameters"): calibration fits a few NAMED parameters of the
hardware file, on a CALIBRATION split of the dataset's shapes, and accuracy is reported on shapes the
fit never saw. No per-configuration factor exists anywhere and the predictor never looks a measurement
up: a fitted value is just another hardware value, written to the TOML with its provenance.

- Split (fixed, by shape; both dtypes of a shape fall on the same side): ``CALIBRATION_SHAPES`` holds one
  shape of each kind the dataset has (large square, small square, short-K wide, skinny-M, K-heavy with
  fewer tiles than SMs); ``HELD_OUT`` is the rest (medium square, rectangular deep-K, short-K square,
  very skinny). Every knob the sweep varies (swizzle, clusters and multicast, consumers, stages,
  epilogue, raster and group) appears on both sides.
- Loss: mean |log(pred / meas)| over the calibration points (symmetric in over/under-prediction).
- Search: bounded coordinate descent, one parameter at a time by golden-section search on its
  interval (log-spaced for scale parameters), a few rounds. Deterministic, numpy-free, no new
  dependency. Parameters may only be fitted when their current source in the hardware file says
  "estimate", "calibrated" or "fit:" (measured values are never overwritten).
"""
from __future__ import annotations

import dataclasses
import datetime
import math
import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import pandas as pd

from ..errors import PerfmodelError
from ..hardware import HardwareSpec
from .report import accuracy, add_predictions, measured_frame

CALIBRATION_SHAPES = ("8192x8192x8192", "2048x2048x2048", "4096x16384x2048", "256x8192x8192", "1024x1024x32768")
HELD_OUT_SHAPES = ("4096x4096x4096", "6144x4096x8192", "8192x8192x1024", "128x4096x16384")
FITTABLE_SOURCE_WORDS = ("estimate", "calibrated", "fit:")


class CalibrationError(PerfmodelError):
    """Nothing to fit, a parameter that may not be fitted, or an empty split."""


@dataclass(frozen=True)
class Parameter:
    """One fitted hardware value: dotted key, closed search interval, log-spaced or linear search."""
    key: str
    lo: float
    hi: float
    log: bool = False
    why: str = ""


# The sm_90a parameter set: each is a mechanism of perfmodel/sim (see the module that uses it).
SM90_PARAMETERS = (
    Parameter("clock.tensor_power_fraction", 0.2, 1.0, why="sim/power.py: tensor share of the capped power"),
    Parameter("clock.l2_power_fraction", 0.0, 1.0, why="sim/power.py: L2 traffic share of the capped power"),
    Parameter("clock.f8_tensor_power_ratio", 0.8, 2.0, why="sim/power.py: 8-bit tensor power per busy cycle"),
    Parameter("clock.power_exponent", 1.0, 4.5, why="sim/power.py: P ~ f^gamma along the DVFS curve"),
    Parameter("l2.sm_clock_scaling", 0.0, 1.0, why="sim/params.py: L2 bytes per SM cycle vs the SM clock"),
    Parameter("sync.direct_store_bytes_per_clock_per_sm", 1.0, 64.0, log=True,
              why="sim/params.py: the direct epilogue's fragment stores"),
    Parameter("sync.epilogue_bytes_per_clock_per_sm", 8.0, 256.0, log=True,
              why="sim/params.py: the TMA-store epilogue (smem staging + TMA store)"),
    Parameter("smem.write_port_share", 0.0, 1.0,
              why="sim/params.py: share of TMA landing bytes that take MMA operand-read cycles"),
)


@dataclass(frozen=True)
class FitResult:
    gpu: str
    values: dict                       # dotted key -> fitted value
    before: dict                       # dotted key -> value before the fit
    loss_before: float
    loss_after: float
    evaluations: int
    calibration_shapes: tuple
    history: tuple = field(default=(), compare=False)   # (round, key, value, loss)


def split(frame: pd.DataFrame, shapes: Sequence[str] = CALIBRATION_SHAPES) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(calibration, held-out) rows of a measured frame, by shape."""
    mask = frame["shape"].isin(list(shapes))
    return frame[mask].reset_index(drop=True), frame[~mask].reset_index(drop=True)


def log_loss(df: pd.DataFrame) -> float:
    """Mean |log(pred / meas)|; an unpredictable row (illegal, deadlock) counts as a factor-e miss."""
    r = (df["pred_tflops"] / df["meas_tflops"]).astype(float)
    vals = [abs(math.log(x)) if x > 0 and math.isfinite(x) else 1.0 for x in r]
    return sum(vals) / max(len(vals), 1)


def clock_frame(dataset: str | os.PathLike) -> pd.DataFrame:
    """Rows of a long-loop clock dataset (data/measurements/h100_sm90_clock.jsonl): the SM clock the
    kernel settled at under the power cap (NVML mean over >= 1.5 s), for the power-limited clock's fit."""
    frame, _ = measured_frame([dataset])
    frame = frame.dropna(subset=["meas_sm_clock_hz"])
    if frame.empty:
        raise CalibrationError(f"{dataset}: no rows with a measured SM clock")
    return frame.reset_index(drop=True)


def clock_loss(frame: pd.DataFrame, hw: HardwareSpec) -> float:
    """Mean |log(predicted clock / measured clock)| over a clock frame."""
    from ..config import KernelConfig
    from ..prediction.predict import predict
    from ..problem import make_problem
    vals = []
    for row in frame.itertuples():
        try:
            p = predict(make_problem((row.m, row.n, row.k), row.dtype), KernelConfig.from_name(row.config_name), hw)
            vals.append(abs(math.log(p.clock_hz / row.meas_sm_clock_hz)))
        except PerfmodelError:
            vals.append(1.0)
    return sum(vals) / max(len(vals), 1)


def check_fittable(hw: HardwareSpec, params: Iterable[Parameter]) -> None:
    for p in params:
        try:
            src = hw.source_of(p.key)
        except KeyError:
            raise CalibrationError(f"{p.key}: not a key of {hw.name}'s hardware file") from None
        if not any(w in src.lower() for w in FITTABLE_SOURCE_WORDS):
            raise CalibrationError(f"{p.key}: its source is a measurement or datasheet value ('{src[:60]}...'); "
                                   f"only values marked estimate/calibrated/fit may be fitted")


def _golden(f: Callable[[float], float], lo: float, hi: float, x0: float, f0: float, iters: int,
            log: bool) -> tuple[float, float]:
    """Golden-section search of f on [lo, hi] (in log space when log), keeping the best seen incl. x0."""
    tr = (math.log, math.exp) if log else (lambda v: v, lambda v: v)
    a, b = tr[0](lo), tr[0](hi)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(tr[1](c)), f(tr[1](d))
    best = min([(f0, x0), (fc, tr[1](c)), (fd, tr[1](d))])
    for _ in range(iters):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(tr[1](c))
            best = min(best, (fc, tr[1](c)))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(tr[1](d))
            best = min(best, (fd, tr[1](d)))
    return best[1], best[0]


# Starting points of the multi-start search (besides the file's current values): the SM-clock scaling of
# L2 and the tensor share of power trade off against each other, so the descent starts from both ends.
SM90_STARTS = ({"l2.sm_clock_scaling": 0.0}, {"l2.sm_clock_scaling": 1.0, "clock.tensor_power_fraction": 0.9},
               {"l2.sm_clock_scaling": 0.0, "clock.tensor_power_fraction": 0.5, "clock.power_exponent": 2.0})


def fit(frame: pd.DataFrame, hw: HardwareSpec, params: Sequence[Parameter] = SM90_PARAMETERS, *,
        rounds: int = 2, iters: int = 6, starts: Sequence[dict] = SM90_STARTS, jobs: int = 1,
        clocks: pd.DataFrame | None = None, progress: Callable[[str], None] | None = None) -> FitResult:
    """Multi-start coordinate descent: from the file's values and from each of ``starts`` (restricted to
    the fitted keys), keep the best. ``jobs`` > 1 runs the starts in parallel processes. ``clocks`` (a
    clock_frame) adds the mean |log| error of the predicted power-limited clock to the loss: throughput
    alone cannot tell a lower clock from fewer FLOPs per cycle."""
    if frame.empty:
        raise CalibrationError("no calibration rows: the dataset has none of the calibration shapes")
    check_fittable(hw, params)
    keys = {p.key for p in params}
    inits = [{}] + [{k: v for k, v in s.items() if k in keys} for s in starts]
    inits = [d for i, d in enumerate(inits) if d not in inits[:i]]
    portable = dataclasses.replace(hw, sources=dict(hw.sources))    # MappingProxyType does not pickle
    tasks = [(frame, portable, tuple(params), init, rounds, iters, clocks) for init in inits]
    if jobs > 1 and len(tasks) > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(_descent_task, tasks))
    else:
        results = [_descent(*t, progress=progress) for t in tasks]
    best = min(results, key=lambda r: r.loss_after)
    if progress:
        for init, r in zip(inits, results):
            progress(f"start {init or 'file values'}: loss {r.loss_before:.4f} -> {r.loss_after:.4f}")
    return FitResult(gpu=best.gpu, values=best.values, before={p.key: float(_value(hw, p.key)) for p in params},
                     loss_before=_loss(frame, hw, clocks), loss_after=best.loss_after,
                     evaluations=sum(r.evaluations for r in results) + 1,
                     calibration_shapes=best.calibration_shapes, history=best.history)


def _descent_task(task) -> FitResult:
    return _descent(*task)


def _loss(frame: pd.DataFrame, hw: HardwareSpec, clocks: pd.DataFrame | None) -> float:
    loss = log_loss(add_predictions(frame, hw))
    return loss + clock_loss(clocks, hw) if clocks is not None and len(clocks) else loss


def _descent(frame: pd.DataFrame, hw: HardwareSpec, params: Sequence[Parameter], init: dict, rounds: int,
             iters: int, clocks: pd.DataFrame | None = None,
             progress: Callable[[str], None] | None = None) -> FitResult:
    """Coordinate descent over params on the rows of frame (already the calibration split)."""
    values = {p.key: float(init.get(p.key, _value(hw, p.key))) for p in params}
    before = dict(values)
    count = [0]

    def loss_of(vals: dict) -> float:
        count[0] += 1
        return _loss(frame, hw.with_values(**vals), clocks)

    current = loss_of(values)
    loss0, history = current, []
    for rnd in range(rounds):
        for p in params:
            def f(x, key=p.key):
                return loss_of({**values, key: x})
            x, fx = _golden(f, p.lo, p.hi, values[p.key], current, iters, p.log)
            values[p.key], current = x, fx
            history.append((rnd, p.key, x, fx))
            if progress:
                progress(f"round {rnd + 1}: {p.key} = {x:.4g}  loss {fx:.4f}")
    return FitResult(gpu=hw.name, values=values, before=before, loss_before=loss0, loss_after=current,
                     evaluations=count[0], calibration_shapes=tuple(sorted(set(frame["shape"]))),
                     history=tuple(history))


def _value(hw: HardwareSpec, key: str) -> float:
    sec, _, name = key.partition(".")
    return getattr(getattr(hw, sec), name)


def fit_source(dataset: str, shapes: Sequence[str], date: str | None = None, clock_dataset: str | None = None) -> str:
    date = date or datetime.date.today().isoformat()
    clk = f" and the clock runs data/measurements/{os.path.basename(clock_dataset)}" if clock_dataset else ""
    return (f"fit: perfmodel calibrate --fit on data/measurements/{os.path.basename(dataset)} calibration shapes "
            f"{', '.join(shapes)}{clk}, {date}")


def rounded_value(key: str, value: float) -> float:
    """Fitted values as written: 3 significant digits (the fit is not more precise than that)."""
    return float(f"{value:.3g}")


def apply_fit(toml_path: str, result: FitResult, dataset: str, date: str | None = None,
              clock_dataset: str | None = None) -> dict:
    """Write the fitted values into the hardware file with a fit: source; returns what was written."""
    from pathlib import Path

    from ..hardware import parse_hardware
    from ..microbench.tomledit import apply_to_file   # stdlib-only line editor shared with --microbench
    if not Path(toml_path).is_file():
        raise CalibrationError(f"{toml_path}: no such hardware file")
    current = parse_hardware(Path(toml_path).read_text(), str(toml_path))   # as on disk now, not cached
    check_fittable(current, [Parameter(k, 0, 0) for k in result.values])
    src = fit_source(dataset, result.calibration_shapes, date, clock_dataset)
    updates = {k: (rounded_value(k, v), src) for k, v in result.values.items()}
    apply_to_file(toml_path, updates)
    return updates


@dataclass(frozen=True)
class SplitFigures:
    calibration: object     # report.Accuracy
    held_out: object
    loss_calibration: float
    loss_held_out: float


def evaluate_split(frame: pd.DataFrame, hw: HardwareSpec,
                   shapes: Sequence[str] = CALIBRATION_SHAPES) -> tuple[SplitFigures, pd.DataFrame]:
    """Predict every row, score calibration and held-out shapes separately."""
    df = add_predictions(frame, hw)
    cal, held = split(df, shapes)
    figs = SplitFigures(accuracy(cal) if len(cal) else None, accuracy(held) if len(held) else None,
                        log_loss(cal) if len(cal) else float("nan"), log_loss(held) if len(held) else float("nan"))
    return figs, df


def topk_recall(df: pd.DataFrame, k: int = 8) -> float:
    """Mean over (shape, dtype) of |predicted top-k and measured top-k in common| / min(k, n): how many of the
    configurations worth measuring the model would have sent to the GPU."""
    vals = []
    for _, g in df.dropna(subset=["pred_tflops"]).groupby(["shape", "dtype"]):
        kk = min(k, len(g))
        pred = set(g.nlargest(kk, "pred_tflops")["config_name"])
        meas = set(g.nlargest(kk, "meas_tflops")["config_name"])
        vals.append(len(pred & meas) / kk)
    return sum(vals) / len(vals) if vals else float("nan")


def select_parameters(keys: str | None, params: Sequence[Parameter] = SM90_PARAMETERS) -> tuple[Parameter, ...]:
    """The parameters named in a comma-separated list (all of ``params`` for None)."""
    if not keys:
        return tuple(params)
    by_key = {p.key: p for p in params}
    wanted = [k.strip() for k in keys.split(",") if k.strip()]
    unknown = [k for k in wanted if k not in by_key]
    if unknown:
        raise CalibrationError(f"not a fitted parameter: {', '.join(unknown)} (known: {', '.join(by_key)})")
    return tuple(by_key[k] for k in wanted)


def figures_dict(figs: SplitFigures) -> dict:
    """JSON form of the split figures."""
    out = {"loss_calibration": figs.loss_calibration, "loss_held_out": figs.loss_held_out}
    for name in ("calibration", "held_out"):
        acc = getattr(figs, name)
        out[name] = None if acc is None else dict(acc.__dict__)
    return out


def load(dataset: str | os.PathLike) -> tuple[pd.DataFrame, str]:
    """Valid kernel rows of one dataset and the hardware spec its header names."""
    return measured_frame([dataset])


__all__ = ["CALIBRATION_SHAPES", "HELD_OUT_SHAPES", "SM90_PARAMETERS", "CalibrationError", "FitResult", "Parameter",
           "SplitFigures", "apply_fit", "check_fittable", "clock_frame", "clock_loss", "evaluate_split", "figures_dict",
           "fit", "fit_source", "load", "log_loss", "select_parameters", "split", "topk_recall"]
