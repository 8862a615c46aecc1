"""Behaviour of the bindings on their own: semantics, the reward's definition, streaming,
the GIL, bad input, and stubs that match the runtime."""

import ast
import inspect
import itertools
import json
import os
import signal
import threading
import time
import warnings
from pathlib import Path

import pytest
from conftest import INSTANCE, fence, released

import pbebench

GOLD = released(INSTANCE["cascade"])


def test_apply_has_python_replace_semantics():
    assert pbebench.apply([["aa", "b"]], ["aaa", "aaaa"]) == ["ba", "bb"]
    assert pbebench.apply([["ab", "c"]], ["xab"]) == ["xc"]
    assert pbebench.apply([["ab", "c"]], "xab") == "xc"
    assert pbebench.apply([("a", "aa")], ("aba",)) == ["aabaa"]
    assert pbebench.apply([], ["same"]) == ["same"]
    assert pbebench.apply([["a", "b"]], []) == []
    words = ["".join(w) for w in itertools.product("abc", repeat=7)]  # 2187 words, split across threads
    cascade = [["ab", "c"], ["cc", ""], ["a", "bca"]]
    expected = []
    for w in words:
        for a, b in cascade:
            w = w.replace(a, b)
        expected.append(w)
    assert pbebench.apply(cascade, words) == expected


def test_relations_dict():
    assert pbebench.relations([["ab", "c"], ["c", "d"]]) == {
        "bleeds": [[False, False], [False, False]],
        "category": "1000",
        "feeds": [[False, True], [False, False]],
    }
    # The paper's formula says a→ε feeds aa (deletion); exactly, it never can.
    assert pbebench.relations([["a", ""], ["aa", "b"]], mode="paper")["feeds"][0][1]
    assert not pbebench.relations([["a", ""], ["aa", "b"]], mode="exact")["feeds"][0][1]
    assert pbebench.relations([]) == {"bleeds": [], "category": "0000", "feeds": []}


def test_parse_response_reports_rule_validity():
    text = fence("[\"replace('ab', 'c')\", \"replace('abcd', 'c')\", \"replace('z', 'y')\"]")
    parsed = pbebench.parse_response(text, alphabet="abcd")
    assert parsed["status"] == {"kind": "parsed"}
    assert parsed["cascade"] == [["ab", "c"]]
    assert [r["valid"] for r in parsed["rules"]] == [True, False, False]
    assert parsed["rules"][1]["problems"][0]["kind"] == "pattern_too_long"
    assert parsed["rules"][2]["problems"][0]["kind"] == "outside_alphabet"
    assert not parsed["valid"]
    assert pbebench.parse_response("nothing")["status"] == {"kind": "no_code_block"}
    assert pbebench.parse_response(text, max_rules=1)["dropped_rules"] == 2


def test_reward_range_and_invalid_answers():
    worse = fence("[('q', 'x')]")  # q→x: distances 4 + 1 against 4 → 1 − 5/4
    half = fence("[('c', 'd')]")  # reproduces cc→dd only: 1 − 2/4
    invalid = [
        "",
        None,
        "no code block",
        fence("[[[["),
        "<think>" + GOLD,  # never closed: no answer was given
        fence("[('abc', 'd'), ('Z', 'd')]"),  # every rule breaks a limit
    ]
    rewards = pbebench.reward(INSTANCE, [GOLD, half, worse] + invalid)
    assert rewards == [1.0, 0.5, -0.25] + [0.0] * len(invalid)
    assert pbebench.reward([INSTANCE, INSTANCE], [GOLD, half]) == [1.0, 0.5]
    assert pbebench.reward([], []) == []
    # Thinking is never read; the last block is the answer.
    assert pbebench.reward(INSTANCE, ["<think>" + half + "</think>" + GOLD]) == [1.0]
    assert pbebench.reward(INSTANCE, [GOLD + "\nor maybe\n" + half]) == [0.5]


def test_reward_accepts_chat_messages_as_trl_passes_them():
    conversational = [[{"role": "assistant", "content": GOLD}], [{"role": "assistant", "content": None}]]
    assert pbebench.reward(INSTANCE, conversational + [[]]) == [1.0, 0.0, 0.0]
    assert pbebench.reward(INSTANCE, [{"role": "assistant", "content": GOLD, "reasoning_content": "x"}]) == [1.0]


