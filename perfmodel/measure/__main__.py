"""`python3 -m perfmodel.measure ...`: `perfmodel validate` for GPU machines with only the standard library."""
from __future__ import annotations

import sys

from ..cli import _Parser, run_command
from ..commands import validate as cmd


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python3 -m perfmodel.measure", description=cmd.HELP)
    cmd.add_arguments(parser)
    return run_command(cmd.run, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
