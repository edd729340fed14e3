

def test_the_wgmma_issue_cost_is_what_our_microbenchmark_gives():
    """tensor_core.mma_issue_overhead_cycles of both Hopper files is mb_wgmma's: back-to-back wgmma of N >= 64 takes its
    math cycles + 0.08 (4088-4094 of 4096 FLOP per SM clock), on the H100 and on the H200."""
    import json
    import pathlib
    from perfmodel.hardware import load_hardware
    from perfmodel.microbench.derive import derive_updates, rounded
    root = pathlib.Path(__file__).resolve().parents[1] / "data/microbench"
    for name, gpu in (("h100-80gb-hbm3-2026-11-21.json", "h100-sxm"), ("h200-2026-11-21-060228.json", "h200")):
        got = [u for u in derive_updates(json.loads((root / name).read_text()), None)
               if u.key == "tensor_core.mma_issue_overhead_cycles"]
        assert len(got) == 1 and 0.0 <= got[0].value < 0.5
        assert rounded(got[0].key, got[0].value) == load_hardware(gpu).tensor_core.mma_issue_overhead_cycles