def test_reward_uses_heldout_examples_only_when_asked():
    # Fits every visible example but not held-out "qc" (left as it is instead of "qd").
    overfit = fence("[('ab', 'd'), ('cc', 'dd')]")
    assert pbebench.reward(INSTANCE, [overfit]) == [1.0]
    [with_heldout] = pbebench.reward(INSTANCE, [overfit], heldout=True)
    # Edit_Sim over visible + held-out: gold distances 2 + 2 + 0 + 4 + 1 = 9, predicted
    # distances 0 + 0 + 0 + 0 + 1 → 1 − 1/9.
    assert with_heldout == pytest.approx(8 / 9)
    merged = dict(INSTANCE, inputs=INSTANCE["inputs"] + INSTANCE["heldout_inputs"],
                  outputs=INSTANCE["outputs"] + INSTANCE["heldout_outputs"])
    assert with_heldout == pbebench.score(merged, [overfit])["edit_sim"]
    assert pbebench.reward(INSTANCE, [GOLD], heldout=True) == [1.0]
    no_heldout = dict(INSTANCE, heldout_inputs=[], heldout_outputs=[])
    assert pbebench.reward(no_heldout, [overfit], heldout=True) == [1.0]


def test_reward_shares_equal_dicts_and_keeps_results_identical():
    responses = [GOLD, fence("[('c', 'd')]"), fence("[('q', 'x')]"), None] * 5
    same_object = pbebench.reward([INSTANCE] * len(responses), responses)
    # Fresh dicts with fresh strings, as dataset rows arrive: grouped by content.
    fresh = [json.loads(json.dumps(INSTANCE)) for _ in responses]
    assert pbebench.reward(fresh, responses) == same_object
    other = dict(INSTANCE, max_rules=1)
    mixed = pbebench.reward([INSTANCE, other] * 10, responses)
    assert pbebench.reward([INSTANCE, other] * 10, responses) == mixed
    assert mixed == [pbebench.reward(i, [r])[0] for i, r in zip([INSTANCE, other] * 10, responses)]
    assert pbebench.reward(other, [GOLD]) == [0.25]  # max_rules=1 keeps only ab→c: 1 − 3/4
    # Held-out examples are another instance; the visible-only one is not confused with it.
    overfit = fence("[('ab', 'd'), ('cc', 'dd')]")
    assert pbebench.reward(INSTANCE, [overfit], heldout=True) == pytest.approx([8 / 9])
    assert pbebench.reward(INSTANCE, [overfit]) == [1.0]
    assert pbebench.reward(INSTANCE, [overfit], heldout=True) == pytest.approx([8 / 9])


def test_reward_gives_fresh_results_for_a_dict_changed_between_calls():
    half = fence("[('c', 'd')]")
    d = json.loads(json.dumps(INSTANCE))
    assert pbebench.reward(d, [GOLD, half]) == [1.0, 0.5]
    changes = [
        lambda d: d["outputs"].__setitem__(1, "cc"),  # in place: same dict, same list
        lambda d: d["inputs"].__setitem__(2, "qq"),
        lambda d: d.__setitem__("max_rules", 1),
        lambda d: d.__setitem__("alphabet", "abcqx"),  # "d" is no longer allowed
        lambda d: d["inputs"].reverse(),  # same str objects, other places
        lambda d: d.update(inputs=d["outputs"], outputs=d["inputs"]),
    ]
    for change in changes:
        change(d)
        got = pbebench.reward(d, [GOLD, half])
        assert got == pbebench.reward(json.loads(json.dumps(d)), [GOLD, half]), d
        # A fresh copy and the changed dict in one call: still the changed dict's rewards.
        assert pbebench.reward([json.loads(json.dumps(d)), d], [GOLD, GOLD]) == [got[0]] * 2


def test_reward_tells_apart_dicts_sharing_some_field_objects():
    half = fence("[('c', 'd')]")
    base = json.loads(json.dumps(INSTANCE))
    # Shallow copies share every field object (recognised without reading a string); the
    # others share all but one.
    variants = [
        base,
        dict(base),
        dict(base, max_rules=1),
        dict(base, max_rule_len=1),
        dict(base, alphabet="abcqx"),
        dict(base, outputs=list(reversed(base["outputs"]))),
    ]
    rows = variants * 3
    responses = [GOLD, half, GOLD] * 6
    expected = [pbebench.reward(json.loads(json.dumps(d)), [r])[0] for d, r in zip(rows, responses)]
    assert pbebench.reward(rows, responses) == expected
    assert len(set(expected[:6])) > 2

    # Reading a list subclass runs Python code, which here changes a list already read:
    # the shallow copy read after it has the changed outputs.
    class Changing(list):
        def __iter__(self):
            base["outputs"][1] = "cc"
            return super().__iter__()

    rows = [base, dict(base, inputs=Changing(base["inputs"])), dict(base)]
    got = pbebench.reward(rows, [GOLD] * 3)
    assert got[0] == 1.0
    assert got[1:] == pbebench.reward(json.loads(json.dumps(base)), [GOLD]) * 2 != [1.0] * 2


