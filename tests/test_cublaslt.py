"""The cublaslt family (issue 12): cuBLASLt attributes -> schedule, rank(), bad input."""
import json
import math
import pathlib
import re
import sys

import pytest

from perfmodel import load_hardware, make_problem
from perfmodel.cli import main
from perfmodel.errors import ConfigError
from perfmodel.families import get_family
from perfmodel.families.cublaslt import FAMILY, CublasLtAlgo, nvjet_smem_bytes
from perfmodel.interop.cublaslt import CublasLtInteropError, FIELDS, predict_algo, rank
from perfmodel.problem import DType

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import _jsonl  # noqa: E402   (data/cublaslt/*_cublaslt.jsonl is stored as .xz)

H100 = load_hardware("h100-sxm")
NAMES = ROOT / "data/cublaslt/h100_kernel_names.jsonl"


def _rows(path):
    return [json.loads(ln) for ln in _jsonl.lines(path)[1:] if ln.strip()]


def test_registered():
    assert get_family("cublaslt") is FAMILY


def test_stages_and_shared_memory_match_every_nvjet_kernel_ncu_named():
    n = 0
    for r in _rows(NAMES):
        if r["algo_id"] != 66:
            continue
        k = next(k for k in r["kernels"] if k["name"].startswith("nvjet"))
        stages = int(re.search(r"_\d+x\d+_\d+x(\d+)_\d+x\d+_", k["name"]).group(1))
        mp = FAMILY.map(make_problem((r["m"], r["n"], r["k"]), r["dtype"]), H100, CublasLtAlgo.from_row(r))
        dyn = int(k["metrics"]["Dynamic Shared Memory Per Block"].replace(",", ""))
        assert mp.config.stages == stages, k["name"]
        assert abs(nvjet_smem_bytes(mp.problem, mp.config) - dyn) <= 1024, k["name"]
        n += 1
    assert n >= 100


def _algo(tile="256x128", cluster="1x2x1", custom=7, splitk=1, red=0, algo=66, stages="64xAUTO"):
    k, s = stages.split("x")
    return CublasLtAlgo.from_row({"algo_id": algo, "tile": tile, "cluster": cluster, "custom_option": custom,
                                  "splitk": splitk, "reduction_scheme": red, "stage_k": int(k),
                                  "stage_count": 0 if s == "AUTO" else int(s)})


def test_heuristic_top1_of_4096_cube_maps_to_the_kernel_it_launches():
    # nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT: grid (2, 66), 384 threads, 168 registers
    p = make_problem((4096, 4096, 4096), "bf16")
    mp = FAMILY.map(p, H100, _algo())
    c = mp.config
    assert mp.transposed and (mp.problem.m, mp.problem.n) == (4096, 4096)
    assert (c.tile_m, c.tile_n, c.tile_k, c.stages) == (256, 128, 64, 4)
    assert (c.cluster_m, c.cluster_n, c.multicast, c.persistent) == (1, 2, True, True)
    sch = FAMILY.schedule(mp.problem, c, H100)
    assert (sch.issuers, sch.rows_per_issuer, sch.cols_per_issuer, sch.threads_per_cta) == (2, 128, 128, 384)
    pr = predict_algo(p, _algo(), H100)
    assert 400 < pr.tflops < 1000 and pr.reduce_time_s == 0


def test_narrow_tiles_put_wgmma_rows_along_our_m():
    p = make_problem((4096, 4096, 4096), "bf16")
    mp = FAMILY.map(p, H100, _algo(tile="8x704", cluster="1x1x1", custom=0))
    assert not mp.transposed and (mp.config.tile_m, mp.config.tile_n) == (704, 8)


def test_split_k_runs_batches_of_k_over_s_with_fp32_partials_and_a_reduce_pass():
    p = make_problem((128, 8192, 8192), "bf16")
    a = _algo(tile="128x128", cluster="2x1x1", custom=1, splitk=2, red=2)
    mp = FAMILY.map(p, H100, a)
    assert (mp.problem.batch, mp.problem.k, mp.problem.out_dtype, mp.splitk) == (2, 4096, DType.F32, 2)
    pr = predict_algo(p, a, H100)
    assert math.isfinite(pr.time_s) and pr.reduce_time_s > 4e-6
    assert pr.time_s == pytest.approx(pr.gemm_time_s + pr.reduce_time_s)


