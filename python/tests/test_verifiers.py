"""pbebench as a verifiers environment (pbebench.verifiers_env), evaluated by verifiers
itself against a local mock OpenAI-compatible server that scripts the replies (tool calls
included): the single-turn synthesis task's rewards are pbebench's behavioural reward, and
the probing task's tool results, budget and grade are those of the shared episode
(pbebench.rl.ProbeEnv on the same script). No test reaches the network.

Skipped without verifiers (pip install './python[verifiers]'), except in CI, where
PBEBENCH_REQUIRE_FRAMEWORKS=1 turns the skip into a failure.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import framework, released

vf = framework("verifiers", "verifiers")

from openai import AsyncOpenAI  # noqa: E402
from verifiers.clients import OpenAIChatCompletionsClient  # noqa: E402

import pbebench  # noqa: E402
from pbebench.rl import ProbeEnv  # noqa: E402
from pbebench.verifiers_env import load_environment  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_network")


class MockServer:
    """An OpenAI-compatible chat completions endpoint on 127.0.0.1: ``respond(messages)``
    returns ``{"content"}`` or ``{"tool_calls": [(name, arguments)]}`` for each request."""

    def __init__(self, respond):
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                reply = respond(body["messages"])
                message = {"role": "assistant", "content": reply.get("content")}
                if reply.get("tool_calls"):
                    message["tool_calls"] = [
                        {"id": f"call_{len(server.requests)}_{k}", "type": "function",
                         "function": {"name": name, "arguments": json.dumps(args)}}
                        for k, (name, args) in enumerate(reply["tool_calls"])
                    ]
                data = json.dumps({
                    "id": "mock", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "message": message,
                                 "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.client = OpenAIChatCompletionsClient(
            AsyncOpenAI(base_url=f"http://127.0.0.1:{self.httpd.server_port}/v1", api_key="none", max_retries=0)
        )

    def close(self):
        self.httpd.shutdown()


def evaluate(env, respond, n):
    server = MockServer(respond)
    try:
        return env.evaluate_sync(server.client, "mock", num_examples=n, rollouts_per_example=1,
                                 max_concurrent=1, save_results=False), server
    finally:
        server.close()


def outputs(results):
    return results["outputs"] if isinstance(results, dict) else results.outputs


def field(output, name):
    return output[name] if isinstance(output, dict) else getattr(output, name)


def test_the_synthesis_task_rewards_behaviour():
    instances = list(pbebench.generate("lite", seed=1, size=16))
    env = load_environment(task="synthesis", preset="lite", seed=1, size=16)
    by_prompt = {pbebench.prompt(i): i for i in instances}
    answers = {}

    def respond(messages):
        inst = by_prompt[messages[-1]["content"]]
        k = instances.index(inst)
        gold = inst["cascade"]
        answer = [released(gold), released(gold[:-1]), "no idea"][k % 3]
        answers[inst["id"]] = answer
        return {"content": answer}

    results, _ = evaluate(env, respond, 6)
    rows = outputs(results)
    assert len(rows) == 6
    rewards = sorted(field(o, "reward") for o in rows)
    expected = sorted(
        pbebench.reward(i, [answers[i["id"]]], kind="behaviour")[0] for i in instances if i["id"] in answers
    )
    assert rewards == pytest.approx(expected, abs=1e-12)
    assert max(rewards) == 1.0 and min(rewards) == 0.0


def test_the_probing_task_is_the_shared_episode():
    """One scripted episode: probe, a bad tool call, a test, a submit of the gold; the tool
    results and the reward equal ProbeEnv's on the same calls."""
    (inst,) = list(pbebench.generate("lite", seed=2, size=16))[:1]
    gold = [f"replace({a!r}, {b!r})" for a, b in inst["cascade"]]
    script = [
        [("run_hidden", {"inputs": ["ab", "ba"]})],
        [("test_cascade", {"cascade": 3})],
        [("test_cascade", {"cascade": gold[:-1]})],
        [("submit", {"cascade": gold})],
        [("run_hidden", {"inputs": ["never"]})],
    ]
    turn = iter(script)

    def respond(messages):
        return {"tool_calls": next(turn)}

    env = load_environment(task="probe", preset="lite", seed=2, size=16, probe_budget=10)
    results, server = evaluate(env, respond, 1)
    (row,) = outputs(results)
    assert len(server.requests) == 4  # the episode ended at submit
    tools = {t["function"]["name"] for t in server.requests[0]["tools"]}
    assert tools == {"run_hidden", "test_cascade", "submit"}
    assert "episode" not in json.dumps(server.requests[0]["tools"])
    seen = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]

    probe = ProbeEnv(probe_budget=10)
    probe.reset(**inst)
    expected = [
        probe.run_hidden(["ab", "ba"]),
        probe.test_cascade(3),
        probe.test_cascade(gold[:-1]),
    ]
    assert seen == expected
    probe.submit(gold)
    assert field(row, "reward") == probe.get_reward() == 1.0
    assert "budget_left" in seen[0] and "error" in seen[1]


def test_a_plain_answer_ends_the_episode_with_its_code_block():
    (inst,) = list(pbebench.generate("lite", seed=3, size=16))[:1]
    env = load_environment(task="probe", preset="lite", seed=3, size=16)
    results, server = evaluate(env, lambda messages: {"content": released(inst["cascade"])}, 1)
    (row,) = outputs(results)
    assert len(server.requests) == 1
    assert field(row, "reward") == 1.0


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="not a task"):
        load_environment(task="chat")
    with pytest.raises(TypeError, match=r"^load_environment\(\): size must be"):
        load_environment(size="8")


def test_the_turn_limit_and_the_budget_end_the_episode():
    env = load_environment(task="probe", preset="lite", seed=4, size=16, max_turns=2)
    results, server = evaluate(env, lambda messages: {"tool_calls": [("run_hidden", {"inputs": ["ab"]})]}, 1)
    assert len(server.requests) == 2
    (row,) = outputs(results)
    assert field(row, "reward") == 0.0  # nothing tested or submitted: the identity
    env = load_environment(task="probe", preset="lite", seed=4, size=16, probe_budget=1)
    results, server = evaluate(env, lambda messages: {"tool_calls": [("run_hidden", {"inputs": ["ab", "ba"]})]}, 1)
    assert len(server.requests) == 1  # asking past the budget ends the episode


def test_verifiers_finds_the_environment_by_its_id():
    env = vf.load_environment("pbebench", task="probe", size=16, seed=5)
    assert isinstance(env, vf.StatefulToolEnv)
    env = vf.load_environment("pbebench", size=16)
    assert isinstance(env, vf.SingleTurnEnv)