def test_reward_runs_no_python_hash_and_may_be_called_from_python_it_runs():
    class Text(str):
        def __hash__(self):
            raise AssertionError("never called")

    text_instance = dict(INSTANCE, inputs=[Text(s) for s in INSTANCE["inputs"]])
    assert pbebench.reward([text_instance, INSTANCE], [GOLD, GOLD]) == [1.0, 1.0]

    class Reentrant(list):
        def __iter__(self):
            assert pbebench.reward(INSTANCE, [GOLD]) == [1.0]  # a call inside a call
            return super().__iter__()

    assert pbebench.reward(Reentrant([INSTANCE]), [GOLD]) == [1.0]


def test_rewarder_gives_the_rewards_of_reward():
    half, worse = fence("[('c', 'd')]"), fence("[('q', 'x')]")
    other = dict(INSTANCE, max_rules=1)
    dataset = [json.loads(json.dumps(INSTANCE)), other, INSTANCE]
    responses = [GOLD, half, worse, None, "no block", GOLD] * 3
    indices = [k % 3 for k in range(len(responses))]
    r = pbebench.Rewarder(dataset)
    assert len(r) == 3
    expected = pbebench.reward([dataset[i] for i in indices], responses)
    assert r.reward(indices, responses) == expected
    assert r.reward(1, [GOLD, half]) == pbebench.reward(other, [GOLD, half])
    assert r.reward([], []) == []
    overfit = fence("[('ab', 'd'), ('cc', 'dd')]")
    assert pbebench.Rewarder([INSTANCE], heldout=True).reward([0], [overfit]) == pytest.approx([8 / 9])
    # The instances are copied: changing a dict afterwards changes reward(), not the Rewarder.
    dataset[0]["outputs"][1] = "cc"
    assert r.reward(0, [half]) == [0.5]
    assert pbebench.reward(dataset[0], [half]) != [0.5]


def test_rewarder_refuses_bad_indices():
    r = pbebench.Rewarder([INSTANCE])
    with pytest.raises(IndexError, match=r"indices\[1\] is 1, but the Rewarder has 1 instances"):
        r.reward([0, 1], [GOLD, GOLD])
    with pytest.raises(ValueError, match="non-negative"):
        r.reward(-1, [GOLD])
    with pytest.raises(TypeError, match="must be an integer"):
        r.reward([True], [GOLD])
    with pytest.raises(ValueError, match="got 1 indices for 2 responses"):
        r.reward([0], [GOLD, GOLD])
    with pytest.raises(ValueError, match="missing field"):
        pbebench.Rewarder([{"inputs": ["a"]}])


def test_score_chooses_the_best_sample_and_checks_heldout():
    s = pbebench.score(INSTANCE, [fence("[('c', 'd')]"), GOLD, None])
    assert (s["chosen"], s["pass"], s["edit_sim"], s["heldout_pass"]) == (1, True, 1.0, True)
    assert [x["edit_sim"] for x in s["samples"]] == [0.5, 1.0, 0.0]
    missing = pbebench.score(INSTANCE, [])
    assert missing["missing"] and missing["chosen"] is None and len(missing["samples"]) == 1
    assert pbebench.score(INSTANCE, [GOLD, fence("[('ab', 'd')]")], block="first")["pass"]


