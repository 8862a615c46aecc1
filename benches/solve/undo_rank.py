#!/usr/bin/env python3
"""How often the gold's last rule is an exact backward move of `beam-ends`, and where its
ranking (ends.rs, `undos`) puts it: for each record of a dataset (pbebench's JSONL), the
gold's last rule `a → b` is undoable when `a` is one letter no output holds and `b` is held
by two outputs at least; its rank is its place among the undos ordered as ends.rs orders
them (summed Levenshtein distance of inputs to goals; the 16 best chunks, then every free
letter). A mirror of ends.rs in Python, for measuring only. Also counted: records whose gold last
rule can be undone exactly at all (its pattern, of any length, in no output).

Usage: undo_rank.py DATASET [MAX_RULE_LEN]
"""
import json
import sys


def lev(s, t):
    row = list(range(len(t) + 1))
    for i, a in enumerate(s):
        diag, row[0] = row[0], i + 1
        for j in range(len(t)):
            up = row[j + 1]
            row[j + 1] = min(diag + (a != t[j]), up + 1, row[j] + 1)
            diag = up
    return row[len(t)]


def ranked(inputs, goals, alphabet, max_len):
    held = set("".join(goals))
    free = [c for c in sorted(alphabet) if c not in held]
    if not free:
        return []
    base = [lev(i, o) for i, o in zip(inputs, goals)]
    total = sum(base)
    seen, twice = set(), set()
    for o in goals:
        mine = {o[p:p + n] for n in range(1, max_len + 1) for p in range(len(o) - n + 1)}
        for w in mine:
            (twice if w in seen else seen).add(w)

    def score(w, m):
        s = total
        for k, o in enumerate(goals):
            if w in o:
                s += lev(inputs[k], o.replace(w, m)) - base[k]
        return s
    by_chunk = sorted((score(w, free[0]), w) for w in twice)[:16]
    out = sorted((score(w, m), m, w) for _, w in by_chunk for m in free)
    return [(m, w) for s, m, w in out if s < total]


def main():
    path = sys.argv[1]
    n = undoable = exact = 0
    ranks = []
    for line in open(path):
        d = json.loads(line)
        n += 1
        a, b = d["cascade"][-1]
        goals = d["outputs"]
        # Undoable at all: no output holds the pattern, and writing the replacement back
        # as the pattern gives goals that the rule maps to the outputs exactly.
        if not any(a in o for o in goals):
            exact += [g.replace(a, b) for g in (o.replace(b, a) for o in goals)] == goals
        max_len = d.get("max_rule_len", 3)
        if len(a) != 1 or any(a in o for o in goals) or sum(b in o for o in goals) < 2:
            continue
        undoable += 1
        r = ranked(d["inputs"], goals, d["alphabet"], max_len)
        ranks.append(r.index((a, b)) + 1 if (a, b) in r else None)
    found = [r for r in ranks if r is not None]
    print(f"{path}: {n} records; gold's last rule exactly undoable in {exact}, "
          f"as ends.rs undoes (one letter, two outputs) in {undoable}; "
          f"ranked by ends.rs in {len(found)}: first in {sum(r == 1 for r in found)}, "
          f"top 3 in {sum(r <= 3 for r in found)}; ranks {sorted(found)}")


if __name__ == "__main__":
    main()
