"""The bad-input contract at every door of the CLI (issue 11): a new user's mistakes -- missing,
empty, binary or broken files, directories given as files, impossible shapes and knobs, flags that
conflict, outputs that cannot be written, no GPU -- each end in ONE line on stderr
(``perfmodel: error: ...``, plus stated ``perfmodel: warning:`` lines) and exit status 2 (1 only for
an illegal configuration, which `check`/`predict` list on stdout), never a traceback, and no file that
existed before is changed (nothing already collected is lost or truncated).

Every case runs ``perfmodel.cli.main(argv)`` in-process from an empty working directory holding the
case's files; ``{tmp}`` in an argv is that directory. Checks that come before the work keep the
suite fast: no case simulates a huge shape or compiles anything.
"""
from __future__ import annotations

import json
import os
import pathlib
import stat
import sys
from dataclasses import dataclass, field

import pytest

from perfmodel import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
SMOKE = (ROOT / "data/measurements/h100_smoke.jsonl").read_bytes()
SMOKE_LINES = SMOKE.splitlines(keepends=True)
HEADER = SMOKE_LINES[0]
DATASET = b"".join(SMOKE_LINES[:12])                 # a small valid dataset (header + 11 rows)
H200_HEADER = (ROOT / "data/measurements/h200_smoke.jsonl").read_bytes().splitlines(keepends=True)[0]
H100_TOML = (ROOT / "configs/hardware/h100-sxm.toml").read_bytes()
CONFIG = "128x256x64_i64x256x16_cg1_cl1x1_mc0_s4_sw128-128_wg2_acc1_pm8_etma"
BINARY = b"\xff\xfe\x00binary\x81\n"
HUGE = "1000000000x1000000000x1000000000"
GAP_JSON = json.loads((ROOT / "data/microbench/h100-80gb-hbm3-2026-11-25-gap.json").read_text())


def _gap_json(edit) -> bytes:
    """The committed mb_wgmma --gap results with one field damaged."""
    doc = json.loads(json.dumps(GAP_JSON))
    edit(doc)
    return json.dumps(doc).encode()

P = ["--gpu", "h100-sxm", "--problem", "256x256x256"]          # a tiny, legal problem
T = ["--storage", "memory", "--trials", "2"]                    # a tune that would be quick


@dataclass
class Case:
    id: str
    argv: list[str]
    files: dict[str, bytes | None] = field(default_factory=dict)   # name -> bytes (None: a directory)
    codes: tuple[int, ...] = (2,)
    says: str = ""                   # a fragment the error line must contain (case-insensitive)
    env: dict[str, str] = field(default_factory=dict)
    absent: tuple[str, ...] = ()     # files that must not exist afterwards (nothing written)


def _sweep(body: str) -> bytes:
    return ('gpu = "h100-sxm"\n' + body).encode()


GOOD_SWEEP = _sweep('[[group]]\nshapes = ["256x256x256"]\nconfigs = [{ tile = "128x256x64" }]\n')

