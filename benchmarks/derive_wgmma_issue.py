"""How many wgmma instructions are still queued when a warpgroup's issue returns (mb_wgmma --wgmma-issue, 2026-11-28:
data/microbench/wgmma_issue_h100 and wgmma_issue_h200, expectations in data/ncu/scripts/wgmma_issue.sh).

    python3 benchmarks/derive_wgmma_issue.py [h100|h200]   (default h100)

Prints the idle-pipe table (per shape and batch B, for W = 1, 2, 3 warpgroups: issue cycles t1 - t0 / completion
cycles t2 - t0 / q_sm = (t2 - t1) / tau, the instructions of the whole SM still queued when the issue returned; per
warpgroup that is q_sm / W), the busy-pipe table (issue cycles / cycles a round) and how well two laws fit the
after-issue time t2 - t1 of the blocked idle rows: 3 instructions a warpgroup (3 W tau) and 7 instructions an SM
(7 tau), each plus the ~20 cycles from the last completion to wait_group 0's return.
"""
from __future__ import annotations

import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perfmodel.microbench.runner import parse_records  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data" / "microbench"
TAIL_CYCLES = 20   # last completion -> wait_group 0 returned -> clock64 (the blocked rows' t2 - t1 - 7 tau: 16-28)


def load(folder: Path, name: str) -> dict[tuple, dict]:
    return {(r["pipe"], r["dtype"], r["n"], r["subtiles"], r["batch"], r["warpgroups"]): r
            for r in parse_records((folder / name).read_text()) if r["bench"] == "wgmma_issue"}


def shapes(rows: dict) -> list[tuple]:
    """(dtype, n, subtiles, batch) in the order of the table."""
    order = {("bf16", 64, 1): 0, ("bf16", 128, 1): 1, ("bf16", 256, 1): 2, ("bf16", 64, 2): 3, ("bf16", 128, 2): 4,
             ("e4m3", 256, 1): 5}
    keys = {(d, n, s, b) for (_, d, n, s, b, _) in rows}
    return sorted(keys, key=lambda k: (order[k[:3]], k[3]))


def main(folder: Path) -> None:
    run, rep = load(folder, "wgmma_issue.jsonl"), load(folder, "wgmma_issue_repeat.jsonl")
    for pipe in ("idle", "busy"):
        diff = max(abs(run[k][f] - rep[k][f]) for k in run if k[0] == pipe
                   for f in ("issue_cycles", "after_issue_cycles"))
        print(f"{pipe}: run vs repeat, largest difference {diff:.0f} cycles (issue, after-issue)")
    print()
    print("Idle pipe: issue / completion / q_sm (cycles, cycles, instructions of the SM queued at return)")
    print("| dtype | N | subtiles | B | tau | W = 1 | W = 2 | W = 3 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for d, n, s, b in shapes(run):
        cells = []
        for w in (1, 2, 3):
            r = run[("idle", d, n, s, b, w)]
            q = r["after_issue_cycles"] / r["tensor_cycles_per_wgmma"]
            cells.append(f"{r['issue_cycles']:.0f} / {r['complete_cycles']:.0f} / {q:.1f}")
        tau = run[("idle", d, n, s, b, 1)]["tensor_cycles_per_wgmma"]
        print(f"| {d} | {n} | {s} | {b} | {tau:.0f} | " + " | ".join(cells) + " |")
    print("\nBusy pipe (wait_group 1): issue / cycles a round")
    print("| dtype | N | subtiles | B | W = 1 | W = 2 | W = 3 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for d, n, s, b in shapes(run):
        busy = [run[("busy", d, n, s, b, w)] for w in (1, 2, 3)]
        cells = [f"{r['issue_cycles']:.0f} / {r['period_cycles']:.0f}" for r in busy]
        print(f"| {d} | {n} | {s} | {b} | " + " | ".join(cells) + " |")
    print("\nIdle rows whose issue blocked (W B >= 12): after-issue t2 - t1 against the two laws")
    for law, queued in (("3 a warpgroup", lambda w: 3 * w), ("7 an SM", lambda w: 7)):
        err = []
        for (pipe, d, n, s, b, w), r in run.items():
            if pipe == "idle" and w * b >= 12:
                pred = queued(w) * r["tensor_cycles_per_wgmma"] + TAIL_CYCLES
                err.append(abs(r["after_issue_cycles"] - pred) / r["after_issue_cycles"])
        print(f"  {law}: {len(err)} rows, mean |error| {100 * st.mean(err):.1f}%, max {100 * max(err):.1f}%")
    print("\nq_sm of the blocked idle rows (W B >= 12) by shape and W (median over B):")
    for d, n, s in sorted({k[:3] for k in shapes(run)}):
        qs = []
        for w in (1, 2, 3):
            v = [r["after_issue_cycles"] / r["tensor_cycles_per_wgmma"] for (p, d2, n2, s2, b, w2), r in run.items()
                 if p == "idle" and (d2, n2, s2, w2) == (d, n, s, w) and w * b >= 12]
            qs.append(f"W={w} {st.median(v):.2f}")
        print(f"  {d} n{n} subtiles {s}: " + ", ".join(qs))


if __name__ == "__main__":
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h100"
    if gpu not in ("h100", "h200"):
        sys.exit(f"derive_wgmma_issue: unknown GPU {gpu!r} (h100 or h200)")
    main(DATA / f"wgmma_issue_{gpu}")
