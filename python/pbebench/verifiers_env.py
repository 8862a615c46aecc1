"""pbebench as a ``verifiers`` environment (Prime Intellect's library; tested with 0.3.1,
whose classic API ``import verifiers as vf`` this follows).

    from pbebench.verifiers_env import load_environment
    env = load_environment(task="synthesis", preset="lite", size=64, seed=0)
    env = load_environment(task="probe", preset="lite", size=64, probe_budget=20)
    results = env.evaluate_sync(client, model, num_examples=8)

* ``task="synthesis"``: a ``vf.SingleTurnEnv`` whose rows are the instances' prompts
  (``pbebench.prompt``); the rubric's reward is the behavioural reward
  (``pbebench.reward(kind="behaviour")``: the exact probability that the answer's cascade
  gives the gold's output on a random input the gold changes), with ``pass`` and
  ``edit_sim`` as metrics (weight 0).
* ``task="probe"``: a ``vf.StatefulToolEnv`` running the probing task of ``pbebench eval
  --interactive``: the tools ``run_hidden``, ``test_cascade`` and ``submit`` are those of
  the shared episode (``pbebench._episode``) that ``pbebench.rl.ProbeEnv`` and inspect_ai's
  interactive mode use, with the same budget, limits, refusals and JSON text; the episode
  ends on submit, on a reply without a tool call, at ``max_turns`` replies, or when a probe
  asks past the budget. The reward is the behavioural grade of the submitted, else the last
  tested, else the last ```python block's cascade (``Oracle.grade``), with ``pass``,
  ``recovered`` and ``probes_used`` as metrics.

The gold cascade rides in each row's ``info`` (which the model never sees) for the reward;
in the probing task it is sealed in the episode's ``pbebench.Oracle``. Instances come from
``pbebench.generate(preset, seed=seed, size=size)``, or ``pbebench.rl.Curriculum(seed)`` at
``level`` when a level is given: the same instances as those adapters give for the same
seed and level.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import verifiers as vf
    from datasets import Dataset
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "pbebench.verifiers_env needs verifiers: pip install 'pbebench[verifiers]' "
        "(or pip install 'verifiers>=0.3.1,<0.4')"
    ) from error

import pbebench as _pbebench
from pbebench import _episode
from pbebench._arguments import require as _require

TASKS = ("synthesis", "probe")

_EPISODE = "pbebench_episode"


def _text(completion: Any) -> str:
    """The text of a completion: a string, or the last assistant message's content."""
    if isinstance(completion, str):
        return completion
    for message in reversed(list(completion or [])):
        role = message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
        if role == "assistant":
            content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
            return content if isinstance(content, str) else ""
    return ""


def _instances(
    preset: str, size: int, seed: int, level: int | None, heldout: int | None
) -> list[dict[str, Any]]:
    if level is None:
        overrides = {} if heldout is None else {"heldout": heldout}
        return list(_pbebench.generate(preset, seed=seed, size=size, **overrides))
    if heldout is not None:
        raise ValueError("load_environment(): heldout applies to a preset, not to a curriculum level")
    from pbebench.rl import Curriculum

    curriculum = Curriculum(seed=seed)
    curriculum.set_level(level)
    return [curriculum.instance(k) for k in range(size)]


def _instance(info: Any) -> dict[str, Any]:
    return json.loads(info) if isinstance(info, str) else info["instance"] if "instance" in info else info


# --- the single-turn synthesis task -------------------------------------------------------


def behaviour_reward(completion: Any, info: Any, **_: Any) -> float:
    """The behavioural reward of the answer (``pbebench.reward(kind="behaviour")``); 0.0
    for an invalid or undecided answer, never None."""
    return _pbebench.reward(_instance(info), [_text(completion)], kind="behaviour")[0]


def pass_metric(completion: Any, info: Any, **_: Any) -> float:
    """1.0 when the answer reproduces every visible example (``pbebench.score``'s pass)."""
    return float(_pbebench.score(_instance(info), [_text(completion)])["pass"])


def edit_sim_metric(completion: Any, info: Any, **_: Any) -> float:
    """The answer's Edit_Sim (``pbebench.reward``'s default kind)."""
    return _pbebench.reward(_instance(info), [_text(completion)])[0]


# --- the probing task ---------------------------------------------------------------------


def run_hidden(inputs: list[str], episode: Any) -> str:
    return _episode.tool_text(episode.probe(inputs))


def test_cascade(cascade: list[str], episode: Any) -> str:
    return _episode.tool_text(episode.test(cascade))


def submit(cascade: list[str], episode: Any) -> str:
    return _episode.tool_text(episode.submit(cascade))


# The tools' descriptions are the episode's, as every adapter states them.
for _tool, _doc, _arg, _arg_doc in (
    (run_hidden, _episode.RUN_HIDDEN_DOC, "inputs", _episode.INPUTS_ARG),
    (test_cascade, _episode.TEST_CASCADE_DOC, "cascade", _episode.CASCADE_ARG),
    (submit, _episode.SUBMIT_DOC, "cascade", _episode.CASCADE_ARG),
):
    _tool.__doc__ = f"{_doc}\n\nArgs:\n    {_arg}: {_arg_doc}\n"


