#!/usr/bin/env bash
# Benchmark of the built-in symbolic solver (issue 5).
#
# Generates fresh instances (seeds 910001.. — never used by the tests, which use
# 0x5eed_000x) per preset and cascade length, solves them one core per instance, and
# prints pass rate by length, median/p95 time and the comparison with the bar; then the
# three published snapshots. Everything lands in $OUT (default benches/solve/out).
#
# Knobs (environment): N instances per length (default 32), TIME_LIMIT seconds per
# instance (default 10), THREADS parallel instances (default 1), LENGTHS for the full
# preset (default "2 4 6 8 10 12 14 16 18 20"), SOLVER (default: the CLI's default),
# SKIP_PUBLISHED=1 / SKIP_GENERATED=1, PUBLISHED_LITE_STEP (solve every k-th published
# Lite instance, default 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-benches/solve/out}
N=${N:-32}
TIME_LIMIT=${TIME_LIMIT:-10}
THREADS=${THREADS:-1}
LENGTHS=${LENGTHS:-"2 4 6 8 10 12 14 16 18 20"}
SOLVER_ARG=${SOLVER:+--solver $SOLVER}
REF=${REF:-../shared/reference/pbebench-official}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target-solve}
mkdir -p "$OUT"

cargo build --release -q -p pbebench-cli
# A private copy, so rebuilding during a long run cannot change the binary under it.
cp "$CARGO_TARGET_DIR/release/pbebench" "$OUT/pbebench"
BIN=$OUT/pbebench

solve() { # label dataset (--fresh: never resume a journal an interrupted earlier run left)
  "$BIN" solve --dataset "$2" $SOLVER_ARG --time-limit "$TIME_LIMIT" --threads "$THREADS" \
    --fresh --out "$OUT/$1.responses.jsonl" --stats "$OUT/$1.stats.jsonl"
  SUMMARY+=("$1=$OUT/$1.stats.jsonl")
}

SUMMARY=()
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); time limit ${TIME_LIMIT}s; threads $THREADS; N=$N per length"

if [ -z "${SKIP_GENERATED:-}" ]; then
  seed=910001
  # Lite: category-balanced over lengths 2–5, cap 5; 16 categories × N/4 ≈ N per length.
  if "$BIN" generate --preset lite --seed $seed --size $((16 * (N / 4 > 0 ? N / 4 : 1))) \
       --threads "$THREADS" -o "$OUT/gen-lite.jsonl"; then
    solve lite-gen "$OUT/gen-lite.jsonl"
  else
    echo "warning: could not generate Lite instances; skipping" >&2
  fi
  for L in $LENGTHS; do
    seed=$((seed + 1))
    if "$BIN" generate --preset full --seed $seed --cascade-len "$L" --size "$N" \
         --threads "$THREADS" -o "$OUT/gen-full-$L.jsonl"; then
      solve "full-$L" "$OUT/gen-full-$L.jsonl"
    else
      echo "warning: could not generate full instances of length $L; skipping" >&2
    fi
  done
  for L in 25 30; do
    seed=$((seed + 1))
    if "$BIN" generate --preset full-25-30 --seed $seed --cascade-len "$L" --size "$N" \
         --threads "$THREADS" -o "$OUT/gen-hard-$L.jsonl"; then
      solve "hard-$L" "$OUT/gen-hard-$L.jsonl"
    else
      echo "warning: could not generate instances of length $L; skipping" >&2
    fi
  done
fi

if [ -z "${SKIP_PUBLISHED:-}" ]; then
  awk "NR % ${PUBLISHED_LITE_STEP:-1} == 0" "$REF/adaptive_balanced_1008_complete.jsonl" > "$OUT/pub-lite.jsonl"
  solve lite-published "$OUT/pub-lite.jsonl"
  solve published-10 "$REF/adaptive_balanced_64_hard_50_inputs_10_cascade_bbr.jsonl"
  solve published-30 "$REF/adaptive_balanced_64_hard_50_inputs_30_cascade_unified_latest.jsonl"
fi

python3 benches/solve/summarize.py "${SUMMARY[@]}" | tee "$OUT/summary.md"
