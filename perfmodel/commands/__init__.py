"""CLI subcommands: one module each, exposing ``NAME``, ``HELP``, ``add_arguments(p)`` and ``run(args) -> int``."""