class ProbeToolEnv(vf.StatefulToolEnv):
    """The probing task: one ``pbebench._episode.Episode`` per rollout, in the state."""

    def __init__(self, probe_budget: int, max_turns: int, max_probe_len: int, **kwargs: Any):
        # One reply more than the episode's limit: the episode ends itself at its limit after
        # the last reply's tool calls ran, as `pbebench eval --interactive` runs them.
        super().__init__(tools=[], max_turns=max_turns + 1, **kwargs)
        self.settings = (probe_budget, max_turns, max_probe_len)
        for tool in (run_hidden, test_cascade, submit):
            self.add_tool(tool, args_to_skip=["episode"])

    async def setup_state(self, state: Any) -> Any:
        state[_EPISODE] = _episode.Episode(_instance(state["info"]), *self.settings)
        return await super().setup_state(state)

    def update_tool_args(self, tool_name: str, tool_args: dict, messages: Any, state: Any, **kwargs: Any) -> dict:
        return dict(tool_args, episode=state[_EPISODE])

    async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
        episode = state[_EPISODE]
        replies = await super().env_response(messages, state, **kwargs)
        episode.note_text(_text(messages))
        episode.close_turn(True)
        if episode.ended:
            state["final_env_response"] = replies
        return replies

    @vf.stop(priority=50)
    async def episode_ended(self, state: Any) -> bool:
        """The episode ended (submit, budget, turns), or the model replied without a tool
        call: its text is then the answer (its last ```python block)."""
        episode = state.get(_EPISODE)
        if episode is None:
            return False
        if episode.ended is None and state["trajectory"]:
            last = state["trajectory"][-1]["completion"][-1]
            if getattr(last, "role", None) == "assistant" and not getattr(last, "tool_calls", None):
                episode.note_text(_text([last]))
                episode.close_turn(False)
        return episode.ended is not None


def _grade(state: Any) -> dict[str, Any]:
    episode = state[_EPISODE]
    if "pbebench_grade" not in state:
        cascade, source = episode.final()
        grade = episode.oracle.grade(cascade or [])
        state["pbebench_grade"] = dict(
            grade, probes_used=episode.oracle.probes_used, final_source=source, end_reason=episode.ended
        )
    return state["pbebench_grade"]


def probe_reward(state: Any, **_: Any) -> float:
    """The behavioural grade of the episode's final cascade (0.0 when undecided)."""
    behaviour = _grade(state)["behaviour"]
    return float(behaviour) if behaviour is not None else 0.0


def probe_pass(state: Any, **_: Any) -> float:
    """1.0 when the final cascade reproduces every visible example."""
    return float(bool(_grade(state)["pass"]))


def probe_recovered(state: Any, **_: Any) -> float:
    """1.0 when the final cascade is equivalent to the gold over the input space."""
    return float(bool(_grade(state)["recovered"]))


def probes_used(state: Any, **_: Any) -> float:
    """Probe inputs spent."""
    return float(_grade(state)["probes_used"])


# --- the entry point ----------------------------------------------------------------------


def load_environment(
    task: str = "synthesis",
    preset: str = "lite",
    size: int = 64,
    seed: int = 0,
    level: int | None = None,
    heldout: int | None = None,
    probe_budget: int = _episode.PROBE_BUDGET,
    max_turns: int = _episode.MAX_TURNS,
    max_probe_len: int = _episode.MAX_PROBE_LEN,
    **kwargs: Any,
) -> vf.Environment:
    """A verifiers environment over pbebench instances.

    task: "synthesis" (single turn, behavioural reward) or "probe" (tools, the probing task).
    preset, size, seed, heldout: the instances (``pbebench.generate``; heldout: held-out
        examples per instance, default the preset's).
    level: a ``pbebench.rl.Curriculum`` level (all attributes) instead of the preset; from
        level 1 the instances are vetted, which costs seconds an instance at the long
        cascade lengths of levels 4 and 5 (docs/reward-design.md).
    probe_budget, max_turns, max_probe_len: the probing task's limits (``pbebench eval
        --interactive``'s defaults).
    kwargs: passed to the environment (``system_prompt``, ...).
    """
    _require("load_environment", "task", task, (str,), "'synthesis' or 'probe'")
    for name, value in (("size", size), ("seed", seed), ("probe_budget", probe_budget),
                        ("max_turns", max_turns), ("max_probe_len", max_probe_len)):
        _require("load_environment", name, value, (int,), "an int")
    _require("load_environment", "level", level, (int, type(None)), "an int or None")
    _require("load_environment", "heldout", heldout, (int, type(None)), "an int or None")
    if task not in TASKS:
        raise ValueError(f"load_environment(): task: {task!r} is not a task; use 'synthesis' or 'probe'")
    if size < 1:
        raise ValueError(f"load_environment(): size must be at least 1, got {size}")
    instances = _instances(preset, size, seed, level, heldout)
    if task == "synthesis":
        rows = [{"question": _pbebench.prompt(i), "answer": "", "info": json.dumps(i)} for i in instances]
        rubric = vf.Rubric(funcs=[behaviour_reward, pass_metric, edit_sim_metric], weights=[1.0, 0.0, 0.0])
        return vf.SingleTurnEnv(dataset=Dataset.from_list(rows), rubric=rubric, **kwargs)
    if probe_budget < 0 or max_turns < 1 or max_probe_len < 1:
        raise ValueError("load_environment(): probe_budget must be ≥ 0, max_turns and max_probe_len ≥ 1")
    rows = [
        {
            "question": _episode.Episode(i, probe_budget, max_turns, max_probe_len).prompt(),
            "answer": "",
            "info": json.dumps(i),
        }
        for i in instances
    ]
    rubric = vf.Rubric(
        funcs=[probe_reward, probe_pass, probe_recovered, probes_used], weights=[1.0, 0.0, 0.0, 0.0]
    )
    return ProbeToolEnv(
        probe_budget, max_turns, max_probe_len, dataset=Dataset.from_list(rows), rubric=rubric, **kwargs
    )
