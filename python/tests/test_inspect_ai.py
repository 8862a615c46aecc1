"""pbebench as an inspect_ai task, run by inspect_ai itself with its own `mockllm/model`
provider and scripted outputs (tool calls included): the samples, the scorer's figures
against `pbebench score` on the same answers, pass@k against inspect's own reducer, the
interactive mode's tools and budget rules, and the `pbebench/...` entry point, in Python
and on inspect's command line. No test reaches the network (the `no_network` fixture).

Skipped without inspect_ai (pip install './python[inspect]'), except in CI, where
PBEBENCH_REQUIRE_FRAMEWORKS=1 turns the skip into a failure.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO, framework, released, responses_for

inspect_ai = framework("inspect_ai", "inspect")

from inspect_ai import Epochs  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatMessageAssistant,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolCall  # noqa: E402

import pbebench  # noqa: E402
import pbebench.inspect_ai as pbe_inspect  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_network")

SCORER = "pbebench_scorer"


def with_usage(output):
    """Scripted outputs state their usage: without it mockllm counts tokens with tiktoken,
    which downloads its tokenizer."""
    output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return output


def text(content):
    return with_usage(ModelOutput.from_content(model="mockllm", content=content))


def call(name, **arguments):
    return with_usage(ModelOutput.for_tool_call("mockllm", name, arguments))


def calls(*named):
    """One reply with several tool calls, in order."""
    tool_calls = [
        ToolCall(id=f"call_{k}", function=name, arguments=args) for k, (name, args) in enumerate(named)
    ]
    output = ModelOutput.from_message(ChatMessageAssistant(content="", tool_calls=tool_calls, model="mockllm"))
    return with_usage(output)


def mockllm(respond):
    """inspect's mockllm/model, answering through `respond(messages)`."""
    return get_model(
        "mockllm/model",
        custom_outputs=lambda messages, tools, tool_choice, config: respond(messages),
        memoize=False,
    )


def run(task, respond, tmp_path, **kwargs):
    (log,) = inspect_eval(task, model=mockllm(respond), display="none", log_dir=str(tmp_path / "logs"), **kwargs)
    assert log.status == "success", log.error
    return log


def metrics(log):
    (score,) = log.results.scores
    return {name: m.value for name, m in score.metrics.items()}


def rules(cascade):
    return [f"replace({a!r}, {b!r})" for a, b in cascade]


# --- static mode -------------------------------------------------------------------------


def test_samples_carry_the_instances(dataset_file, instances, tmp_path):
    task = pbe_inspect.pbebench(dataset=str(dataset_file))
    samples = list(task.dataset)
    assert [s.id for s in samples] == [i["id"] for i in instances]
    for sample, inst in zip(samples, instances):
        assert sample.input == pbebench.prompt(inst)
        assert sample.target == pbebench.render_answer(inst["cascade"])
        assert sample.metadata["instance"] == inst
        assert sample.metadata["cascade_len"] == inst["cascade_len"]
        assert sample.metadata["category"] == inst["category"]
        assert sample.metadata["examples"] == len(inst["inputs"])
    # A preset is generated: the same instances as the CLI's file.
    preset = pbe_inspect.pbebench(dataset="lite", seed=3, size=32, heldout=5)
    assert [s.metadata["instance"] for s in preset.dataset] == instances
    # The authors' template, and the authors' published file.
    authors = pbe_inspect.pbebench(dataset=str(dataset_file), template="authors")
    assert next(iter(authors.dataset)).input == pbebench.prompt(instances[0], pbebench.TEMPLATES["authors"])
    published = REPO / "testdata/pbebench-official/adaptive_balanced_1008_complete.jsonl"
    theirs = pbe_inspect.pbebench(dataset=str(published))
    assert len(theirs.dataset) == len(published.read_text().splitlines())
    assert next(iter(theirs.dataset)).id == "0"
    for bad, message in [
        ({"dataset": "nope"}, "neither a preset"),
        ({"mode": "probing"}, "not a mode"),
        ({"template": "nope"}, "neither a built-in template"),
        ({"dataset": str(dataset_file), "size": 16}, "apply to presets"),
    ]:
        with pytest.raises(ValueError, match=message):
            pbe_inspect.pbebench(**bad)
    # A value of the wrong type (as `-T size=all` gives) is named with the task.
    for name, value in [("dataset", 3), ("mode", None), ("seed", "3"), ("size", "all"), ("heldout", 2.0),
                        ("template", 1), ("probe_budget", "40"), ("max_turns", None), ("max_probe_len", True),
                        ("epochs", "2")]:
        with pytest.raises(TypeError, match=rf"^pbebench\(\): {name} must be"):
            pbe_inspect.pbebench(**{name: value})


