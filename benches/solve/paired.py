#!/usr/bin/env python3
"""Pass@1 and Recovered@1 with standard errors (sqrt(p(1-p)/n)) of several runs on the
same instances, and the instances one run solves and another does not.

Usage: paired.py LABEL=STATS.jsonl [...]   (statistics lines of `pbebench solve` or of
`cargo run --example solve_nodes`; the first run is the reference of the differences)
"""
import json
import math
import sys


def load(path):
    rows = {}
    for line in open(path):
        d = json.loads(line)
        rows[d["id"]] = d
    return rows


def rate(k, n):
    p = k / n if n else 0.0
    se = math.sqrt(p * (1 - p) / n) if n else 0.0
    return f"{100 * p:5.1f}% ± {100 * se:4.1f} ({k}/{n})"


def main():
    runs = []
    for arg in sys.argv[1:]:
        label, path = arg.split("=", 1)
        runs.append((label, load(path)))
    ref_label, ref = runs[0]
    print("| run | Pass@1 | Recovered@1 | nodes (mean) |")
    print("|---|---|---|---|")
    for label, rows in runs:
        n = len(rows)
        solved = sum(bool(r.get("solved")) for r in rows.values())
        recovered = sum(r.get("recovered") is True for r in rows.values())
        nodes = sum(r.get("nodes_expanded", 0) for r in rows.values()) / max(n, 1)
        print(f"| {label} | {rate(solved, n)} | {rate(recovered, n)} | {nodes:.0f} |")
    for label, rows in runs[1:]:
        ids = [i for i in ref if i in rows]
        gained = [i for i in ids if rows[i].get("solved") and not ref[i].get("solved")]
        lost = [i for i in ids if ref[i].get("solved") and not rows[i].get("solved")]
        print(f"\n{label} against {ref_label}: solves {len(gained)} more, {len(lost)} fewer")
        for i in gained:
            print(f"  + {i}")
        for i in lost:
            print(f"  - {i}")


if __name__ == "__main__":
    main()
