"""pbebench in reasoning-gym, through reasoning-gym's own factory: create_dataset and
create_curriculum find it once pbebench.reasoning_gym is imported, entries are those of
pbebench.rl.Curriculum, and score_answer is the behavioural reward.

Skipped without reasoning-gym (pip install reasoning-gym), except in CI, where
PBEBENCH_REQUIRE_FRAMEWORKS=1 turns the skip into a failure.
"""

import pytest
from conftest import framework, released

reasoning_gym = framework("reasoning_gym", "reasoning-gym")

import pbebench  # noqa: E402
import pbebench.reasoning_gym as pbe_rg  # noqa: E402
from pbebench import rl  # noqa: E402


def test_create_dataset_finds_it_and_its_entries_are_the_curriculums():
    data = reasoning_gym.create_dataset("pbebench", size=4, seed=11, cascade_len=3, examples=5)
    assert len(data) == 4
    curriculum = rl.Curriculum(seed=11, levels={"cascade_len": 1, "examples": 1})
    for k, entry in enumerate(data):
        inst = curriculum.instance(k)
        assert entry["metadata"]["instance"] == inst
        assert entry["question"] == pbebench.prompt(inst)
        assert len(inst["cascade"]) == 3 and len(inst["inputs"]) == 5
        assert data.score_answer(entry["answer"], entry) == 1.0
        assert data.score_answer(released(inst["cascade"][:1]), entry) == pbebench.reward(
            inst, [released(inst["cascade"][:1])], kind="behaviour")[0]
        assert data.score_answer(None, entry) == 0.0 and data.score_answer("", entry) == 0.0
    # The same seed gives the same entries, one at a time or in another dataset object.
    again = reasoning_gym.create_dataset("pbebench", size=4, seed=11, cascade_len=3, examples=5)
    assert again[2] == data[2]


def test_the_edit_sim_reward():
    data = reasoning_gym.create_dataset("pbebench", size=2, seed=1, reward="edit_sim")
    entry = data[1]
    inst = entry["metadata"]["instance"]
    partial = released(inst["cascade"][:1])
    assert data.score_answer(partial, entry) == pbebench.reward(inst, [partial])[0]


def test_the_curriculum_is_reasoning_gyms_over_the_same_levels():
    curriculum = reasoning_gym.factory.create_curriculum("pbebench")
    assert isinstance(curriculum, reasoning_gym.coaching.BaseCurriculum)
    assert set(curriculum.attributes) == set(rl.ATTRIBUTES)
    assert curriculum.increment_attr_level("cascade_len")
    assert curriculum.increment_attr_level("probe_budget")
    config = curriculum.generate_configuration({"seed": 5, "size": 3})
    assert (config.cascade_len, config.probe_budget, config.examples) == (3, 20, 10)
    data = pbe_rg.PbebenchDataset(config)
    ours = rl.Curriculum(seed=5, levels={"cascade_len": 1, "probe_budget": 1})
    assert [e["metadata"]["instance"] for e in data] == [ours.instance(k) for k in range(3)]
    curriculum.set_global_level(1)
    assert curriculum.get_attr_value("vetted") is True
    vetted = pbe_rg.PbebenchDataset(curriculum.generate_configuration({"seed": 5, "size": 2}))
    assert [e["metadata"]["instance"] for e in vetted] == [
        rl.Curriculum(seed=5, levels=dict.fromkeys(rl.ATTRIBUTES, 1)).instance(k) for k in range(2)
    ]
    assert all("repair" in e["metadata"]["instance"] for e in vetted)
    with pytest.raises(ValueError, match="Invalid level: 9 for attribute 'PbebenchCurriculum.examples'"):
        curriculum.set_attr_level("examples", 9)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"cascade_len": 7}, "cascade_len=7 is no level of cascade_len; its values are 2, 3, 4, 5, '6..10', '11..20'"),
        ({"alphabet": "greek"}, "alphabet='greek' is no level of alphabet"),
        ({"examples": True}, "examples=True is no level of examples"),
        ({"reward": "pass"}, "reward='pass' is unknown"),
        ({"size": -1}, "size must be an int of at least 0"),
    ],
)
def test_bad_configurations_name_the_field(override, message):
    with pytest.raises(ValueError, match=message.replace("(", "\\(").replace(".", "\\.")):
        reasoning_gym.create_dataset("pbebench", **override)