def scripted_answers(instances):
    """Answers of every kind (gold, near misses, invalid rules, garbage, thinking), a
    different one at each call for the same prompt."""
    by_prompt = {pbebench.prompt(inst): inst for inst in instances}
    calls_so_far = {}

    def respond(messages):
        inst = by_prompt[messages[-1].text]
        k = calls_so_far.get(inst["id"], 0)
        calls_so_far[inst["id"]] = k + 1
        kinds = responses_for(inst, int(inst["id"][-2:]) + 7 * k)
        return text(kinds[k % len(kinds)])

    return respond


def test_figures_are_those_of_pbebench_score(cli, dataset_file, instances, tmp_path):
    """Four epochs of varied answers: the task's figures are `pbebench score`'s on the same
    answers (read back from inspect's log), to the last bit."""
    epochs = 4
    task = pbe_inspect.pbebench(dataset=str(dataset_file), epochs=epochs)
    log = run(task, scripted_answers(instances), tmp_path)
    answers = {}
    for sample in log.samples:
        answers.setdefault(sample.id, {})[sample.epoch] = sample.scores[SCORER].answer
    assert len(answers) == len(instances) and all(len(a) == epochs for a in answers.values())
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(
            json.dumps({"id": i, "responses": [a[e] for e in sorted(a)]}) + "\n" for i, a in answers.items()
        )
    )
    out = json.loads(cli("score", "--dataset", dataset_file, "--responses", responses, "--out", "-"))
    overall = out["summary"]["overall"]
    got = metrics(log)
    expected = {
        "Pass@1": overall["pass_at_1"],
        "best-of-K": overall["best_of_k"],
        "Recovered@1": overall["recovered"],
        "behaviour": overall["behaviour"],
        "Edit_Sim": overall["edit_sim"],
        "Valid_Rate": overall["valid_rate"],
        "held-out pass": overall["heldout_pass"],
        "pass@2": overall["pass_at_k"]["2"],
        "pass@4": overall["pass_at_k"]["4"],
        "recovered@2": overall["recovered_at_k"]["2"],
        "recovered@4": overall["recovered_at_k"]["4"],
    }
    names = {"Pass@1": "pass_at_1", "best-of-K": "best_of_k", "Recovered@1": "recovered",
             "behaviour": "behaviour", "Edit_Sim": "edit_sim", "Valid_Rate": "valid_rate",
             "held-out pass": "heldout_pass"}
    for name, key in names.items():
        interval = overall["intervals"][key]
        expected[f"{name} stderr"] = interval["se"]
        expected[f"{name} 95% lo"] = interval["lo"]
        expected[f"{name} 95% hi"] = interval["hi"]
    assert got == expected
    assert overall["pass_at_1"] == overall["pass_at_k"]["1"]
    assert got["Pass@1 95% lo"] <= got["Pass@1"] <= got["Pass@1 95% hi"]
    assert 0 < got["Recovered@1"] <= got["Pass@1"]
    # The answers were varied enough to tell the figures apart.
    assert 0 < got["Pass@1"] < got["pass@2"] < got["best-of-K"] < 1
    assert 0 < got["Valid_Rate"] < 1
    # Each epoch's score is the score of its own answer.
    sample = log.samples[0]
    inst = sample.metadata["instance"]
    own = pbebench.score(inst, [sample.scores[SCORER].answer])
    assert sample.scores[SCORER].value["pass"] == float(own["pass"])
    assert sample.scores[SCORER].value["edit_sim"] == own["edit_sim"]
    assert sample.scores[SCORER].value["recovered"] == float(own["recovered"])
    assert sample.scores[SCORER].value["behaviour"] == own["behaviour"]


