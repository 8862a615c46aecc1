"""The one check of every instance read, and the bound on `apply`: Python raises an
exception naming the argument and the field, where it once aborted the interpreter or
graded against a gold that fails its own examples."""

import json
import re

import pytest

import pbebench

# Gold: a→"" maps "ab" to "b".
INSTANCE = {
    "id": "x",
    "inputs": ["ab"],
    "outputs": ["b"],
    "cascade": [["a", ""]],
    "cascade_len": 1,
    "max_rules": 2,
    "max_rule_len": 1,
    "alphabet": "ab",
}
ANSWER = '```python\n["replace(\'a\', \'\')"]\n```'

BAD = [
    ({"max_rule_len": 2**64 - 1}, "max_rule_len is 18446744073709551615, more than the limit of 32"),
    ({"max_rules": 10**8}, "max_rules is 100000000, more than the limit of 1000"),
    ({"cascade_len": 2**63}, "cascade_len is 9223372036854775808, more than the 100"),
    ({"inputs": ["a" * 1001], "outputs": ["b"]}, "inputs[0] is 1001 characters long"),
    ({"alphabet": "aab"}, "alphabet repeats the letter 'a'"),
    ({"outputs": ["bb"]}, 'example 0: the cascade maps "ab" to "b", not "bb"'),
    ({"cascade": [["a", "aaa"]] * 20, "cascade_len": 20}, "the cascade writes a string longer than 1000"),
]


@pytest.mark.parametrize("change,needle", BAD)
def test_every_reader_of_instances_refuses_what_a_dataset_cannot_hold(change, needle, tmp_path):
    inst = {**INSTANCE, **change}
    calls = [
        lambda: pbebench.score(inst, [ANSWER]),
        lambda: pbebench.reward(inst, [ANSWER], kind="behaviour"),
        lambda: pbebench.prompt(inst),
        lambda: pbebench.Oracle(inst, 2),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"^\w+\(\): instance.*" + re.escape(needle)):
            call()
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(inst) + "\n")
    with pytest.raises(ValueError, match=r"d\.jsonl:1: .*" + re.escape(needle)):
        pbebench.read_dataset(str(path))


@pytest.mark.parametrize("change,needle", [c for c in BAD if "cascade" not in c[1]])
def test_the_edit_sim_reward_refuses_what_it_reads_past_a_limit(change, needle):
    """The Edit_Sim reward reads the examples and the limits only (never the gold: the
    behavioural reward, above, checks it); those are checked, on the cached path (a list of
    dicts) as on the plain one."""
    inst = {**INSTANCE, **change}
    for instances in (inst, [inst], [dict(inst)]):
        with pytest.raises(ValueError, match=r"^reward\(\): instances(\[0\])? \(id 'x'\): .*" + re.escape(needle)):
            pbebench.reward(instances, [ANSWER])
    with pytest.raises(ValueError, match=r"^Rewarder\(\): instances\[0\] \(id 'x'\): .*" + re.escape(needle)):
        pbebench.Rewarder([inst])


def test_a_missing_cascade_len_says_it_is_missing_in_a_file_not_in_a_dict(tmp_path):
    inst = dict(INSTANCE)
    del inst["cascade_len"]
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(inst) + "\n")
    with pytest.raises(ValueError, match=r"d\.jsonl:1: not an instance: missing field `cascade_len`"):
        pbebench.read_dataset(str(path))
    # A dict picked by hand (as the TRL example picks its columns) states the gold's length.
    assert pbebench.score(inst, [ANSWER])["pass"]
    assert pbebench.reward([inst], [ANSWER], kind="behaviour") == [1.0]
    with pytest.raises(ValueError, match="cascade_len is 2 but the cascade has 1 rules"):
        pbebench.score({**inst, "cascade_len": 2}, [ANSWER])
    # Without a gold (real word lists) it is not needed.
    no_gold = {k: v for k, v in inst.items() if k != "cascade"}
    assert pbebench.score(no_gold, [ANSWER])["pass"]


def test_apply_bounds_every_string_and_names_the_word():
    blowup = [["a", "aaa"]] * 20
    with pytest.raises(ValueError, match=r"^apply\(\): words: cascade\[5\] makes a string longer than 256 characters"):
        pbebench.apply(blowup, "a")
    with pytest.raises(ValueError, match=r"^apply\(\): words\[1\]: cascade\[5\] makes a string longer than 256"):
        pbebench.apply(blowup, ["b", "a", "a"])
    assert pbebench.apply(blowup, ["b"]) == ["b"]
    assert pbebench.apply([["a", "aaa"]] * 2, "a") == "a" * 9
