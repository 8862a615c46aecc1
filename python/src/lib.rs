//! Python bindings of pbebench (`import pbebench`): generation, rule application and
//! relations, response parsing, scoring and a batch reward for RL, with the same results as
//! the `pbebench` command line for the same inputs and seed.
//!
//! Functions take and return plain Python values (dicts, lists, strings). The docstrings
//! here are the ones `help()` shows; `pbebench/_pbebench.pyi` repeats them with types (a
//! test keeps the two equal).
#![deny(unsafe_code)]
#![warn(clippy::too_many_lines)]

mod behaviour;
mod convert;
mod formats;
mod generation;
mod probe;
mod reorder;
mod vetting;

use convert::{count, flag, optional, parsed, string, to_py, Arg, InstanceCache, Name, Responses};
use pbebench::PromptTemplate;
use pbebench::{parse_response as parse, Alphabet, BlockChoice, RuleLimits};
use pbebench::{score_instance, PreparedInstance, RewardScratch, ScoreOptions};
use pbebench::{RelationMode, Relations};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyMapping, PyString};
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

/// Rust allocations of the module (the core's included) go to mimalloc: reading and
/// scoring a batch is allocation-heavy, and with the system allocator the rayon threads
/// spent a quarter of `reward`'s time in malloc and free.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Work items below which a batch is not split between threads.
const MIN_CHUNK: usize = 64;

/// The worker threads of batch calls, one pool per process (`RAYON_NUM_THREADS` sets its
/// size). Not rayon's global pool: a process forked after that pool started (PyTorch
/// DataLoader workers, `datasets.map(num_proc=…)`) has the pool without its threads, and
/// any parallel call there would wait forever. A fork is noticed by the process id and
/// gets a pool of its own.
fn pool() -> PyResult<Arc<ThreadPool>> {
    static POOL: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);
    let mut current = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let pid = std::process::id();
    if let Some((owner, pool)) = current.as_ref() {
        if *owner == pid {
            return Ok(Arc::clone(pool));
        }
    }
    let pool = ThreadPoolBuilder::new()
        .thread_name(|k| format!("pbebench-{k}"))
        .build()
        .map(Arc::new)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start worker threads: {e}")))?;
    // A parent's pool has no threads here: forget it rather than ask them to stop.
    if let Some(stale) = current.replace((pid, Arc::clone(&pool))) {
        std::mem::forget(stale);
    }
    Ok(pool)
}

/// Generate a dataset: an iterator of instance dicts, in dataset order, each equal to the
/// corresponding line of `pbebench generate --preset PRESET --seed SEED ...` (parsed with
/// `json.loads`).
///
/// preset: "lite", "lite-moreeg", "full" or "full-25-30" (the paper's datasets), or
///     "lite-published" (lite as the published file was sampled).
/// seed: the dataset is a pure function of the parameters and the seed.
/// size: number of instances (default: the preset's; "lite" needs a multiple of 16).
/// overrides: any other `pbebench generate` option, with underscores: examples, alphabet
///     ("lite", "full", "a-ku-z" or a list of letters), input_len / rule_len ((min, max),
///     an int or "2..6"), cascade_len (list of ints, an int, "2..20" or "25,30"),
///     pattern_draw ("substring", "published"), max_rules, patience, balance ("category",
///     "length", "joint"), relations ("exact", "paper"), heldout (held-out examples per instance), shard ((k, n) or "k/n") and
///     threads (0 = all cores; never changes the output).
///
/// Instances are made in a background thread a few ahead of the consumer, so memory does
/// not grow with size and an abandoned iterator stops the work. Bad parameters raise
/// ValueError (TypeError for an unknown keyword) at the call, before anything is generated.
/// The iterator's `stats` attribute holds the generation statistics once it is exhausted.
#[pyfunction]
#[pyo3(
    signature = (preset, seed = Arg::Default, size = None, **overrides),
    text_signature = "(preset, seed=0, size=None, **overrides)"
)]
fn generate(
    preset: &Bound<'_, PyAny>,
    seed: Arg<'_>,
    size: Option<&Bound<'_, PyAny>>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<generation::Generation> {
    let arg = |arg| Name::arg("generate", arg);
    let preset = string(preset, arg("preset"))?;
    let seed = seed.or(0, |v| count(v, arg("seed")))? as u64;
    let size = size.map(|s| count(s, arg("size"))).transpose()?;
    generation::start(&preset, seed, size, overrides)
}

