"""PBEBench rewards for verl (https://github.com/volcengine/verl).

verl calls a custom reward function as ``compute_score(data_source, solution_str,
ground_truth, extra_info)`` for each response; point its config at this file:

    custom_reward_function.path=$(python -c 'import pbebench.verl as v; print(v.__file__)')
    custom_reward_function.name=compute_score

(``reward.custom_reward_function.*`` in newer verl versions). The rows come from
``examples/verl/prepare_data.py``, which writes verl's parquet layout with ``row``: the
prompt as chat messages, and as ``reward_model.ground_truth`` the JSON of the instance's
examples and limits (``ground_truth``), never its gold cascade.

The reward is ``pbebench.reward``'s: the character Edit_Sim of the cascade in the
response's last fenced code block, under the instance's limits; 1.0 when every example is
reproduced, 0.0 for no change or an invalid answer, below 0 when the answer moves the
outputs further away (see ``help(pbebench.reward)``). Only the visible examples count,
unless the row's ``extra_info["heldout_reward"]`` is true (prepare_data.py
``--heldout-reward``), which scores the held-out examples too.

This module imports nothing beyond pbebench; verl itself is not needed to use or test it.
"""

from __future__ import annotations

import json
from typing import Any

import pbebench

DATA_SOURCE = "pbebench"
"""The ``data_source`` of the rows prepare_data.py writes."""

ABILITY = "pbe"
"""The ``ability`` of the rows (verl's task category)."""

GROUND_TRUTH_FIELDS = (
    "id",
    "inputs",
    "outputs",
    "max_rules",
    "max_rule_len",
    "alphabet",
    "heldout_inputs",
    "heldout_outputs",
)
"""What ``reward_model.ground_truth`` holds of an instance: what the reward reads."""


def ground_truth(instance: dict[str, Any]) -> str:
    """The ``reward_model.ground_truth`` of an instance: the JSON of its examples (held-out
    ones included) and limits. The gold cascade stays out, so nothing in a row tells the
    policy the answer."""
    return json.dumps({field: instance[field] for field in GROUND_TRUTH_FIELDS if field in instance})


def row(
    instance: dict[str, Any],
    index: int,
    split: str,
    template: str | None = None,
    heldout_reward: bool = False,
) -> dict[str, Any]:
    """One row of verl's parquet layout for an instance: ``data_source``, ``prompt`` (chat
    messages), ``ability``, ``reward_model`` (``style``, ``ground_truth``) and
    ``extra_info`` (split, index, the instance's id, cascade length and category, and
    ``heldout_reward``)."""
    return {
        "data_source": DATA_SOURCE,
        "prompt": [{"role": "user", "content": pbebench.prompt(instance, template)}],
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": ground_truth(instance)},
        "extra_info": {
            "split": split,
            "index": index,
            "id": instance["id"],
            "cascade_len": instance.get("cascade_len", 0),
            "category": instance.get("category") or "",
            "heldout_reward": heldout_reward,
        },
    }


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str | dict[str, Any],
    extra_info: dict[str, Any] | None = None,
) -> float:
    """verl's custom reward function: the reward of one response.

    data_source: the row's data_source (any; the function serves pbebench rows only).
    solution_str: the decoded response.
    ground_truth: the row's reward_model.ground_truth (the JSON of ``ground_truth``, or
        that dict).
    extra_info: the row's extra_info; ``heldout_reward`` true also scores the held-out
        examples.

    Returns ``pbebench.reward`` of the response against the instance.

    SEAM (``pbebench::equiv``): the behavioural reward (agreement with the gold cascade
    over the instance's input space, SPEC §5 "Behaviour") is not in the core yet. When it
    lands, this is the one place that changes: a ``behaviour`` option here and in
    prepare_data.py, and the gold cascade in the ground truth, which it needs.
    """
    instance = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
    heldout = bool((extra_info or {}).get("heldout_reward", False))
    return pbebench.reward(instance, [solution_str], heldout=heldout)[0]
