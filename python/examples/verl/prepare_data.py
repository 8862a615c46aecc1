"""PBEBench as verl training data: train.parquet and test.parquet in verl's layout.

    pip install "./python[verl]"           # pbebench and pyarrow
    python python/examples/verl/prepare_data.py --preset lite --train-size 1008 --test-size 160 --out-dir data/pbebench

Each row (``pbebench.verl.row``) has verl's five fields: ``data_source`` ("pbebench"),
``prompt`` (the instance's prompt as one user message; ``--template authors`` for the
authors' released prompt), ``ability`` ("pbe"), ``reward_model`` (``style`` "rule" and
``ground_truth``: the JSON of the examples and limits; the gold cascade only with
``--behaviour-reward``, which the behavioural reward needs) and ``extra_info`` (split,
index, id, cascade length, category, heldout_reward, and ``reward_kind`` "behaviour" with
``--behaviour-reward``). With ``--probe`` the rows are those of the probing task
(``pbebench.verl.probe_row``: the first message of ``pbebench eval --interactive``, the
instance for the tools of ``probe_tools.yaml`` in ``extra_info.tools_kwargs``). The reward
function is ``pbebench.verl.compute_score``; ``run_grpo.sh`` beside this file trains with
them (it needs GPUs). The test split is generated with seed + 1, and any instance that
also is in the train split (same examples) is left out of it.

Only pbebench and pyarrow are needed here.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

import pbebench
import pbebench.verl


def instances(preset, seed, size, heldout):
    overrides = {} if heldout is None else {"heldout": heldout}
    return list(pbebench.generate(preset, seed=seed, size=size, **overrides))


def write_parquet(rows, path):
    """Writes `rows` as a parquet file at `path`, atomically (temporary file + rename)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    table = pa.Table.from_pylist(rows)
    fd, tmp = tempfile.mkstemp(prefix=".pbebench-", suffix=".parquet.tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def prepare(preset="lite", seed=0, train_size=1008, test_size=160, heldout=None, template="default",
            heldout_reward=False, out_dir=".", behaviour_reward=False, probe=False, probe_budget=40):
    """Writes OUT_DIR/train.parquet and OUT_DIR/test.parquet; returns their row counts."""
    text = pbebench.TEMPLATES.get(template)
    if text is None:
        text = Path(template).read_text(encoding="utf-8")
    train = instances(preset, seed, train_size, heldout)
    seen = {(tuple(i["inputs"]), tuple(i["outputs"])) for i in train}
    test = [i for i in instances(preset, seed + 1, test_size, heldout)
            if (tuple(i["inputs"]), tuple(i["outputs"])) not in seen]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split, split_instances in (("train", train), ("test", test)):
        if probe:
            rows = [pbebench.verl.probe_row(inst, k, split, probe_budget=probe_budget)
                    for k, inst in enumerate(split_instances)]
        else:
            rows = [pbebench.verl.row(inst, k, split, text, heldout_reward, behaviour_reward)
                    for k, inst in enumerate(split_instances)]
        write_parquet(rows, out / f"{split}.parquet")
        counts[split] = len(rows)
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="lite", help="lite, lite-moreeg, full or full-25-30")
    ap.add_argument("--seed", type=int, default=0, help="the train split's seed (the test split's is seed + 1)")
    ap.add_argument("--train-size", type=int, default=1008)
    ap.add_argument("--test-size", type=int, default=160)
    ap.add_argument("--heldout", type=int, default=None, help="held-out examples per instance (default: the preset's)")
    ap.add_argument("--template", default="default", help="default, authors, or a template file")
    ap.add_argument("--heldout-reward", action="store_true", help="reward on the held-out examples too")
    ap.add_argument("--behaviour-reward", action="store_true",
                    help="reward behaviour (exact agreement with the gold where it changes the input), "
                         "not the fit to the examples; puts the gold cascade in the ground truth")
    ap.add_argument("--probe", action="store_true",
                    help="rows of the probing task for verl's tool agent loop (pbebench.verl.probe_row; "
                         "tools: probe_tools.yaml beside this file)")
    ap.add_argument("--probe-budget", type=int, default=40, help="probe inputs per episode, with --probe")
    ap.add_argument("--out-dir", default="data/pbebench")
    args = ap.parse_args(argv)
    try:
        counts = prepare(args.preset, args.seed, args.train_size, args.test_size, args.heldout,
                         args.template, args.heldout_reward, args.out_dir, args.behaviour_reward,
                         args.probe, args.probe_budget)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {counts['train']} train and {counts['test']} test rows to {args.out_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
