"""What `pip install ./python` pulls (nothing), what the extras pull, and the entry point
inspect_ai loads the tasks through."""

import sys

import pytest
from conftest import REPO

tomllib = pytest.importorskip("tomllib") if sys.version_info < (3, 11) else __import__("tomllib")

PROJECT = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())["project"]


def test_the_package_has_no_dependencies():
    assert PROJECT["dependencies"] == []


def test_the_extras_pull_only_their_framework():
    extras = PROJECT["optional-dependencies"]
    assert set(extras) == {"inspect", "verl", "reasoning-gym", "verifiers"}
    assert [r.split(">")[0].split("<")[0] for r in extras["inspect"]] == ["inspect_ai"]
    assert [r.split(">")[0].split("<")[0] for r in extras["verl"]] == ["pyarrow"]
    assert [r.split(">")[0].split("<")[0] for r in extras["reasoning-gym"]] == ["reasoning-gym"]
    assert [r.split(">")[0].split("<")[0] for r in extras["verifiers"]] == ["verifiers"]


def test_the_inspect_entry_point_names_the_registry_module():
    assert PROJECT["entry-points"]["inspect_ai"] == {"pbebench": "pbebench._registry"}
    assert (REPO / "python" / "pbebench" / "_registry.py").is_file()


def test_importing_pbebench_imports_no_framework():
    import subprocess

    code = (
        "import sys, pbebench, pbebench.verl, pbebench.rl; "
        "print(sorted({'inspect_ai', 'pyarrow', 'verl', 'torch', 'reasoning_gym', 'verifiers'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
