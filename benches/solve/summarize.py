#!/usr/bin/env python3
"""Summarise `pbebench solve --stats` files: pass rate by gold cascade length, median and
p95 time, and the comparison with the bar of issue 5.

Usage: summarize.py LABEL=STATS.jsonl [LABEL=STATS.jsonl ...]
Labels starting with "lite" count as PBEBench-Lite, others as PBEBench (cap 20 / 25 / 30).
"""
import json
import sys
from collections import defaultdict


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))]


def load(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def row(name, rs):
    times = [r["time_s"] for r in rs]
    ok = sum(r["solved"] for r in rs)
    hit = sum(r["hit_limit"] for r in rs)
    return (f"| {name} | {len(rs)} | {100*ok/len(rs):.1f}% | {pct(times, .5):.3f} | "
            f"{pct(times, .95):.3f} | {max(times):.2f} | {hit} |")


def table(label, rows):
    by_len = defaultdict(list)
    for r in rows:
        by_len[r.get("gold_len")].append(r)
    print(f"### {label} ({len(rows)} instances)\n")
    print("| length | n | pass | median s | p95 s | max s | limit hit |")
    print("|---|---|---|---|---|---|---|")
    for length in sorted(by_len, key=lambda x: (x is None, x)):
        print(row(length, by_len[length]))
    print(row("all", rows))
    print()


def rate(rs):
    return None if not rs else 100 * sum(r["solved"] for r in rs) / len(rs)


def fmt(x):
    return "–" if x is None else f"{x:.1f}%"


def main():
    groups = []
    for arg in sys.argv[1:]:
        label, _, path = arg.partition("=")
        groups.append((label, load(path)))
        table(label, groups[-1][1])
    lite = [r for label, rs in groups if label.startswith("lite") for r in rs]
    full = [r for label, rs in groups if not label.startswith("lite") for r in rs]
    cells = {
        "Lite (cap 5)": (rate(lite), 99.0, 80.4),
        "2–20 (cap 20)": (rate([r for r in full if 2 <= (r["gold_len"] or 0) <= 20]), 95.0, 69.7),
        "length 20": (rate([r for r in full if r["gold_len"] == 20]), 80.0, 1.6),
        "length 25": (rate([r for r in full if r["gold_len"] == 25]), 60.0, None),
        "length 30": (rate([r for r in full if r["gold_len"] == 30]), 50.0, None),
    }
    every = [r for _, rs in groups for r in rs]
    times = [r["time_s"] for r in every]
    print("### Comparison with the bar (all files above pooled)\n")
    print("| slice | measured | goal | ReaComp (published) | met |")
    print("|---|---|---|---|---|")
    for name, (got, goal, reacomp) in cells.items():
        met = "–" if got is None else ("yes" if got >= goal else "no")
        print(f"| {name} | {fmt(got)} | ≥ {goal:.0f}% | {fmt(reacomp)} | {met} |")
    if times:
        med, worst = pct(times, .5), max(times)
        print(f"| median time | {med:.3f} s | ≤ 1 s | 0.62 s | {'yes' if med <= 1 else 'no'} |")
        print(f"| p95 / max time | {pct(times, .95):.2f} s / {worst:.2f} s | ≤ 60 s each | – | {'yes' if worst <= 60 else 'no'} |")


if __name__ == "__main__":
    main()
