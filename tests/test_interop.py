"""Exports of a configuration: our kernel's flags, CUTLASS names, Triton config and perf_model."""
import math

from perfmodel import derive, load_hardware, make_problem
from perfmodel.interop import exports
from perfmodel.interop.cutlass import cutlass_description
from perfmodel.interop.ours import kernel_flags
from perfmodel.interop.triton import export as _export, export_reason, matmul_perf_model, rank


def to_triton_config(problem, cfg, hw):
    return _export(problem, cfg, hw)
from tune_fakes import fake_objective

H100, B200 = load_hardware("h100-sxm"), load_hardware("b200")
BF16 = make_problem("8192x8192x8192", "bf16")


def sm90_cfg(**kw):
    return derive(BF16, H100, (128, 256, 64), cluster=(2, 1), stages=4, consumers=2, **kw).config


def test_kernel_flags_carry_every_knob_of_the_config():
    cfg = sm90_cfg(raster="n", group_size=4, epilogue="dir")
    flags = kernel_flags(BF16, cfg, H100)
    for f in ("-DPM_BM=128", "-DPM_BN=256", "-DPM_BK=64", "-DPM_STAGES=4", "-DPM_CONSUMERS=2",
              "-DPM_CLUSTER_M=2", "-DPM_CLUSTER_N=1", "-DPM_MULTICAST=1", "-DPM_RASTER_N=1",
              "-DPM_GROUP=4", "-DPM_EPI_TMA=0", "-DPM_FP8=0", "-gencode=arch=compute_90a,code=sm_90a"):
        assert f in flags
    fp8 = make_problem("4096x4096x4096", "fp8")
    assert "-DPM_FP8=1" in kernel_flags(fp8, derive(fp8, H100, (128, 128, 128)).config, H100)
    # no variant of our kernel: Blackwell, tf32, MN-major
    assert kernel_flags(BF16, derive(BF16, B200, (128, 256, 64)).config, B200) is None
    tf32 = make_problem("4096x4096x4096", "tf32")
    assert kernel_flags(tf32, derive(tf32, H100, (128, 128, 32)).config, H100) is None


def test_cutlass_description_names_tile_cluster_and_schedules():
    d = cutlass_description(BF16, sm90_cfg(), H100)
    assert d["tile_description"] == "128x256x64_2x1x1_4"
    assert d["procedural_name"].startswith("cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_")
    assert d["KernelSchedule"].endswith("KernelTmaWarpSpecializedCooperative")
    pair = derive(BF16, B200, (128, 256, 64), cluster=(2, 1), cta_group=2).config
    d2 = cutlass_description(BF16, pair, B200)
    assert d2["MmaTileShape_MNK"] == [256, 256, 64] and "2SmSm100" in d2["KernelSchedule"]


def test_triton_export_only_where_triton_can_build_it():
    cfg = derive(BF16, H100, (128, 256, 64), stages=4, consumers=2, cluster=(1, 1), group_size=8).config
    t = to_triton_config(BF16, cfg, H100)
    assert t["kwargs"] == {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}
    assert (t["num_warps"], t["num_stages"], t["num_ctas"]) == (8, 4, 1)
    # block sizes Triton rejects (not a power of two) and clusters have no Triton equivalent
    odd = derive(BF16, H100, (128, 192, 64), stages=4, consumers=2, cluster=(1, 1)).config
    assert to_triton_config(BF16, odd, H100) is None and "triton-block-pow2" in export_reason(BF16, odd, H100)
    assert to_triton_config(BF16, sm90_cfg(), H100) is None          # a 2x1 cluster
    pair = derive(BF16, B200, (128, 256, 64), cluster=(2, 1), cta_group=2).config
    assert exports(BF16, pair, B200)["triton"] is None


class _Tensor:
    dtype = "torch.float16"


def test_perf_model_signature_returns_ms_fp16_works_and_inf_when_illegal():
    pm = matmul_perf_model("h100-sxm", dtype="bf16", kernel="triton-tma", dtype_from="a_ptr")
    # what triton.autotune passes: kernel args (nargs), then config.all_kwargs()
    ms = pm(a_ptr=_Tensor(), b_ptr=None, M=4096, N=4096, K=4096, stride_am=4096, BLOCK_M=128,
            BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=4, num_stages=4, num_ctas=1, maxnreg=None)
    assert 0.1 < ms < 2.0 and math.isfinite(ms)          # fp16 is predicted, not refused
    # shared memory Triton cannot allocate, and a block size it rejects
    assert pm(M=4096, N=4096, K=4096, BLOCK_M=256, BLOCK_N=256, BLOCK_K=128, num_warps=8, num_stages=6) == math.inf
    assert pm(M=4096, N=4096, K=4096, BLOCK_M=96, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=3) == math.inf


def test_perf_model_maps_the_kernels_own_argument_names():
    pm = matmul_perf_model("h100-sxm", kernel="triton-ptr",
                           names={"M": "m", "N": "n", "K": "k", "BLOCK_M": "BM", "BLOCK_N": "BN", "BLOCK_K": "BK"})
    ms = pm(m=2048, n=2048, k=2048, BM=128, BN=128, BK=64, GROUP_M=8, num_warps=4, num_stages=3)
    assert math.isfinite(ms) and ms > 0


def test_rank_orders_configs_best_first():
    cfgs = [{"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": w, "num_stages": 3}
            for bm, bn, w in [(64, 64, 4), (128, 256, 8), (128, 128, 4), (256, 256, 4)]]
    df = rank(cfgs, 8192, 8192, 8192, kernel="triton-tma")
    assert list(df["pred_ms"]) == sorted(df["pred_ms"])
    assert df.iloc[-1]["BLOCK_M"] == 256 and math.isinf(df.iloc[-1]["pred_ms"]) and df.iloc[-1]["reason"]
    assert df.iloc[0]["config"] in cfgs
