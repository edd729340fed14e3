"""Exports of a configuration: our kernel's flags, CUTLASS names, Triton config and perf_model."""
import math

from perfmodel import derive, load_hardware, make_problem
from perfmodel.interop import exports
from perfmodel.interop.cutlass import cutlass_description
from perfmodel.interop.ours import kernel_flags
from perfmodel.interop.triton import from_triton_kwargs, to_triton_config, triton_perf_model
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


def test_triton_config_exists_only_without_a_cta_pair_and_round_trips():
    cfg = sm90_cfg()
    t = to_triton_config(cfg)
    assert t["kwargs"] == {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}
    assert (t["num_warps"], t["num_stages"], t["num_ctas"]) == (8, 4, 2)
    back = from_triton_kwargs({**t["kwargs"], "num_warps": 8, "num_stages": 4, "num_ctas": 2}, BF16, H100)
    assert (back.tile_m, back.tile_n, back.tile_k, back.stages, back.consumers, back.cluster_m) == \
           (128, 256, 64, 4, 2, 2)
    pair = derive(BF16, B200, (128, 256, 64), cluster=(2, 1), cta_group=2).config
    assert to_triton_config(pair) is None
    assert exports(BF16, pair, B200)["triton"] is None


class _Tensor:
    dtype = "torch.float8_e4m3fn"


def test_triton_perf_model_signature_returns_ms_and_inf_when_illegal():
    seen = []

    def predictor(problem, cfg, hw):
        seen.append(problem.a_dtype.value)
        return fake_objective(problem, cfg, hw)

    pm = triton_perf_model(H100, dtype_from="a_ptr", predictor=predictor)
    # what triton.autotune passes: kernel args (nargs), then config.all_kwargs()
    ms = pm(a_ptr=_Tensor(), b_ptr=None, M=4096, N=4096, K=4096, stride_am=4096, BLOCK_SIZE_M=128,
            BLOCK_SIZE_N=128, BLOCK_SIZE_K=128, GROUP_SIZE_M=8, num_warps=8, num_stages=4, num_ctas=1,
            maxnreg=None)
    expect = fake_objective(make_problem("4096x4096x4096", "fp8"),
                            from_triton_kwargs({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128,
                                                "GROUP_SIZE_M": 8, "num_warps": 8, "num_stages": 4},
                                               make_problem("4096x4096x4096", "fp8"), H100), H100).time_s * 1e3
    assert seen == ["e4m3"] and math.isclose(ms, expect)
    # 30 stages of 128x256x128 fp8 cannot fit in shared memory
    assert pm(M=4096, N=4096, K=4096, BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, num_warps=8,
              num_stages=30) == math.inf
