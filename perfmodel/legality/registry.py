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
class Ctx:
    problem: GemmProblem
    cfg: KernelConfig
    hw: HardwareSpec

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

    @property
    def kernel_only(self) -> bool:
        """Rules named ``kernel-*`` restrict the project's own validation kernel, not the hardware."""
        return self.id.startswith(KERNEL_RULE_PREFIX)


RULES: list[Rule] = []


def rule(rule_id: str, section: str, summary: str):
    """Register a rule. The function yields one reason string per violation it finds."""
    def wrap(fn: RuleFn) -> RuleFn:
        if any(r.id == rule_id for r in RULES):
            raise ValueError(f"duplicate rule id {rule_id}")
        RULES.append(Rule(rule_id, section, summary, fn))
        return fn
    return wrap


def check(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, *,
          kernel_rules: bool = True) -> list[Violation]:
    """Every violation of the PTX rules and, unless ``kernel_rules=False``, of our own kernel's
    restrictions (``kernel-*``: what perfmodel/kernels/gemm_sm90.cu can build; validation needs them,
    predictions and the search do not)."""
    ctx = Ctx(problem, cfg, hw)
    out: list[Violation] = []
    for r in RULES:
        if r.kernel_only and not kernel_rules:
            continue
        for reason in r.fn(ctx):
            out.append(Violation(r.id, reason, r.section))
    return out


def is_legal(problem: GemmProblem, cfg: KernelConfig, hw: HardwareSpec, *, kernel_rules: bool = False) -> bool:
    """Legal by the PTX ISA (and, with ``kernel_rules=True``, buildable by our sm_90a kernel)."""
    return not check(problem, cfg, hw, kernel_rules=kernel_rules)

