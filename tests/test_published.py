"""`perfmodel report --published`: published results scored row by row and ladder by ladder."""
import csv
import math

import pytest

from perfmodel import derive, load_hardware, make_problem
from perfmodel.calibration.published import PublishedError, score
from perfmodel.cli import main

B200 = load_hardware("b200")
P = make_problem("4096x4096x4096", "bf16")
FIELDS = ["id", "source", "gpu", "dtype", "m", "n", "k", "tflops", "expressible", "canonical_name", "ladder",
          "ladder_step", "clock_mhz", "not_expressible_reason", "regime", "a_major", "b_major"]


def _write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def _rows():
    one = derive(P, B200, (128, 256, 64), cta_group=1, cluster=(1, 1)).config.name
    pair = derive(P, B200, (128, 256, 64), cta_group=2, cluster=(2, 1)).config.name
    base = dict(source="s", gpu="b200", dtype="bf16", m=4096, n=4096, k=4096, expressible="yes", ladder="L")
    return [dict(base, id="a", tflops=1000, canonical_name=one, ladder_step=1),
            dict(base, id="b", tflops=1170, canonical_name=pair, ladder_step=2, clock_mhz=1700),
            dict(base, id="c", tflops=1300, expressible="no", not_expressible_reason="stream-K")]


def test_rows_ladders_and_stated_clock(tmp_path):
    f = tmp_path / "p.csv"
    _write(f, _rows())
    res = score(str(f))
    assert [r.id for r in res.rows] == ["a", "b"] and res.skipped == [("c", "stream-K")]
    b = res.rows[1]
    assert b.clock_basis == "stated" and b.clock_mhz == pytest.approx(1700)
    assert all(math.isfinite(r.rel_error) for r in res.rows)
    (lad,) = res.ladders
    assert lad.ids == ("a", "b") and len(lad.step_points) == 1
    assert lad.same_order == (lad.predicted[1] > lad.predicted[0])


def test_unpredictable_row_is_reported_not_raised(tmp_path):
    f = tmp_path / "p.csv"
    rows = _rows()
    rows[0]["canonical_name"] = "not-a-config"
    _write(f, rows)
    res = score(str(f))
    assert res.rows[0].error and not math.isfinite(res.rows[0].predicted_tflops)


@pytest.mark.parametrize("content", ["a,b\n1,2\n", "", "\xff\xfe\x00bad"])
def test_broken_files_are_one_line_errors(tmp_path, capsys, content):
    f = tmp_path / "bad.csv"
    f.write_bytes(content.encode("latin-1"))
    with pytest.raises(PublishedError):
        score(str(f))
    assert main(["report", "--published", str(f)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_prints_rows_and_summary(tmp_path, capsys):
    f = tmp_path / "p.csv"
    _write(f, _rows())
    assert main(["report", "--published", str(f)]) == 0
    out = capsys.readouterr().out
    assert "ladder L" in out and "not expressible: c" in out and "expressible rows predicted" in out


def test_each_row_is_predicted_in_its_regime(tmp_path):
    f = tmp_path / "p.csv"
    rows = _rows()
    rows[0]["regime"] = "boost"
    rows[1]["regime"] = "stated"                 # with its clock_mhz
    rows.append(dict(rows[0], id="d", regime="sustained", ladder=""))
    rows.append(dict(rows[0], id="e", regime="", ladder=""))          # empty: sustained
    _write(f, rows)
    res = score(str(f))
    by = {r.id: r for r in res.rows}
    assert by["a"].regime == "boost" and by["a"].clock_mhz == pytest.approx(B200.clock.boost_hz / 1e6)
    assert by["b"].clock_basis == "stated" and by["b"].clock_mhz == pytest.approx(1700)
    assert by["d"].clock_basis == by["e"].clock_basis == "sustained (power model)"
    assert by["d"].clock_mhz < by["a"].clock_mhz and by["d"].predicted_tflops < by["a"].predicted_tflops
    over = score(str(f), clock=1500)             # a what-if clock replaces every regime but a stated clock
    assert {r.id: round(r.clock_mhz) for r in over.rows} == {"a": 1500, "b": 1700, "d": 1500, "e": 1500}


def test_majors_and_goal_line(tmp_path):
    f = tmp_path / "p.csv"
    rows = _rows()
    rows[0].update(a_major="k", b_major="mn")
    _write(f, rows)
    res = score(str(f))
    assert [r.majors for r in res.rows] == ["k/mn", "k*/k*"]
    goal = res.lines()[-1]
    assert goal.startswith("goals: every expressible row within 10%") and "ladders)" in goal
    (lad,) = res.ladders
    assert lad.published_steps[0] == pytest.approx(17.0) and lad.meets_goal == (
        lad.same_order and abs(lad.step_points[0]) <= 5)


@pytest.mark.parametrize("column,value,says", [("regime", "fast", "regime 'fast'"), ("b_major", "row", "b_major"),
                                               ("regime", "stated", "needs a clock_mhz")])
def test_bad_regime_or_major_is_one_line(tmp_path, capsys, column, value, says):
    f = tmp_path / "p.csv"
    rows = _rows()
    rows[0][column] = value
    _write(f, rows)
    assert main(["report", "--published", str(f)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err
    assert main(["report", "--published", str(f).replace("p.csv", "none.csv"), "--clock", "measured"]) == 2


def test_committed_table_every_expressible_row_has_a_regime():
    from pathlib import Path
    from perfmodel.calibration.published import read_rows
    rows = read_rows(str(Path(__file__).parents[1] / "data/published/b200.csv"))
    for r in rows:
        assert r["regime"] in ("boost", "sustained", "stated") and r["regime_basis"], r["id"]
        assert (r["regime"] == "stated") == bool(r["clock_mhz"]), r["id"]
        assert r["a_major"] in ("", "k", "mn") and r["b_major"] in ("", "k", "mn")
