"""The probing task in verl, run through verl's own code: the tools load from the shipped
config with verl's loader, every tool call goes through verl's ToolAgentLoop._call_tool (the
dispatch, the JSON parsing of arguments, create/execute/release), and the reward through
the fields verl's reward manager passes to compute_score.

verl needs torch, so this runs where verl is installed (benches/python/train_check.sh makes
such a venv); elsewhere it skips, also in CI (--frameworks does not install torch).
"""

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="verl needs torch (benches/python/train_check.sh installs both)")
pytest.importorskip("verl", reason="verl is not installed (benches/python/train_check.sh installs it)")

from verl.experimental.agent_loop.tool_agent_loop import AgentData, ToolAgentLoop  # noqa: E402
from verl.experimental.agent_loop.tool_parser import FunctionCall  # noqa: E402
from verl.tools.tool_registry import initialize_tools_from_config  # noqa: E402

import pbebench  # noqa: E402
import pbebench.verl  # noqa: E402
from pbebench import rl  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "examples" / "verl" / "probe_tools.yaml"


@pytest.fixture(scope="module")
def tools():
    return initialize_tools_from_config(str(CONFIG))


def loop_of(tools):
    """A ToolAgentLoop with only what _call_tool reads (the rest needs a model server)."""
    loop = ToolAgentLoop.__new__(ToolAgentLoop)
    loop.tools = {tool.name: tool for tool in tools}
    loop.max_tool_response_length = 10_000
    loop.tool_response_truncate_side = "middle"
    return loop


def agent_data(row):
    return AgentData(
        messages=list(row["prompt"]), image_data=None, video_data=None, audio_data=None,
        mm_processor_kwargs=None, metrics={}, request_id="r", tools_kwargs=row["extra_info"]["tools_kwargs"],
    )


def call(loop, data, name, arguments):
    """One tool call as verl makes it; the model's arguments arrive as JSON text."""
    data.assistant_turns += 1
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    response, reward, _ = asyncio.run(loop._call_tool(FunctionCall(name=name, arguments=text), data.tools_kwargs, data))
    assert reward == 0.0
    return response.text


def reward_of(row, data, response=""):
    """compute_score as verl's naive reward manager calls it: the row's extra_info updated
    with the agent loop's extra fields."""
    extra = dict(row["extra_info"])
    extra.update(data.extra_fields.items())
    extra["num_turns"] = data.assistant_turns
    return pbebench.verl.compute_score(
        data_source=row["data_source"], solution_str=response, ground_truth=row["reward_model"]["ground_truth"],
        extra_info=extra, reward_router_address=None,
    )


def rules(cascade):
    return [f"replace({a!r}, {b!r})" for a, b in cascade]


def test_the_tools_load_from_the_config(tools):
    assert [t.name for t in tools] == ["run_hidden", "test_cascade", "submit"]
    schema = tools[0].tool_schema.model_dump(exclude_unset=True, exclude_none=True)
    assert schema["function"]["parameters"]["required"] == ["inputs"]


def test_an_episode_through_verl_matches_probe_env(tools):
    loop = loop_of(tools)
    for k, inst in enumerate(pbebench.generate("lite", seed=5, size=16, heldout=2)):
        row = pbebench.verl.probe_row(inst, k, "train", probe_budget=6)
        env = rl.ProbeEnv(probe_budget=6)
        assert env.reset(**inst) == row["prompt"][0]["content"]
        data = agent_data(row)
        script = [
            ("run_hidden", {"inputs": ["ab", "ZZ"]}, env.run_hidden),
            ("run_hidden", {"inputs": ["ab", inst["heldout_inputs"][0]]}, env.run_hidden),
            ("run_hidden", {"inputs": 7}, env.run_hidden),
            ("test_cascade", {"cascade": rules(inst["cascade"][1:])}, env.test_cascade),
            ("test_cascade", {"cascade": "garbage("}, env.test_cascade),
            ("submit", {"cascade": rules(inst["cascade"][:-1])}, env.submit),
            ("submit", {"cascade": rules(inst["cascade"])}, env.submit),  # ignored: the episode has ended
        ]
        for name, arguments, same in script:
            assert call(loop, data, name, arguments) == same(next(iter(arguments.values())))
        got = reward_of(row, data)
        assert got["score"] == env.get_reward()
        assert got["behaviour"] == env.last_grade["behaviour"] and got["pass"] == float(env.last_grade["pass"])
        assert (got["probes_used"], got["tests"], got["submitted"]) == (2.0, 1.0, 1.0)
        assert set(got) == {"score", "pass", "recovered", "behaviour", "undecided", "probes_used", "tests", "submitted"}


def test_unreadable_calls_reach_the_model_as_text(tools):
    loop = loop_of(tools)
    inst = next(pbebench.generate("lite", seed=5, size=16))
    row = pbebench.verl.probe_row(inst, 0, "train")
    data = agent_data(row)
    assert call(loop, data, "run_hidden", "{not json").startswith("Invalid JSON in arguments for 'run_hidden'")
    assert call(loop, data, "run_hidden", {}) == '{"error":"run_hidden\'s inputs must be a list of strings"}'
    assert "nothing was done" in call(loop, data, "submit", {"cascade": [["a", 1]]})
    # No tool state of worth, no answer: the identity's grade, 0.0; a code block counts.
    assert reward_of(row, data)["score"] == 0.0
    answer = pbebench.render_answer(inst["cascade"])
    assert reward_of(row, data, answer)["score"] == 1.0
    # A row without the instance: verl's message names tools_kwargs, the trainer goes on.
    bare = agent_data(row)
    bare.tools_kwargs = {}
    assert "tools_kwargs gives no ground_truth" in call(loop, bare, "run_hidden", {"inputs": ["a"]})

