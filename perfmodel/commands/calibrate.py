"""`perfmodel calibrate --microbench`: measure hardware parameters on the local GPU (sm_90a) and
optionally write them into a hardware TOML (`--apply`). The driver is perfmodel.microbench."""
from __future__ import annotations

import shlex
import sys

from ..errors import PerfmodelError
from ..microbench.suite import add_arguments as add_microbench_arguments
from ..microbench.suite import run as run_microbench

NAME = "calibrate"
HELP = "measure hardware parameters with microbenchmarks (--microbench) and update a hardware file"


def add_arguments(p):
    p.add_argument("--microbench", action="store_true",
                   help="build and run the sm_90a microbenchmarks on the local GPU (needs nvcc)")
    add_microbench_arguments(p)


def run(args) -> int:
    if not args.microbench:
        raise PerfmodelError("nothing to calibrate: pass --microbench")
    return run_microbench(args, shlex.join(["perfmodel", *sys.argv[1:]]))
