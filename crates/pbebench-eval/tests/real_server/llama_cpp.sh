#!/usr/bin/env bash
# Interactive mode against a real OpenAI-compatible server on CPU: llama-cpp-python's
# server (from PyPI) serving a tiny random-weight GGUF model that tiny_gguf.py writes.
# Random weights exercise the protocol, not the model: a forced tool_choice makes every
# answer a grammar-constrained tool call, and the text protocol gets whatever noise the
# model writes. Not part of `cargo test` (building llama-cpp-python takes a long while).
#
#   crates/pbebench-eval/tests/real_server/llama_cpp.sh [VENV]
#
# VENV (default $PBEBENCH_LLAMA_VENV, else target/llama-venv) is created and filled with
# llama-cpp-python[server], gguf and numpy when it has no python yet.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
venv=${1:-${PBEBENCH_LLAMA_VENV:-$root/target/llama-venv}}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import llama_cpp.server, gguf' 2>/dev/null; then
    python3 -m venv "$venv"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$venv/bin/pip" install 'llama-cpp-python[server]' gguf numpy
fi
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$venv/bin/python" "$here/tiny_gguf.py" "$work/tiny.gguf"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$venv/bin/python" -m llama_cpp.server --model "$work/tiny.gguf" --model_alias tiny \
    --chat_format chatml-function-calling --host 127.0.0.1 --port "$port" --n_ctx 4096 \
    > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null && break
    kill -0 "$server" 2>/dev/null || { cat "$work/server.log"; exit 1; }
    sleep 0.5
done

cd "$root"
cargo build -q -p pbebench-cli
pb=$root/target/debug/pbebench
"$pb" generate --preset lite --size 4 --balance length --seed 7 --heldout 4 --out "$work/d.jsonl"
url=http://127.0.0.1:$port/v1
common=(--dataset "$work/d.jsonl" --model tiny --base-url "$url" --interactive
        --probe-budget 40 --max-turns 3 --max-tokens 96 --temperature 0 --concurrency 1
        --timeout 300 --no-progress)

echo "== tools protocol, tool_choice forced to run_hidden (grammar-constrained calls)"
"$pb" eval "${common[@]}" --run "$work/run1" \
    --extra-body '{"tool_choice": {"type": "function", "function": {"name": "run_hidden"}}}' || true
python3 - "$work/run1/run.sqlite" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
turns = db.execute("SELECT assistant, results FROM turns").fetchall()
calls = [c for a, _ in turns for c in json.loads(a).get("tool_calls", [])]
results = [json.loads(r["content"]) for _, rs in turns for r in json.loads(rs)]
print(f"{len(turns)} turns stored, {len(calls)} tool calls, {len(results)} tool results")
assert turns and len(calls) >= len(turns), "every turn should hold a forced tool call"
assert all(c["function"]["name"] == "run_hidden" for c in calls)
# Random weights write noise inside the grammar (often cut at max_tokens): each call is
# answered with outputs or with an error message, never a crash.
assert len(results) == len(calls) and all("outputs" in r or "error" in r for r in results)
print("results:", sorted({"outputs" if "outputs" in r else r["error"][:40] for r in results}))
ended = db.execute("SELECT end_reason, count(*) FROM episodes GROUP BY end_reason").fetchall()
print("episodes ended by", ended)
assert sum(n for _, n in ended) == 4
PY
id=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["id"])' "$work/d.jsonl")
"$pb" show "$work/run1" --id "$id" | head -40

echo "== text protocol (no tools sent; the model's noise is its answer)"
"$pb" eval "${common[@]}" --run "$work/run2" --tool-protocol text || true
python3 - "$work/run2/run.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("episodes ended by", db.execute("SELECT end_reason, count(*) FROM episodes GROUP BY end_reason").fetchall())
assert db.execute("SELECT count(*) FROM episodes").fetchone()[0] == 4
PY

echo "== rescore sends nothing"
kill "$server"; server=
"$pb" eval --run "$work/run1" --rescore --format json | python3 -c 'import json,sys; r = json.load(sys.stdin); print("rescored episodes:", r["interactive"]["summary"]["episodes"])'
echo "llama.cpp check passed"
