"""Shared fixtures: the real `pbebench` binary, and a small dataset made by it.

The binary is `$PBEBENCH_BIN` when set; otherwise the first that exists of
`$CARGO_TARGET_DIR/{debug,release}/pbebench`, `<repo>/target/{debug,release}/pbebench`
and `pbebench` on PATH. Tests that compare with the CLI fail (they are not skipped) when
none is found: build it with `cargo build -p pbebench-cli`.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import pbebench

REPO = Path(__file__).resolve().parents[2]

# The dataset every parity test uses: `pbebench generate --preset lite --seed 3 --size 32 --heldout 5`.
PRESET, SEED, SIZE, HELDOUT = "lite", 3, 32, 5


def find_cli():
    explicit = os.environ.get("PBEBENCH_BIN")
    if explicit:
        return explicit
    targets = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    targets.append(REPO / "target")
    for target in targets:
        for profile in ("debug", "release"):
            candidate = target / profile / "pbebench"
            if candidate.is_file():
                return str(candidate)
    return shutil.which("pbebench")


class Cli:
    """Runs the `pbebench` binary and returns its standard output."""

    def __init__(self, path):
        self.path = path

    def __call__(self, *args, stdin=None):
        proc = subprocess.run(
            [self.path, *map(str, args)],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, f"pbebench {' '.join(map(str, args))} failed:\n{proc.stderr}"
        return proc.stdout


@pytest.fixture(scope="session")
def cli():
    path = find_cli()
    if not path:
        pytest.fail(
            "the pbebench binary was not found: set PBEBENCH_BIN, or build it with "
            "`cargo build -p pbebench-cli` (CARGO_TARGET_DIR is honoured)"
        )
    return Cli(path)


@pytest.fixture(scope="session")
def dataset_file(cli, tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "lite.jsonl"
    cli("generate", "--preset", PRESET, "--seed", SEED, "--size", SIZE, "--heldout", HELDOUT, "--out", path)
    return path


@pytest.fixture(scope="session")
def cli_lines(dataset_file):
    return dataset_file.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def instances():
    return list(pbebench.generate(PRESET, seed=SEED, size=SIZE, heldout=HELDOUT))


def fence(body):
    return f"Here is my answer.\n```python\n{body}\n```\n"


def released(cascade):
    """A response in the released list-of-strings format."""
    return fence(json.dumps([f"replace('{a}', '{b}')" for a, b in cascade]))


def responses_for(instance, k):
    """K responses of every kind for an instance: the gold cascade, near misses, rules that
    break the limits, garbage, thinking, None and chat messages."""
    gold = instance["cascade"]
    letter = instance["alphabet"][k % len(instance["alphabet"])]
    kinds = [
        released(gold),
        released(gold[1:]),
        released(list(reversed(gold))),
        released([[gold[0][0], letter]] + gold[1:]),
        released(gold + [["abcd", "a"]]),
        released([["A", "b"]] + gold),
        fence("s = s.replace('%s', '%s')" % tuple(gold[0])),
        "no code block at all",
        "<think>```python\n[\"replace('a', 'b')\"]\n```",
        fence("[\"replace('a', 'b')\""),
        "",
        released(gold * 3),
    ]
    return [kinds[(k + j) % len(kinds)] for j in range(1 + k % 5)]


# The frameworks of the optional extras ([inspect], [verl]). A developer's venv may lack
# them, and their tests are then skipped; CI sets PBEBENCH_REQUIRE_FRAMEWORKS=1 (python/ci.sh
# --frameworks), which makes a missing framework a failure, so CI can never skip them.
REQUIRE_FRAMEWORKS = os.environ.get("PBEBENCH_REQUIRE_FRAMEWORKS", "") not in ("", "0")


def framework(module, extra):
    """Imports `module` for a test module, or skips it (fails it in CI) when it is missing."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        message = f"{module} is not installed (pip install './python[{extra}]'): {e}"
        if REQUIRE_FRAMEWORKS:
            pytest.fail(f"PBEBENCH_REQUIRE_FRAMEWORKS is set but {message}", pytrace=False)
        pytest.skip(message, allow_module_level=True)


def _loopback(host):
    return host in ("localhost", "::1") or str(host).startswith("127.")


@pytest.fixture
def no_network(monkeypatch):
    """Any connection to another host than this one fails the test: the framework tests use
    no model API and download nothing (inspect's token counter would fetch a tokenizer)."""
    import socket

    def refuse(host):
        raise AssertionError(f"a test tried to reach {host!r} over the network")

    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(host):
            refuse(host)
        return real_connect(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if host is not None and not _loopback(host):
            refuse(host)
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


# Gold: ab→c then c→d. "xab"→"xd", "cc"→"dd", "q"→"q"; held out: "abab"→"dd", "qc"→"qd".
# A hand-made instance the API tests share.
INSTANCE = {
    "id": "hand-1",
    "inputs": ["xab", "cc", "q"],
    "outputs": ["xd", "dd", "q"],
    "cascade": [["ab", "c"], ["c", "d"]],
    "cascade_len": 2,
    "category": "1000",
    "max_rules": 3,
    "max_rule_len": 2,
    "alphabet": "abcdqx",
    "heldout_inputs": ["abab", "qc"],
    "heldout_outputs": ["dd", "qd"],
}
