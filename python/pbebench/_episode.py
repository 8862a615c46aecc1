"""One interactive episode (docs/interactive.md), shared by every Python adapter of the
probing task (``pbebench.inspect_ai``'s interactive mode, ``pbebench.rl.ProbeEnv``), so
their rules, tool results and grades cannot drift apart.

The actions and their results are those of ``pbebench eval --interactive``
(crates/pbebench-eval/src/episode): the oracle is the core's sealed ``pbebench.Oracle``, a
tool's result is the JSON object the binary answers (``{"outputs", "budget_left"}``, the
test feedback, ``{"submitted", "rules"}``, or ``{"error", ...}`` worded as the binary
words it), and :func:`tool_text` writes it with the binary's bytes. No framework is
imported here.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pbebench as _pbebench

# The defaults of `pbebench eval --interactive`.
PROBE_BUDGET = 40
MAX_TURNS = 30
MAX_PROBE_LEN = _pbebench.DEFAULT_PROBE_LEN

RUN_HIDDEN, TEST_CASCADE, SUBMIT = "run_hidden", "test_cascade", "submit"

# The tool descriptions of `pbebench eval --interactive` (episode/prompt.rs).
RUN_HIDDEN_DOC = (
    "Run the hidden program on inputs of your choice; returns its outputs. "
    "Every input counts against the probe budget."
)
TEST_CASCADE_DOC = "Test a candidate cascade: which visible examples and probed inputs it gets wrong."
SUBMIT_DOC = "Submit your final cascade; this ends the task."
CASCADE_ARG = "the rules in the order they apply, each like \"replace('ab', 'c')\""
INPUTS_ARG = "the strings to run through the hidden program"

_NOT_A_CASCADE = "a cascade is a list of rules such as [\"replace('a', 'b')\"]"
_RULE_AT = re.compile(r"^\[(\d+)\]: ")


def interactive_prompt(
    instance: dict[str, Any], probe_budget: int, max_turns: int, max_probe_len: int = MAX_PROBE_LEN
) -> str:
    """The first message of an episode: the task, the tools, the budget and the limits (the
    text of `pbebench eval --interactive` with its default tool protocol)."""
    task = _pbebench.Oracle(instance, probe_budget, max_probe_len).task
    return task_prompt(task, probe_budget, max_turns)


def task_prompt(task: dict[str, Any], probe_budget: int, max_turns: int) -> str:
    """:func:`interactive_prompt` of an oracle's ``task``."""
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


def tool_text(result: dict[str, Any]) -> str:
    """A tool's result as `pbebench eval --interactive` sends it: compact JSON, keys sorted,
    non-ASCII letters as they are (serde_json's ``to_string``)."""
    return json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def for_model(error: Exception) -> str:
    """An oracle's error as the model reads it, without the binding's name of the method
    (``Oracle.read_cascade(): cascade[0]: …`` → ``cascade[0]: …``)."""
    text = str(error)
    head, sep, rest = text.partition("(): ")
    return rest if sep and head.startswith("Oracle.") else text


def _repr_list(items: list[str]) -> str:
    return "[" + ", ".join(repr(s) for s in items) + "]"


def read_cascade(tool: str, cascade: Any) -> tuple[list | None, str | None]:
    """A candidate cascade as the binary reads a tool call's ``cascade`` (actions.rs
    ``cascade_of``): a string is the text of a list, a list is read as the text of its JSON,
    anything else is refused. Returns (rules, None), or (None, the binary's message)."""
    if isinstance(cascade, (list, tuple)):
        try:
            text = json.dumps(cascade, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError):
            return None, f"{tool}: {_NOT_A_CASCADE}; nothing was done"
    elif isinstance(cascade, str):
        text = cascade
    else:
        return None, f"{tool}: {_NOT_A_CASCADE}; nothing was done"
    try:
        return _pbebench.Oracle.read_cascade(text), None
    except (ValueError, TypeError) as error:
        detail = for_model(error)
        # The binding names the argument ("cascade: …", "cascade[k]: …"); the binary says
        # "…" and "rule k+1: …".
        if detail.startswith("cascade"):
            rest = detail[len("cascade"):]
            at = _RULE_AT.match(rest)
            if at:
                detail = f"rule {int(at.group(1)) + 1}: {rest[at.end():]}"
            elif rest.startswith(": "):
                detail = rest[2:]
        return None, f"{tool}: {detail}; nothing was done"


def read_inputs(inputs: Any) -> tuple[list[str] | None, str | None]:
    """Probe inputs as the binary reads them (actions.rs ``probe``): a string is one input,
    a list must hold only strings. Returns (inputs, None), or (None, the binary's message)."""
    if isinstance(inputs, str):
        return [inputs], None
    if isinstance(inputs, (list, tuple)):
        if all(isinstance(i, str) for i in inputs):
            return list(inputs), None
        return None, "run_hidden's inputs must all be strings"
    return None, "run_hidden's inputs must be a list of strings"


