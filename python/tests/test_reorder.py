"""The rule-reordering task in Python: reorder(), reorder_prompt(), parse_order(),
score_order() and solve_order() give what `pbebench reorder`, `prompt`, `score` and the
audit's search give on the same set, malformed answers are graded as invalid, and bad
arguments raise exceptions naming them."""

import json

import pytest

import pbebench

REPO_FIXTURE = "testdata/reorder-authors/records.jsonl"


@pytest.fixture(scope="module")
def reorder_file(cli, dataset_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("reorder") / "reorder.jsonl"
    cli("reorder", "--dataset", dataset_file, "--out", out, "--seed", 4)
    return out


@pytest.fixture(scope="module")
def problems(reorder_file):
    return [json.loads(line) for line in reorder_file.read_text().splitlines()]


def test_reorder_matches_the_cli_line_for_line(instances, problems):
    by_id = {i["id"]: i for i in instances}
    for p in problems:
        assert pbebench.reorder(by_id[p["id"]], seed=4) == p
    assert len(problems) > 0


def test_swap_first_matches_the_cli_line_for_line(cli, dataset_file, instances, tmp_path):
    out = tmp_path / "swap.jsonl"
    cli("reorder", "--dataset", dataset_file, "--out", out, "--seed", 4, "--scramble", "swap-first")
    swapped = [json.loads(line) for line in out.read_text().splitlines()]
    by_id = {i["id"]: i for i in instances}
    for p in swapped:
        assert pbebench.reorder(by_id[p["id"]], seed=4, scramble="swap-first") == p
    # One exchange each: the gold order differs from the scrambled one in two places.
    assert all(sum(k != j for j, k in enumerate(p["order"])) == 2 for p in swapped)
    with pytest.raises(ValueError, match=r"reorder\(\): scramble: unknown scramble 'swap'.*swap-first"):
        pbebench.reorder(instances[0], scramble="swap")


def test_an_instance_that_gives_no_problem_says_why(instances):
    one = dict(instances[0], cascade=[["a", "b"]], cascade_len=1, inputs=["a"], outputs=["b"], heldout_inputs=[], heldout_outputs=[])
    with pytest.raises(ValueError, match="every order valid"):
        pbebench.reorder(one)
    with pytest.raises(ValueError, match="seed"):
        pbebench.reorder(instances[0], seed=-1)


def test_prompts_match_the_cli(cli, reorder_file, problems):
    lines = [json.loads(line) for line in cli("prompt", "--dataset", reorder_file).splitlines()]
    assert [line["prompt"] for line in lines] == [pbebench.reorder_prompt(p) for p in problems]


def test_scores_match_the_cli(cli, reorder_file, problems, tmp_path):
    responses = []
    for k, p in enumerate(problems):
        n = len(p["scrambled"])
        text = [f"```json\n{p['order']}\n```", str(list(range(n))[::-1]), "[0, 0]", "no idea"][k % 4]
        responses.append({"id": p["id"], "response": text})
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in responses))
    per = tmp_path / "per.jsonl"
    cli("score", "--dataset", reorder_file, "--responses", path, "--per-instance", per, "--out", tmp_path / "s.json")
    expected = [json.loads(line) for line in per.read_text().splitlines()]
    got = [pbebench.score_order(p, [r["response"]]) for p, r in zip(problems, responses)]
    assert got == expected
    assert got[0]["samples"][0]["exact"] is True


@pytest.mark.parametrize(
    "text, kind",
    [("[0, 0, 1]", "repeated"), ("[0, 1]", "wrong_length"), ("[0, 1, 9]", "out_of_range"), ("nothing", "no_array"), ("<think>[0, 1, 2]", "unfinished")],
)
def test_malformed_answers_are_invalid_never_errors(text, kind):
    parsed = pbebench.parse_order(text, 3)
    assert parsed["valid"] is False
    assert parsed["problem"]["kind"] == kind
    assert pbebench.parse_order("```json\n[2, 0, 1]\n```", 3) == {"order": [2, 0, 1], "valid": True}


def test_the_solver_reproduces_every_problem(problems):
    for p in problems:
        found = pbebench.solve_order(p)
        assert found["gave_up"] is False
        sample = pbebench.score_order(p, [json.dumps(found["order"])])["samples"][0]
        assert sample["accurate"] is True
    spent = pbebench.solve_order(problems[0], max_nodes=1)
    assert spent["order"] is None and spent["gave_up"] is True


def test_the_authors_records_are_problems(problems):
    from conftest import REPO

    record = json.loads((REPO / REPO_FIXTURE).read_text().splitlines()[0])
    assert pbebench.reorder_prompt(record) == record["prompt"]
    assert pbebench.score_order(record, [json.dumps(record["ground_truth_order"])])["samples"][0]["exact"] is True


def test_bad_arguments_name_themselves(problems):
    with pytest.raises(TypeError, match="score_order"):
        pbebench.score_order("not a dict", ["[0]"])
    broken = dict(problems[0], order=[0, 0])
    with pytest.raises(ValueError, match="not a permutation"):
        pbebench.reorder_prompt(broken)
    with pytest.raises(ValueError, match="block"):
        pbebench.parse_order("[0]", 1, block="middle")
