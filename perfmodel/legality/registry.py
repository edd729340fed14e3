"""Legality rules from the PTX ISA 9.0 (and the CUDA driver where the PTX is silent).

One small function per fact. Each rule has an id, a one-line reason and the section it comes from;
``check`` runs them all and returns the violations (never raises for a well-typed input).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from ..config import KernelConfig
from ..hardware import Arch, HardwareSpec
from ..problem import GemmProblem


@dataclass(frozen=True)
class Violation:
    rule: str          # stable id, e.g. "cta-group-arch"
    reason: str        # one line, with the offending values
    ptx_section: str   # e.g. "PTX ISA 9.0 §9.7.16.2.1"

    def __str__(self) -> str:
        return f"[{self.rule}] {self.reason} ({self.ptx_section})"


@dataclass(frozen=True)
class ScheduleFacts:
    """What a kernel family's schedule tells the rules that depend on it (a kernel family fills it in,
    perfmodel.families): the family's name (its own restriction rules apply when asked for), how many
    producer warpgroups sit beside the MMA warpgroups (1 for a warp-specialised kernel such as ours or
    CUTLASS's; 0 where the MMA warps issue their own loads, as in Triton's software pipelining), and
    whether MMA warpgroups may split the tile along N when tile_m has fewer 64-row blocks than
    warpgroups (Triton lays 8 warps of a 64-row tile out as 2 warpgroups side by side along N)."""
    family: str = "ours"
    producer_warpgroups: int = 1
    split_n: bool = False
    tma_loads: bool = True       # A and B arrive by TMA (else cp.async: no TMA box rules for them)
    # a library's own kernel that the library accepted for this problem (cuBLASLt's AlgoCheck): the rules
    # about our kernel's layout (one TMA box per operand and stage, our shared-memory layout, warpgroups
    # splitting tile_m) do not bind it; its shared memory and warpgroup split are the family's own
    library_kernel: bool = False


WARP_SPECIALISED = ScheduleFacts()


@dataclass(frozen=True)
class Ctx:
    problem: GemmProblem
    cfg: KernelConfig
    hw: HardwareSpec
    facts: ScheduleFacts = WARP_SPECIALISED

    @property
    def sm90(self) -> bool:
        return self.hw.arch is Arch.SM90A

    @property
    def sm100(self) -> bool:
        return self.hw.arch is Arch.SM100A


RuleFn = Callable[[Ctx], Iterator[str]]


KERNEL_RULE_PREFIX = "kernel-"


@dataclass(frozen=True)
class Rule:
    id: str
    section: str
    summary: str
    fn: RuleFn
    families: tuple[str, ...] = ()   # () for a PTX rule; else the kernel families it restricts

    @property
    def kernel_only(self) -> bool:
        """A restriction of some kernel family (our own: ids ``kernel-*``), not of the hardware."""
        return bool(self.families)


RULES: list[Rule] = []


def rule(rule_id: str, section: str, summary: str, families: tuple[str, ...] | None = None):
    """Register a rule. The function yields one reason string per violation it finds. ``families``:
    the kernel families a restriction belongs to (default: ``("ours",)`` for ids ``kernel-*``, else
    none, i.e. a PTX rule that holds for every kernel)."""
    if families is None:
        families = ("ours",) if rule_id.startswith(KERNEL_RULE_PREFIX) else ()

    def wrap(fn: RuleFn) -> RuleFn:
        if any(r.id == rule_id for r in RULES):
            raise ValueError(f"duplicate rule id {rule_id}")
        RULES.append(Rule(rule_id, section, summary, fn, tuple(families)))
        return fn
    return wrap


def check(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, *,
          kernel_rules: bool = True, facts: ScheduleFacts = WARP_SPECIALISED) -> list[Violation]:
    """Every violation of the PTX rules (as they bear on the schedule ``facts`` describe) and, unless
    ``kernel_rules=False``, of the restrictions of the kernel family ``facts.family`` (ours by default:
    ``kernel-*``, what perfmodel/kernels/gemm_sm90.cu can build; validation needs them, predictions
    of what the PTX allows do not)."""
    ctx = Ctx(problem, cfg, hw, facts)
    out: list[Violation] = []
    for r in RULES:
        if r.families and (not kernel_rules or facts.family not in r.families):
            continue
        for reason in r.fn(ctx):
            out.append(Violation(r.id, reason, r.section))
    return out


def is_legal(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, *, kernel_rules: bool = False,
             facts: ScheduleFacts = WARP_SPECIALISED) -> bool:
    """Legal by the PTX ISA (and, with ``kernel_rules=True``, buildable by the family ``facts`` names)."""
    return not check(problem, cfg, hw, kernel_rules=kernel_rules, facts=facts)

