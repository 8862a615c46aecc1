#!/usr/bin/env python3
"""Summarises `solve --holdout --sweep` rows (benches/solve/real.sh): per budget and
language, held-out exact matches of the identity and of the answers pooled over every
file given, with 95% Wilson intervals, and the paired comparison with the identity on the
same words: words won (the answer exact, the identity not) and lost (the reverse), with
the two-sided exact sign test's p on them.

Usage: real.py OFF_ROWS.jsonl ... -- ON_ROWS.jsonl ...
"""
import json
import math
import os
import sys
from collections import defaultdict

KEYS = ("held", "held_identity_exact", "held_answer_exact", "held_won", "held_lost")


def load(paths):
    sums = defaultdict(lambda: dict.fromkeys(KEYS, 0))
    for path in paths:
        if not os.path.exists(path):
            continue
        for line in open(path):
            d = json.loads(line)
            for lang in (d["language"], "all"):
                for k in KEYS:
                    sums[(d["rules_allowed"], lang)][k] += d[k]
    return sums


def wilson(k, n, z=1.959964):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def sign_p(won, lost):
    n = won + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(won, lost) + 1)) / 2**n
    return min(1.0, 2 * tail)


def cell(s):
    n, k = s["held"], s["held_answer_exact"]
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.1f}% [{100 * lo:.0f}–{100 * hi:.0f}]"


def paired(s):
    return f"{s['held_won']} / {s['held_lost']} (p={sign_p(s['held_won'], s['held_lost']):.2g})"


def main():
    args = sys.argv[1:]
    cut = args.index("--")
    off, on = load(args[:cut]), load(args[cut + 1 :])
    budgets = list(dict.fromkeys(b for b, _ in on))
    print("| rules allowed | language | words held out | identity | off: exact [95% CI] | off: won / lost (sign test) | on: exact [95% CI] | on: won / lost (sign test) |")
    print("|---|---|---|---|---|---|---|---|")
    better = {}
    for b in budgets:
        langs = sorted(l for bb, l in on if bb == b and l != "all") + ["all"]
        for lang in langs:
            o, n = off.get((b, lang)), on[(b, lang)]
            ident = f"{100 * n['held_identity_exact'] / n['held']:.1f}%"
            print(f"| {b} | {lang} | {n['held']} | {ident} | {cell(o) if o else '–'} | {paired(o) if o else '–'} | {cell(n)} | {paired(n)} |")
        for name, runs in (("off", off), ("on", on)):
            rows = [runs[(b, l)] for l in langs[:-1] if (b, l) in runs]
            if not rows:
                better[(b, name)] = "–"
                continue
            wins = sum(r["held_answer_exact"] > r["held_identity_exact"] for r in rows)
            sig = sum(r["held_won"] > r["held_lost"] and sign_p(r["held_won"], r["held_lost"]) < 0.05 for r in rows)
            better[(b, name)] = f"{wins}/{len(rows)} (significant: {sig})"
    print()
    print("| rules allowed | languages better than the identity (pooled), off | on | on, in each file |")
    print("|---|---|---|---|")
    for b in budgets:
        each = []
        for path in args[cut + 1 :]:
            one = load([path])
            rows = [v for (bb, l), v in one.items() if bb == b and l != "all"]
            each.append(f"{sum(r['held_answer_exact'] > r['held_identity_exact'] for r in rows)}/{len(rows)}")
        print(f"| {b} | {better[(b, 'off')]} | {better[(b, 'on')]} | {', '.join(each)} |")


if __name__ == "__main__":
    main()