def test_pass_at_k_agrees_with_inspects_own_reducer(dataset_file, instances, tmp_path):
    """pbebench's pass@k and inspect's `pass_at_k` reducer (numpy) on the same epochs."""
    task = pbe_inspect.pbebench(dataset=str(dataset_file))
    reducers = [pbe_inspect.best_of_k(), "pass_at_2", "mean"]
    log = run(task, scripted_answers(instances), tmp_path, epochs=Epochs(4, reducers))
    by_reducer = {s.reducer: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}
    ours = by_reducer["pbebench"]
    assert by_reducer["pass_at_2"]["pass"] == pytest.approx(ours["pass@2"], abs=1e-12)
    # Under inspect's mean reducer the figures keep their plain names: the mean of the
    # samples' pass is Pass@1, Valid_Rate is then not pbebench's (its rules are pooled).
    assert by_reducer["mean"]["pass"] == pytest.approx(ours["Pass@1"], abs=1e-12)
    assert "Pass@1" not in by_reducer["mean"]


def test_unanswered_and_garbage_score_zero(instances, tmp_path):
    inst = instances[0]
    task = pbe_inspect.pbebench(dataset="lite", seed=3, size=16)
    log = run(task, lambda messages: text("I cannot do this."), tmp_path, limit=4)
    got = metrics(log)
    assert got["Pass@1"] == 0 and got["Edit_Sim"] == 0
    assert got["Recovered@1"] == 0 and got["behaviour"] == 0
    assert "Valid_Rate" not in got, "no rules were given: Valid_Rate is undefined, not 0"
    assert inst  # the shared fixture is untouched


# --- interactive mode --------------------------------------------------------------------


def instance_of(messages, instances):
    first = messages[0].text
    shown = first.split("Inputs:\n", 1)[1].split("\n\nOutputs:", 1)[0]
    (inst,) = [i for i in instances if "[" + ", ".join(repr(s) for s in i["inputs"]) + "]" == shown]
    return inst


def episode(script, instances):
    """A model that plays `script(inst, turn, messages)` on each instance."""

    def respond(messages):
        inst = instance_of(messages, instances)
        turn = sum(1 for m in messages if m.role == "assistant")
        return script(inst, turn, messages)

    return respond


def interactive(instances_, tmp_path, script, limit=None, **task_args):
    task = pbe_inspect.pbebench(dataset="lite", seed=3, size=16, heldout=2, mode="interactive", **task_args)
    return run(task, episode(script, instances_), tmp_path, limit=limit)


@pytest.fixture(scope="module")
def lite16():
    return list(pbebench.generate("lite", seed=3, size=16, heldout=2))


def tool_results(sample):
    return [(m.function, m.text, m.error.message if m.error else None) for m in sample.messages if m.role == "tool"]


def test_probe_test_and_submit(lite16, tmp_path):
    def script(inst, turn, messages):
        return [
            call("run_hidden", inputs=["ab", "ZZ"]),  # refused: Z is no letter of the task
            call("run_hidden", inputs=["ab", inst["heldout_inputs"][0]]),
            call("test_cascade", cascade=rules(inst["cascade"][1:])),
            call("submit", cascade=rules(inst["cascade"])),
        ][turn]

    log = interactive(lite16, tmp_path, script, limit=3, probe_budget=5)
    for sample in log.samples:
        inst = sample.metadata["instance"]
        results = tool_results(sample)
        assert results[0][0] == "run_hidden" and "not in the alphabet" in results[0][2]
        assert "budget left: 5" in results[0][2], "a refused call costs nothing"
        probed = json.loads(results[1][1])
        assert probed == {
            "outputs": pbebench.apply(inst["cascade"], ["ab", inst["heldout_inputs"][0]]),
            "budget_left": 3,
        }
        feedback = json.loads(results[2][1])
        assert feedback["checked"] == len(set(inst["inputs"]) | {"ab", inst["heldout_inputs"][0]})
        record = sample.store["pbebench_episode"]
        assert record["end_reason"] == "submit" and record["final_source"] == "submitted"
        assert record["final_cascade"] == inst["cascade"]
        assert (record["probes_used"], record["tests"], record["turns"]) == (2, 1, 4)
        # The probed held-out example no longer counts; the other one does.
        assert (record["heldout_excluded"], record["heldout_pass"]) == (1, True)
        value = sample.scores[SCORER].value
        assert value["pass"] == 1.0 and value["probes"] == 2.0
    got = metrics(log)
    assert got["Pass@1"] == 1.0 and got["probes"] == 2.0 and got["held-out pass"] == 1.0


