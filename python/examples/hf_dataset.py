"""A Hugging Face `datasets.Dataset` of PBEBench instances, built with `Dataset.from_generator`.

`datasets` is not a dependency of pbebench: `pip install datasets` to run this.

    python python/examples/hf_dataset.py --preset lite --seed 0 --size 1008 --out pbebench-lite

Each row is an instance exactly as `pbebench generate` writes it (the gold `cascade`,
`category`, held-out examples…) plus its `prompt`. Generation streams, so `from_generator`
writes rows to disk as they come and memory does not grow with the size.
"""

import argparse

import pbebench


def instances(preset="lite", seed=0, size=1008, heldout=20):
    """Rows for `Dataset.from_generator`: each instance with its prompt."""
    for instance in pbebench.generate(preset, seed=seed, size=size, heldout=heldout):
        yield dict(instance, prompt=pbebench.prompt(instance))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="lite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=1008)
    ap.add_argument("--heldout", type=int, default=20)
    ap.add_argument("--out", help="save_to_disk here (default: only print a summary)")
    args = ap.parse_args()

    from datasets import Dataset  # not a dependency of pbebench

    ds = Dataset.from_generator(
        instances,
        gen_kwargs={"preset": args.preset, "seed": args.seed, "size": args.size, "heldout": args.heldout},
    )
    print(ds)
    print(ds[0]["prompt"])
    # A row is an instance again: score or reward straight from the dataset.
    print("reward of the gold cascade:", pbebench.reward(ds[0], [f"```python\n{ds[0]['cascade']}\n```"]))
    if args.out:
        ds.save_to_disk(args.out)


if __name__ == "__main__":
    main()
