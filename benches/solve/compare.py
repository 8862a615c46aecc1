#!/usr/bin/env python3
"""Side by side: Pass@1, Recovered@1, median and p95 time per length group, for several
solvers run on the same instances (`pbebench solve --stats-json` files).

Usage: compare.py SOLVER:LABEL=STATS.jsonl [...]
Labels starting with "lite" form the Lite group; the others are grouped by gold cascade
length: 2–4, 5–9, 10–15, 16–20, 25, 30. `recovered` is the exact equivalence with the
gold over the instance's input space (pbebench::equiv); undecided comparisons (null) count
as not recovered and are counted in their own column.
"""
import json
import sys
from collections import defaultdict

GROUPS = [("2–4", 2, 4), ("5–9", 5, 9), ("10–15", 10, 15), ("16–20", 16, 20),
          ("25", 25, 25), ("30", 30, 30)]


def group(label, r):
    if label.startswith("lite"):
        return "Lite"
    n = r.get("gold_len") or 0
    for name, lo, hi in GROUPS:
        if lo <= n <= hi:
            return name
    return f"len {n}"


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))] if xs else float("nan")


def main():
    rows = defaultdict(lambda: defaultdict(list))  # group -> solver -> stats
    solvers = []
    for arg in sys.argv[1:]:
        spec, _, path = arg.partition("=")
        solver, _, label = spec.partition(":")
        if solver not in solvers:
            solvers.append(solver)
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    rows[group(label, r)][solver].append(r)
    order = ["Lite"] + [g[0] for g in GROUPS]
    print("| group | solver | n | Pass@1 | Recovered@1 | undecided | median s | p95 s |")
    print("|---|---|---|---|---|---|---|---|")
    for g in order + sorted(set(rows) - set(order)):
        for solver in solvers:
            rs = rows.get(g, {}).get(solver, [])
            if not rs:
                continue
            n = len(rs)
            ok = sum(r["solved"] for r in rs)
            rec = sum(r.get("recovered") is True for r in rs)
            und = sum(r.get("recovered") is None for r in rs)
            t = [r["time_s"] for r in rs]
            print(f"| {g} | {solver} | {n} | {100*ok/n:.1f}% | {100*rec/n:.1f}% | {und} | "
                  f"{pct(t, .5):.3f} | {pct(t, .95):.3f} |")


if __name__ == "__main__":
    main()