CASES = [
    # ------------------------------------------------------------------ the parser
    Case("no-command", []),
    Case("unknown-command", ["frobnicate"]),
    Case("gpus-unknown-flag", ["gpus", "--bogus"]),
    Case("rules-grep-without-value", ["rules", "--grep"]),
    # ------------------------------------------------------------------ check: GPU and hardware files
    Case("check-no-gpu-flag", ["check", "--problem", "256x256x256"]),
    Case("check-unknown-gpu", ["check", "--gpu", "h900", "--problem", "256x256x256"], says="unknown GPU"),
    Case("check-gpu-missing-toml", ["check", "--gpu", "{tmp}/missing.toml", "--problem", "8x8x8"], says="no such file"),
    Case("check-gpu-directory", ["check", "--gpu", "{tmp}/hwdir", "--problem", "8x8x8"], {"hwdir": None}),
    Case("check-gpu-empty-toml", ["check", "--gpu", "{tmp}/empty.toml", "--problem", "8x8x8"], {"empty.toml": b""}),
    Case("check-gpu-binary-toml", ["check", "--gpu", "{tmp}/bin.toml", "--problem", "8x8x8"], {"bin.toml": BINARY},
         says="utf-8"),
    Case("check-gpu-broken-toml", ["check", "--gpu", "{tmp}/bad.toml", "--problem", "8x8x8"],
         {"bad.toml": b"[meta\nname = "}, says="not valid toml"),
    Case("check-gpu-zero-sms", ["check", "--gpu", "{tmp}/zero.toml", "--problem", "8x8x8"],
         {"zero.toml": H100_TOML.replace(b"sm_count = { value = 132", b"sm_count = { value = 0")},
         says="gpu.sm_count"),
    # ------------------------------------------------------------------ check: shapes and types
    Case("problem-zero", ["check", "--gpu", "h100-sxm", "--problem", "0x5x5"], says="zero extent"),
    Case("problem-negative", ["check", "--gpu", "h100-sxm", "--problem=-5x5x5"]),
    Case("problem-two-dims", ["check", "--gpu", "h100-sxm", "--problem", "5x5"], says="malformed"),
    Case("problem-words", ["check", "--gpu", "h100-sxm", "--problem", "big"], says="malformed"),
    Case("problem-empty", ["check", "--gpu", "h100-sxm", "--problem", ""], says="malformed"),
    Case("problem-float", ["check", "--gpu", "h100-sxm", "--problem", "8.5x8x8"], says="malformed"),
    Case("problem-above-2^31", ["check", "--gpu", "h100-sxm", "--problem", "99999999999x8x8"], says="2^31"),
    Case("problem-exceeds-hbm", ["check", "--gpu", "h100-sxm", "--problem", HUGE], says="hbm-capacity"),
    Case("problem-exceeds-hbm-json", ["check", "--gpu", "h100-sxm", "--problem", "200000x200000x200000", "--json"],
         says="80 GiB"),
    Case("problem-exceeds-hbm-h200", ["check", "--gpu", "h200", "--problem", "300000x300000x300000"], says="h200"),
    Case("dtype-typo", ["check", *P, "--dtype", "bf61"], says="unknown dtype"),
    Case("dtype-empty", ["check", *P, "--dtype", ""], says="unknown dtype"),
    Case("major-bad", ["check", *P, "--a-major", "row"]),
    # ------------------------------------------------------------------ check: knobs
    Case("tile-zero", ["check", *P, "--tile", "0x256x64"], says="--tile"),
    Case("tile-two-dims", ["check", *P, "--tile", "128x256"], says="--tile"),
    Case("tile-words", ["check", *P, "--tile", "large"], says="--tile"),
    Case("cluster-zero", ["check", *P, "--cluster", "0x1"], says="--cluster"),
    Case("cluster-one-dim", ["check", *P, "--cluster", "2"], says="--cluster"),
    Case("mma-two-dims", ["check", *P, "--mma", "64x256"], says="--mma"),
    # non-positive counts are configurations the rules refuse (exit 1, the rule on stdout)
    Case("stages-negative", ["check", *P, "--stages", "-1"], codes=(1,), says="stages-min"),
    Case("stages-zero", ["predict", *P, "--stages", "0"], codes=(1,), says="stages-min"),
    Case("stages-word", ["check", *P, "--stages", "many"]),
    Case("consumers-zero", ["check", *P, "--consumers", "0"], codes=(1,), says="consumers=0"),
    Case("group-size-negative", ["check", *P, "--group-size", "-3"], codes=(1,), says="group_size=-3"),
    Case("acc-buffers-zero", ["check", *P, "--acc-buffers", "0"], codes=(1,), says="acc"),
    Case("swizzle-unknown", ["check", *P, "--swizzle", "48"]),
    Case("cta-group-3", ["check", *P, "--cta-group", "3"]),
    Case("kernel-unknown", ["check", *P, "--kernel", "cutlass"]),
    Case("config-garbage", ["check", *P, "--config", "fast-please"], says="canonical"),
    Case("config-with-tile", ["check", *P, "--config", CONFIG, "--tile", "64x64x64"], says="conflicts with --tile"),
    Case("config-with-stages", ["check", *P, "--config", CONFIG, "--stages", "3"], says="--stages"),
    Case("config-with-no-multicast", ["check", *P, "--config", CONFIG, "--no-multicast"], says="--multicast"),
    Case("triton-with-cluster", ["check", *P, "--kernel", "triton-tma", "--cluster", "2x1"], says="does not apply"),
    Case("triton-num-warps-zero", ["check", *P, "--kernel", "triton-tma", "--num-warps", "0"], says="--num-warps 0"),
    Case("triton-stages-zero", ["predict", *P, "--kernel", "triton-ptr", "--stages", "0"], says="--stages 0"),
    Case("illegal-cta-group-2-on-sm90", ["check", *P, "--cta-group", "2"], codes=(1,)),
    # ------------------------------------------------------------------ predict: outputs checked first
    Case("timeline-missing-dir", ["predict", *P, "--timeline", "{tmp}/nodir/tl.png"], says="does not exist",
         absent=("nodir",)),
    Case("timeline-unknown-suffix", ["predict", *P, "--timeline", "{tmp}/tl.bmpx"], says="suffix", absent=("tl.bmpx",)),
    Case("timeline-no-suffix", ["predict", *P, "--timeline", "{tmp}/timeline"], says="suffix", absent=("timeline",)),
    Case("timeline-is-directory", ["predict", *P, "--timeline", "{tmp}/pics.png"], {"pics.png": None},
         says="directory"),
    Case("trace-missing-dir", ["predict", *P, "--trace", "{tmp}/nodir/t.json"], says="does not exist"),
    Case("trace-in-proc", ["predict", *P, "--trace", "/proc/perfmodel-trace.json"], says="cannot write"),
    Case("trace-is-directory", ["predict", *P, "--trace", "{tmp}/traces"], {"traces": None}, says="directory"),
    Case("trace-bad-but-timeline-kept", ["predict", *P, "--timeline", "{tmp}/keep.png", "--trace",
                                         "{tmp}/nodir/t.json"], {"keep.png": b"an earlier timeline"}),
    Case("predict-exceeds-hbm", ["predict", "--gpu", "h100-sxm", "--problem", HUGE], says="hbm-capacity"),
    Case("predict-config-with-tile", ["predict", *P, "--config", CONFIG, "--tile", "64x64x64"], says="conflicts"),
    Case("predict-zero-dim", ["predict", "--gpu", "h100-sxm", "--problem", "8x0x8"], says="zero extent"),
    Case("predict-unknown-gpu", ["predict", "--gpu", "a100", "--problem", "8x8x8"], says="unknown GPU"),
    # ------------------------------------------------------------------ tune
    Case("tune-trials-negative", ["tune", *P, *T, "--trials", "-1"], says="--trials"),
    Case("tune-top-zero", ["tune", *P, *T, "--top", "0"], says="--top"),
    Case("tune-target-negative", ["tune", *P, "--storage", "memory", "--target", "-5"], says="--target"),
    Case("tune-grace-negative", ["tune", *P, *T, "--grace-period", "-1"], says="--grace-period"),
    Case("tune-storage-bad-url", ["tune", *P, "--trials", "2", "--storage", "foo://bar"], says="storage"),
    Case("tune-storage-missing-dir", ["tune", *P, "--trials", "2", "--storage", "sqlite:///{tmp}/nodir/s.db"],
         says="s.db"),
    Case("tune-storage-is-directory", ["tune", *P, "--trials", "2", "--storage", "sqlite:///{tmp}/db"],
         {"db": None}, says="db"),
    Case("tune-storage-not-a-database", ["tune", *P, "--trials", "2", "--storage", "sqlite:///{tmp}/notes.db"],
         {"notes.db": b"my notes, not a database\n" * 50}, says="notes.db"),
    Case("tune-storage-no-file", ["tune", *P, "--trials", "2", "--storage", "sqlite:///"], says="no database file"),
    Case("tune-no-configuration-can-run", ["tune", *P, *T, "--dtype", "nvfp4"], codes=(1,), says="kind-arch"),
    Case("tune-no-configuration-can-run-json", ["tune", *P, *T, "--dtype", "mxfp8", "--json"], codes=(1,),
         says='"legal": false'),
    Case("tune-unaligned-rows", ["tune", "--gpu", "h100-sxm", "--problem", "1x1x1", *T], codes=(1,),
         says="tma-global-stride"),
    Case("tune-our-kernel-int8", ["tune", *P, *T, "--dtype", "int8", "--our-kernel"], codes=(1,),
         says="kernel-sm90-types"),
    Case("tune-triton-on-blackwell", ["tune", "--gpu", "b200", "--problem", "256x256x256", "--kernel", "triton-tma",
                                      *T], says="sm_90a only"),
    Case("tune-set-unknown-knob", ["tune", *P, *T, "--set", "speed=11"], says="unknown knob"),
    Case("tune-set-bad-value", ["tune", *P, *T, "--set", "stages=many"], says="stages"),
    Case("tune-set-empty-value", ["tune", *P, *T, "--set", "stages="], says="stages"),
    Case("tune-set-no-equals", ["tune", *P, *T, "--set", "stages"], says="--set"),
    Case("tune-set-zero", ["tune", *P, *T, "--set", "stages=0"], says="positive"),
    Case("tune-space-missing", ["tune", *P, *T, "--space", "{tmp}/missing.toml"], says="missing.toml"),
    Case("tune-space-directory", ["tune", *P, *T, "--space", "{tmp}/spaces"], {"spaces": None}),
    Case("tune-space-binary", ["tune", *P, *T, "--space", "{tmp}/bin.toml"], {"bin.toml": BINARY}, says="utf-8"),
    Case("tune-space-broken", ["tune", *P, *T, "--space", "{tmp}/bad.toml"], {"bad.toml": b"[knobs\n"}, says="toml"),
    Case("tune-space-empty", ["tune", *P, *T, "--space", "{tmp}/empty.toml"], {"empty.toml": b""}),
    Case("tune-space-wrong-types", ["tune", *P, *T, "--space", "{tmp}/odd.toml"],
         {"odd.toml": b'[meta]\narch = "sm_90a"\n[knobs]\ntile_m = 5\n'}, says="knobs"),
    Case("tune-sampler-unknown", ["tune", *P, *T, "--sampler", "genetic"]),
    Case("tune-unknown-gpu", ["tune", "--gpu", "h900", "--problem", "8x8x8", *T], says="unknown GPU"),
    Case("tune-exceeds-hbm", ["tune", "--gpu", "h100-sxm", "--problem", HUGE, *T], says="hbm-capacity"),
    Case("tune-triton-exceeds-hbm", ["tune", "--gpu", "h100-sxm", "--problem", HUGE, "--kernel", "triton-tma", *T],
         says="hbm-capacity"),
    Case("tune-triton-with-set", ["tune", *P, *T, "--kernel", "triton-tma", "--set", "stages=3"], says="--set"),
    Case("tune-triton-space-missing", ["tune", *P, "--kernel", "triton-ptr", "--space", "{tmp}/none.toml"],
         says="none.toml"),
    Case("tune-triton-with-our-space", ["tune", *P, "--kernel", "triton-tma", "--space",
                                        str(ROOT / "configs/search/sm90.toml")], says="no key 'BLOCK_M'"),
    Case("tune-ours-with-triton-space", ["tune", *P, *T, "--space", str(ROOT / "configs/search/triton.toml")],
         says="unknown knob"),
    Case("tune-dtype-typo", ["tune", *P, *T, "--dtype", "fp9"], says="unknown dtype"),
    Case("tune-zero-dim", ["tune", "--gpu", "h100-sxm", "--problem", "0x5x5", *T], says="zero extent"),
    Case("tune-validate-top-no-gpu", ["tune", *P, *T, "--validate-top", "2"], says="GPU",
         env={"PATH": "{tmp}/bin"}, files={"bin": None}),
    Case("tune-validate-top-measurements-dir", ["tune", *P, *T, "--validate-top", "2", "--measurements", "{tmp}/m"],
         {"m": None}, says="directory"),
    # ------------------------------------------------------------------ validate
    Case("validate-no-out", ["validate", *P]),
    Case("validate-neither-problem-nor-sweep", ["validate", "--out", "{tmp}/o.jsonl"], says="--sweep",
         absent=("o.jsonl",)),
    Case("validate-both", ["validate", *P, "--sweep", "{tmp}/s.toml", "--out", "{tmp}/o.jsonl"],
         {"s.toml": GOOD_SWEEP}, says="either"),
    Case("validate-sweep-missing", ["validate", "--sweep", "{tmp}/none.toml", "--out", "{tmp}/o.jsonl"],
         says="none.toml", absent=("o.jsonl",)),
    Case("validate-sweep-binary", ["validate", "--sweep", "{tmp}/bin.toml", "--out", "{tmp}/o.jsonl"],
         {"bin.toml": BINARY}, says="utf-8", absent=("o.jsonl",)),
    Case("validate-sweep-directory", ["validate", "--sweep", "{tmp}/sweeps", "--out", "{tmp}/o.jsonl"],
         {"sweeps": None}, absent=("o.jsonl",)),
    Case("validate-sweep-broken", ["validate", "--sweep", "{tmp}/bad.toml", "--out", "{tmp}/o.jsonl"],
         {"bad.toml": b"gpu = \n"}, says="toml"),
    Case("validate-sweep-no-groups", ["validate", "--sweep", "{tmp}/s.toml", "--out", "{tmp}/o.jsonl"],
         {"s.toml": _sweep("")}, says="group"),
    Case("validate-sweep-group-not-table", ["validate", "--sweep", "{tmp}/s.toml", "--out", "{tmp}/o.jsonl"],
         {"s.toml": _sweep("group = [1, 2]\n")}, says="group"),
    Case("validate-sweep-bad-shape", ["validate", "--sweep", "{tmp}/s.toml", "--out", "{tmp}/o.jsonl"],
         {"s.toml": _sweep('[[group]]\nshapes = ["8x8"]\nconfigs = [{ tile = "128x256x64" }]\n')}, says="8x8"),
    Case("validate-sweep-bad-knob", ["validate", "--sweep", "{tmp}/s.toml", "--out", "{tmp}/o.jsonl"],
         {"s.toml": _sweep('[[group]]\nshapes = ["256x256x256"]\nconfigs = [{ speed = 11 }]\n')}, says="speed"),
    Case("validate-out-directory", ["validate", *P, "--out", "{tmp}/outdir"], {"outdir": None}, says="directory"),
    Case("validate-out-binary", ["validate", *P, "--out", "{tmp}/bin.jsonl"], {"bin.jsonl": HEADER + BINARY},
         says="bin.jsonl:2"),
    Case("validate-out-not-a-dataset", ["validate", *P, "--out", "{tmp}/notes.jsonl"],
         {"notes.jsonl": b"shopping list\n"}, says="notes.jsonl:1"),
    Case("validate-no-gpu", ["validate", *P, "--out", "{tmp}/o.jsonl"], says="no NVIDIA GPU",
         env={"PATH": "{tmp}/bin"}, files={"bin": None}, absent=("o.jsonl",)),
    Case("validate-gpu-auto-no-gpu", ["validate", "--gpu", "auto", "--problem", "256x256x256", "--out",
                                      "{tmp}/o.jsonl"], says="no NVIDIA GPU", env={"PATH": "{tmp}/bin"},
         files={"bin": None}, absent=("o.jsonl",)),
    Case("validate-jobs-zero", ["validate", *P, "--out", "{tmp}/o.jsonl", "--jobs", "0"], says="--jobs"),
    Case("validate-timeout-negative", ["validate", *P, "--out", "{tmp}/o.jsonl", "--timeout", "-1"], says="--timeout"),
    Case("validate-min-reps-zero", ["validate", *P, "--out", "{tmp}/o.jsonl", "--min-reps", "0"], says="--min-reps"),
    Case("validate-max-reps-zero", ["validate", *P, "--out", "{tmp}/o.jsonl", "--max-reps", "0"], says="--max-reps"),
    Case("validate-exceeds-hbm", ["validate", "--problem", HUGE, "--tile", "128x256x64", "--out", "{tmp}/o.jsonl"],
         says="hbm-capacity", absent=("o.jsonl",)),
    Case("validate-config-with-tile", ["validate", *P, "--config", CONFIG, "--tile", "64x64x64", "--out",
                                       "{tmp}/o.jsonl"], says="conflicts", absent=("o.jsonl",)),
    # ------------------------------------------------------------------ report
    Case("report-missing", ["report", "{tmp}/none.jsonl"], says="none.jsonl"),
    Case("report-directory", ["report", "{tmp}/ds"], {"ds": None}, says="directory"),
    Case("report-empty", ["report", "{tmp}/empty.jsonl"], {"empty.jsonl": b""}, says="empty"),
    Case("report-blank-lines", ["report", "{tmp}/blank.jsonl"], {"blank.jsonl": b"\n\n \n"}, says="empty"),
    Case("report-binary", ["report", "{tmp}/bin.jsonl"], {"bin.jsonl": DATASET + BINARY}, says="bin.jsonl:13"),
    Case("report-binary-header", ["report", "{tmp}/bin.jsonl"], {"bin.jsonl": BINARY + DATASET}, says="bin.jsonl:1"),
    Case("report-broken-header", ["report", "{tmp}/h.jsonl"], {"h.jsonl": b'{"header": 5}\n' + DATASET[len(HEADER):]},
         says="header"),
    Case("report-not-a-measurement-dataset", ["report", "{tmp}/t.jsonl"],
         {"t.jsonl": b'{"header": {"gpu_name": "NVIDIA H100", "triton": "3.6"}}\n{"BLOCK_M": 128}\n'},
         says="header lacks gpu_spec"),
    Case("report-header-only", ["report", "{tmp}/h.jsonl"], {"h.jsonl": HEADER}, says="no valid"),
    Case("report-no-datasets-here", ["report"], says="no dataset"),
    Case("report-two-gpus", ["report", "{tmp}/a.jsonl", "{tmp}/b.jsonl"],
         {"a.jsonl": DATASET, "b.jsonl": H200_HEADER + DATASET[len(HEADER):]}, says="different hardware"),
    Case("report-unknown-gpu", ["report", "{tmp}/a.jsonl", "--gpu", "h900"], {"a.jsonl": DATASET}, says="unknown GPU"),
    Case("report-plot-missing-dir", ["report", "{tmp}/a.jsonl", "--plot", "{tmp}/nodir/p.png"], {"a.jsonl": DATASET},
         says="does not exist"),
    Case("report-plot-unknown-suffix", ["report", "{tmp}/a.jsonl", "--plot", "{tmp}/p.xyz"], {"a.jsonl": DATASET},
         says="suffix", absent=("p.xyz",)),
    Case("report-csv-missing-dir", ["report", "{tmp}/a.jsonl", "--csv", "{tmp}/nodir/t.csv"], {"a.jsonl": DATASET},
         says="does not exist"),
    Case("report-csv-is-directory", ["report", "{tmp}/a.jsonl", "--csv", "{tmp}/tables"],
         {"a.jsonl": DATASET, "tables": None}, says="directory"),
    Case("report-csv-kept-when-plot-bad", ["report", "{tmp}/a.jsonl", "--csv", "{tmp}/t.csv", "--plot", "{tmp}/p.xyz"],
         {"a.jsonl": DATASET, "t.csv": b"an,earlier\ntable,1\n"}, says="suffix"),
    Case("report-published-missing", ["report", "--published", "{tmp}/none.csv"], says="none.csv"),
    Case("report-published-binary", ["report", "--published", "{tmp}/bin.csv"], {"bin.csv": BINARY}),
    Case("report-published-empty", ["report", "--published", "{tmp}/e.csv"], {"e.csv": b""}),
    Case("report-published-with-csv", ["report", "--published", "{tmp}/p.csv", "--csv", "{tmp}/t.csv"],
         {"p.csv": b"id\n1\n"}, says="--published"),
    # ------------------------------------------------------------------ calibrate
    Case("calibrate-nothing", ["calibrate"], says="--microbench or --fit"),
    Case("calibrate-both", ["calibrate", "--fit", "--microbench"], says="separate"),
    Case("calibrate-fit-no-dataset", ["calibrate", "--fit"], says="--dataset"),
    Case("calibrate-fit-missing", ["calibrate", "--fit", "--dataset", "{tmp}/none.jsonl"], says="none.jsonl"),
    Case("calibrate-fit-directory", ["calibrate", "--fit", "--dataset", "{tmp}/ds"], {"ds": None}),
    Case("calibrate-fit-binary", ["calibrate", "--fit", "--dataset", "{tmp}/bin.jsonl"],
         {"bin.jsonl": DATASET + BINARY}, says="bin.jsonl:13"),
    Case("calibrate-fit-unknown-param", ["calibrate", "--fit", "--dataset", "{tmp}/a.jsonl", "--params", "speed"],
         {"a.jsonl": DATASET}, says="speed"),
    Case("calibrate-fit-rounds-zero", ["calibrate", "--fit", "--dataset", "{tmp}/a.jsonl", "--rounds", "0"],
         {"a.jsonl": DATASET}, says="--rounds"),
    Case("calibrate-fit-apply-missing", ["calibrate", "--fit", "--dataset", "{tmp}/a.jsonl", "--apply",
                                         "{tmp}/none.toml"], {"a.jsonl": DATASET}, says="none.toml"),
    Case("calibrate-fit-apply-directory", ["calibrate", "--fit", "--dataset", "{tmp}/a.jsonl", "--apply", "{tmp}/hw"],
         {"a.jsonl": DATASET, "hw": None}),
    Case("calibrate-fit-clock-binary", ["calibrate", "--fit", "--dataset", "{tmp}/a.jsonl", "--clock-dataset",
                                        "{tmp}/bin.jsonl"], {"a.jsonl": DATASET, "bin.jsonl": HEADER + BINARY},
         says="bin.jsonl:2"),
    Case("calibrate-fit-unknown-gpu", ["calibrate", "--fit", "--dataset", "{tmp}/a.jsonl", "--gpu", "h900"],
         {"a.jsonl": DATASET}, says="unknown GPU"),
    Case("calibrate-microbench-apply-no-path", ["calibrate", "--microbench", "--apply"], says="--apply"),
    Case("calibrate-microbench-from-missing-json", ["calibrate", "--microbench", "--from-json", "{tmp}/none.json"],
         says="none.json"),
    Case("calibrate-microbench-from-binary-json", ["calibrate", "--microbench", "--from-json", "{tmp}/bin.json"],
         {"bin.json": BINARY}),
    Case("calibrate-microbench-from-junk-json", ["calibrate", "--microbench", "--from-json", "{tmp}/j.json"],
         {"j.json": b"[1, 2"}),
    Case("calibrate-microbench-out-is-file", ["calibrate", "--microbench", "--out", "{tmp}/f"], {"f": b"keep"},
         says="not a directory"),
    Case("calibrate-microbench-apply-missing", ["calibrate", "--microbench", "--apply", "{tmp}/none.toml"],
         says="none.toml"),
    Case("calibrate-microbench-results-field-wrong-type", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json"],
         {"r.json": _gap_json(lambda d: d["records"][2].__setitem__("period_us", "abc"))}, says="wrong type"),
    Case("calibrate-microbench-results-field-missing", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json"],
         {"r.json": _gap_json(lambda d: d["records"][2].pop("period_us"))}, says="period_us"),
    Case("calibrate-microbench-results-records-null", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json"],
         {"r.json": _gap_json(lambda d: d.__setitem__("records", None))}, says="'records' is not a list"),
    Case("calibrate-microbench-results-records-strings", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json"],
         {"r.json": _gap_json(lambda d: d.__setitem__("records", ["x", 1]))}, says="record 1"),
    Case("calibrate-microbench-results-provenance-null", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json"],
         {"r.json": _gap_json(lambda d: d.__setitem__("provenance", None))}, says="provenance"),
    Case("calibrate-microbench-results-nan", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json"],
         {"r.json": _gap_json(lambda d: d["records"][2].__setitem__("period_us", float("nan")))},
         says="not a finite number"),
    Case("calibrate-microbench-apply-not-toml", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json", "--apply",
                                                 "{tmp}/h.toml"], {"r.json": _gap_json(lambda d: None),
                                                                   "h.toml": b"garbage [[["}, says="not valid TOML"),
    Case("calibrate-microbench-apply-empty", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json", "--apply", ""],
         {"r.json": _gap_json(lambda d: None)}, says="empty path"),
    Case("calibrate-microbench-from-json-empty", ["calibrate", "--microbench", "--from-json", ""], says="empty path"),
    Case("calibrate-microbench-burn-inf", ["calibrate", "--microbench", "--burn-seconds", "inf", "--out", "{tmp}/o"],
         says="--burn-seconds inf"),
    Case("calibrate-microbench-gap-nan", ["calibrate", "--microbench", "--gap-seconds", "nan", "--out", "{tmp}/o"],
         says="--gap-seconds nan"),
    Case("calibrate-microbench-idle-negative", ["calibrate", "--microbench", "--idle-seconds", "-5", "--out",
                                                "{tmp}/o"], says="--idle-seconds -5"),
    # ------------------------------------------------------------------ found by a new user's sweep (2026-11-25)
    Case("report-csv-is-the-input", ["report", "{tmp}/a.jsonl", "--csv", "{tmp}/a.jsonl"], {"a.jsonl": DATASET},
         says="overwrite"),
    Case("report-plot-is-the-input", ["report", "{tmp}/a.png", "--plot", "{tmp}/a.png"], {"a.png": DATASET},
         says="overwrite"),
    Case("report-unknown-gpu-default-datasets", ["report", "--gpu", "nope"], says="unknown GPU"),
    Case("report-format-from-the-future", ["report", "{tmp}/a.jsonl"],
         {"a.jsonl": DATASET.replace(b"perfmodel-measurements/1", b"perfmodel-measurements/99")}, says="format"),
    Case("report-only-negative-tflops", ["report", "{tmp}/a.jsonl"],
         {"a.jsonl": HEADER + SMOKE_LINES[3].replace(b'"tflops": ', b'"tflops": -')}, says="no valid"),
    Case("report-only-unknown-configs", ["report", "{tmp}/a.jsonl"],
         {"a.jsonl": HEADER + SMOKE_LINES[3].replace(CONFIG.encode(), b"not_a_config")},
         says="can be predicted"),
    Case("predict-trace-and-timeline-same-file", ["predict", *P, "--tile", "128x256x64", "--timeline",
                                                  "{tmp}/x.png", "--trace", "{tmp}/x.png"], says="same file",
         absent=("x.png",)),
    Case("tune-seed-negative", ["tune", *P, *T, "--seed", "-1"], says="--seed"),
    Case("tune-seed-too-big", ["tune", *P, *T, "--seed", str(2 ** 32)], says="--seed"),
    Case("calibrate-fit-apply-other-gpus-file", ["calibrate", "--fit", "--dataset", "{tmp}/a.jsonl", "--params",
                                                 "smem.write_port_share", "--apply", "{tmp}/b200.toml"],
         {"a.jsonl": DATASET, "b200.toml": (ROOT / "configs/hardware/b200.toml").read_bytes()}, says="describes"),
    Case("predict-cluster-of-16-not-measured", ["predict", "--gpu", "h100-sxm", "--problem", "4096x4096x4096",
                                                "--tile", "128x256x64", "--cluster", "16x1"], says="not measured"),
    Case("predict-cluster-of-3-not-measured", ["predict", "--gpu", "h100-sxm", "--problem", "4096x4096x4096",
                                               "--tile", "128x256x64", "--cluster", "3x1"], says="not measured"),
    Case("check-our-kernel-on-sm100", ["check", "--gpu", "b200", "--problem", "4096x4096x4096", "--our-kernel"],
         says="sm_90a only"),
    Case("tune-our-kernel-on-sm100", ["tune", "--gpu", "b200", "--problem", "4096x4096x4096", "--dtype", "nvfp4",
                                      "--our-kernel", *T], says="sm_90a only"),
    Case("predict-clock-above-boost", ["predict", *P, "--clock", "2500"], says="above"),
    Case("rank-cublaslt-exceeds-hbm", ["rank-cublaslt", HUGE], says="hbm"),
    Case("rank-cublaslt-clock-above-boost", ["rank-cublaslt", "4096x4096x4096", "--clock", "5000"], says="above"),
    Case("check-sm90-file-with-tensor-memory", ["check", "--gpu", "{tmp}/b.toml", "--problem", "4096x4096x4096"],
         {"b.toml": (ROOT / "configs/hardware/b200.toml").read_bytes().replace(b'arch = "sm_100a"', b'arch = "sm_90a"')},
         says="tensor memory"),
    Case("predict-num-warps-for-our-kernel", ["predict", *P, "--num-warps", "3"], says="triton"),
    Case("predict-empty-config", ["predict", *P, "--config", ""], says="empty"),
    Case("predict-empty-timeline", ["predict", *P, "--timeline", ""], says="empty"),
    Case("report-empty-csv", ["report", "{tmp}/a.jsonl", "--csv", ""], {"a.jsonl": DATASET}, says="empty"),
    Case("tune-measurements-without-validate-top", ["tune", *P, *T, "--measurements", "{tmp}/m.jsonl"],
         says="--validate-top", absent=("m.jsonl",)),
    Case("tune-set-twice", ["tune", *P, *T, "--set", "stages=3", "--set", "stages=4"], says="more than once"),
    Case("tune-triton-with-study-flags", ["tune", *P, "--kernel", "triton-tma", "--trials", "5"], says="--trials"),
    Case("tune-cublaslt-kernel", ["tune", *P, "--kernel", "cublaslt"], says="rank-cublaslt"),
    Case("tune-zero-trials", ["tune", *P, "--storage", "memory", "--trials", "0"], says="--trials 0"),
    Case("check-empty-gpu", ["check", "--gpu", "", "--problem", "8x8x8"], says="unknown GPU"),
    Case("check-gpu-is-dot", ["check", "--gpu", ".", "--problem", "8x8x8"], says="directory"),
    Case("predict-trace-over-the-gpu-file", ["predict", "--gpu", "{tmp}/h.toml", "--problem", "256x256x256",
                                             "--trace", "{tmp}/h.toml"], {"h.toml": H100_TOML}, says="--gpu hardware file"),
    Case("report-csv-over-the-gpu-file", ["report", "{tmp}/a.jsonl", "--gpu", "{tmp}/h.toml", "--csv", "{tmp}/h.toml"],
         {"a.jsonl": DATASET, "h.toml": H100_TOML}, says="--gpu hardware file"),
    Case("predict-clock-a-hair-above-boost", ["predict", *P, "--clock", "1981"], says="above"),
    Case("tune-clock-above-boost", ["tune", *P, *T, "--clock", "2500"], says="above"),
    Case("calibrate-from-json-and-build-only", ["calibrate", "--microbench", "--from-json", "{tmp}/r.json",
                                                "--build-only"], {"r.json": b"{}"}, says="one of them"),
]


