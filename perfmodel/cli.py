"""The `perfmodel` command line. Exit status: 0 success, 1 illegal configuration, 2 usage error."""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from .errors import PerfmodelError, PerfmodelWarning

# Each subcommand is a module in perfmodel.commands (NAME, HELP, add_arguments, run).
COMMANDS = ["gpus", "check", "tune", "rules", "validate", "predict", "calibrate", "report", "rank-cublaslt"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        sys.stderr.write(f"perfmodel: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="perfmodel", description="Predict, check and tune TensorCore GEMM kernels "
                                                   "on NVIDIA Hopper and Blackwell GPUs.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        mod = importlib.import_module(f"perfmodel.commands.{name.replace('-', '_')}")
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """PerfmodelWarnings are one ``perfmodel: warning:`` line each; other warnings as Python shows them."""
    if issubclass(category, PerfmodelWarning):
        sys.stderr.write(f"perfmodel: warning: {message}\n")
    else:
        _PYTHON_SHOWWARNING(message, category, filename, lineno, file, line)


_PYTHON_SHOWWARNING = warnings.showwarning


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def run_command(run, args) -> int:
    """Run one subcommand with the CLI's error contract (docs in the README's 'Exit status'): a
    PerfmodelError is one line and exit 2; a file the operating system refuses (OSError: a path that
    is a directory, a full disk, a permission) is one line naming the file and exit 2, never a
    traceback; PerfmodelWarnings are one ``perfmodel: warning:`` line each."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", PerfmodelWarning)
        warnings.showwarning = _show_warning
        return _run(run, args)


def _run(run, args) -> int:
    try:
        return int(run(args))
    except PerfmodelError as exc:
        sys.stderr.write(f"perfmodel: error: {_one_line(exc)}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("perfmodel: interrupted\n")
        return 130
    except BrokenPipeError:  # `perfmodel rules | head`: the reader left; not an error of ours
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:   # a file refused by the system (commands check their paths first; this is the net)
        if exc.errno is None:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        sys.stderr.write(f"perfmodel: error: {where}{_one_line(exc.strerror or exc)}\n")
        return 2


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_command(args._run, args)


if __name__ == "__main__":
    sys.exit(main())