def test_asking_past_the_budget_ends_the_episode(lite16, tmp_path):
    def script(inst, turn, messages):
        return [
            call("run_hidden", inputs=["a", "b"]),
            call("test_cascade", cascade=rules(inst["cascade"])),
            call("run_hidden", inputs=["c", "d", "e"]),  # two are left: refused, the end
            call("submit", cascade=[]),  # never asked for
        ][turn]

    log = interactive(lite16, tmp_path, script, limit=2, probe_budget=4)
    for sample in log.samples:
        record = sample.store["pbebench_episode"]
        assert record["end_reason"] == "budget"
        assert record["final_source"] == "tested", "the last tested cascade counts"
        assert record["probes_used"] == 2
        assert sample.scores[SCORER].value["pass"] == 1.0
        assert "only 2 of the probe budget are left" in tool_results(sample)[-1][2]
        assert sum(1 for m in sample.messages if m.role == "assistant") == 3


def test_the_probe_length_is_the_tasks_choice(lite16, tmp_path):
    def script(inst, turn, messages):
        long = inst["alphabet"][0] * 64
        return [call("run_hidden", inputs=[long]), call("submit", cascade=rules(inst["cascade"]))][turn]

    for max_probe_len, probes in ((64, 1), (32, 0)):
        log = interactive(lite16, tmp_path / str(max_probe_len), script, limit=2, max_probe_len=max_probe_len)
        for sample in log.samples:
            assert f"have at most {max_probe_len} characters" in sample.messages[0].text
            assert sample.store["pbebench_episode"]["probes_used"] == probes


def test_a_plain_answer_ends_the_episode_with_its_code_block(lite16, tmp_path):
    def script(inst, turn, messages):
        return text("I think it is\n" + released(inst["cascade"]))

    log = interactive(lite16, tmp_path, script, limit=2)
    for sample in log.samples:
        record = sample.store["pbebench_episode"]
        assert (record["end_reason"], record["final_source"], record["turns"]) == ("answer", "code_block", 1)
        assert sample.scores[SCORER].value["pass"] == 1.0
        assert record["heldout_pass"] is True and record["probes_used"] == 0


def test_the_turn_limit_and_bad_tool_calls(lite16, tmp_path):
    def script(inst, turn, messages):
        if turn == 0:  # an unreadable submission is refused, and the episode goes on
            return call("submit", cascade=["replace('', 'a')"])
        if turn == 1:  # a submission ends it: the probe after it in the same reply is ignored
            return calls(("submit", {"cascade": rules(inst["cascade"][:1])}), ("run_hidden", {"inputs": ["a"]}))
        raise AssertionError("the episode has ended")

    log = interactive(lite16, tmp_path, script, limit=2)
    for sample in log.samples:
        results = tool_results(sample)
        assert results[0][0] == "submit" and "nothing was done" in results[0][2]
        # Worded for the model as `pbebench eval --interactive` words it, not in Python's names.
        assert "submit: rule 1: " in results[0][2] and "Oracle" not in results[0][2]
        assert "ignored: the episode has ended (submit)" in results[-1][2]
        record = sample.store["pbebench_episode"]
        assert record["final_cascade"] == sample.metadata["instance"]["cascade"][:1]
        assert (record["probes_used"], record["turns"]) == (0, 2)

    def forever(inst, turn, messages):
        return call("run_hidden", inputs=["a"])

    log = interactive(lite16, tmp_path, forever, limit=1, max_turns=3, probe_budget=10)
    (sample,) = log.samples
    record = sample.store["pbebench_episode"]
    assert (record["end_reason"], record["turns"], record["probes_used"]) == ("turns", 3, 3)
    assert record["final_source"] == "none" and sample.scores[SCORER].value["pass"] == 0.0

    # One of inspect's own limits ends the agent: the episode is still recorded and scored.
    task = pbe_inspect.pbebench(dataset="lite", seed=3, size=16, heldout=2, mode="interactive")
    log = run(task, episode(forever, lite16), tmp_path, limit=1, message_limit=5)
    (sample,) = log.samples
    record = sample.store["pbebench_episode"]
    assert record["end_reason"] == "limit" and record["probes_used"] == 2
    assert sample.scores[SCORER].value["pass"] == 0.0


