"""The SM clock a prediction is for: an explicit input, separate from the cycles the simulator counts.

The simulator counts cycles; time = cycles / clock. Which clock depends on how the kernel is run, so
every prediction names its regime (``Prediction.clock_regime``) and is compared only with measurements
taken in that regime:

- ``boost``: every kernel at the highest clock it can run at: ``clock.boost_hz`` (H100/H200: 1980 MHz, nvidia-smi
  clocks.max.sm; TMA-only microbenchmarks run at 1.977-1.995 GHz in-kernel), or where it is measured the lower
  ``clock.tensor_max_hz`` for kernels whose tensor cores run (``HardwareSpec.tensor_max_clock_hz``; H100: 1.831 GHz,
  the median in-kernel clock of 30 GEMMs far under the power cap while NVML read 1980 MHz; the datasheet peak is
  quoted at 1.83 GHz): an upper bound, and what a light GEMM runs at in any loop.
- ``short``: a timing loop within the first tens of ms of load after the GPU idled (our smoke loops: 10 ms of
  warm-up, 30 ms timed): the power limiter allows ``clock.short_power_ratio`` x its sustained cap there
  (mb_wgmma --transient on the H100: a full-rate bf16 burn runs at 1.775 GHz, not 1.98, from its first launch,
  and falls 37-90 ms after it to the sustained clock), so a light kernel runs at boost and a heavy one at the
  clock where its power meets that limit (sim/power.py with the cap scaled). NVML's clock reads 1980 MHz in
  such loops even for the burn. That ratio is the limiter's fast window, on the power while the kernel runs (idle
  time between launches does not count): it bounds ``sustained`` too (sim/power.py PowerLimits). A GPU without the
  ratio measured predicts ``short`` at boost.
- ``sustained``: the power-limited clock of ``sim/power.py`` (the default): the boost clock for a kernel
  whose power at boost stays under the cap, else the clock at which its power meets the cap. Fitted on
  runs that reached the cap's steady state (1.5 s loops, 300 ms headline loops). Loops of 100 ms, the
  length of Triton's ``do_bench`` and of our datasets, are already here for heavy kernels: the same
  configurations measured over 100 ms, 300 ms and 1.5 s agree within the run-to-run noise (e.g.
  8192^3 128x256: 679 / 680 / 685 TFLOP/s; 778 over 30 ms), light kernels run at boost in both.
- a fixed clock in MHz: a locked clock (``nvidia-smi -lgc``), or a measured one (``report --clock measured``).

A measured row's regime follows from its timed loop (``regime_for_loop``): loops shorter than
``SHORT_LOOP_S`` ran in the ``short`` regime, longer ones at the sustained clock (``report --clock auto``, the
default).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from ..errors import PerfmodelError

MIN_MHZ, MAX_MHZ = 100.0, 5000.0    # the range of clocks a hardware file may hold (hardware.py: 1e8..5e9 Hz)


class ClockError(PerfmodelError):
    """A clock that is not boost, short, sustained or a clock in MHz within range."""


class Regime(enum.Enum):
    BOOST = "boost"
    SHORT = "short"           # the power limiter's short-term allowance (the first tens of ms of load)
    SUSTAINED = "sustained"
    FIXED = "fixed"
    MEASURED = "measured"     # report only: each measured row's own clock (a FIXED clock per row)
    AUTO = "auto"             # report only: each measured row's regime from its timed loop's length


@dataclass(frozen=True)
class ClockRegime:
    regime: Regime
    hz: float | None = None     # FIXED only

    @classmethod
    def fixed(cls, hz: float) -> "ClockRegime":
        mhz = _check_mhz(hz / 1e6 if isinstance(hz, (int, float)) else hz, f"{hz!r} Hz")
        return cls(Regime.FIXED, mhz * 1e6)

    @property
    def name(self) -> str:
        """``boost``, ``sustained``, ``measured`` or ``1500 MHz``."""
        return f"{self.hz / 1e6:g} MHz" if self.regime is Regime.FIXED else self.regime.value

    @property
    def label(self) -> str:
        """A token for study names and file names: ``boost``, ``sustained``, ``1500mhz``."""
        return f"{self.hz / 1e6:g}mhz" if self.regime is Regime.FIXED else self.regime.value

    def __str__(self) -> str:
        return self.name


BOOST = ClockRegime(Regime.BOOST)
SHORT = ClockRegime(Regime.SHORT)
SUSTAINED = ClockRegime(Regime.SUSTAINED)
MEASURED = ClockRegime(Regime.MEASURED)
AUTO = ClockRegime(Regime.AUTO)
DEFAULT = SUSTAINED
# Timed loops shorter than this ran in the ``short`` regime: our 30 ms smoke loops (10 ms warm-up) end 40 ms into
# the load, before the limiter's drop (37-90 ms after the first launch, mb_wgmma --transient); the 100 ms loops
# (50 ms warm-up) of the datasets read 1425-1620 MHz for the heaviest ones, which ran no faster than over 1.5 s
# (data/measurements/README.md): sustained.
SHORT_LOOP_S = 0.05


def regime_for_loop(loop_s: float | None) -> ClockRegime:
    """The regime a timed loop of ``loop_s`` seconds (time_median_s x reps) ran in; unknown: sustained."""
    return SHORT if loop_s is not None and 0 < loop_s < SHORT_LOOP_S else SUSTAINED


def _check_mhz(value, text: str) -> float:
    try:
        mhz = float(value)
    except (TypeError, ValueError):
        raise ClockError(f"--clock '{text}': expected boost, short, sustained or a clock in MHz (e.g. 1500)") from None
    if not math.isfinite(mhz) or mhz <= 0:
        raise ClockError(f"--clock '{text}': a clock must be a finite number of MHz above 0")
    if not MIN_MHZ <= mhz <= MAX_MHZ:
        hint = " (the clock is given in MHz, not Hz)" if mhz > MAX_MHZ else ""
        raise ClockError(f"--clock '{text}': {mhz:g} MHz is outside {MIN_MHZ:g}..{MAX_MHZ:g} MHz{hint}")
    return mhz


def parse_clock(value: "ClockRegime | str | float | int | None", *, allow_measured: bool = False) -> ClockRegime:
    """``boost``, ``sustained``, a clock in MHz (``1500``, ``"1500"``, ``"1500MHz"``) or a ClockRegime; None is
    the default (sustained). ``measured`` and ``auto`` only where ``allow_measured`` (report). Raises ClockError."""
    if value is None:
        return DEFAULT
    if isinstance(value, ClockRegime):
        if value.regime in (Regime.MEASURED, Regime.AUTO) and not allow_measured:
            raise ClockError(f"--clock {value.regime.value} applies to report (each measured row's clock or loop)")
        return value
    if isinstance(value, bool):
        raise ClockError(f"--clock {value!r}: expected boost, short, sustained or a clock in MHz")
    if isinstance(value, (int, float)):
        return ClockRegime(Regime.FIXED, _check_mhz(value, repr(value)) * 1e6)
    text = str(value).strip()
    low = text.lower()
    for r in (Regime.BOOST, Regime.SHORT, Regime.SUSTAINED):
        if low == r.value:
            return ClockRegime(r)
    for r in (Regime.MEASURED, Regime.AUTO):
        if low == r.value:
            if not allow_measured:
                raise ClockError(f"--clock {r.value} applies to report (each measured row's clock or loop); "
                                 "predict and tune take boost, short, sustained or a clock in MHz")
            return ClockRegime(r)
    num = low[:-3].strip() if low.endswith("mhz") else low
    return ClockRegime(Regime.FIXED, _check_mhz(num, text) * 1e6)


def resolve(clock: "ClockRegime | str | float | int | None" = None, clock_hz: float | None = None) -> ClockRegime:
    """The regime of ``predict(..., clock=, clock_hz=)``: ``clock_hz`` (Hz, a fixed clock) is the older
    spelling of ``clock=MHz``; giving both is an error."""
    if clock_hz is not None:
        if clock is not None:
            raise ClockError("give clock= or clock_hz=, not both")
        return ClockRegime.fixed(clock_hz)
    return parse_clock(clock)


__all__ = ["AUTO", "BOOST", "DEFAULT", "MEASURED", "SHORT", "SHORT_LOOP_S", "SUSTAINED", "ClockError", "ClockRegime", "Regime",
           "parse_clock", "regime_for_loop", "resolve"]
