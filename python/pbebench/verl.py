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

With ``extra_info["reward_kind"] == "behaviour"`` (prepare_data.py ``--behaviour-reward``)
the reward is the behavioural one, ``pbebench.reward(..., kind="behaviour")``: the exact
probability that the answer gives the gold's output on a random input the gold changes
(1.0 for an answer that behaves like the gold, 0.0 for the identity; fitting the shown
examples is not enough). It needs the gold cascade, which such rows then carry in
``ground_truth`` (verl gives the ground truth to the reward function, never to the policy).

This module imports nothing beyond pbebench; verl itself is not needed to use or test it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pbebench
from pbebench._arguments import require as _require

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


def ground_truth(instance: dict[str, Any], behaviour: bool = False) -> str:
    """The ``reward_model.ground_truth`` of an instance: the JSON of its examples (held-out
    ones included) and limits, and with ``behaviour`` its gold cascade, which the
    behavioural reward compares the answer with (the ground truth goes to the reward
    function only; the prompt never shows it)."""
    _require("ground_truth", "instance", instance, (Mapping,), "an instance dict")
    _require("ground_truth", "behaviour", behaviour, (bool,), "True or False")
    fields = GROUND_TRUTH_FIELDS + (("cascade",) if behaviour else ())
    return json.dumps({field: instance[field] for field in fields if field in instance})


def row(
    instance: dict[str, Any],
    index: int,
    split: str,
    template: str | None = None,
    heldout_reward: bool = False,
    behaviour_reward: bool = False,
) -> dict[str, Any]:
    """One row of verl's parquet layout for an instance: ``data_source``, ``prompt`` (chat
    messages), ``ability``, ``reward_model`` (``style``, ``ground_truth``) and
    ``extra_info`` (split, index, the instance's id, cascade length and category,
    ``heldout_reward``, and ``reward_kind`` "behaviour" with ``behaviour_reward``)."""
    _require("row", "instance", instance, (Mapping,), "an instance dict")
    _require("row", "index", index, (int,), "an int")
    _require("row", "split", split, (str,), "a str")
    _require("row", "template", template, (str, type(None)), "a str or None")
    _require("row", "heldout_reward", heldout_reward, (bool,), "True or False")
    _require("row", "behaviour_reward", behaviour_reward, (bool,), "True or False")
    extra = {} if not behaviour_reward else {"reward_kind": "behaviour"}
    return {
        "data_source": DATA_SOURCE,
        "prompt": [{"role": "user", "content": pbebench.prompt(instance, template)}],
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": ground_truth(instance, behaviour_reward)},
        "extra_info": {
            "split": split,
            "index": index,
            "id": instance["id"],
            "cascade_len": instance.get("cascade_len", 0),
            "category": instance.get("category") or "",
            "heldout_reward": heldout_reward,
            **extra,
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
        examples; ``reward_kind`` "behaviour" gives the behavioural reward.

    Returns ``pbebench.reward`` of the response against the instance, or with
    ``reward_kind`` "behaviour" ``pbebench.reward(..., kind="behaviour")`` (the sample's
    ``behaviour`` in ``pbebench.score``): an answer the exact comparison cannot decide
    within its bounds (its outputs explode) earns 0.0, as ``pbebench.reward`` counts it;
    ``pbebench.score`` reports it as undecided.
    """
    _require("compute_score", "data_source", data_source, (str,), "a str")
    _require("compute_score", "solution_str", solution_str, (str,), "a str")
    _require("compute_score", "ground_truth", ground_truth, (str, Mapping), "the JSON text of an instance, or its dict")
    _require("compute_score", "extra_info", extra_info, (Mapping, type(None)), "a dict or None")
    if isinstance(ground_truth, str):
        try:
            instance = json.loads(ground_truth)
        except json.JSONDecodeError as e:
            raise ValueError(f"compute_score(): ground_truth is not JSON text: {e}") from None
    else:
        instance = ground_truth
    extra_info = extra_info or {}
    if extra_info.get("reward_kind") == "behaviour":
        return pbebench.reward(instance, [solution_str], kind="behaviour")[0]
    heldout = bool(extra_info.get("heldout_reward", False))
    return pbebench.reward(instance, [solution_str], heldout=heldout)[0]
