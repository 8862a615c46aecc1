"""Every argument of every public function and class, given a value of the wrong type,
raises TypeError or ValueError naming the function and the argument (and the field, for
instance dicts); nothing aborts the interpreter. Batched columns and the behavioural
reward's floats are here too: how `reward` reads what trainers give it."""

import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import INSTANCE, fence, released

import pbebench
import pbebench.verl as verl

GOLD = released(INSTANCE["cascade"])
WRONG = object()  # of no type any argument takes


def oracle():
    return pbebench.Oracle(INSTANCE, 4)


# (callable, the argument given a wrong value, the call). Every argument of every public
# callable has a row: test_every_argument_has_a_row keeps the table complete.
ARGUMENTS = [
    (pbebench.generate, "preset", lambda: pbebench.generate(3)),
    (pbebench.generate, "seed", lambda: pbebench.generate("lite", seed="1")),
    (pbebench.generate, "size", lambda: pbebench.generate("lite", size=16.0)),
    (pbebench.generate, "overrides", lambda: pbebench.generate("lite", examples="4")),
    (pbebench.pairs, "inputs", lambda: pbebench.pairs(WRONG, ["b"])),
    (pbebench.pairs, "outputs", lambda: pbebench.pairs(["a"], WRONG)),
    (pbebench.pairs, "name", lambda: pbebench.pairs(["a"], ["b"], name=3)),
    (pbebench.pairs, "chunk", lambda: pbebench.pairs(["a"], ["b"], chunk="50")),
    (pbebench.pairs, "max_rules", lambda: pbebench.pairs(["a"], ["b"], max_rules=-1)),
    (pbebench.pairs, "max_rule_len", lambda: pbebench.pairs(["a"], ["b"], max_rule_len=None)),
    (pbebench.pairs, "alphabet", lambda: pbebench.pairs(["a"], ["b"], alphabet=["a"])),
    (pbebench.apply, "cascade", lambda: pbebench.apply(WRONG, ["a"])),
    (pbebench.apply, "words", lambda: pbebench.apply([["a", "b"]], WRONG)),
    (pbebench.relations, "cascade", lambda: pbebench.relations("ab")),
    (pbebench.relations, "mode", lambda: pbebench.relations([["a", "b"]], mode=1)),
    (pbebench.parse_response, "text", lambda: pbebench.parse_response(None)),
    (pbebench.parse_response, "max_rules", lambda: pbebench.parse_response("x", max_rules=-1)),
    (pbebench.parse_response, "max_rule_len", lambda: pbebench.parse_response("x", max_rule_len="3")),
    (pbebench.parse_response, "alphabet", lambda: pbebench.parse_response("x", alphabet=1)),
    (pbebench.parse_response, "block", lambda: pbebench.parse_response("x", block=None)),
    (pbebench.prompt, "instance", lambda: pbebench.prompt([INSTANCE])),
    (pbebench.prompt, "template", lambda: pbebench.prompt(INSTANCE, template=42)),
    (pbebench.score, "instance", lambda: pbebench.score(dict(INSTANCE, max_rules=-1), [GOLD])),
    (pbebench.score, "responses", lambda: pbebench.score(INSTANCE, [3])),
    (pbebench.score, "block", lambda: pbebench.score(INSTANCE, [GOLD], block=0)),
    (pbebench.reward, "instances", lambda: pbebench.reward(dict(INSTANCE, max_rules=-1), [GOLD])),
    (pbebench.reward, "responses", lambda: pbebench.reward(INSTANCE, GOLD)),
    (pbebench.reward, "heldout", lambda: pbebench.reward(INSTANCE, [GOLD], heldout="yes")),
    (pbebench.reward, "kind", lambda: pbebench.reward(INSTANCE, [GOLD], kind=None)),
    (pbebench.read_dataset, "path", lambda: pbebench.read_dataset(3)),
    (pbebench.to_authors, "instance", lambda: pbebench.to_authors(dict(INSTANCE, id=3))),
    (pbebench.to_authors, "original_programs", lambda: pbebench.to_authors(INSTANCE, original_programs="no")),
    (pbebench.to_authors, "relations", lambda: pbebench.to_authors(INSTANCE, relations=True)),
    (pbebench.render_answer, "cascade", lambda: pbebench.render_answer([["a", 1]])),
    (pbebench.summary, "scores", lambda: pbebench.summary([{"id": 1}])),
    (pbebench.Rewarder, "instances", lambda: pbebench.Rewarder(INSTANCE["inputs"])),
    (pbebench.Rewarder, "heldout", lambda: pbebench.Rewarder([INSTANCE], heldout=1)),
    (pbebench.Rewarder.reward, "indices", lambda: pbebench.Rewarder([INSTANCE]).reward(["0"], [GOLD])),
    (pbebench.Rewarder.reward, "responses", lambda: pbebench.Rewarder([INSTANCE]).reward(0, WRONG)),
    (pbebench.Oracle, "instance", lambda: pbebench.Oracle(dict(INSTANCE, cascade="ab"), 4)),
    (pbebench.Oracle, "probe_budget", lambda: pbebench.Oracle(INSTANCE, "4")),
    (pbebench.Oracle, "max_probe_len", lambda: pbebench.Oracle(INSTANCE, 4, max_probe_len=-1)),
    (pbebench.Oracle.run_hidden, "inputs", lambda: oracle().run_hidden("ab")),
    (pbebench.Oracle.test_cascade, "cascade", lambda: oracle().test_cascade(3)),
    (pbebench.Oracle.grade, "cascade", lambda: oracle().grade(["replace('a'"])),
    (pbebench.Oracle.read_cascade, "cascade", lambda: pbebench.Oracle.read_cascade({"a": "b"})),
    (verl.ground_truth, "instance", lambda: verl.ground_truth("instance")),
    (verl.ground_truth, "behaviour", lambda: verl.ground_truth(INSTANCE, behaviour="yes")),
    (verl.row, "instance", lambda: verl.row([INSTANCE], 0, "train")),
    (verl.row, "index", lambda: verl.row(INSTANCE, "0", "train")),
    (verl.row, "split", lambda: verl.row(INSTANCE, 0, None)),
    (verl.row, "template", lambda: verl.row(INSTANCE, 0, "train", template=3)),
    (verl.row, "heldout_reward", lambda: verl.row(INSTANCE, 0, "train", heldout_reward="no")),
    (verl.row, "behaviour_reward", lambda: verl.row(INSTANCE, 0, "train", behaviour_reward=None)),
    (verl.compute_score, "data_source", lambda: verl.compute_score(None, GOLD, INSTANCE)),
    (verl.compute_score, "solution_str", lambda: verl.compute_score("pbebench", 3, INSTANCE)),
    (verl.compute_score, "ground_truth", lambda: verl.compute_score("pbebench", GOLD, 3)),
    (verl.compute_score, "extra_info", lambda: verl.compute_score("pbebench", GOLD, INSTANCE, "behaviour")),
    (verl.compute_score_batch, "data_sources", lambda: verl.compute_score_batch("pbebench", [GOLD], [INSTANCE])),
    (verl.compute_score_batch, "solution_strs", lambda: verl.compute_score_batch(["pbebench"], GOLD, [INSTANCE])),
    (verl.compute_score_batch, "ground_truths", lambda: verl.compute_score_batch(["pbebench"], [GOLD], INSTANCE)),
    (verl.compute_score_batch, "extra_infos", lambda: verl.compute_score_batch(["pbebench"], [GOLD], [INSTANCE], [3])),
    (verl.probe_row, "instance", lambda: verl.probe_row([INSTANCE], 0, "train")),
    (verl.probe_row, "index", lambda: verl.probe_row(INSTANCE, "0", "train")),
    (verl.probe_row, "split", lambda: verl.probe_row(INSTANCE, 0, None)),
    (verl.probe_row, "probe_budget", lambda: verl.probe_row(INSTANCE, 0, "train", probe_budget="40")),
    (verl.probe_row, "max_turns", lambda: verl.probe_row(INSTANCE, 0, "train", max_turns=None)),
    (verl.probe_row, "max_probe_len", lambda: verl.probe_row(INSTANCE, 0, "train", max_probe_len=3.0)),
]


