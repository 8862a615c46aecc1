#!/usr/bin/env python3
"""Oracle peel (issue 40): a dataset with k of each gold cascade's rules taken off one end.

    peel.py DATASET {last,first} K > PEELED.jsonl

`last`: the outputs become the forms before the gold's last K rules (the solver fits the
first n-K); `first`: the inputs become the forms after its first K (the solver fits the
last n-K). Either way the rule cap drops by K, so a fit of the peeled problem plus the
peeled rules stays within the original cap. Held-out examples and the rules' recorded
interactions are dropped. Reads and
writes pbebench's own JSONL (`pbebench export --to pbebench` converts the authors').
`str.replace` is the core's `replace` (left to right, non-overlapping).
"""
import json
import sys


def run(rules, s):
    for a, b in rules:
        s = s.replace(a, b)
    return s


def main():
    path, side, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    assert side in ("last", "first"), "side must be 'last' or 'first'"
    for line in open(path):
        d = json.loads(line)
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