/// Real sound-change data as instance dicts without a gold cascade, the same as
/// `pbebench pairs` writes.
///
/// inputs, outputs: the word lists (e.g. proto-forms and attested reflexes), paired in
///     order; IPA and any other Unicode letters are fine.
/// name: the prefix of the instance ids ("NAME-0", "NAME-1", ...; "NAME" with chunk=0).
/// chunk: words per instance, in order (0: all in one instance). The defaults (50 words,
///     at most 50 rules of at most 5 characters) are the authors' real-data prompts.
/// alphabet: the letters rules may use (default: every letter of the two lists).
///
/// The dicts work wherever instances do (prompt, score, reward); Edit_Sim is the figure
/// that matters, as there is no hidden cascade. Lists of different lengths or an empty
/// word raise ValueError.
#[pyfunction]
#[pyo3(
    signature = (inputs, outputs, name = Arg::Default, chunk = Arg::Default, max_rules = Arg::Default, max_rule_len = Arg::Default, alphabet = None),
    text_signature = "(inputs, outputs, name='pair', chunk=50, max_rules=50, max_rule_len=5, alphabet=None)"
)]
#[allow(clippy::too_many_arguments)]
fn pairs<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    outputs: &Bound<'py, PyAny>,
    name: Arg<'py>,
    chunk: Arg<'py>,
    max_rules: Arg<'py>,
    max_rule_len: Arg<'py>,
    alphabet: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let arg = |arg| Name::arg("pairs", arg);
    let options = pbebench::WordListOptions {
        chunk: chunk.or(50, |v| count(v, arg("chunk")))?,
        max_rules: max_rules.or(50, |v| count(v, arg("max_rules")))?,
        max_rule_len: max_rule_len.or(5, |v| count(v, arg("max_rule_len")))?,
        alphabet: (alphabet.map(|v| convert::alphabet(v, arg("alphabet")))).transpose()?,
    };
    let name = name.or("pair".to_owned(), |v| string(v, arg("name")))?;
    let inputs = convert::strings(inputs, arg("inputs"))?;
    let outputs = convert::strings(outputs, arg("outputs"))?;
    // The core's messages name the argument at fault (`outputs[0] is empty`).
    let instances = pbebench::word_list_instances(&name, inputs, outputs, &options)
        .map_err(|e| PyValueError::new_err(format!("pairs(): {e}")))?;
    instances.iter().map(|inst| to_py(py, inst)).collect()
}

