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
        mean,
        metric,
        score_reducer,
        scorer,
        stderr,
    )
    from inspect_ai.solver import Generate, TaskState, generate, solver
    from inspect_ai.tool import ToolDef, ToolError
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "pbebench.inspect_ai needs inspect_ai: pip install 'pbebench[inspect]' "
        "(or pip install inspect_ai)"
    ) from error

import pbebench as _pbebench
from pbebench import _episode
from pbebench._arguments import require as _require

PRESETS = ("lite", "lite-published", "lite-moreeg", "full", "full-25-30")
"""The presets ``dataset`` may name (the paper's datasets)."""

MODES = ("static", "interactive")
"""``static``: one prompt, one answer. ``interactive``: probe the sealed cascade."""

# The defaults of `pbebench eval --interactive`.
PROBE_BUDGET = _episode.PROBE_BUDGET
MAX_TURNS = _episode.MAX_TURNS
MAX_PROBE_LEN = _episode.MAX_PROBE_LEN

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


interactive_prompt = _episode.interactive_prompt
_for_model = _episode.for_model


class Episode(_episode.Episode):
    """The shared episode (``pbebench._episode``) as inspect's tools: a result with an
    ``error`` is a tool error, worded as ``pbebench eval --interactive`` words it."""

    def run_hidden(self, inputs: list[str]) -> str:
        """The tool run_hidden: the oracle's outputs and the budget left, as JSON; a refusal
        is a tool error (asking past the budget also ends the episode)."""
        result = self.probe(inputs)
        if "error" in result:
            left = f" (budget left: {result['budget_left']})" if "budget_left" in result else ""
            raise ToolError(result["error"] + left)
        return _episode.tool_text(result)

    def test_cascade(self, cascade: list[str]) -> str:
        """The tool test_cascade: the oracle's feedback on a candidate, as JSON."""
        result = self.test(cascade)
        if "error" in result:
            raise ToolError(result["error"])
        return _episode.tool_text(result)

    def submit(self, cascade: list[str]) -> str:  # type: ignore[override]
        """The submit tool: ends the episode with a readable cascade; returns its answer."""
        result = super().submit(cascade)
        if "error" in result:
            raise ToolError(result["error"])
        return self.answer_text()


_CASCADE_ARG = _episode.CASCADE_ARG


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
            description=_episode.RUN_HIDDEN_DOC,
            parameters={"inputs": _episode.INPUTS_ARG},
        ),
        ToolDef(
            test_cascade,
            name="test_cascade",
            description=_episode.TEST_CASCADE_DOC,
            parameters={"cascade": _CASCADE_ARG},
        ),
    ]
    submit_tool = ToolDef(
        submit,
        name="submit",
        description=_episode.SUBMIT_DOC,
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


# --- the rule-reordering task (docs/reorder.md) -----------------------------------------


def load_problems(dataset: str, seed: int = 0, size: int | None = None) -> list[dict[str, Any]]:
    """The reordering problems of ``dataset``: a reordering set file (pbebench's
    ``pbebench reorder`` lines or the authors' reordering file), or a preset or synthesis
    dataset file made into problems with ``seed`` (``pbebench reorder --seed``); instances
    that give no problem (every order valid, ...) are left out, as ``pbebench reorder``
    leaves them out."""
    import json

    path = Path(str(dataset))
    if path.is_file():
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        first = json.loads(lines[0]) if lines else {}
        if isinstance(first, dict) and (
            {"scrambled", "order"} <= first.keys() or {"permuted_programs", "ground_truth_order"} <= first.keys()
        ):
            if size is not None:
                raise ValueError("size applies to presets; a dataset file is used whole")
            problems = [json.loads(line) for line in lines]
            for k, problem in enumerate(problems):
                try:
                    _pbebench.reorder_prompt(problem)
                except ValueError as error:
                    raise ValueError(f"{path}:{k + 1}: {error}") from None
            return problems
    instances = load_instances(dataset, seed=seed, size=size)
    problems = []
    for instance in instances:
        try:
            problems.append(_pbebench.reorder(instance, seed=seed))
        except ValueError:
            continue
    return problems


@task(name="reorder")
def reorder(dataset: str = "lite", seed: int = 0, size: int | None = None, epochs: int = 1) -> Task:
    """The rule-reordering task: the gold rules of an instance in a scrambled order; the
    model answers the order (a JSON array of rule indices) that maps every input to its
    output.

    Args:
        dataset: a reordering set file (``pbebench reorder``'s, or the authors' reordering
            file), a dataset file, or a preset (generated with ``seed`` and ``size``) made
            into problems with ``seed``.
        seed: the generation seed of a preset and the scrambling seed of a dataset.
        size: instances of a preset.
        epochs: samples per problem; each is scored on its own, the figures are means.
    """
    _require("reorder", "dataset", dataset, (str, Path), "a preset name or a dataset file")
    _require("reorder", "seed", seed, (int,), "an int")
    _require("reorder", "size", size, (int, type(None)), "an int or None")
    _require("reorder", "epochs", epochs, (int,), "an int")
    problems = load_problems(dataset, seed=seed, size=size)
    if not problems:
        raise ValueError(f"reorder(): dataset: {dataset!r} gives no reordering problem")
    samples = [
        Sample(
            id=p.get("id"),
            input=_pbebench.reorder_prompt(p),
            target=str(p.get("order", p.get("ground_truth_order"))),
            metadata={
                "problem": p,
                "cascade_len": p.get("cascade_len", p.get("cascade_length")),
                "category": p.get("category", p.get("bfcc_category")),
            },
        )
        for p in problems
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"reorder:{dataset}"),
        solver=generate(),
        scorer=reorder_scorer(),
        epochs=epochs,
    )


@scorer(metrics={key: [mean(), stderr()] for key in ("accuracy", "exact", "valid")})
def reorder_scorer():
    """``pbebench.score_order`` on one answer: accuracy (the order reproduces every
    example), exact (the gold order) and valid (a permutation of the rules' indices), as
    ``pbebench score`` grades a reordering set; a malformed answer is invalid, never an
    error."""

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion or ""
        graded = _pbebench.score_order(state.metadata["problem"], [answer])
        sample = graded["samples"][0]
        value = {key: float(sample[key]) for key in ("accurate", "exact", "valid")}
        value["accuracy"] = value.pop("accurate")
        reason = sample.get("problem", {}).get("kind") if not sample["valid"] else None
        explanation = (
            f"invalid: {reason}" if reason else
            f"order {sample['order']}: {'accurate' if sample['accurate'] else 'not accurate'}"
            f"{', exact' if sample['exact'] else ''}"
        )
        return Score(value=value, answer=answer, explanation=explanation)

    return score
