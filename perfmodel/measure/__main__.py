"""`python3 -m perfmodel.measure ...`: `perfmodel validate` for GPU machines with only the standard library."""
from __future__ import annotations

import sys

from ..cli import _Parser
from ..commands import validate as cmd
from ..errors import PerfmodelError


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python3 -m perfmodel.measure", description=cmd.HELP)
    cmd.add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return int(cmd.run(args))
    except PerfmodelError as exc:
        sys.stderr.write(f"perfmodel: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("perfmodel: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
