#!/usr/bin/env python3
"""Plain-Python version of pbebench's generation loop, for speed comparisons only.

The same algorithm as `pbebench generate` (the paper's Algorithm 1 with docs/generator.md's
sampler): per attempt, sample a cascade length, distinct random inputs, and rules whose
pattern is uniform over the distinct substrings present at that step; drop rules that
change nothing; reject short cascades, unchanged outputs, full category quotas (until
patience runs out) and duplicates; classify relations with the paper's formula (memoised)
as the cascade grows, and stop an attempt as soon as it is certain to be rejected (its
flags so far fall only in full categories, or too few steps are left), as pbebench does.
Like `pbebench generate`, it turns each accepted candidate into a dataset line (with its
interacting rule pairs), counts the examples each rule changes, and writes the lines to a
temporary file that is synced and renamed into place (`--out`; without it the lines are
made and dropped). It does not reproduce pbebench's random streams: only the work per
attempt is comparable.

Usage: reference.py --preset lite|full [--length L] [--attempts N] [--seconds S] [--seed S]
                    [--patience T] [--out FILE]
Prints one JSON line: {"preset", "attempts", "accepted", "seconds", "attempts_per_s"}.
"""
import argparse
import json
import os
import random
import tempfile
import time

LITE = "abcdefghijkuvwxyz"
FULL = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
PRESETS = {
    "lite": dict(n=5, alphabet=LITE, lens=list(range(2, 6)), size=1008, balance="category",
                 max_rules=lambda length: 5),
    "full": dict(n=50, alphabet=FULL, lens=list(range(2, 21)), size=1216, balance="joint",
                 max_rules=lambda length: max(20, length)),
}


def substrings(s):
    return {s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1)}


def completes(written, pattern, status_quo):
    for k in range(1, min(len(written), len(pattern)) + 1):
        if pattern.endswith(written[:k]) and written[:k] not in status_quo:
            return True
    for k in range(len(written)):
        tail = written[k:]
        if len(tail) <= len(pattern) and pattern.startswith(tail) and tail not in status_quo:
            return True
    return False


def feeds(si, ti, sj):
    if si == ti:
        return False
    return ((ti == "" and len(sj) > 1)
            or (ti != "" and ti in sj and ti not in si)
            or (sj in ti and ti.count(sj) > si.count(sj))
            or completes(ti, sj, si))


def bleeds(si, ti, sj):
    if si == ti:
        return False
    return ((si != "" and si in sj and ti.count(si) < 1)
            or (sj in si and ti.count(sj) < si.count(sj))
            or completes(si, sj, ti))


MEMO = {}


def interaction(ri, rj):
    key = (ri[0], ri[1], rj[0])
    hit = MEMO.get(key)
    if hit is None:
        hit = MEMO[key] = (feeds(*key), bleeds(*key))
    return hit


def new_flags(rules):
    """The category flags (F B CF CB) of the newest rule's pairs with the earlier ones."""
    n, rn = len(rules) - 1, rules[-1]
    flags = 0
    for ri in rules[:n]:
        fe, bl = interaction(ri, rn)  # earlier on later: feeding, bleeding
        flags |= (fe << 3) | (bl << 2)
        fe, bl = interaction(rn, ri)  # later on earlier: counter-feeding, counter-bleeding
        flags |= (fe << 1) | bl
    return flags


def hopeless_sets(quotas):
    """For each set of flags, whether every category holding all of them is full."""
    return [all(quotas[c] == 0 for c in range(16) if c & flags == flags) for flags in range(16)]


def sample(rng, p, lengths, exact, hopeless):
    """One attempt: a candidate (inputs, outputs, rules, category) or None. Like pbebench,
    the category is found as the cascade grows (flags are only ever added by later rules),
    and the attempt stops as soon as its flags are `hopeless` (every category with them is
    full) or too few steps are left to reach the shortest length."""
    target = rng.choice(lengths)
    shortest = target if exact else lengths[0]
    alphabet = p["alphabet"]
    inputs, seen = [], set()
    while len(inputs) < p["n"]:
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 6)))
        if s not in seen:
            seen.add(s)
            inputs.append(s)
    cur = list(inputs)
    rules = []
    flags = 0
    for step in range(target):
        if len(rules) + (target - step) < shortest:
            return None
        la, lb = rng.randint(1, 3), rng.randint(1, 3)
        subs = sorted({s[i:i + la] for s in cur for i in range(len(s) - la + 1)})
        if not subs:
            continue
        a = rng.choice(subs)
        b = a
        while b == a:
            b = "".join(rng.choice(alphabet) for _ in range(lb))
        new = [s.replace(a, b) for s in cur]
        if new != cur:
            rules.append((a, b))
            cur = new
            flags |= new_flags(rules)
            if hopeless[flags]:
                return None
    if len(rules) < shortest:
        return None
    if cur == inputs:
        return None
    return inputs, cur, rules, flags


