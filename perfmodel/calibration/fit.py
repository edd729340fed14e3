"""Fit a small set of named physical parameters of a HardwareSpec to a measured dataset.

The design rule (design.md, "Honest parameters"): calibration fits a few NAMED parameters of the
hardware file, on a CALIBRATION split of the dataset's shapes, and accuracy is reported on shapes the
fit never saw. No per-configuration factor exists anywhere and the predictor never looks a measurement
up: a fitted value is just another hardware value, written to the TOML with its provenance.

- Split (fixed, by shape; both dtypes of a shape fall on the same side): read from a committed file,
  ``configs/splits/sm90.toml`` (``load_split``), written before fitting; nothing is hard-coded here. Rows
  whose shape is not in its calibration list are never fitted.
- Two kinds of parameter, two kinds of data. The power model's (``clock.*``, sim/power.py) are fitted
  ONLY on sustained runs (loops that reached the power cap's steady state: ``--clock-dataset``), on the
  mean |log(predicted / measured SM clock)| of their calibration-split rows. The others (cycles) are fitted
  on throughput, mean |log(pred / meas TFLOP/s)| over the calibration-split rows of ``--dataset``, each
  row predicted in the clock regime of its timed loop (sim/clock.py: ``regime_for_loop``).
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
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pandas as pd

from ..errors import PerfmodelError, decode_utf8
from ..hardware import HardwareSpec, config_dir
from .report import accuracy, add_predictions, measured_frame

FITTABLE_SOURCE_WORDS = ("estimate", "calibrated", "fit:")
POWER_PREFIX = "clock."      # the power model's parameters: fitted on sustained clock runs only
# Timed loops at least this long count as sustained runs for the power model's fit: the 300 ms headline loops and
# the 1.5 s clock runs (their NVML clocks settle at 1346-1486 MHz for the heavy 8192^3 kernels).
SUSTAINED_LOOP_S = 0.25


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
    Parameter("clock.stream_tensor_power_ratio", 0.8, 2.0,
              why="sim/power.py: tensor power per busy cycle of a GEMM's streamed operands / the burn's one tile"),
    Parameter("clock.power_exponent", 1.0, 4.5, why="sim/power.py: P ~ f^gamma along the DVFS curve"),
    Parameter("clock.hbm_core_share", 0.0, 1.0,
              why="sim/power.py: share of the HBM path's power on the core rail, following the core voltage"),
    Parameter("l2.sm_clock_scaling", 0.0, 1.0, why="sim/params.py: L2 bytes per SM cycle vs the SM clock"),
    Parameter("sync.epilogue_bytes_per_clock_per_sm", 8.0, 256.0, log=True,
              why="sim/params.py: the TMA-store epilogue (smem staging + TMA store)"),
    Parameter("smem.write_port_share", 0.0, 1.0,
              why="sim/params.py: share of TMA landing bytes that take MMA operand-read cycles"),
    Parameter("l2.lrc_merge_128b", 1.0, 1.6,
              why="sim/memory.py: requesters per L2 read the request coalescer merges, a 4-stage ring (ncu: 1.07-1.53)"),
    Parameter("tma.pool_queue_share", 0.0, 5.0,
              why="sim/params.py: times the loaded HBM queueing a zero-fill byte holds its GPC's TMA pool longer"),
)


@dataclass(frozen=True)
class Split:
    """A committed calibration / held-out split by shape (``configs/splits/*.toml``)."""
    calibration: tuple[str, ...]
    held_out: tuple[str, ...]
    path: str = ""
    # held-out sets measured and not yet read (``[unread] sets``: a text in their dataset files' names, e.g. heldout43):
    # reports leave them out until the one read that judges a change
    unread: tuple[str, ...] = ()

    def side(self, shape: str) -> str:
        return "calibration" if shape in self.calibration else "held_out" if shape in self.held_out else "unsplit"


def split_path() -> Path:
    return config_dir() / "splits" / "sm90.toml"


def load_split(path: str | os.PathLike | None = None) -> Split:
    """The split of ``path`` (default ``configs/splits/sm90.toml``): ``[split] calibration = [...], held_out = [...]``,
    and optionally ``[unread] sets = [...]`` (held-out sets kept unread, by a text of their file names)."""
    import tomllib
    p = Path(path) if path else split_path()
    if not p.is_file():
        raise CalibrationError(f"{p}: no such split file")
    try:
        doc = tomllib.loads(decode_utf8(p.read_bytes(), p))
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError(f"{p}: not valid TOML: {exc}") from None
    table = doc.get("split", doc)
    cal, held = table.get("calibration"), table.get("held_out")
    if not isinstance(cal, list) or not isinstance(held, list) or not cal:
        raise CalibrationError(f"{p}: needs [split] calibration = [...] and held_out = [...] (shape strings)")
    both = set(cal) & set(held)
    if both:
        raise CalibrationError(f"{p}: shapes on both sides: {', '.join(sorted(both))}")
    table = doc.get("unread", {})
    unread = table.get("sets", []) if isinstance(table, dict) else None
    if not isinstance(unread, list) or not all(isinstance(s, str) and s.strip() for s in unread):
        raise CalibrationError(f"{p}: [unread] sets must be a list of non-empty texts (parts of dataset file names)")
    return Split(tuple(cal), tuple(held), str(p), tuple(s.strip() for s in unread))


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


def split(frame: pd.DataFrame, shapes: Sequence[str] | Split | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(calibration, held-out) rows of a measured frame, by shape (default: the committed split's calibration
    shapes); a shape in neither list counts as held out (never fitted)."""
    shapes = load_split() if shapes is None else shapes
    cal = shapes.calibration if isinstance(shapes, Split) else shapes
    mask = frame["shape"].isin(list(cal))
    return frame[mask].reset_index(drop=True), frame[~mask].reset_index(drop=True)


def log_loss(df: pd.DataFrame) -> float:
    """Mean |log(pred / meas)|; an unpredictable row (illegal, deadlock) counts as a factor-e miss."""
    r = (df["pred_tflops"] / df["meas_tflops"]).astype(float)
    vals = [abs(math.log(x)) if x > 0 and math.isfinite(x) else 1.0 for x in r]
    return sum(vals) / max(len(vals), 1)


def clock_frame(datasets: str | os.PathLike | Sequence[str | os.PathLike]) -> pd.DataFrame:
    """Rows of sustained runs: the SM clock each kernel settled at under the power cap, for the power model's fit
    (column ``fit_clock_hz``). A row with the harness's in-kernel clock (``meas_kernel_clock_hz``: block 0's clock64
    / %globaltimer over launches sampled through the timed loop) counts from loops of ``SHORT_LOOP_S`` on (100 ms
    loops of heavy kernels already run at the capped clock in-kernel); a row with NVML's mean clock alone only
    from ``SUSTAINED_LOOP_S`` (h100_sm90_clock.jsonl: 1.5 s loops; h100_headline.jsonl: 300 ms;
    h100_real_shapes_steady.jsonl): NVML's mean of a shorter loop still holds its first tens of ms at 1980 MHz."""
    from ..sim.clock import SHORT_LOOP_S
    paths = [datasets] if isinstance(datasets, (str, os.PathLike)) else list(datasets)
    frame, _ = measured_frame(paths)
    loop = frame["meas_loop_s"].fillna(0)
    kernel = frame["meas_kernel_clock_hz"].notna() & (loop >= SHORT_LOOP_S)
    nvml = frame["meas_kernel_clock_hz"].isna() & frame["meas_sm_clock_hz"].notna() & (loop >= SUSTAINED_LOOP_S)
    frame = frame[kernel | nvml].copy()
    if frame.empty:
        raise CalibrationError(f"{', '.join(map(str, paths))}: no sustained rows with a measured SM clock")
    frame["fit_clock_hz"] = frame["meas_kernel_clock_hz"].where(frame["meas_kernel_clock_hz"].notna(),
                                                                frame["meas_sm_clock_hz"])
    return frame.reset_index(drop=True)


def power_runs(paths: str | os.PathLike | Sequence[str | os.PathLike]) -> pd.DataFrame:
    """The steady phases of mb_power runs (perfmodel/microbench/power.py: 6 s each at the boost clock, below the
    cap) as rows of board power at a known clock and known traffic: sleeping resident blocks, L2 reads, HBM reads.
    They join the power model's fit beside the clock runs (``clock_loss``): the GEMM clock runs alone cannot
    tell the power of an idle SM from that of L2 traffic."""
    import json
    rows = []
    for path in [paths] if isinstance(paths, (str, os.PathLike)) else list(paths):
        p = Path(path)
        try:
            doc = json.loads(decode_utf8(p.read_bytes(), p))
        except (OSError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"{p}: not an mb_power result ({exc})") from None
        phases = doc.get("phases") if isinstance(doc, dict) else None
        if not isinstance(phases, dict) or doc.get("schema", "").split("/")[0] != "perfmodel.microbench.power":
            raise CalibrationError(f"{p}: not an mb_power result (perfmodel.microbench.power)")
        for name in ("resident", "l2", "hbm", "resident2"):
            ph = phases.get(name)
            if not ph or not ph.get("power_w") or not ph.get("sm_clock_hz"):
                continue
            rows.append({"kind": "power", "dataset": p.name, "phase": name, "shape": "", "meas_power_w": ph["power_w"],
                         "meas_sm_clock_hz": ph["sm_clock_hz"], "bytes_per_s": ph.get("bytes_per_s") or 0.0})
    if not rows:
        raise CalibrationError("no mb_power phases in the given files")
    return pd.DataFrame(rows)


# NVML's board power is a one-second average: a GEMM's timed loop gives its power from this long on
# (benchmarks/power_decomposition.py)
GEMM_POWER_LOOP_S = 0.5


def gemm_power_runs(paths: str | os.PathLike | Sequence[str | os.PathLike]) -> pd.DataFrame:
    """Rows of our GEMM timed in loops of GEMM_POWER_LOOP_S or more with the harness's in-kernel clock and NVML's board
    power (``power_mean_w``; e.g. data/measurements/h100_power_probe.jsonl, data/ncu/power_probe2_h100/*.jsonl): the
    board power at a known clock of a kernel whose activity the simulator gives, beside the mb_power phases in the power
    model's fit (``clock_loss``). Below the cap they test the law's power directly, at the cap its clock."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    frame, _ = measured_frame(paths)
    loop = frame["meas_loop_s"].fillna(0)
    keep = frame["meas_kernel_clock_hz"].notna() & frame["meas_power_w"].notna() & (loop >= GEMM_POWER_LOOP_S)
    frame = frame[keep].copy()
    if frame.empty:
        raise CalibrationError(f"{', '.join(map(str, paths))}: no rows with an in-kernel clock and NVML power from "
                               f"loops of {GEMM_POWER_LOOP_S} s or more")
    frame["kind"] = "gemm_power"
    return frame.reset_index(drop=True)


def gemm_model_power_w(row, hw: HardwareSpec) -> float:
    """The power law's board power (sim/power.board_power, W) of one GEMM power row at the kernel's own clock, over the
    activity simulated at that clock (prediction/predict.activity_at)."""
    from ..config import KernelConfig
    from ..prediction.predict import activity_at
    from ..problem import make_problem
    from ..sim.power import board_power
    problem = make_problem((int(row.m), int(row.n), int(row.k)), row.dtype)
    f = float(row.meas_kernel_clock_hz)
    act, _ = activity_at(problem, KernelConfig.from_name(row.config_name), hw, f)
    return board_power(act, f, problem, hw) * hw.gpu.tdp_w


def _gemm_power_row_loss(row, hw: HardwareSpec) -> float:
    """|log(predicted / measured board power)| of one GEMM power row (gemm_model_power_w)."""
    return abs(math.log(gemm_model_power_w(row, hw) / float(row.meas_power_w)))


def _power_row_loss(row, hw: HardwareSpec) -> float:
    """|log(predicted / measured board power)| of one mb_power phase (bytes of the HBM phase pass through L2)."""
    from ..problem import make_problem
    from ..sim.params import l2_bytes_per_sm_clock
    from ..sim.power import Activity, board_power
    f = row.meas_sm_clock_hz
    l2_bps = l2_bytes_per_sm_clock(hw, f) * f
    hbm = row.bytes_per_s / hw.hbm.bandwidth_bytes_per_s if row.phase == "hbm" else 0.0
    act = Activity(0.0, min(row.bytes_per_s / l2_bps, 1.0), hbm, f)
    pred = board_power(act, f, make_problem((128, 128, 128), "bf16"), hw) * hw.gpu.tdp_w
    return abs(math.log(pred / row.meas_power_w))


def clock_loss(frame: pd.DataFrame, hw: HardwareSpec) -> float:
    """Mean |log(predicted clock / measured clock)| over the GEMM rows of a clock frame, plus the mean
    |log(predicted / measured board power)| over its mb_power rows (``power_runs``), if any."""
    from ..config import KernelConfig
    from ..prediction.predict import predict
    from ..problem import make_problem
    vals, power = [], []
    for row in frame.itertuples():
        kind = getattr(row, "kind", None)
        if kind == "power":
            power.append(_power_row_loss(row, hw))
            continue
        if kind == "gemm_power":
            power.append(_gemm_power_row_loss(row, hw))
            continue
        try:
            p = predict(make_problem((int(row.m), int(row.n), int(row.k)), row.dtype),
                        KernelConfig.from_name(row.config_name), hw, clock="sustained")
            vals.append(abs(math.log(p.clock_hz / row.fit_clock_hz)))
        except PerfmodelError:
            vals.append(1.0)
    return sum(vals) / max(len(vals), 1) + (sum(power) / len(power) if power else 0.0)


def check_fittable(hw: HardwareSpec, params: Iterable[Parameter]) -> None:
    for p in params:
        try:
            src = hw.source_of(p.key)
        except KeyError:
            raise CalibrationError(f"{p.key}: not a key of {hw.name}'s hardware file") from None
        if "not fitted on" in src.lower():
            raise CalibrationError(f"{p.key}: {hw.name}'s value is another GPU's fit, kept unfitted on purpose "
                                   f"('{src[:60]}...'); fit it in that GPU's file")
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
        clocks: pd.DataFrame | None = None, progress: Callable[[str], None] | None = None,
        throughput_clock: str = "auto") -> FitResult:
    """Multi-start coordinate descent: from the file's values and from each of ``starts`` (restricted to
    the fitted keys), keep the best. ``jobs`` > 1 runs the starts in parallel processes. The loss is the
    mean |log(pred/meas)| of throughput over ``frame`` (rows in their loop's clock regime, or with
    ``throughput_clock`` "measured" at each row's measured clock: the cycle parameters alone) plus, with
    ``clocks`` (a clock_frame of sustained runs), the mean |log| error of the predicted sustained clock.
    The power model's parameters (``clock.*``) are fitted on the clock runs alone: ``frame`` must then be
    empty (throughput alone cannot tell a lower clock from fewer FLOPs per cycle), and the other
    parameters may not be fitted in the same call."""
    power = [p.key for p in params if p.key.startswith(POWER_PREFIX)]
    if power and (clocks is None or clocks.empty):
        raise CalibrationError(f"{', '.join(power)}: the power model is fitted on sustained clock runs only "
                               f"(--clock-dataset), and none of their calibration shapes were given")
    if power and (len(power) < len(params) or not frame.empty):
        raise CalibrationError("the power model's parameters (clock.*) are fitted on the sustained clock runs "
                               "alone, not with throughput or with other parameters: fit them separately")
    if frame.empty and not power:
        raise CalibrationError("no calibration rows: the dataset has none of the calibration shapes")
    check_fittable(hw, params)
    keys = {p.key for p in params}
    inits = [{}] + [{k: v for k, v in s.items() if k in keys} for s in starts]
    inits = [d for i, d in enumerate(inits) if d not in inits[:i]]
    portable = dataclasses.replace(hw, sources=dict(hw.sources))    # MappingProxyType does not pickle
    tasks = [(frame, portable, tuple(params), init, rounds, iters, clocks, throughput_clock) for init in inits]
    if jobs > 1 and len(tasks) > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(_descent_task, tasks))
    else:
        results = [_descent(*t[:-1], progress=progress, throughput_clock=t[-1]) for t in tasks]
    best = min(results, key=lambda r: r.loss_after)
    if progress:
        for init, r in zip(inits, results):
            progress(f"start {init or 'file values'}: loss {r.loss_before:.4f} -> {r.loss_after:.4f}")
    return FitResult(gpu=best.gpu, values=best.values, before={p.key: float(_value(hw, p.key)) for p in params},
                     loss_before=_loss(frame, hw, clocks, throughput_clock), loss_after=best.loss_after,
                     evaluations=sum(r.evaluations for r in results) + 1,
                     calibration_shapes=best.calibration_shapes, history=best.history)


def _descent_task(task) -> FitResult:
    *args, throughput_clock = task
    return _descent(*args, throughput_clock=throughput_clock)


def kernel_clock_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a measured frame that carry the harness's in-kernel clock (block 0's clock64 over
    %globaltimer): the clock the kernel really ran at, whatever its loop length."""
    if "meas_kernel_clock_hz" not in frame:
        return frame.iloc[0:0]
    return frame[frame["meas_kernel_clock_hz"].notna()]


def _loss(frame: pd.DataFrame, hw: HardwareSpec, clocks: pd.DataFrame | None, throughput_clock: str = "auto") -> float:
    """``throughput_clock`` "auto": each row in its timed loop's clock regime (cycles and the clock model together);
    "measured": at each row's measured clock, the in-kernel one where the row has it (the cycle model alone)."""
    loss = log_loss(add_predictions(frame, hw, clock=throughput_clock)) if len(frame) else 0.0
    return loss + clock_loss(clocks, hw) if clocks is not None and len(clocks) else loss


def _descent(frame: pd.DataFrame, hw: HardwareSpec, params: Sequence[Parameter], init: dict, rounds: int,
             iters: int, clocks: pd.DataFrame | None = None,
             progress: Callable[[str], None] | None = None, throughput_clock: str = "auto") -> FitResult:
    """Coordinate descent over params on the rows of frame (already the calibration split)."""
    values = {p.key: float(init.get(p.key, _value(hw, p.key))) for p in params}
    before = dict(values)
    count = [0]

    def loss_of(vals: dict) -> float:
        count[0] += 1
        return _loss(frame, hw.with_values(**vals), clocks, throughput_clock)

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
    shapes = set(frame["shape"]) if len(frame) else set()
    shapes |= set(clocks["shape"]) - {""} if clocks is not None and len(clocks) else set()
    return FitResult(gpu=hw.name, values=values, before=before, loss_before=loss0, loss_after=current,
                     evaluations=count[0], calibration_shapes=tuple(sorted(shapes)), history=tuple(history))


def _value(hw: HardwareSpec, key: str) -> float:
    sec, _, name = key.partition(".")
    return getattr(getattr(hw, sec), name)


def _data_path(path) -> str:
    """A data file as a source names it: relative to the working directory (the repository root, where the
    committed data lie: data/measurements/...), else the absolute path (a file elsewhere is named where it is)."""
    rel = os.path.relpath(os.path.abspath(str(path)))
    return rel if not rel.startswith("..") else os.path.abspath(str(path))


def fit_source(dataset: str | Sequence[str] | None, shapes: Sequence[str] | str, date: str | None = None,
               clock_dataset: str | Sequence[str] | None = None, command: str | None = None,
               power_run: str | Sequence[str] | None = None) -> str:
    """``fit: <command> on <data> <shapes>, <date>``: the provenance a fitted value is written with.
    ``shapes`` is the list of calibration shapes used, or a phrase such as 'the calibration split of FILE'."""
    date = date or datetime.date.today().isoformat()
    def names(x):
        xs = [x] if isinstance(x, (str, os.PathLike)) else list(x or [])
        return [_data_path(v) for v in xs]
    what = []
    if names(dataset):
        regime = ("its rows with an in-kernel clock, each at that clock" if "--at-kernel-clock" in (command or "")
                  else "each row in its timed loop's clock regime")
        what.append(", ".join(names(dataset)) + (f" ({regime})," if isinstance(shapes, str) else ""))
    if names(clock_dataset):
        what.append("the sustained clock runs " + ", ".join(names(clock_dataset))
                    + (f" (loops >= {SUSTAINED_LOOP_S * 1e3:.0f} ms)," if isinstance(shapes, str) else ""))
    runs = [_data_path(v) for v in ([power_run] if isinstance(power_run, (str, os.PathLike)) else list(power_run or []))]
    if runs:
        what.append("the board power of the mb_power phases " + ", ".join(runs) + ",")
    where = shapes if isinstance(shapes, str) else f"calibration shapes {', '.join(shapes)}"
    cmd = command or "perfmodel calibrate --fit"
    return f"fit: {cmd} on {' and '.join(what)} {where}, {date}"


def rounded_value(key: str, value: float) -> float:
    """Fitted values as written: 3 significant digits (the fit is not more precise than that)."""
    return float(f"{value:.3g}")


def apply_fit(toml_path: str, result: FitResult, dataset, date: str | None = None,
              clock_dataset=None, shapes: str | None = None, command: str | None = None, power_run=None) -> dict:
    """Write the fitted values into the hardware file with a fit: source; returns what was written."""
    from pathlib import Path

    from ..hardware import parse_hardware
    from ..microbench.tomledit import apply_to_file   # stdlib-only line editor shared with --microbench
    if not Path(toml_path).is_file():
        raise CalibrationError(f"{toml_path}: no such hardware file")
    current = parse_hardware(Path(toml_path).read_text(), str(toml_path))   # as on disk now, not cached
    check_fittable(current, [Parameter(k, 0, 0) for k in result.values])
    src = fit_source(dataset, shapes or result.calibration_shapes, date, clock_dataset, command, power_run)
    updates = {k: (rounded_value(k, v), src) for k, v in result.values.items()}
    apply_to_file(toml_path, updates)
    return updates


@dataclass(frozen=True)
class SplitFigures:
    calibration: object     # report.Accuracy
    held_out: object
    loss_calibration: float
    loss_held_out: float


def evaluate_split(frame: pd.DataFrame, hw: HardwareSpec, shapes: Sequence[str] | Split | None = None, *,
                   clock="auto") -> tuple[SplitFigures, pd.DataFrame]:
    """Predict every row (in ``clock``: default each row's loop regime), score calibration and held-out
    shapes separately."""
    df = add_predictions(frame, hw, clock=clock)
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


def load(datasets: str | os.PathLike | Sequence[str | os.PathLike]) -> tuple[pd.DataFrame, str]:
    """Valid kernel rows of one or more datasets (one hardware spec) and the spec their headers name."""
    return measured_frame([datasets] if isinstance(datasets, (str, os.PathLike)) else list(datasets))


__all__ = ["POWER_PREFIX", "SM90_PARAMETERS", "SUSTAINED_LOOP_S", "CalibrationError", "FitResult", "Parameter", "Split",
           "SplitFigures", "apply_fit", "check_fittable", "clock_frame", "clock_loss", "evaluate_split", "figures_dict",
           "fit", "fit_source", "gemm_model_power_w", "gemm_power_runs", "load", "load_split", "log_loss", "power_runs",
           "select_parameters", "split", "split_path", "topk_recall"]
