#!/usr/bin/env python3
"""The ceiling of Recovered@1 for any prober with K probes, on a generated dataset.

Some instances hold a *latent intermediate*: rule j's pattern p lies inside the
replacement of an earlier rule i, and p shows in no visible input or output. Rule i
then writes p and rule j rewrites it at once, and the cascade with rule i writing what
rule j makes of it (rule j dropped) fits every visible example. This script keeps only
the instances where that rival is checked: it fits every visible example, its rule
stays within the length cap, and it maps the input p differently from the gold. The
rival and the gold then differ only on inputs in which p appears, so nothing a prober
sees names p, and only a probe that holds p tells them apart.

The generator draws replacement letters uniformly (SPEC, "Sampling"), so p is a
uniform string of its length as far as a prober can know. K probes of at most L
letters (pbebench's oracle: L = max(32, twice the longest visible input))
hold at most K*(L-len(p)+1) of the |alphabet|**len(p) strings of that length,
which bounds the chance of holding p for any choice of probes. An instance with latent
intermediates p1, p2, ... is recovered with a chance of at most the product of those
bounds; the ceiling of a set is the mean over its instances (instances without one
count 1). It is an upper bound: other ambiguities lower the real ceiling further, and a
prober that spends every probe on covering letter pairs has none left for anything else.

The cascades run with Python's own str.replace, independently of pbebench.

usage: ceiling.py DATASET.jsonl [--k 50] [--probe-len 32]
"""
import argparse
import collections
import json
import sys


def run(rules, s):
    for a, b in rules:
        s = s.replace(a, b)
    return s


def latent(inst):
    """The latent intermediates of `inst` whose folded rival is checked (see above)."""
    rules = [tuple(r) for r in inst["cascade"]]
    visible = list(zip(inst["inputs"], inst["outputs"]))
    found = []
    for j, (p, q) in enumerate(rules):
        if len(p) < 2 or any(p in x or p in y for x, y in visible):
            continue
        for i in range(j):
            if p not in rules[i][1]:
                continue
            rival = list(rules)
            rival[i] = (rules[i][0], rules[i][1].replace(p, q))
            del rival[j]
            if (
                len(rival[i][1]) <= inst["max_rule_len"]
                and all(run(rival, x) == y for x, y in visible)
                and run(rival, p) != run(rules, p)
            ):
                found.append(p)
                break
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", help="a generated JSONL dataset with gold cascades")
    ap.add_argument("--k", type=int, default=50, help="probes per instance (default 50)")
    ap.add_argument(
        "--probe-len",
        type=int,
        default=32,
        help="the shortest cap on a probe's length (default 32: pbebench's oracle takes "
        "probes of up to max(32, twice the instance's longest visible input))",
    )
    args = ap.parse_args()
    by_len = collections.defaultdict(list)
    try:
        lines = open(args.dataset, encoding="utf-8").read().splitlines()
    except OSError as e:
        sys.exit(f"ceiling.py: cannot read {args.dataset}: {e}")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            inst = json.loads(line)
            if not inst.get("cascade"):
                raise KeyError("cascade")
        except (ValueError, KeyError) as e:
            sys.exit(f"ceiling.py: {args.dataset}:{n}: not an instance with a gold cascade ({e})")
        sigma = len(inst["alphabet"])
        chance = 1.0
        found = latent(inst)
        for p in found:
            longest = max(args.probe_len, 2 * max(len(x) for x in inst["inputs"]))
            held = args.k * max(0, longest - len(p) + 1)
            chance *= min(1.0, held / sigma ** len(p))
        by_len[inst["cascade_len"]].append((chance, found))
    print("| length | n | with a latent intermediate | ceiling |")
    print("|---|---|---|---|")
    every = []
    for length in sorted(by_len):
        rows = by_len[length]
        every += rows
        share = sum(1 for _, f in rows if f) / len(rows)
        ceiling = sum(c for c, _ in rows) / len(rows)
        print(f"| {length} | {len(rows)} | {100 * share:.0f}% | {100 * ceiling:.1f}% |")
    if every:
        share = sum(1 for _, f in every if f) / len(every)
        ceiling = sum(c for c, _ in every) / len(every)
        print(f"| all | {len(every)} | {100 * share:.0f}% | **{100 * ceiling:.1f}%** |")


if __name__ == "__main__":
    main()
