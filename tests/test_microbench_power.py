"""perfmodel.microbench.power.derive: the HBM power of the ld.global.cg phases, and of the bulk-copy phases where a
run has them (the committed runs)."""
import json
import pathlib

import pytest

from perfmodel.microbench.power import derive

DATA = pathlib.Path(__file__).resolve().parents[1] / "data/microbench"


def _phases(rel):
    return json.loads((DATA / rel).read_text())["phases"]


def test_the_2026_11_24_run_derives_the_hardware_files_figure_and_has_no_bulk_phases():
    d = derive(_phases("h100-80gb-hbm3-2026-11-24-power.json"), 3.35e12)
    assert d["hbm_power_w_at_datasheet"] == pytest.approx(285.05, abs=0.1)
    assert "bulk" not in d


@pytest.mark.parametrize("rel,tb_s,ld_w,bulk_w", [
    ("bulk_power_h100/nvidia-h100-80gb-hbm3-2026-11-27-power.json", 3.35e12, 308, 309),
    ("bulk_power_h200/nvidia-h200-2026-11-27-power.json", 4.8e12, 332, 335)])
def test_the_bulk_runs_derive_the_same_hbm_power_through_the_tma_as_through_ld_global(rel, tb_s, ld_w, bulk_w):
    d = derive(_phases(rel), tb_s)
    assert d["hbm_power_w_at_datasheet"] == pytest.approx(ld_w, abs=1.5)
    assert d["bulk"]["hbm_power_w_at_datasheet"] == pytest.approx(bulk_w, abs=1.5)
    # the TMA's L2 path costs less per byte than the LSU's
    assert d["bulk"]["l2_power_w_per_tb_s"] < 0.85 * d["l2_power_w_per_tb_s"]
