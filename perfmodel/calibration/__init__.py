"""Calibration and report: join measured datasets with predictions and say how far apart they are.
``report`` builds the predicted-vs-measured frame, its error figures and plots; ``stats`` holds the rank
statistics; ``fit`` fits the model's named physical parameters on the calibration split (a fixed split
by shape) and writes them, with their provenance, into the hardware TOML. Imports pandas.
"""
from .report import Accuracy, accuracy, add_predictions, compare, measured_frame, per_shape, plot_pred_vs_measured
from .stats import spearman

__all__ = ["Accuracy", "accuracy", "add_predictions", "compare", "measured_frame", "per_shape",
           "plot_pred_vs_measured", "spearman"]
