"""The verl integration without verl (too heavy for CI): the parquet layout that
examples/verl/prepare_data.py writes, read back with pyarrow, and pbebench.verl.compute_score
called as verl calls a custom reward function (its file loaded by path, four arguments).

Skipped without pyarrow (pip install './python[verl]'), except in CI, where
PBEBENCH_REQUIRE_FRAMEWORKS=1 turns the skip into a failure.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import released, responses_for

from conftest import framework  # noqa: E402

pa = framework("pyarrow", "verl")
import pyarrow.parquet as pq  # noqa: E402

import pbebench  # noqa: E402
import pbebench.verl  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "verl"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    out = tmp_path_factory.mktemp("verl")
    prepare = load(EXAMPLES / "prepare_data.py", "prepare_data")
    code = prepare.main(["--preset", "lite", "--seed", "4", "--train-size", "32", "--test-size", "16",
                         "--heldout", "2", "--out-dir", str(out)])
    assert code == 0
    return out


def test_the_parquet_layout_is_verls(prepared):
    train = pq.read_table(prepared / "train.parquet")
    assert train.column_names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
    schema = train.schema
    assert schema.field("data_source").type == pa.string()
    assert schema.field("prompt").type == pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
    assert schema.field("reward_model").type == pa.struct([("style", pa.string()), ("ground_truth", pa.string())])
    rows = train.to_pylist()
    instances = list(pbebench.generate("lite", seed=4, size=32, heldout=2))
    assert len(rows) == 32
    for k, (row, inst) in enumerate(zip(rows, instances)):
        assert row == pbebench.verl.row(inst, k, "train")
        assert row["data_source"] == "pbebench" and row["ability"] == "pbe"
        assert row["prompt"] == [{"role": "user", "content": pbebench.prompt(inst)}]
        assert row["reward_model"]["style"] == "rule"
        truth = json.loads(row["reward_model"]["ground_truth"])
        assert "cascade" not in truth, "the gold cascade is in no row"
        assert truth["inputs"] == inst["inputs"] and truth["heldout_outputs"] == inst["heldout_outputs"]
        assert row["extra_info"] == {"split": "train", "index": k, "id": inst["id"], "cascade_len": inst["cascade_len"],
                                     "category": inst["category"], "heldout_reward": False}
    test = pq.read_table(prepared / "test.parquet").to_pylist()
    assert test and all(r["extra_info"]["split"] == "test" for r in test)
    seen = {tuple(r["prompt"][0]["content"].split("Inputs:")[1:]) for r in rows}
    assert not any(tuple(r["prompt"][0]["content"].split("Inputs:")[1:]) in seen for r in test)
    assert not list(prepared.glob(".pbebench-*")), "no temporary file is left"


def test_compute_score_as_verl_calls_it(prepared):
    # verl loads the file by path (custom_reward_function.path) under its own module name.
    reward_file = load(pbebench.verl.__file__, "custom_module")
    rows = pq.read_table(prepared / "train.parquet").to_pylist()
    instances = list(pbebench.generate("lite", seed=4, size=32, heldout=2))
    for k, (row, inst) in enumerate(zip(rows, instances)):
        truth = row["reward_model"]["ground_truth"]
        for response in responses_for(inst, k) + [released(inst["cascade"])]:
            got = reward_file.compute_score(row["data_source"], response, truth, row["extra_info"])
            sample = pbebench.score(inst, [response])["samples"][0]
            # The parts reach verl's logs; rows without the gold have no behaviour to give.
            assert got == {"score": pbebench.reward(inst, [response])[0], "pass": float(sample["pass"]),
                           "edit_sim": sample["edit_sim"]}
        assert reward_file.compute_score("pbebench", released(inst["cascade"]), truth, None)["score"] == 1.0
        assert reward_file.compute_score("pbebench", "no idea", json.loads(truth))["score"] == 0.0
        # heldout_reward also scores the held-out examples.
        partial = released(inst["cascade"][:-1])
        extra = dict(row["extra_info"], heldout_reward=True)
        got = reward_file.compute_score("pbebench", partial, truth, extra)["score"]
        assert got == pbebench.reward(inst, [partial], heldout=True)[0]


def test_the_example_script_and_its_errors(tmp_path):
    script = (EXAMPLES / "run_grpo.sh").read_text()
    assert "custom_reward_function.name=compute_score" in script
    assert "import pbebench.verl as v; print(v.__file__)" in script
    assert subprocess.run(["bash", "-n", str(EXAMPLES / "run_grpo.sh")]).returncode == 0
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "prepare_data.py"), "--template", str(tmp_path / "missing.txt"),
         "--train-size", "16", "--test-size", "16", "--out-dir", str(tmp_path)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "missing.txt" in proc.stderr
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "prepare_data.py"), "--train-size", "10", "--out-dir", str(tmp_path)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2 and "multiple of 16" in proc.stderr
    assert not (tmp_path / "train.parquet").exists()


def test_the_behavioural_reward_as_verl_calls_it(tmp_path):
    prepare = load(EXAMPLES / "prepare_data.py", "prepare_data_behaviour")
    code = prepare.main(["--preset", "lite", "--seed", "4", "--train-size", "16", "--test-size", "16",
                         "--behaviour-reward", "--out-dir", str(tmp_path)])
    assert code == 0
    reward_file = load(pbebench.verl.__file__, "custom_module_behaviour")
    rows = pq.read_table(tmp_path / "train.parquet").to_pylist()
    instances = list(pbebench.generate("lite", seed=4, size=16))
    for k, (row, inst) in enumerate(zip(rows, instances)):
        assert row["extra_info"]["reward_kind"] == "behaviour"
        truth = row["reward_model"]["ground_truth"]
        assert json.loads(truth)["cascade"] == inst["cascade"]
        for response in responses_for(inst, k) + [released(inst["cascade"])]:
            got = reward_file.compute_score(row["data_source"], response, truth, row["extra_info"])
            sample = pbebench.score(inst, [response])["samples"][0]
            assert got["score"] == got["behaviour"] == sample["behaviour"]
            assert (got["recovered"], got["pass"]) == (float(sample["recovered"]), float(sample["pass"]))
            assert got["undecided"] == 0.0 and set(got) == {"score", "pass", "edit_sim", "recovered", "behaviour", "undecided"}
        assert reward_file.compute_score("pbebench", released(inst["cascade"]), truth, row["extra_info"])["score"] == 1.0
        assert reward_file.compute_score("pbebench", "no idea", truth, row["extra_info"])["score"] == 0.0
    # verl's batch reward manager: one dict per response, the same as one by one, and the
    # keyword arguments it adds are taken.
    responses = [released(inst["cascade"]) for inst in instances]
    truths = [row["reward_model"]["ground_truth"] for row in rows]
    extras = [row["extra_info"] for row in rows]
    batch = reward_file.compute_score_batch(data_sources=["pbebench"] * 16, solution_strs=responses,
                                            ground_truths=truths, extra_infos=extras, some_reward_kwarg=1)
    assert batch == [reward_file.compute_score("pbebench", r, t, e) for r, t, e in zip(responses, truths, extras)]
    with pytest.raises(ValueError, match="compute_score_batch\\(\\): ground_truths has 15 items but solution_strs has 16"):
        reward_file.compute_score_batch(["pbebench"] * 16, responses, truths[:15], extras)


def test_probing_rows_without_tool_calls():
    """A probing row (probe_row) whose model called no tool: its answer is the last code block
    of the response, graded as `pbebench eval --interactive` grades it. The episode with tool
    calls goes through verl itself in test_verl_tools.py."""
    inst = next(pbebench.generate("lite", seed=5, size=16))
    row = pbebench.verl.probe_row(inst, 0, "train", probe_budget=7)
    assert row["agent_name"] == "tool_agent"
    assert row["prompt"][0]["content"].startswith("Each output string below")
    assert "budget of 7 inputs" in row["prompt"][0]["content"]
    assert set(row["extra_info"]["tools_kwargs"]) == {"run_hidden", "test_cascade", "submit"}
    truth = row["reward_model"]["ground_truth"]
    assert json.loads(truth)["cascade"] == inst["cascade"]
    got = pbebench.verl.compute_score("pbebench", released(inst["cascade"]), truth, row["extra_info"])
    assert got == {"score": 1.0, "pass": 1.0, "recovered": 1.0, "behaviour": 1.0, "undecided": 0.0,
                   "probes_used": 0.0, "tests": 0.0, "submitted": 0.0}
    assert pbebench.verl.compute_score("pbebench", "no idea", truth, row["extra_info"])["score"] == 0.0
    bare = dict(inst)
    del bare["cascade"]
    with pytest.raises(ValueError, match="probe_row\\(\\): the instance has no gold 'cascade'"):
        pbebench.verl.probe_row(bare, 0, "train")
    with pytest.raises(ValueError, match="a probing row's ground_truth has no gold 'cascade'"):
        pbebench.verl.compute_score("pbebench", "", pbebench.verl.ground_truth(inst), row["extra_info"])


def test_prepare_data_writes_probing_rows(tmp_path):
    prepare = load(EXAMPLES / "prepare_data.py", "prepare_data_probe")
    code = prepare.main(["--preset", "lite", "--seed", "4", "--train-size", "16", "--test-size", "16",
                         "--probe", "--probe-budget", "12", "--out-dir", str(tmp_path)])
    assert code == 0
    rows = pq.read_table(tmp_path / "train.parquet").to_pylist()
    instances = list(pbebench.generate("lite", seed=4, size=16))
    assert rows == [pbebench.verl.probe_row(inst, k, "train", probe_budget=12) for k, inst in enumerate(instances)]
    row = rows[3]
    got = pbebench.verl.compute_score(row["data_source"], released(instances[3]["cascade"]),
                                      row["reward_model"]["ground_truth"], row["extra_info"])
    assert got["score"] == 1.0