def _make(tmp: pathlib.Path, files: dict[str, bytes | None]) -> None:
    for name, data in files.items():
        path = tmp / name
        if data is None:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.write_bytes(data)


def _snapshot(tmp: pathlib.Path) -> dict[str, bytes | None]:
    out = {}
    for p in sorted(tmp.rglob("*")):
        out[str(p.relative_to(tmp))] = None if p.is_dir() else p.read_bytes()
    return out


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:   # argparse: usage errors exit 2 from the parser
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_at_least_80_cases_with_distinct_ids():
    assert len(CASES) >= 80 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_loses_nothing(case: Case, tmp_path, capsys, monkeypatch):
    work = tmp_path / "w"
    work.mkdir()
    _make(work, case.files)
    monkeypatch.chdir(work)
    monkeypatch.delenv("OPTUNA_STORAGE", raising=False)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value.replace("{tmp}", str(work)))
    before = _snapshot(work)
    argv = [a.replace("{tmp}", str(work)) for a in case.argv]
    code, out, err = run_cli(argv, capsys)
    assert "Traceback" not in err + out
    assert code in case.codes, (code, err, out[-500:])
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("perfmodel: warning:")]
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("perfmodel: error: "), err
        assert case.says.lower() in lines[0].lower(), lines[0]
    else:                                   # an illegal configuration: the violations are on stdout
        assert not lines, err
        assert case.says.lower() in out.lower(), out[-500:]
    after = _snapshot(work)
    for name, data in before.items():       # nothing that existed is lost, truncated or changed
        assert name in after and after[name] == data, name
    for name in case.absent:
        assert not (work / name).exists(), name