def test_oracle_grade_is_score_for_answers_with_invalid_rules():
    """One grade whatever the mode (issue 37): Oracle.grade leaves out rules past max_rules
    or over max_rule_len as score() does, although these cascades, whole, would pass."""
    answers = [
        INSTANCE["cascade"],
        [["xab", "xd"], ["cc", "dd"]],  # two sides over max_rule_len 2
        [["q", "q"], ["x", "x"], ["d", "d"], *INSTANCE["cascade"]],  # past max_rules 3
        [["ab", "c"], ["ccc", "d"], ["c", "d"]],  # an over-long rule that changes nothing here
        [["ab", "d"]],  # valid, wrong
        [],
    ]
    for answer in answers[1:3]:
        assert pbebench.apply(answer, INSTANCE["inputs"]) == INSTANCE["outputs"], answer
    for answer in answers:
        scored = pbebench.score(INSTANCE, [pbebench.render_answer(answer)])
        unprobed = pbebench.Oracle(INSTANCE, 2).grade(answer)
        probed = pbebench.Oracle(INSTANCE, 2)
        probed.run_hidden(["abab"])
        for grade in (unprobed, probed.grade(answer)):
            assert (grade["pass"], grade["recovered"], grade["behaviour"]) == (
                scored["pass"],
                scored["recovered"],
                scored["behaviour"],
            ), answer
            assert grade["rules_left_out"] == len(answer) - scored["valid_rules"]
        assert unprobed["heldout_pass"] == scored["heldout_pass"], answer
        assert (unprobed["heldout_unprobed"], probed.grade(answer)["heldout_unprobed"]) == (2, 1)
    assert [pbebench.Oracle(INSTANCE, 0).grade(a)["pass"] for a in answers] == [True, False, False, True, False, False]


def test_summary_names_best_of_k_and_pass_at_1_with_intervals():
    """One passing sample of two on each instance: best-of-K 1, Pass@1 and the per-sample
    resolved 0.5, each with its standard error and 95% interval."""
    scores = [pbebench.score(INSTANCE, [GOLD, fence("[('c', 'd')]")]) for _ in range(3)]
    o = pbebench.summary(scores)
    assert "pass" not in o
    assert (o["best_of_k"], o["pass_at_1"]) == (1.0, 0.5)
    assert (o["resolved"], o["best_of_k_resolved"]) == (0.5, 1.0)
    interval = o["intervals"]["pass_at_1"]
    assert interval["lo"] <= 0.5 <= interval["hi"] and interval["method"] == "clustered"
    assert o["intervals"]["best_of_k"]["method"] == "wilson"


def test_oracle_takes_the_probe_length_of_eval_max_probe_len():
    assert pbebench.Oracle(INSTANCE, 2).task["max_probe_len"] == 32
    assert pbebench.DEFAULT_PROBE_LEN == 32
    oracle = pbebench.Oracle(INSTANCE, 2, max_probe_len=40)
    assert oracle.task["max_probe_len"] == 40
    assert oracle.run_hidden(["ab" * 20]) == ["d" * 20]
    with pytest.raises(pbebench.ProbeRefused, match="at most 40 are accepted"):
        oracle.run_hidden(["a" * 41])
    for bad in (0, 4097):
        with pytest.raises(ValueError, match=r"^Oracle\(\): max_probe_len: a probe length of .* is out of range"):
            pbebench.Oracle(INSTANCE, 2, max_probe_len=bad)
    with pytest.raises(ValueError, match="non-negative"):
        pbebench.Oracle(INSTANCE, 2, max_probe_len=-1)


def test_prompt_shows_only_the_visible_examples():
    text = pbebench.prompt(INSTANCE)
    assert "'xab'" in text and "abab" not in text and "{inputs}" not in text
    assert pbebench.prompt(INSTANCE, template="{inputs} -> {outputs} ({max_rules}, {{x}})") == (
        "['xab', 'cc', 'q'] -> ['xd', 'dd', 'q'] (3, {x})"
    )


def test_instances_from_dataset_lines_and_extra_columns():
    line = json.dumps(INSTANCE)
    with_columns = dict(json.loads(line), prompt="…", messages=[{"role": "user", "content": "…"}])
    minimal = {k: INSTANCE[k] for k in ("id", "inputs", "outputs", "max_rules", "max_rule_len", "alphabet")}
    assert pbebench.reward([with_columns, minimal], [GOLD, GOLD]) == [1.0, 1.0]


def test_generate_streams_and_stops_when_dropped():
    start = time.monotonic()
    gen = pbebench.generate("lite", seed=5, size=16 * 10_000)  # far too many to make up front
    assert gen.__length_hint__() == 160_000
    first = list(itertools.islice(gen, 3))
    assert time.monotonic() - start < 60
    assert [i["id"] for i in first] == ["lite-s5-00000", "lite-s5-00001", "lite-s5-00002"]
    assert gen.__length_hint__() == 160_000 - 3
    assert gen.stats is None
    del gen  # the background thread stops at its next instance


