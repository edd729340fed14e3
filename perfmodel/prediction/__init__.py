"""Prediction: (problem, configuration, GPU) -> ``Prediction`` (throughput, time, cycles, clock, bottleneck,
utilisation, stalls), from the SimPy simulation in ``perfmodel.sim`` with the analytic roofline baseline
(``analytic``) beside it. ``predict`` checks legality first; ``predict_many`` returns a DataFrame.
"""
from .analytic import AnalyticEstimate, analytic_estimate
from .predict import Bottleneck, Prediction, predict, predict_many

__all__ = ["AnalyticEstimate", "Bottleneck", "Prediction", "analytic_estimate", "predict", "predict_many"]
