"""The examples of python/README.md, and of the README.md sections on the authors' formats
and on Python, run as written.

* Every ```python block of python/README.md runs, in order within its block, in a namespace
  that holds the names the prose leaves to the reader (`inst`, `text`, `responses`, ...).
  An expression followed by a comment that is a Python literal (`x  # ['xc']`, or the
  literal on the next line) must equal it. A block may opt out only with a first line
  `# not run by the tests: <why>`.
* In the listed sections, every line of a ```sh block runs with bash in a temporary
  directory (beside `testdata/` and `python/` of the repository), with the `pbebench` binary
  on PATH, except lines that say they need a key, GPUs or an install (`# needs ...`, `pip
  install`, which CI does before the tests).
"""

import ast
import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from conftest import REPO, fence, framework, released

import pbebench

PY_README = REPO / "python" / "README.md"
README = REPO / "README.md"
OPT_OUT = "# not run by the tests:"

# (file, heading) of the sections whose shell lines are run.
SHELL_SECTIONS = [
    (README, "### The authors' formats"),
    (README, "## Python"),
    (PY_README, "## inspect_ai"),
    (PY_README, "## verl"),
]


def blocks(path, language, heading=None):
    """The ```language blocks of `path` (under `heading`, up to the next heading of its
    level or higher, when given), with their first line number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    inside, level, found, block, start = heading is None, 0, [], None, 0
    for n, line in enumerate(lines, 1):
        if heading is not None and line.startswith("#") and block is None:
            hashes = len(line) - len(line.lstrip("#"))
            if line.strip() == heading:
                inside, level = True, hashes
                continue
            if inside and hashes <= level:
                inside = False
        if not inside:
            continue
        if block is None and line.strip() == f"```{language}":
            block, start = [], n + 1
        elif block is not None and line.strip() == "```":
            found.append((start, "\n".join(block)))
            block = None
        elif block is not None:
            block.append(line)
    return found


def literal_comments(source):
    """Line → the Python literal its comment holds, for comments that are literals."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            try:
                out[tok.start[0]] = ast.literal_eval(tok.string[1:].strip())
            except (ValueError, SyntaxError):
                pass
    return out


def run_python_block(source, namespace, where):
    lines = source.splitlines()
    expected = literal_comments(source)
    for statement in ast.parse(source).body:
        if not isinstance(statement, ast.Expr):
            exec(compile(ast.Module([statement], []), where, "exec"), namespace)
            continue
        value = eval(compile(ast.Expression(statement.value), where, "eval"), namespace)
        end = statement.end_lineno
        on_next_line = end < len(lines) and lines[end].lstrip().startswith("#")
        for line in [end] + ([end + 1] if on_next_line else []):
            if line in expected:
                assert value == expected[line], f"{where}, line {line}: {value!r} is not {expected[line]!r}"
                break


def says_it_needs(line):
    """Whether a shell line's comment says it needs something the tests do not have."""
    return "#" in line and re.search(r"\bneeds\b", line.split("#", 1)[1]) is not None


def namespace(tmp_path):
    """The names python/README.md uses without defining them."""
    inst = next(pbebench.generate("lite", seed=0, size=16, heldout=2))
    dataset = list(pbebench.generate("lite", seed=1, size=16))
    return {
        "pbebench": pbebench,
        "inst": inst,
        "instances": [inst, inst],
        "responses": [released(inst["cascade"]), "no idea"],
        "text": fence("[('ab', 'c')]"),
        "dataset": dataset,
        "text_a": released(dataset[3]["cascade"]),
        "text_b": "no idea",
        "text_c": released(dataset[7]["cascade"]),
        "proto_forms": ["pata", "tapa"],
        "reflexes": ["paka", "kapa"],
        "log_dir": str(tmp_path / "logs"),
    }


PY_BLOCKS = blocks(PY_README, "python")


@pytest.mark.parametrize("start,source", PY_BLOCKS, ids=[f"line{s}" for s, _ in PY_BLOCKS])
def test_python_readme_examples(start, source, tmp_path, monkeypatch, request):
    first = source.lstrip().splitlines()[0]
    if first.startswith(OPT_OUT):
        assert first[len(OPT_OUT):].strip(), "an example that is not run says why"
        pytest.skip(first)
    if "inspect_ai" in source:
        framework("inspect_ai", "inspect")
        request.getfixturevalue("no_network")
    if "reasoning_gym" in source:
        framework("reasoning_gym", "reasoning-gym")
    monkeypatch.chdir(REPO)
    run_python_block(source, namespace(tmp_path), f"python/README.md:{start}")


def test_every_python_block_is_found():
    assert len(PY_BLOCKS) >= 7
    opted_out = [s for _, s in PY_BLOCKS if s.lstrip().startswith(OPT_OUT)]
    assert len(opted_out) == 1, "only the `datasets` example is not run"


def shell_lines():
    for path, heading in SHELL_SECTIONS:
        found = blocks(path, "sh", heading)
        assert found, f"{path.name}: no ```sh block under {heading!r}"
        for start, source in found:
            for k, line in enumerate(source.splitlines()):
                yield f"{path.name}:{start + k}", line


@pytest.mark.parametrize("section", SHELL_SECTIONS, ids=[h for _, h in SHELL_SECTIONS])
def test_shell_examples(section, tmp_path, cli):
    path, heading = section
    work = tmp_path / "work"
    work.mkdir()
    for name in ("testdata", "python"):
        (work / name).symlink_to(REPO / name)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(cli.path).resolve().parent), str(Path(sys.executable).parent), env["PATH"]])
    ran = 0
    for start, source in blocks(path, "sh", heading):
        for k, line in enumerate(source.splitlines()):
            command = line.split("  #", 1)[0].strip()
            if not command or says_it_needs(line) or command.startswith("pip install"):
                continue
            if "prepare_data.py" in command:
                framework("pyarrow", "verl")  # skips the section without it (fails in CI)
                command += " --train-size 16 --test-size 16"  # the example's sizes, smaller
            proc = subprocess.run(["bash", "-eo", "pipefail", "-c", command], cwd=work, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, f"{path.name}:{start + k}: {command}\n{proc.stdout}{proc.stderr}"
            ran += 1
    assert ran > 0 or heading == "## inspect_ai", f"no line of {heading!r} ran"


def test_shell_lines_not_run_say_why():
    for where, line in shell_lines():
        command = line.split("#", 1)[0].strip()
        if command.startswith(("inspect eval", "bash python/examples/verl/run_grpo.sh")):
            assert says_it_needs(line), f"{where}: a model or GPU example says what it needs: {line}"
