#!/usr/bin/env python3
"""A naive solver for `pbebench eval --solver-cmd 'python3 probe_solver.py' --interactive`.

It speaks pbebench's JSON-lines protocol on stdin and stdout: it probes every letter of
the alphabet alone, guesses one rule per letter that the hidden program changes, tests
the guess, and submits it. (Cascades whose rules interact defeat it; it shows the
protocol, not a strategy.)"""
import json
import sys


def ask(request):
    print(json.dumps(request), flush=True)
    return json.loads(sys.stdin.readline())


task = json.loads(sys.stdin.readline())["task"]
letters = list(task["alphabet"])[: task["probe_budget"]]
outputs = ask({"probe": letters})["outputs"]
guess = [f"replace({a!r}, {b!r})" for a, b in zip(letters, outputs) if a != b]
feedback = ask({"test": guess})
print(f"{feedback['passed']}/{feedback['checked']} examples reproduced", file=sys.stderr)
ask({"submit": guess[: task["max_rules"]]})
