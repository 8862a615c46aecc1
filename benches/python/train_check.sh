#!/usr/bin/env bash
# The checks that need torch, outside the default tests (python/ci.sh --frameworks installs no
# torch): pbebench's verl tools through verl's own agent-loop code (python/tests/test_verl_tools.py)
# and two GRPO steps of TRL with environment_factory=ProbeEnv on a random tiny model, on CPU
# (python/examples/trl_probe_grpo.py --tiny; nothing is downloaded but the packages).
#
#   bash benches/python/train_check.sh
#
# Makes or reuses the venv $PBEBENCH_TORCH_VENV (default python/.venv-torch): verl and TRL bring
# torch with its CUDA libraries from PyPI, about 6.5 GB and 10 minutes on two cores the first
# time. verl 0.9.1 imports cachetools, uvicorn and fastapi without declaring them, and TRL needs
# jmespath with transformers below 5.13: they are installed here too.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
venv="${PBEBENCH_TORCH_VENV:-$root/python/.venv-torch}"
start=$SECONDS

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    "maturin>=1.9.4,<2" "pytest>=7" "verl==0.9.1" "trl>=1.16,<2" datasets cachetools uvicorn fastapi jmespath
echo "train_check.sh: installed in $((SECONDS - start)) s: $("$venv/bin/python" -c 'import importlib.metadata as m; print(", ".join(p + " " + m.version(p) for p in ("torch", "transformers", "trl", "verl")))')" >&2

(cd "$root" && cargo build --quiet -p pbebench-cli)
rm -f "$root/python/pbebench"/_pbebench.cpython-*.so
(cd "$root/python" && VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --quiet)

echo "== verl: the probing tools through verl's ToolAgentLoop._call_tool, and the same episode as ProbeEnv's" >&2
(cd "$root/python" && PBEBENCH_BIN="$CARGO_TARGET_DIR/debug/pbebench" "$venv/bin/python" -m pytest -q -p no:warnings tests/test_verl_tools.py tests/test_adapters.py)

echo "== TRL: two GRPO steps with environment_factory=ProbeEnv, tiny random model, CPU" >&2
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
TRL_EXPERIMENTAL_SILENCE=1 "$venv/bin/python" "$root/python/examples/trl_probe_grpo.py" --tiny --steps 2 --output-dir "$out" 2>"$out/stderr" | tail -1 \
    || { tail -20 "$out/stderr" >&2; exit 1; }
echo "train_check.sh: done in $((SECONDS - start)) s" >&2
