"""Microbenchmark driver without a GPU: result parsing, derivation of hardware values, TOML rewriting,
the CLI's error paths, and (when nvcc is on PATH) compiling the CUDA sources for sm_90a."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from perfmodel import cli
from perfmodel.errors import PerfmodelError
from perfmodel.hardware import hardware_dir, parse_hardware
from perfmodel.microbench import MicrobenchError, suite, wgmma_gen
from perfmodel.microbench.derive import derive_updates, fit_line, rounded
from perfmodel.microbench.report import summary_table, write_csvs
from perfmodel.microbench.runner import parse_records, run_program
from perfmodel.microbench.tomledit import apply_to_file, apply_updates, format_value

H100 = hardware_dir() / "h100-sxm.toml"


def fake_doc(quick: bool = False) -> dict:
    """A results document shaped like a real run, with numbers chosen so each derivation is checkable."""
    # TMA latency = 500 + bytes / 100 exactly: the fitted intercept must be 500.
    tma_lat = [{"bench": "tma_latency", "source": "l2", "swizzle": 128, "box_inner": 64, "box_outer": b // 128,
                "box_bytes": b, "cycles": 500 + b / 100} for b in (2048, 4096, 8192, 16384, 32768)]
    tma_lat.append({"bench": "tma_latency", "source": "hbm", "swizzle": 128, "box_inner": 64, "box_outer": 64,
                    "box_bytes": 8192, "cycles": 1400.0})
    recs = [
        {"bench": "device", "name": "NVIDIA H100 80GB HBM3", "sm_count": 132, "l2_bytes": 52428800},
        *tma_lat,
        {"bench": "tma_issue", "burst": 1, "box_bytes": 256, "plain_issue_cycles": 40.0, "multicast_issue_cycles": 60.0},
        {"bench": "tma_issue", "burst": 16, "box_bytes": 256, "plain_issue_cycles": 12.0,
         "multicast_issue_cycles": 20.5},
        {"bench": "tma_issue", "burst": 16, "box_bytes": 8192, "plain_issue_cycles": 80.0,
         "multicast_issue_cycles": 80.0},   # data-rate bound: not the issue cost
        {"bench": "tma_stream", "source": "l2", "swizzle": 128, "box_inner": 64, "box_outer": 64, "box_bytes": 8192,
         "stages": 8, "ctas": 1, "bytes_per_clock_per_sm": 90.0},
        {"bench": "tma_stream", "source": "l2", "swizzle": 128, "box_inner": 64, "box_outer": 256,
         "box_bytes": 32768, "stages": 6, "ctas": 1, "bytes_per_clock_per_sm": 110.0},
        {"bench": "tma_stream", "source": "l2", "swizzle": 32, "box_inner": 16, "box_outer": 256,
         "box_bytes": 8192, "stages": 8, "ctas": 1, "bytes_per_clock_per_sm": 300.0},   # not 128B: ignored
        {"bench": "tma_stream", "source": "l2", "swizzle": 128, "box_inner": 64, "box_outer": 256,
         "box_bytes": 32768, "stages": 6, "ctas": 132, "bytes_per_clock_per_sm": 35.0,   # chip-wide
         "chip_bytes_per_s": 8.1e12, "sm_clock_hz": 1.8e9},
        {"bench": "mbarrier_local", "arrive_wait_roundtrip_cycles": 40.0, "try_wait_completed_cycles": 8.5,
         "test_wait_completed_cycles": 7.0, "arrive_issue_cycles": 4.25, "arrive_dependent_cycles": 20.0},
        {"bench": "smem_read_bw", "load_bytes": 16, "ctas": 1, "threads": 1024, "bytes_per_clock_per_sm": 127.0},
        {"bench": "smem_read_bw", "load_bytes": 16, "ctas": 132, "threads": 1024, "bytes_per_clock_per_sm": 126.0},
        {"bench": "smem_read_bw", "load_bytes": 4, "ctas": 132, "threads": 1024, "bytes_per_clock_per_sm": 120.0},
        {"bench": "smem_latency", "hops": 4096, "cycles": 30.0},
        {"bench": "l2_latency", "region_bytes": 1 << 20, "cycles": 250.0},
        {"bench": "l2_latency", "region_bytes": 4 << 20, "cycles": 270.0},
        {"bench": "l2_latency", "region_bytes": 32 << 20, "cycles": 400.0},
        {"bench": "l2_read_bw", "working_set_bytes": 16 << 20, "bytes_per_s": 9e12, "sm_clock_hz": 1.8e9,
         "bytes_per_clock": 5000.0},
        {"bench": "l2_read_bw", "working_set_bytes": 64 << 20, "bytes_per_s": 9.9e12, "sm_clock_hz": 1.8e9,
         "bytes_per_clock": 5500.0},   # larger than L2: ignored
        {"bench": "hbm_read_bw", "bytes": 2 << 30, "bytes_per_s": 3.0e12, "sm_clock_hz": 1.9e9},
        {"bench": "hbm_copy_bw", "bytes_moved": 2 << 30, "bytes_per_s": 2.9e12},
        {"bench": "hbm_latency", "region_bytes": 64 << 20, "cycles": 800.0},
        {"bench": "hbm_latency", "region_bytes": 2 << 30, "cycles": 1100.0},
        {"bench": "wgmma_latency", "dtype": "bf16", "n": 8, "k": 16, "issue_to_wait_cycles": 19.0,
         "chain_cycles_per_wgmma": 10.0},
        {"bench": "wgmma_latency", "dtype": "bf16", "n": 256, "k": 16, "issue_to_wait_cycles": 140.0,
         "chain_cycles_per_wgmma": 130.0},
        {"bench": "wgmma_throughput", "dtype": "bf16", "n": 256, "k": 16, "warpgroups": 2,
         "flops_per_clock_per_sm": 4000.0, "tflops": 900.0},
        {"bench": "burn", "median_kernel_clock_hz": 1.59e9, "launches": 100, "seconds": 15, "median_tflops": 850},
    ]
    samples = [{"clocks.sm": 1755.0, "clocks.max.sm": 1980.0, "power.draw": 690.0, "power.limit": 700.0,
                "temperature.gpu": 60.0, "t": 1.0}]
    return {"schema": suite.SCHEMA, "quick": quick, "records": recs, "programs": [],
            "provenance": {"date": "2026-11-21", "utc": "2026-11-21T10:00:00Z", "command": "python3 -m x",
                           "nvcc": "Build cuda_13.0", "nvidia_smi": {"name": "NVIDIA H100 80GB HBM3"}},
            "clocks": {"nvidia_smi": True, "samples": samples,
                       "idle": {"samples": 10, "seconds": 3.0, "median_sm_mhz": 345.0},
                       "load": {"samples": 60, "seconds": 13.0, "median_sm_mhz": 1755.0,
                                "median_power_w": 690.0, "power_limit_w": 700.0}}}


def by_key(doc, datasheet=3.35e12):
    return {u.key: u for u in derive_updates(doc, datasheet)}


# ---------------------------------------------------------------- parsing and running programs
def test_parse_records_reads_only_mb_lines():
    text = 'warming up\nMB {"bench": "a", "x": 1}\nnoise MB {"bench": "b"}\nMB {"bench": "c", "y": 2.5}\n'
    assert parse_records(text) == [{"bench": "a", "x": 1}, {"bench": "c", "y": 2.5}]


@pytest.mark.parametrize("line", ['MB {"bench": "a", ', 'MB {"x": 1}', "MB [1, 2]"])
def test_parse_records_rejects_malformed_lines(line):
    with pytest.raises(MicrobenchError):
        parse_records(line + "\n")


def _script(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "prog.py"
    p.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    p.chmod(0o755)
    return p


def test_run_program_collects_records_and_first_seen_times(tmp_path):
    prog = _script(tmp_path, """
        import sys
        print('MB {"bench": "burn_start"}'); print("log line")
        print('MB {"bench": "burn", "arg": "%s"}' % sys.argv[1])
    """)
    run = run_program(str(prog), ["7"], timeout_s=60)
    assert [r["bench"] for r in run.records] == ["burn_start", "burn"]
    assert run.records[1]["arg"] == "7"
    assert set(run.line_times) == {"burn_start", "burn"}
    assert run.line_times["burn_start"] <= run.line_times["burn"]


def test_run_program_failure_and_timeout_are_errors(tmp_path):
    prog = _script(tmp_path, "import sys\nsys.stderr.write('CUDA error: no device\\n'); sys.exit(3)\n")
    with pytest.raises(MicrobenchError, match="no device"):
        run_program(str(prog), [], timeout_s=60)
    slow = _script(tmp_path, "import time\ntime.sleep(30)\n")
    with pytest.raises(MicrobenchError, match="killed"):
        run_program(str(slow), [], timeout_s=0.5)


# ---------------------------------------------------------------- derivation
def test_fit_line_recovers_slope_and_intercept():
    slope, intercept = fit_line([1.0, 2.0, 4.0], [7.0, 9.0, 13.0])
    assert slope == pytest.approx(2.0) and intercept == pytest.approx(5.0)


def test_derive_updates_maps_each_benchmark_to_its_key():
    u = by_key(fake_doc())
    assert u["tma.latency_cycles"].value == pytest.approx(500.0)
    assert u["tma.issue_cycles"].value == 12.0                      # the longest burst
    assert u["tma.multicast_issue_cycles"].value == pytest.approx(8.5)
    assert u["tma.bytes_per_clock_per_sm"].value == 110.0            # best 128B single-CTA box
    assert u["sync.mbarrier_wait_cycles"].value == 8.5
    assert u["sync.mbarrier_arrive_cycles"].value == 4.25
    assert u["smem.read_bytes_per_clock_per_sm"].value == 126.0      # all SMs, best width; 98% < 99%: as measured
    assert u["smem.latency_cycles"].value == 30.0
    assert u["l2.bandwidth_bytes_per_clock"].value == 5000.0         # loads beat TMA's 4500; > L2 ignored
    assert u["l2.hit_latency_cycles"].value == 270.0                 # the 4 MiB region
    assert u["hbm.achievable_fraction"].value == pytest.approx(3.0 / 3.35)
    assert u["hbm.latency_cycles"].value == 800.0                    # TLB-warm region
    assert u["clock.sustained_tensor_hz"].value == pytest.approx(1.59e9)   # in-kernel, not nvidia-smi
    assert "1755 MHz" in u["clock.sustained_tensor_hz"].detail
    assert "tensor_core.mma_min_latency_cycles" not in u   # SS issue->completion is not the model's floor


def test_derive_falls_back_and_skips_missing_benchmarks():
    doc = fake_doc()
    doc["records"] = [r for r in doc["records"] if r["bench"] not in ("tma_issue", "hbm_read_bw", "burn")]
    u = by_key(doc, datasheet=None)
    assert u["clock.sustained_tensor_hz"].value == pytest.approx(1.755e9)   # nvidia-smi when no burn record
    assert "tma.issue_cycles" not in u and "hbm.achievable_fraction" not in u
    # one box size only: no fit, the measured latency itself
    doc["records"] = [r for r in doc["records"] if not (r["bench"] == "tma_latency" and r["box_bytes"] != 8192)]
    assert by_key(doc)["tma.latency_cycles"].value == pytest.approx(500 + 8192 / 100)


def test_smem_bandwidth_within_one_percent_of_the_bank_limit_confirms_it():
    doc = fake_doc()
    for r in doc["records"]:
        if r["bench"] == "smem_read_bw" and r["ctas"] == 132 and r["load_bytes"] == 16:
            r["bytes_per_clock_per_sm"] = 127.2
    u = by_key(doc)["smem.read_bytes_per_clock_per_sm"]
    assert u.value == 128 and "measured 127.2" in u.detail


def test_multicast_issue_cost_never_negative():
    doc = fake_doc()
    for r in doc["records"]:
        if r["bench"] == "tma_issue":
            r["multicast_issue_cycles"] = r["plain_issue_cycles"] - 3
    assert by_key(doc)["tma.multicast_issue_cycles"].value == 0.0


def test_rounding_and_formatting():
    assert rounded("clock.sustained_tensor_hz", 1.7554e9) == 1.755e9
    assert rounded("hbm.achievable_fraction", 0.89554) == 0.896
    assert rounded("tma.latency_cycles", 512.349) == 512.3
    assert format_value(1.755e9) == "1.7550e9"
    assert format_value(612.0) == "612" and format_value(0.896) == "0.896"


# ---------------------------------------------------------------- TOML rewriting
def test_apply_updates_changes_only_owned_lines_and_still_loads():
    text = H100.read_text()
    doc = fake_doc()
    ups = suite.toml_updates(doc, derive_updates(doc, 3.35e12))
    new = apply_updates(text, ups)
    spec = parse_hardware(new, "updated.toml")
    assert spec.tma.latency_cycles == 500.0
    assert spec.clock.sustained_tensor_hz == 1.59e9
    assert spec.sources["tma.issue_cycles"].startswith("our microbench mb_tma/tma_issue, NVIDIA H100 80GB HBM3, "
                                                       "2026-11-21, command: python3 -m x")
    old_lines, new_lines = text.splitlines(), new.splitlines()
    assert len(old_lines) == len(new_lines)
    changed = [o.split("=")[0].strip() for o, n in zip(old_lines, new_lines) if o != n]
    assert sorted(changed) == sorted(k.split(".")[1] for k in ups)


def test_apply_updates_refuses_unknown_keys_and_malformed_lines():
    with pytest.raises(MicrobenchError, match="tma.no_such_key"):
        apply_updates(H100.read_text(), {"tma.no_such_key": (1.0, "x")})
    with pytest.raises(MicrobenchError, match="not '"):
        apply_updates("[tma]\nlatency_cycles = { v = 3 }\n", {"tma.latency_cycles": (1.0, "x")})


def test_apply_updates_keeps_extra_fields_comments_and_escapes_quotes():
    text = '[sync]\nmbarrier_wait_cycles = { value = 30, source = "old", note = "n" }  # keep\n'
    new = apply_updates(text, {"sync.mbarrier_wait_cycles": (8.5, 'cmd --x "y"')})
    assert new == ('[sync]\nmbarrier_wait_cycles = { value = 8.5, source = "cmd --x \\"y\\"", note = "n" }'
                   "  # keep\n")


def test_apply_to_file_validates_before_writing(tmp_path):
    p = tmp_path / "h100-sxm.toml"
    p.write_text(H100.read_text())
    with pytest.raises(PerfmodelError, match="hbm.achievable_fraction"):
        apply_to_file(p, {"hbm.achievable_fraction": (7.0, "impossible")})
    assert p.read_text() == H100.read_text()


# ---------------------------------------------------------------- CLI
def test_calibrate_needs_microbench_flag(capsys):
    assert cli.main(["calibrate"]) == 2
    assert "--microbench" in capsys.readouterr().err


def test_calibrate_without_nvcc_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(suite, "find_nvcc", lambda: None)
    assert cli.main(["calibrate", "--microbench", "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert "nvcc not found" in err and "Traceback" not in err


def test_calibrate_from_json_applies_and_refuses_quick_runs(tmp_path, capsys):
    toml = tmp_path / "h100-sxm.toml"
    toml.write_text(H100.read_text())
    res = tmp_path / "run.json"
    res.write_text(json.dumps(fake_doc()))
    assert cli.main(["calibrate", "--microbench", "--from-json", str(res), "--apply", str(toml)]) == 0
    out = capsys.readouterr().out
    assert "tma.latency_cycles" in out and "updated 14 keys" in out   # + tensor_core.mma_issue_overhead_cycles
    assert parse_hardware(toml.read_text()).hbm.latency_cycles == 800.0
    res.write_text(json.dumps(fake_doc(quick=True)))
    assert cli.main(["calibrate", "--microbench", "--from-json", str(res), "--apply", str(toml)]) == 2
    res.write_text(json.dumps({"schema": "other"}))
    assert cli.main(["calibrate", "--microbench", "--from-json", str(res)]) == 2


def test_other_product_writes_die_level_keys_only(tmp_path, capsys):
    toml = tmp_path / "h100-sxm.toml"
    toml.write_text(H100.read_text())
    doc = fake_doc()
    doc["provenance"]["nvidia_smi"]["name"] = "NVIDIA H200"
    res = tmp_path / "run.json"
    res.write_text(json.dumps(doc))
    assert cli.main(["calibrate", "--microbench", "--from-json", str(res), "--apply", str(toml)]) == 0
    out = capsys.readouterr().out
    assert "die-level keys only" in out and "updated 9 keys" in out   # + tensor_core.mma_issue_overhead_cycles
    spec, before = parse_hardware(toml.read_text()), parse_hardware(H100.read_text())
    assert spec.tma.latency_cycles == 500.0 and "NVIDIA H200" in spec.sources["tma.latency_cycles"]
    assert spec.hbm == before.hbm and spec.l2 == before.l2 and spec.clock == before.clock


def test_product_codes():
    from perfmodel.microbench.derive import product_of
    assert product_of("NVIDIA H100 80GB HBM3") == product_of("NVIDIA H100 SXM5 80GB HBM3") == "H100"
    assert product_of("NVIDIA H200") == "H200" and product_of("NVIDIA GB200") == "GB200"
    assert product_of("Tesla V100") is None


def test_report_table_and_csvs(tmp_path):
    doc = fake_doc()
    table = summary_table(doc, derive_updates(doc, 3.35e12))
    assert "NVIDIA H100 80GB HBM3" in table and "1755 MHz" in table
    wg = [ln for ln in table.splitlines() if ln.startswith("bf16") and ln.split()[1] == "256"][0]
    assert wg.split()[4] == "128"                   # Luo et al. latency shown beside ours
    files = {p.name for p in write_csvs(doc, tmp_path / "csv")}
    assert {"tma_latency.csv", "wgmma_latency.csv", "nvidia_smi_clocks.csv"} <= files
    header = (tmp_path / "csv" / "tma_latency.csv").read_text().splitlines()[0]
    assert header.startswith("bench,source,swizzle")


def test_generated_wgmma_header_is_current():
    assert wgmma_gen.header_path().read_text() == wgmma_gen.render()
    assert "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3" in wgmma_gen.render()


def test_driver_imports_with_the_standard_library_only():
    """The GPU machine has no simpy/optuna/pandas/numpy for us: the driver must not import them."""
    import subprocess
    code = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in {'simpy', 'pandas', 'optuna', 'numpy', 'matplotlib', 'scipy'}:
                    raise ImportError('blocked ' + name)
        sys.meta_path.insert(0, Block())
        import perfmodel.microbench.__main__, perfmodel.microbench.suite
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr[-400:]


def test_l2_bandwidth_takes_tma_when_it_beats_loads():
    doc = fake_doc()
    for r in doc["records"]:
        if r["bench"] == "tma_stream" and r["ctas"] == 132:
            r["chip_bytes_per_s"] = 9.9e12     # 5500 B/clk at 1.8 GHz > 5000 from loads
    u = by_key(doc)["l2.bandwidth_bytes_per_clock"]
    assert u.value == pytest.approx(5500.0) and u.bench == "mb_tma/tma_stream"
    assert "reaches 5000 B/clk" in u.detail


PITCH_RUN = Path(__file__).resolve().parents[1] / "data/microbench/h100-80gb-hbm3-2026-11-23-pitch.json"


def test_pitch_parameters_reproduce_from_the_committed_run():
    """mb_pitch on the H100 (2026-11-23) -> the tma.* alignment keys in h100-sxm.toml, in the standard
    library only (the derivation runs on the GPU machine too)."""
    doc = suite.load_results(str(PITCH_RUN))
    hw = parse_hardware(H100.read_text(), str(H100))
    got = {u.key: rounded(u.key, u.value) for u in derive_updates(doc, None, hw.tma.l2_efficiency_128b)}
    t = hw.tma
    assert got == {"tma.sector_bytes": t.sector_bytes, "tma.line_bytes": t.line_bytes,
                   "tma.request_cycles": t.request_cycles, "tma.l2_request_bytes": t.l2_request_bytes,
                   "tma.l2_sector_bytes": t.l2_sector_bytes, "tma.store_l2_request_bytes": t.store_l2_request_bytes,
                   "tma.store_l2_sector_bytes": t.store_l2_sector_bytes}
    assert 0.95 < t.request_cycles < 1.05
    # without the hardware file's aligned-row cost the L2 bytes cannot be stated: those keys are skipped
    assert "tma.l2_request_bytes" not in {u.key for u in derive_updates(doc, None)}


def test_only_selects_programs_in_run_order():
    ns = type("A", (), {"only": "mb_pitch,mb_sync"})()
    assert suite._selected(ns) == ("mb_sync", "mb_pitch")
    assert suite._selected(type("A", (), {"only": None})()) == suite.RUN_ORDER
    with pytest.raises(MicrobenchError, match="unknown program"):
        suite._selected(type("A", (), {"only": "mb_nope"})())


def test_parse_ncu_csv_groups_metrics_by_launch():
    text = "\n".join([
        "==PROF== Connected to process",
        '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"',
        '"1","pitch_load_kernel(CUtensorMap, int)","lts__t_requests.sum","request","2,000"',
        '"0","pitch_load_kernel(CUtensorMap, int)","lts__t_sectors.sum","sector","1,234,567"',
        '"0","pitch_load_kernel(CUtensorMap, int)","lts__t_requests.sum","request","10"',
    ])
    assert suite.parse_ncu_csv(text) == [{"lts__t_sectors.sum": 1234567.0, "lts__t_requests.sum": 10.0},
                                         {"lts__t_requests.sum": 2000.0}]


def test_parse_ncu_csv_keeps_the_named_kernels_launches():
    text = "\n".join([
        '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"',
        '"0","fill_random_u16(unsigned short *)","dram__bytes_read.sum","byte","3,584"',
        '"1","tma_gemm_walk_kernel(CUtensorMap_st)","dram__bytes_read.sum","byte","2,850,731,520"',
    ])
    assert suite.parse_ncu_csv(text, kernel="walk") == [{"dram__bytes_read.sum": 2850731520.0}]
    assert len(suite.parse_ncu_csv(text)) == 2


def test_launch_parameters_reproduce_from_the_committed_runs():
    """mb_stream (2026-11-24) and mb_wgmma --gap (2026-11-25) on the H100 -> gpu.launch_overhead_s and
    gpu.launch_gap_s in h100-sxm.toml (what the SMs idle between two event-timed launches: sim/power.py)."""
    root = Path(__file__).resolve().parents[1] / "data/microbench"
    hw = parse_hardware(H100.read_text(), str(H100))
    got = {}
    for name in ("h100-80gb-hbm3-2026-11-24-stream.json", "h100-80gb-hbm3-2026-11-25-gap.json"):
        got.update({u.key: rounded(u.key, u.value) for u in derive_updates(suite.load_results(str(root / name)), None)
                    if u.key.startswith("gpu.")})
    assert got == {"gpu.launch_overhead_s": hw.gpu.launch_overhead_s, "gpu.launch_gap_s": hw.gpu.launch_gap_s}
    assert 1e-6 < hw.gpu.launch_gap_s < hw.gpu.launch_overhead_s


def test_a_failed_write_leaves_the_hardware_file_whole(tmp_path, monkeypatch):
    """--apply writes a temporary file beside the hardware file and renames it over: a write that fails (disk full,
    a file-size limit) is one error naming the file, and the file keeps every byte; through a symbolic link the
    link stays a link."""
    p = tmp_path / "h100.toml"
    p.write_text(H100.read_text())
    before = p.read_bytes()
    real = Path.write_text

    def full_disk(self, *a, **k):
        if self.name.endswith(".tmp"):
            real(self, "partial")
            raise OSError(28, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", full_disk)
    with pytest.raises(MicrobenchError, match="No space left on device.*unchanged"):
        apply_to_file(p, {"gpu.launch_gap_s": (2e-6, "test")})
    assert p.read_bytes() == before and sorted(x.name for x in tmp_path.iterdir()) == ["h100.toml"]
    monkeypatch.setattr(Path, "write_text", real)
    link = tmp_path / "link.toml"
    link.symlink_to(p)
    apply_to_file(link, {"gpu.launch_gap_s": (2e-6, "test")})
    assert link.is_symlink() and parse_hardware(p.read_text(), str(p)).gpu.launch_gap_s == 2e-6


def test_the_short_power_ratio_reproduces_from_the_committed_transient_run():
    """mb_wgmma --transient (H100, 2026-11-25) with the hardware file's power model -> clock.short_power_ratio 1.22;
    without the power model (a file that lacks it) the key is not derived."""
    run = Path(__file__).resolve().parents[1] / "data/microbench/h100-80gb-hbm3-2026-11-25-transient.json"
    doc = suite.load_results(str(run))
    hw = parse_hardware(H100.read_text(), str(H100))
    power = suite._power_model(suite._toml_doc(H100))
    got = {u.key: rounded(u.key, u.value) for u in derive_updates(doc, None, None, power)}
    assert got == {"clock.short_power_ratio": hw.clock.short_power_ratio}
    assert not derive_updates(doc, None, None, None)


def test_oob_land_table_pairs_each_zero_fill_ring_with_its_in_bounds_twin(capsys):
    """benchmarks/derive_oob_cost.py --land on the committed mb_tma --oob-land run: every zero-fill ring has a row, and
    its growth is the landing's difference to its twin over the grid's zero-fill bytes."""
    import importlib.util
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("derive_oob_cost", root / "benchmarks/derive_oob_cost.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    first = root / "data/microbench/h100-80gb-hbm3-2026-11-26-oob-land.json"
    assert mod.main(["--land", str(first)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("  L2 ", "  HBM "))]
    assert len(rows) == 20                      # 2 B sources x (3 + 3 + 2 + 2) zero-fill rings
    # 128-row box, 112 rows of zero fill, 2 stages, B L2-resident, 112 CTAs: (3448.5 - 1420.5) / (112 x 128 x 112)
    assert "112:  1813/ 3448 ( 813/ 1420) +1.26" in out
    # the zero fill's wait from every committed run, as configs/hardware/h100-sxm.toml holds it
    assert mod.main(["--land"]) == 0
    out = capsys.readouterr().out
    from perfmodel.hardware import load_hardware
    tma = load_hardware("h100-sxm").tma
    assert (f"NVIDIA H100 80GB HBM3: the zero fill's wait, 2-stage rings with B from HBM, 4 files (64 rings): "
            f"tma.oob_wait_cycles_per_byte = {tma.oob_wait_cycles_per_byte:.3g}, "
            f"tma.oob_wait_free_bytes = {tma.oob_wait_free_bytes:.0f}") in out
    tma = load_hardware("h200").tma                        # the H200 from its own run
    assert (f"NVIDIA H200: the zero fill's wait, 2-stage rings with B from HBM, 1 files (16 rings): "
            f"tma.oob_wait_cycles_per_byte = {tma.oob_wait_cycles_per_byte:.3g}, "
            f"tma.oob_wait_free_bytes = {tma.oob_wait_free_bytes:.0f}") in out
    assert mod.main(["--land", str(root / "pyproject.toml")]) == 2
