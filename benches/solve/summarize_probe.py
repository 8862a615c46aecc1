#!/usr/bin/env python3
"""Summarise benches/solve/probe.sh: per slice, the static and the probing solver's pass,
Recovered@1, mean behaviour, probes used and time, from their statistics lines.

Usage: summarize_probe.py OUT_DIR LABEL [LABEL ...]
(reads OUT_DIR/LABEL.static.stats.jsonl and OUT_DIR/LABEL.probe.stats.jsonl). Labels
starting with "full" are pooled as "full, all lengths".
"""
import json
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def pct(num, den):
    return f"{100 * num / den:.1f}%" if den else "–"


def figures(rows):
    n = len(rows)
    graded = [r for r in rows if r.get("recovered") is not None]
    beh = [r["behaviour"] for r in rows if r.get("behaviour") is not None]
    times = sorted(r["time_s"] for r in rows)
    return {
        "n": n,
        "pass": pct(sum(r["solved"] for r in rows), n),
        "recovered": pct(sum(r["recovered"] is True for r in rows), n),
        "undecided": n - len(graded),
        "behaviour": f"{sum(beh) / len(beh):.3f}" if beh else "–",
        "probes": f"{sum(r.get('probes_used', 0) for r in rows) / n:.1f}" if n else "–",
        "median_s": f"{times[len(times) // 2]:.2f}" if times else "–",
        "max_s": f"{times[-1]:.2f}" if times else "–",
    }


def main():
    out, labels = sys.argv[1], sys.argv[2:]
    data = {l: (load(f"{out}/{l}.static.stats.jsonl"), load(f"{out}/{l}.probe.stats.jsonl")) for l in labels}
    slices = [(l, data[l]) for l in labels]
    full = [l for l in labels if l.startswith("full")]
    if len(full) > 1:
        pooled = ([r for l in full for r in data[l][0]], [r for l in full for r in data[l][1]])
        slices.append(("full, all lengths", pooled))
    print("| slice | n | pass static / probing | Recovered@1 static | Recovered@1 probing | "
          "behaviour static / probing | probes used (mean) | median s / max s probing | undecided |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (static, probing) in slices:
        s, p = figures(static), figures(probing)
        print(f"| {name} | {p['n']} | {s['pass']} / {p['pass']} | {s['recovered']} | "
              f"**{p['recovered']}** | {s['behaviour']} / {p['behaviour']} | {p['probes']} | "
              f"{p['median_s']} / {p['max_s']} | {s['undecided']} / {p['undecided']} |")


main()
