#!/usr/bin/env python3
"""A probing run by cascade length: Recovered@1 with its standard error, median and p95
time, the misses classified, and the ceiling beside them.

A miss is one of
- *at the limit*: the run used the whole time limit (the last re-solve did not fit the
  probed examples, or the probes were not spent in time);
- *hidden intermediate*: every probe was spent within the limit, and the gold holds a
  latent intermediate (`ceiling.py`): a rival that folds it fits every visible example,
  and only a probe holding that string tells them apart;
- *patched fit*: every probe was spent within the limit on an answer that fits every
  example seen and still differs from the gold, with no latent intermediate to explain it;
- *other*: the run stopped early without a recovery (no fit at all, or no query left).

STATS is `solve_nodes`'s (or `pbebench solve --stats`') statistics JSONL of a run with
`--probe-budget K`; DATASET the instances it solved, with their gold cascades. With
`--k 0`, a run from the visible examples alone: Pass@1 (a fit of every visible example)
and Recovered@1, each with its standard error, and the misses of Pass@1 at the limit.

Usage: by_length.py STATS DATASET [--k 50] [--probe-len 256] [--time-limit 20]
"""
import argparse
import collections
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ceiling import ceiling_of  # noqa: E402
from jsonl import read_jsonl  # noqa: E402


def quantile(sorted_values, q):
    """The q-quantile, by the nearest rank."""
    k = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[k]


def classify(stat, found, args):
    if stat.get("recovered") is True:
        return None
    if stat["time_s"] >= 0.95 * args.time_limit:
        return "limit"
    if stat.get("probes_used", 0) >= args.k:
        return "hidden" if found else "patched"
    return "other"


def share(count, n):
    """`count` of `n` as a percentage with its standard error."""
    p = count / n
    return f"{count} ({100 * p:.1f}% ± {100 * math.sqrt(p * (1 - p) / n):.1f})"


def static_row(label, runs, args):
    n = len(runs)
    fits = sum(1 for stat, _, _ in runs if stat.get("solved") is True)
    rec = sum(1 for stat, _, _ in runs if stat.get("recovered") is True)
    times = sorted(stat["time_s"] for stat, _, _ in runs)
    limit = sum(
        1
        for stat, _, _ in runs
        if stat.get("solved") is not True and stat["time_s"] >= 0.95 * args.time_limit
    )
    return (
        f"| {label} | {n} | {share(fits, n)} | {share(rec, n)} "
        f"| {quantile(times, 0.5):.1f} / {quantile(times, 0.95):.1f} | {limit} |"
    )


def row(label, runs, args):
    n = len(runs)
    rec = sum(1 for stat, _, _ in runs if stat.get("recovered") is True)
    times = sorted(stat["time_s"] for stat, _, _ in runs)
    kinds = collections.Counter(classify(stat, found, args) for stat, _, found in runs)
    ceiling = sum(chance for _, chance, _ in runs) / n
    return (
        f"| {label} | {n} | {share(rec, n)} | {100 * ceiling:.1f}% "
        f"| {quantile(times, 0.5):.1f} / {quantile(times, 0.95):.1f} "
        f"| {kinds['limit']} | {kinds['patched']} | {kinds['hidden']} | {kinds['other']} |"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stats", help="the run's statistics JSONL")
    ap.add_argument("dataset", help="the instances, with their gold cascades")
    ap.add_argument("--k", type=int, default=50, help="the probe budget (default 50)")
    ap.add_argument(
        "--probe-len", type=int, default=256, help="the probe length (default 256)"
    )
    ap.add_argument(
        "--time-limit", type=float, default=20.0, help="seconds an instance (default 20)"
    )
    args = ap.parse_args()
    if args.k < 0 or args.probe_len < 1 or args.time_limit <= 0:
        ap.error("--k must be at least 0, --probe-len and --time-limit positive")
    gold = {}
    for n, inst in enumerate(read_jsonl(args.dataset, "dataset"), 1):
        try:
            gold[inst["id"]] = ceiling_of(inst, args)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            sys.exit(f"by_length.py: {args.dataset}:{n}: not an instance with a gold cascade ({e!r})")
    by_len = collections.defaultdict(list)
    for n, stat in enumerate(read_jsonl(args.stats, "statistics"), 1):
        if stat.get("id") not in gold:
            sys.exit(f"by_length.py: {args.stats}:{n}: instance {stat.get('id')!r} is not in {args.dataset}")
        time_s = stat.get("time_s")
        if isinstance(time_s, bool) or not isinstance(time_s, (int, float)) or time_s < 0:
            sys.exit(f"by_length.py: {args.stats}:{n}: time_s is {time_s!r}, not seconds (not a statistics line)")
        length, (chance, found) = gold[stat["id"]]
        by_len[length].append((stat, chance, found))
    if not by_len:
        sys.exit(f"by_length.py: {args.stats}: no runs")
    if args.k == 0:
        print("| length | n | Pass@1 | Recovered@1 | median / p95 s | no fit, at the limit |")
        print("|---|---|---|---|---|---|")
        table = static_row
    else:
        print(
            "| length | n | recovered | ceiling | median / p95 s | at the limit "
            "| patched fit | hidden intermediate | other |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        table = row
    every = []
    for length in sorted(by_len):
        every += by_len[length]
        print(table(str(length), by_len[length], args))
    print(table("all", every, args))


if __name__ == "__main__":
    main()