def test_generated_dicts_have_interned_keys_as_python_literals_do():
    import sys

    inst = next(iter(pbebench.generate("lite", seed=0, size=16)))
    assert all(key is sys.intern(key) for key in inst)
    assert list(inst)[:3] == ["id", "inputs", "outputs"]


def test_generate_stats_once_exhausted():
    gen = pbebench.generate("lite", seed=1, size=16, heldout=0)
    assert iter(gen) is gen
    assert len(list(gen)) == 16
    assert gen.stats["accepted"] == 16 and gen.stats["attempts"] >= 16
    assert next(gen, "done") == "done"


def test_batch_calls_release_the_gil():
    responses = [GOLD + "x" * 20_000] * 3_000
    ticks = 0
    stop = threading.Event()

    def tick():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.0005)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        time.sleep(0.01)
        before = ticks
        start = time.monotonic()
        rewards = pbebench.reward(INSTANCE, responses)
        elapsed = time.monotonic() - start
        during = ticks - before
    finally:
        stop.set()
        thread.join()
    assert rewards == [1.0] * len(responses)
    # With the GIL held for the whole call the ticker could not run at all during it.
    assert elapsed < 0.05 or during > 0, (elapsed, during)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_batch_calls_work_in_a_forked_child():
    # The parent's worker threads do not exist in a forked child (DataLoader workers,
    # datasets.map with num_proc): the child must get its own instead of waiting forever.
    responses = [GOLD] * 500
    assert pbebench.reward(INSTANCE, responses) == [1.0] * 500
    gen = pbebench.generate("lite", seed=1, size=16)
    next(gen)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork of a threaded process
        pid = os.fork()
    if pid == 0:
        ok = pbebench.reward(INSTANCE, responses) == [1.0] * 500
        ok = ok and pbebench.apply([["a", "b"]], ["a"] * 500) == ["b"] * 500
        try:
            next(gen)
            ok = False
        except RuntimeError as e:
            ok = ok and "forked" in str(e)
        os._exit(0 if ok else 1)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("reward in a forked child did not finish within 60 s")


