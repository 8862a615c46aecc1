#!/usr/bin/env bash
# Builds the Python package and runs its tests against the real `pbebench` binary.
# Called by .ci/run (with --frameworks); runnable by hand from anywhere:
#   bash python/ci.sh [--frameworks] [pytest args…]
#
# - a virtualenv ($PBEBENCH_VENV, default python/.venv) with maturin and pytest from PyPI;
# - with --frameworks, also the frameworks of the [inspect], [verl], [reasoning-gym] and
#   [verifiers] extras (the requirements as pyproject.toml states them: inspect_ai, pyarrow,
#   reasoning-gym, verifiers; none needs torch: verl itself and TRL do, and
#   benches/python/train_check.sh tests with them) and pycldf (for the CLDF tests only), and
#   PBEBENCH_REQUIRE_FRAMEWORKS=1, which makes their tests fail instead of skip when a
#   framework is missing. pip's cache and an existing venv are reused, so a second run
#   installs nothing;
# - `cargo build -p pbebench-cli` (debug) for the parity tests, found through PBEBENCH_BIN;
# - `maturin develop` (debug, editable): on 2 cores it reuses the debug build of the core
#   that the CLI just made, where `pip install ./python` would compile everything again in
#   release mode inside an isolated build environment;
# - pytest, where "no tests ran" (exit status 5) is a failure like any other.
# CARGO_TARGET_DIR is honoured (default: the workspace's target/).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
venv="${PBEBENCH_VENV:-$here/.venv}"
start=$SECONDS
frameworks=0
if [ "${1:-}" = "--frameworks" ]; then
    frameworks=1
    shift
fi

# A venv is reused (its packages are then already there) unless it is of another Python.
want="$(python3 -c 'import sys; print(sys.version_info[:2])')"
if [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -c 'import sys; print(sys.version_info[:2])' 2>/dev/null)" != "$want" ]; then
    echo "python/ci.sh: $venv is of another Python than python3 ($want): making it again" >&2
    rm -rf "$venv"
fi
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9.4,<2" "pytest>=7"
if [ "$frameworks" = 1 ]; then
    # The extras' requirements, read from pyproject.toml (one place states them).
    mapfile -t extras < <("$venv/bin/python" -c '
import sys, tomllib
extras = tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]
print("\n".join(r for name in ("inspect", "verl", "reasoning-gym", "verifiers") for r in extras[name]))' "$here/pyproject.toml")
    # pycldf writes and validates the CLDF Wordlists of tests/test_cldf.py (tests only: the
    # package reads CLDF in Rust).
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${extras[@]}" "pycldf>=1.41"
    export PBEBENCH_REQUIRE_FRAMEWORKS=1
    echo "python/ci.sh: frameworks: $("$venv/bin/python" -c 'import importlib.metadata as m; print(", ".join(p + " " + m.version(p) for p in ("inspect_ai", "pyarrow", "reasoning-gym", "verifiers", "pycldf")))')" >&2
fi

(cd "$root" && cargo build --quiet -p pbebench-cli)
export PBEBENCH_BIN="$CARGO_TARGET_DIR/debug/pbebench"

# The package is abi3: an interpreter-specific build left in the source tree (a build
# without abi3) would be imported instead of the one made here.
rm -f "$here/pbebench"/_pbebench.cpython-*.so
(cd "$here" && VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --quiet)
echo "python/ci.sh: built in $((SECONDS - start)) s" >&2

status=0
(cd "$here" && "$venv/bin/python" -m pytest tests -q -rs "$@") || status=$?
if [ "$status" -eq 5 ]; then
    echo "python/ci.sh: pytest ran no tests: that is a failure" >&2
    exit 1
fi
echo "python/ci.sh: done in $((SECONDS - start)) s (pytest exit status $status)" >&2
exit "$status"
