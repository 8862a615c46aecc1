#!/usr/bin/env python3
"""How often the gold's last rule is an exact backward move of `beam-ends`, and where its
ranking (ends.rs, `undos`) puts it: for each record of a dataset (pbebench's JSONL), the
gold's last rule `a → b` is undoable when `a` is one letter no output holds and `b` is held
by two outputs at least; its rank is its place among the undos ordered as ends.rs orders
them (summed Levenshtein distance of inputs to goals; the 16 best chunks, then every free
letter). A mirror of ends.rs in Python, for measuring only. Also counted: records whose gold last
rule can be undone exactly at all (its pattern, of any length, in no output).

With --aligned, the undos of `beam-ends-aligned` join them (ends.rs, `aligned_undos`: the
windows of the edit runs of an alignment of each input with its output, with up to one
letter of context, the pattern held by no output), and the gold's last rule is looked up
among all of them; also counted then: records where one of the 3 best undos is a rule of
the gold that can be moved to the end of the gold without changing an output (an undo on
the gold's own path, if not its last rule).

With --chain, chains of undos instead (the two kinds in turn, as with --aligned), up to
8 deep: how many steps the greedy chain (the best undo each time, as `beam-ends-chain`
takes them) stays on the gold's own path, against an oracle chain that takes, each time,
the first undo of the ranking that is on that path. The gap between the two is what a
better ranking could win.

Usage: undo_rank.py DATASET [--aligned | --chain]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jsonl import read_jsonl  # noqa: E402


def lev(s, t):
    row = list(range(len(t) + 1))
    for i, a in enumerate(s):
        diag, row[0] = row[0], i + 1
        for j in range(len(t)):
            up = row[j + 1]
            row[j + 1] = min(diag + (a != t[j]), up + 1, row[j] + 1)
            diag = up
    return row[len(t)]


def edit_runs(s, t):
    """The maximal runs of edits of an optimal alignment (ends.rs, `edit_runs`)."""
    n, m = len(s), len(t)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            d[i][j] = i + j if i == 0 or j == 0 else min(
                d[i - 1][j - 1] + (s[i - 1] != t[j - 1]), d[i - 1][j] + 1, d[i][j - 1] + 1)
    runs, i, j, open_ = [], n, m, None
    while i > 0 or j > 0:
        here = d[i][j]
        if i > 0 and j > 0 and s[i - 1] == t[j - 1] and d[i - 1][j - 1] == here:
            if open_:
                runs.append((i, open_[0], j, open_[1]))
                open_ = None
            i, j = i - 1, j - 1
            continue
        open_ = open_ or (i, j)
        if i > 0 and j > 0 and d[i - 1][j - 1] + 1 == here:
            i, j = i - 1, j - 1
        elif j > 0 and d[i][j - 1] + 1 == here:
            j -= 1
        else:
            i -= 1
    if open_:
        runs.append((0, open_[0], 0, open_[1]))
    return runs


def aligned_undos(inputs, goals, alphabet, max_len):
    found = set()
    for x, y in zip(inputs, goals):
        for i1, i2, j1, j2 in edit_runs(x, y):
            for l in (0, 1):
                for r in (0, 1):
                    if l > min(i1, j1) or i2 + r > len(x) or j2 + r > len(y):
                        continue
                    a, w = x[i1 - l:i2 + r], y[j1 - l:j2 + r]
                    if 1 <= len(a) <= max_len and 1 <= len(w) <= max_len and set(a) <= set(alphabet):
                        found.add((a, w))
    return sorted((a, w) for a, w in found if not any(a in g for g in goals))


def ranked(inputs, goals, alphabet, max_len, aligned=False):
    held = set("".join(goals))
    free = [c for c in sorted(alphabet) if c not in held]
    if not free and not aligned:
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
    by_chunk = sorted((score(w, free[0]), w) for w in twice)[:16] if free else []
    hidden = sorted({(score(w, m), m, w) for _, w in by_chunk for m in free})
    by_alignment = []
    if aligned:
        by_alignment = sorted((score(w, a), a, w) for a, w in aligned_undos(inputs, goals, alphabet, max_len))
    # The two kinds in turn, the aligned first (ends.rs).
    turns = []
    for k in range(max(len(hidden), len(by_alignment))):
        turns += by_alignment[k:k + 1] + hidden[k:k + 1]
    exact = []
    for s, m, w in turns:
        back = [g.replace(w, m) for g in goals]
        if s < total and (m, w) not in exact and [g.replace(m, w) for g in back] == goals:
            exact.append((m, w))
    return exact


def apply(cascade, s):
    for a, b in cascade:
        s = s.replace(a, b)
    return s


def on_gold_path(d, undo):
    """Whether `undo` is a rule of the gold that can be moved to its end, outputs unchanged."""
    gold = [tuple(r) for r in d["cascade"]]
    if undo not in gold:
        return False
    j = gold.index(undo)
    moved = gold[:j] + gold[j + 1:] + [undo]
    return all(apply(moved, i) == o for i, o in zip(d["inputs"], d["outputs"]))


def peeled(gold, inputs, goals, undo):
    """The gold and goals after `undo`, when it is a rule of the gold that can be moved to
    its end without changing a goal (a step on the gold's path); else None."""
    if undo not in gold:
        return None
    j = gold.index(undo)
    rest = gold[:j] + gold[j + 1:]
    back = [g.replace(undo[1], undo[0]) for g in goals]
    if all(apply(rest, i) == b for i, b in zip(inputs, back)):
        return rest, back
    return None


def chain_depth(d, oracle, deepest=8):
    """Steps a chain of undos stays on the gold's path: the best undo each time, or with
    `oracle` the first one on the path."""
    gold = [tuple(r) for r in d["cascade"]]
    inputs, goals = d["inputs"], d["outputs"]
    max_len = d.get("max_rule_len", 3)
    depth = 0
    while depth < deepest:
        undos = ranked(inputs, goals, d["alphabet"], max_len, True)
        steps = (peeled(gold, inputs, goals, u) for u in (undos if oracle else undos[:1]))
        step = next((s for s in steps if s), None)
        if step is None:
            break
        gold, goals = step
        depth += 1
    return depth


def read_records(path):
    """The records of a JSONL dataset; a record without the fields read here is a
    one-line error naming the file and line, as an unreadable file or line is."""
    records = read_jsonl(path, "dataset")
    for n, d in enumerate(records, 1):
        missing = [k for k in ("inputs", "outputs", "cascade", "alphabet")
                   if not isinstance(d, dict) or k not in d]
        if missing:
            sys.exit(f"undo_rank.py: {path}: record {n}: a record needs {', '.join(missing)}")
        if not d["cascade"]:
            sys.exit(f"undo_rank.py: {path}: record {n}: the gold cascade is empty")
    return records


def chains(path):
    records = read_records(path)
    if not records:
        sys.exit(f"undo_rank.py: {path} holds no records")
    for name, oracle in (("greedy", False), ("oracle", True)):
        depths = sorted(chain_depth(d, oracle) for d in records)
        print(f"{path}: {name} chain on the gold's path for a median of "
              f"{statistics.median(depths)} undos (mean {statistics.mean(depths):.2f}); "
              f"4 or more in {sum(x >= 4 for x in depths)} of {len(depths)}")


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: undo_rank.py DATASET [--aligned | --chain]")
    path = sys.argv[1]
    if "--chain" in sys.argv[2:]:
        chains(path)
        return
    aligned = "--aligned" in sys.argv[2:]
    n = undoable = exact = on_path = 0
    ranks = []
    for d in read_records(path):
        n += 1
        a, b = d["cascade"][-1]
        goals = d["outputs"]
        # Undoable at all: no output holds the pattern, and writing the replacement back
        # as the pattern gives goals that the rule maps to the outputs exactly.
        if not any(a in o for o in goals):
            exact += [g.replace(a, b) for g in (o.replace(b, a) for o in goals)] == goals
        max_len = d.get("max_rule_len", 3)
        r = ranked(d["inputs"], goals, d["alphabet"], max_len, aligned)
        on_path += any(on_gold_path(d, u) for u in r[:3])
        if not aligned and (len(a) != 1 or any(a in o for o in goals) or sum(b in o for o in goals) < 2):
            continue
        undoable += 1
        ranks.append(r.index((a, b)) + 1 if (a, b) in r else None)
    found = [r for r in ranks if r is not None]
    kind = "any undo (--aligned)" if aligned else "as ends.rs undoes (one letter, two outputs)"
    print(f"{path}: {n} records; gold's last rule exactly undoable in {exact}, "
          f"{kind} in {undoable}; "
          f"ranked by ends.rs in {len(found)}: first in {sum(r == 1 for r in found)}, "
          f"top 3 in {sum(r <= 3 for r in found)}; ranks {sorted(found)}")
    print(f"  one of the 3 best undos is a gold rule movable to the gold's end: {on_path} of {n}")


if __name__ == "__main__":
    main()