@pytest.mark.parametrize("algo, why", [
    (_algo(algo=21, tile="128x128", stages="32x3"), "mma.sync"),
    (_algo(cluster="auto"), "cluster 'auto'"),
    (_algo(splitk=2, red=1), "reduction scheme 1"),
    (_algo(algo=62, tile="128x64", stages="128xAUTO"), "xmma"),
])
def test_what_cannot_be_expressed_is_refused_in_one_line(algo, why):
    p = make_problem((4096, 4096, 4096), "bf16")
    with pytest.raises(ConfigError, match=re.escape(why)):
        FAMILY.map(p, H100, algo)
    pr = predict_algo(p, algo, H100)
    assert pr.time_s == math.inf and why in pr.reason and "\n" not in pr.reason


def test_dataset_rows_all_map_or_are_refused_with_a_reason():
    rows = [r for r in _rows(ROOT / "data/cublaslt/h100_cublaslt.jsonl") if r.get("kind") == "config"]
    p_cache = {}
    for r in rows[:: 7]:
        key = (r["m"], r["n"], r["k"], r["dtype"])
        p = p_cache.setdefault(key, make_problem(key[:3], key[3]))
        try:
            FAMILY.map(p, H100, CublasLtAlgo.from_row(r))
        except ConfigError as exc:
            assert r["algo_id"] != 66 and str(exc) and "\n" not in str(exc)


def test_rank_orders_best_first_with_the_fields_to_set():
    df = rank(4096, 4096, 4096, "bf16", "h100-sxm")
    assert set(FIELDS) <= set(df.columns) and {"tile", "stages", "cluster", "pred_time_us", "pred_tflops"} <= set(df.columns)
    t = df.pred_time_us.tolist()
    assert t == sorted(t) and math.isfinite(t[0]) and math.isinf(t[-1])
    assert (df.algo_id.iloc[0], df.stages_id.iloc[0]) == (66, 35)
    assert (df[df.pred_time_us == math.inf].reason != "").all()


def test_rank_takes_a_callers_list_and_filters_by_alignment():
    cands = [{"algo_id": 66, "tile_id": 24, "tile": "256x128", "stages_id": 35, "stage_k": 64, "stage_count": 0,
              "cluster_id": 5, "cluster": "1x2x1", "custom_option": 7, "min_align_bytes": [16, 16, 16, 16]},
             _algo(tile="128x128", cluster="2x1x1", custom=0)]
    df = rank(4096, 4096, 4096, "bf16", candidates=cands)
    assert len(df) == 2 and df.pred_tflops.min() > 0
    df = rank(1000, 1992, 1016, "e4m3", candidates=cands[:1])
    assert math.isinf(df.pred_time_us.iloc[0]) and "16-byte alignment" in df.reason.iloc[0]


@pytest.mark.parametrize("kwargs, msg", [
    ({"dtype": "fp4"}, "modelled for bf16, e4m3"),
    ({"gpu": "b200"}, "no cuBLASLt capability table"),
    ({"candidates": [{"tile": "8x8"}]}, "needs at least algo_id"),
    ({"candidates": [42]}, "CublasLtAlgo or a dict"),
])
def test_rank_bad_input_is_one_error(kwargs, msg):
    with pytest.raises(CublasLtInteropError, match=msg):
        rank(256, 256, 256, **kwargs)


@pytest.mark.parametrize("argv, code", [
    (["rank-cublaslt", "4096x4096"], 2), (["rank-cublaslt", "64x64x64", "--dtype", "fp4"], 2),
    (["rank-cublaslt", "64x64x64", "--gpu", "b200"], 2), (["rank-cublaslt", "64x64x64", "--clock", "fast"], 2),
    (["rank-cublaslt", "64x64x64", "--top", "0"], 2), (["rank-cublaslt", "1000x1992x1016", "--dtype", "e4m3"], 1),
])
def test_cli_bad_input_one_line(argv, code, capsys):
    assert main(argv) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_ranks(capsys):
    assert main(["rank-cublaslt", "4096x4096x4096", "--top", "3", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 3 and rows[0]["pred_time_us"] <= rows[1]["pred_time_us"]
