"""The examples work without TRL or datasets installed: their rows and reward function are
called here the way `Dataset.from_generator` and TRL's GRPOTrainer call them."""

import importlib.util
import sys
from pathlib import Path

import pytest
from conftest import released

import pbebench
from pbebench import rl

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_examples_import_without_trl_or_datasets():
    before = set(sys.modules)
    load("trl_grpo")
    load("hf_dataset")
    assert not {"trl", "datasets", "torch"} & (set(sys.modules) - before)


def test_grpo_reward_function_as_trl_calls_it():
    grpo = load("trl_grpo")
    rows = list(grpo.rows(size=16, seed=2))
    assert len(rows) == 16 and rows[0]["prompt"][0]["role"] == "user"
    assert "cascade" not in rows[0], "the gold cascade is not a column the policy could see"
    # GRPO samples several completions per prompt; TRL passes every other column by name.
    batch = [row for row in rows[:4] for _ in range(3)]
    gold = {i["id"]: i["cascade"] for i in pbebench.generate("lite", seed=2, size=16)}
    completions = []
    for k, row in enumerate(batch):
        text = released(gold[row["id"]]) if k % 3 == 0 else "no idea"
        completions.append([{"role": "assistant", "content": text}])
    columns = {key: [row[key] for row in batch] for key in batch[0] if key != "prompt"}
    rewards = grpo.pbebench_reward(
        prompts=[row["prompt"] for row in batch],
        completions=completions,
        completion_ids=[[0]] * len(batch),  # TRL passes extra keywords too
        **columns,
    )
    assert rewards == [1.0, 0.0, 0.0] * 4
    assert grpo.pbebench_reward([], [], **{key: [] for key in columns}) == []


def test_dataset_generator_rows_are_instances_with_prompts():
    hf = load("hf_dataset")
    rows = list(hf.instances(size=16, seed=4, heldout=3))
    plain = list(pbebench.generate("lite", seed=4, size=16, heldout=3))
    assert [{k: v for k, v in r.items() if k != "prompt"} for r in rows] == plain
    assert all(r["prompt"] == pbebench.prompt(i) for r, i in zip(rows, plain))
    assert pbebench.reward(rows[0], [released(rows[0]["cascade"])]) == [1.0]


def test_grpo_behaviour_reward_as_trl_calls_it():
    grpo = load("trl_grpo")
    rows = list(grpo.rows(size=16, seed=2, gold=True))
    assert all("cascade" in row for row in rows)
    batch = [row for row in rows[:4] for _ in range(3)]
    completions = []
    for k, row in enumerate(batch):
        text = released(row["cascade"]) if k % 3 == 0 else ("no idea" if k % 3 == 1 else released(row["cascade"][:-1]))
        completions.append([{"role": "assistant", "content": text}])
    columns = {key: [row[key] for row in batch] for key in batch[0] if key != "prompt"}
    rewards = grpo.behaviour_reward(prompts=[row["prompt"] for row in batch], completions=completions, **columns)
    # The same values as score()'s behaviour of each completion.
    expected = [pbebench.score(row, [c])["samples"][0]["behaviour"] for row, c in zip(batch, completions)]
    assert rewards == expected
    assert rewards[0::3] == [1.0] * 4 and rewards[1::3] == [0.0] * 4


def test_grpo_rewards_name_a_missing_column_and_the_fix():
    grpo = load("trl_grpo")
    rows = list(grpo.rows(size=16, seed=2))  # made without gold
    columns = {key: [row[key] for row in rows[:2]] for key in rows[0] if key != "prompt"}
    completions = ["no idea"] * 2
    with pytest.raises(ValueError, match=r"^behaviour_reward: the dataset has no column 'cascade': make the rows with rows\(\.\.\., gold=True\)"):
        grpo.behaviour_reward(prompts=[None] * 2, completions=completions, **columns)
    del columns["alphabet"]
    with pytest.raises(ValueError, match=r"^pbebench_reward: the dataset has no column 'alphabet': make the rows with rows\(\)"):
        grpo.pbebench_reward(prompts=[None] * 2, completions=completions, **columns)


def test_the_probing_grpo_example_gives_rows_probe_env_takes():
    before = set(sys.modules)
    probe = load("trl_probe_grpo")
    assert not {"trl", "datasets", "torch"} & (set(sys.modules) - before)
    rows = list(probe.rows(seed=2, size=3, levels={"cascade_len": 1}))
    assert rows == list(probe.rows(seed=2, size=3, levels={"cascade_len": 1}))
    env = rl.ProbeEnv()
    for row in rows:
        assert row["prompt"] == [{"role": "user", "content": ""}]  # TRL appends reset()'s text
        assert len(row["cascade"]) == 3
        assert env.reset(**row).startswith("Each output string below")
        env.submit([f"replace({a!r}, {b!r})" for a, b in row["cascade"]])
        assert env.get_reward() == 1.0
