"""pbebench.vet: one instance through the vetting loop, the same as `pbebench vet` gives."""

import json

import pytest

import pbebench


def test_vet_keeps_what_the_cli_keeps_line_for_line(cli, dataset_file, instances, tmp_path):
    out, stats = tmp_path / "vetted.jsonl", tmp_path / "stats.json"
    # No replacements: a slot the loop does not keep is dropped, as vet() returns None.
    cli("vet", "--dataset", dataset_file, "--out", out, "--replacements", 0, "--stats-json", stats)
    kept = {line["id"]: line for line in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    dropped = {slot["id"]: slot["reason"] for slot in json.loads(stats.read_text())["dropped_slots"]}
    assert kept and len(kept) + len(dropped) == len(instances)
    for inst in instances:
        vetted, why = pbebench.vet(inst)
        if inst["id"] in kept:
            assert why is None and vetted == kept[inst["id"]], inst["id"]
        else:
            assert vetted is None and dropped[inst["id"]].startswith(why), (inst["id"], why)


def test_vet_is_deterministic_and_takes_its_arguments(instances):
    inst = instances[0]
    assert pbebench.vet(inst) == pbebench.vet(dict(inst))
    vetted, _ = pbebench.vet(inst, max_examples=40, panel="neighbours,beam@100", seed=3)
    assert vetted["repair"]["panel"] == "neighbours,beam@100"
    assert vetted["repair"]["max_examples"] == 40 and vetted["repair"]["seed"] == 3
    # At a cap equal to the examples it has, an instance that needs one more is not kept.
    for inst in instances:
        vetted, _ = pbebench.vet(inst)
        if vetted is not None and vetted["repair"]["added"]:
            none, why = pbebench.vet(inst, max_examples=len(inst["inputs"]))
            assert none is None and "at 5 examples" in why, why
            break
    else:
        pytest.fail("no instance of the set needed an added example")


def test_vet_refuses_bad_input(instances):
    inst = instances[0]
    with pytest.raises(ValueError, match=r"vet\(\): .*no gold cascade"):
        pbebench.vet({k: v for k, v in inst.items() if k != "cascade"})
    with pytest.raises(ValueError, match=r"vet\(\): max_examples 2 is smaller than the 5 visible examples"):
        pbebench.vet(inst, max_examples=2)
    with pytest.raises(ValueError, match=r"vet\(\): max_examples 100000 is more than"):
        pbebench.vet(inst, max_examples=100000)
    with pytest.raises(ValueError, match=r"vet\(\): panel: unknown panel member 'oracle'"):
        pbebench.vet(inst, panel="oracle")
    with pytest.raises(ValueError, match=r"vet\(\): max_examples must be a non-negative integer"):
        pbebench.vet(inst, max_examples=-1)
    with pytest.raises(TypeError, match=r"vet\(\): instance must be a dict"):
        pbebench.vet("not a dict")
    wrong = dict(inst, outputs=["x"] * len(inst["outputs"]))
    with pytest.raises(ValueError, match=r"vet\(\): instance \(id 'lite-s3-00000'\): example 0: the cascade maps"):
        pbebench.vet(wrong)
