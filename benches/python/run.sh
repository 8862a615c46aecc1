#!/usr/bin/env bash
# Benchmark of pbebench.reward (release build) against the plain-Python released metric code.
#
#   bash benches/python/run.sh [bench_reward.py args…]     e.g. --responses 10000 --repeat 7
#
# Uses the virtualenv of python/ci.sh ($PBEBENCH_VENV, default python/.venv), installs the
# extension there in release mode (`maturin develop --release`; CARGO_TARGET_DIR honoured),
# then runs bench_reward.py. A later `bash python/ci.sh` puts the debug build back.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
venv="${PBEBENCH_VENV:-$root/python/.venv}"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9.4,<2"
# The package is abi3: an interpreter-specific build left in the source tree (a build
# without abi3) would be imported instead of the one made here.
rm -f "$root/python/pbebench"/_pbebench.cpython-*.so
(cd "$root/python" && VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --release --quiet)
"$venv/bin/python" "$here/bench_reward.py" "$@"
