#!/usr/bin/env bash
# The real-data mode measured (issue 42): the six real word lists (with `#` word
# boundaries when BOUNDARIES=1), 5 rotations of each instance's words (share 0.2 held out:
# every word is held out once over the 5), the rule budget swept, with `solve --real` and
# without. Summarised by real.py.
#
#   benches/solve/real.sh [OUT_DIR]     knobs: PBEBENCH (binary), TIME_LIMIT and SOLVER
#                                       (mode off: default 2 s, beam), ROTATIONS (default 0 1 2 3 4), SWEEP, THREADS,
#                                       BOUNDARIES, MODES (default "off on")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
out=${1:-$here/out-real}
bin=${PBEBENCH:-$root/target/release/pbebench}
sweep=${SWEEP:-2,5,10,half,50}
mkdir -p "$out"
cp "$bin" "$out/pbebench"
bin=$out/pbebench
cd "$out"
for l in atr_hawaiian atr_niue atr_rarotongan atr_samoan atr_tongan ptk_huishu; do
  "$bin" pairs --cldf "$root/testdata/cldf/real_sli/Wordlist-metadata.json" \
    --from "${l%%_*}" --to "$l" --out "$l.jsonl" ${BOUNDARIES:+--boundaries} 2>/dev/null
done
cat atr_*.jsonl ptk_huishu.jsonl > six.jsonl
for r in ${ROTATIONS:-0 1 2 3 4}; do
  python3 -c '
import json, sys
r = int(sys.argv[1])
for line in open(sys.argv[2]):
    d = json.loads(line)
    n = len(d["inputs"])
    for key in ("inputs", "outputs"):
        d[key] = d[key][r % n:] + d[key][: r % n]
    print(json.dumps(d, ensure_ascii=False))
' "$r" six.jsonl > "six-rot$r.jsonl"
  for mode in ${MODES:-off on}; do
    flags=(--time-limit "${TIME_LIMIT:-2}" --solver "${SOLVER:-beam}")
    [ "$mode" = on ] && flags=(--real --time-limit 60)
    /usr/bin/time -f "rot $r mode $mode: %e s" "$bin" solve --dataset "six-rot$r.jsonl" \
      --holdout 0.2 --sweep "$sweep" --threads "${THREADS:-2}" "${flags[@]}" \
      --out "rows-$mode-$r.jsonl" --status-every 1000 > "table-$mode-$r.md"
  done
done
python3 "$here/real.py" rows-off-*.jsonl -- rows-on-*.jsonl | tee summary.md
