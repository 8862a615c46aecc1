"""Python-side overhead of pbebench.rl.ProbeEnv per tool call, against a bare Oracle call
in the same process (issue 39: well under a millisecond).

    python benches/python/bench_rl.py [--calls N] [--repeat R]

Prints microseconds per call, the best of R rounds of N calls, for run_hidden and
test_cascade through ProbeEnv and through the Oracle directly, and for submit against
Oracle.read_cascade (what a submission costs the Oracle: reading the cascade), and their
difference (what the environment adds: argument checks, reading the cascade as the binary
reads a tool call, the JSON text of the result). The absolute figures
depend on the build (`bash benches/python/run.sh` installs a release build first; the
debug build of python/ci.sh is slower in the core, not in the Python layer).
"""

import argparse
import time

import pbebench
from pbebench import rl


def best(fn, calls, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return min(times)


def _submit(inst, rules):
    env = _submit.env
    env._episode.ended = env._episode.submitted = None  # submit again on the same episode
    return env.submit(rules)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    inst = next(pbebench.generate("lite", seed=0, size=16))
    budget = args.calls * args.repeat * 2 + 10
    rules = [f"replace({a!r}, {b!r})" for a, b in inst["cascade"]]
    probe = [inst["inputs"][0][:2]]

    oracle = pbebench.Oracle(inst, budget)
    env = rl.ProbeEnv(probe_budget=budget)
    env.reset(**inst)
    # test_cascade checks every distinct probed input: both sides get the same 10 first.
    tested_oracle = pbebench.Oracle(inst, 40)
    tested_env = rl.ProbeEnv()
    tested_env.reset(**inst)
    probes = [inst["alphabet"][k % len(inst["alphabet"])] * (1 + k % 5) for k in range(10)]
    tested_oracle.run_hidden(probes)
    tested_env.run_hidden(probes)
    rows = [
        ("run_hidden", lambda: oracle.run_hidden(probe), lambda: env.run_hidden(probe)),
        ("test_cascade", lambda: tested_oracle.test_cascade(rules), lambda: tested_env.test_cascade(rules)),
        ("submit", lambda: tested_oracle.read_cascade(rules), lambda: _submit(inst, rules)),
    ]
    _submit.env = rl.ProbeEnv()
    _submit.env.reset(**inst)
    print(f"{'tool':<14}{'Oracle µs':>11}{'ProbeEnv µs':>13}{'overhead µs':>13}")
    for name, bare, wrapped in rows:
        b = best(bare, args.calls, args.repeat)
        w = best(wrapped, args.calls, args.repeat)
        print(f"{name:<14}{b:>11.1f}{w:>13.1f}{w - b:>13.1f}")


if __name__ == "__main__":
    main()
