#!/usr/bin/env bash
# Issue 40, measured under node caps (deterministic: the same bytes on any machine and
# under any load, which wall-clock limits on a shared machine are not):
#
# 1. the oracle peel: the published length-30 file (first $N_PUB records) solved as it is,
#    with the gold's last 6 rules peeled off the outputs, and with its first 6 peeled off
#    the inputs (peel.py; the rule cap drops by 6 either way);
# 2. `beam-ends`, `beam-ends-aligned`, `beam-ends-chain` and `beam-ends-tree`
#    (crates/pbebench-solve/src/ends.rs) against `beam` on the same records, on generated
#    lengths 20, 25 and 30 (fresh seeds), and on a sample of published Lite.
#
# Knobs: NODES (node cap per solve, default 1000), N_PUB (default 8), N_GEN per length
# (default 6), LITE_STEP (every k-th published Lite record, default 42), THREADS (default 1).
# TIME_LIMIT=S solves under a wall-clock limit of S seconds and no node cap instead: the
# fair comparison (a node cap bounds the beam, not the repair and the prior's search that
# come on top of each solve, and beam-ends runs up to four solves), but not reproducible
# byte for byte; run it on an idle machine with THREADS at most the cores.
# Results and paired.py's tables land in $OUT (default benches/solve/out-ends).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-benches/solve/out-ends}
NODES=${NODES:-1000}
N_PUB=${N_PUB:-8}
N_GEN=${N_GEN:-6}
LITE_STEP=${LITE_STEP:-42}
THREADS=${THREADS:-1}
TIME_LIMIT=${TIME_LIMIT:-1000000}
[ "$TIME_LIMIT" = 1000000 ] || NODES=0
REF=testdata/pbebench-official
mkdir -p "$OUT"
cargo build --release -q -p pbebench-cli
cargo build --release -q -p pbebench-solve --example solve_nodes
cp target/release/pbebench target/release/examples/solve_nodes "$OUT/"
BIN=$OUT/pbebench
RUN=$OUT/solve_nodes

"$BIN" export --to pbebench --out "$OUT/pub30-all.jsonl" \
  --dataset "$REF/adaptive_balanced_64_hard_50_inputs_30_cascade_unified_latest.jsonl"
head -n "$N_PUB" "$OUT/pub30-all.jsonl" > "$OUT/pub30.jsonl"
"$BIN" export --to pbebench --out "$OUT/lite-all.jsonl" \
  --dataset "$REF/adaptive_balanced_1008_complete.jsonl"
awk -v k="$LITE_STEP" 'NR % k == 1' "$OUT/lite-all.jsonl" > "$OUT/lite.jsonl"
for L in 20 25 30; do
  "$BIN" generate --preset full --seed "96$L" --cascade-len "$L" --size 16 -o "$OUT/gen-$L-all.jsonl"
  head -n "$N_GEN" "$OUT/gen-$L-all.jsonl" > "$OUT/gen-$L.jsonl"
done

# 1. The oracle peel.
for side in last first; do
  python3 benches/solve/peel.py "$OUT/pub30.jsonl" "$side" 6 > "$OUT/pub30-peel-$side.jsonl"
done
for v in pub30 pub30-peel-last pub30-peel-first; do
  "$RUN" "$OUT/$v.jsonl" "$OUT/$v.beam.out" "$OUT/$v.beam.stats" "$NODES" beam 0 32 "$THREADS" "$TIME_LIMIT"
done
python3 benches/solve/paired.py "as it is=$OUT/pub30.beam.stats" \
  "last 6 peeled=$OUT/pub30-peel-last.beam.stats" \
  "first 6 peeled=$OUT/pub30-peel-first.beam.stats" | tee "$OUT/peel.md"

# 2. beam-ends against beam, back to back.
for set in pub30 gen-20 gen-25 gen-30 lite; do
  for s in beam beam-ends beam-ends-aligned beam-ends-chain beam-ends-tree; do
    [ -e "$OUT/$set.$s.stats" ] ||
      "$RUN" "$OUT/$set.jsonl" "$OUT/$set.$s.out" "$OUT/$set.$s.stats" "$NODES" "$s" 0 32 "$THREADS" "$TIME_LIMIT"
  done
  python3 benches/solve/paired.py "beam=$OUT/$set.beam.stats" \
    "beam-ends=$OUT/$set.beam-ends.stats" \
    "beam-ends-aligned=$OUT/$set.beam-ends-aligned.stats" \
    "beam-ends-chain=$OUT/$set.beam-ends-chain.stats" \
    "beam-ends-tree=$OUT/$set.beam-ends-tree.stats" | tee "$OUT/ends-$set.md"
done
