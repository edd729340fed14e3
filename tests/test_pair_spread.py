"""perfmodel.calibration.report.pair_spread: the measurement's own floor (the same point measured more than once)."""
import math

import pandas as pd

from perfmodel.calibration.report import pair_spread

KEYS = ["shape", "config_name"]


def _frame(rows):
    return pd.DataFrame(rows, columns=["shape", "config_name", "dataset", "meas_tflops"])


def test_two_datasets_give_one_pair_symmetric():
    df = _frame([("8192x8192x8192", "a", "d1", 100.0), ("8192x8192x8192", "a", "d2", 110.0)])
    out = pair_spread(df, KEYS)
    assert len(out) == 1 and math.isclose(out.iloc[0], 0.10)
    swapped = pair_spread(_frame([("8192x8192x8192", "a", "d1", 110.0), ("8192x8192x8192", "a", "d2", 100.0)]), KEYS)
    assert math.isclose(swapped.iloc[0], 0.10)


def test_three_datasets_give_three_pairs_and_other_points_are_apart():
    df = _frame([("s", "a", "d1", 100.0), ("s", "a", "d2", 105.0), ("s", "a", "d3", 120.0),
                 ("s", "b", "d1", 50.0), ("t", "a", "d2", 70.0)])
    out = sorted(pair_spread(df, KEYS).round(6))
    assert out == sorted([0.05, 0.2, round(120 / 105 - 1, 6)])


def test_rows_of_one_dataset_are_averaged_not_paired():
    df = _frame([("s", "a", "d1", 90.0), ("s", "a", "d1", 110.0), ("s", "a", "d2", 100.0)])
    out = pair_spread(df, KEYS)
    assert len(out) == 1 and math.isclose(out.iloc[0], 0.0, abs_tol=1e-12)


def test_single_measurements_missing_columns_and_empty_frames_give_nothing():
    assert len(pair_spread(_frame([("s", "a", "d1", 100.0), ("s", "b", "d2", 120.0)]), KEYS)) == 0
    assert len(pair_spread(_frame([("s", "a", "d1", 100.0)]), KEYS, value="speedup")) == 0
    assert len(pair_spread(_frame([]), KEYS)) == 0


def test_other_value_and_by_columns():
    df = pd.DataFrame({"shape": ["s", "s"], "config_name": ["a", "a"], "sweep": ["x", "y"], "speedup": [1.2, 1.5]})
    out = pair_spread(df, KEYS, value="speedup", by="sweep")
    assert len(out) == 1 and math.isclose(out.iloc[0], 0.25)
