#!/usr/bin/env bash
# Benchmark of `pbebench score` against the plain-Python reference of the released metric
# code (reference.py), on the same generated dataset and responses.
#
#   benches/score/run.sh [PRESET=full] [SAMPLES=32]
#
# Builds the release binary (CARGO_TARGET_DIR honoured), generates the preset with
# `pbebench generate` (full: 1216 instances × 50 examples, cascade lengths 2–20), writes
# SAMPLES realistic responses per instance (gen_responses.py), then times both scorers on
# the same files: wall clock and CPU time (user + system), best of 3 runs each (Python: best
# of 2). Prints throughputs, the ratios and both sets of figures (they should agree).
# `pbebench score` runs twice: with the behaviour grading (exact equivalence of every
# answer with the gold: Recovered@1, behaviour), as by default, and with --no-behaviour,
# side by side; the ratio against the Python reference is taken without it (the reference
# computes no behaviour).
# Files go to $BENCH_DIR (default: $TMPDIR/pbebench-score-bench) and are reused.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
preset="${1:-full}"
samples="${2:-32}"
target="${CARGO_TARGET_DIR:-$root/target}"
work="${BENCH_DIR:-${TMPDIR:-/tmp}/pbebench-score-bench}"
mkdir -p "$work"

(cd "$root" && cargo build --release -p pbebench-cli --quiet)
bin="$target/release/pbebench"

data="$work/$preset.jsonl"
if [ ! -s "$data" ]; then
    echo "generating the $preset preset into $data" >&2
    "$bin" generate --preset "$preset" --seed 1 --out "$data" 2>/dev/null
fi
responses="$work/$preset-responses-$samples.jsonl"
if [ ! -s "$responses" ]; then
    python3 "$here/gen_responses.py" "$data" "$responses" --samples "$samples" --seed 1
fi

python3 - "$bin" "$here/reference.py" "$data" "$responses" "$work" <<'PY'
import json, os, resource, subprocess, sys, time

binary, reference, data, responses, work = sys.argv[1:]

def run(cmd, repeat):
    """Best wall clock and best CPU time (user + system of the child) over `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)

rust_out, py_out = os.path.join(work, "rust.json"), os.path.join(work, "python.json")
rust_graded_out = os.path.join(work, "rust-behaviour.json")
graded = run([binary, "score", "--dataset", data, "--responses", responses, "--out", rust_graded_out], 3)
rust = run([binary, "score", "--no-behaviour", "--dataset", data, "--responses", responses, "--out", rust_out], 3)
python = run([sys.executable, reference, "--dataset", data, "--responses", responses, "--out", py_out], 2)

instances = sum(1 for line in open(data) if line.strip())
total = sum(len(json.loads(line)["responses"]) for line in open(responses) if line.strip())
size = os.path.getsize(responses) / 2**20
load = os.getloadavg()[0]
print(f"{instances} instances, {total} responses ({size:.0f} MiB JSONL), {os.cpu_count()} cores, load average {load:.1f}")
print(f"{'':15s} {'wall s':>8s} {'cpu s':>8s} {'responses/s (wall)':>20s}")
for name, (wall, cpu) in [("score (graded)", graded), ("--no-behaviour", rust), ("python ref", python)]:
    print(f"{name:15s} {wall:8.2f} {cpu:8.2f} {total / wall:20.0f}")
print(f"ratio: {python[0] / rust[0]:.1f}x wall clock, {python[1] / rust[1]:.1f}x CPU time (--no-behaviour vs python)")
print(f"behaviour grading costs {graded[0] / rust[0]:.2f}x the wall clock of scoring without it")
g = json.load(open(rust_graded_out))["summary"]["overall"]
print(f"  Pass@1 {g['pass_at_1']:.4f}  Recovered@1 {g['recovered']:.4f}  behaviour {g['behaviour']:.4f}  "
      f"undecided {g['undecided']}  skipped {g['behaviour_skipped']}")
ours = json.load(open(rust_out))["summary"]["overall"]
theirs = json.load(open(py_out))
# The reference's "pass" is best-of-K (pbebench's key "best_of_k" since results format 2).
for key, own in [("pass", "best_of_k"), ("edit_sim", "edit_sim"), ("edit_sim_word", "edit_sim_word"), ("valid_rate", "valid_rate")]:
    print(f"  {key:14s} pbebench {ours[own]:.6f}  python {theirs[key]:.6f}")
PY
