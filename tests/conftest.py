"""Shared test setup: the prediction cache of `tune` (perfmodel/search/cache.py) writes into a per-session
temporary directory, never into the user's ~/.cache."""
import pytest


@pytest.fixture(autouse=True, scope="session")
def _prediction_cache_in_tmp(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("PERFMODEL_PREDICTION_CACHE_DIR", str(tmp_path_factory.mktemp("prediction-cache")))
    yield
    mp.undo()
