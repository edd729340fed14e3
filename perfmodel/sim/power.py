"""Power-limited SM clock: how fast the clock runs depends on how hard the kernel works.

An H100 SXM under sustained GEMM load is held at its board power limit (700 W): the driver lowers
the SM clock until the power fits. Our microbenchmark measured the end point (1.60 GHz in-kernel
under a full-rate bf16 wgmma burn on every SM at 697 W, ``clock.sustained_tensor_hz``); a kernel that
keeps the tensor cores busy less of the time draws less power per cycle and runs faster, up to the
boost clock (our H100 dataset: configurations at a quarter of the tensor peak run at 1980 MHz per NVML;
the fastest ones at 1.35-1.5 GHz in the 300 ms headline runs). The model (CMOS dynamic power
C V^2 f, with V rising with f along the DVFS curve, so P ~ f^gamma at fixed activity)::

    P(f) / P_cap = (f / f_sustained)^gamma * ((1 - a_tc) + a_tc * w * u_tc + a_l2 * u_l2)

    u_tc  chip-wide tensor-core activity: math-busy cycles of all SMs / (cycles x SMs)
    w     tensor power per busy cycle relative to f16/bf16 (``f8_tensor_power_ratio`` for 8-bit kinds)
    u_l2  chip-wide L2->SM traffic / L2 bandwidth
    a_tc  ``tensor_power_fraction``: share of the capped power that follows tensor activity
    a_l2  ``l2_power_fraction``: power of a saturated L2 path, as a share of the cap

The reference point (u_tc = 1 at f16, no L2 traffic, f = f_sustained) gives P = P_cap. Setting
P(f) = P_cap gives f; it is clamped to [MIN_CLOCK_FRACTION x f_sustained, boost]. With
``tensor_power_fraction = 0`` and ``l2_power_fraction = 0`` (parts without measurements) the clock is
the sustained clock whatever the kernel does, as before this model existed.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..hardware import HardwareSpec
from ..problem import GemmProblem, MmaKind

MIN_CLOCK_FRACTION = 0.5   # numerical floor only (no fitted case comes near it)


@dataclass(frozen=True)
class Activity:
    tensor: float    # chip-wide math-busy fraction of the tensor cores, 0..1
    l2: float        # chip-wide L2->SM bytes / (cycles x L2 bandwidth), 0..1


def tensor_power_weight(problem: GemmProblem, hw: HardwareSpec) -> float:
    """Tensor power per busy cycle relative to f16: 8-bit kinds run twice the FLOPs per cycle."""
    kind = problem.kind
    eight_bit = kind is MmaKind.I8 or (kind is MmaKind.F8F6F4 and max(problem.a_dtype.bits,
                                                                         problem.b_dtype.bits) <= 8)
    return hw.clock.f8_tensor_power_ratio if eight_bit else 1.0


def relative_power(act: Activity, weight: float, hw: HardwareSpec) -> float:
    """Power at the sustained clock relative to the cap (1.0 = the reference burn)."""
    c = hw.clock
    a_tc = c.tensor_power_fraction
    return (1.0 - a_tc) + a_tc * weight * min(max(act.tensor, 0.0), 1.0) + c.l2_power_fraction * min(
        max(act.l2, 0.0), 1.0)


def power_limited_clock_hz(act: Activity, problem: GemmProblem, hw: HardwareSpec) -> float:
    """The SM clock at which this activity draws exactly the capped power (within [floor, boost])."""
    c = hw.clock
    rel = relative_power(act, tensor_power_weight(problem, hw), hw)
    f = c.sustained_tensor_hz * rel ** (-1.0 / c.power_exponent) if rel > 0 else c.boost_hz
    return min(max(f, MIN_CLOCK_FRACTION * c.sustained_tensor_hz), c.boost_hz)


__all__ = ["Activity", "MIN_CLOCK_FRACTION", "power_limited_clock_hz", "relative_power", "tensor_power_weight"]
