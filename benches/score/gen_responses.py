#!/usr/bin/env python3
"""Realistic model responses for a pbebench dataset, K samples per instance, for the scoring
benchmark. Deterministic for a seed.

Each response has a paragraph or two of prose, sometimes a draft block, and a final
```python block holding a cascade in the released list-of-strings format (sometimes as a
list of bare `replace(...)` calls, which the released scorer also reads): the gold
cascade (more often for short cascades), or the gold with a rule dropped, two rules
swapped, a replacement changed, or an over-long or out-of-alphabet rule added; a few
responses have no block or an unparsable one. Only spellings the released scorer reads are
used, so that its figures and pbebench's can be compared exactly.

Usage: gen_responses.py DATA.jsonl OUT.jsonl [--samples 32] [--seed 0]
"""

import argparse
import json
import math
import random

PROSE = (
    "We need to find a sequence of replace operations that maps each input to its output. "
    "Looking at the examples, several characters change consistently, and the order of the "
    "rules matters because an earlier rule can create or destroy a later rule's pattern. "
    "Let us compare input and output position by position to see which substrings are "
    "rewritten, then check that the proposed order reproduces every example. "
)


def rule_str(a, b, quote):
    return f"replace({quote}{a}{quote}, {quote}{b}{quote})"


def as_list(rules, rng):
    quote = rng.choice(["'", "'", '"'])
    outer = '"' if quote == "'" else "'"
    sep = rng.choice([", ", ",\n    "])
    return "[" + sep.join(f"{outer}{rule_str(a, b, quote)}{outer}" for a, b in rules) + "]"


def as_calls(rules, _rng):
    return "[" + ", ".join(rule_str(a, b, "'") for a, b in rules) + "]"


def mutate(gold, alphabet, max_len, rng):
    """The gold cascade, or a near miss. Longer cascades are solved less often, roughly as
    gpt-oss-120b does on PBEBench (Pass@1 with 32 samples about 0.67 over lengths 2-20)."""
    rules = [list(r) for r in gold]
    if rng.random() < 0.6 * math.exp(-len(gold) / 4):
        return rules, "gold"
    roll = rng.random()
    if roll < 0.45 and len(rules) > 1:
        del rules[rng.randrange(len(rules))]
        return rules, "dropped"
    if roll < 0.46 and len(rules) > 1:
        i = rng.randrange(len(rules) - 1)
        rules[i], rules[i + 1] = rules[i + 1], rules[i]
        return rules, "swapped"
    if roll < 0.85:
        r = rng.randrange(len(rules))
        rules[r][1] = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, max_len)))
        return rules, "changed"
    if roll < 0.95:
        bad = rng.choice(["a" * (max_len + 1), "9", "ab#"])
        rules.insert(rng.randrange(len(rules) + 1), [bad, rng.choice(alphabet)])
        return rules, "invalid"
    return rules, "broken"


def response(instance, rng):
    gold = instance["cascade"]
    rules, kind = mutate(gold, instance["alphabet"], instance["max_rule_len"], rng)
    prose = PROSE * rng.randint(2, 5)
    parts = [prose]
    if rng.random() < 0.2:
        parts.append("A first attempt:\n```python\n" + as_list(rules[: max(1, len(rules) // 2)], rng) + "\n```\n")
        parts.append("That misses some examples; extending it.\n")
    if kind == "broken":
        if rng.random() < 0.5:
            return prose + "I could not find a consistent sequence within the limits."
        return prose + "```python\n" + as_list(rules, rng)[:-3] + "\n```\n"
    body = as_calls(rules, rng) if rng.random() < 0.1 else as_list(rules, rng)
    parts.append("Final answer:\n```python\n" + body + "\n```\n")
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.dataset, encoding="utf-8") as f, open(args.out, "w", encoding="utf-8") as out:
        for line in f:
            if not line.strip():
                continue
            instance = json.loads(line)
            texts = [response(instance, rng) for _ in range(args.samples)]
            out.write(json.dumps({"id": instance["id"], "responses": texts}) + "\n")


if __name__ == "__main__":
    main()
