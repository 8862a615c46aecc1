"""Type stubs of the pbebench extension module (docstrings equal to help(); a test checks)."""

import os
from typing import Any, Dict, Iterator, List, Literal, Mapping, Optional, Sequence, Tuple, Union, overload

__version__: str

#: The built-in prompt templates by name: "default" and "authors" (the authors' released
#: prompt, byte for byte); pass one as prompt(instance, template=TEMPLATES["authors"]).
TEMPLATES: Dict[str, str]

#: An instance: a dict in pbebench's JSONL schema (what ``generate`` yields).
Instance = Dict[str, Any]
#: A cascade: ``[pattern, replacement]`` pairs in the order they apply.
Cascade = Sequence[Union[Sequence[str], Tuple[str, str]]]
#: A response: text, ``None`` (no answer), a chat message dict, or a list of chat messages.
Response = Union[str, None, Mapping[str, Any], Sequence[Mapping[str, Any]]]

class Generation(Iterator[Instance]):
    """The instances of a dataset, in order, as dicts equal to the lines of
    `pbebench generate` with the same parameters. Generation runs in a background thread a
    few instances ahead of the consumer; dropping the iterator stops it.
    """
    def __iter__(self) -> "Generation": ...
    def __next__(self) -> Instance: ...
    def __length_hint__(self) -> int: ...
    @property
    def stats(self) -> Optional[Dict[str, Any]]:
        """Generation statistics (attempts, rejections, category balance, timing), as
        `pbebench generate --stats-json` writes under "stats"; `None` until the iterator is
        exhausted.
        """

class Rewarder:
    """Rewards against a fixed list of instances (a dataset), read and prepared once.

    For a training loop that rewards responses to the rows of one dataset step after step:
    Rewarder(dataset).reward(indices, responses) gives the same floats as
    reward([dataset[i] for i in indices], responses), without reading any instance dict
    again: reward() reads and prepares the dicts it is given at each call; a Rewarder reads
    only the indices.

    instances: a list of instance dicts, or batched columns (a dict of equal-length lists),
        as for reward(). They are copied: changing a dict afterwards does not change the
        Rewarder.
    heldout: score the held-out examples too, as reward(..., heldout=True).
    """
    def __init__(
        self, instances: Union[Sequence[Mapping[str, Any]], Mapping[str, Sequence[Any]]], heldout: bool = False
    ) -> None: ...
    def __len__(self) -> int:
        """The number of instances."""
    def reward(self, indices: Union[int, Sequence[int]], responses: Sequence[Response]) -> List[float]:
        """One float per response: the reward of responses[k] against instance indices[k]
        (or against instance indices, an int, for all), as reward() computes it.

        indices: a list of ints, one per response, each in range(len(self)); or one int.
        responses: as for reward().
        """

def generate(
    preset: Literal["lite", "lite-published", "lite-moreeg", "full", "full-25-30"],
    seed: int = 0,
    size: Optional[int] = None,
    **overrides: Any,
) -> Generation:
    """Generate a dataset: an iterator of instance dicts, in dataset order, each equal to the
    corresponding line of `pbebench generate --preset PRESET --seed SEED ...` (parsed with
    `json.loads`).

    preset: "lite", "lite-moreeg", "full" or "full-25-30" (the paper's datasets), or
        "lite-published" (lite as the published file was sampled).
    seed: the dataset is a pure function of the parameters and the seed.
    size: number of instances (default: the preset's; "lite" needs a multiple of 16).
    overrides: any other `pbebench generate` option, with underscores: examples, alphabet
        ("lite", "full", "a-ku-z" or a list of letters), input_len / rule_len ((min, max),
        an int or "2..6"), cascade_len (list of ints, an int, "2..20" or "25,30"),
        pattern_draw ("substring", "published"), max_rules, patience, balance ("category",
        "length", "joint"), relations ("exact", "paper"), heldout (held-out examples per instance), shard ((k, n) or "k/n") and
        threads (0 = all cores; never changes the output).

    Instances are made in a background thread a few ahead of the consumer, so memory does
    not grow with size and an abandoned iterator stops the work. Bad parameters raise
    ValueError (TypeError for an unknown keyword) at the call, before anything is generated.
    The iterator's `stats` attribute holds the generation statistics once it is exhausted.
    """

