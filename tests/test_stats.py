"""perfmodel.calibration.stats: Spearman's rho and its partial form (the microbenchmark analyses' "pitch partialled
out")."""
import math

import pytest

from perfmodel.calibration.stats import partial_spearman, spearman


def test_spearman_of_ranks_and_its_undefined_cases():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))
    assert math.isnan(spearman([1], [2]))


def test_partial_spearman_removes_what_a_third_variable_explains():
    z = list(range(40))
    nx = [((7 * i) % 11) - 5 for i in range(40)]          # two unrelated deterministic noises, each as wide as
    ny = [((5 * i) % 13) - 6 for i in range(40)]          # a few steps of z
    x = [a + b for a, b in zip(z, nx)]
    y = [a + b for a, b in zip(z, ny)]
    assert spearman(x, y) > 0.8                            # x and y agree because both follow z
    assert abs(partial_spearman(x, y, z)) < 0.3            # and hardly beyond it
    rxy, rxz, ryz = spearman(x, y), spearman(x, z), spearman(y, z)
    expected = (rxy - rxz * ryz) / math.sqrt((1 - rxz ** 2) * (1 - ryz ** 2))
    assert partial_spearman(x, y, z) == pytest.approx(expected)


def test_partial_spearman_is_nan_when_a_correlation_is_undefined():
    assert math.isnan(partial_spearman([1, 2, 3, 4], [4, 1, 3, 2], [7, 7, 7, 7]))
