"""Legality: may this configuration run at all? Every rule is one small function with an id, a one-line
reason and the PTX ISA 9.0 section (or CUDA guide) it comes from; ``check`` runs them all and returns the
violations, never raising on a well-typed input. ``registry`` holds the machinery (``Violation``, ``Rule``,
``rule``, ``check``); ``rules/`` holds the facts, one module per subject, and importing this package
registers them. Restrictions of one kernel family (ids ``kernel-*``) live beside the PTX rules and are
applied only when that family is asked for. ``capacity`` answers the question before any configuration:
do the problem's operands fit in the GPU's HBM at all (``require_fits``, the CLI's door)?
"""
from .registry import (KERNEL_RULE_PREFIX, RULES, WARP_SPECIALISED, Ctx, Rule, ScheduleFacts, Violation, check,
                       is_legal, rule)
from . import rules as _rules  # noqa: E402,F401  (registers every rule)
from .capacity import memory_violation, operand_bytes, require_fits

__all__ = ["Ctx", "KERNEL_RULE_PREFIX", "RULES", "Rule", "ScheduleFacts", "Violation", "WARP_SPECIALISED", "check",
           "is_legal", "memory_violation", "operand_bytes", "require_fits", "rule"]
