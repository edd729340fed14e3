"""perfmodel.calibration.report: joining a dataset with the model and scoring it."""
import json

import pandas as pd
import pytest

from perfmodel.cli import main
from perfmodel.errors import PerfmodelError
from perfmodel.measure.dataset import Dataset
from perfmodel.measure.records import DatasetHeader, Invalidity, Measurement
from perfmodel.calibration.report import accuracy, compare, per_shape

CFGS = ["128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma",
        "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma",
        "64x128x64_i64x128x16_cg1_cl1x1_mc0_s8_sw128-128_wg1_acc1_pm8_etma"]


def _dataset(tmp_path, tflops, extra=()):
    header = DatasetHeader("h100-sxm", "NVIDIA H100 80GB HBM3", "d", "nvcc", "k", "f", "2026-11-21")
    path = tmp_path / "ds.jsonl"
    ds = Dataset(path, header)
    for name, t in zip(CFGS, tflops):
        ds.append(Measurement(name, 4096, 4096, 4096, "bf16", "k", Invalidity.CORRECT, tflops=t,
                              time_median_s=2.0 * 4096 ** 3 / (t * 1e12)))   # consistent: 2MNK / time
    for m in extra:
        ds.append(m)
    return path


def test_compare_scores_each_valid_point_and_skips_references(tmp_path):
    bad = Measurement(CFGS[0], 2048, 2048, 2048, "bf16", "k", Invalidity.CORRECTNESS)
    cublas = Measurement("cublas", 4096, 4096, 4096, "bf16", "k", Invalidity.CORRECT, tflops=700.0,
                         time_median_s=2.0 * 4096 ** 3 / 700e12)
    df, hw = compare([_dataset(tmp_path, [600.0, 500.0, 300.0], [bad, cublas])])
    assert hw.name == "h100-sxm" and len(df) == 3
    assert (df["cublas_tflops"] == 700.0).all()
    assert df["rel_err"].tolist() == pytest.approx((df["pred_tflops"] / df["meas_tflops"] - 1).tolist())
    acc = accuracy(df)
    assert acc.points == 3 and acc.shapes == 1
    assert acc.mape == pytest.approx(df["rel_err"].abs().mean())
    assert acc.topk_hit_fraction == 1.0    # 3 configurations: the top 8 hold them all


def test_per_shape_topk_misses_when_the_model_ranks_the_best_last():
    df = pd.DataFrame({"shape": ["s"] * 3, "dtype": ["bf16"] * 3, "meas_tflops": [100.0, 200.0, 300.0],
                       "pred_tflops": [3.0, 2.0, 1.0], "cublas_tflops": [None] * 3})
    df["rel_err"] = df["pred_tflops"] / df["meas_tflops"] - 1
    row = per_shape(df, k=1).iloc[0]
    assert not row["topk_hit"] and row["spearman"] == pytest.approx(-1.0)
    assert per_shape(df, k=3).iloc[0]["topk_hit"]


def test_report_cli_json_and_plot(tmp_path, capsys):
    path = _dataset(tmp_path, [600.0, 500.0, 300.0])
    png = tmp_path / "p.png"
    assert main(["report", str(path), "--json", "--plot", str(png)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["points"] == 3 and doc["gpu"] == "h100-sxm" and png.stat().st_size > 1000


def test_report_refuses_a_dataset_without_valid_points(tmp_path):
    header = DatasetHeader("h100-sxm", "x", "d", "nvcc", "k", "f", "2026-11-21")
    path = tmp_path / "empty.jsonl"
    Dataset(path, header)
    with pytest.raises(PerfmodelError, match="no valid kernel measurements"):
        compare([path])
    assert main(["report", str(path)]) == 2
