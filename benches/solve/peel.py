#!/usr/bin/env python3
"""Oracle peel (issue 40): a dataset with k of each gold cascade's rules taken off one end.

    peel.py DATASET {last,first} K [--from RESPONSES] > PEELED.jsonl

`last`: the outputs become the forms before the gold's last K rules (the solver fits the
first n-K); `first`: the inputs become the forms after its first K (the solver fits the
last n-K). Either way the rule cap drops by K, so a fit of the peeled problem plus the
peeled rules stays within the original cap. Held-out examples and the rules' recorded
interactions are dropped. Reads and
writes pbebench's own JSONL (`pbebench export --to pbebench` converts the authors').
`str.replace` is the core's `replace` (left to right, non-overlapping).

`--from RESPONSES` (with `first`): the first K rules of each record's answer in
RESPONSES (a `solve_nodes` or `pbebench solve` responses file; its near miss when the
solve found no fit) are taken off the inputs instead of the gold's, and K is a
comma-separated list (`--from R.jsonl first 2,4,8`: one record per K, its id suffixed
`-headK`). Only the records whose answer is unsolved are written when RESPONSES has a
statistics file beside it (`R.stats` for `R.resp`). The `cascade` written is then the
gold's rules after the first K, which need not reproduce the new examples: solve such
a file with `SOLVE_NODES_GOLD=bounded`, and read `solved`, not `recovered`.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jsonl import read_jsonl  # noqa: E402


def run(rules, s):
    for a, b in rules:
        s = s.replace(a, b)
    return s


RULE = re.compile(r"replace\('([^']*)', '([^']*)'\)")  # the solvers' letters need no escapes


def fail(message):
    sys.exit(f"peel.py: {message}")


def answers(path):
    """Each record's answer rules, and the ids to peel (the unsolved ones if known)."""
    rules = {}
    for n, d in enumerate(read_jsonl(path, "responses"), 1):
        if "id" not in d or "response" not in d:
            fail(f"{path}:{n}: a responses line has 'id' and 'response'")
        rules[str(d["id"])] = RULE.findall(d["response"] or "")
    stats = re.sub(r"\.resp$", ".stats", path)
    if stats != path and os.path.exists(stats):
        keep = {str(s["id"]) for s in read_jsonl(stats, "statistics") if not s.get("solved")}
    else:
        keep = set(rules)
    return rules, keep


def head_peels(path, ks, source):
    rules, keep = answers(source)
    for d in read_jsonl(path, "dataset"):
        i = str(d["id"])
        if i not in keep:
            continue
        if i not in rules:
            fail(f"{source}: no answer for record '{i}' of {path}")
        near = rules[i]
        for k in ks:
            kk = min(k, len(near), d["max_rules"] - 1)
            r = dict(d)
            r["id"] = f"{i}-head{k}"
            r["inputs"] = [run(near[:kk], s) for s in d["inputs"]]
            r["cascade"] = d["cascade"][kk:]
            r["cascade_len"] = len(r["cascade"])
            r["max_rules"] = d["max_rules"] - kk
            r["heldout_inputs"] = []
            r["heldout_outputs"] = []
            r["interactions"] = []
            print(json.dumps(r, separators=(",", ":")))


def main():
    args = sys.argv[1:]
    source = None
    if "--from" in args:
        at = args.index("--from")
        if at + 1 >= len(args):
            fail("--from needs a responses file")
        source = args[at + 1]
        del args[at : at + 2]
    if len(args) != 3 or args[1] not in ("last", "first"):
        fail("usage: peel.py DATASET {last,first} K [--from RESPONSES]")
    path, side = args[0], args[1]
    try:
        ks = [int(k) for k in args[2].split(",")]
    except ValueError:
        fail(f"K must be a whole number (or a list with --from), not '{args[2]}'")
    if source is not None:
        if side != "first":
            fail("--from peels an answer's first rules: use 'first'")
        head_peels(path, ks, source)
        return
    if len(ks) != 1:
        fail("a list of K needs --from")
    k = ks[0]
    for d in read_jsonl(path, "dataset"):
        rules = d["cascade"]
        n = len(rules)
        kk = min(k, n - 1)
        if side == "last":
            keep = rules[: n - kk]
            d["outputs"] = [run(keep, s) for s in d["inputs"]]
        else:
            d["inputs"] = [run(rules[:kk], s) for s in d["inputs"]]
            keep = rules[kk:]
            d["outputs"] = [run(keep, s) for s in d["inputs"]]
        d["cascade"] = keep
        d["cascade_len"] = len(keep)
        d["max_rules"] = d["max_rules"] - kk
        d["heldout_inputs"] = []
        d["heldout_outputs"] = []
        d["interactions"] = []  # they name rules by index
        print(json.dumps(d, separators=(",", ":")))


if __name__ == "__main__":
    main()
