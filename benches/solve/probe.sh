#!/usr/bin/env bash
# Recovered@1 of the built-in solver with and without probing (issue 21, item 3).
#
# Generates fresh instances (seeds SEED, SEED+1, ...: 930001–930011 by default, used
# nowhere else): PBEBench-Lite (lengths 1–5, category-balanced) and the full preset at each
# length of $LENGTHS; solves every file twice, from the visible examples only and with
# `--probe-budget $K`; and prints, per slice, Recovered@1 (the answer is equivalent to the
# gold on every input of the instance's input space, exactly: `pbebench::equiv`, written
# into each statistics line), mean behaviour, pass, probes used and time. Everything lands
# in $OUT (default benches/solve/out-probe).
#
# Knobs (environment): N_LITE (default 64) Lite instances, N instances per full length
# (default 8), LENGTHS (default "2 4 6 8 10 12 14 16 18 20"), K probes (default 50),
# TIME_LIMIT seconds per instance (default 10), THREADS (default 1), PROBE_LEN letters per
# probe (`--max-probe-len`; default: the oracle's own, 32), SOLVER (default: beam, the
# solver of the figures in probe.md), SEED (default 930001).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-benches/solve/out-probe}
N_LITE=${N_LITE:-64}
N=${N:-8}
K=${K:-50}
TIME_LIMIT=${TIME_LIMIT:-10}
THREADS=${THREADS:-1}
LENGTHS=${LENGTHS:-"2 4 6 8 10 12 14 16 18 20"}
PROBE_LEN=${PROBE_LEN:-}
SOLVER=${SOLVER:-beam}
SEED=${SEED:-930001}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
mkdir -p "$OUT"

cargo build --release -q -p pbebench-cli
# A private copy, so rebuilding during a long run cannot change the binary under it.
cp "$CARGO_TARGET_DIR/release/pbebench" "$OUT/pbebench"
BIN=$OUT/pbebench
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); solver $SOLVER; K=$K; time limit ${TIME_LIMIT}s; threads $THREADS; probe length ${PROBE_LEN:-default}"
PROBE_ARGS=(--probe-budget "$K")
if [ -n "$PROBE_LEN" ]; then
  PROBE_ARGS+=(--max-probe-len "$PROBE_LEN")
fi

ARGS=()
solve_both() { # label dataset
  "$BIN" solve --dataset "$2" --solver "$SOLVER" --time-limit "$TIME_LIMIT" --threads "$THREADS" --fresh \
    --out "$OUT/$1.static.responses.jsonl" --stats-json "$OUT/$1.static.stats.jsonl"
  "$BIN" solve --dataset "$2" --solver "$SOLVER" --time-limit "$TIME_LIMIT" --threads "$THREADS" --fresh \
    "${PROBE_ARGS[@]}" \
    --out "$OUT/$1.probe.responses.jsonl" --stats-json "$OUT/$1.probe.stats.jsonl"
  ARGS+=("$1")
}

"$BIN" generate --preset lite --seed "$SEED" --size "$N_LITE" --threads "$THREADS" \
  -o "$OUT/gen-lite.jsonl"
solve_both lite "$OUT/gen-lite.jsonl"
seed=$SEED
for L in $LENGTHS; do
  seed=$((seed + 1))
  "$BIN" generate --preset full --seed $seed --cascade-len "$L" --size "$N" \
    --threads "$THREADS" -o "$OUT/gen-full-$L.jsonl"
  solve_both "full-$L" "$OUT/gen-full-$L.jsonl"
done

python3 benches/solve/summarize_probe.py "$OUT" "${ARGS[@]}" | tee "$OUT/summary.md"