/// Apply a cascade to words, like Python's `str.replace` applied rule after rule.
///
/// cascade: a list of [pattern, replacement] pairs, e.g. [["ab", "c"], ["c", ""]]; patterns
///     must not be empty.
/// words: a list of strings (returns a list) or one string (returns a string).
///
/// Every string on the way from a word is bounded, as in scoring: 16 times the word's
/// length, and at least 256 characters. A cascade that grows a word past it (20 times
/// ["a", "aaa"]) raises ValueError naming the word and the rule.
///
/// Large lists are processed in parallel without the GIL.
#[pyfunction]
fn apply<'py>(
    py: Python<'py>,
    cascade: &Bound<'py, PyAny>,
    words: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let cascade = convert::cascade(cascade, Name::arg("apply", "cascade"))?;
    let too_long = |name: Name<'_>, e: pbebench::TooLong| {
        // The bound is 16 times the word's length, so only a rule can pass it.
        let rule = e
            .rule
            .map_or_else(|| "it".to_owned(), |k| format!("cascade[{k}]"));
        PyValueError::new_err(format!(
            "{name}: {rule} makes a string longer than {} characters (16 times the word's \
             length, and at least 256): the cascade grows this word without bound",
            e.max_len
        ))
    };
    if let Ok(word) = words.cast::<PyString>() {
        let output = (cascade.apply_to_word(&word.to_cow()?))
            .map_err(|e| too_long(Name::arg("apply", "words"), e))?;
        return Ok(PyString::new(py, &output).into_any());
    }
    let words = convert::strings(words, Name::arg("apply", "words"))?;
    let pool = pool()?;
    let out: Vec<Result<String, pbebench::TooLong>> = py.detach(|| {
        pool.install(|| {
            words
                .par_iter()
                .with_min_len(MIN_CHUNK)
                .map(|w| cascade.apply_to_word(w))
                .collect()
        })
    });
    // The first word at fault, whatever order the pool met them in.
    let out = (out.into_iter().enumerate())
        .map(|(k, output)| {
            output.map_err(|e| too_long(Name::Index(&Name::arg("apply", "words"), k), e))
        })
        .collect::<PyResult<Vec<String>>>()?;
    out.into_pyobject(py)
}

/// Feeding and bleeding between the rules of a cascade, and its category; the same dict as
/// `pbebench relations --format json`.
///
/// Returns {"bleeds": [[bool]], "category": "1011", "feeds": [[bool]]}: feeds[i][j] is
/// true when rule i can create an occurrence of rule j's pattern, bleeds[i][j] when it can
/// destroy one; category is the four bits F B CF CB (feeding, bleeding, counter-feeding,
/// counter-bleeding).
/// mode: "exact" (sound and complete over all strings) or "paper" (the published formula,
///     which reproduces the released labels).
#[pyfunction]
#[pyo3(
    signature = (cascade, mode = Arg::Default),
    text_signature = "(cascade, mode='exact')"
)]
fn relations<'py>(
    py: Python<'py>,
    cascade: &Bound<'py, PyAny>,
    mode: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("relations", arg);
    let cascade = convert::cascade(cascade, arg("cascade"))?;
    let mode = mode.or(RelationMode::default(), |v| {
        parsed(&string(v, arg("mode"))?, arg("mode"))
    })?;
    let relations = py.detach(|| Relations::of(&cascade, mode));
    let json = serde_json::json!({
        "feeds": relations.feeds,
        "bleeds": relations.bleeds,
        "category": relations.category().to_string(),
    });
    to_py(py, &json)
}

/// Read the cascade a response gives, with each rule's validity; the same dict as
/// `pbebench parse` prints.
///
/// Thinking (<think>...</think>) is removed, the fenced code blocks are found and the last
/// (block="last") or first (block="first") one is read without evaluating anything. A rule
/// that breaks a limit is kept in "rules" with its problems but left out of "cascade";
/// rules past max_rules are dropped and counted.
/// max_rules: the rule cap (None: no cap).
/// max_rule_len: the longest a side may be, in characters (None: no limit).
/// alphabet: the letters rules may use: letters, ranges such as "a-ku-z", or "lite" or
///     "full", as the command line's --alphabet (None: any).
///
/// Returns {"blocks", "cascade", "dropped_rules", "rules", "status", "valid"}; status kind
/// is "parsed", "no_code_block", "unclosed_thinking" or "unparsable" (with a "reason").
#[pyfunction]
#[pyo3(
    signature = (text, max_rules = Arg::Default, max_rule_len = Arg::Default, alphabet = None, block = Arg::Default),
    text_signature = "(text, max_rules=5, max_rule_len=3, alphabet=None, block='last')"
)]
fn parse_response<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    max_rules: Arg<'py>,
    max_rule_len: Arg<'py>,
    alphabet: Option<&Bound<'py, PyAny>>,
    block: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("parse_response", arg);
    // A limit is an int, or None for no limit.
    let limit = |v: Arg<'py>, default, name| {
        v.or(Some(default), |v| optional(v, |v| count(v, arg(name))))
            .map(|limit| limit.unwrap_or(usize::MAX))
    };
    let limits = RuleLimits {
        max_rules: limit(max_rules, 5, "max_rules")?,
        max_rule_len: limit(max_rule_len, 3, "max_rule_len")?,
        alphabet: alphabet
            .map(|v| convert::alphabet(v, arg("alphabet")))
            .transpose()?
            .map(|a| Alphabet::new(&a)),
    };
    let block = block.or(BlockChoice::Last, |v| {
        parsed(&string(v, arg("block"))?, arg("block"))
    })?;
    let text = string(text, arg("text"))?;
    let response = py.detach(|| parse(&text, &limits, block));
    let mut value = serde_json::json!(response);
    value["valid"] = response.is_valid().into();
    value["cascade"] = serde_json::json!(response.cascade());
    to_py(py, &value)
}

