"""`perfmodel predict`: text, --json, --timeline PNG, --trace JSON, exit statuses."""
import json

import pytest

from perfmodel.cli import main

ARGS = ["predict", "--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--dtype", "bf16", "--tile", "128x256x64",
        "--cluster", "2x1"]


def test_text_output(capsys):
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    for word in ("TFLOP/s", "time (us)", "cycles", "bound", "utilisation", "stalls", "analytic", "MHz"):
        assert word in out


def test_json_output(capsys):
    assert main(ARGS + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("tflops", "time_us", "cycles", "bottleneck", "config", "utilization", "stall_cycles", "analytic"):
        assert key in d
    assert d["config"].startswith("128x256x64_") and d["tflops"] > 0 and d["legal"]


def test_clock_flag(capsys):
    assert main(ARGS + ["--json", "--clock", "1000"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["clock_hz"] == 1e9 and d["clock_regime"] == "fixed"
    assert main(ARGS + ["--json", "--clock", "boost"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["clock_hz"] == 1.831e9 and d["clock_regime"] == "boost"   # clock.tensor_max_hz


def test_the_power_line_says_what_sets_a_power_limited_clock(capsys):
    """sustained: the chip-wide activities, and the zero fill's lighter tensor power where tiles reach beyond the edge;
    a fixed clock has no power line."""
    skinny = ["predict", "--gpu", "h100-sxm", "--problem", "64x16384x28672", "--dtype", "bf16", "--config",
              "128x128x64_i64x128x16_cg1_cl1x1_mc0_s6_sw128-128_wg2_acc1_pm8_etma"]
    assert main(skinny) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("power"))
    assert "tensor cores" in line and "A rows 50%, B rows 100%, K 100%" in line and "0.74x" in line
    assert main(ARGS) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("power"))
    assert "tensor cores" in line and "zero fill" not in line
    assert main(ARGS + ["--clock", "1000"]) == 0
    assert not any(x.startswith("power") for x in capsys.readouterr().out.splitlines())


def test_timeline_and_trace(tmp_path, capsys):
    png, trace = tmp_path / "t.png", tmp_path / "t.json"
    assert main(ARGS + ["--timeline", str(png), "--trace", str(trace)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000
    events = json.loads(trace.read_text())["traceEvents"]
    rows = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"TMA producer", "MMA wg0", "MMA wg1", "Epilogue wg0"} <= rows
    spans = [e for e in events if e["ph"] == "X"]
    assert spans and all(e["dur"] >= 0 and e["ts"] >= 0 for e in spans)
    assert {"mma", "tma_load", "tma_issue", "epilogue"} <= {e["cat"] for e in spans}


def test_blackwell_timeline_rows(tmp_path):
    trace = tmp_path / "b.json"
    assert main(["predict", "--gpu", "b200", "--problem", "4096x4096x4096", "--tile", "128x256x64", "--cluster", "2x1",
                 "--cta-group", "2", "--trace", str(trace)]) == 0
    names = {e["args"]["name"] for e in json.loads(trace.read_text())["traceEvents"] if e["name"] == "thread_name"}
    assert {"MMA (tcgen05)", "Epilogue"} <= names


def test_illegal_exits_1_with_violations(capsys):
    assert main(ARGS + ["--cta-group", "2"]) == 1
    out = capsys.readouterr().out
    assert "ILLEGAL" in out and "cta-group-arch" in out and "PTX" in out


@pytest.mark.parametrize("bad", [["--gpu", "nope"], ["--problem", "12x"]])
def test_usage_errors_exit_2(capsys, bad):
    argv = list(ARGS)
    i = argv.index(bad[0])
    argv[i + 1] = bad[1]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
