"""The probing task's tools for verl's tool agent loop (``verl.tools.base_tool.BaseTool``).

Three tools, ``run_hidden``, ``test_cascade`` and ``submit``, answer as ``pbebench eval
--interactive`` answers (the shared episode, ``pbebench._episode``, over the core's sealed
oracle; the same text as ``pbebench.rl.ProbeEnv``). Declare them in verl's tool config
(``examples/verl/probe_tools.yaml``), write the rows with ``pbebench.verl.probe_row``, and
reward with ``pbebench.verl.compute_score``:

    actor_rollout_ref.rollout.multi_turn.enable=True
    actor_rollout_ref.rollout.multi_turn.tool_config_path=python/examples/verl/probe_tools.yaml
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=30    # the rows' max_turns
    custom_reward_function.path=$(python -c 'import pbebench.verl as v; print(v.__file__)')

verl calls ``create``, ``execute`` and ``release`` once per tool call, and hands
``execute`` the trajectory's ``agent_data``: the episode of a trajectory is kept per
``agent_data`` (weakly: it goes when verl drops the trajectory), built on its first tool
call from the ``create_kwargs`` of the row's ``tools_kwargs``. After every call the tools
write the episode's state (plain data: the actions and the answers, no oracle) to
``agent_data.extra_fields[pbebench.verl.PROBE_STATE]``; verl passes those fields to the
reward function, which rebuilds the episode and grades it through the one grading path.
Called without ``agent_data`` (verl's older rollouts, which create a tool once per
trajectory), the episode is kept per instance id until ``release``.

A call with arguments of the wrong type gets the binary's error text, never an exception;
a row without the instance raises ValueError naming ``tools_kwargs`` (verl shows the model
its text and logs it).

Needs verl (and so torch); pbebench itself does not.
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from pbebench import _episode
from pbebench.verl import PROBE_STATE

__all__ = ["ProbeTool", "RunHidden", "Submit", "TestCascade"]

# The episode of each trajectory: per agent_data (weakly), or per instance id without it.
_BY_TRAJECTORY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BY_ID: dict[str, _episode.Episode] = {}


def _schema(name: str, description: str, argument: str, items_doc: str) -> OpenAIFunctionToolSchema:
    return OpenAIFunctionToolSchema.model_validate(
        {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": {argument: {"type": "array", "items": {"type": "string"}, "description": items_doc}},
                    "required": [argument],
                },
            },
        }
    )


class ProbeTool(BaseTool):
    """One tool of the probing task; the subclasses name the action."""

    action = ""
    argument = ""
    description = ""
    argument_doc = ""

    def __init__(self, config: dict | None = None, tool_schema: OpenAIFunctionToolSchema | None = None):
        self._pending: dict[str, dict[str, Any]] = {}
        super().__init__(config or {}, tool_schema)

    def get_openai_tool_schema(self) -> OpenAIFunctionToolSchema:
        return _schema(self.action, self.description, self.argument, self.argument_doc)

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
        """Keeps the row's ``create_kwargs`` (verl's agent loop passes them as
        ``create_kwargs=``, its older rollouts as keyword arguments) for the first call."""
        instance_id, response = await super().create(instance_id)
        self._pending[instance_id] = kwargs.get("create_kwargs", kwargs)
        return instance_id, response

    def _episode(self, instance_id: str, agent_data: Any) -> _episode.Episode:
        store, key = (_BY_ID, instance_id) if agent_data is None else (_BY_TRAJECTORY, agent_data)
        episode = store.get(key)
        if episode is None:
            episode = _new_episode(self._pending.get(instance_id) or {})
            store[key] = episode
        return episode

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any) -> tuple[ToolResponse, float, dict]:
        """Runs the action on the trajectory's episode; the result is the binary's text."""
        agent_data = kwargs.get("agent_data")
        episode = self._episode(instance_id, agent_data)
        if agent_data is not None:
            # The replies so far: the turn limit is verl's (max_assistant_turns).
            episode.turns = agent_data.assistant_turns
        argument = parameters.get(self.argument) if isinstance(parameters, dict) else None
        act = {_episode.RUN_HIDDEN: episode.probe, _episode.TEST_CASCADE: episode.test, _episode.SUBMIT: episode.submit}
        result = act[self.action](argument)
        if agent_data is not None:
            agent_data.extra_fields[PROBE_STATE] = episode.state()
        return ToolResponse(text=_episode.tool_text(result)), 0.0, {}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """The behavioural grade of the episode's final cascade (0.0 when undecided)."""
        episode = _BY_ID.get(instance_id)
        if episode is None:
            return 0.0
        return float(episode.record()["behaviour"] or 0.0)

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        self._pending.pop(instance_id, None)
        _BY_ID.pop(instance_id, None)


def _new_episode(create_kwargs: dict[str, Any]) -> _episode.Episode:
    truth = create_kwargs.get("ground_truth")
    if truth is None:
        raise ValueError(
            "pbebench.verl_tools: the row's extra_info.tools_kwargs gives no ground_truth in "
            "create_kwargs: write the rows with pbebench.verl.probe_row"
        )
    instance = json.loads(truth) if isinstance(truth, str) else dict(truth)
    if instance.get("cascade") is None:
        raise ValueError(
            "pbebench.verl_tools: the ground_truth in tools_kwargs has no gold 'cascade': write "
            "the rows with pbebench.verl.probe_row"
        )
    return _episode.Episode(
        instance,
        int(create_kwargs.get("probe_budget", _episode.PROBE_BUDGET)),
        int(create_kwargs.get("max_turns", _episode.MAX_TURNS)),
        int(create_kwargs.get("max_probe_len", _episode.MAX_PROBE_LEN)),
    )


class RunHidden(ProbeTool):
    action, argument = _episode.RUN_HIDDEN, "inputs"
    description, argument_doc = _episode.RUN_HIDDEN_DOC, _episode.INPUTS_ARG


class TestCascade(ProbeTool):
    __test__ = False  # not a pytest class
    action, argument = _episode.TEST_CASCADE, "cascade"
    description, argument_doc = _episode.TEST_CASCADE_DOC, _episode.CASCADE_ARG


class Submit(ProbeTool):
    action, argument = _episode.SUBMIT, "cascade"
    description, argument_doc = _episode.SUBMIT_DOC, _episode.CASCADE_ARG