/// The prompt a solver is given for an instance; the same text as `pbebench prompt`.
///
/// instance: a dict in pbebench's instance schema. Only the visible examples are shown;
///     the held-out examples and the gold cascade never are.
/// template: the template text (None: the built-in one, `pbebench prompt --print-template`),
///     with the placeholders {inputs}, {outputs}, {max_rules}, {max_rule_len} and
///     {alphabet}; {{ and }} write literal braces. An unknown placeholder raises ValueError.
#[pyfunction]
#[pyo3(signature = (instance, template = None))]
fn prompt(instance: &Bound<'_, PyAny>, template: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let arg = |arg| Name::arg("prompt", arg);
    let instance = convert::instance(instance, arg("instance"))?;
    let template = match template {
        Some(text) => PromptTemplate::parse(&string(text, arg("template"))?)
            .map_err(|e| PyValueError::new_err(format!("{}: {e}", arg("template"))))?,
        None => PromptTemplate::default(),
    };
    Ok(template.render(&instance))
}

/// Score an instance's responses (its K samples); the same dict as the instance's line of
/// `pbebench score --per-instance`.
///
/// instance: a dict in pbebench's instance schema (what generate() yields, or a line of a
///     dataset file); its max_rules, max_rule_len and alphabet are the limits.
/// responses: a list of responses: str, None (no answer), a chat message dict or a list of
///     chat messages (the last one's content). An empty list scores the instance as
///     missing (one empty response).
/// block: which fenced code block holds the answer, "last" or "first".
///
/// Per sample ("samples"): parsed, valid, rules, valid_rules, dropped_rules, pass,
/// edit_sim, edit_sim_word, reproduced, score, recovered, behaviour, and for a passing
/// sample that is not recovered its "counterexample" ({"input", "gold", "answer"}). The
/// chosen sample (any passing one, else the highest edit_sim, earliest on ties) gives the
/// instance's pass, edit_sim, edit_sim_word, score (share of the examples the gold changes
/// that are reproduced), recovered, behaviour, valid_rules / rules, cascade and
/// heldout_pass (None without held-out examples).
///
/// recovered: the sample's cascade gives the gold's output on every input of the
/// instance's input space (strings over its alphabet, lengths 2–6 widened to its shortest
/// and longest input, visible or held-out), decided exactly. behaviour: the exact probability
/// that it gives the gold's output on a random input of that space that the gold changes.
/// Both are None without a gold cascade ("graded" is then False) and when the comparison
/// hits a bound ("undecided" says which).
#[pyfunction]
#[pyo3(
    signature = (instance, responses, block = Arg::Default),
    text_signature = "(instance, responses, block='last')"
)]
fn score<'py>(
    py: Python<'py>,
    instance: &Bound<'py, PyAny>,
    responses: &Bound<'py, PyAny>,
    block: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("score", arg);
    let instance = convert::instance(instance, arg("instance"))?;
    let responses = Responses::read(responses, arg("responses"))?;
    let texts = responses.texts()?;
    let options = ScoreOptions {
        block: block.or(BlockChoice::Last, |v| {
            parsed(&string(v, arg("block"))?, arg("block"))
        })?,
        ..ScoreOptions::default()
    };
    let score = py.detach(|| score_instance(&instance, &texts, &options));
    to_py(py, &score)
}

