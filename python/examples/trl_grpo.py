"""GRPO training on PBEBench with TRL, rewarded by pbebench.

The dataset rows and the reward function below need only `pbebench`. Training needs TRL and
Hugging Face datasets, which are not dependencies of pbebench:

    pip install ./python trl datasets
    python python/examples/trl_grpo.py --model Qwen/Qwen2.5-0.5B-Instruct --size 1008

TRL calls a reward function as `f(prompts=..., completions=..., **columns)`, where `columns`
holds every other dataset column, one value per completion. The instance's fields travel as
columns, and `pbebench.reward` turns each completion into a float in (-inf, 1]: 1 when its
cascade reproduces every example, 0 for no change or an invalid answer, below 0 when it does
worse than no change (see `help(pbebench.reward)`).

`--reward behaviour` (the default) trains on the behavioural reward instead,
`pbebench.reward(..., kind="behaviour")`: the exact probability that the completion's cascade
gives the gold's output on a random input the gold changes, in [0, 1], so that fitting the
shown examples with a cascade that does something else elsewhere earns less. The gold cascade
then travels as a column (`rows(..., gold=True)`): TRL passes columns to reward functions,
never to the model.
"""

import argparse

import pbebench

# The instance fields `pbebench.reward` reads; they become dataset columns.
INSTANCE_FIELDS = (
    "id",
    "inputs",
    "outputs",
    "max_rules",
    "max_rule_len",
    "alphabet",
    "heldout_inputs",
    "heldout_outputs",
)


def rows(preset="lite", seed=0, size=1008, conversational=True, gold=False):
    """Dataset rows: the prompt (as chat messages, or plain text) and the instance's fields,
    with its gold cascade (the column "cascade") when `gold`, for the behavioural reward.
    Streams: nothing is generated before it is asked for."""
    fields = INSTANCE_FIELDS + (("cascade",) if gold else ())
    for instance in pbebench.generate(preset, seed=seed, size=size):
        text = pbebench.prompt(instance)
        row = {field: instance[field] for field in fields}
        row["prompt"] = [{"role": "user", "content": text}] if conversational else text
        yield row


def instances(columns, fields, reward_function):
    """The instance dicts of a batch, one per completion, from the columns TRL passes. A
    missing column raises ValueError naming it and what to do: TRL passes only the columns
    the dataset has."""
    missing = [field for field in fields if field not in columns]
    if missing:
        fix = (
            "make the rows with rows(..., gold=True), which adds the gold cascade as the "
            "column 'cascade', or train on pbebench_reward, which needs no gold"
            if missing == ["cascade"]
            else f"make the rows with rows(), which writes the columns {', '.join(INSTANCE_FIELDS)}"
        )
        raise ValueError(
            f"{reward_function}: the dataset has no column {', '.join(map(repr, missing))}: {fix}"
        )
    return [dict(zip(fields, values)) for values in zip(*(columns[field] for field in fields))]


def pbebench_reward(prompts, completions, heldout=False, **columns):
    """A TRL reward function: the Edit_Sim reward of each completion against its instance.

    `completions` are strings, or lists of chat messages for conversational datasets (the
    last message's content is read). To also score the held-out examples the model never
    sees, wrap it in a named function (TRL logs rewards under the function's __name__):
    `def heldout_reward(prompts, completions, **c): return pbebench_reward(prompts,
    completions, heldout=True, **c)`.
    """
    batch = instances(columns, INSTANCE_FIELDS, "pbebench_reward")
    return pbebench.reward(batch, completions, heldout=heldout)


def behaviour_reward(prompts, completions, **columns):
    """A TRL reward function: the behavioural reward of each completion against its
    instance's gold cascade, a float in [0, 1]; a completion the exact comparison cannot
    decide within its bounds earns 0.0 (see `help(pbebench.reward)`). Needs the column
    "cascade": rows(..., gold=True)."""
    batch = instances(columns, INSTANCE_FIELDS + ("cascade",), "behaviour_reward")
    return pbebench.reward(batch, completions, kind="behaviour")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="Qwen/Qwen2.5-0.5B-Instruct")
    ap.add_argument("--preset", default="lite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=1008)
    ap.add_argument("--output-dir", default="pbebench-grpo")
    ap.add_argument("--reward", choices=["behaviour", "edit_sim"], default="behaviour")
    args = ap.parse_args()

    from datasets import Dataset  # not a dependency of pbebench
    from trl import GRPOConfig, GRPOTrainer  # not a dependency of pbebench

    train = Dataset.from_generator(
        rows,
        gen_kwargs={"preset": args.preset, "seed": args.seed, "size": args.size, "gold": args.reward == "behaviour"},
    )
    trainer = GRPOTrainer(
        model=args.model,
        reward_funcs=behaviour_reward if args.reward == "behaviour" else pbebench_reward,
        args=GRPOConfig(output_dir=args.output_dir, num_generations=8, max_completion_length=1024),
        train_dataset=train,
    )
    trainer.train()


if __name__ == "__main__":
    main()
