"""The bindings give the same results as the `pbebench` binary for the same inputs and seed."""

import json

from conftest import HELDOUT, PRESET, SEED, SIZE, responses_for

import pbebench


def compact(value):
    """A dict written the way the CLI writes JSONL lines (serde_json's compact form)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_generate_matches_cli_jsonl_line_for_line(cli_lines, instances):
    assert len(cli_lines) == SIZE
    assert len(instances) == SIZE
    for line, instance in zip(cli_lines, instances):
        assert instance == json.loads(line)
        assert compact(instance) == line, "same keys, same order, same text"
    assert all(len(i["heldout_inputs"]) == HELDOUT for i in instances)


def test_generate_with_overrides_matches_cli(cli):
    args = dict(
        examples=4,
        alphabet="a-fx",
        input_len=(3, 5),
        cascade_len=[2, 3],
        rule_len="1..2",
        balance="length",
        relations="paper",
        heldout=2,
        max_rules=6,
        patience=500,
    )
    ours = list(pbebench.generate("lite", seed=11, size=8, **args))
    out = cli(
        "generate", "--preset", "lite", "--seed", 11, "--size", 8, "--examples", 4,
        "--alphabet", "a-fx", "--input-len", "3..5", "--cascade-len", "2,3", "--rule-len", "1..2",
        "--balance", "length", "--relations", "paper", "--heldout", 2, "--max-rules", 6,
        "--patience", 500,
    )
    assert [compact(i) for i in ours] == out.splitlines()
    assert {i["alphabet"] for i in ours} == {"abcdefx"}
    assert {i["relations_mode"] for i in ours} == {"paper"}


def test_generate_with_the_published_sampler_matches_cli(cli):
    ours = list(pbebench.generate("lite", seed=3, size=16, pattern_draw="published"))
    out = cli("generate", "--preset", "lite", "--seed", 3, "--size", 16, "--pattern-draw", "published")
    assert [compact(i) for i in ours] == out.splitlines()
    preset = list(pbebench.generate("lite-published", seed=3, size=16))
    out = cli("generate", "--preset", "lite-published", "--seed", 3, "--size", 16)
    assert [compact(i) for i in preset] == out.splitlines()


def test_generate_shards_and_threads_do_not_change_the_dataset(cli, instances):
    first = list(pbebench.generate(PRESET, seed=SEED, size=SIZE, heldout=HELDOUT, shard=(0, 2)))
    second = list(pbebench.generate(PRESET, seed=SEED, size=SIZE, heldout=HELDOUT, shard="1/2"))
    assert first + second == instances
    one_thread = list(pbebench.generate(PRESET, seed=SEED, size=SIZE, heldout=HELDOUT, threads=1))
    assert one_thread == instances
    out = cli("generate", "--preset", PRESET, "--seed", SEED, "--size", SIZE, "--heldout", HELDOUT, "--shard", "1/2")
    assert [compact(i) for i in second] == out.splitlines()


def test_apply_matches_cli(cli, instances):
    for instance in instances[:8]:
        cascade = instance["cascade"]
        words = instance["inputs"] + instance["heldout_inputs"]
        out = cli("apply", "--cascade", json.dumps(cascade), *words)
        assert pbebench.apply(cascade, words) == out.splitlines()
        assert pbebench.apply(cascade, instance["inputs"]) == instance["outputs"]
    cascade = [["é", "e"], ["aa", "b"], ["b", ""]]
    words = ["café", "aaa", "aaaa", "bab", "ʔaaː"]
    out = cli("apply", "--cascade", json.dumps(cascade), *words)
    assert pbebench.apply(cascade, words) == out.splitlines()


def test_relations_match_cli_in_both_modes(cli, instances):
    for instance in instances:
        cascade = instance["cascade"]
        for mode in ("exact", "paper"):
            out = cli("relations", "--cascade", json.dumps(cascade), "--mode", mode, "--format", "json")
            ours = pbebench.relations(cascade, mode=mode)
            assert ours == json.loads(out)
            assert compact(ours) == out.strip()
        assert pbebench.relations(cascade)["category"] == instance["category"]


PARSE_TEXTS = [
    "```python\n[\"replace('ab', 'c')\", \"replace('c', '')\"]\n```",
    "draft:\n```python\n[('a', 'b')]\n```\nfinal:\n```py\ns = s.replace('x', 'yy').replace('q', 'zzzz')\n```",
    "<think>```python\n[\"replace('a', 'b')\"]\n```</think>no block after thinking",
    "<think>never closed ```python\n[('a','b')]\n```",
    "```python\n[\"replace('a', 'b')\", \"replace('', 'b')\", \"replace('é', 'b')\", 3]\n```",
    "```python\n" + ", ".join(f"replace('{c}', 'a')" for c in "bcdefgh") + "\n```",
    "```python\n[[[[\n```",
    "",
]


def test_parse_response_matches_cli(cli):
    for text in PARSE_TEXTS:
        for block in ("last", "first"):
            out = cli("parse", "--max-rules", 5, "--max-rule-len", 3, "--alphabet", "abcdefghxyz", "--block", block, stdin=text)
            ours = pbebench.parse_response(text, max_rules=5, max_rule_len=3, alphabet="abcdefghxyz", block=block)
            assert ours == json.loads(out), text
        out = cli("parse", stdin=text)
        assert pbebench.parse_response(text, max_rules=None, max_rule_len=None) == json.loads(out), text


def test_prompt_matches_cli(cli, dataset_file, instances):
    lines = cli("prompt", "--dataset", dataset_file).splitlines()
    assert [json.loads(line)["prompt"] for line in lines] == [pbebench.prompt(i) for i in instances]


def test_score_matches_cli_per_instance(cli, dataset_file, instances, tmp_path):
    answered = instances[:-3]  # the last three get no response: scored as missing
    responses = {i["id"]: responses_for(i, k) for k, i in enumerate(answered)}
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps({"id": i, "responses": r}) + "\n" for i, r in responses.items()))
    per_instance = tmp_path / "per_instance.jsonl"
    cli("score", "--dataset", dataset_file, "--responses", path, "--per-instance", per_instance)
    lines = per_instance.read_text().splitlines()
    assert len(lines) == SIZE
    for instance, line in zip(instances, lines):
        ours = pbebench.score(instance, responses.get(instance["id"], []))
        assert ours == json.loads(line), instance["id"]
        assert compact(ours) == line
    # Every kind of response occurs, and some pass: the comparison is not vacuous.
    scores = [json.loads(line) for line in lines]
    assert any(s["pass"] for s in scores) and not all(s["pass"] for s in scores)
    assert sum(s["missing"] for s in scores) == 3


def test_reward_is_the_cli_edit_sim_of_each_sample(cli, dataset_file, instances, tmp_path):
    responses = {i["id"]: responses_for(i, k + 2) for k, i in enumerate(instances)}
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps({"id": i, "responses": r}) + "\n" for i, r in responses.items()))
    per_instance = tmp_path / "per_instance.jsonl"
    cli("score", "--dataset", dataset_file, "--responses", path, "--per-instance", per_instance)
    flat_instances, flat_responses, expected = [], [], []
    for instance, line in zip(instances, per_instance.read_text().splitlines()):
        samples = json.loads(line)["samples"]
        flat_instances += [instance] * len(samples)
        flat_responses += responses[instance["id"]]
        expected += [s["edit_sim"] for s in samples]
    assert pbebench.reward(flat_instances, flat_responses) == expected
    assert len(set(expected)) > 3, "a spread of rewards, not only 0 and 1"


def test_pairs_match_cli(cli, tmp_path):
    words_in = ["matuʔa", "loa", "susu", "fea", "fale"]
    words_out = ["maːkua", "loa", "uː", "hea", "hale"]
    (tmp_path / "words.in").write_text("\n".join(words_in), encoding="utf-8")
    (tmp_path / "words.out").write_text("\n".join(words_out) + "\n", encoding="utf-8")
    out = tmp_path / "pairs.jsonl"
    cli("pairs", "--inputs", tmp_path / "words.in", "--outputs", tmp_path / "words.out",
        "--name", "haw", "--chunk", "2", "--out", out)
    ours = pbebench.pairs(words_in, words_out, name="haw", chunk=2)
    assert [compact(d) for d in ours] == out.read_text(encoding="utf-8").splitlines()
    assert [d["id"] for d in ours] == ["haw-0", "haw-1", "haw-2"]
    assert ours[0]["cascade"] is None and ours[0]["max_rules"] == 50
    # A dict of real data is rewarded like any other: the identity earns 0.
    assert pbebench.reward(ours[0], [""]) == [0.0]


def test_pairs_refuse_bad_lists():
    import pytest

    with pytest.raises(ValueError, match="2 inputs but 1 outputs"):
        pbebench.pairs(["a", "b"], ["c"])
    with pytest.raises(ValueError, match=r"outputs\[0\] is empty"):
        pbebench.pairs(["a"], [""])
    with pytest.raises(ValueError, match="chunk"):
        pbebench.pairs(["a"], ["b"], chunk=-1)
