"""pbebench.rl: the probing task as an environment (ProbeEnv) and the curriculum.

ProbeEnv's tool texts are compared byte for byte with what `pbebench eval --interactive`
answers a solver program doing the same actions, and its reward with the Oracle's grade
and pbebench.reward(kind="behaviour")."""

import json
import pickle
import subprocess
import sys
import typing

import pytest

import pbebench
from pbebench import _episode, rl

SOLVER = r"""
import json, sys
script = json.load(open(sys.argv[1], encoding="utf-8"))
log = open(sys.argv[2], "a", encoding="utf-8")
sys.stdin.readline()  # the task
for request in script:
    print(json.dumps(request), flush=True)
    line = sys.stdin.readline()
    if not line:
        break
    log.write(line)
"""


@pytest.fixture(scope="module")
def lite():
    return list(pbebench.generate("lite", seed=3, size=16, heldout=2))


def script_of(inst):
    """Actions of every kind: refusals, a bad input of each type, tests, a submission."""
    gold = inst["cascade"]
    rules = [f"replace({a!r}, {b!r})" for a, b in gold]
    return [
        ("probe", ["ab", "ZZ"]),  # a letter outside the alphabet: refused, costs nothing
        ("probe", ["ab", "é"]),
        ("probe", []),
        ("probe", [1]),
        ("probe", 7),
        ("probe", "ab"),  # one string is one input
        ("probe", ["ab", inst["heldout_inputs"][0]]),
        ("test", [["a", "b"]]),
        ("test", ["replace('', 'a')"]),
        ("test", 7),
        ("test", "garbage("),
        ("test", [["a", 1]]),
        ("test", ["replace('abcd', 'a')"]),
        ("test", json.dumps(rules[1:])),
        ("test", rules[:-1]),
        ("submit", ["replace('', 'a')"]),  # unreadable: refused, the episode goes on
        ("submit", rules),
    ]


TOOLS = {"probe": "run_hidden", "test": "test_cascade", "submit": "submit"}


