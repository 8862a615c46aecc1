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

``compute_score`` returns a dict of floats: ``score`` (the reward) and the parts verl logs
beside it (``pass``, ``edit_sim``; ``recovered``, ``behaviour`` and ``undecided`` for rows
with the gold). ``compute_score_batch`` is the batched form (verl's batch reward manager).

The probing task: ``probe_row`` writes rows for verl's tool agent loop, whose tools are in
``pbebench.verl_tools`` (which needs verl); ``compute_score`` grades the episode they played
from the state they leave in verl's ``extra_fields`` (``reward_kind`` "probe").

This module imports nothing beyond pbebench; verl itself is not needed to use or test it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pbebench
from pbebench import _episode
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


def _number(value: Any) -> float:
    """A grade's part as verl logs it: a float (booleans 1.0 / 0.0)."""
    return float(bool(value)) if isinstance(value, bool) else float(value)


def _instance(func: str, ground_truth: str | Mapping) -> dict[str, Any]:
    if isinstance(ground_truth, str):
        try:
            instance = json.loads(ground_truth)
        except json.JSONDecodeError as e:
            raise ValueError(f"{func}(): ground_truth is not JSON text: {e}") from None
        if not isinstance(instance, dict):
            raise ValueError(f"{func}(): ground_truth is the JSON of a {type(instance).__name__}, not of an instance")
        return instance
    return dict(ground_truth)


def _single_turn(solution_str: str, instance: dict[str, Any], extra_info: Mapping) -> dict[str, float]:
    """The reward of a response and its parts: ``score`` (the reward), ``pass`` and
    ``edit_sim``, and, with a gold cascade, ``recovered``, ``behaviour`` and ``undecided``
    (1.0 when the exact comparison could not decide; behaviour then counts 0.0, as the
    reward counts it)."""
    if extra_info.get("reward_kind") == "behaviour":
        score = pbebench.reward(instance, [solution_str], kind="behaviour")[0]
    else:
        heldout = bool(extra_info.get("heldout_reward", False))
        score = pbebench.reward(instance, [solution_str], heldout=heldout)[0]
    sample = pbebench.score(instance, [solution_str])["samples"][0]
    parts = {"score": score, "pass": _number(sample["pass"]), "edit_sim": _number(sample["edit_sim"])}
    if instance.get("cascade") is not None:
        parts["recovered"] = _number(sample["recovered"] or False)
        parts["behaviour"] = _number(sample["behaviour"] or 0.0)
        parts["undecided"] = _number(sample["behaviour"] is None)
    return parts


def _probe(solution_str: str, instance: dict[str, Any], extra_info: Mapping) -> dict[str, float]:
    """The grade of a probing episode (``probe_row``): the episode the tools played, rebuilt
    from the state they left in ``extra_info[PROBE_STATE]`` (none when the model called no
    tool), graded as ``pbebench eval --interactive`` grades it (``Episode.record``: the
    submitted cascade, else the last tested, else the last ```python block of the
    response)."""
    if instance.get("cascade") is None:
        raise ValueError(
            "compute_score(): a probing row's ground_truth has no gold 'cascade': write the rows "
            "with pbebench.verl.probe_row, which puts it there"
        )
    settings = {name: extra_info.get(name, default) for name, default in _PROBE_DEFAULTS.items()}
    state = extra_info.get(PROBE_STATE)
    if state is None:
        episode = _episode.Episode(instance, **settings)
    else:
        episode = _episode.Episode.restore(instance, settings["probe_budget"], settings["max_turns"],
                                           settings["max_probe_len"], state)
    if episode.final()[0] is None:
        episode.note_text(solution_str)
    return _grade_parts(episode.record())


def _grade_parts(record: dict[str, Any]) -> dict[str, float]:
    """An ended episode's record (``Episode.record``) as verl's reward dict: ``score``, the
    behavioural reward (0.0 when the comparison cannot decide, as ``ProbeEnv.get_reward``),
    and ``pass``, ``recovered``, ``behaviour``, ``undecided``, ``probes_used``, ``tests`` and
    ``submitted``, all floats, the same keys for every episode (verl collects them per key)."""
    behaviour = record["behaviour"]
    return {
        "score": _number(behaviour or 0.0),
        "pass": _number(record["pass"]),
        "recovered": _number(record["recovered"] or False),
        "behaviour": _number(behaviour or 0.0),
        "undecided": _number(behaviour is None),
        "probes_used": _number(record["probes_used"]),
        "tests": _number(record["tests"]),
        "submitted": _number(record["final_source"] == "submitted"),
    }


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str | dict[str, Any],
    extra_info: dict[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """verl's custom reward function: the reward of one response, with its parts.

    data_source: the row's data_source (any; the function serves pbebench rows only).
    solution_str: the decoded response.
    ground_truth: the row's reward_model.ground_truth (the JSON of ``ground_truth``, or
        that dict).
    extra_info: the row's extra_info, to which verl adds the agent loop's fields;
        ``heldout_reward`` true also scores the held-out examples; ``reward_kind``
        "behaviour" gives the behavioural reward; ``reward_kind`` "probe" (``probe_row``)
        grades the probing episode that the tools of ``pbebench.verl_tools`` played.
    kwargs: what else verl passes (``reward_router_address``, ``reward_model_tokenizer``,
        a reward manager's ``reward_kwargs``); ignored.

    Returns a dict of floats whose ``score`` is the reward: ``pbebench.reward`` of the
    response against the instance, or with ``reward_kind`` "behaviour" ``pbebench.reward(...,
    kind="behaviour")`` (an answer the exact comparison cannot decide within its bounds earns
    0.0, as ``pbebench.reward`` counts it). The other keys reach verl's logs: ``pass`` and
    ``edit_sim``, and for rows with the gold cascade ``recovered``, ``behaviour`` and
    ``undecided``; for probing rows ``probes_used``, ``tests`` and ``submitted`` too. Rows of one kind give the
    same keys. Never None.
    """
    _require("compute_score", "data_source", data_source, (str,), "a str")
    _require("compute_score", "solution_str", solution_str, (str,), "a str")
    _require("compute_score", "ground_truth", ground_truth, (str, Mapping), "the JSON text of an instance, or its dict")
    _require("compute_score", "extra_info", extra_info, (Mapping, type(None)), "a dict or None")
    instance = _instance("compute_score", ground_truth)
    extra_info = extra_info or {}
    if extra_info.get("reward_kind") == "probe":
        return _probe(solution_str, instance, extra_info)
    return _single_turn(solution_str, instance, extra_info)


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str | dict[str, Any]],
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    **kwargs: Any,
) -> list[dict[str, float]]:
    """verl's batched reward function (``reward_model.reward_manager=batch``): one
    :func:`compute_score` dict per response. The four sequences must have one item per
    response (ValueError naming the one that does not); ``extra_infos`` may be None."""
    columns = {"data_sources": data_sources, "solution_strs": solution_strs, "ground_truths": ground_truths}
    if extra_infos is not None:
        columns["extra_infos"] = extra_infos
    for name, column in columns.items():
        # verl passes numpy arrays of objects: any sized iterable but a str or a dict.
        if isinstance(column, (str, bytes, Mapping)) or not hasattr(column, "__len__") or not hasattr(column, "__iter__"):
            raise TypeError(
                f"compute_score_batch(): {name} must be a list (one item per response), not {type(column).__name__}"
            )
    n = len(solution_strs)
    extra_infos = [None] * n if extra_infos is None else extra_infos
    for name, column in (("data_sources", data_sources), ("ground_truths", ground_truths), ("extra_infos", extra_infos)):
        if len(column) != n:
            raise ValueError(
                f"compute_score_batch(): {name} has {len(column)} items but solution_strs has {n}: "
                "pass one of each per response"
            )
    for k, extra in enumerate(extra_infos):
        _require("compute_score_batch", f"extra_infos[{k}]", extra, (Mapping, type(None)), "a dict or None")
    return [
        compute_score(source, solution, truth, extra)
        for source, solution, truth, extra in zip(data_sources, solution_strs, ground_truths, extra_infos)
    ]


