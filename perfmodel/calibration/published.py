"""Score the model on published results whose kernel configuration is known (data/published/*.csv).

Each row: a public GEMM result (source, URL, date, GPU, shape, dtype, TFLOP/s, and the clock or power if the
source states one) and its configuration as our canonical name, or ``expressible = no`` with the reason.
``score`` predicts every expressible row at its stated clock (else the GPU's sustained regime), and gives
the error per row; rows of one ``ladder`` (a published progression, e.g. the steps of one blog series)
are also checked for order and for the ratio between consecutive steps (in percentage points).
Standard library + the model; a broken file is a one-line error.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field

from ..config import KernelConfig
from ..errors import PerfmodelError
from ..hardware import load_hardware
from ..problem import make_problem

REQUIRED = ("id", "source", "gpu", "dtype", "m", "n", "k", "tflops", "expressible", "canonical_name")
ROW_TOLERANCE = 0.10        # issue 10: every expressible row within 10%
STEP_TOLERANCE_POINTS = 5.0  # and every ladder step's ratio within 5 points


class PublishedError(PerfmodelError):
    pass


@dataclass(frozen=True)
class RowScore:
    id: str
    source: str
    gpu: str
    shape: str
    dtype: str
    config: str
    published_tflops: float
    predicted_tflops: float
    clock_mhz: float
    clock_basis: str           # "stated" or the regime used
    ladder: str = ""
    ladder_step: float = math.nan
    error: str = ""

    @property
    def rel_error(self) -> float:
        if not self.published_tflops or not math.isfinite(self.predicted_tflops):
            return math.nan
        return self.predicted_tflops / self.published_tflops - 1.0


@dataclass(frozen=True)
class LadderScore:
    ladder: str
    ids: tuple[str, ...]
    published: tuple[float, ...]
    predicted: tuple[float, ...]
    same_order: bool
    step_points: tuple[float, ...]      # predicted step ratio - published step ratio, in percentage points


@dataclass
class PublishedScore:
    rows: list[RowScore] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)    # (id, reason) of rows not expressible
    ladders: list[LadderScore] = field(default_factory=list)

    def lines(self) -> list[str]:
        ok = [r for r in self.rows if not r.error]
        within = sum(abs(r.rel_error) <= ROW_TOLERANCE for r in ok)
        steps = [p for lad in self.ladders for p in lad.step_points]
        out = [f"{len(ok)} expressible rows predicted, {within} within {ROW_TOLERANCE:.0%}"
               f" ({len(self.skipped)} rows not expressible, {len(self.rows) - len(ok)} could not be predicted)"]
        if ok:
            errs = sorted(abs(r.rel_error) for r in ok)
            out.append(f"|error| median {errs[len(errs) // 2]:.1%}, max {errs[-1]:.1%}")
        if self.ladders:
            out.append(f"ladders in published order: {sum(l.same_order for l in self.ladders)}/{len(self.ladders)}; "
                       f"steps within {STEP_TOLERANCE_POINTS:g} points: "
                       f"{sum(abs(p) <= STEP_TOLERANCE_POINTS for p in steps)}/{len(steps)}")
        return out


def _float(text: str, what: str, rid: str) -> float:
    try:
        return float(text) if text not in ("", None) else math.nan
    except ValueError:
        raise PublishedError(f"row {rid}: {what} {text!r} is not a number") from None


def read_rows(path: str) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise PublishedError(f"cannot read published results {path}: {exc}") from None
    if not rows:
        raise PublishedError(f"{path}: no rows")
    missing = [c for c in REQUIRED if c not in rows[0]]
    if missing:
        raise PublishedError(f"{path}: missing column(s) {', '.join(missing)}")
    return rows


def score(path: str, *, regime_clock_hz=None) -> PublishedScore:
    """Predict every expressible row of ``path``. ``regime_clock_hz(hw)`` gives the clock for rows that
    state none (default: the model's own sustained / power-limited clock)."""
    from ..prediction.predict import predict
    out = PublishedScore()
    for r in read_rows(path):
        rid = r["id"]
        if (r.get("expressible") or "").strip().lower() not in ("yes", "y", "true", "1"):
            out.skipped.append((rid, (r.get("not_expressible_reason") or "not expressible").strip()))
            continue
        pub = _float(r["tflops"], "tflops", rid)
        clock_mhz = _float(r.get("clock_mhz", ""), "clock_mhz", rid)
        base = dict(id=rid, source=r["source"], gpu=r["gpu"], shape=f"{r['m']}x{r['n']}x{r['k']}", dtype=r["dtype"],
                    config=r["canonical_name"], published_tflops=pub, ladder=(r.get("ladder") or "").strip(),
                    ladder_step=_float(r.get("ladder_step", ""), "ladder_step", rid))
        try:
            hw = load_hardware(r["gpu"].strip().lower())
            problem = make_problem((int(r["m"]), int(r["n"]), int(r["k"])), r["dtype"].strip())
            cfg = KernelConfig.from_name(r["canonical_name"].strip())
            if math.isfinite(clock_mhz):
                clock_hz, basis = clock_mhz * 1e6, "stated"
            else:
                clock_hz = regime_clock_hz(hw) if regime_clock_hz else None
                basis = "sustained (model)"
            p = predict(problem, cfg, hw, clock_hz=clock_hz)
            out.rows.append(RowScore(predicted_tflops=p.tflops, clock_mhz=p.clock_hz / 1e6, clock_basis=basis, **base))
        except (PerfmodelError, ValueError) as exc:
            out.rows.append(RowScore(predicted_tflops=math.nan, clock_mhz=math.nan, clock_basis="",
                                     error=str(exc).splitlines()[0], **base))
    out.ladders = _ladders(out.rows)
    return out


def _ladders(rows: list[RowScore]) -> list[LadderScore]:
    groups: dict[str, list[RowScore]] = {}
    for r in rows:
        if r.ladder and not r.error and math.isfinite(r.ladder_step):
            groups.setdefault(r.ladder, []).append(r)
    out = []
    for name, g in sorted(groups.items()):
        g.sort(key=lambda r: r.ladder_step)
        pub = tuple(r.published_tflops for r in g)
        pred = tuple(r.predicted_tflops for r in g)
        same = all((b - a) * (d - c) > 0 or (b == a and d == c) for a, b, c, d in zip(pub, pub[1:], pred, pred[1:]))
        steps = tuple(100.0 * ((d / c) - (b / a)) for a, b, c, d in zip(pub, pub[1:], pred, pred[1:]))
        out.append(LadderScore(name, tuple(r.id for r in g), pub, pred, same, steps))
    return out


__all__ = ["LadderScore", "PublishedError", "PublishedScore", "RowScore", "read_rows", "score"]