def changed_per_rule(inputs, rules):
    """How many examples each rule changes at the point it applies."""
    counts, cur = [], list(inputs)
    for a, b in rules:
        new = [s.replace(a, b) for s in cur]
        counts.append(sum(x != y for x, y in zip(cur, new)))
        cur = new
    return counts


def record(preset, seed, index, inputs, outputs, rules, cat):
    """The dataset line pbebench writes for an accepted instance (no held-out examples)."""
    p = PRESETS[preset]
    interactions = []
    for i, ri in enumerate(rules):
        for j, rj in enumerate(rules):
            if i != j:
                fe, bl = interaction(ri, rj)
                if fe or bl:
                    interactions.append({"i": i, "j": j, "feeds": fe, "bleeds": bl})
    return {
        "id": f"{preset}-s{seed}-{index:05}", "inputs": inputs, "outputs": outputs,
        "cascade": [list(r) for r in rules], "cascade_len": len(rules), "category": f"{cat:04b}",
        "relations_mode": "paper", "max_rules": p["max_rules"](len(rules)), "max_rule_len": 3,
        "alphabet": p["alphabet"], "heldout_inputs": [], "heldout_outputs": [],
        "interactions": interactions,
    }


def run(preset, attempts, seconds, seed, length=None, patience=100_000, out=None):
    p = PRESETS[preset]
    if out is None:
        sink = open(os.devnull, "w")
    else:
        sink = tempfile.NamedTemporaryFile("w", dir=os.path.dirname(os.path.abspath(out)),
                                           prefix=".reference-", suffix=".tmp", delete=False)
    changed = []
    rng = random.Random(seed)
    if length is not None:
        blocks = [([length], True, 64, 4)]
    elif p["balance"] == "category":
        blocks = [(p["lens"], False, p["size"], p["size"] // 16)]
    else:
        per = p["size"] // len(p["lens"])
        blocks = [([n], True, per, per // 16) for n in p["lens"]]
    done = accepted = 0
    start = time.perf_counter()
    for lengths, exact, target, quota in blocks:
        quotas, seen, got, t = [quota] * 16, set(), 0, 0
        hopeless = hopeless_sets(quotas)
        never = [False] * 16
        while got < target and done < attempts and time.perf_counter() - start < seconds:
            # Quotas bind (and full categories stop attempts early) for the first
            # `patience` attempts of a block, as in pbebench: attempt indices 0..patience.
            patient = t < patience
            cand = sample(rng, p, lengths, exact, hopeless if patient else never)
            done += 1
            t += 1
            if cand is None:
                continue
            inputs, outputs, rules, cat = cand
            if patient and quotas[cat] == 0:
                continue
            sig = (tuple(inputs), tuple(outputs), tuple(rules))
            if sig in seen:
                continue
            if patient:
                quotas[cat] -= 1
                if quotas[cat] == 0:
                    hopeless = hopeless_sets(quotas)
            seen.add(sig)
            sink.write(json.dumps(record(preset, seed, accepted, inputs, outputs, rules, cat),
                                  separators=(",", ":")) + "\n")
            changed.extend(changed_per_rule(inputs, rules))
            got += 1
            accepted += 1
    sink.flush()
    if out is not None:
        os.fsync(sink.fileno())
        sink.close()
        os.replace(sink.name, out)
    else:
        sink.close()
    elapsed = time.perf_counter() - start
    return dict(preset=preset, attempts=done, accepted=accepted, seconds=elapsed,
                attempts_per_s=done / elapsed)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="lite")
    ap.add_argument("--attempts", type=int, default=10**12)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--length", type=int, help="one block of this exact cascade length (64 instances)")
    ap.add_argument("--patience", type=int, default=100_000, help="patience tau per block")
    ap.add_argument("--out", help="write the dataset lines here (default: make and drop them)")
    args = ap.parse_args()
    print(json.dumps(run(args.preset, args.attempts, args.seconds, args.seed, args.length,
                         args.patience, args.out)))


if __name__ == "__main__":
    main()
