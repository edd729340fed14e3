"""Small statistics shared by reports and the tuner (no scipy: pandas' own Spearman needs it)."""
from __future__ import annotations

from typing import Sequence

import pandas as pd


def spearman(a: Sequence[float] | pd.Series, b: Sequence[float] | pd.Series) -> float:
    """Spearman's rho: Pearson's r of the ranks (ties get their average rank). NaN when undefined."""
    ra = pd.Series(list(a), dtype=float).rank()
    rb = pd.Series(list(b), dtype=float).rank()
    if len(ra) < 2 or ra.nunique() < 2 or rb.nunique() < 2:
        return float("nan")
    return float(ra.corr(rb))


def partial_spearman(x: Sequence[float], y: Sequence[float], z: Sequence[float]) -> float:
    """Spearman's rho of x and y with z partialled out, from the three pairwise rank correlations. NaN when
    undefined."""
    rxy, rxz, ryz = spearman(x, y), spearman(x, z), spearman(y, z)
    d = (1 - rxz ** 2) * (1 - ryz ** 2)
    return (rxy - rxz * ryz) / d ** 0.5 if d > 0 else float("nan")