BAD_INPUT = [
    (lambda: pbebench.generate("nope"), ValueError, "unknown preset 'nope'"),
    (lambda: pbebench.generate("lite", size=1000), ValueError, "size: balance by category needs a multiple of 16"),
    (lambda: pbebench.generate("lite", seed=-1), ValueError, "seed must be a non-negative integer"),
    (lambda: pbebench.generate("lite", seed="3"), TypeError, ""),
    (lambda: pbebench.generate("lite", colour=1), TypeError, "unexpected keyword argument 'colour'"),
    (lambda: pbebench.generate("lite", input_len=(6, 2)), ValueError, "input_len: the minimum 6 is larger"),
    (lambda: pbebench.generate("lite", input_len=(1, 2, 3)), ValueError, "input_len must be (min, max)"),
    (lambda: pbebench.generate("lite", alphabet="a"), ValueError, "alphabet: needs at least 2 letters"),
    (lambda: pbebench.generate("lite", alphabet=["a", "bc"]), ValueError, "not a single letter"),
    (lambda: pbebench.generate("lite", cascade_len="x"), ValueError, "cascade_len: 'x' is not a range"),
    (lambda: pbebench.generate("lite", cascade_len=[2, 9]), ValueError, "max_rules: the rule cap 5"),
    (lambda: pbebench.generate("lite", examples=True), TypeError, "examples must be an integer, not bool"),
    (lambda: pbebench.generate("lite", shard="3/2"), ValueError, "shard: 3/2 is not a shard"),
    (lambda: pbebench.generate("lite", balance="colour"), ValueError, "unknown balance 'colour'"),
    (lambda: pbebench.apply('[["a", "b"]]', ["x"]), TypeError, "json.loads"),
    (lambda: pbebench.apply([["", "x"]], ["a"]), ValueError, "cascade[0]: a rule's pattern"),
    (lambda: pbebench.apply([["a"]], ["a"]), ValueError, "cascade[0] must be a [pattern, replacement] pair"),
    (lambda: pbebench.apply([["a", 1]], ["a"]), TypeError, "cascade[0][1] must be a str, not int"),
    (lambda: pbebench.apply([["a", "b"]], [1]), TypeError, "words[0] must be a str, not int"),
    (lambda: pbebench.apply([["a", "b"]], None), TypeError, "words must be a list of strings"),
    (lambda: pbebench.apply(None, ["a"]), TypeError, "cascade must be a list"),
    (lambda: pbebench.relations([["a", "b"]], mode="fuzzy"), ValueError, "unknown relations mode 'fuzzy'"),
    (lambda: pbebench.parse_response(123), TypeError, ""),
    (lambda: pbebench.parse_response("x", max_rules=-1), ValueError, "max_rules must be a non-negative integer"),
    (lambda: pbebench.parse_response("x", block="middle"), ValueError, "'middle' is not a block choice"),
    (lambda: pbebench.prompt(INSTANCE, template="{examples}"), ValueError, "unknown placeholder {examples}"),
    (lambda: pbebench.score({"inputs": ["a"]}, ["x"]), ValueError, "missing field"),
    (lambda: pbebench.score(dict(INSTANCE, inputs="xab"), ["x"]), TypeError, "instance['inputs'] must be a list of strings"),
    (lambda: pbebench.score(dict(INSTANCE, outputs=["xd"]), ["x"]), ValueError, "3 inputs but 1 outputs"),
    (lambda: pbebench.score(dict(INSTANCE, inputs=[], outputs=[]), ["x"]), ValueError, "no examples"),
    (lambda: pbebench.score(dict(INSTANCE, max_rules=-2), ["x"]), ValueError, "instance['max_rules'] must be a non-negative"),
    (lambda: pbebench.score("instance", []), TypeError, "instance must be a dict"),
    (lambda: pbebench.score(INSTANCE, GOLD), TypeError, "not a single str"),
    (lambda: pbebench.score(INSTANCE, [GOLD], block="all"), ValueError, "block"),
    (lambda: pbebench.reward([INSTANCE, INSTANCE], ["a"]), ValueError, "got 2 instances for 1 responses"),
    (lambda: pbebench.reward(INSTANCE, [3]), TypeError, "responses[0] must be a str, None"),
    (lambda: pbebench.reward(INSTANCE, [{"role": "assistant"}]), ValueError, "without 'content'"),
    (lambda: pbebench.reward([INSTANCE, 7], ["a", "b"]), TypeError, "instances[1] must be a dict"),
    (lambda: pbebench.reward(INSTANCE, ["a"], heldout="yes"), TypeError, ""),
    (lambda: pbebench.reward(INSTANCE, ["\ud800"]), ValueError, ""),  # a lone surrogate: UnicodeEncodeError
]


