"""Writes the authors' six real word lists (testdata/pbebench-official/real_sli) as one
CLDF Wordlist, in this folder (or in the folder given as the first argument).

Standard library only. Each family (the lists' prefix: `atr`, `ptk`) becomes a
proto-language whose forms are the distinct inputs of its lists, in order of first
appearance (the lists in name order); each list's outputs become the forms of a daughter
language whose ID is the list's folder name, one cognate set (and one concept, named after
the proto-form) per proto-form. Words are segmented character by character, a modifier
letter (ː ʰ ʷ) or combining mark joining the segment before it, and a tie bar (t͡s) joining
the characters on both sides.

    python3 testdata/cldf/real_sli/convert.py [OUT_DIR]
"""

import csv
import json
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent / "pbebench-official" / "real_sli"
TIE = "\u0361"
TERMS = "http://cldf.clld.org/v1.0/terms.rdf#"


def segments(word):
    """The word's segments (see the module doc)."""
    out = []
    join_next = False
    for char in word:
        category = unicodedata.category(char)
        if out and (join_next or char == TIE or category in ("Lm", "Mn")):
            out[-1] += char
            join_next = char == TIE
        else:
            out.append(char)
            join_next = False
    return out


def words(path):
    return path.read_text(encoding="utf-8").splitlines()


def column(name, term, **extra):
    return {"name": name, "propertyUrl": TERMS + term, "datatype": "string", **extra}


def table(url, component, columns):
    return {
        "url": url,
        "dc:conformsTo": TERMS + component,
        "tableSchema": {"columns": columns, "primaryKey": ["ID"]},
    }


METADATA = {
    "@context": ["http://www.w3.org/ns/csvw", {"@language": "en"}],
    "dc:conformsTo": TERMS + "Wordlist",
    "dc:title": "PBEBench's real word lists as a CLDF Wordlist",
    "dc:source": "cmu-llab/PBEBench, data/real_sli (CC BY-SA 4.0)",
    "dc:license": "https://creativecommons.org/licenses/by-sa/4.0/",
    "tables": [
        table(
            "forms.csv",
            "FormTable",
            [
                column("ID", "id"),
                column("Language_ID", "languageReference"),
                column("Parameter_ID", "parameterReference"),
                column("Form", "form"),
                column("Segments", "segments", separator=" "),
            ],
        ),
        table(
            "languages.csv",
            "LanguageTable",
            [column("ID", "id"), column("Name", "name"), column("Glottocode", "glottocode")],
        ),
        table("parameters.csv", "ParameterTable", [column("ID", "id"), column("Name", "name")]),
        table(
            "cognates.csv",
            "CognateTable",
            [
                column("ID", "id"),
                column("Form_ID", "formReference"),
                column("Cognateset_ID", "cognatesetReference"),
            ],
        ),
    ],
}


def write_csv(path, header, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    lists = sorted(p.parent for p in SOURCE.glob("*/words.in"))
    families = sorted({d.name.split("_")[0] for d in lists})
    languages = [(f, f"{f} (proto-language)", "") for f in families]
    languages += [(d.name, d.name.split("_", 1)[1].capitalize(), "") for d in lists]
    proto_forms, parameters, reflexes, cognates = [], [], [], []
    for family in families:
        sets = {}
        for d in (d for d in lists if d.name.split("_")[0] == family):
            for k, (i, o) in enumerate(zip(words(d / "words.in"), words(d / "words.out"))):
                if i not in sets:
                    sets[i] = f"{family}-{len(sets) + 1}"
                    proto_forms.append((sets[i], family, sets[i], i, " ".join(segments(i))))
                    parameters.append((sets[i], "*" + i))
                    cognates.append((sets[i], sets[i], sets[i]))
                form_id = f"{d.name}-{k + 1}"
                reflexes.append((form_id, d.name, sets[i], o, " ".join(segments(o))))
                cognates.append((form_id, form_id, sets[i]))
    (out / "Wordlist-metadata.json").write_text(
        json.dumps(METADATA, indent=4, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    write_csv(out / "languages.csv", ["ID", "Name", "Glottocode"], languages)
    write_csv(out / "parameters.csv", ["ID", "Name"], parameters)
    write_csv(
        out / "forms.csv",
        ["ID", "Language_ID", "Parameter_ID", "Form", "Segments"],
        proto_forms + reflexes,
    )
    write_csv(out / "cognates.csv", ["ID", "Form_ID", "Cognateset_ID"], cognates)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
