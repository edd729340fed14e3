"""`perfmodel tune --validate-top K`: the GPU judges the model's top K.

The top K predicted configurations that our sm_90a kernel can build are run through the hardware
runner (``perfmodel.measure.validate``: compile, check against a reference, time). Each result is
recorded beside the predictions in a second study, ``<gpu>.<MxNxK>.<dtype>.hw``, with the same
parameters (``add_trial(create_trial(...))``: finished prediction trials are immutable), and the
report says which configuration measured best and how the predicted order held (Spearman's rho and
the predicted rank of the measured best).
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import optuna
from optuna.trial import TrialState

from ..config import KernelConfig, Raster
from ..errors import PerfmodelError
from ..legality import check
from ..calibration.stats import spearman
from ..problem import GemmProblem
from .tuner import TuneResult
from .studies import default_study_name, open_study

DEFAULT_MEASUREMENTS = "perfmodel_measurements.jsonl"


class NoGpuError(PerfmodelError):
    """--validate-top on a machine without an NVIDIA GPU or nvcc."""


class MeasurementLike(Protocol):
    config_name: str
    tflops: float | None

    @property
    def valid(self) -> bool: ...


TIE_REL = 0.005   # predictions this close are ties for choosing what to measure (below the GPU's noise)

Runner = Callable[[Sequence[tuple[GemmProblem, KernelConfig]]], Sequence[MeasurementLike]]


def local_runner(gpu_spec: str, out_path: str | Path = DEFAULT_MEASUREMENTS) -> Runner:
    """The project's runner on this machine's GPU, appending to ``out_path`` (a JSONL dataset)."""
    from ..measure import query_gpu, validate
    from ..measure.api import spec_for_gpu

    if shutil.which("nvcc") is None or shutil.which("nvidia-smi") is None:
        raise NoGpuError("--validate-top needs an NVIDIA GPU and nvcc on this machine; found "
                         + ", ".join(x for x in ("nvcc", "nvidia-smi") if shutil.which(x) is None)
                         + " missing (run it where the GPU is, sharing the study with --storage)")
    ident = query_gpu()
    local = spec_for_gpu(ident.name)
    if ident.name == "unknown":
        raise NoGpuError("--validate-top: nvidia-smi reports no GPU on this machine")
    if local != gpu_spec:
        raise NoGpuError(f"--validate-top: this machine has {ident.name} ({local or 'no hardware file'}), "
                         f"the study predicts {gpu_spec}; tune with --gpu {local or '<this GPU>'}")
    return lambda pairs: validate(list(pairs), out_path, gpu=gpu_spec, identity=ident)


def _structure(cfg: KernelConfig) -> KernelConfig:
    """The configuration with the tile order (raster, group size) blanked: candidates that differ only
    there are one hardware question when the model ties them."""
    return cfg.replace(raster=Raster.M, group_size=1)


def candidates(result: TuneResult, k: int, *, tie_rel: float = TIE_REL) -> tuple[list[optuna.trial.FrozenTrial], int]:
    """The top ``k`` predicted trials that pass every rule, our kernel's included; and how many
    better-predicted ones were skipped because our kernel cannot build them.

    The model often ties configurations that differ only in tile order (raster, group size). Measuring
    eight of those spends the GPU on one question, so a trial is passed over while another with the
    same structure and a prediction within ``tie_rel`` is already chosen (it stays in the study)."""
    chosen, skipped, kept = [], 0, []
    for t in result.complete_trials():
        if len(chosen) == k:
            break
        cfg = KernelConfig.from_name(t.user_attrs["config_name"])
        if check(result.problem, cfg, result.hw):
            skipped += 1
            continue
        shape = _structure(cfg)
        if any(s == shape and abs(t.value - v) <= tie_rel * max(v, 1e-9) for s, v in kept):
            continue
        chosen.append(t)
        kept.append((shape, t.value))
    return chosen, skipped


def validate_top(result: TuneResult, k: int, *, runner: Runner | None = None,
                 measurements_path: str | Path = DEFAULT_MEASUREMENTS,
                 baselines: Sequence[KernelConfig] = ()) -> dict[str, Any]:
    """Measure the top ``k`` and record them in the ``.hw`` study; returns the report as a dict.

    ``baselines`` (e.g. the configuration in use, or the best one known) are timed in the same runner call, before
    the top ``k`` (one that is also among the top ``k`` is timed once, at its rank), so that both are measured in
    one thermal state: at 8192^3 bf16 the same configuration read 698 and 750 TFLOP/s 25 s apart in one call on our
    H100 (data/measurements/README.md, v6), and a best known from another day or machine can sit 5-10% away for
    that reason alone. The report gives the measured best of the top
    ``k`` over the best baseline (``best_over_baseline``); baselines are not recorded in the ``.hw`` study."""
    runner = runner or local_runner(result.hw.name, measurements_path)
    chosen, skipped = candidates(result, k)
    configs = [KernelConfig.from_name(t.user_attrs["config_name"]) for t in chosen]
    names = {c.name for c in configs}
    extra = [b for b in dict.fromkeys(baselines) if b.name not in names]
    measured = {m.config_name: m for m in runner([(result.problem, c) for c in [*extra, *configs]])}
    hw_study = open_study(default_study_name(result.hw, result.problem, result.space, kind="hw"),
                          result.study._storage, None,
                          {k: v for k, v in result.study.user_attrs.items() if k != "rules"})
    already = {t.user_attrs.get("config_name") for t in hw_study.get_trials(deepcopy=False)}
    rows = []
    for rank, (t, cfg) in enumerate(zip(chosen, configs), start=1):
        m = measured.get(cfg.name)
        ok = m is not None and m.valid and m.tflops is not None
        row = {"pred_rank": rank, "config_name": cfg.name, "pred_tflops": t.value, "pred_trial": t.number,
               "measured_tflops": float(m.tflops) if ok else None,
               "invalidity": None if ok else _invalidity(m)}
        rows.append(row)
        if cfg.name not in already:
            _record(hw_study, t, row, m)
    base_rows = []
    for b in dict.fromkeys(baselines):
        m = measured.get(b.name)
        ok = m is not None and m.valid and m.tflops is not None
        base_rows.append({"config_name": b.name, "measured_tflops": float(m.tflops) if ok else None,
                          "invalidity": None if ok else _invalidity(m)})
    return _report(result, hw_study, rows, k, skipped, base_rows)


def _invalidity(m) -> str:
    if m is None:
        return "not measured"
    inv = getattr(m, "invalidity", None)
    return str(getattr(inv, "value", inv) or "invalid")


def _record(study: optuna.Study, pred: optuna.trial.FrozenTrial, row: dict, m) -> None:
    attrs = {k: v for k, v in row.items() if v is not None}
    for key in ("sm_clock_mean_hz", "power_mean_w", "cublas_tflops", "time_median_s", "kernel_hash"):
        if getattr(m, key, None) is not None:
            attrs[key] = getattr(m, key)
    ok = row["measured_tflops"] is not None
    trial = optuna.trial.create_trial(params=pred.params, distributions=pred.distributions,
                                      value=row["measured_tflops"] if ok else None, user_attrs=attrs,
                                      state=TrialState.COMPLETE if ok else TrialState.FAIL)
    study.add_trial(trial)


def ranking_agreement(pred: Sequence[float], meas: Sequence[float]) -> float | None:
    """Spearman's rho between predicted and measured TFLOP/s (None with fewer than 3 points)."""
    if len(pred) < 3:
        return None
    rho = spearman(pred, meas)
    return None if rho != rho else round(rho, 3)


def _report(result: TuneResult, hw_study: optuna.Study, rows: list[dict], k: int, skipped: int,
            base_rows: list[dict] = ()) -> dict:
    valid = [r for r in rows if r["measured_tflops"] is not None]
    best = max(valid, key=lambda r: r["measured_tflops"]) if valid else None
    base_valid = [r for r in base_rows if r["measured_tflops"] is not None]
    base_best = max(base_valid, key=lambda r: r["measured_tflops"]) if base_valid else None
    ratio = round(best["measured_tflops"] / base_best["measured_tflops"], 4) if best and base_best else None
    return {
        "baselines": list(base_rows), "best_baseline": base_best, "best_over_baseline": ratio,
        "device": result.hw.name, "study": hw_study.study_name, "asked": k, "measured": len(valid),
        "invalid": len(rows) - len(valid), "skipped_unbuildable": skipped, "rows": rows,
        "best": best,
        "spearman": ranking_agreement([r["pred_tflops"] for r in valid], [r["measured_tflops"] for r in valid]),
    }


__all__ = ["NoGpuError", "Runner", "candidates", "local_runner", "ranking_agreement", "validate_top"]
