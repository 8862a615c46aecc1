"""`vet_on_ray.py` on a local Ray instance of two CPUs: the joined shards are byte for byte
the unsharded `pbebench vet`'s snapshot. Outside the default test run (Ray is a large
install); run it with

    pip install ray pytest
    PBEBENCH_BIN=target/debug/pbebench python -m pytest python/examples/test_vet_on_ray.py
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import vet_on_ray  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
VET = ["--panel", "shortcuts", "--max-examples", "5", "--seed", "3"]


def binary():
    for candidate in (
        os.environ.get("PBEBENCH_BIN"),
        REPO / "target" / "debug" / "pbebench",
        REPO / "target" / "release" / "pbebench",
        shutil.which("pbebench"),
    ):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.fail("no pbebench binary: set PBEBENCH_BIN or `cargo build -p pbebench-cli`")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def run(*args):
    subprocess.run([binary(), *map(str, args)], check=True, capture_output=True)


def test_shards_on_ray_join_to_the_unsharded_snapshot(local_ray, tmp_path):
    data, whole = tmp_path / "lite.jsonl", tmp_path / "whole.jsonl"
    run("generate", "--size", "32", "--seed", "4", "--out", data)
    run("vet", "--dataset", data, "--out", whole, "--threads", "1", *VET)
    expected = whole.read_bytes()
    assert b'"replaced"' in expected, "some slot holds a fresh instance"
    for shards in (3, 7):
        out = tmp_path / f"ray-{shards}.jsonl"
        lines = vet_on_ray.vet_on_ray(binary(), data, out, shards, VET)
        assert out.read_bytes() == expected, f"{shards} shards"
        assert lines == expected.count(b"\n")


def test_a_failing_shard_names_itself(local_ray, tmp_path):
    data = tmp_path / "lite.jsonl"
    run("generate", "--size", "16", "--seed", "4", "--out", data)
    refused = r"shard [01]/2: error: .*lite.jsonl: --max-examples 2 is smaller"
    with pytest.raises(ray.exceptions.RayTaskError, match=refused):
        vet_on_ray.vet_on_ray(binary(), data, tmp_path / "o.jsonl", 2, ["--max-examples", "2"])
    with pytest.raises(ValueError, match="shards: 0"):
        vet_on_ray.vet_on_ray(binary(), data, tmp_path / "o.jsonl", 0, [])