def qualname(function):
    """How messages name a callable: `score`, `Rewarder` (its constructor),
    `Oracle.run_hidden`."""
    name = function.__qualname__
    return name.rsplit(".", 1)[-1] if getattr(function, "__module__", "") == "pbebench.verl" else name


def parameters(function):
    """The arguments a caller gives; not `**kwargs` that only takes what a framework adds
    and is ignored (verl's reward functions)."""
    found = inspect.signature(function).parameters.values()
    return [p.name for p in found if p.name != "self" and not (p.kind is p.VAR_KEYWORD and p.name == "kwargs")]


def public_callables():
    """Every public function and class of pbebench and pbebench.verl, and the public
    methods that take arguments (`Rewarder.reward`, the Oracle's)."""
    found = []
    for module in (pbebench, verl):
        names = module.__all__ if hasattr(module, "__all__") else dir(module)
        for name in names:
            value = getattr(module, name)
            if name.startswith("_") or not callable(value) or isinstance(value, type) and issubclass(value, BaseException):
                continue
            if getattr(value, "__module__", None) not in (module.__name__, "pbebench", "builtins"):
                continue  # imported names (json, Any)
            found.append(value)
            if isinstance(value, type):
                for method in vars(value).values():
                    if callable(method) and not getattr(method, "__name__", "_").startswith("_"):
                        found.append(getattr(value, method.__name__))
    return found