# ---------------------------------------------------------------------- warnings, not errors
def test_junk_and_truncated_rows_are_a_stated_warning_and_the_rest_is_read(tmp_path):
    from perfmodel.errors import PerfmodelWarning
    from perfmodel.measure import read_dataset
    rows = SMOKE_LINES[1:6]
    path = tmp_path / "d.jsonl"
    path.write_bytes(HEADER + rows[0] + b"not json\n" + rows[1] + b'{"m": "x"}\n' + b"[1, 2]\n" + rows[2]
                     + rows[3][:40])
    with pytest.warns(PerfmodelWarning) as got:
        header, read = read_dataset(path)
    assert len(read) == 3 and header.gpu_spec == "h100-sxm"
    msg = str(got[0].message)
    assert "skipped 4 unreadable row(s)" in msg and "line 3, 5, 6, 8" in msg and "read the other 3" in msg


def test_a_cut_last_line_alone_says_so(tmp_path):
    from perfmodel.errors import PerfmodelWarning
    from perfmodel.measure import read_dataset
    path = tmp_path / "d.jsonl"
    path.write_bytes(HEADER + SMOKE_LINES[1] + "{\"error\": \"§".encode()[:-1])   # a character cut in two
    with pytest.warns(PerfmodelWarning, match="cut short by a killed run"):
        _, read = read_dataset(path)
    assert len(read) == 1


