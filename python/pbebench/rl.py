"""The probing task as a reinforcement-learning environment, and a curriculum.

* :class:`ProbeEnv`: one episode of ``pbebench eval --interactive`` per ``reset(**row)``,
  in the shape of TRL's ``GRPOTrainer(environment_factory=ProbeEnv)``: ``reset`` returns
  the first message, the public methods ``run_hidden``, ``test_cascade`` and ``submit``
  are the tools (typed, with docstrings), and ``get_reward()`` is the behavioural reward of
  the submitted, else the last tested, cascade. The rules, the tool results and the grade
  are those of the shared episode (``pbebench._episode``), which inspect_ai's interactive
  mode also uses, over the core's sealed ``pbebench.Oracle``.
* :class:`Curriculum`: difficulty levels over generation parameters and the probe budget;
  ``instance(index)`` is a pure function of (seed, levels, index).

Pure Python over the extension: no framework is imported.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

import pbebench as _pbebench
from pbebench import _episode
from pbebench._arguments import require as _require

__all__ = ["ATTRIBUTES", "Curriculum", "ProbeEnv"]


def _count(func: str, name: str, value: Any, low: int = 0) -> int:
    _require(func, name, value, (int,), "an int")
    if value < low:
        raise ValueError(f"{func}(): {name} must be at least {low}, got {value}")
    return value


class ProbeEnv:
    """The probing task as an environment (TRL's ``environment_factory``).

    ``reset(**row)`` starts an episode on a dataset row: an instance dict with its gold
    ``cascade`` (what ``pbebench.generate`` or ``Curriculum.instance`` gives, or a dataset
    row with those columns; other columns are ignored), or a row whose ``instance`` column
    holds one. A row's ``probe_budget``, ``max_turns`` and ``max_probe_len`` override the
    constructor's. The tools answer as ``pbebench eval --interactive`` answers a tool call,
    with the same JSON text; a call with arguments of the wrong type gets an error message,
    never an exception.

    probe_budget: probe inputs per episode (default 40, as ``pbebench eval``).
    max_turns: the turn limit stated in the first message (default 30). The environment
        sees tool calls, not model replies: set the trainer's limit on tool-calling
        iterations to match it.
    max_probe_len: the longest probe input (default 32, ``--max-probe-len``).

    The gold cascade lives only in the episode's ``pbebench.Oracle``, which never returns
    it; to survive pickling, the row is also kept compressed (a pickle of an environment
    mid-episode holds the row, as the dataset does). After ``get_reward()``,
    ``last_grade`` holds the grade for logging: ``reward``, ``pass``, ``recovered``,
    ``behaviour``, ``heldout_pass``, ``probes_used``, ``tests``, ``final_source`` and
    ``end_reason``.
    """

    def __init__(
        self,
        probe_budget: int = _episode.PROBE_BUDGET,
        max_turns: int = _episode.MAX_TURNS,
        max_probe_len: int = _episode.MAX_PROBE_LEN,
    ) -> None:
        self._defaults = {
            "probe_budget": _count("ProbeEnv", "probe_budget", probe_budget),
            "max_turns": _count("ProbeEnv", "max_turns", max_turns, 1),
            "max_probe_len": _count("ProbeEnv", "max_probe_len", max_probe_len, 1),
        }
        self._episode: _episode.Episode | None = None
        self._sealed: bytes | None = None
        self._settings: dict[str, int] = {}
        self.last_grade: dict[str, Any] | None = None

    def reset(self, **row: Any) -> str:
        """Starts an episode on ``row`` and returns its first message (the task, the tools,
        the budget and the limits, the text ``pbebench eval --interactive`` sends)."""
        instance = row.get("instance", row)
        if not isinstance(instance, dict):
            raise TypeError(
                f"ProbeEnv.reset(): row['instance'] must be an instance dict, not {type(instance).__name__}"
            )
        if instance.get("cascade") is None:
            raise ValueError(
                "ProbeEnv.reset(): the row has no gold cascade (no 'cascade' column): the probing "
                "task runs the hidden cascade, so keep the 'cascade' column in the dataset "
                "(pairs of real data, which have none, cannot be probed)"
            )
        settings = dict(self._defaults)
        for name, low in (("probe_budget", 0), ("max_turns", 1), ("max_probe_len", 1)):
            if row.get(name) is not None:
                settings[name] = _count("ProbeEnv.reset", f"row[{name!r}]", row[name], low)
        episode = _episode.Episode(
            instance, settings["probe_budget"], settings["max_turns"], settings["max_probe_len"]
        )
        self._episode, self._settings, self.last_grade = episode, settings, None
        self._sealed = zlib.compress(json.dumps(instance).encode())
        return episode.prompt()

    def _open(self) -> _episode.Episode:
        if self._episode is None:
            raise RuntimeError("ProbeEnv: no episode: call reset(**row) first")
        return self._episode

    def run_hidden(self, inputs: list[str]) -> str:
        return _episode.tool_text(self._open().probe(inputs))

    def test_cascade(self, cascade: list[str]) -> str:
        return _episode.tool_text(self._open().test(cascade))

    def submit(self, cascade: list[str]) -> str:
        return _episode.tool_text(self._open().submit(cascade))

    run_hidden.__doc__ = f"""{_episode.RUN_HIDDEN_DOC}

        Args:
            inputs: {_episode.INPUTS_ARG}
        """
    test_cascade.__doc__ = f"""{_episode.TEST_CASCADE_DOC}

        Args:
            cascade: {_episode.CASCADE_ARG}
        """
    submit.__doc__ = f"""{_episode.SUBMIT_DOC}

        Args:
            cascade: {_episode.CASCADE_ARG}
        """

    def get_reward(self) -> float:
        """The behavioural reward of the episode: the ``behaviour`` grade (docs/metrics.md)
        of the submitted cascade, else the last tested one, else the identity; 0.0 when
        the exact comparison cannot decide (as ``pbebench.reward(kind="behaviour")``
        counts it). Never None. Sets ``last_grade``."""
        episode = self._open()
        cascade, source = episode.final()
        grade = episode.oracle.grade(cascade or [])
        reward = float(grade["behaviour"]) if grade["behaviour"] is not None else 0.0
        self.last_grade = {
            "reward": reward,
            "pass": grade["pass"],
            "recovered": grade["recovered"],
            "behaviour": grade["behaviour"],
            "heldout_pass": grade["heldout_pass"],
            "probes_used": episode.oracle.probes_used,
            "tests": episode.oracle.tests_run,
            "final_source": source,
            "end_reason": episode.ended,
        }
        return reward

    def __getstate__(self) -> dict[str, Any]:
        episode = self._episode
        return {
            "defaults": self._defaults,
            "settings": self._settings,
            "sealed": self._sealed,
            "last_grade": self.last_grade,
            "episode": None if episode is None else episode.state(),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._defaults = state["defaults"]
        self._settings = state["settings"]
        self._sealed = state["sealed"]
        self.last_grade = state["last_grade"]
        self._episode = None
        saved = state["episode"]
        if saved is not None and self._sealed is not None:
            instance = json.loads(zlib.decompress(self._sealed))
            s = self._settings
            self._episode = _episode.Episode.restore(
                instance, s["probe_budget"], s["max_turns"], s["max_probe_len"], saved
            )

    def __repr__(self) -> str:
        if self._episode is None:
            return "ProbeEnv(no episode)"
        o = self._episode.oracle
        return f"ProbeEnv(id={o.task['id']!r}, probes_used={o.probes_used}, ended={self._episode.ended!r})"


#: The curriculum's attributes, each with its levels from easiest to hardest. A level's
#: value is a ``pbebench.generate`` override (``cascade_len``, ``examples``, ``alphabet``),
#: the most relation bits an instance's category may have (``relations``: 0 is "0000", no
#: rule feeds or bleeds another; 4 any; where the generator reaches no such category for
#: the cascade length, the fewest bits it reached), the episode's ``probe_budget``, or ``vetted``
#: (True: only instances that ``pbebench.vet`` keeps, see ``Curriculum.instance``).
ATTRIBUTES: dict[str, tuple[Any, ...]] = {
    "cascade_len": (2, 3, 4, 5, "6..10", "11..20"),
    "examples": (10, 5, 3),
    "alphabet": ("lite", "full"),
    "relations": (0, 1, 2, 4),
    "probe_budget": (40, 20, 10, 5),
    "vetted": (False, True),
}

# Attempts per category quota before the generator fills it with any category: low enough
# that a batch costs well under a second (debug build) when some category is out of reach.
_PATIENCE = 200

# Draws of a vetted level's instance before giving up (the full-vetted preset's fresh
# instances per slot).
_VET_DRAWS = 32
# The most examples vetting may bring an instance to (the full-vetted preset's cap). At 12,
# lite-vetted's, the easiest level (10 examples to start with) kept 4 of 16 draws; at 70,
# 14 of 16, adding 0-15 examples.
_VET_CAP = 70

class Curriculum:
    """Difficulty levels for the probing task, and the instances of the current level.

    seed: the curriculum's seed; ``instance(index)`` is a pure function of (seed, the
        levels, index), so every member of a GRPO group (the same index) sees the same
        task, in every process.
    levels: the starting level of each attribute by name (default 0, the easiest).

    The attributes and their levels are in ``ATTRIBUTES``: ``cascade_len``, ``examples``,
    ``alphabet``, ``relations`` (the most feeding/bleeding bits of the instance's
    category), ``probe_budget`` and ``vetted`` (level 1: only instances the vetting loop
    keeps, with its counterexamples among their examples).
    """

    def __init__(self, seed: int = 0, levels: dict[str, int] | None = None) -> None:
        self.seed = _count("Curriculum", "seed", seed)
        self.levels = {name: 0 for name in ATTRIBUTES}
        for name, level in (levels or {}).items():
            self.set_level(level, name)

    def _attribute(self, func: str, attribute: Any) -> str:
        _require(func, "attribute", attribute, (str,), "an attribute name")
        if attribute not in ATTRIBUTES:
            raise ValueError(
                f"{func}(): attribute {attribute!r} is unknown; the attributes are {', '.join(ATTRIBUTES)}"
            )
        return attribute

    def set_level(self, level: int, attribute: str | None = None) -> None:
        """Sets one attribute's level, or with no attribute every attribute's (each at most
        its hardest level). An unknown attribute or level raises ValueError naming it."""
        _require("Curriculum.set_level", "level", level, (int,), "an int")
        names = list(ATTRIBUTES) if attribute is None else [self._attribute("Curriculum.set_level", attribute)]
        for name in names:
            top = len(ATTRIBUTES[name]) - 1
            value = min(level, top) if attribute is None else level
            if not 0 <= value <= top:
                raise ValueError(
                    f"Curriculum.set_level(): level {level} of {name} is unknown; its levels are 0 to {top}"
                )
        for name in names:
            self.levels[name] = min(level, len(ATTRIBUTES[name]) - 1) if attribute is None else level

    def increment(self, attribute: str | None = None) -> bool:
        """One level harder: the attribute, or every attribute not yet at its hardest.
        Returns whether any level changed."""
        return self._step("Curriculum.increment", attribute, +1)

    def decrement(self, attribute: str | None = None) -> bool:
        """One level easier: the attribute, or every attribute not yet at its easiest.
        Returns whether any level changed."""
        return self._step("Curriculum.decrement", attribute, -1)

    def _step(self, func: str, attribute: str | None, step: int) -> bool:
        names = list(ATTRIBUTES) if attribute is None else [self._attribute(func, attribute)]
        changed = False
        for name in names:
            level = self.levels[name] + step
            if 0 <= level < len(ATTRIBUTES[name]):
                self.levels[name] = level
                changed = True
        return changed

    def parameters(self) -> dict[str, Any]:
        """The value of each attribute at its current level."""
        return {name: ATTRIBUTES[name][level] for name, level in self.levels.items()}

    def instance(self, index: int) -> dict[str, Any]:
        """The instance ``index`` of the current levels: an instance dict (with its gold
        cascade) and the episode's ``probe_budget``, a row for ``ProbeEnv.reset``. The
        same (seed, levels, index) give the same dict.

        At vetted level 1 the drawn instance goes through ``pbebench.vet`` (the default
        panel, at most 70 examples as in the full-vetted preset), and is returned with the
        counterexamples vetting added and its ``repair`` record. One it does not keep is
        replaced by a fresh draw of the same index, up to 32 draws; when none is kept,
        RuntimeError says so with the last reason. Vetting costs solver searches: about
        a tenth of a second an instance at lengths up to 5, seconds to minutes at 11-20
        (docs/reward-design.md).
        """
        _count("Curriculum.instance", "index", index)
        p = self.parameters()
        if not p["vetted"]:
            return dict(self._draw(p, index, 0), probe_budget=p["probe_budget"])
        reason = None
        for attempt in range(_VET_DRAWS):
            kept, reason = _pbebench.vet(self._draw(p, index, attempt), max_examples=_VET_CAP, seed=self.seed)
            if kept is not None:
                return dict(kept, probe_budget=p["probe_budget"])
        raise RuntimeError(
            f"Curriculum.instance({index}): vetting kept none of {_VET_DRAWS} draws at levels "
            f"{self.levels}; the last: {reason}"
        )

    def _draw(self, p: dict[str, Any], index: int, attempt: int) -> dict[str, Any]:
        """Draw ``attempt`` of instance ``index`` at parameters ``p`` (attempt 0 is the
        instance of an unvetted level)."""
        parts: list[Any] = [self.seed, sorted(self.levels.items()), index]
        if attempt:
            parts.append(attempt)
        draw = hashlib.blake2b(json.dumps(parts).encode(), digest_size=24, person=b"pbebench-rl").digest()
        seed = int.from_bytes(draw[:8], "little") >> 1
        pick, choose = int.from_bytes(draw[8:16], "little"), int.from_bytes(draw[16:], "little")
        low, _, high = str(p["cascade_len"]).partition("..")
        lengths = range(int(low), int(high or low) + 1)
        length = lengths[pick % len(lengths)]
        # Under a relation bound, a batch balanced by category (the generator seeks each of
        # the 16 categories, for a bounded number of attempts), of which the bound keeps
        # some and the draw picks one; when the generator reached no category within the
        # bound (long cascades rarely leave their rules independent), the ones with the
        # fewest relation bits it reached. Without a bound, one instance.
        bounded = p["relations"] < 4
        batch = _pbebench.generate(
            "lite",
            seed=seed,
            size=16 if bounded else 1,
            cascade_len=length,
            examples=p["examples"],
            alphabet=p["alphabet"],
            max_rules=max(5, length),
            balance="category" if bounded else "length",
            patience=_PATIENCE,
        )
        batch = list(batch)
        bound = max(p["relations"], min(inst["category"].count("1") for inst in batch))
        allowed = sorted(
            (inst for inst in batch if inst["category"].count("1") <= bound),
            key=lambda inst: inst["category"],
        )
        return allowed[choose % len(allowed)]

    def __repr__(self) -> str:
        return f"Curriculum(seed={self.seed}, levels={self.levels})"
