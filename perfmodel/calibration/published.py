"""Score the model on published results whose kernel configuration is known (data/published/*.csv).

Each row: a public GEMM result (source, URL, date, GPU, shape, dtype, operand majors, TFLOP/s, and the clock or
power if the source states one), the timing regime its loop ran in (``regime``: ``boost`` for short or
low-power loops, ``sustained`` for power-limited steady loops, ``stated`` for a clock the source states or
implies in ``clock_mhz``; data/published/README.md says how each was decided) and its configuration as our
canonical name, or ``expressible = no`` with the reason. ``score`` predicts every expressible row in its
regime (sim/clock.py: a stated clock wins; an empty regime is ``sustained``) and gives the error per row;
rows of one ``ladder`` (a published progression, e.g. the steps of one blog series) are also checked for
order and for the ratio between consecutive steps (in percentage points). The goals (issue 10): every
expressible row within ``ROW_TOLERANCE``, every ladder in published order with each step's ratio within
``STEP_TOLERANCE_POINTS``. Standard library + the model; a broken file is a one-line error.
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
REGIMES = ("boost", "sustained", "stated")     # the ``regime`` column; empty: sustained
MAJORS = ("k", "mn")                           # the ``a_major`` / ``b_major`` columns; empty: k (K-major)
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
    clock_basis: str           # what the clock was: "stated", "boost" or "sustained (power model)"
    regime: str = "sustained"  # the row's timing regime (column ``regime``)
    majors: str = "k/k"        # A/B majors predicted with ("k*" where the table leaves them empty)
    bottleneck: str = ""
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

    @property
    def published_steps(self) -> tuple[float, ...]:
        """Each step's published ratio - 1, in percent."""
        return tuple(100.0 * (b / a - 1.0) for a, b in zip(self.published, self.published[1:]))

    @property
    def predicted_steps(self) -> tuple[float, ...]:
        return tuple(100.0 * (b / a - 1.0) for a, b in zip(self.predicted, self.predicted[1:]))

    @property
    def meets_goal(self) -> bool:
        return self.same_order and all(abs(p) <= STEP_TOLERANCE_POINTS for p in self.step_points)


@dataclass
class PublishedScore:
    rows: list[RowScore] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)    # (id, reason) of rows not expressible
    ladders: list[LadderScore] = field(default_factory=list)
    single: list[str] = field(default_factory=list)    # ladders with one expressible row: nothing to order

    def lines(self) -> list[str]:
        ok = [r for r in self.rows if not r.error]
        within = sum(abs(r.rel_error) <= ROW_TOLERANCE for r in ok)
        steps = [p for lad in self.ladders for p in lad.step_points]
        regimes = {g: sum(r.regime == g for r in ok) for g in REGIMES}
        out = [f"{len(ok)} expressible rows predicted ({', '.join(f'{g} {n}' for g, n in regimes.items() if n)}), "
               f"{within} within {ROW_TOLERANCE:.0%} ({len(self.skipped)} rows not expressible, "
               f"{len(self.rows) - len(ok)} could not be predicted)"]
        if ok:
            out.append(f"|error| median {_median([abs(r.rel_error) for r in ok]):.1%}, max "
                       f"{max(abs(r.rel_error) for r in ok):.1%}; by regime: " + "; ".join(
                           f"{g} median {_median([r.rel_error for r in ok if r.regime == g]):+.1%}"
                           for g, n in regimes.items() if n))
        if self.ladders:
            out.append(f"ladders in published order: {sum(l.same_order for l in self.ladders)}/{len(self.ladders)}; "
                       f"steps within {STEP_TOLERANCE_POINTS:g} points: "
                       f"{sum(abs(p) <= STEP_TOLERANCE_POINTS for p in steps)}/{len(steps)}"
                       + (f" (one expressible row, not scored: {', '.join(self.single)})" if self.single else ""))
        rows_met = bool(ok) and within == len(ok) and len(ok) == len(self.rows)
        lads_met = all(l.meets_goal for l in self.ladders)
        out.append(f"goals: every expressible row within {ROW_TOLERANCE:.0%}: {'met' if rows_met else 'NOT met'} "
                   f"({within}/{len(self.rows)}); every ladder ordered with each step within "
                   f"{STEP_TOLERANCE_POINTS:g} points: {'met' if lads_met else 'NOT met'} "
                   f"({sum(l.meets_goal for l in self.ladders)}/{len(self.ladders)} ladders)")
        return out


def _median(values: list[float]) -> float:
    v = sorted(values)
    if not v:
        return math.nan
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


def _float(text: str, what: str, rid: str) -> float:
    try:
        return float(text) if text not in ("", None) else math.nan
    except ValueError:
        raise PublishedError(f"row {rid}: {what} {text!r} is not a number") from None