def test_the_cli_prints_the_warning_as_one_line_and_goes_on(tmp_path, capsys, monkeypatch):
    path = tmp_path / "d.jsonl"
    path.write_bytes(DATASET + b"junk row\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["report", str(path), "--json"], capsys)
    warn = [ln for ln in err.splitlines() if ln.startswith("perfmodel: warning:")]
    assert code == 0 and len(warn) == 1 and "d.jsonl: skipped 1 unreadable row(s) (line 13" in warn[0]
    assert '"gpu": "h100-sxm"' in out


# ---------------------------------------------------------------------- the error contract's net
def test_an_os_error_while_writing_is_one_line(tmp_path, capsys, monkeypatch):
    """A path the up-front check let through but the writer could not use (a race, a full disk)."""
    from perfmodel.sim import timeline
    def boom(*a, **k):
        raise OSError(28, "No space left on device", str(tmp_path / "t.json"))
    monkeypatch.setattr(timeline, "write_chrome_trace", boom)
    code, _, err = run_cli(["predict", *P, "--trace", str(tmp_path / "t.json")], capsys)
    assert code == 2 and err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file permissions")
def test_unwritable_directory_is_refused_before_the_work(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        code, _, err = run_cli(["predict", *P, "--timeline", str(ro / "t.png")], capsys)
    finally:
        ro.chmod(stat.S_IRWXU)
    assert code == 2 and "cannot write" in err


def test_validate_with_a_failing_nvidia_smi_compiles_nothing(tmp_path, capsys, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    smi = bindir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA "
                   "driver.' >&2\nexit 9\n")
    smi.chmod(0o755)
    nvcc = bindir / "nvcc"
    nvcc.write_text(f"#!/bin/sh\ntouch {tmp_path}/nvcc-ran\nexit 1\n")
    nvcc.chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["validate", *P, "--out", str(tmp_path / "o.jsonl")], capsys)
    assert code == 2 and "nvidia-smi failed" in err and "communicate with the NVIDIA driver" in err
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "nvcc-ran").exists()


