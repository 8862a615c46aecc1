"""One scripted probing episode through every adapter of the task: pbebench.rl.ProbeEnv
(TRL), the interactive inspect_ai task (played by inspect's own agent and mockllm) and the
verl tools (through verl's own ToolAgentLoop._call_tool, and compute_score as verl's reward
manager calls it). The tool texts, the grade and the reward must be the same everywhere:
the adapters share one episode, so the rules and the reward cannot drift apart.

ProbeEnv runs everywhere; inspect_ai is required in CI (--frameworks); verl needs torch and
runs where benches/python/train_check.sh installed it.
"""

import asyncio
import json

import pytest
from conftest import framework

import pbebench
from pbebench import rl

SEED, SIZE, HELDOUT = 3, 16, 2


@pytest.fixture(scope="module")
def lite():
    return list(pbebench.generate("lite", seed=SEED, size=SIZE, heldout=HELDOUT))


def rules(cascade):
    return [f"replace({a!r}, {b!r})" for a, b in cascade]


def script_of(inst):
    """Probes (one refused), a test, and a submission that is right but for its last rule."""
    return [
        ("run_hidden", {"inputs": ["ab", inst["heldout_inputs"][0]]}),
        ("test_cascade", {"cascade": rules(inst["cascade"][1:])}),
        ("run_hidden", {"inputs": ["ZZ"]}),
        ("submit", {"cascade": rules(inst["cascade"][:-1])}),
    ]


def through_probe_env(inst):
    """The reference: texts of every call, the reward and the grade."""
    env = rl.ProbeEnv(probe_budget=10)
    env.reset(**inst)
    texts = [getattr(env, name)(**arguments) for name, arguments in script_of(inst)]
    reward = env.get_reward()
    return texts, reward, env.last_grade


def test_the_script_means_something(lite):
    """The episode exercises what the adapters must agree on: probes spent, a refusal, a
    partial answer whose behaviour lies strictly between 0 and 1 for some instances."""
    rewards = []
    for inst in lite:
        texts, reward, grade = through_probe_env(inst)
        assert json.loads(texts[0])["budget_left"] == 8 and "error" in json.loads(texts[2])
        assert grade["final_source"] == "submitted" and grade["probes_used"] == 2
        rewards.append(reward)
    assert any(0.0 < r < 1.0 for r in rewards)


def test_inspect_ai_plays_the_same_episode(lite, tmp_path, no_network):
    framework("inspect_ai", "inspect")
    import pbebench.inspect_ai as pbe_inspect
    from test_inspect_ai import call, episode, run

    def script(inst, turn, messages):
        name, arguments = script_of(inst)[turn]
        return call(name, **arguments)

    task = pbe_inspect.pbebench(dataset="lite", seed=SEED, size=SIZE, heldout=HELDOUT, mode="interactive",
                                probe_budget=10)
    log = run(task, episode(script, lite), tmp_path, limit=SIZE)
    assert len(log.samples) == SIZE
    for sample in log.samples:
        inst = sample.metadata["instance"]
        texts, reward, grade = through_probe_env(inst)
        tool = [m for m in sample.messages if m.role == "tool"]
        # Successes are the same text; a refusal is inspect's tool error, with the same words.
        assert [tool[0].text, tool[1].text] == texts[:2]
        assert tool[2].error.message.startswith(json.loads(texts[2])["error"])
        record = sample.store["pbebench_episode"]
        for key in ("pass", "recovered", "behaviour", "heldout_pass", "probes_used", "tests", "final_source"):
            assert record[key] == grade[key], key
        assert sample.scores["pbebench_scorer"].value.get("behaviour", 0.0) == reward


def test_verl_plays_the_same_episode(lite):
    pytest.importorskip("torch", reason="verl needs torch (benches/python/train_check.sh installs both)")
    pytest.importorskip("verl", reason="verl is not installed (benches/python/train_check.sh installs it)")
    from test_verl_tools import CONFIG, agent_data, loop_of, reward_of
    from verl.experimental.agent_loop.tool_parser import FunctionCall
    from verl.tools.tool_registry import initialize_tools_from_config

    import pbebench.verl

    loop = loop_of(initialize_tools_from_config(str(CONFIG)))
    for k, inst in enumerate(lite):
        texts, reward, grade = through_probe_env(inst)
        row = pbebench.verl.probe_row(inst, k, "train", probe_budget=10)
        data = agent_data(row)
        got = []
        for name, arguments in script_of(inst):
            data.assistant_turns += 1
            response, _, _ = asyncio.run(
                loop._call_tool(FunctionCall(name=name, arguments=json.dumps(arguments)), data.tools_kwargs, data)
            )
            got.append(response.text)
        assert got == texts
        parts = reward_of(row, data)
        assert parts["score"] == reward
        assert (parts["pass"], parts["recovered"]) == (float(grade["pass"]), float(grade["recovered"]))
        assert (parts["probes_used"], parts["tests"]) == (grade["probes_used"], grade["tests"])


def test_verifiers_plays_the_same_episode(lite, no_network):
    """verifiers evaluates the probing environment against a mock OpenAI-compatible server
    that plays the script: the tool texts the model is sent and the reward are ProbeEnv's."""
    framework("verifiers", "verifiers")
    from test_verifiers import evaluate, field, outputs

    from pbebench.verifiers_env import load_environment

    env = load_environment(task="probe", preset="lite", seed=SEED, size=SIZE, heldout=HELDOUT, probe_budget=10)
    prompts = {env.dataset[k]["prompt"][-1]["content"]: inst for k, inst in enumerate(lite)}

    def respond(messages):
        inst = prompts[messages[0]["content"]]
        turn = sum(m["role"] == "assistant" for m in messages)
        name, arguments = script_of(inst)[turn]
        return {"tool_calls": [(name, arguments)]}

    results, server = evaluate(env, respond, SIZE)
    rows = outputs(results)
    assert len(rows) == SIZE
    seen = {}
    for request in server.requests:
        inst = prompts[request["messages"][0]["content"]]
        seen[inst["id"]] = [m["content"] for m in request["messages"] if m["role"] == "tool"]
    rewards = sorted(field(row, "reward") for row in rows)
    expected = []
    for inst in lite:
        texts, reward, _ = through_probe_env(inst)
        assert seen[inst["id"]] == texts[:3]  # the submit's text ends the episode unsent
        expected.append(reward)
    assert rewards == sorted(expected)