def test_every_mode_grades_an_answer_alike(lite16, tmp_path):
    """One grade whatever the mode (issue 37): the same final answers, some with rules past
    max_rules or over max_rule_len, get the same pass, held-out pass, recovered and
    behaviour from the inspect_ai scorer, from the episode's Oracle.grade and from
    pbebench.score on the answer's text."""
    short = [i for i in lite16 if i["cascade_len"] <= 4]

    def overlong(gold):  # the first rule through a four-letter detour: two rules too long
        (a, b), rest = gold[0], gold[1:]
        return [[a, "zzzz"], ["zzzz", b], *rest]

    kinds = [
        lambda gold: gold,
        overlong,
        lambda gold: [["a", "a"]] * 5 + gold,  # the gold past the cap of 5 rules
        lambda gold: gold[1:],
        lambda gold: [],
    ]
    answers = {inst["id"]: kind(inst["cascade"]) for inst, kind in zip(short, kinds)}
    for inst in short[1:3]:
        raw = answers[inst["id"]]
        assert pbebench.apply(raw, inst["inputs"]) == inst["outputs"], "whole, it would pass"

    def script(inst, turn, messages):
        return call("submit", cascade=rules(answers[inst["id"]]))

    task = pbe_inspect.pbebench(dataset="lite", seed=3, size=16, heldout=2, mode="interactive")
    log = run(task, episode(script, lite16), tmp_path, sample_id=list(answers))
    assert len(log.samples) == len(answers)
    for sample in log.samples:
        inst = sample.metadata["instance"]
        answer = answers[inst["id"]]
        record = sample.store["pbebench_episode"]
        value = sample.scores[SCORER].value
        scored = pbebench.score(inst, [pbebench.render_answer(answer)])
        grade = pbebench.Oracle(inst, 0).grade(answer)
        figures = lambda d: (d["pass"], d["recovered"], d["behaviour"])  # noqa: E731
        assert figures(record) == figures(grade) == figures(scored), inst["id"]
        assert (value["pass"], value.get("recovered"), value.get("behaviour")) == tuple(
            None if v is None else float(v) for v in figures(scored)
        )
        assert record["heldout_pass"] == grade["heldout_pass"] == scored["heldout_pass"]
        assert value.get("heldout_pass") == (None if scored["heldout_pass"] is None else float(scored["heldout_pass"]))
    passed = {sample.id: sample.scores[SCORER].value["pass"] for sample in log.samples}
    assert [passed[inst["id"]] for inst in short[:3]] == [1.0, 0.0, 0.0]


def test_interactive_figures_over_epochs(lite16, tmp_path):
    """Two episodes per instance, the first to start solved, the other not: the figures
    pool them as `pbebench score` pools samples, and held-out pass and probes as
    `eval --interactive` reports them."""
    started = {}

    def script(inst, turn, messages):
        if turn == 0:  # the probe says which episode this is
            k = started.get(inst["id"], 0)
            started[inst["id"]] = k + 1
            return call("run_hidden", inputs=["a"] if k == 0 else ["b", "c"])
        (first,) = messages[1].tool_calls
        solved = first.arguments["inputs"] == ["a"]
        return call("submit", cascade=rules(inst["cascade"]) if solved else [])

    task = pbe_inspect.pbebench(dataset="lite", seed=3, size=16, heldout=2, mode="interactive", epochs=2)
    log = run(task, episode(script, lite16), tmp_path, limit=4)
    records = [s.store["pbebench_episode"] for s in log.samples]
    assert sorted(r["probes_used"] for r in records) == [1] * 4 + [2] * 4
    got = metrics(log)
    assert got["Pass@1"] == 0.5 and got["best-of-K"] == 1.0 and got["pass@2"] == 1.0
    assert got["probes"] == 1.5
    heldout = [r["heldout_pass"] for r in records if r["heldout_pass"] is not None]
    assert got["held-out pass"] == pytest.approx(sum(heldout) / len(heldout))
    assert 0 < got["held-out pass"] < 1


# --- registration ------------------------------------------------------------------------


