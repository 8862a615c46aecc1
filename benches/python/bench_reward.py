#!/usr/bin/env python3
"""Benchmark of `pbebench.reward` against the plain-Python version of the released metric
code, on the same 10,000 responses.

The dataset is PBEBench-Lite as `pbebench.generate("lite", seed=SEED)` makes it; the
responses come from `benches/score/gen_responses.py` (prose, drafts, near misses of the gold
cascade, invalid rules, broken blocks; about 1,500 characters), cycling over the instances.
The Python side is `benches/score/reference.py`'s `score_sample` (the released parser:
regex and `ast.literal_eval`; Levenshtein Edit_Sim over characters and words), one call per
response, as a reward function written in Python runs. The Rust side is one
`pbebench.reward(instances, responses)` call, reading of the instance dicts and responses
included, in three shapes:

* per instance: the list holds each instance object once per response (K samples of a
  dataset), so each instance is read once;
* distinct dicts: 10,000 separate dict objects, as TRL hands a reward function its columns;
* answers only: the per-instance shape with only each response's final code block (no
  prose), the best case for the scanning both sides do.

Then, separately, `pbebench.Rewarder(dataset).reward(indices, responses)` (a prepared
object for rewarding one dataset's rows again and again), prepared outside the timing,
against the same Python on the same responses.

Last, the behavioural reward, `pbebench.reward(instances, responses, kind="behaviour")`
(exact changed agreement with the gold cascade), on the per-instance and distinct-dicts
shapes, against the Edit_Sim reward of the same call shape (the current reward) and the
plain Python Edit_Sim.

Times are the best of several runs, wall clock and CPU (all threads); the machine is shared,
so CPU time is the steadier figure.

Usage: bench_reward.py [--responses 10000] [--seed 1] [--repeat 7]
(run.sh beside this file builds the release extension first).
"""

import argparse
import os
import random
import re
import sys
import time
from pathlib import Path

import pbebench

SCORE_BENCH = Path(__file__).resolve().parents[1] / "score"
sys.path.insert(0, str(SCORE_BENCH))
import gen_responses  # noqa: E402  (benches/score: the same responses as the scoring benchmark)
import reference  # noqa: E402  (benches/score: the released metric code in plain Python)

FINAL_BLOCK = re.compile(r"```python\n.*?```\n?", re.DOTALL)


def python_rewards(instances, responses):
    """The released metric code's character Edit_Sim of each response, in plain Python."""
    return [
        reference.score_sample(inst, text, "last", set(inst["alphabet"]))["edit_sim"]
        for inst, text in zip(instances, responses)
    ]


def timed(fn, repeat):
    """(best wall seconds, best CPU seconds, result) over `repeat` runs."""
    wall = cpu = float("inf")
    result = None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    return wall, cpu, result


def compare(label, instances, responses, repeat):
    t_py = timed(lambda: python_rewards(instances, responses), 2)
    t_rs = timed(lambda: pbebench.reward(instances, responses), repeat)
    same = sum(abs(a - b) < 1e-12 for a, b in zip(t_rs[2], t_py[2]))
    n = len(responses)
    print(f"{label}  ({sum(map(len, responses)) / n:.0f} characters per response)")
    print(f"  plain Python     wall {t_py[0] * 1e3:8.1f} ms  cpu {t_py[1] * 1e3:8.1f} ms  {n / t_py[0]:9.0f} responses/s")
    print(f"  pbebench.reward  wall {t_rs[0] * 1e3:8.1f} ms  cpu {t_rs[1] * 1e3:8.1f} ms  {n / t_rs[0]:9.0f} responses/s")
    print(f"  ratio            wall {t_py[0] / t_rs[0]:7.1f}x    cpu {t_py[1] / t_rs[1]:7.1f}x")
    print(f"  same reward for {same} of {n} responses; mean {sum(t_rs[2]) / n:.4f} (python {sum(t_py[2]) / n:.4f})")
    return t_py[0] / t_rs[0]