@pytest.mark.parametrize("call,error,message", BAD_INPUT, ids=[m or e.__name__ for _, e, m in BAD_INPUT])
def test_bad_input_raises_a_clear_python_exception(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_garbage_responses_never_crash():
    nasty = [
        "[" * 100_000,
        "```python\n" + "(" * 50_000 + "\n```",
        "```python\n" + "replace(" * 10_000 + "\n```",
        "```python\n'\\N{NOT A NAME}' '\\x' r'\\' \"\"\"\n```",
        "\x00\ud7ff\U0010ffff```python\n[b'a', f'b', 1j, ...]\n```",
        "```" * 1_000,
        "<think>" * 1_000 + "</think>" * 999,
    ]
    rewards = pbebench.reward(INSTANCE, nasty)
    assert all(r <= 1.0 for r in rewards)
    for text in nasty:
        pbebench.parse_response(text)
        pbebench.score(INSTANCE, [text])


STUB = Path(pbebench.__file__).with_name("_pbebench.pyi")


def stub_functions():
    """Public functions and the Generation class of the stub: name → (node, docstring)."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            doc = ast.get_docstring(node)
            if node.name not in found or doc:
                found[node.name] = (node, doc)
    return found


def stub_constants():
    """The annotated module constants of the stub (``TEMPLATES: Dict[str, str]``)."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}


def test_stubs_match_the_runtime():
    stubs = stub_functions()
    assert set(stubs) | stub_constants() == set(pbebench.__all__)
    for name, (node, doc) in stubs.items():
        runtime = getattr(pbebench, name)
        assert doc == inspect.cleandoc(runtime.__doc__), f"{name}: the stub's docstring differs from help()"
        if isinstance(node, ast.FunctionDef):
            params = inspect.signature(runtime).parameters
            args = node.args
            stub_names = [a.arg for a in args.args + args.kwonlyargs] + ([args.kwarg.arg] if args.kwarg else [])
            assert stub_names == list(params), name
            defaults = [ast.literal_eval(d) for d in args.defaults]
            runtime_defaults = [p.default for p in params.values() if p.default is not inspect.Parameter.empty]
            assert defaults == runtime_defaults, name


def _brute_behaviour(gold, answer, alphabet, lo, hi):
    """The changed agreement counted string by string in CPython (str.replace), as an exact
    fraction: lengths uniform over lo..hi, letters uniform."""
    from fractions import Fraction

    def run(cascade, s):
        for a, b in cascade:
            s = s.replace(a, b)
        return s

    changed = agree = Fraction(0)
    first = None
    for n in range(lo, hi + 1):
        weight = Fraction(1, (hi - lo + 1) * len(alphabet) ** n)
        for letters in itertools.product(alphabet, repeat=n):
            s = "".join(letters)
            g, a = run(gold, s), run(answer, s)
            if g != a and first is None:
                first = (s, g, a)
            if g != s:
                changed += weight
                agree += weight * (g == a)
    return (agree / changed if changed else None), first


def test_score_and_reward_grade_behaviour_as_cpython_counts():
    fits = [["ab", "d"], ["cc", "dd"]]  # every visible example, not "c" → "d"
    same = [["ab", "d"], ["c", "d"]]  # another cascade, the same function
    texts = [GOLD, released(fits), released(same), None]
    s = pbebench.score(INSTANCE, texts)
    assert s["graded"] and s["recovered"] is True
    # The input space: "abcdqx", lengths 1 ("q") to 6: the presets' 2..6, widened to the
    # inputs' 1..4 ("q" to "abab", held out).
    for text, cascade, sample in zip(texts, [INSTANCE["cascade"], fits, same, []], s["samples"]):
        behaviour, first = _brute_behaviour(INSTANCE["cascade"], cascade, "abcdqx", 1, 6)
        assert sample["behaviour"] == float(behaviour)
        assert sample["recovered"] == (first is None)
        if sample["pass"] and first is not None:
            assert sample["counterexample"] == {"input": first[0], "gold": first[1], "answer": first[2]}
        else:
            assert "counterexample" not in sample
    assert s["samples"][1]["counterexample"]["input"] == "c"
    assert pbebench.reward(INSTANCE, texts, kind="behaviour") == [x["behaviour"] for x in s["samples"]]
    assert pbebench.reward([INSTANCE] * 4, texts, kind="behaviour") == [x["behaviour"] for x in s["samples"]]
    no_gold = {k: v for k, v in INSTANCE.items() if k != "cascade"}
    graded = pbebench.score(no_gold, [GOLD])
    assert not graded["graded"] and graded["recovered"] is None and graded["samples"][0]["behaviour"] is None
    with pytest.raises(ValueError, match="no gold cascade"):
        pbebench.reward(no_gold, [GOLD], kind="behaviour")
    with pytest.raises(ValueError, match="unknown reward kind"):
        pbebench.reward(INSTANCE, [GOLD], kind="fit")
    # Outputs that explode are bounded: a verdict (here from a counterexample), no run-away.
    blowup = dict(INSTANCE, max_rules=20, max_rule_len=3)
    [value] = pbebench.reward(blowup, [released([["a", "aaa"]] * 20)], kind="behaviour")
    assert type(value) is float and value < 1.0
    assert pbebench.score(blowup, [released([["a", "aaa"]] * 20)])["recovered"] is False


def test_alphabets_take_names_and_ranges_as_the_command_line_does():
    """parse_response's alphabet reads names and ranges as --alphabet does (issue 37.9):
    "lite" is a-k and u-z, not the letters l, i, t, e; a repeated letter is refused."""
    text = fence("[('ab', 'c'), ('u', 'k')]")
    named = pbebench.parse_response(text, alphabet="lite")
    spelled = pbebench.parse_response(text, alphabet="abcdefghijkuvwxyz")
    ranged = pbebench.parse_response(text, alphabet="a-ku-z")
    assert named == spelled == ranged
    assert [r["valid"] for r in named["rules"]] == [True, True]
    with pytest.raises(ValueError, match=r"parse_response\(\): alphabet: the letter 'a' appears twice"):
        pbebench.parse_response(text, alphabet="aab")
