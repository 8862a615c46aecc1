#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 600), two at a time, niced, under
# libFuzzer's limits: a case over 10 s (-timeout) or the process over 2 GiB of memory
# (-rss_limit_mb) is a finding, written to artifacts/TARGET/. Logs go to logs/TARGET.log;
# the last line of each says how many executions ran.
#   RUSTC_BOOTSTRAP=1 cargo fuzz build -O    # once (cargo-fuzz needs nightly flags)
#   bash run.sh 600
set -u
cd "$(dirname "$0")"
seconds=${1:-600}
targets=(response responses_file dataset literals template word_lists)
run() {
    local t=$1
    mkdir -p "corpus/$t" "artifacts/$t"
    nice -n 15 "target/x86_64-unknown-linux-gnu/release/$t" "corpus/$t" \
        -dict=dict/readers.dict -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" > "logs/$t.log" 2>&1
    echo "$t: exit $? after ${seconds}s; $(grep -E 'stat::number_of_executed_units' "logs/$t.log")"
}
for ((k = 0; k < ${#targets[@]}; k += 2)); do
    run "${targets[k]}" &
    if ((k + 1 < ${#targets[@]})); then run "${targets[k + 1]}" & fi
    wait
done
