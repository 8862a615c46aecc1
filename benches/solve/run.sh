#!/usr/bin/env bash
# Benchmark of the built-in symbolic solver (issue 5).
#
# Generates fresh instances (seeds 910001.. — never used by the tests, which use
# 0x5eed_000x) per preset and cascade length, solves them one core per instance with each
# solver of $SOLVERS (the new one and the previous one, on the same instances, in the same
# run), and prints Pass@1 and Recovered@1 (exact equivalence with the gold, by
# pbebench::equiv) with median/p95 time per length group and solver (compare.py), and the
# first solver's pass rate by length with the comparison with the bar (summarize.py); then
# the three published snapshots. Everything lands in $OUT (default benches/solve/out).
#
# Knobs (environment): N instances per length (default 32), TIME_LIMIT seconds per
# instance (default 10), THREADS parallel instances (default 1), LENGTHS for the full
# preset (default "2 4 6 8 10 12 14 16 18 20"), SOLVERS (default "beam beam-v1"; the
# first is the one summarize.py reports), SKIP_PUBLISHED=1 / SKIP_GENERATED=1,
# SKIP_HARD=1 (lengths 25 and 30), SKIP_REAL=1 (the six real languages of real_sli,
# cross-validated with --holdout 0.2), PUBLISHED_LITE_STEP (solve every k-th published Lite
# instance, default 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-benches/solve/out}
N=${N:-32}
TIME_LIMIT=${TIME_LIMIT:-10}
THREADS=${THREADS:-1}
LENGTHS=${LENGTHS:-"2 4 6 8 10 12 14 16 18 20"}
SOLVERS=${SOLVERS:-${SOLVER:-beam beam-v1}}
REF=${REF:-testdata/pbebench-official}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target-solve}
mkdir -p "$OUT"

cargo build --release -q -p pbebench-cli
# A private copy, so rebuilding during a long run cannot change the binary under it.
cp "$CARGO_TARGET_DIR/release/pbebench" "$OUT/pbebench"
BIN=$OUT/pbebench

solve() { # label dataset (--fresh: never resume a journal an interrupted earlier run left)
  local first=1 s
  for s in $SOLVERS; do
    "$BIN" solve --dataset "$2" --solver "$s" --time-limit "$TIME_LIMIT" --threads "$THREADS" \
      --fresh --out "$OUT/$1.$s.responses.jsonl" --stats "$OUT/$1.$s.stats.jsonl"
    COMPARE+=("$s:$1=$OUT/$1.$s.stats.jsonl")
    if [ -n "$first" ]; then SUMMARY+=("$1=$OUT/$1.$s.stats.jsonl"); first=; fi
  done
}

SUMMARY=()
COMPARE=()
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); time limit ${TIME_LIMIT}s; threads $THREADS; N=$N per length; solvers $SOLVERS"

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
  for L in $([ -z "${SKIP_HARD:-}" ] && echo 25 30); do
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

if [ -z "${SKIP_REAL:-}" ]; then
  # Real sound changes, cross-validated: 20% of each instance's words held out.
  "$BIN" pairs --dir "$REF/real_sli" --out "$OUT/real.jsonl"
  for s in $SOLVERS; do
    "$BIN" solve --dataset "$OUT/real.jsonl" --solver "$s" --holdout 0.2 --time-limit "$TIME_LIMIT" \
      --threads "$THREADS" --out "$OUT/real-holdout.$s.jsonl" > "$OUT/real-holdout.$s.md"
  done
fi

{
  echo "## Pass@1 and Recovered@1 per length group, solvers side by side ($SOLVERS)"
  echo
  python3 benches/solve/compare.py "${COMPARE[@]}"
  echo
  echo "## The first solver ($(echo $SOLVERS | cut -d' ' -f1)) against the bar"
  echo
  python3 benches/solve/summarize.py "${SUMMARY[@]}"
  for s in $([ -z "${SKIP_REAL:-}" ] && echo $SOLVERS); do
    echo
    echo "## Real sound changes, 20% of the words held out ($s)"
    echo
    cat "$OUT/real-holdout.$s.md"
  done
} | tee "$OUT/summary.md"
