"""PBEBench as a reasoning-gym dataset, with a curriculum over ``pbebench.rl``'s attributes.

Importing this module registers the dataset "pbebench" with reasoning-gym::

    import reasoning_gym
    import pbebench.reasoning_gym  # registers "pbebench"

    data = reasoning_gym.create_dataset("pbebench", size=64, seed=0, cascade_len=3)
    entry = data[0]                       # question, answer, metadata
    data.score_answer(model_answer, entry)

    curriculum = reasoning_gym.factory.create_curriculum("pbebench")
    curriculum.increment_attr_level("cascade_len")
    config = curriculum.generate_configuration({"seed": 0, "size": 64})

The configuration's fields are the values of ``pbebench.rl.ATTRIBUTES`` (one of each
attribute's levels; ``validate()`` refuses any other value, naming the field), and entry
``idx`` is ``pbebench.rl.Curriculum(seed, levels).instance(idx)``: the same seed and levels
give the same instances here as in ``ProbeEnv`` and every other adapter. The question is the
instance's prompt (``pbebench.prompt``, the single-turn task; the probing task needs tools,
which reasoning-gym's datasets do not have), the answer the gold cascade in the released
answer format, and ``score_answer`` the behavioural reward (``pbebench.reward(...,
kind="behaviour")``; ``reward="edit_sim"`` for the Edit_Sim one), 0.0 for no answer, never
None. The entry's metadata holds the instance (gold included), as reasoning-gym's entries
hold what their scorer needs: give the model the question only.

Needs reasoning-gym (``pip install reasoning-gym``); pbebench itself does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reasoning_gym.coaching import BaseCurriculum, ScalarAttributeDefinition
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import DATASETS, register_dataset

import pbebench
from pbebench import rl

__all__ = ["DATASET_NAME", "PbebenchConfig", "PbebenchCurriculum", "PbebenchDataset"]

DATASET_NAME = "pbebench"

_DEFAULTS = {name: levels[0] for name, levels in rl.ATTRIBUTES.items()}
_REWARDS = ("behaviour", "edit_sim")


@dataclass
class PbebenchConfig:
    """A reasoning-gym configuration: one value of each curriculum attribute (the easiest by
    default), the reward, the seed and the size."""

    cascade_len: int | str = _DEFAULTS["cascade_len"]
    examples: int = _DEFAULTS["examples"]
    alphabet: str = _DEFAULTS["alphabet"]
    relations: int = _DEFAULTS["relations"]
    probe_budget: int = _DEFAULTS["probe_budget"]
    vetted: bool = _DEFAULTS["vetted"]
    reward: str = "behaviour"
    seed: int | None = None
    size: int = 500

    def levels(self) -> dict[str, int]:
        """The level of each attribute's value."""
        return {name: rl.ATTRIBUTES[name].index(getattr(self, name)) for name in rl.ATTRIBUTES}

    def validate(self) -> None:
        """Refuses a value that is no level of its attribute, an unknown reward, a negative
        size: ValueError naming the field and the values it takes."""
        for name, levels in rl.ATTRIBUTES.items():
            value = getattr(self, name)
            if not any(value == level and type(value) is type(level) for level in levels):
                raise ValueError(
                    f"PbebenchConfig: {name}={value!r} is no level of {name}; its values are "
                    f"{', '.join(map(repr, levels))}"
                )
        if self.reward not in _REWARDS:
            raise ValueError(f"PbebenchConfig: reward={self.reward!r} is unknown; use 'behaviour' or 'edit_sim'")
        if not isinstance(self.size, int) or self.size < 0:
            raise ValueError(f"PbebenchConfig: size must be an int of at least 0, got {self.size!r}")
        if self.seed is not None and (not isinstance(self.seed, int) or self.seed < 0):
            raise ValueError(f"PbebenchConfig: seed must be an int of at least 0 or None, got {self.seed!r}")


class PbebenchDataset(ProceduralDataset):
    """PBEBench instances at the configuration's levels; entry ``idx`` is
    ``pbebench.rl.Curriculum(seed, levels).instance(idx)``."""

    def __init__(self, config: PbebenchConfig):
        super().__init__(config=config, seed=config.seed, size=config.size)
        self._curriculum = rl.Curriculum(seed=self.seed, levels=config.levels())

    def __getitem__(self, idx: int) -> dict[str, Any]:
        instance = self._curriculum.instance(idx)
        return {
            "question": pbebench.prompt(instance),
            "answer": pbebench.render_answer(instance["cascade"]),
            "metadata": {
                "source_dataset": DATASET_NAME,
                "source_index": idx,
                "instance": instance,
                "difficulty": dict(self._curriculum.parameters()),
            },
        }

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """The reward of ``answer`` (a response with its cascade in a fenced code block, as
        the question asks): the behavioural one, or Edit_Sim with ``reward="edit_sim"``;
        0.0 for no answer."""
        if not isinstance(answer, str) or not answer:
            return 0.0
        instance = entry["metadata"]["instance"]
        kind = "behaviour" if self.config.reward == "behaviour" else "edit_sim"
        return pbebench.reward(instance, [answer], kind=kind)[0]


class PbebenchCurriculum(BaseCurriculum):
    """reasoning-gym's curriculum over ``pbebench.rl.ATTRIBUTES``: one scalar attribute each,
    its levels those of ``pbebench.rl.Curriculum``."""

    def __init__(self) -> None:
        super().__init__(PbebenchCurriculum.__name__, PbebenchConfig)
        self._define_attributes(
            *(
                ScalarAttributeDefinition(name=name, field_name=name, levels=list(levels), description=_DESCRIPTIONS[name])
                for name, levels in rl.ATTRIBUTES.items()
            )
        )


_DESCRIPTIONS = {
    "cascade_len": "rules in the hidden cascade",
    "examples": "examples shown per instance",
    "alphabet": "the letters of the strings",
    "relations": "the most feeding/bleeding relation bits of the instance's category",
    "probe_budget": "probe inputs of the interactive episode",
    "vetted": "vetted instances only",
}

if DATASET_NAME not in DATASETS:
    register_dataset(DATASET_NAME, PbebenchDataset, PbebenchConfig, PbebenchCurriculum)