def test_every_argument_has_a_row():
    expected = set()
    for function in public_callables():
        if function is pbebench.Generation:
            continue  # made by generate() only; takes no arguments
        expected |= {(qualname(function), p) for p in parameters(function)}
    assert expected - {(qualname(f), a) for f, a, _ in ARGUMENTS} == set()
    for function, argument, _ in ARGUMENTS:
        assert argument in parameters(function), (function, argument)


@pytest.mark.parametrize(
    "function,argument,call", ARGUMENTS, ids=[f"{qualname(f)}-{a}" for f, a, _ in ARGUMENTS]
)
def test_a_wrong_argument_is_named_in_the_message(function, argument, call):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    message = str(info.value)
    # Keyword arguments of **overrides are named themselves.
    named = "examples" if argument == "overrides" else argument
    assert message.startswith(f"{qualname(function)}(): {named}"), message


# Each field of an instance dict, wrong: the message names the field.
FIELDS = [
    ("id", 3, "must be a str, not int"),
    ("inputs", "xab", "must be a list of strings, not a single str"),
    ("outputs", [1, 2, 3], "['outputs'][0] must be a str, not int"),
    ("heldout_inputs", 7, "must be a list of strings, not int"),
    ("heldout_outputs", ["dd", None], "['heldout_outputs'][1] must be a str, not NoneType"),
    ("max_rules", -1, "must be a non-negative integer that fits in 64 bits, got -1"),
    ("max_rule_len", "2", "must be an integer, not str"),
    ("max_rule_len", 2**70, "must be a non-negative integer that fits in 64 bits"),
    ("cascade_len", True, "must be an integer, not bool"),
    ("alphabet", ["a", "b"], "must be a str, not list"),
    ("cascade", [["ab"]], "['cascade'][0] must be a [pattern, replacement] pair"),
    ("cascade", "ab", "must be a list of [pattern, replacement] pairs"),
]

# Each way an instance is read, with how its messages name the instance.
READERS = [
    (lambda inst: pbebench.score(inst, [GOLD]), "score(): instance"),
    (lambda inst: pbebench.prompt(inst), "prompt(): instance"),
    (lambda inst: pbebench.reward([INSTANCE, inst], [GOLD, GOLD], kind="behaviour"), "reward(): instances[1]"),
    (lambda inst: pbebench.to_authors(inst), "to_authors(): instance"),
    (lambda inst: pbebench.Oracle(inst, 2), "Oracle(): instance"),
]

# The Edit_Sim rewards read only the fields they need, by a faster path (the held-out
# examples only with heldout=True).
REWARD_FIELDS = ["inputs", "outputs", "max_rules", "max_rule_len", "alphabet"]
REWARD_READERS = [
    (lambda inst: pbebench.reward(inst, [GOLD], heldout=True), "reward(): instances"),
    (lambda inst: pbebench.Rewarder([inst], heldout=True), "Rewarder(): instances[0]"),
]
VISIBLE_REWARD_READERS = [
    (lambda inst: pbebench.reward([INSTANCE, inst], [GOLD, GOLD]), "reward(): instances[1]"),
]


@pytest.mark.parametrize("field,value,message", FIELDS, ids=[f"{f}={v!r}"[:40] for f, v, _ in FIELDS])
def test_a_wrong_field_is_named_by_every_reader(field, value, message):
    bad = dict(INSTANCE, **{field: value})
    readers = READERS
    if field in REWARD_FIELDS or field.startswith("heldout"):
        readers = readers + REWARD_READERS
    if field in REWARD_FIELDS:
        readers = readers + VISIBLE_REWARD_READERS
    for read, name in readers:
        with pytest.raises((TypeError, ValueError)) as info:
            read(bad)
        text = str(info.value)
        assert text.startswith(f"{name}['{field}']") and message in text, text