/// Rewards for RL: one float per response, computed in parallel without the GIL.
///
/// The reward is the character Edit_Sim of the cascade read from the response's last
/// fenced code block under the instance's limits (max_rules, max_rule_len, alphabet):
/// 1 - sum(dist(predicted, output)) / sum(dist(input, output)) over the instance's
/// examples, dist being the Levenshtein distance over characters.
///
/// * 1.0: every example is reproduced.
/// * 0.0: no change. This is also what an invalid answer gets: an empty or None response,
///   no fenced code block, an unparsable block, an unclosed <think>, or only rules that
///   break a limit. Invalid rules inside a readable answer act as the identity.
/// * Below 0, unbounded: the predicted outputs are further from the gold ones than the
///   inputs were. Clip (e.g. max(r, -1.0)) if your algorithm needs a bounded reward.
/// * An instance whose outputs all equal their inputs (never generated, possible in
///   hand-made data) gives 1.0 to a response that changes nothing, else 0.0.
///
/// Held-out examples are never used unless heldout=True, which scores the visible and the
/// held-out examples together (both sums run over all of them), so that a cascade that
/// only fits the shown examples earns less.
///
/// Instances are prepared once per distinct content within a call: samples of one prompt,
/// or equal dicts (dataset rows handed over as fresh dicts), share the work. Nothing is
/// kept between calls.
///
/// instances: one instance dict per response (same length as responses), one dict for
///     all the responses, or batched columns: a dict of equal-length lists, one value per
///     response, as a Hugging Face dataset's slice (ds[:8]) or a map(batched=True)
///     function gets them. A dict whose max_rules or max_rule_len is a list, or whose
///     inputs is a list of lists, is read as columns (in an instance they are ints and a
///     list of strings); columns of different lengths raise ValueError.
/// responses: str, None, a chat message dict or a list of chat messages (the last one's
///     content is read), as in score().
/// kind: "edit_sim" (the default, above) or "behaviour": the behavioural reward, the same
///     value as score()'s "behaviour" of the sample: the exact probability that the
///     response's cascade gives the gold's output on a random input of the instance's
///     input space that the gold changes (strings over its alphabet, lengths 2–6 widened to
///     its shortest and longest input, visible or held-out; length uniform, letters
///     uniform).
///     1.0 for an answer that behaves like the gold wherever it changes something, 0.0 for
///     the identity and for invalid answers. It needs the gold cascade ("cascade") in
///     each instance dict (ValueError without). An undecided answer, whose comparison hits
///     a bound of the exact engine (its outputs explode), counts as 0.0, as does any answer
///     when the gold changes no input: a trainer needs a float, and a reward must not pay
///     for what it could not check (the share of examples reproduced would pay in full an
///     answer that fits them and explodes elsewhere). score() reports such a sample's
///     behaviour as None with its "undecided" reason, and leaves it out of the mean.
///     heldout does not apply to it.
#[pyfunction]
#[pyo3(
    signature = (instances, responses, heldout = Arg::Default, kind = Arg::Default),
    text_signature = "(instances, responses, heldout=False, kind='edit_sim')"
)]
fn reward<'py>(
    py: Python<'py>,
    instances: &Bound<'py, PyAny>,
    responses: &Bound<'py, PyAny>,
    heldout: Arg<'py>,
    kind: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("reward", arg);
    let heldout = heldout.or(false, |v| flag(v, arg("heldout")))?;
    let kind = kind.or("edit_sim".to_owned(), |v| string(v, arg("kind")))?;
    let responses = Responses::read(responses, arg("responses"))?;
    let texts = responses.texts()?;
    let name = arg("instances");
    let rows = convert::rows(instances, name)?;
    let instances = rows.as_ref().map_or(instances, |rows| rows.as_any());
    // An item's name: a row of columns, or an item of a list.
    let item_name = |k| match rows {
        Some(_) => Name::Row(&name, k),
        None => Name::Index(&name, k),
    };
    match kind.as_str() {
        "edit_sim" => {}
        "behaviour" | "behavior" => {
            let rewards = behaviour::rewards(py, instances, name, &item_name, &texts)?;
            return rewards.into_pyobject(py).map(Bound::into_any);
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "{}: unknown reward kind {other:?} (expected \"edit_sim\" or \"behaviour\")",
                arg("kind")
            )))
        }
    }
    // The prepared instances of this call, by content; its references to Python objects
    // are dropped before the GIL is released.
    let mut cache = InstanceCache::default();
    let mut scratch = Vec::new();
    // Each distinct instance is rewarded once, however many responses it has: the same
    // object (samples of one prompt, or one dict for all) is read once, and equal dicts
    // (dataset rows handed over as fresh dicts) share their prepared instance.
    let mut which: Vec<usize> = Vec::with_capacity(texts.len());
    if instances.cast::<PyMapping>().is_ok() {
        let index = convert::prepared_instance(instances, name, heldout, &mut cache, &mut scratch)?;
        which.resize(texts.len(), index);
    } else {
        // An exact list is read in place, each dict once (see `convert::items`); it keeps
        // them alive, so their addresses name them during the loop.
        let list = instances.cast_exact::<PyList>().ok();
        let collected = match list {
            Some(_) => Vec::new(),
            None => convert::items(instances, name, "instance dicts (or one dict)")?,
        };
        let n = list.map_or(collected.len(), |list| list.len());
        if n != texts.len() {
            return Err(count_mismatch(name, n, texts.len(), rows.is_some()));
        }
        let mut seen = IdentityMemo::new(n);
        let mut read = |k: usize, item: &Bound<'py, PyAny>| -> PyResult<()> {
            let index = match seen.get(item) {
                Some(index) => index,
                None => {
                    let name = item_name(k);
                    let index =
                        convert::prepared_instance(item, name, heldout, &mut cache, &mut scratch)?;
                    seen.insert(item, index);
                    index
                }
            };
            which.push(index);
            Ok(())
        };
        match list {
            Some(list) => {
                for (k, item) in list.iter().enumerate() {
                    read(k, &item)?;
                }
            }
            None => {
                for (k, item) in collected.iter().enumerate() {
                    read(k, item)?;
                }
            }
        }
    }
    let unique = cache.into_prepared();
    rewards_of(py, &unique, &which, &texts)?
        .into_pyobject(py)
        .map(Bound::into_any)
}

