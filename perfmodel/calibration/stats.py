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
