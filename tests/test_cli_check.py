"""`perfmodel check`, `gpus` and `rules` through cli.main, and once through `python -m perfmodel`."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from perfmodel import list_gpus
from perfmodel.cli import main
from perfmodel.legality import RULES

CHECK = ["check", "--gpu", "h100-sxm", "--problem", "8192x8192x8192", "--dtype", "bf16"]
DONE_NAME = "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"


def run(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:          # argparse usage errors
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def test_done_when_legal_config_prints_its_canonical_name(capsys):
    rc, out, err = run(CHECK + ["--tile", "128x256x64"], capsys)
    assert rc == 0 and err == ""
    assert f"config   {DONE_NAME}" in out and "legal" in out.splitlines()[-1]
    assert "derived  stages=4" in out


def test_done_when_cta_group_2_on_hopper_exits_1_naming_rule_and_section(capsys):
    rc, out, _ = run(CHECK + ["--tile", "256x128x64", "--cta-group", "2"], capsys)
    assert rc == 1 and "ILLEGAL" in out
    line = next(l for l in out.splitlines() if "[cta-group-arch]" in l)
    assert "PTX ISA 9.0 §9.7.16" in line and "sm_90a" in line


def test_unknown_gpu_exits_2_listing_known_gpus(capsys):
    rc, out, err = run(["check", "--gpu", "h900", "--problem", "8192x8192x8192"], capsys)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "h900" in err
    for name in list_gpus():
        assert name in err


@pytest.mark.parametrize("extra,needle", [
    (["--problem", "8192x8192"], "shape"),
    (["--problem", "0x8x8"], "zero"),
    (["--tile", "128x256"], "--tile"),
    (["--tile", "128x0x64"], "--tile"),
    (["--cluster", "2"], "--cluster"),
    (["--mma", "64x256"], "--mma"),
    (["--dtype", "bf17"], "bf17"),
    (["--config", "not-a-name"], "canonical"),
    (["--stages", "many"], "--stages"),
    (["--swizzle", "96"], "swizzle"),
    (["--gpu", "/nonexistent/gpu.toml"], "gpu.toml"),
])
def test_usage_errors_are_one_line_exit_2_no_traceback(extra, needle, capsys):
    argv = list(CHECK) + ["--tile", "128x256x64"]
    for flag, value in zip(extra[::2], extra[1::2]):
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    rc, out, err = run(argv, capsys)
    assert rc == 2, (rc, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and needle in err


def test_broken_hardware_file_names_file_and_key(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[meta]\nname = "bad"\nmarketing_name = "x"\narch = "sm_90a"\n')
    rc, _, err = run(["check", "--gpu", str(bad), "--problem", "64x64x64"], capsys)
    assert rc == 2 and str(bad) in err and "gpu" in err


def test_config_name_round_trips_through_check(capsys):
    rc, out, _ = run(CHECK + ["--config", DONE_NAME], capsys)
    assert rc == 0 and DONE_NAME in out and "from --config" in out


@pytest.mark.parametrize("tile,extra,rc_want", [("128x256x64", [], 0), ("256x128x64", ["--cta-group", "2"], 1)])
def test_json_output_parses(tile, extra, rc_want, capsys):
    rc, out, _ = run(CHECK + ["--tile", tile, "--json"] + extra, capsys)
    doc = json.loads(out)
    assert rc == rc_want and doc["legal"] is (rc_want == 0)
    assert doc["config"] and isinstance(doc["derived"], list)
    for v in doc["violations"]:
        assert set(v) == {"rule", "reason", "ptx_section"}
    if rc_want:
        assert "cta-group-arch" in [v["rule"] for v in doc["violations"]]


def test_blackwell_block_scaled_check(capsys):
    rc, out, _ = run(["check", "--gpu", "b200", "--problem", "8192x8192x8192", "--dtype", "nvfp4",
                      "--tile", "128x256x256", "--cta-group", "2"], capsys)
    assert rc == 0 and "_acc1_" in out
    rc, out, _ = run(["check", "--gpu", "b200", "--problem", "8192x8192x8192", "--dtype", "nvfp4",
                      "--tile", "128x256x256", "--cta-group", "2", "--acc-buffers", "2"], capsys)
    assert rc == 1 and "[tmem-capacity]" in out and "§9.7.16.7.1" in out


def test_gpus_lists_every_gpu(capsys):
    rc, out, _ = run(["gpus"], capsys)
    assert rc == 0 and all(name in out for name in list_gpus())
    rc, out, _ = run(["gpus", "--json"], capsys)
    assert rc == 0 and {r["name"] for r in json.loads(out)} == set(list_gpus())


def test_rules_lists_every_rule_with_its_section(capsys):
    rc, out, _ = run(["rules"], capsys)
    assert rc == 0 and f"{len(RULES)} rule(s)" in out
    for r in RULES:
        assert r.id in out and r.section in out
    rc, out, _ = run(["rules", "--json", "--grep", "tmem"], capsys)
    rows = json.loads(out)
    assert rc == 0 and "tmem-capacity" in {r["rule"] for r in rows}
    assert all("tmem" in f"{r['rule']} {r['section']} {r['summary']}".lower() for r in rows)


def test_missing_required_flag_is_exit_2(capsys):
    rc, _, err = run(["check", "--problem", "8x8x8"], capsys)
    assert rc == 2 and "--gpu" in err and len(err.strip().splitlines()) == 1


def test_python_dash_m_perfmodel():
    proc = subprocess.run([sys.executable, "-m", "perfmodel"] + CHECK + ["--tile", "128x256x64"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert DONE_NAME in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "perfmodel", "check", "--gpu", "h900", "--problem", "8x8x8"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "h100-sxm" in proc.stderr