/// The error for `n` instances (rows of batched columns, when `rows`) given for another
/// number of responses.
fn count_mismatch(name: Name<'_>, n: usize, responses: usize, rows: bool) -> PyErr {
    let (what, fix) = match rows {
        true => ("rows of batched columns", "one row per response"),
        false => (
            "instances",
            "one instance per response, or a single instance dict for all",
        ),
    };
    PyValueError::new_err(format!(
        "{name}: got {n} {what} for {responses} responses: give {fix}"
    ))
}

/// The index of the prepared instance of the objects seen last at some addresses: a table
/// with a slot per address (hashed), whose entry is replaced on a collision. It spares
/// reading again an object met before (samples of one prompt are given the same dict), at
/// a fixed cost: a missed object is simply read. The objects must stay alive while it is
/// used, so that an address names one object.
struct IdentityMemo {
    slots: Vec<(usize, usize)>,
    shift: u32,
}

impl IdentityMemo {
    /// A memo for `n` objects (at most 4096 slots).
    fn new(n: usize) -> Self {
        let slots = n.clamp(16, 4096).next_power_of_two();
        IdentityMemo {
            slots: vec![(0, 0); slots],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    fn slot(&self, object: &Bound<'_, PyAny>) -> usize {
        let address = object.as_ptr() as usize as u64;
        (address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn get(&self, object: &Bound<'_, PyAny>) -> Option<usize> {
        let (address, index) = self.slots[self.slot(object)];
        (address == object.as_ptr() as usize).then_some(index)
    }

    fn insert(&mut self, object: &Bound<'_, PyAny>, index: usize) {
        let slot = self.slot(object);
        self.slots[slot] = (object.as_ptr() as usize, index);
    }
}

/// The reward of each of `texts` against `instances[which[k]]`, without the GIL, on the
/// worker pool.
fn rewards_of(
    py: Python<'_>,
    instances: &[Arc<PreparedInstance>],
    which: &[usize],
    texts: &[&str],
) -> PyResult<Vec<f64>> {
    // The responses of each instance, a chunk at a time: rewarded together, a cascade
    // several of them give is applied once. Only the instances used are visited: each gets
    // a slot, and the responses are put in the order of their slots (a counting sort).
    let mut slot_of: FxHashMap<usize, usize> = FxHashMap::default();
    let mut used: Vec<usize> = Vec::new();
    let slots: Vec<usize> = which
        .iter()
        .map(|&i| {
            *slot_of.entry(i).or_insert_with(|| {
                used.push(i);
                used.len() - 1
            })
        })
        .collect();
    let mut starts = vec![0; used.len() + 1];
    for &s in &slots {
        starts[s + 1] += 1;
    }
    for s in 0..used.len() {
        starts[s + 1] += starts[s];
    }
    let mut order = vec![0; which.len()];
    let mut next = starts.clone();
    for (k, &s) in slots.iter().enumerate() {
        order[next[s]] = k;
        next[s] += 1;
    }
    let (used, order) = (&used, &order);
    let work: Vec<(usize, &[usize])> = (0..used.len())
        .flat_map(|s| {
            let ks = &order[starts[s]..starts[s + 1]];
            ks.chunks(MIN_CHUNK).map(move |chunk| (used[s], chunk))
        })
        .collect();
    let pool = pool()?;
    Ok(py.detach(|| {
        pool.install(|| {
            let rewarded: Vec<Vec<f64>> = work
                .par_iter()
                .with_min_len(MIN_CHUNK / 8)
                .map_init(RewardScratch::default, |scratch, &(i, ks)| {
                    let mut rewards = Vec::with_capacity(ks.len());
                    let chunk = ks.iter().map(|&k| texts[k]);
                    instances[i]
                        .rewarder()
                        .rewards_into(chunk, scratch, &mut rewards);
                    rewards
                })
                .collect();
            let mut rewards = vec![0.0; texts.len()];
            for ((_, ks), chunk) in work.iter().zip(rewarded) {
                for (&k, reward) in ks.iter().zip(chunk) {
                    rewards[k] = reward;
                }
            }
            rewards
        })
    }))
}

/// Rewards against a fixed list of instances (a dataset), read and prepared once.
///
/// For a training loop that rewards responses to the rows of one dataset step after step:
/// Rewarder(dataset).reward(indices, responses) gives the same floats as
/// reward([dataset[i] for i in indices], responses), without reading any instance dict
/// again: reward() reads and prepares the dicts it is given at each call; a Rewarder reads
/// only the indices.
///
/// instances: a list of instance dicts, or batched columns (a dict of equal-length lists),
///     as for reward(). They are copied: changing a dict afterwards does not change the
///     Rewarder.
/// heldout: score the held-out examples too, as reward(..., heldout=True).
#[pyclass(module = "pbebench", name = "Rewarder", frozen)]
struct DatasetRewarder {
    instances: Vec<Arc<PreparedInstance>>,
}

#[pymethods]
impl DatasetRewarder {
    #[new]
    #[pyo3(
        signature = (instances, heldout = Arg::Default),
        text_signature = "(instances, heldout=False)"
    )]
    fn new(instances: &Bound<'_, PyAny>, heldout: Arg<'_>) -> PyResult<Self> {
        let heldout = heldout.or(false, |v| flag(v, Name::arg("Rewarder", "heldout")))?;
        let name = Name::arg("Rewarder", "instances");
        let rows = convert::rows(instances, name)?;
        let items = match &rows {
            Some(rows) => rows.iter().collect(),
            None => convert::items(instances, name, "instance dicts")?,
        };
        // Equal dicts share one prepared instance; the cache is this Rewarder's only.
        let mut cache = InstanceCache::default();
        let mut scratch = Vec::new();
        let indices = items
            .iter()
            .enumerate()
            .map(|(k, item)| {
                let name = match rows {
                    Some(_) => Name::Row(&name, k),
                    None => Name::Index(&name, k),
                };
                convert::prepared_instance(item, name, heldout, &mut cache, &mut scratch)
            })
            .collect::<PyResult<Vec<usize>>>()?;
        let prepared = cache.into_prepared();
        let instances = indices.iter().map(|&i| Arc::clone(&prepared[i])).collect();
        Ok(DatasetRewarder { instances })
    }

    /// The number of instances.
    fn __len__(&self) -> usize {
        self.instances.len()
    }

    /// One float per response: the reward of responses[k] against instance indices[k]
    /// (or against instance indices, an int, for all), as reward() computes it.
    ///
    /// indices: a list of ints, one per response, each in range(len(self)); or one int.
    /// responses: as for reward().
    fn reward(
        &self,
        py: Python<'_>,
        indices: &Bound<'_, PyAny>,
        responses: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<f64>> {
        let responses = Responses::read(responses, Name::arg("Rewarder.reward", "responses"))?;
        let texts = responses.texts()?;
        let n = self.instances.len();
        let index = |obj: &Bound<'_, PyAny>, name: Name<'_>| -> PyResult<usize> {
            let i = convert::count(obj, name)?;
            if i >= n {
                return Err(PyIndexError::new_err(format!(
                    "{name} is {i}, but the Rewarder has {n} instances"
                )));
            }
            Ok(i)
        };
        let name = Name::arg("Rewarder.reward", "indices");
        let which = if indices.is_instance_of::<PyInt>() {
            vec![index(indices, name)?; texts.len()]
        } else {
            let items = convert::items(indices, name, "ints (or one int)")?;
            if items.len() != texts.len() {
                return Err(PyValueError::new_err(format!(
                    "{name}: got {} indices for {} responses: give one index per response, or a single int for all",
                    items.len(),
                    texts.len()
                )));
            }
            items
                .iter()
                .enumerate()
                .map(|(k, item)| index(item, Name::Index(&name, k)))
                .collect::<PyResult<Vec<usize>>>()?
        };
        rewards_of(py, &self.instances, &which, &texts)
    }
}

/// The `pbebench._pbebench` extension module; `pbebench/__init__.py` re-exports it.
#[pymodule]
fn _pbebench(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<generation::Generation>()?;
    m.add_class::<DatasetRewarder>()?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(apply, m)?)?;
    m.add_function(wrap_pyfunction!(pairs, m)?)?;
    m.add_function(wrap_pyfunction!(relations, m)?)?;
    m.add_function(wrap_pyfunction!(prompt, m)?)?;
    m.add_function(wrap_pyfunction!(parse_response, m)?)?;
    m.add_function(wrap_pyfunction!(score, m)?)?;
    m.add_function(wrap_pyfunction!(reward, m)?)?;
    formats::register(m)?;
    probe::register(m)?;
    reorder::register(m)?;
    vetting::register(m)?;
    Ok(())
}