def test_the_subprocess_entry_point_keeps_the_contract(tmp_path):
    import subprocess
    r = subprocess.run([sys.executable, "-m", "perfmodel", "report", str(tmp_path / "x.jsonl")],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


# ---------------------------------------------------------------------- validate: environment failures
def _validate_fake(tmp_path, pairs):
    from measure_fakes import write_fake_nvcc
    from perfmodel.measure import GpuIdentity, TimingOptions, validate
    return validate(pairs, tmp_path / "ds.jsonl", gpu="h100-sxm", nvcc=str(write_fake_nvcc(tmp_path)),
                    cache_dir=tmp_path / "cache", identity=GpuIdentity("Fake H100", "999.1"),
                    timing=TimingOptions(warmup_ms=1, min_ms=1, min_reps=1), jobs=2, seed=7)


def _pairs(*shapes):
    from perfmodel import derive, load_hardware, make_problem
    hw = load_hardware("h100-sxm")
    return [(p, derive(p, hw, (128, 256, 64)).config) for p in (make_problem(s, "bf16") for s in shapes)]


def test_an_environment_failure_stops_the_sweep_unrecorded_and_keeps_the_rows_before(tmp_path, monkeypatch):
    from measure_fakes import set_log
    from perfmodel.measure import CUBLAS, EnvironmentFailure, read_dataset
    set_log(monkeypatch, tmp_path)
    with pytest.raises(EnvironmentFailure, match="no CUDA-capable device"):
        _validate_fake(tmp_path, _pairs("512x256x256", "4x256x256", "1024x256x256"))
    _, rows = read_dataset(tmp_path / "ds.jsonl")
    assert [(r.config_name == CUBLAS, r.m) for r in rows] == [(True, 512), (False, 512)]   # nothing of M=4


def test_a_rerun_measures_again_what_an_environment_failure_left_in_an_old_dataset(tmp_path, monkeypatch):
    import json
    from measure_fakes import set_log
    from perfmodel.measure import Invalidity, read_dataset
    set_log(monkeypatch, tmp_path)
    first = _validate_fake(tmp_path, _pairs("512x256x256"))[0]
    path = tmp_path / "ds.jsonl"
    old = dict(first.to_dict(), m=1024, invalidity="runtime", valid=False, tflops=None,
               error="cudaGetDeviceCount(&n) failed: no CUDA-capable device is detected (line 12)")
    path.write_text(path.read_text() + json.dumps(old) + "\n")       # as an older version recorded it
    rows = _validate_fake(tmp_path, _pairs("512x256x256", "1024x256x256"))
    assert rows[0].measured_at == first.measured_at                  # a real result is reused
    assert rows[1].valid and rows[1].invalidity is Invalidity.CORRECT   # the environment failure is not
    _, stored = read_dataset(path)
    assert sum(r.m == 1024 and not r.valid for r in stored) == 1     # the old row stays in the file


# ---------------------------------------------------------------------- hardware values
@pytest.mark.parametrize("key,value,reason", [
    ("gpu.sm_count", 0, "outside"), ("gpu.sm_count", 13.5, "integer"), ("tma.latency_cycles", -5, "outside"),
    ("hbm.bandwidth_bytes_per_s", 0, "outside"), ("l2.bandwidth_bytes_per_clock", 0.0, "outside"),
    ("l2.sm_clock_scaling", float("nan"), "finite"), ("clock.sustained_tensor_hz", float("inf"), "finite"),
    ("tensor_core.f16_flops_per_clock_per_sm", "4096", "number"), ("clock.base_hz", 4.9e9, "boost clock below"),
    ("smem.per_block_optin_bytes", 1 << 21, "exceeds smem.per_sm_bytes"),
])
def test_with_values_checks_like_the_toml_loader(key, value, reason):
    from perfmodel import load_hardware
    from perfmodel.errors import HardwareSpecError
    with pytest.raises(HardwareSpecError, match=reason) as exc:
        load_hardware("h100-sxm").with_values(**{key: value})
    assert key.split(".")[0] in str(exc.value)


def test_with_values_and_the_loader_share_one_check():
    import inspect
    from perfmodel import hardware
    assert "_check_number(" in inspect.getsource(hardware.HardwareSpec.with_values)
    assert "_check_number(" in inspect.getsource(hardware._check_value)
    assert "_check_consistency(" in inspect.getsource(hardware.parse_hardware)
    hw = hardware.load_hardware("h100-sxm").with_values(**{"gpu.sm_count": 66.0})
    assert hw.gpu.sm_count == 66 and isinstance(hw.gpu.sm_count, int)
    with pytest.raises(KeyError):
        hw.with_values(**{"gpu.no_such_key": 1})


# ---------------------------------------------------------------------- HBM capacity
def test_operands_that_exceed_hbm_are_refused_and_those_that_fit_are_not():
    from perfmodel import load_hardware, make_problem
    from perfmodel.errors import ProblemError
    from perfmodel.legality import memory_violation, operand_bytes, require_fits
    h100, b200 = load_hardware("h100-sxm"), load_hardware("b200")
    fits = make_problem("65536x65536x65536", "bf16")                # 3 x 8 GiB
    assert operand_bytes(fits).total == 3 * 2 * 65536 ** 2 and memory_violation(fits, h100) is None
    big = make_problem("150000x150000x150000", "bf16")               # 3 x 41.9 GiB = 126 GiB
    with pytest.raises(ProblemError, match=r"hbm-capacity.*h100-sxm has 80 GiB"):
        require_fits(big, h100)
    assert memory_violation(big, load_hardware("h200")) is None     # 141 GB
    fp4 = make_problem("150000x150000x150000", "nvfp4")             # 4-bit A and B, bf16 D, scales
    ob = operand_bytes(fp4)
    assert ob.a == ob.b == 150000 ** 2 // 2 and ob.extra == 150000 // 16 * 300000
    assert memory_violation(fp4, b200) is None


def test_simulation_never_beats_the_analytic_bound_even_at_a_billion_cubed():
    """The analytic baseline's L2 rate is the simulator's (per SM cycle at the predicted clock): at a
    lower (power-capped) clock the L2 delivers more bytes per SM cycle; the baseline used to take the
    bytes per cycle at the microbenchmark's clock, so an L2-bound simulation beat it (704 vs 549
    TFLOP/s at 10^9 cubed, 686 vs 545 at 16384^3). The library still predicts shapes the CLI refuses
    for HBM capacity; nothing overflows there."""
    from perfmodel import derive, load_hardware, make_problem, predict
    for gpu in ("h100-sxm", "h200"):
        hw = load_hardware(gpu)
        for shape in ("1000000000x1000000000x1000000000", "16384x16384x16384", "4096x4096x4096"):
            for dtype, tile in (("bf16", (128, 256, 64)), ("fp8", (128, 128, 128))):
                prob = make_problem(shape, dtype)
                p = predict(prob, derive(prob, hw, tile).config, hw)
                assert 0 < p.tflops <= p.analytic.tflops * (1 + 1e-9), (gpu, shape, dtype, p.tflops, p.analytic.tflops)


def test_a_hard_link_to_the_input_is_the_input(tmp_path, capsys, monkeypatch):
    """--csv naming a hard link of an input dataset would overwrite the input through the link: refused."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.jsonl").write_bytes(DATASET)
    os.link(tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    code, _, err = run_cli(["report", "a.jsonl", "--csv", "b.jsonl"], capsys)
    assert code == 2 and "overwrite" in err and (tmp_path / "a.jsonl").read_bytes() == DATASET


def test_one_dataset_named_twice_counts_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.jsonl").write_bytes(DATASET)
    os.symlink(tmp_path / "a.jsonl", tmp_path / "link.jsonl")
    _, once, _ = run_cli(["report", "a.jsonl", "--json"], capsys)
    _, twice, _ = run_cli(["report", "a.jsonl", "link.jsonl", "--json"], capsys)
    import json
    assert json.loads(once)["points"] == json.loads(twice)["points"]