@overload
def apply(cascade: Cascade, words: str) -> str:
    """Apply a cascade to words, like Python's `str.replace` applied rule after rule.

    cascade: a list of [pattern, replacement] pairs, e.g. [["ab", "c"], ["c", ""]]; patterns
        must not be empty.
    words: a list of strings (returns a list) or one string (returns a string).

    Every string on the way from a word is bounded, as in scoring: 16 times the word's
    length, and at least 256 characters. A cascade that grows a word past it (20 times
    ["a", "aaa"]) raises ValueError naming the word and the rule.

    Large lists are processed in parallel without the GIL.
    """

@overload
def apply(cascade: Cascade, words: Sequence[str]) -> List[str]: ...
def pairs(
    inputs: Sequence[str],
    outputs: Sequence[str],
    name: str = "pair",
    chunk: int = 50,
    max_rules: int = 50,
    max_rule_len: int = 5,
    alphabet: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """Real sound-change data as instance dicts without a gold cascade, the same as
    `pbebench pairs` writes.

    inputs, outputs: the word lists (e.g. proto-forms and attested reflexes), paired in
        order; IPA and any other Unicode letters are fine.
    name: the prefix of the instance ids ("NAME-0", "NAME-1", ...; "NAME" with chunk=0).
    chunk: words per instance, in order (0: all in one instance). The defaults (50 words,
        at most 50 rules of at most 5 characters) are the authors' real-data prompts.
    alphabet: the letters rules may use (default: every letter of the two lists).

    The dicts work wherever instances do (prompt, score, reward); Edit_Sim is the figure
    that matters, as there is no hidden cascade. Lists of different lengths or an empty
    word raise ValueError.
    """

def relations(cascade: Cascade, mode: Literal["exact", "paper"] = "exact") -> Dict[str, Any]:
    """Feeding and bleeding between the rules of a cascade, and its category; the same dict as
    `pbebench relations --format json`.

    Returns {"bleeds": [[bool]], "category": "1011", "feeds": [[bool]]}: feeds[i][j] is
    true when rule i can create an occurrence of rule j's pattern, bleeds[i][j] when it can
    destroy one; category is the four bits F B CF CB (feeding, bleeding, counter-feeding,
    counter-bleeding).
    mode: "exact" (sound and complete over all strings) or "paper" (the published formula,
        which reproduces the released labels).
    """

def parse_response(
    text: str,
    max_rules: Optional[int] = 5,
    max_rule_len: Optional[int] = 3,
    alphabet: Optional[str] = None,
    block: Literal["last", "first"] = "last",
) -> Dict[str, Any]:
    """Read the cascade a response gives, with each rule's validity; the same dict as
    `pbebench parse` prints.

    Thinking (<think>...</think>) is removed, the fenced code blocks are found and the last
    (block="last") or first (block="first") one is read without evaluating anything. A rule
    that breaks a limit is kept in "rules" with its problems but left out of "cascade";
    rules past max_rules are dropped and counted.
    max_rules: the rule cap (None: no cap).
    max_rule_len: the longest a side may be, in characters (None: no limit).
    alphabet: the letters rules may use: letters, ranges such as "a-ku-z", or "lite" or
        "full", as the command line's --alphabet (None: any).

    Returns {"blocks", "cascade", "dropped_rules", "rules", "status", "valid"}; status kind
    is "parsed", "no_code_block", "unclosed_thinking" or "unparsable" (with a "reason").
    """

def prompt(instance: Mapping[str, Any], template: Optional[str] = None) -> str:
    """The prompt a solver is given for an instance; the same text as `pbebench prompt`.

    instance: a dict in pbebench's instance schema. Only the visible examples are shown;
        the held-out examples and the gold cascade never are.
    template: the template text (None: the built-in one, `pbebench prompt --print-template`),
        with the placeholders {inputs}, {outputs}, {max_rules}, {max_rule_len} and
        {alphabet}; {{ and }} write literal braces. An unknown placeholder raises ValueError.
    """

def score(
    instance: Mapping[str, Any],
    responses: Sequence[Response],
    block: Literal["last", "first"] = "last",
) -> Dict[str, Any]:
    """Score an instance's responses (its K samples); the same dict as the instance's line of
    `pbebench score --per-instance`.

    instance: a dict in pbebench's instance schema (what generate() yields, or a line of a
        dataset file); its max_rules, max_rule_len and alphabet are the limits.
    responses: a list of responses: str, None (no answer), a chat message dict or a list of
        chat messages (the last one's content). An empty list scores the instance as
        missing (one empty response).
    block: which fenced code block holds the answer, "last" or "first".

    Per sample ("samples"): parsed, valid, rules, valid_rules, dropped_rules, pass,
    edit_sim, edit_sim_word, reproduced, score, recovered, behaviour, and for a passing
    sample that is not recovered its "counterexample" ({"input", "gold", "answer"}). The
    chosen sample (any passing one, else the highest edit_sim, earliest on ties) gives the
    instance's pass, edit_sim, edit_sim_word, score (share of the examples the gold changes
    that are reproduced), recovered, behaviour, valid_rules / rules, cascade and
    heldout_pass (None without held-out examples).

    recovered: the sample's cascade gives the gold's output on every input of the
    instance's input space (strings over its alphabet, lengths 2–6 widened to its shortest
    and longest input, visible or held-out), decided exactly. behaviour: the exact probability
    that it gives the gold's output on a random input of that space that the gold changes.
    Both are None without a gold cascade ("graded" is then False) and when the comparison
    hits a bound ("undecided" says which).
    """

def reward(
    instances: Union[Mapping[str, Any], Sequence[Mapping[str, Any]], Mapping[str, Sequence[Any]]],
    responses: Sequence[Response],
    heldout: bool = False,
    kind: Literal["edit_sim", "behaviour"] = "edit_sim",
) -> List[float]:
    """Rewards for RL: one float per response, computed in parallel without the GIL.

    The reward is the character Edit_Sim of the cascade read from the response's last
    fenced code block under the instance's limits (max_rules, max_rule_len, alphabet):
    1 - sum(dist(predicted, output)) / sum(dist(input, output)) over the instance's
    examples, dist being the Levenshtein distance over characters.

    * 1.0: every example is reproduced.
    * 0.0: no change. This is also what an invalid answer gets: an empty or None response,
      no fenced code block, an unparsable block, an unclosed <think>, or only rules that
      break a limit. Invalid rules inside a readable answer act as the identity.
    * Below 0, unbounded: the predicted outputs are further from the gold ones than the
      inputs were. Clip (e.g. max(r, -1.0)) if your algorithm needs a bounded reward.
    * An instance whose outputs all equal their inputs (never generated, possible in
      hand-made data) gives 1.0 to a response that changes nothing, else 0.0.

    Held-out examples are never used unless heldout=True, which scores the visible and the
    held-out examples together (both sums run over all of them), so that a cascade that
    only fits the shown examples earns less.

    Instances are prepared once per distinct content within a call: samples of one prompt,
    or equal dicts (dataset rows handed over as fresh dicts), share the work. Nothing is
    kept between calls.

    instances: one instance dict per response (same length as responses), one dict for
        all the responses, or batched columns: a dict of equal-length lists, one value per
        response, as a Hugging Face dataset's slice (ds[:8]) or a map(batched=True)
        function gets them. A dict whose max_rules or max_rule_len is a list, or whose
        inputs is a list of lists, is read as columns (in an instance they are ints and a
        list of strings); columns of different lengths raise ValueError.
    responses: str, None, a chat message dict or a list of chat messages (the last one's
        content is read), as in score().
    kind: "edit_sim" (the default, above) or "behaviour": the behavioural reward, the same
        value as score()'s "behaviour" of the sample: the exact probability that the
        response's cascade gives the gold's output on a random input of the instance's
        input space that the gold changes (strings over its alphabet, lengths 2–6 widened to
        its shortest and longest input, visible or held-out; length uniform, letters
        uniform).
        1.0 for an answer that behaves like the gold wherever it changes something, 0.0 for
        the identity and for invalid answers. It needs the gold cascade ("cascade") in
        each instance dict (ValueError without). An undecided answer, whose comparison hits
        a bound of the exact engine (its outputs explode), counts as 0.0, as does any answer
        when the gold changes no input: a trainer needs a float, and a reward must not pay
        for what it could not check (the share of examples reproduced would pay in full an
        answer that fits them and explodes elsewhere). score() reports such a sample's
        behaviour as None with its "undecided" reason, and leaves it out of the mean.
        heldout does not apply to it.
    """

def read_dataset(path: Union[str, "os.PathLike[str]"]) -> List[Instance]:
    """Read a dataset file (JSONL, pbebench's schema or the authors' published format) as a
    list of instance dicts, the same as `pbebench export --to pbebench` writes them.

    Raises OSError when the file cannot be read, ValueError naming file:line for a line
    that is no instance or a repeated id.
    """

def to_authors(
    instance: Mapping[str, Any],
    original_programs: bool = False,
    relations: Optional[Literal["paper", "exact"]] = None,
) -> str:
    """An instance as one record of the authors' published format (no newline): the same bytes
    as a line of `pbebench export --to authors`.

    original_programs: also write original_programs, as their PBEBench-Lite file has it.
    relations: recompute bfcc_dag and bfcc_category with "paper" or "exact" (None: the
        instance's own classifier and stored category).

    Ids, held-out examples and limits are not part of the format. Raises ValueError for an
    instance without a gold cascade.
    """

def render_answer(cascade: Cascade) -> str:
    """A cascade as an answer in the released format: one fenced python block holding the
    list of "replace('a', 'b')" strings, which score() and reward() read back as the same
    cascade.

    cascade: a list of [pattern, replacement] pairs.
    """

def summary(scores: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """The figures of `pbebench score` over scored instances: the overall aggregate
    ({"instances", "pass_at_1", "best_of_k", "pass_at_k", "edit_sim", "valid_rate",
    "heldout_pass", "mean_reward" (per sample), "best_of_k_mean_reward", ..., and
    "intervals": {figure: {"mean", "se", "lo", "hi", "n", "method"}}, each figure's standard
    error and 95% interval}) of a list of score() results, as results.json has it.

    scores: a list of the dicts score() returns, one per instance.
    """

def vet(
    instance: Instance,
    max_examples: int = 12,
    panel: Optional[str] = None,
    seed: int = 0,
) -> Tuple[Optional[Instance], Optional[str]]:
    """Vet one instance: the panel of attackers (`pbebench vet`'s, by default) looks for an
    answer that fits the visible examples but differs from the gold somewhere; each one
    found adds its shortest counterexample as a visible example, until no attacker finds
    one (the instance is kept) or the cap is reached (it is not).

    instance: an instance dict with its gold cascade ('cascade').
    max_examples: the most visible examples the instance may reach (default 12, as
        `pbebench vet`; the full-vetted preset uses 70).
    panel: the attackers, as `pbebench vet --panel` takes them (default: its default panel).
    seed: the seed of the solvers' example orders.

    Returns (vetted, reason): the vetted instance dict (the instance with the added
    examples among its visible ones, and a 'repair' record of what was added and why) and
    None, or None and why the instance is not kept (ambiguous at the cap, recovered by a
    shortcut baseline, ...). The same instance and arguments give the same result. A
    missing gold, a gold that fails its examples, or more visible examples than the cap
    raise ValueError.
    """

#: A candidate cascade for the oracle: rule strings, [pattern, replacement] pairs, or the
#: text of a Python list of either.
Candidate = Union[str, Sequence[str], Cascade]

#: The longest probe input an Oracle accepts unless max_probe_len says otherwise (the
#: default of `pbebench eval --max-probe-len`).
DEFAULT_PROBE_LEN: int

class ProbeRefused(ValueError):
    """A run_hidden call the oracle refused (no input, a letter outside the alphabet, an input too long, an output past the length bound); nothing was run and no budget was spent. The message is meant for the solver."""

class OverBudget(ProbeRefused):
    """A run_hidden call with more inputs than the probe budget has left (refused whole); interactive mode ends the episode on it."""

class Oracle:
    """The hidden cascade of an instance, sealed: it runs inputs of a solver's choice and
    tests candidate cascades, and never returns the cascade (the rules of
    `pbebench eval --interactive`, docs/interactive.md).

    instance: a dict in pbebench's instance schema with a gold cascade.
    probe_budget: the probe inputs a solver may run in all.
    max_probe_len: the longest probe input accepted (1 to 4096; `pbebench eval
        --max-probe-len`).

    Probe inputs may have up to max(max_probe_len, 2 × the longest visible input)
    characters, and every intermediate string is bounded (length_bound), so a cascade that
    grows without bound fails instead of exhausting memory. Raises ValueError for an
    instance without a gold cascade (real data cannot be probed).
    """
    def __init__(self, instance: Mapping[str, Any], probe_budget: int, max_probe_len: int = 32) -> None: ...
    @property
    def task(self) -> Dict[str, Any]:
        """What a solver may see: {"id", "inputs", "outputs", "max_rules", "max_rule_len",
        "alphabet", "probe_budget", "max_probe_len"}; never the gold or the held-out examples.
        """
    def run_hidden(self, inputs: Sequence[str]) -> List[str]:
        """Runs the hidden cascade on inputs (a list of strings) and returns their outputs.
        Every input counts against the budget, a repeated one too. A call with an input
        outside the alphabet or too long raises ProbeRefused, one asking for more inputs
        than are left raises OverBudget; a refused call runs nothing and costs nothing.
        """
    def test_cascade(self, cascade: Candidate) -> Dict[str, Any]:
        """Which of the visible examples and the probed inputs a candidate gets wrong:
        {"checked", "passed", "wrong": [{"input", "expected", "got"}], "rule_problems"}.
        Rules that break the instance's limits are left out (and listed), as in scoring.

        cascade: a list of rule strings ("replace('ab', 'c')"), a list of [pattern,
            replacement] pairs, or the text of a Python list of either. Unreadable rules
            raise ValueError (nothing is tested).
        """
    def grade(self, cascade: Candidate) -> Dict[str, Any]:
        """How a final cascade does, as `pbebench eval --interactive` grades an episode and
        `pbebench score` scores the same cascade written as an answer (one grading path):
        {"pass": it reproduces every visible example, "heldout_pass": it reproduces every
        held-out example whose input was not probed (None when none is left),
        "heldout_unprobed", "heldout_excluded", "recovered" and "behaviour" (over the
        instance's input space, as score() grades them), "rules_left_out"}. Rules past
        max_rules or breaking a limit of the instance are left out, as scoring leaves them
        out. cascade: as for test_cascade.
        """
    @staticmethod
    def read_cascade(cascade: Candidate) -> List[List[str]]:
        """A candidate cascade as test_cascade and grade read it: a list of [pattern,
        replacement] pairs. Raises ValueError for unreadable rules.
        """
    @property
    def probes(self) -> List[Dict[str, str]]:
        """Every probe answered so far, in order: [{"input", "output"}]."""
    @property
    def probes_used(self) -> int:
        """Probe inputs used."""
    @property
    def budget_left(self) -> int:
        """Probe inputs left."""
    @property
    def tests_run(self) -> int:
        """Candidates tested so far."""
    @property
    def length_bound(self) -> int:
        """The longest intermediate string allowed when a cascade is applied, in bytes."""

# The rule-reordering task (docs/reorder.md).

def reorder(instance: Instance, seed: int = 0, scramble: str = "shuffle") -> Dict[str, Any]:
    """A reordering problem made from an instance; the same dict as its line of
    `pbebench reorder --seed SEED`: the instance's fields plus "scrambled" (the gold rules in
    a seeded order that changes at least one output), "order" (the gold order, as indices
    into scrambled) and "valid_orders" (how many orders reproduce every example; None beyond
    8 rules).

    instance: a dict in pbebench's instance schema with a gold cascade.
    seed: the permutation is a function of the seed and the instance's id alone.
    scramble: "shuffle" (a uniform permutation) or "swap-first" (the first rule exchanged
        with another, as in the authors' published reordering records).

    Raises ValueError naming the reason when the instance gives no problem (no gold, a gold
    that fails its examples, every order valid, forms too long).
    """

def reorder_prompt(problem: Mapping[str, Any]) -> str:
    """The prompt of a reordering problem; the same text as `pbebench prompt` on a reordering
    set. The scrambled rules are numbered by index; the held-out examples and the gold order
    are never shown.

    problem: a reordering problem dict (reorder()'s, or a record of the authors' file).
    """

def parse_order(text: str, n: int, block: Literal["last", "first"] = "last") -> Dict[str, Any]:
    """Read the order a response gives, as `pbebench score` reads it on a reordering set:
    {"order": [...]} for a permutation of 0..n, else {"problem": {"kind", ...}} with the
    reason (unfinished, no_array, not_an_index, wrong_length, out_of_range, repeated).
    "valid" says which.

    text: the response.
    n: the number of scrambled rules.
    block: which fenced block holds the answer, "last" or "first".
    """

def score_order(problem: Mapping[str, Any], responses: Sequence[Response], block: Literal["last", "first"] = "last") -> Dict[str, Any]:
    """Grade a reordering problem's responses; the same dict as its line of `pbebench score
    --per-instance` on a reordering set: id, cascade_len, category and per sample its
    "order" (or "problem"), "valid" (a permutation of 0..n), "accurate" (the rules in that
    order reproduce every example) and "exact" (the gold order).

    problem: a reordering problem dict (reorder()'s, or a record of the authors' file).
    responses: a list of responses: str, None, a chat message dict or a list of chat
        messages, as in score().
    block: which fenced block holds the answer, "last" or "first".
    """

def solve_order(problem: Mapping[str, Any], max_nodes: int = 200000) -> Dict[str, Any]:
    """The built-in solver's answer to a reordering problem: an exact search over orders,
    pruned by the examples, within max_nodes rule applications. Returns {"order" (None when
    no order reproduces the examples or the budget ran out), "nodes", "gave_up"}.

    problem: a reordering problem dict.
    max_nodes: the search's budget (default 200000).
    """