def through_binary(cli, inst, script, budget, tmp_path):
    tmp_path.mkdir(exist_ok=True)
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(inst) + "\n", encoding="utf-8")
    solver = tmp_path / "solver.py"
    solver.write_text(SOLVER, encoding="utf-8")
    log = tmp_path / "answers.jsonl"
    requests = tmp_path / "requests.json"
    requests.write_text(json.dumps([{kind: arg} for kind, arg in script]), encoding="utf-8")
    cmd = f"{sys.executable} {solver} {requests} {log}"
    proc = subprocess.run(
        [cli.path, "eval", "--dataset", str(data), "--solver-cmd", cmd,
         "--interactive", "--probe-budget", str(budget), "--run", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    return log.read_text(encoding="utf-8").splitlines()


def through_env(inst, script, budget):
    env = rl.ProbeEnv(probe_budget=budget)
    first = env.reset(**inst)
    texts = [getattr(env, TOOLS[kind])(arg) for kind, arg in script]
    return env, first, texts


def test_a_scripted_episode_answers_as_the_binary(cli, lite, tmp_path):
    inst = lite[0]
    script = script_of(inst)
    expected = through_binary(cli, inst, script, 5, tmp_path)
    env, first, texts = through_env(inst, script, 5)
    assert texts == expected
    assert json.loads(texts[-1]) == {"submitted": True, "rules": len(inst["cascade"])}
    assert first == _episode.interactive_prompt(inst, 5, 30)
    assert "probe budget of 5 inputs" in first and "Inputs:\n" in first
    # Over budget: refused, and the episode ends there, as in the binary.
    over = [("probe", ["a", "b", "c", "d"]), ("probe", ["a", "b"]), ("test", [])]
    expected = through_binary(cli, inst, over, 5, tmp_path / "over")
    env, _, texts = through_env(inst, over, 5)
    assert texts[:2] == expected
    assert "only 1 of the probe budget are left" in texts[1]
    assert texts[2] == '{"error":"ignored: the episode has ended (budget)"}'
    assert env.get_reward() == 0.0 and env.last_grade["end_reason"] == "budget"


def test_the_reward_is_the_oracles_grade(lite):
    for inst in lite[:6]:
        gold = inst["cascade"]
        for final in (gold, gold[1:], [], [["a", "b"]]):
            env = rl.ProbeEnv()
            env.reset(**inst)
            env.run_hidden(["ab"])
            env.submit(final)
            oracle = pbebench.Oracle(inst, 40)
            oracle.run_hidden(["ab"])
            grade = oracle.grade(final)
            (behaviour,) = pbebench.reward([inst], [pbebench.render_answer(final)], kind="behaviour")
            reward = env.get_reward()
            assert isinstance(reward, float)
            assert reward == behaviour == (grade["behaviour"] or 0.0)
            assert env.last_grade["pass"] == grade["pass"]
            assert env.last_grade["recovered"] == grade["recovered"]
            assert (env.last_grade["probes_used"], env.last_grade["final_source"]) == (1, "submitted")
        assert env.last_grade["reward"] == 0.0
    # Without a submission the last tested cascade counts; with neither, the identity.
    env = rl.ProbeEnv()
    env.reset(**lite[0])
    assert env.get_reward() == 0.0 and env.last_grade["final_source"] == "none"
    env.test_cascade(lite[0]["cascade"])
    assert env.get_reward() == 1.0 and env.last_grade["final_source"] == "tested"


def test_the_tools_are_typed_and_documented_for_trl():
    for name, arg in (("run_hidden", "inputs"), ("test_cascade", "cascade"), ("submit", "cascade")):
        method = getattr(rl.ProbeEnv, name)
        hints = typing.get_type_hints(method)
        assert hints[arg] == list[str] and hints["return"] is str
        assert "Args:" in method.__doc__ and f"{arg}: " in method.__doc__
    public = {n for n in vars(rl.ProbeEnv) if not n.startswith("_") and callable(getattr(rl.ProbeEnv, n))}
    assert public == {"reset", "run_hidden", "test_cascade", "submit", "get_reward"}
    assert typing.get_type_hints(rl.ProbeEnv.get_reward)["return"] is float


def test_pickling_mid_episode(lite):
    inst = lite[1]
    assert pickle.loads(pickle.dumps(rl.ProbeEnv)) is rl.ProbeEnv
    fresh = pickle.loads(pickle.dumps(rl.ProbeEnv(probe_budget=7)))
    assert "probe budget of 7" in fresh.reset(**inst)
    env = rl.ProbeEnv(probe_budget=6)
    env.reset(**inst)
    env.run_hidden(["ab", "ba"])
    env.test_cascade(inst["cascade"][:1])
    copy = pickle.loads(pickle.dumps(env))
    rest = [("run_hidden", ["abc"]), ("test_cascade", inst["cascade"]), ("run_hidden", ["a", "b", "c", "d"])]
    assert [getattr(copy, t)(a) for t, a in rest] == [getattr(env, t)(a) for t, a in rest]
    assert copy.get_reward() == env.get_reward() and copy.last_grade == env.last_grade


def test_the_gold_is_in_no_attribute(lite):
    inst = lite[2]
    env = rl.ProbeEnv()
    env.reset(**inst)
    env.run_hidden(["ab"])
    seen = repr(vars(env)) + repr(vars(env._episode))
    for a, b in inst["cascade"]:
        assert repr([a, b]) not in seen and json.dumps([a, b]) not in seen
    assert "cascade" not in json.dumps(env._episode.oracle.task)


def test_bad_input(lite):
    env = rl.ProbeEnv()
    with pytest.raises(RuntimeError, match="call reset"):
        env.run_hidden(["a"])
    row = {k: v for k, v in lite[0].items() if k != "cascade"}
    with pytest.raises(ValueError, match="no gold cascade"):
        env.reset(**row)
    with pytest.raises(ValueError, match="no gold cascade"):
        env.reset(**dict(lite[0], cascade=None))
    with pytest.raises(TypeError, match=r"row\['probe_budget'\] must be an int"):
        env.reset(**dict(lite[0], probe_budget="40"))
    with pytest.raises(TypeError, match="probe_budget must be an int"):
        rl.ProbeEnv(probe_budget=True)
    env.reset(**lite[0])
    for tool, arg in (("run_hidden", None), ("run_hidden", {"x": 1}), ("test_cascade", None),
                      ("test_cascade", {"a": "b"}), ("submit", 3.5), ("submit", [[None, "a"]])):
        text = getattr(env, tool)(arg)
        assert set(json.loads(text)) == {"error"}, text
    assert env.get_reward() == 0.0 and env.last_grade["end_reason"] is None


def test_the_curriculum_is_a_pure_function_of_seed_levels_and_index():
    a, b = rl.Curriculum(seed=5), rl.Curriculum(seed=5)
    assert [a.instance(i) for i in range(4)] == [b.instance(i) for i in range(4)]
    assert a.instance(0) != a.instance(1) and a.instance(0) != rl.Curriculum(seed=6).instance(0)
    first = a.instance(0)
    a.increment()
    assert a.instance(0) != first
    a.decrement()
    assert a.instance(0) == first == b.instance(0)
    for level in range(6):
        c = rl.Curriculum(seed=1)
        c.set_level(level)
        c.set_level(0, "vetted")  # vetted levels are tested below, at lengths that vet fast
        p = c.parameters()
        inst = c.instance(3)
        assert inst["probe_budget"] == p["probe_budget"] and len(inst["inputs"]) == p["examples"]
        if level <= 1:  # reachable at 2 and 3 rules; longer cascades may get the fewest reached
            assert inst["category"].count("1") <= p["relations"]
        env = rl.ProbeEnv()
        assert f"probe budget of {p['probe_budget']} inputs" in env.reset(**inst)
        env.submit(inst["cascade"])
        assert env.get_reward() == 1.0
    assert rl.Curriculum(seed=1, levels={"cascade_len": 5, "relations": 3}).instance(0)["cascade_len"] >= 11
    hard = rl.Curriculum(seed=1, levels={"cascade_len": 5}).instance(0)  # no "0000" at 11+ rules
    assert hard["cascade_len"] >= 11 and hard == rl.Curriculum(seed=1, levels={"cascade_len": 5}).instance(0)


def test_curriculum_levels():
    c = rl.Curriculum()
    assert c.levels == {name: 0 for name in rl.ATTRIBUTES}
    assert c.increment("examples") and c.levels["examples"] == 1
    assert c.decrement("examples") and not c.decrement("examples")
    top = len(rl.ATTRIBUTES["cascade_len"]) - 1
    c.set_level(top, "cascade_len")
    assert not c.increment("cascade_len")
    with pytest.raises(ValueError, match=r"level 9 of examples is unknown; its levels are 0 to 2"):
        c.set_level(9, "examples")
    with pytest.raises(ValueError, match=r"level -1 of examples is unknown"):
        c.set_level(-1, "examples")
    with pytest.raises(ValueError, match=r"attribute 'length' is unknown"):
        c.set_level(1, "length")
    with pytest.raises(ValueError, match=r"attribute 'length' is unknown"):
        c.increment("length")
    with pytest.raises(ValueError, match=r"level 2 of vetted is unknown; its levels are 0 to 1"):
        c.set_level(2, "vetted")
    with pytest.raises(ValueError, match=r"attribute 'length' is unknown"):
        rl.Curriculum(levels={"length": 1})
    with pytest.raises(TypeError, match="level must be an int"):
        c.set_level("2")
    assert c.levels["cascade_len"] == top, "a refused call changes nothing"
    c.set_level(99)
    assert all(c.levels[n] == len(v) - 1 for n, v in rl.ATTRIBUTES.items())


def test_a_vetted_level_gives_the_instances_vetting_keeps(monkeypatch):
    c = rl.Curriculum(seed=2, levels={"vetted": 1, "examples": 2})
    rows = [c.instance(i) for i in range(4)]
    assert rows == [rl.Curriculum(seed=2, levels={"vetted": 1, "examples": 2}).instance(i) for i in range(4)]
    plain = rl.Curriculum(seed=2, levels={"examples": 2})
    for i, row in enumerate(rows):
        repair = row["repair"]
        assert repair["max_examples"] == 70 and repair["examples_before"] == 3
        assert len(row["inputs"]) == 3 + len(repair["added"])
        for added in repair["added"]:
            # Each added example is the gold's output on a counterexample of a fitting answer.
            assert pbebench.apply(row["cascade"], added["input"]) == added["output"]
            assert pbebench.apply(added["answer"], added["input"]) != added["output"]
        # The vetting of the row's own draw: the same (the Curriculum adds the budget only).
        again, why = pbebench.vet(c._draw(c.parameters(), i, 0), max_examples=70, seed=2)
        if again is not None and why is None:
            assert dict(again, probe_budget=row["probe_budget"]) == row
        assert row != plain.instance(i)
        env = rl.ProbeEnv()
        env.reset(**row)
        env.submit(row["cascade"])
        assert env.get_reward() == 1.0
    assert sum(bool(r["repair"]["added"]) for r in rows) >= 1, "vetting added examples somewhere"

    # A level whose draws vetting never keeps fails loudly after its bound of draws.
    calls = []
    monkeypatch.setattr(rl._pbebench, "vet", lambda inst, **kw: calls.append(kw) or (None, "ambiguous"))
    with pytest.raises(RuntimeError, match=r"instance\(0\): vetting kept none of 32 draws .* the last: ambiguous"):
        c.instance(0)
    assert len(calls) == 32 and calls[0] == {"max_examples": 70, "seed": 2}