def compare_rewarder(label, dataset, indices, responses, repeat):
    """`pbebench.Rewarder(dataset).reward(indices, responses)`: the instances read and
    prepared once, outside the timing (a separate API, not one of the shapes above)."""
    instances = [dataset[i] for i in indices]
    t_py = timed(lambda: python_rewards(instances, responses), 2)
    n = len(responses)
    rewarder = pbebench.Rewarder(dataset)
    t_rs = timed(lambda: rewarder.reward(indices, responses), repeat)
    same = sum(abs(a - b) < 1e-12 for a, b in zip(t_rs[2], t_py[2]))
    print(f"{label}  ({sum(map(len, responses)) / n:.0f} characters per response)")
    print(f"  plain Python     wall {t_py[0] * 1e3:8.1f} ms  cpu {t_py[1] * 1e3:8.1f} ms  {n / t_py[0]:9.0f} responses/s")
    print(f"  Rewarder.reward  wall {t_rs[0] * 1e3:8.1f} ms  cpu {t_rs[1] * 1e3:8.1f} ms  {n / t_rs[0]:9.0f} responses/s")
    print(f"  ratio            wall {t_py[0] / t_rs[0]:7.1f}x    cpu {t_py[1] / t_rs[1]:7.1f}x")
    print(f"  same reward for {same} of {n} responses; mean {sum(t_rs[2]) / n:.4f} (python {sum(t_py[2]) / n:.4f})")


def compare_behaviour(label, instances, responses, repeat):
    """The behavioural reward against the Edit_Sim reward of the same call, and the plain
    Python Edit_Sim."""
    n = len(responses)
    t_py = timed(lambda: python_rewards(instances, responses), 1)
    t_es = timed(lambda: pbebench.reward(instances, responses), repeat)
    t_bh = timed(lambda: pbebench.reward(instances, responses, kind="behaviour"), repeat)
    values = [v for v in t_bh[2] if v is not None]
    print(f"behaviour reward, {label}")
    print(f"  plain Python Edit_Sim  wall {t_py[0] * 1e3:8.1f} ms  cpu {t_py[1] * 1e3:8.1f} ms  {n / t_py[0]:9.0f} responses/s")
    print(f"  reward (Edit_Sim)      wall {t_es[0] * 1e3:8.1f} ms  cpu {t_es[1] * 1e3:8.1f} ms  {n / t_es[0]:9.0f} responses/s")
    print(f"  kind=\"behaviour\"       wall {t_bh[0] * 1e3:8.1f} ms  cpu {t_bh[1] * 1e3:8.1f} ms  {n / t_bh[0]:9.0f} responses/s")
    print(f"  behaviour / Edit_Sim   wall {t_bh[0] / t_es[0]:7.1f}x    cpu {t_bh[1] / t_es[1]:7.1f}x   "
          f"(plain Python / behaviour: wall {t_py[0] / t_bh[0]:.1f}x)")
    print(f"  mean behaviour {sum(values) / max(len(values), 1):.4f}; undecided {n - len(values)} of {n}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--responses", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=7, help="runs of the Rust side (the best is kept)")
    args = ap.parse_args()

    dataset = list(pbebench.generate("lite", seed=args.seed))
    rng = random.Random(args.seed)
    instances = [dataset[k % len(dataset)] for k in range(args.responses)]
    responses = [gen_responses.response(inst, rng) for inst in instances]
    print(
        f"{len(responses)} responses over {len(dataset)} PBEBench-Lite instances; "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    # Which build is measured: a stale extension module beside the package would shadow it.
    print(f"extension: {pbebench._pbebench.__file__}")
    compare("per instance", instances, responses, args.repeat)
    distinct = [dict(inst) for inst in instances]
    compare("distinct dicts", distinct, responses, args.repeat)
    answers = [(FINAL_BLOCK.findall(r) or [""])[-1] for r in responses]
    compare("answers only", instances, answers, args.repeat)
    if hasattr(pbebench, "Rewarder"):
        indices = [k % len(dataset) for k in range(args.responses)]
        compare_rewarder("Rewarder (separate API: dataset prepared once, indices per call)",
                         dataset, indices, responses, args.repeat)
    compare_behaviour("per instance", instances, responses, args.repeat)
    compare_behaviour("distinct dicts", distinct, responses, args.repeat)


if __name__ == "__main__":
    main()
