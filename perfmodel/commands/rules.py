"""`perfmodel rules`: list every legality rule with its source section."""
from __future__ import annotations

import json

from ..legality import RULES

NAME = "rules"
HELP = "list the legality rules `check` applies (id, PTX ISA section or other source, summary)"


def add_arguments(p):
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--grep", metavar="TEXT", help="only rules whose id, section or summary contains TEXT")


def run(args) -> int:
    rules = [r for r in RULES if not args.grep
             or args.grep.lower() in f"{r.id} {r.section} {r.summary}".lower()]
    rows = [{"rule": r.id, "section": r.section, "summary": r.summary, "module": r.fn.__module__.rsplit(".", 1)[-1]}
            for r in rules]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max((len(r["rule"]) for r in rows), default=4)
    for r in rows:
        print(f"{r['rule']:<{width}}  {r['summary']}")
        print(f"{'':<{width}}    {r['section']}")
    print(f"{len(rows)} rule(s)")
    return 0