def test_no_wrong_argument_aborts_the_interpreter():
    """The whole table in a child interpreter: an abort (a Rust panic across the boundary,
    a failed allocation) would end it with a signal instead of exit status 0."""
    here = Path(__file__).resolve().parent
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import test_arguments as t\n"
        "calls = [c for _, _, c in t.ARGUMENTS]\n"
        "calls += [lambda r=r, f=f, v=v: r(dict(t.INSTANCE, **{f: v})) for f, v, _ in t.FIELDS for r, _ in t.READERS]\n"
        "for call in calls:\n"
        "    try:\n"
        "        call()\n"
        "    except (TypeError, ValueError):\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'no error from {call}')\n"
        "print('done', len(calls))\n"
    )
    child = subprocess.run([sys.executable, "-c", script, str(here)], capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("done")


# Batched columns: a Hugging Face dataset's slice, or what map(batched=True) gets.
def columns(rows):
    return {key: [row[key] for row in rows] for key in rows[0]}


ROWS = [INSTANCE, dict(INSTANCE, id="hand-2", max_rules=1), INSTANCE]
RESPONSES = [GOLD, GOLD, fence("[('ab', 'd')]")]


def test_rewards_read_batched_columns_as_rows():
    batch = columns(ROWS)
    assert pbebench.reward(batch, RESPONSES) == pbebench.reward(ROWS, RESPONSES)
    assert pbebench.reward(batch, RESPONSES) == [1.0, pbebench.reward(ROWS[1], [GOLD])[0], 0.5]
    assert pbebench.reward(batch, RESPONSES, heldout=True) == pbebench.reward(ROWS, RESPONSES, heldout=True)
    assert pbebench.reward(batch, RESPONSES, kind="behaviour") == pbebench.reward(ROWS, RESPONSES, kind="behaviour")
    rewarder = pbebench.Rewarder(batch)
    assert len(rewarder) == 3 and rewarder.reward([0, 1, 2], RESPONSES) == pbebench.reward(ROWS, RESPONSES)
    # A tuple column, and one prompt column of chat messages, as datasets give them.
    batch["alphabet"] = tuple(batch["alphabet"])
    batch["prompt"] = [[{"role": "user", "content": "..."}]] * 3
    assert pbebench.reward(batch, RESPONSES) == pbebench.reward(ROWS, RESPONSES)


def test_batched_columns_refused_with_what_is_wrong():
    ragged = dict(columns(ROWS), max_rules=[3, 1])
    with pytest.raises(ValueError, match=r"^reward\(\): instances is read as batched columns .* different lengths: 'id' has 3 values and 'max_rules' has 2"):
        pbebench.reward(ragged, RESPONSES)
    with pytest.raises(ValueError, match=r"^Rewarder\(\): instances is read as batched columns .* different lengths"):
        pbebench.Rewarder(ragged)
    scalar = dict(columns(ROWS), alphabet="abcdqx")
    with pytest.raises(TypeError, match=r"its column 'alphabet' is a str, not a list"):
        pbebench.reward(scalar, RESPONSES, kind="behaviour")
    with pytest.raises(ValueError, match=r"^reward\(\): instances: got 3 rows of batched columns for 2 responses"):
        pbebench.reward(columns(ROWS), RESPONSES[:2])
    # A wrong value is named as the column's item.
    bad = dict(columns(ROWS), max_rules=[3, -1, 3])
    for kind in ("edit_sim", "behaviour"):
        with pytest.raises(ValueError, match=r"^reward\(\): instances\['max_rules'\]\[1\] must be a non-negative"):
            pbebench.reward(bad, RESPONSES, kind=kind)
    # One instance dict is still one instance, for every response.
    assert pbebench.reward(INSTANCE, RESPONSES) == pbebench.reward([INSTANCE] * 3, RESPONSES)


def test_an_undecided_behaviour_is_a_float_and_score_says_why():
    """Both cascades write outputs past the exact engine's bound (3^6 and 3^7 letters per
    `a`, on inputs of up to 6 letters): the comparison is undecided. The reward counts it as 0.0, a float a trainer can
    take; score() keeps None and the reason."""
    gold = [["a", "aaa"]] * 6
    inst = {
        "id": "blow-up",
        "inputs": ["a", "ab"],
        # Python's str.replace (pbebench.apply bounds its strings at 16 times the word), and
        # within the 1000 characters a string of an instance may have.
        "outputs": ["a" * 3**6, "a" * 3**6 + "b"],
        "cascade": gold,
        "max_rules": 7,
        "max_rule_len": 3,
        "alphabet": "ab",
    }
    answers = [released([["a", "aaa"]] * 7), released(gold)]
    sample = pbebench.score(inst, answers)["samples"][0]
    assert sample["behaviour"] is None and "longer than" in sample["undecided"]
    rewards = pbebench.reward(inst, answers, kind="behaviour")
    assert rewards == [0.0, 1.0] and all(type(r) is float for r in rewards)
    got = verl.compute_score("pbebench", answers[0], inst, {"reward_kind": "behaviour"})
    assert (got["score"], got["behaviour"], got["undecided"]) == (0.0, 0.0, 1.0)
