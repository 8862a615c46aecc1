#!/usr/bin/env python3
"""Plain-Python reference of the released PBEBench metric code, for benchmarking `pbebench score`.

It follows what the authors' `src/metrics/functional_correctness.py` does, written again
from its description (no third-party packages):

* the answer is the last (or first) ```python block, found with the regex
  r"```python\\s(.*?)```" (DOTALL); unquoted `replace(...)` calls are wrapped in quotes;
  the block is read with `ast.literal_eval`; a lone string becomes a one-item list; anything
  else that is not a list gives no rules;
* each of the first `max_rules` items is a rule when it is a string holding `replace(A, B)`
  (split on "replace(", ",", ")", quotes stripped) with both sides at most `max_rule_len`
  characters from the alphabet; anything else is an invalid rule (the identity);
* Pass, Edit_Sim over characters and over whitespace tokens (`edit_sim_word`, the released
  "reward"), Valid_Rate (valid / all rules of the chosen responses).

Two deliberate differences from the released script, so that the figures can be compared
with `pbebench score` (docs/metrics.md): the empty pattern is rejected, and with K samples the chosen
one is any passing sample, else the first with the highest character Edit_Sim (the released
script sorts by the word reward). Levenshtein is a plain dynamic programme (the released
code uses the `editdistance` C extension).

Usage: reference.py --dataset DATA.jsonl --responses RESP.jsonl [--block first|last] [--out F]
Datasets in pbebench's JSONL format (id, inputs, outputs, max_rules, max_rule_len, alphabet);
responses as {"id", "responses": [...]} or {"id", "response"}.
"""

import argparse
import ast
import json
import re
import sys
import time

BLOCK = re.compile(r"```python\s(.*?)```", re.DOTALL)
UNQUOTED_CALL = re.compile(r"(?<!['\"])(replace\([^)]*\))(?!['\"])")


def extract_block(text, which):
    matches = BLOCK.findall(text or "")
    if not matches:
        return "[]"
    return (matches[0] if which == "first" else matches[-1]).strip()


def literal_rules(block):
    block = UNQUOTED_CALL.sub(r'"\1"', block)
    try:
        value = ast.literal_eval(block)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return []
    if isinstance(value, str):
        value = [value]
    return value if isinstance(value, list) else []


def read_rule(item, max_len, alphabet):
    """(pattern, replacement) or None for an invalid rule, as the released parser reads it."""
    if not isinstance(item, str) or not item.strip() or "replace(" not in item:
        return None
    try:
        body = item.split("replace(")[-1]
        pattern = body.split(",")[0].strip()
        replacement = body.split(",")[1].split(")")[0].strip()
    except IndexError:
        return None
    pattern = pattern.replace("'", "").replace('"', "")
    replacement = replacement.replace("'", "").replace('"', "")
    if not pattern or len(pattern) > max_len or len(replacement) > max_len:
        return None
    if not set(pattern.strip()) <= alphabet or not set(replacement.strip()) <= alphabet:
        return None
    return pattern, replacement


def levenshtein(a, b):
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            above = row[j]
            row[j] = diagonal if x == y else 1 + min(diagonal, above, row[j - 1])
            diagonal = above
    return row[-1]


def edit_sim(pred_dist, gold_dist):
    if gold_dist == 0:
        return 1.0 if pred_dist == 0 else 0.0
    return 1 - pred_dist / gold_dist


def score_sample(instance, response, which, alphabet):
    rules = literal_rules(extract_block(response, which))[: instance["max_rules"]]
    predicted = list(instance["inputs"])
    valid = 0
    for item in rules:
        rule = read_rule(item, instance["max_rule_len"], alphabet)
        if rule is None:
            continue
        valid += 1
        predicted = [s.replace(rule[0], rule[1]) for s in predicted]
    outputs, inputs = instance["outputs"], instance["inputs"]
    char_gold = sum(levenshtein(i, o) for i, o in zip(inputs, outputs))
    word_gold = sum(levenshtein(i.split(), o.split()) for i, o in zip(inputs, outputs))
    return {
        "pass": predicted == outputs,
        "edit_sim": edit_sim(sum(levenshtein(p, o) for p, o in zip(predicted, outputs)), char_gold),
        "edit_sim_word": edit_sim(
            sum(levenshtein(p.split(), o.split()) for p, o in zip(predicted, outputs)), word_gold
        ),
        "valid": valid,
        "rules": len(rules),
    }


def choose(samples):
    for sample in samples:
        if sample["pass"]:
            return sample
    best = samples[0]
    for sample in samples[1:]:
        if sample["edit_sim"] > best["edit_sim"]:
            best = sample
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--responses", required=True)
    ap.add_argument("--block", choices=["first", "last"], default="last")
    ap.add_argument("--out")
    args = ap.parse_args()

    start = time.perf_counter()
    with open(args.dataset, encoding="utf-8") as f:
        dataset = [json.loads(line) for line in f if line.strip()]
    responses = {}
    with open(args.responses, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                texts = record.get("responses", [record.get("response")])
                responses[str(record["id"])] = texts
    chosen, samples = [], 0
    for instance in dataset:
        alphabet = set(instance["alphabet"])
        texts = responses.get(str(instance["id"])) or [""]
        scored = [score_sample(instance, t, args.block, alphabet) for t in texts]
        samples += len(scored)
        chosen.append(choose(scored))
    n = len(chosen)
    rules = sum(c["rules"] for c in chosen)
    summary = {
        "instances": n,
        "samples": samples,
        "pass": sum(c["pass"] for c in chosen) / n,
        "edit_sim": sum(c["edit_sim"] for c in chosen) / n,
        "edit_sim_word": sum(c["edit_sim_word"] for c in chosen) / n,
        "valid_rate": sum(c["valid"] for c in chosen) / rules if rules else None,
        "seconds": time.perf_counter() - start,
    }
    text = json.dumps(summary, indent=2)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
