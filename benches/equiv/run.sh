#!/usr/bin/env bash
# Benchmark of the exact equivalence engine (issue "Grade behaviour, not fit").
#
# Generates a full-preset dataset (1216 instances, seed 930001: never used by the
# tests), pairs each gold cascade with eight plausible answers, and times the engine on
# every pair (CPU time of the thread) against brute force; see README.md for what each
# printed figure means and what brute force enumerates. Output also lands in
# $OUT/result.txt (default OUT: benches/equiv/out).
#
# Knobs (environment): SEED (default 930001), CHECK pairs checked exactly against a
# whole-space brute force of lengths 2..=3 (default 64), SAMPLE strings per pair for the
# brute-force timing (default 2000).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-benches/equiv/out}
SEED=${SEED:-930001}
CHECK=${CHECK:-64}
SAMPLE=${SAMPLE:-2000}
mkdir -p "$OUT"

cargo build --release -q -p pbebench-cli
target/release/pbebench generate --preset full --seed "$SEED" --threads 2 \
  -o "$OUT/full.jsonl" 2> "$OUT/generate.log"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/result.txt"
cargo bench -q -p pbebench --bench equiv -- "$OUT/full.jsonl" --check "$CHECK" \
  --sample "$SAMPLE" | tee -a "$OUT/result.txt"
