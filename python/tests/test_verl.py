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
            assert got == pbebench.reward(inst, [response])[0]
        assert reward_file.compute_score("pbebench", released(inst["cascade"]), truth, None) == 1.0
        assert reward_file.compute_score("pbebench", "no idea", json.loads(truth)) == 0.0
        # heldout_reward also scores the held-out examples.
        partial = released(inst["cascade"][:-1])
        extra = dict(row["extra_info"], heldout_reward=True)
        assert reward_file.compute_score("pbebench", partial, truth, extra) == pbebench.reward(inst, [partial], heldout=True)[0]


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
            assert got == pbebench.score(inst, [response])["samples"][0]["behaviour"]
        assert reward_file.compute_score("pbebench", released(inst["cascade"]), truth, row["extra_info"]) == 1.0
        assert reward_file.compute_score("pbebench", "no idea", truth, row["extra_info"]) == 0.0
