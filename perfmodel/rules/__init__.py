"""Legality rules, one module per subject. Importing this package registers every rule."""
from . import arch  # noqa: F401