PROBE_STATE = "pbebench_probe"
"""Where the tools of ``pbebench.verl_tools`` keep an episode's state: a key of verl's
per-trajectory ``extra_fields``, which verl's reward managers merge into the ``extra_info``
they pass to :func:`compute_score`."""

PROBE_TOOLS = (_episode.RUN_HIDDEN, _episode.TEST_CASCADE, _episode.SUBMIT)
"""The tools of the probing task, by name."""

_PROBE_DEFAULTS = {
    "probe_budget": _episode.PROBE_BUDGET,
    "max_turns": _episode.MAX_TURNS,
    "max_probe_len": _episode.MAX_PROBE_LEN,
}


def probe_row(
    instance: dict[str, Any],
    index: int,
    split: str,
    probe_budget: int = _episode.PROBE_BUDGET,
    max_turns: int = _episode.MAX_TURNS,
    max_probe_len: int = _episode.MAX_PROBE_LEN,
) -> dict[str, Any]:
    """One row of the probing task for verl's tool agent loop: ``prompt``, the first message
    of ``pbebench eval --interactive``; ``agent_name`` "tool_agent"; ``reward_model`` with the
    instance and its gold cascade as ground truth (for the reward function and the tools,
    never the prompt); ``extra_info`` with ``reward_kind`` "probe", the episode's settings and
    ``tools_kwargs``, which hand every tool the instance when verl creates it. The tools are
    those of ``pbebench.verl_tools`` (``examples/verl/probe_tools.yaml``)."""
    _require("probe_row", "instance", instance, (Mapping,), "an instance dict")
    _require("probe_row", "index", index, (int,), "an int")
    _require("probe_row", "split", split, (str,), "a str")
    if instance.get("cascade") is None:
        raise ValueError(
            "probe_row(): the instance has no gold 'cascade': the probing task runs the hidden "
            "cascade, so only generated instances (or rows that keep the 'cascade') can be probed"
        )
    settings = {"probe_budget": probe_budget, "max_turns": max_turns, "max_probe_len": max_probe_len}
    for name, value in settings.items():
        _require("probe_row", name, value, (int,), "an int")
    truth = ground_truth(instance, behaviour=True)
    prompt = _episode.Episode(instance, probe_budget, max_turns, max_probe_len).prompt()
    create = {"ground_truth": truth, **settings}
    return {
        "data_source": DATA_SOURCE,
        "agent_name": "tool_agent",
        "prompt": [{"role": "user", "content": prompt}],
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": truth},
        "extra_info": {
            "split": split,
            "index": index,
            "id": instance["id"],
            "cascade_len": instance.get("cascade_len", 0),
            "category": instance.get("category") or "",
            "reward_kind": "probe",
            **settings,
            "tools_kwargs": {tool: {"create_kwargs": create} for tool in PROBE_TOOLS},
        },
    }
