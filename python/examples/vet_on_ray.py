"""Vet a dataset on a Ray cluster: one `pbebench vet --shard K/N` task per shard, their
snapshots joined in order into one file, byte for byte what one unsharded `pbebench vet`
writes (each slot of a vetted snapshot depends only on its instance, the options and its
position in the dataset).

    python vet_on_ray.py --dataset full.jsonl --out full-vetted.jsonl --shards 64 \\
        [--address auto] [--pbebench /path/to/pbebench] [-- --max-examples 70 ...]

Arguments after `--` go to every `pbebench vet` (the panel, --max-examples, --seed).
Every node needs the `pbebench` binary (on PATH, or at --pbebench); the dataset travels
through Ray's object store, so no shared file system is needed. A shard that fails stops
the run with its `pbebench vet` error; shards are small, so a rerun simply redoes them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import ray


@ray.remote(num_cpus=1)
def vet_shard(
    pbebench: str, name: str, dataset: bytes, k: int, n: int, extra: list[str]
) -> bytes:
    """Shard `k` of `n` of the dataset (its file `name`), vetted: the lines of its kept
    slots."""
    with tempfile.TemporaryDirectory() as work:
        data, out = Path(work, name), Path(work, "shard.jsonl")
        data.write_bytes(dataset)
        command = [pbebench, "vet", "--dataset", str(data), "--out", str(out)]
        command += ["--shard", f"{k}/{n}", "--threads", "1", *extra]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"shard {k}/{n}: {done.stderr.strip()}")
        return out.read_bytes()


def vet_on_ray(pbebench: str, dataset: Path, out: Path, shards: int, extra: list[str]) -> int:
    """Vets `dataset` in `shards` Ray tasks and writes the joined snapshot to `out`
    (atomically); returns the number of lines written."""
    if shards < 1:
        raise ValueError(f"shards: {shards} is not a number of shards; give at least 1")
    data = ray.put(dataset.read_bytes())
    tasks = [vet_shard.remote(pbebench, dataset.name, data, k, shards, extra) for k in range(shards)]
    parts = ray.get(tasks)
    joined = b"".join(parts)
    partial = out.with_name(out.name + ".ray-partial")
    partial.write_bytes(joined)
    os.replace(partial, out)
    return joined.count(b"\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True, help="the dataset to vet")
    parser.add_argument("--out", type=Path, required=True, help="where the snapshot goes")
    parser.add_argument("--shards", type=int, default=64, help="Ray tasks (default 64)")
    parser.add_argument("--address", help="a Ray cluster's address (default: start one here)")
    parser.add_argument("--pbebench", default=shutil.which("pbebench") or "pbebench")
    args = parser.parse_args(argv)
    ray.init(address=args.address)
    lines = vet_on_ray(args.pbebench, args.dataset, args.out, args.shards, extra)
    print(f"wrote {args.out}: {lines} vetted instances from {args.shards} shards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