def test_tasks_are_found_through_the_entry_point(tmp_path):
    from importlib.metadata import entry_points

    (ep,) = [ep for ep in entry_points(group="inspect_ai") if ep.name == "pbebench"]
    assert ep.value == "pbebench._registry"
    log = run("pbebench/lite", lambda messages: text("no idea"), tmp_path, task_args={"size": 16}, limit=2)
    assert log.eval.task == "pbebench/lite"
    assert len(log.samples) == 2 and metrics(log)["Pass@1"] == 0.0


def test_inspect_eval_on_the_command_line(tmp_path):
    """`inspect eval pbebench/lite --model mockllm/model`, as a user types it. mockllm's
    default output has no usage figures, for which inspect would fetch a tokenizer: the
    interpreter gets them from a sitecustomize (that also blocks the network) instead."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        textwrap.dedent(
            """
            import socket
            def _refuse(*args, **kwargs):
                raise OSError("no network in this test")
            socket.getaddrinfo = _refuse
            from inspect_ai.model import ModelUsage
            from inspect_ai.model._providers import mockllm
            async def _usage(self, output, input, tools):
                output.usage = output.usage or ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            mockllm.MockLLM._ensure_default_usage = _usage
            """
        )
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    inspect_cli = Path(sys.executable).with_name("inspect")
    proc = subprocess.run(
        [
            str(inspect_cli), "eval", "pbebench/lite", "--model", "mockllm/model",
            "-T", "size=16", "--limit", "3", "--log-dir", str(tmp_path / "logs"),
            "--display", "plain", "--log-format", "json",
        ],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (log_file,) = (tmp_path / "logs").glob("*.json")
    log = json.loads(log_file.read_text())
    assert log["status"] == "success" and log["eval"]["task"] == "pbebench/lite"
    (score,) = log["results"]["scores"]
    assert score["metrics"]["Pass@1"]["value"] == 0.0
    assert log["results"]["total_samples"] == 3


# --- the reordering task -----------------------------------------------------------------


def test_the_reordering_task_scores_as_pbebench_does(cli, dataset_file, tmp_path):
    """`pbebench/reorder` on a reordering set: the samples are its problems with their
    prompts; scripted answers (the gold order, reversed, repeated indices, prose) get the
    figures `pbebench score` gives the same answers."""
    reorder_file = tmp_path / "reorder.jsonl"
    cli("reorder", "--dataset", dataset_file, "--out", reorder_file)
    problems = [json.loads(line) for line in reorder_file.read_text().splitlines()]
    task = pbe_inspect.reorder(dataset=str(reorder_file))
    samples = list(task.dataset)
    assert [s.id for s in samples] == [p["id"] for p in problems]
    assert [s.input for s in samples] == [pbebench.reorder_prompt(p) for p in problems]
    by_prompt = {pbebench.reorder_prompt(p): p for p in problems}
    answers = {}

    def respond(messages):
        p = by_prompt[messages[-1].text]
        n = len(p["scrambled"])
        k = problems.index(p)
        answer = [f"```json\n{p['order']}\n```", str(list(range(n))[::-1]), "[0, 0]", "I cannot tell"][k % 4]
        answers[p["id"]] = answer
        return text(answer)

    log = run(task, respond, tmp_path)
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"id": i, "response": a}) + "\n" for i, a in answers.items()))
    out = json.loads(cli("score", "--dataset", reorder_file, "--responses", responses, "--out", "-"))
    (all_,) = [row for row in out["rows"] if row["group"] == "all"]
    got = {f"{s.name}/{name}": m.value for s in log.results.scores for name, m in s.metrics.items()}
    for key in ("accuracy", "exact", "valid"):
        assert got[f"{key}/mean"] == pytest.approx(all_[key]["mean"], abs=1e-12), key
    assert 0 < got["exact/mean"] < got["accuracy/mean"] < got["valid/mean"] < 1
    # A synthesis dataset or a preset is made into problems; the authors' file is read.
    made = pbe_inspect.reorder(dataset=str(dataset_file))
    assert [s.metadata["problem"] for s in made.dataset] == problems
    theirs = pbe_inspect.reorder(dataset=str(REPO / "testdata/reorder-authors/records.jsonl"))
    assert next(iter(theirs.dataset)).id == "perm_00000"
    with pytest.raises(TypeError, match=r"^reorder\(\): seed must be"):
        pbe_inspect.reorder(seed="1")
