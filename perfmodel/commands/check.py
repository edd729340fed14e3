"""`perfmodel check`: derive the configuration and list every legality violation."""
from __future__ import annotations

import json

from ..config import smem_bytes
from ..legality import check
from .common import add_knob_arguments, add_problem_arguments, resolve

NAME = "check"
HELP = "derive a configuration and check it against the PTX ISA legality rules"


def add_arguments(p):
    add_problem_arguments(p)
    add_knob_arguments(p)


def run(args) -> int:
    r = resolve(args)
    violations = check(r.problem, r.config, r.hw)
    if args.json:
        print(json.dumps({"gpu": r.hw.name, "problem": r.problem.shape_name(), "dtype": args.dtype,
                          "config": r.config.name, "legal": not violations,
                          "derived": list(r.derived.notes),
                          "smem_bytes": smem_bytes(r.problem, r.config),
                          "violations": [{"rule": v.rule, "reason": v.reason, "ptx_section": v.ptx_section}
                                         for v in violations]}, indent=2))
        return 1 if violations else 0
    print(f"gpu      {r.hw.name} ({r.hw.arch.value})")
    print(f"problem  {r.problem.shape_name()} {args.dtype} (kind::{r.problem.kind.value})")
    print(f"config   {r.config.name}")
    for note in r.derived.notes:
        print(f"  derived  {note}")
    print(f"smem     {smem_bytes(r.problem, r.config)} B of {r.hw.smem.per_block_optin_bytes} B per block")
    if not violations:
        print("legal")
        return 0
    print(f"ILLEGAL: {len(violations)} violation(s)")
    for v in violations:
        print(f"  {v}")
    return 1