class Episode:
    """One interactive episode: the core's oracle, the actions of `pbebench eval
    --interactive` with their results, and which cascade counts at the end (the last
    submitted, else the last tested, else the last ```python block written)."""

    def __init__(
        self,
        instance: dict[str, Any],
        probe_budget: int,
        max_turns: int,
        max_probe_len: int = MAX_PROBE_LEN,
    ):
        self.oracle = _pbebench.Oracle(instance, probe_budget, max_probe_len)
        self.probe_budget = probe_budget
        self.max_probe_len = max_probe_len
        self.max_turns = max_turns
        self.turns = 0
        self.ended: str | None = None
        self.submitted: list | None = None
        self.tested: list | None = None
        self.code_block: list | None = None
        # The actions that changed the oracle, in order, to rebuild it (pickling).
        self.log: list[tuple[str, Any]] = []

    def prompt(self) -> str:
        """The first message of the episode."""
        return task_prompt(self.oracle.task, self.probe_budget, self.max_turns)

    def end(self, reason: str) -> None:
        """Ends the episode (the first reason stays)."""
        self.ended = self.ended or reason

    def _closed(self) -> dict[str, Any] | None:
        if self.ended:
            return {"error": f"ignored: the episode has ended ({self.ended})"}
        return None

    def probe(self, inputs: Any) -> dict[str, Any]:
        """run_hidden: ``{"outputs", "budget_left"}``, or ``{"error", "budget_left"}`` for a
        refusal (asking past the budget also ends the episode), or ``{"error"}`` for inputs
        that are no list of strings."""
        closed = self._closed()
        if closed:
            return closed
        read, problem = read_inputs(inputs)
        if problem:
            return {"error": problem}
        try:
            outputs = self.oracle.run_hidden(read)
        except _pbebench.OverBudget as refusal:
            self.end("budget")
            return {"error": str(refusal), "budget_left": self.oracle.budget_left}
        except _pbebench.ProbeRefused as refusal:
            return {"error": for_model(refusal), "budget_left": self.oracle.budget_left}
        self.log.append((RUN_HIDDEN, read))
        return {"outputs": outputs, "budget_left": self.oracle.budget_left}

    def test(self, cascade: Any) -> dict[str, Any]:
        """test_cascade: the oracle's feedback (``checked``, ``passed``, ``wrong``,
        ``rule_problems``), or ``{"error"}`` for an unreadable cascade."""
        closed = self._closed()
        if closed:
            return closed
        rules, problem = read_cascade(TEST_CASCADE, cascade)
        if problem:
            return {"error": problem}
        feedback = self.oracle.test_cascade(rules)
        feedback.pop("all_pass", None)  # the binding's addition; the binary sends none
        self.tested = rules
        self.log.append((TEST_CASCADE, rules))
        return feedback

    def submit(self, cascade: Any) -> dict[str, Any]:
        """submit: ends the episode with a readable cascade, ``{"submitted": true,
        "rules"}``; ``{"error"}`` for an unreadable one (the episode goes on)."""
        closed = self._closed()
        if closed:
            return closed
        rules, problem = read_cascade(SUBMIT, cascade)
        if problem:
            return {"error": problem}
        self.submitted = rules
        self.end("submit")
        return {"submitted": True, "rules": len(rules)}

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
        """The ended episode's record and grade (``Oracle.grade`` of the final cascade, the
        one grading path). Its end reason is that of ``pbebench eval --interactive``, or
        "limit" when the framework ended the agent (one of its limits)."""
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

    def state(self) -> dict[str, Any]:
        """What the episode has done, in plain data (JSON- and pickle-safe): with the
        instance and the settings, :meth:`restore` rebuilds the same episode. Environments
        keep this instead of the oracle, which neither pickles nor crosses processes."""
        return {
            "log": [[tool, arg] for tool, arg in self.log],
            "submitted": self.submitted,
            "tested": self.tested,
            "code_block": self.code_block,
            "ended": self.ended,
            "turns": self.turns,
        }

    @classmethod
    def restore(
        cls,
        instance: dict[str, Any],
        probe_budget: int,
        max_turns: int,
        max_probe_len: int,
        state: dict[str, Any],
    ) -> Episode:
        """The episode that :meth:`state` described: a new oracle, the logged actions run
        again on it (the same probes, budget and tests), and the answers kept."""
        episode = cls(instance, probe_budget, max_turns, max_probe_len)
        episode.replay([(tool, arg) for tool, arg in state["log"]])
        episode.submitted, episode.tested = state["submitted"], state["tested"]
        episode.code_block = state.get("code_block")
        episode.ended, episode.turns = state["ended"], state["turns"]
        return episode

    def replay(self, log: list[tuple[str, Any]]) -> None:
        """Runs logged actions again on this (fresh) episode's oracle: the same probes,
        budget and tests as the episode that wrote the log."""
        for tool, arg in log:
            if tool == RUN_HIDDEN:
                self.oracle.run_hidden(arg)
            else:
                self.oracle.test_cascade(arg)
            self.log.append((tool, arg))