def _choice(r: dict, column: str, allowed: tuple[str, ...], default: str) -> str:
    value = (r.get(column) or "").strip().lower()
    if value and value not in allowed:
        raise PublishedError(f"row {r['id']}: {column} {value!r}: expected {', '.join(allowed)} or empty")
    return value or default


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


def row_clock(r: dict, clock=None):
    """(clock for predict, basis, regime) of one row: its stated clock_mhz, else its regime column
    (``clock``, a sim.clock regime, overrides the regime of rows that state no clock)."""
    from ..sim.clock import parse_clock
    rid = r["id"]
    regime = _choice(r, "regime", REGIMES, "sustained")
    mhz = _float(r.get("clock_mhz", ""), "clock_mhz", rid)
    if math.isfinite(mhz):
        return parse_clock(mhz), "stated", "stated"
    if regime == "stated":
        raise PublishedError(f"row {rid}: regime 'stated' needs a clock_mhz")
    chosen = parse_clock(clock if clock is not None else regime)
    basis = "sustained (power model)" if chosen.name == "sustained" else chosen.name
    return chosen, basis, regime


def score(path: str, *, clock=None) -> PublishedScore:
    """Predict every expressible row of ``path`` in its timing regime: its stated clock, else its ``regime``
    column (boost, or sustained = the power-limited clock of sim/power.py). ``clock`` (boost, sustained or
    MHz) replaces the regime of rows that state no clock (what-if studies)."""
    from ..prediction.predict import predict
    out = PublishedScore()
    for r in read_rows(path):
        rid = r["id"]
        if (r.get("expressible") or "").strip().lower() not in ("yes", "y", "true", "1"):
            out.skipped.append((rid, (r.get("not_expressible_reason") or "not expressible").strip()))
            continue
        pub = _float(r["tflops"], "tflops", rid)
        regime_clock, basis, regime = row_clock(r, clock)
        a_major = _choice(r, "a_major", MAJORS, "")
        b_major = _choice(r, "b_major", MAJORS, "")
        majors = f"{a_major or 'k*'}/{b_major or 'k*'}"
        base = dict(id=rid, source=r["source"], gpu=r["gpu"], shape=f"{r['m']}x{r['n']}x{r['k']}", dtype=r["dtype"],
                    config=r["canonical_name"], published_tflops=pub, ladder=(r.get("ladder") or "").strip(),
                    ladder_step=_float(r.get("ladder_step", ""), "ladder_step", rid), regime=regime, majors=majors)
        try:
            hw = load_hardware(r["gpu"].strip().lower())
            problem = make_problem((int(r["m"]), int(r["n"]), int(r["k"])), r["dtype"].strip(),
                                   a_major=a_major or "k", b_major=b_major or "k")
            cfg = KernelConfig.from_name(r["canonical_name"].strip())
            p = predict(problem, cfg, hw, clock=regime_clock)
            out.rows.append(RowScore(predicted_tflops=p.tflops, clock_mhz=p.clock_hz / 1e6, clock_basis=basis,
                                     bottleneck=p.bottleneck.value, **base))
        except (PerfmodelError, ValueError) as exc:
            out.rows.append(RowScore(predicted_tflops=math.nan, clock_mhz=math.nan, clock_basis=basis,
                                     error=str(exc).splitlines()[0], **base))
    out.ladders = _ladders(out.rows)
    out.single = sorted({r.ladder for r in out.rows if r.ladder} - {l.ladder for l in out.ladders})
    return out


def _ladders(rows: list[RowScore]) -> list[LadderScore]:
    groups: dict[str, list[RowScore]] = {}
    for r in rows:
        if r.ladder and not r.error and math.isfinite(r.ladder_step):
            groups.setdefault(r.ladder, []).append(r)
    out = []
    for name, g in sorted(groups.items()):
        if len(g) < 2:
            continue
        g.sort(key=lambda r: r.ladder_step)
        pub = tuple(r.published_tflops for r in g)
        pred = tuple(r.predicted_tflops for r in g)
        same = all((b - a) * (d - c) > 0 or (b == a and d == c) for a, b, c, d in zip(pub, pub[1:], pred, pred[1:]))
        steps = tuple(100.0 * ((d / c) - (b / a)) for a, b, c, d in zip(pub, pub[1:], pred, pred[1:]))
        out.append(LadderScore(name, tuple(r.id for r in g), pub, pred, same, steps))
    return out


__all__ = ["LadderScore", "MAJORS", "PublishedError", "PublishedScore", "REGIMES", "RowScore", "read_rows",
           "row_clock", "score"]
