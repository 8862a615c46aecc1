"""PBEBench as an inspect_ai task (``pip install "pbebench[inspect]"``).

    inspect eval pbebench/lite --model openai/gpt-5-mini
    inspect eval pbebench/pbebench -T dataset=my.jsonl -T mode=interactive --model ...

or from Python, ``inspect_ai.eval(pbebench.inspect_ai.pbebench(dataset="lite"), model=...)``.

* **Samples.** Every instance of the dataset (a preset, generated with ``seed``, or a
  dataset file of either schema) is a ``Sample``: its id, the prompt as input (the
  ``template``'s in static mode), the gold answer as target, and as metadata the instance
  (``metadata["instance"]``) with its ``cascade_len``, ``category``, limits and number of
  examples.
* **Scorer.** pbebench's scoring path (through the bindings): the score of each epoch's
  answer, and, reduced over the epochs by the task's ``pbebench`` reducer, the instance's
  score over its K samples exactly as ``pbebench score`` computes it (the chosen sample:
  any passing one, else the highest Edit_Sim). The metrics are the aggregate of
  ``pbebench score``: Pass@1 (unbiased, over the K samples), best-of-K, Edit_Sim (of the
  chosen samples), Valid_Rate (valid rules over the chosen responses' rules), held-out
  pass, and pass@k for k = 2, 4, ... up to K. ``--epochs K`` gives K samples.
* **Interactive mode** (``mode="interactive"``, docs/interactive.md): the model probes the sealed
  cascade with inspect's ``react()`` agent and three tools, ``run_hidden(inputs)``,
  ``test_cascade(cascade)`` and ``submit(cascade)``, under the rules of
  ``pbebench eval --interactive``: the budget and the refusals are the core's
  ``pbebench.Oracle``; the episode ends on submit, on a reply without a tool call, after
  ``max_turns`` replies, or when a probe asks for more than the budget has left; then the
  last submitted cascade counts, else the last tested one, else the last ```python block
  the model wrote. The metrics add the mean probes per episode and held-out pass over the
  held-out examples the model did not probe.

Every answer is also graded on behaviour (docs/metrics.md#behaviour), exactly, by the core:
``recovered`` (equivalent to the gold over the instance's input space) and ``behaviour``
(the probability that it gives the gold's output on a random input the gold changes); the
metric reports Recovered@1 and mean behaviour with ``pbebench score``'s formulas. Every
figure comes from ``_score`` below and, for an episode's held-out pass, ``Oracle.grade``:
both are the core's one grading path, so an answer gets the grade ``pbebench score`` and
``pbebench eval --interactive`` give it (rules past ``max_rules`` or breaking a limit left
out).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

try:
    from inspect_ai import Epochs, Task, task
    from inspect_ai.agent import AgentState, AgentSubmit, as_solver, react
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import (
        SampleScore,
        Score,
        Target,
        metric,
        score_reducer,
        scorer,
    )
    from inspect_ai.solver import Generate, TaskState, generate, solver
    from inspect_ai.tool import ToolDef, ToolError
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "pbebench.inspect_ai needs inspect_ai: pip install 'pbebench[inspect]' "
        "(or pip install inspect_ai)"
    ) from error

import pbebench as _pbebench
from pbebench._arguments import require as _require

PRESETS = ("lite", "lite-published", "lite-moreeg", "full", "full-25-30")
"""The presets ``dataset`` may name (the paper's datasets)."""

MODES = ("static", "interactive")
"""``static``: one prompt, one answer. ``interactive``: probe the sealed cascade."""

# The defaults of `pbebench eval --interactive`.
PROBE_BUDGET = 40
MAX_TURNS = 30
MAX_PROBE_LEN = _pbebench.DEFAULT_PROBE_LEN

_EPISODE = "pbebench_episode"


@task(name="pbebench")
def pbebench(
    dataset: str = "lite",
    mode: str = "static",
    seed: int = 0,
    size: int | None = None,
    heldout: int | None = None,
    template: str = "default",
    probe_budget: int = PROBE_BUDGET,
    max_turns: int = MAX_TURNS,
    max_probe_len: int = MAX_PROBE_LEN,
    epochs: int = 1,
) -> Task:
    """The PBEBench task.

    Args:
        dataset: a preset ("lite", "lite-published", "lite-moreeg", "full", "full-25-30"), generated with
            ``seed``, ``size`` and ``heldout``; or a dataset file (JSONL, pbebench's
            schema or the authors' published format).
        mode: "static" (the model answers the prompt) or "interactive" (it probes the
            hidden cascade with tools before it submits).
        seed: the generation seed of a preset.
        size: instances of a preset (default: the preset's size, 1008 for lite).
        heldout: held-out examples per instance of a preset (default: the preset's).
        template: static mode's prompt: "default", "authors" (the authors' released prompt,
            byte for byte) or a template file (see ``pbebench prompt --help``).
        probe_budget: interactive mode's probe inputs per episode.
        max_turns: interactive mode's model replies per episode.
        max_probe_len: interactive mode's longest probe input, in characters (never under
            twice the longest example input; ``pbebench eval --max-probe-len``).
        epochs: samples per instance (K); ``--epochs`` overrides it.
    """
    _require("pbebench", "dataset", dataset, (str, Path), "a preset name or a dataset file")
    _require("pbebench", "mode", mode, (str,), "'static' or 'interactive'")
    for name, value in (("seed", seed), ("probe_budget", probe_budget), ("max_turns", max_turns),
                        ("max_probe_len", max_probe_len), ("epochs", epochs)):
        _require("pbebench", name, value, (int,), "an int")
    for name, value in (("size", size), ("heldout", heldout)):
        _require("pbebench", name, value, (int, type(None)), "an int or None")
    _require("pbebench", "template", template, (str, Path), "a template name or file")
    if mode not in MODES:
        raise ValueError(f"pbebench(): mode: {mode!r} is not a mode; use 'static' or 'interactive'")
    instances = load_instances(dataset, seed=seed, size=size, heldout=heldout)
    if mode == "static":
        text = template_text(template)
        samples = [to_sample(inst, _pbebench.prompt(inst, text)) for inst in instances]
        solver_ = generate()
    else:
        if probe_budget < 0 or max_turns < 1:
            raise ValueError("pbebench(): probe_budget must be ≥ 0 and max_turns ≥ 1")
        samples = [
            to_sample(inst, interactive_prompt(inst, probe_budget, max_turns, max_probe_len))
            for inst in instances
        ]
        solver_ = probe(probe_budget=probe_budget, max_turns=max_turns, max_probe_len=max_probe_len)
    return Task(
        dataset=MemoryDataset(samples, name=str(dataset)),
        solver=solver_,
        scorer=pbebench_scorer(interactive=mode == "interactive"),
        epochs=Epochs(epochs, best_of_k()),
    )


def load_instances(
    dataset: str, seed: int = 0, size: int | None = None, heldout: int | None = None
) -> list[dict[str, Any]]:
    """The instances of a preset (generated) or of a dataset file."""
    dataset = str(dataset)
    if dataset in PRESETS:
        overrides = {} if heldout is None else {"heldout": heldout}
        return list(_pbebench.generate(dataset, seed=seed, size=size, **overrides))
    path = Path(dataset)
    if not path.is_file():
        raise ValueError(
            f"dataset: {dataset!r} is neither a preset ({', '.join(PRESETS)}) nor a file"
        )
    if size is not None or heldout is not None:
        raise ValueError("size and heldout apply to presets; a dataset file is used whole")
    return _pbebench.read_dataset(path)


def template_text(template: str) -> str:
    """A built-in template's text by name, else the text of the template file."""
    template = str(template)
    if template in _pbebench.TEMPLATES:
        return _pbebench.TEMPLATES[template]
    path = Path(template)
    if not path.is_file():
        names = ", ".join(sorted(_pbebench.TEMPLATES))
        raise ValueError(f"template: {template!r} is neither a built-in template ({names}) nor a file")
    return path.read_text(encoding="utf-8")


def to_sample(instance: dict[str, Any], prompt: str) -> Sample:
    """The sample of an instance: the prompt, the gold answer, the instance as metadata."""
    gold = instance.get("cascade")
    return Sample(
        id=instance["id"],
        input=prompt,
        target=_pbebench.render_answer(gold) if gold is not None else "",
        metadata={
            "instance": instance,
            "cascade_len": instance.get("cascade_len", 0),
            "category": instance.get("category"),
            "examples": len(instance["inputs"]),
            "max_rules": instance["max_rules"],
            "max_rule_len": instance["max_rule_len"],
            "alphabet": instance["alphabet"],
        },
    )


def interactive_prompt(
    instance: dict[str, Any], probe_budget: int, max_turns: int, max_probe_len: int = MAX_PROBE_LEN
) -> str:
    """The first message of an episode: the task, the tools, the budget and the limits."""
    task = _pbebench.Oracle(instance, probe_budget, max_probe_len).task
    return (
        "Each output string below was produced from the input string above it by a hidden "
        "program: a sequence of rewrite rules applied one after another. Every rule is a call "
        "of Python's `replace`: replace(A, B) turns every occurrence of A into B, scanning from "
        "left to right without overlaps, and text it has just inserted is not scanned again. "
        "Since each rule works on the result of the rules before it, their order matters.\n\n"
        "Your task is to find the hidden program: a sequence of rules that behaves like it on "
        "every input, not only on these examples.\n\n"
        "You have three tools:\n"
        "- run_hidden(inputs): runs the hidden program on strings of your choice and returns "
        f"its outputs. Every input counts against your probe budget of {probe_budget} inputs "
        f"in all; inputs may only use the letters {task['alphabet']} and have at most "
        f"{task['max_probe_len']} characters.\n"
        "- test_cascade(cascade): tells you which of the examples above and of the inputs you "
        "have probed a candidate gets wrong. It is free.\n"
        "- submit(cascade): your final answer; it ends the task.\n"
        "A cascade is a list of rule strings in the order they apply, such as "
        "[\"replace('ab', 'c')\", \"replace('c', '')\"].\n\n"
        f"You have at most {max_turns} turns. If you run out of turns, or ask for more probes "
        "than you have left, your last submitted cascade counts, else the last one you tested, "
        "else the last ```python block you wrote.\n\n"
        "Every rule is written as the string \"replace(A, B)\" with Python string literals A "
        f"and B: A has 1 to {task['max_rule_len']} characters, B at most "
        f"{task['max_rule_len']} (it may be empty), both only the characters "
        f"{task['alphabet']}. Use no more than {task['max_rules']} rules, and nothing but "
        "`replace`.\n\n"
        f"Inputs:\n{_repr_list(task['inputs'])}\n\nOutputs:\n{_repr_list(task['outputs'])}\n"
    )


def _for_model(error: Exception) -> str:
    """An oracle's error as the model reads it, without the binding's name of the method
    (``Oracle.read_cascade(): cascade[0]: …`` → ``cascade[0]: …``), as
    ``pbebench eval --interactive`` words it."""
    text = str(error)
    head, sep, rest = text.partition("(): ")
    return rest if sep and head.startswith("Oracle.") else text


def _repr_list(items: list[str]) -> str:
    return "[" + ", ".join(repr(s) for s in items) + "]"


class Episode:
    """One interactive episode: the core's oracle, and which cascade counts at the end (the
    last submitted, else the last tested, else the last ```python block written)."""

    def __init__(
        self,
        instance: dict[str, Any],
        probe_budget: int,
        max_turns: int,
        max_probe_len: int = MAX_PROBE_LEN,
    ):
        self.oracle = _pbebench.Oracle(instance, probe_budget, max_probe_len)
        self.max_turns = max_turns
        self.turns = 0
        self.ended: str | None = None
        self.submitted: list | None = None
        self.tested: list | None = None
        self.code_block: list | None = None

    def end(self, reason: str) -> None:
        """Ends the episode (the first reason stays)."""
        self.ended = self.ended or reason

    def _check_open(self) -> None:
        if self.ended:
            raise ToolError(f"ignored: the episode has ended ({self.ended})")

    def run_hidden(self, inputs: list[str]) -> str:
        """The tool run_hidden: the oracle's outputs and the budget left, as JSON; a refusal
        is a tool error (asking past the budget also ends the episode)."""
        self._check_open()
        try:
            outputs = self.oracle.run_hidden(inputs)
        except _pbebench.OverBudget as refusal:
            self.end("budget")
            raise ToolError(f"{refusal} (budget left: {self.oracle.budget_left})") from None
        except (_pbebench.ProbeRefused, TypeError) as refusal:
            raise ToolError(f"{_for_model(refusal)} (budget left: {self.oracle.budget_left})") from None
        return json.dumps({"outputs": outputs, "budget_left": self.oracle.budget_left})

    def test_cascade(self, cascade: list[str]) -> str:
        """The tool test_cascade: the oracle's feedback on a candidate, as JSON."""
        self._check_open()
        rules = self._read("test_cascade", cascade)
        feedback = self.oracle.test_cascade(rules)
        self.tested = rules
        return json.dumps(feedback)

    def submit(self, cascade: list[str]) -> str:
        """The submit tool: ends the episode with a readable cascade; returns its answer."""
        self._check_open()
        self.submitted = self._read("submit", cascade)
        self.end("submit")
        return self.answer_text()

    def _read(self, tool: str, cascade: Any) -> list:
        try:
            return self.oracle.read_cascade(cascade)
        except (ValueError, TypeError) as e:
            raise ToolError(f"{tool}: {_for_model(e)}; nothing was done") from None

    def note_text(self, text: str) -> None:
        """The last ```python block of the model's text is the fallback answer."""
        parsed = _pbebench.parse_response(text or "", max_rules=None, max_rule_len=None)
        if parsed["status"]["kind"] == "parsed":
            self.code_block = parsed["cascade"]

    def close_turn(self, tool_calls: bool) -> None:
        """A model reply was handled: the episode ends without tool calls (the text is the
        answer) and at the turn limit."""
        self.turns += 1
        if not tool_calls:
            self.end("answer")
        if self.turns >= self.max_turns:
            self.end("turns")

    def final(self) -> tuple[list | None, str]:
        """The cascade that counts, and where it came from."""
        for cascade, source in (
            (self.submitted, "submitted"),
            (self.tested, "tested"),
            (self.code_block, "code_block"),
        ):
            if cascade is not None:
                return cascade, source
        return None, "none"

    def answer_text(self) -> str:
        """The final cascade in the released answer format ("" when there is none)."""
        cascade, _ = self.final()
        return "" if cascade is None else _pbebench.render_answer(cascade)

    def record(self) -> dict[str, Any]:
        """What the scorer reads of the ended episode. Its end reason is that of
        ``pbebench eval --interactive``, or "limit" when inspect ended the agent (one of
        its limits, a context overflow)."""
        cascade, source = self.final()
        grade = self.oracle.grade(cascade or [])
        return {
            "end_reason": self.ended or "limit",
            "final_source": source,
            "final_cascade": cascade or [],
            "probes": self.oracle.probes,
            "probes_used": self.oracle.probes_used,
            "tests": self.oracle.tests_run,
            "turns": self.turns,
            "pass": grade["pass"],
            "heldout_pass": grade["heldout_pass"],
            "heldout_excluded": grade["heldout_excluded"],
            "recovered": grade["recovered"],
            "behaviour": grade["behaviour"],
        }


_CASCADE_ARG = "the rules in the order they apply, each like \"replace('ab', 'c')\""


def _tools(episode: Episode) -> tuple[list[ToolDef], ToolDef]:
    """The episode's tools (run_hidden, test_cascade) and its submit tool."""

    async def run_hidden(inputs: list[str]) -> str:
        return episode.run_hidden(inputs)

    async def test_cascade(cascade: list[str]) -> str:
        return episode.test_cascade(cascade)

    async def submit(cascade: list[str]) -> str:
        return episode.submit(cascade)

    tools = [
        ToolDef(
            run_hidden,
            name="run_hidden",
            description="Run the hidden program on inputs of your choice; returns its outputs. "
            "Every input counts against the probe budget.",
            parameters={"inputs": "the strings to run through the hidden program"},
        ),
        ToolDef(
            test_cascade,
            name="test_cascade",
            description="Test a candidate cascade: which visible examples and probed inputs it gets wrong.",
            parameters={"cascade": _CASCADE_ARG},
        ),
    ]
    submit_tool = ToolDef(
        submit,
        name="submit",
        description="Submit your final cascade; this ends the task.",
        parameters={"cascade": _CASCADE_ARG},
    )
    return tools, submit_tool


@solver
def probe(
    probe_budget: int = PROBE_BUDGET, max_turns: int = MAX_TURNS, max_probe_len: int = MAX_PROBE_LEN
):
    """Interactive mode: inspect's ``react()`` agent with the episode's tools."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        episode = Episode(state.metadata["instance"], probe_budget, max_turns, max_probe_len)
        tools, submit_tool = _tools(episode)

        async def on_continue(agent_state: AgentState) -> bool:
            message = agent_state.output.message
            episode.note_text(message.text)
            episode.close_turn(bool(message.tool_calls))
            return episode.ended is None

        agent = react(
            prompt=None,
            tools=tools,
            submit=AgentSubmit(tool=submit_tool, answer_only=True, keep_in_messages=True),
            on_continue=on_continue,
        )
        try:
            state = await as_solver(agent)(state, generate)
        finally:
            # Also when a limit of inspect's (messages, tokens, time) ends the sample.
            if episode.ended == "submit":
                episode.turns += 1  # react stops at a submit before on_continue sees it
            state.output.completion = episode.answer_text()
            state.store.set(_EPISODE, episode.record())
        return state

    return solve


def _score(instance: dict[str, Any], answers: list[str], interactive: bool) -> dict[str, Any]:
    """The score() result of ``answers``: pbebench's one grading path, which also grades
    each answer on behaviour (docs/metrics.md#behaviour). In interactive mode held-out pass is
    left out (None): the model may have probed those inputs, and the episode's grade
    (``Oracle.grade``, the same path) counts the unprobed ones. The held-out examples still
    bound the answers' strings and set the input space of recovered and behaviour, as in
    ``pbebench eval --interactive``'s table."""
    scored = _pbebench.score(instance, answers)
    return dict(scored, heldout_pass=None) if interactive else scored


def _value(scored: dict[str, Any]) -> dict[str, float]:
    """The figures of a score() result an epoch (or the reduced epochs) shows."""
    value = {
        "pass": float(scored["pass"]),
        "edit_sim": float(scored["edit_sim"]),
        "valid_rules": float(scored["valid_rules"]),
        "rules": float(scored["rules"]),
    }
    if scored["heldout_pass"] is not None:
        value["heldout_pass"] = float(scored["heldout_pass"])
    if scored.get("recovered") is not None:
        value["recovered"] = float(scored["recovered"])
    if scored.get("behaviour") is not None:
        value["behaviour"] = float(scored["behaviour"])
    return value


@score_reducer(name="pbebench")
def best_of_k():
    """The instance's score over its K epochs exactly as ``pbebench score`` computes it:
    the chosen sample (any passing one, else the highest Edit_Sim, earliest on ties) gives
    the figures, and the whole score() result goes to ``pbebench_metrics``."""

    def reduce(scores: list[Score]) -> Score:
        metadata = scores[0].metadata or {}
        instance = metadata["instance"]
        episodes = [(s.metadata or {}).get("episode") for s in scores]
        interactive = any(e is not None for e in episodes)
        answers = [s.answer or "" for s in scores]
        scored = _score(instance, answers, interactive)
        value = _value(scored)
        if interactive:
            value.pop("heldout_pass", None)
        return Score(
            value=value,
            answer=answers[scored["chosen"]] if scored["chosen"] is not None else None,
            metadata={"instance_score": scored, "episodes": [e for e in episodes if e]},
        )

    return reduce


# pbebench's aggregate figures under the names of its tables (`pbebench::COLUMNS`), by
# their key in results.json (and in its "intervals").
_FIGURES = (
    ("Pass@1", "pass_at_1"),
    ("best-of-K", "best_of_k"),
    ("Recovered@1", "recovered"),
    ("behaviour", "behaviour"),
    ("Edit_Sim", "edit_sim"),
    ("Valid_Rate", "valid_rate"),
    ("held-out pass", "heldout_pass"),
)


@metric(name="pbebench")
def pbebench_metrics():
    """The aggregate of ``pbebench score`` over the reduced samples: Pass@1, best-of-K,
    Recovered@1 and mean behaviour (over instances with a gold cascade), Edit_Sim,
    Valid_Rate, held-out pass, pass@k and recovered@k; in interactive mode also the mean probes
    per episode and held-out pass over unprobed held-out examples (over every episode, as
    ``pbebench eval --interactive`` reports it). Each of the first seven also comes with its
    standard error and 95% interval, as ``<figure> stderr``, ``<figure> 95% lo`` and
    ``<figure> 95% hi`` (Wilson's interval where each instance gives one 0/1 outcome, else
    the standard error of the per-instance means, clustered by instance).

    Samples reduced by another reducer than ``pbebench`` (``--epochs-reducer``) carry no
    instance score; their values are then averaged under their own keys (``pass``,
    ``edit_sim``, ...), which mean whatever that reducer made of them.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        reduced = [(s.score.metadata or {}).get("instance_score") for s in scores]
        if not scores or any(r is None for r in reduced):
            return _plain_means(scores)
        overall = _pbebench.summary(reduced)
        figures = {name: overall[key] for name, key in _FIGURES}
        for name, key in _FIGURES:
            interval = overall["intervals"].get(key)
            if interval is not None and figures[name] is not None:
                figures[f"{name} stderr"] = interval["se"]
                figures[f"{name} 95% lo"] = interval["lo"]
                figures[f"{name} 95% hi"] = interval["hi"]
        for k, value in overall["pass_at_k"].items():
            if k != "1":
                figures[f"pass@{k}"] = value
        for k, value in overall.get("recovered_at_k", {}).items():
            if k != "1":
                figures[f"recovered@{k}"] = value
        episodes = [e for s in scores for e in (s.score.metadata or {}).get("episodes", [])]
        if episodes:
            figures["probes"] = sum(e["probes_used"] for e in episodes) / len(episodes)
            heldout = [e["heldout_pass"] for e in episodes if e["heldout_pass"] is not None]
            figures["held-out pass"] = sum(heldout) / len(heldout) if heldout else None
        return {name: float(v) for name, v in figures.items() if v is not None}

    return compute


def _plain_means(scores: list[SampleScore]) -> dict[str, float]:
    keys: dict[str, list[float]] = {}
    for s in scores:
        for key, v in (s.score.value or {}).items():
            keys.setdefault(key, []).append(float(v))
    return {key: sum(vs) / len(vs) for key, vs in keys.items() if vs}


@scorer(metrics=[pbebench_metrics()])
def pbebench_scorer(interactive: bool = False):
    """pbebench's scoring path on the answer of one epoch; the task's ``pbebench`` reducer
    scores the K epochs of an instance together and ``pbebench_metrics`` aggregates."""

    async def score(state: TaskState, target: Target) -> Score:
        instance = state.metadata["instance"]
        episode = state.store.get(_EPISODE)
        if interactive and episode is None:
            raise RuntimeError(f"sample {state.sample_id}: the episode left no record")
        answer = state.output.completion or ""
        scored = _score(instance, [answer], episode is not None)
        value = _value(scored)
        if episode is not None:
            value["probes"] = float(episode["probes_used"])
            value.pop("heldout_pass", None)
            if episode["heldout_pass"] is not None:
                value["heldout_pass"] = float(episode["heldout_pass"])
        sample = scored["samples"][0]
        recovered = {True: "recovered, ", False: "not recovered, ", None: ""}[scored.get("recovered")]
        explanation = (
            f"{'passes' if scored['pass'] else 'fails'}: {recovered}Edit_Sim {scored['edit_sim']:.3f}, "
            f"{sample['reproduced']}/{len(instance['inputs'])} examples reproduced, "
            f"{scored['valid_rules']}/{scored['rules']} rules valid"
        )
        metadata: dict[str, Any] = {"instance": instance}
        if episode is not None:
            metadata["episode"] = episode
        return Score(value=value, answer=answer, explanation=explanation, metadata=metadata)

    return score


def _preset_task(preset: str):
    """The task ``pbebench/PRESET``: ``pbebench`` on that preset."""

    def make(**parameters: Any) -> Task:
        return pbebench.__wrapped__(dataset=preset, **parameters)

    make.__name__ = preset.replace("-", "_")
    make.__doc__ = f"PBEBench on the {preset} preset (the other parameters of pbebench.inspect_ai.pbebench)."
    return task(name=preset)(make)


lite = _preset_task("lite")
lite_moreeg = _preset_task("lite-moreeg")
lite_published = _preset_task("lite-published")
full = _preset_task("full")
full_25_30 = _preset_task("full-25-30")
