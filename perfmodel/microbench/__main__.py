"""``python3 -m perfmodel.microbench``: the microbenchmark driver on its own (standard library only)."""
from __future__ import annotations

import argparse
import shlex
import sys

from . import MicrobenchError
from .suite import add_arguments, run


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="python3 -m perfmodel.microbench",
                                description="Build and run the sm_90a microbenchmarks; write results and "
                                            "optionally the hardware TOML values they measure.")
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return run(args, shlex.join(["python3", "-m", "perfmodel.microbench", *argv]))
    except MicrobenchError as exc:
        sys.stderr.write(f"microbench: error: {exc}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
