"""`perfmodel check`: derive the configuration and list every legality violation.

Exit 1 only for PTX violations. Restrictions of our own sm_90a validation kernel (``kernel-*`` rules)
are listed separately: they say whether ``perfmodel validate`` can run the configuration, not whether
the hardware allows it (``--our-kernel`` makes them count as violations too)."""
from __future__ import annotations

import json

from ..config import smem_bytes
from ..legality import check
from .common import add_knob_arguments, add_problem_arguments, require_our_kernel_arch, resolve

NAME = "check"
HELP = "derive a configuration and check it against the PTX ISA legality rules"


def add_arguments(p):
    add_problem_arguments(p)
    add_knob_arguments(p)
    p.add_argument("--our-kernel", action="store_true",
                   help="also fail on restrictions of our sm_90a validation kernel (kernel-* rules)")


def _smem(r) -> int:
    """Shared memory of one CTA as the family lays it out (our kernel: ring + epilogue staging + barriers)."""
    if r.family.name == "ours":
        return smem_bytes(r.problem, r.config)
    return r.family.schedule(r.problem, r.config, r.hw).smem_bytes_per_cta


def _as_dict(v) -> dict:
    return {"rule": v.rule, "reason": v.reason, "ptx_section": v.ptx_section}


def run(args) -> int:
    r = resolve(args)
    fam = r.family
    if args.our_kernel:
        require_our_kernel_arch(r.hw, "--our-kernel")
    found = check(r.problem, r.config, r.hw, facts=fam.facts)
    # a Triton config its family cannot build is no config at all; our kernel's restrictions only say
    # whether `perfmodel validate` can run it (--our-kernel makes them count)
    kernel = [v for v in found if v.rule.startswith("kernel-")]
    violations = found if (args.our_kernel or fam.restrict_predictions) else [v for v in found if v not in kernel]
    status = 1 if violations else 0
    if args.json:
        print(json.dumps({"gpu": r.hw.name, "problem": r.problem.shape_name(), "dtype": args.dtype,
                          "kernel": fam.name, "config": r.config.name, "legal": not violations,
                          "derived": list(r.derived.notes),
                          "smem_bytes": _smem(r),
                          "violations": [_as_dict(v) for v in violations],
                          "our_kernel_can_run": not kernel,
                          "our_kernel_restrictions": [_as_dict(v) for v in kernel]}, indent=2))
        return status
    print(f"gpu      {r.hw.name} ({r.hw.arch.value})")
    print(f"problem  {r.problem.shape_name()} {args.dtype} (kind::{r.problem.kind.value})")
    print(f"config   {r.config.name}  (kernel {fam.name})")
    for note in r.derived.notes:
        print(f"  derived  {note}")
    print(f"smem     {_smem(r)} B of {r.hw.smem.per_block_optin_bytes} B per block")
    if kernel and not args.our_kernel and not fam.restrict_predictions:
        print(f"note     our sm_90a validation kernel cannot run this ({len(kernel)} restriction(s)):")
        for v in kernel:
            print(f"  {v}")
    if not violations:
        print("legal")
        return 0
    print(f"ILLEGAL: {len(violations)} violation(s)")
    for v in violations:
        print(f"  {v}")
    return 1
