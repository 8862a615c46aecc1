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

The generator draws replacement letters uniformly (docs/generator.md, "One attempt"), so p is a
uniform string of its length as far as a prober can know. K probes of at most L
letters (pbebench's oracle: L = max(--max-probe-len, twice the longest visible input))
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


# Longest intermediate string a cascade may write before the instance is refused: a
# file whose rules grow a string without bound is bad input, not a reason to run out of
# memory.
MAX_STRING = 1_000_000


def run(rules, s):
    for a, b in rules:
        s = s.replace(a, b)
        if len(s) > MAX_STRING:
            raise ValueError(f"a cascade writes a string of over {MAX_STRING} characters")
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
        help="the shortest cap on a probe's length, as `pbebench solve --max-probe-len` "
        "(default 32: pbebench's oracle takes probes of up to max(32, twice the "
        "instance's longest visible input))",
    )
    args = ap.parse_args()
    if args.k < 0 or args.probe_len < 1:
        ap.error("--k must be at least 0 and --probe-len at least 1")
    by_len = collections.defaultdict(list)
    try:
        with open(args.dataset, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    length, row = ceiling_of(json.loads(line), args)
                except (ValueError, KeyError, TypeError, AttributeError) as e:
                    sys.exit(
                        f"ceiling.py: {args.dataset}:{n}: not an instance with a gold "
                        f"cascade, alphabet and inputs ({e!r})"
                    )
                by_len[length].append(row)
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"ceiling.py: cannot read {args.dataset}: {e}")
    print("| length | n | with a latent intermediate | ceiling |")
    print("|---|---|---|---|")
    every = []
    for length in sorted(by_len):
        every += by_len[length]
        print(table_row(str(length), by_len[length], "{:.1f}%"))
    if every:
        print(table_row("all", every, "**{:.1f}%**"))


def ceiling_of(inst, args):
    """The instance's cascade length and (chance of recovery at best, latent strings)."""
    if not inst["cascade"] or not inst["alphabet"] or not inst["inputs"]:
        raise ValueError("empty cascade, alphabet or inputs")
    sigma = len(inst["alphabet"])
    longest = max(args.probe_len, 2 * max(len(x) for x in inst["inputs"]))
    found = latent(inst)
    chance = 1.0
    for p in found:
        held = args.k * max(0, longest - len(p) + 1)
        chance *= min(1.0, held / sigma ** len(p))
    return int(inst["cascade_len"]), (chance, found)


def table_row(label, rows, ceiling_format):
    """A Markdown row: the share of `rows` with a latent intermediate, and their ceiling."""
    share = sum(1 for _, found in rows if found) / len(rows)
    ceiling = sum(chance for chance, _ in rows) / len(rows)
    return f"| {label} | {len(rows)} | {100 * share:.0f}% | {ceiling_format.format(100 * ceiling)} |"

if __name__ == "__main__":
    main()
