"""Hardware specs: every shipped file loads with a source per value; broken files are rejected by name."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from perfmodel import Arch, HardwareSpecError, UnknownGpuError, list_gpus, load_hardware
from perfmodel.hardware import _SECTIONS, hardware_dir, parse_hardware

GOOD = (hardware_dir() / "h100-sxm.toml").read_text()


def test_the_issue_gpus_are_shipped():
    assert {"h100-sxm", "h200", "b200"} <= set(list_gpus())


@pytest.mark.parametrize("name", list_gpus())
def test_every_shipped_file_loads_with_a_source_for_every_value(name):
    hw = load_hardware(name)
    assert hw.name == name and hw.fingerprint
    for sec in _SECTIONS:
        for f in dataclasses.fields(getattr(hw, sec)):
            if getattr(getattr(hw, sec), f.name) is not None:
                assert hw.source_of(f"{sec}.{f.name}").strip()
    if hw.arch is Arch.SM100A:
        assert hw.tmem.columns == 512 and hw.tensor_core.mxf4nvf4_flops_per_clock_per_sm
    assert hw.smem.per_block_optin_bytes <= hw.smem.per_sm_bytes


def test_underscore_name_and_path_load_the_same_spec():
    assert load_hardware("h100_sxm") == load_hardware("h100-sxm")
    assert load_hardware(str(hardware_dir() / "h100-sxm.toml")) == load_hardware("h100-sxm")


def test_fingerprints_differ_between_gpus_and_follow_values():
    hw = load_hardware("h100-sxm")
    assert len({load_hardware(g).fingerprint for g in list_gpus()}) == len(list_gpus())
    changed = hw.with_values(**{"tma.latency_cycles": 700})
    assert changed.tma.latency_cycles == 700 and changed.fingerprint != hw.fingerprint
    with pytest.raises(KeyError):
        hw.with_values(**{"tma.no_such_key": 1})


def test_unknown_gpu_lists_the_known_ones():
    with pytest.raises(UnknownGpuError) as exc:
        load_hardware("h900")
    for name in list_gpus():
        assert name in str(exc.value)


def _sub(pattern: str, repl: str, text: str = GOOD) -> str:
    out, n = re.subn(pattern, repl, text, count=1, flags=re.M)
    assert n == 1, pattern
    return out


BROKEN = {
    "broken-toml": (GOOD.replace("[gpu]", "[gpu", 1), "<toml>"),
    "missing-key": (_sub(r"^sm_count = .*\n", ""), "gpu.sm_count"),
    "missing-section": (_sub(r"^\[sync\]\n(.*\n)*", ""), "sync"),
    "wrong-type": (_sub(r"^sm_count = \{ value = 132", 'sm_count = { value = "132"'), "gpu.sm_count"),
    "bool-value": (_sub(r"^sm_count = \{ value = 132", "sm_count = { value = true"), "gpu.sm_count"),
    "not-an-integer": (_sub(r"^sm_count = \{ value = 132", "sm_count = { value = 132.5"), "gpu.sm_count"),
    "out-of-range": (_sub(r"^bandwidth_bytes_per_s = \{ value = 3.35e12", "bandwidth_bytes_per_s = { value = 3.35e20"),
                     "hbm.bandwidth_bytes_per_s"),
    "no-source": (_sub(r"^sm_count = .*$", "sm_count = { value = 132 }"), "gpu.sm_count"),
    "empty-source": (_sub(r"^sm_count = .*$", 'sm_count = { value = 132, source = " " }'), "gpu.sm_count"),
    "bare-value": (_sub(r"^sm_count = .*$", "sm_count = 132"), "gpu.sm_count"),
    "unknown-key": (_sub(r"^\[gpu\]\n", '[gpu]\nwarp_size = { value = 32, source = "x" }\n'), "gpu.warp_size"),
    "unknown-section": (GOOD + '\n[nvlink]\nbandwidth = { value = 1, source = "x" }\n', "nvlink"),
    "unknown-arch": (_sub(r'^arch = "sm_90a"', 'arch = "sm_89"'), "meta.arch"),
    "missing-meta-name": (_sub(r'^name = "h100-sxm"\n', ""), "meta.name"),
    "boost-below-base": (_sub(r"^boost_hz = \{ value = 1.98e9", "boost_hz = { value = 1.0e9"), "clock.boost_hz"),
    "sm100-without-tmem": (_sub(r'^arch = "sm_90a"', 'arch = "sm_100a"'), "tmem.columns"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_file_is_rejected_naming_file_and_key(case, tmp_path: Path):
    text, key = BROKEN[case]
    path = tmp_path / f"{case}.toml"
    path.write_text(text)
    with pytest.raises(HardwareSpecError) as exc:
        load_hardware(str(path))
    assert exc.value.path == str(path) and exc.value.key == key
    assert str(path) in str(exc.value) and key in str(exc.value) and "\n" not in str(exc.value)


def test_parse_accepts_the_good_text_and_missing_optional_keys():
    hw = parse_hardware(GOOD, "good.toml")
    assert hw.tensor_core.f4_flops_per_clock_per_sm is None   # optional: no fp4 on sm_90a
    assert hw == load_hardware("h100-sxm")


def test_missing_file_path_is_a_spec_error(tmp_path: Path):
    with pytest.raises(HardwareSpecError) as exc:
        load_hardware(str(tmp_path / "nothing.toml"))
    assert "nothing.toml" in str(exc.value)


def test_config_dir_override_is_honoured_after_a_cached_load(tmp_path: Path, monkeypatch):
    load_hardware("h100-sxm")
    (tmp_path / "hardware").mkdir()
    (tmp_path / "hardware" / "h100-sxm.toml").write_text(GOOD.replace("value = 132,", "value = 114,", 1))
    monkeypatch.setenv("PERFMODEL_CONFIG_DIR", str(tmp_path))
    assert list_gpus() == ["h100-sxm"]
    assert load_hardware("h100-sxm").sm_count == 114
    monkeypatch.delenv("PERFMODEL_CONFIG_DIR")
    assert load_hardware("h100-sxm").sm_count == 132
