"""CLDF word lists: a Wordlist written by pycldf (the reference library of the format) is
read by `pbebench pairs --cldf`, its segments of several characters kept as symbols with
their table in the dataset; the Wordlists shipped in testdata/cldf are valid CLDF, and the
converted word lists are what their script writes.

pycldf is needed for the first two tests only, and is no dependency of the package: they
are skipped without it (pip install pycldf), except in CI (python/ci.sh --frameworks
installs it and sets PBEBENCH_REQUIRE_FRAMEWORKS=1), where a missing pycldf fails them.
"""

import filecmp
import json
import runpy
from pathlib import Path

import pytest

import pbebench
from conftest import REQUIRE_FRAMEWORKS

REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "testdata" / "cldf"


def pycldf():
    try:
        import pycldf as module
    except ImportError as e:
        message = f"pycldf is not installed (pip install pycldf): {e}"
        if REQUIRE_FRAMEWORKS:
            pytest.fail(f"PBEBENCH_REQUIRE_FRAMEWORKS is set but {message}", pytrace=False)
        pytest.skip(message)
    return module


# A proto-language and a daughter: k > t͡ʃ / _ i, aː > a, tones kept (a˥).
FORMS = [
    ("hand", ["k", "i", "t", "a"], ["t͡ʃ", "i", "t", "a"]),
    ("water", ["m", "aː", "k", "i"], ["m", "a", "t͡ʃ", "i"]),
    ("fire", ["p", "a˥", "k", "a"], ["p", "a˥", "k", "a"]),
    ("stone", ["k", "aː", "l", "u"], ["k", "a", "l", "u"]),
]


def test_a_pycldf_wordlist_pairs_by_cognate_set(cli, tmp_path):
    cldf = pycldf()
    ds = cldf.Wordlist.in_dir(tmp_path / "cldf")
    ds.add_component("LanguageTable")
    ds.add_component("CognateTable")
    forms, cognates = [], []
    for concept, proto, reflex in FORMS:
        for language, segments in (("proto", proto), ("daughter", reflex)):
            form_id = f"{language}-{concept}"
            forms.append(
                {
                    "ID": form_id,
                    "Language_ID": language,
                    "Parameter_ID": concept,
                    "Form": "".join(segments),
                    "Segments": segments,
                }
            )
            cognates.append({"ID": f"c-{form_id}", "Form_ID": form_id, "Cognateset_ID": concept})
    # A daughter word with no proto-form: counted, not paired.
    forms.append(
        {"ID": "daughter-moon", "Language_ID": "daughter", "Parameter_ID": "moon", "Form": "na", "Segments": ["n", "a"]}
    )
    cognates.append({"ID": "c-moon", "Form_ID": "daughter-moon", "Cognateset_ID": "moon"})
    ds.write(
        FormTable=forms,
        LanguageTable=[{"ID": "proto", "Name": "Proto"}, {"ID": "daughter", "Name": "Daughter"}],
        CognateTable=cognates,
    )
    ds.validate()
    metadata = tmp_path / "cldf" / "Wordlist-metadata.json"
    assert metadata.is_file()
    out = tmp_path / "pairs.jsonl"
    unpaired = tmp_path / "unpaired.tsv"
    cli("pairs", "--cldf", metadata, "--from", "Proto", "--to", "daughter", "--unpaired", unpaired, "--out", out)
    [line] = out.read_text(encoding="utf-8").splitlines()
    inst = json.loads(line)
    assert inst["id"] == "daughter-0"
    symbols = inst["symbols"]
    assert sorted(symbols.values()) == ["aː", "a˥", "t͡ʃ"]
    assert all(len(symbol) == 1 for symbol in symbols)

    def segments(word):
        return [symbols.get(c, c) for c in word]

    assert [segments(w) for w in inst["inputs"]] == [proto for _, proto, _ in FORMS]
    assert [segments(w) for w in inst["outputs"]] == [reflex for _, _, reflex in FORMS]
    assert unpaired.read_text(encoding="utf-8").splitlines()[1:] == [
        "daughter\tdaughter-moon\t10\tno counterpart\tn a"
    ]
    # The Python bindings read the dataset, symbols and all.
    [read] = pbebench.read_dataset(out)
    assert read["symbols"] == symbols


def test_the_shipped_wordlists_are_valid_cldf():
    cldf = pycldf()
    for name in ("toy", "real_sli"):
        ds = cldf.Dataset.from_metadata(TESTDATA / name / "Wordlist-metadata.json")
        assert ds.module == "Wordlist"
        assert ds.validate(), name


def test_the_converted_word_lists_are_what_the_script_writes(tmp_path):
    script = TESTDATA / "real_sli" / "convert.py"
    runpy.run_path(str(script), run_name="convert").get("main")(tmp_path)
    names = ["Wordlist-metadata.json", "languages.csv", "parameters.csv", "forms.csv", "cognates.csv"]
    match, mismatch, errors = filecmp.cmpfiles(tmp_path, TESTDATA / "real_sli", names, shallow=False)
    assert (mismatch, errors) == ([], []), "run testdata/cldf/real_sli/convert.py and commit its output"
