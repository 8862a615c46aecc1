//! Reading scored results: the per-instance JSONL of `pbebench score --per-instance`, the
//! summary JSON of `pbebench score --out`, an evaluation run's `results.json`, or a
//! directory holding them; and checking that results belong to a dataset.
//!
//! A results argument is `[LABEL=]PATH[,PATH]`: one or two files (a summary and the
//! per-instance lines of the same run) or a directory. The per-instance lines carry
//! everything the analyses need (each instance's chosen cascade, pass, scores), so the
//! summary is recomputed from them when they are given; a summary alone feeds only the
//! leaderboard and the by-length figures.

use pbebench::metrics;
use pbebench::{read_score_lines, summarize, Aggregate, Instance, InstanceScore, Results, Summary};
use pbebench_eval::{EpisodeGrade, RunResultsFile};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// How many offending ids a message names before "… and N more".
const NAMED: usize = 3;

/// A problem that makes results unusable; the message names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// A file or directory could not be read.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// One line of a per-instance file is not a scored instance.
    #[error("{path}:{line}: {message}")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The results do not belong to the dataset (or to each other).
    #[error("{0}")]
    Mismatch(String),
}

pub(crate) fn file_err(path: &Path, message: impl Into<String>) -> ResultsError {
    ResultsError::File {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The scored results of one solver (or model) on one dataset.
#[derive(Debug, Clone)]
pub struct ResultSet {
    /// Name shown in tables and legends.
    pub label: String,
    /// The files read.
    pub sources: Vec<PathBuf>,
    /// Aggregates: recomputed from `instances` when present, else as read.
    pub summary: Summary,
    /// Per-instance scores, when a per-instance file was given.
    pub instances: Option<Vec<InstanceScore>>,
    /// What the run cost, when an evaluation run reported a positive cost.
    pub cost: Option<f64>,
    /// The dataset the summary file names, if any.
    pub dataset: Option<PathBuf>,
    /// The graded episodes of an interactive evaluation run (its `results.json`'s
    /// `interactive.episodes`), when the results are one.
    pub episodes: Option<Vec<EpisodeGrade>>,
    /// The strategy an evaluation run's `results.json` names (`stepwise`, `feedback`);
    /// `None` for sampling and probing runs and for other results.
    pub strategy: Option<String>,
    /// The tokens an evaluation run's `results.json` counts, when it has run figures.
    pub tokens: Option<pbebench::Tokens>,
}

impl ResultSet {
    /// The run directory of an interactive evaluation (where its `results.json` is), for
    /// `pbebench show`.
    pub fn run_dir(&self) -> Option<&Path> {
        self.episodes.as_ref()?;
        let file = self
            .sources
            .iter()
            .find(|p| p.file_name().is_some_and(|n| n == "results.json"))?;
        Some(file.parent().unwrap_or(Path::new(".")))
    }

    /// A few episodes worth reading, at most `n`, in this order: the first recovered one,
    /// the first one not recovered (or undecided), the one that probed
    /// most, then the others in file order; each once.
    pub fn episodes_to_show(&self, n: usize) -> Vec<&EpisodeGrade> {
        let Some(list) = &self.episodes else {
            return Vec::new();
        };
        let picks = [
            list.iter().find(|e| e.recovered == Some(true)),
            list.iter().find(|e| e.recovered != Some(true)),
            list.iter().max_by_key(|e| e.probes_used),
        ];
        let mut out: Vec<&EpisodeGrade> = Vec::new();
        for e in picks.into_iter().flatten().chain(list) {
            if out.len() >= n {
                break;
            }
            if !out.iter().any(|o| std::ptr::eq(*o, e)) {
                out.push(e);
            }
        }
        out
    }
}

impl ResultSet {
    /// Per-instance scores, or an error saying how to get them.
    pub fn require_instances(&self) -> Result<&[InstanceScore], ResultsError> {
        self.instances.as_deref().ok_or_else(|| {
            ResultsError::Mismatch(format!(
                "{}: holds only a summary; give the per-instance file as well \
                 (`pbebench score --per-instance FILE`, then --results {}=SUMMARY,FILE)",
                self.sources_text(),
                self.label
            ))
        })
    }

    /// The source files, comma-separated, for messages.
    pub fn sources_text(&self) -> String {
        self.sources
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Builds a set from per-instance scores computed in memory (the demo's runs).
    pub fn from_instances(label: &str, instances: Vec<InstanceScore>) -> Self {
        ResultSet {
            label: label.to_owned(),
            sources: Vec::new(),
            summary: summarize(&instances),
            instances: Some(instances),
            cost: None,
            dataset: None,
            episodes: None,
            strategy: None,
            tokens: None,
        }
    }

    /// The strategy's name for tables: the one the run names, else `probing` for an
    /// interactive run and `sampling` for the others.
    pub fn strategy_name(&self) -> &str {
        match (&self.strategy, &self.episodes) {
            (Some(name), _) => name,
            (None, Some(_)) => "probing",
            (None, None) => "sampling",
        }
    }
}

/// A results set and the warnings met while reading it.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The results.
    pub(crate) set: ResultSet,
    /// Things a user should know (listed, not fatal).
    pub(crate) warnings: Vec<String>,
}

/// Reads one `[LABEL=]PATH[,PATH]` argument.
pub(crate) fn load(spec: &str) -> Result<Loaded, ResultsError> {
    let (label, paths) = split_spec(spec);
    if paths.is_empty() {
        return Err(ResultsError::Mismatch(format!(
            "results '{spec}': no file given (expected [LABEL=]FILE[,FILE])"
        )));
    }
    let mut files = Vec::new();
    for path in &paths {
        if path.is_dir() {
            files.extend(files_in_dir(path)?);
        } else {
            files.push(path.clone());
        }
    }
    let mut summary: Option<(Summary, Option<f64>, Option<PathBuf>, PathBuf)> = None;
    let mut episodes: Option<Vec<EpisodeGrade>> = None;
    let (mut strategy, mut tokens) = (None, None);
    let mut instances: Option<(Vec<InstanceScore>, PathBuf)> = None;
    let mut warnings = Vec::new();
    for file in &files {
        match read_file(file)? {
            Content::Summary(results, interactive, named) => {
                if summary.is_some() {
                    return Err(file_err(file, "a second summary for the same results; give one summary and one per-instance file"));
                }
                episodes = interactive;
                strategy = named;
                tokens = results.run.as_ref().map(|r| r.tokens);
                let cost = results.run.as_ref().map(|r| r.cost).filter(|c| *c > 0.0);
                summary = Some((results.summary, cost, results.dataset, file.clone()));
            }
            Content::Instances(list, w) => {
                if instances.is_some() {
                    return Err(file_err(file, "a second per-instance file for the same results; give each run as a results argument of its own"));
                }
                warnings.extend(w);
                instances = Some((list, file.clone()));
            }
        }
    }
    let label = label.unwrap_or_else(|| default_label(&paths[0]));
    let (summary, cost, dataset) = match (summary, &instances) {
        (Some((s, cost, dataset, spath)), Some((list, ipath))) => {
            let recomputed = summarize(list);
            check_agree(&s, &recomputed, &spath, ipath)?;
            (recomputed, cost, dataset)
        }
        (Some((s, cost, dataset, _)), None) => (s, cost, dataset),
        (None, Some((list, _))) => (summarize(list), None, None),
        (None, None) => {
            return Err(ResultsError::Mismatch(format!(
                "results '{spec}': found no results file (expected results.json and/or per-instance.jsonl)"
            )))
        }
    };
    Ok(Loaded {
        set: ResultSet {
            label,
            sources: files,
            summary,
            instances: instances.map(|(l, _)| l),
            cost,
            dataset,
            episodes,
            strategy,
            tokens,
        },
        warnings,
    })
}

/// `LABEL=a,b` → (Some(LABEL), [a, b]). A label is free text up to the first `=`
/// (`Qwen/Qwen3-8B=runs/x`: model names hold `/`); a spec naming an existing path is a
/// path, even with `=` or `,` in it.
pub(crate) fn split_spec(spec: &str) -> (Option<String>, Vec<PathBuf>) {
    if Path::new(spec).exists() {
        return (None, vec![PathBuf::from(spec)]);
    }
    let (label, rest) = match spec.split_once('=') {
        Some((l, r)) if !l.is_empty() => (Some(l.to_owned()), r),
        _ => (None, spec),
    };
    let paths = rest
        .split(',')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    (label, paths)
}

/// The results files of a run directory.
pub(crate) fn files_in_dir(dir: &Path) -> Result<Vec<PathBuf>, ResultsError> {
    let mut found = Vec::new();
    for name in [
        "results.json",
        "per-instance.jsonl",
        "per_instance.jsonl",
        "instances.jsonl",
    ] {
        let p = dir.join(name);
        if p.is_file() {
            found.push(p);
        }
    }
    if found.is_empty() {
        return Err(file_err(
            dir,
            "no results.json or per-instance.jsonl in this directory",
        ));
    }
    Ok(found)
}

/// Names too generic to identify a run; the parent directory names it instead.
const GENERIC: [&str; 6] = [
    "results",
    "per-instance",
    "per_instance",
    "instances",
    "scores",
    "summary",
];

pub(crate) fn default_label(first: &Path) -> String {
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let named = |p: &Path| {
        let s = stem(p);
        if GENERIC.contains(&s.as_str()) || p.is_dir() {
            let dir = if p.is_dir() { Some(p) } else { p.parent() };
            dir.and_then(|d| d.canonicalize().ok())
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or(s)
        } else {
            s
        }
    };
    named(first)
}

enum Content {
    /// The results, the graded episodes and the strategy of a results file.
    Summary(Box<Results>, Option<Vec<EpisodeGrade>>, Option<String>),
    Instances(Vec<InstanceScore>, Vec<String>),
}

/// Reads a file as results JSON ([`Results`]) or per-instance lines.
fn read_file(path: &Path) -> Result<Content, ResultsError> {
    let bytes = pbebench_io::read_input(path).map_err(|e| file_err(path, e.to_string()))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        file_err(
            path,
            format!("not valid UTF-8 (byte {})", e.valid_up_to() + 1),
        )
    })?;
    if text.trim().is_empty() {
        return Err(file_err(path, "the file is empty"));
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        if Results::is_results(&value) {
            let file =
                RunResultsFile::from_value(value).map_err(|e| file_err(path, e.to_string()))?;
            let episodes = file.interactive.map(|i| i.episodes);
            return Ok(Content::Summary(
                Box::new(file.results),
                episodes,
                file.strategy,
            ));
        }
        if value.get("id").is_none() {
            return Err(file_err(
                path,
                "neither a score summary (`pbebench score --out`, an eval run's results.json) \
                 nor per-instance results (`pbebench score --per-instance`)",
            ));
        }
    }
    read_instances(path, text)
}

fn read_instances(path: &Path, text: &str) -> Result<Content, ResultsError> {
    let lines = read_score_lines(text).map_err(|e| ResultsError::Line {
        path: path.to_path_buf(),
        line: e.line,
        message: e.problem.to_string(),
    })?;
    if lines.scores.is_empty() {
        return Err(file_err(path, "the file holds no results"));
    }
    let mut warnings = Vec::new();
    if !lines.duplicates.is_empty() {
        let duplicates: Vec<&str> = lines
            .duplicates
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        warnings.push(format!(
            "{}: {} duplicate line(s) ignored (the first wins): {}",
            path.display(),
            duplicates.len(),
            named(&duplicates)
        ));
    }
    Ok(Content::Instances(lines.scores, warnings))
}

/// The first few items, then "… and N more".
pub(crate) fn named<S: AsRef<str>>(items: &[S]) -> String {
    let shown: Vec<&str> = items.iter().take(NAMED).map(AsRef::as_ref).collect();
    let more = items.len().saturating_sub(NAMED);
    if more > 0 {
        format!("{} … and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

fn check_agree(
    file: &Summary,
    recomputed: &Summary,
    summary_path: &Path,
    instances_path: &Path,
) -> Result<(), ResultsError> {
    let a = serde_json::to_value(file).expect("serialisable");
    let b = serde_json::to_value(as_kept_by(file, recomputed)).expect("serialisable");
    if let Some(place) = first_difference(&a, &b, String::new()) {
        return Err(ResultsError::Mismatch(format!(
            "{} and {} are not from the same run: their figures differ at {place} \
             (the summary has {} instances, best-of-K {}; the per-instance lines {} instances, best-of-K {})",
            summary_path.display(),
            instances_path.display(),
            file.overall.instances,
            pbebench::figure(Some(file.overall.best_of_k)),
            recomputed.overall.instances,
            pbebench::figure(Some(recomputed.overall.best_of_k))
        )));
    }
    Ok(())
}

/// `recomputed` without what a summary file of format 1 did not keep (intervals; the
/// per-sample vetted figures where it had several samples per instance), so that the two
/// compare on what both hold.
fn as_kept_by(file: &Summary, recomputed: &Summary) -> Summary {
    let mut kept = recomputed.clone();
    let trim = |file: &Aggregate, kept: &mut Aggregate| {
        if file.intervals.is_empty() {
            kept.intervals.clear();
        }
        for (f, k) in [
            (file.mean_reward, &mut kept.mean_reward),
            (file.almost, &mut kept.almost),
            (file.resolved, &mut kept.resolved),
        ] {
            if f.is_none() {
                *k = None;
            }
        }
    };
    trim(&file.overall, &mut kept.overall);
    for (len, f) in &file.by_cascade_len {
        if let Some(k) = kept.by_cascade_len.get_mut(len) {
            trim(f, k);
        }
    }
    for (category, f) in &file.by_category {
        if let Some(k) = kept.by_category.get_mut(category) {
            trim(f, k);
        }
    }
    kept
}

/// Where two JSON values first differ (numbers within 1e-9), as a path like
/// `by_cascade_len.3.pass`; `None` when they agree.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    let here = || {
        if at.is_empty() {
            "the top".to_owned()
        } else {
            at.clone()
        }
    };
    let join = |k: &str| {
        if at.is_empty() {
            k.to_owned()
        } else {
            format!("{at}.{k}")
        }
    };
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            ((x - y).abs() > 1e-9 * x.abs().max(1.0)).then(here)
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() || x.keys().any(|k| !y.contains_key(k)) {
                return Some(here());
            }
            x.iter()
                .find_map(|(k, v)| first_difference(v, &y[k], join(k)))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(here());
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(k, (v, w))| first_difference(v, w, join(&k.to_string())))
        }
        _ => (a != b).then(here),
    }
}

/// Checks that `set` scores instances of `dataset`: every id known, the same cascade
/// lengths and example counts, and each chosen cascade re-scored on the dataset's
/// examples gives the stated pass and fractional score. Unknown ids are dropped with a
/// warning (the summary is recomputed); contradictions are fatal.
pub fn check_against(
    dataset: &[Instance],
    set: &mut ResultSet,
    dataset_name: &str,
) -> Result<Vec<String>, ResultsError> {
    let by_id: HashMap<&str, &Instance> = dataset.iter().map(|i| (i.id.as_str(), i)).collect();
    let mut warnings = Vec::new();
    let label = set.label.clone();
    let sources = set.sources_text();
    let Some(list) = set.instances.as_mut() else {
        let o = &set.summary.overall;
        if o.instances != dataset.len() {
            return Err(ResultsError::Mismatch(format!(
                "{} ({label}) summarises {} instances but {dataset_name} has {}: results for another dataset?",
                sources,
                o.instances,
                dataset.len()
            )));
        }
        let mut lens: HashMap<usize, usize> = HashMap::new();
        for inst in dataset {
            *lens.entry(inst.cascade_len).or_default() += 1;
        }
        for (len, agg) in &set.summary.by_cascade_len {
            if lens.get(len) != Some(&agg.instances) {
                return Err(ResultsError::Mismatch(format!(
                    "{} ({label}) has {} instances of cascade length {len}, {dataset_name} {}: results for another dataset?",
                    sources,
                    agg.instances,
                    lens.get(len).copied().unwrap_or(0)
                )));
            }
        }
        return Ok(warnings);
    };
    let unknown: Vec<String> = list
        .iter()
        .filter(|s| !by_id.contains_key(s.id.as_str()))
        .map(|s| s.id.clone())
        .collect();
    if unknown.len() == list.len() {
        return Err(ResultsError::Mismatch(format!(
            "{} ({label}): none of its {} ids is in {dataset_name} (e.g. '{}'): results for another dataset",
            sources,
            list.len(),
            unknown[0]
        )));
    }
    if !unknown.is_empty() {
        warnings.push(format!(
            "{} ({label}): {} id(s) not in {dataset_name}, ignored: {}",
            sources,
            unknown.len(),
            named(&unknown)
        ));
        list.retain(|s| by_id.contains_key(s.id.as_str()));
    }
    let present: HashSet<&str> = list.iter().map(|s| s.id.as_str()).collect();
    let absent: Vec<&str> = dataset
        .iter()
        .map(|i| i.id.as_str())
        .filter(|id| !present.contains(id))
        .collect();
    if !absent.is_empty() {
        warnings.push(format!(
            "{} ({label}): no result for {} of {dataset_name}'s {} instances (left out): {}",
            sources,
            absent.len(),
            dataset.len(),
            named(&absent)
        ));
    }
    let mut contradictions = Vec::new();
    for s in list.iter() {
        let inst = by_id[s.id.as_str()];
        if let Some(why) = contradiction(inst, s) {
            contradictions.push(format!("'{}': {why}", s.id));
        }
    }
    if !contradictions.is_empty() {
        return Err(ResultsError::Mismatch(format!(
            "{} ({label}): {} of {} results contradict {dataset_name} ({}): results for another dataset (or an edited file)",
            sources,
            contradictions.len(),
            list.len(),
            named(&contradictions)
        )));
    }
    set.summary = summarize(list);
    Ok(warnings)
}

/// Why a scored instance cannot be a score of `inst`, if it cannot.
fn contradiction(inst: &Instance, s: &InstanceScore) -> Option<String> {
    if s.cascade_len != inst.cascade_len {
        return Some(format!(
            "cascade length {} in the results, {} in the dataset",
            s.cascade_len, inst.cascade_len
        ));
    }
    if s.examples != inst.outputs.len() {
        return Some(format!(
            "{} examples in the results, {} in the dataset",
            s.examples,
            inst.outputs.len()
        ));
    }
    // The results' cascade is untrusted: applied with its strings bounded, and an example
    // on which it passes the bound is not reproduced (as scoring counts it).
    let bound = pbebench::equiv::length_bound(inst);
    let predicted: Vec<Option<String>> = (inst.inputs.iter())
        .map(|i| s.cascade.apply_bounded(i, bound).ok())
        .collect();
    let (mut changed, mut reproduced, mut all) = (0, 0, !inst.outputs.is_empty());
    for ((i, o), p) in inst.inputs.iter().zip(&inst.outputs).zip(&predicted) {
        let same = p.as_ref() == Some(o);
        all &= same;
        if i != o {
            changed += 1;
            reproduced += usize::from(same);
        }
    }
    let score = metrics::fractional_ratio(reproduced, changed, all);
    if (score - s.score).abs() > 1e-9 {
        return Some(format!(
            "its cascade scores {score:.3} on the dataset's examples, the results say {:.3}",
            s.score
        ));
    }
    None
}

/// Checks that result sets score the same instances: an id with different cascade
/// lengths in two sets is fatal; different id sets are a warning.
pub fn check_same_instances(sets: &[ResultSet]) -> Result<Vec<String>, ResultsError> {
    let mut warnings = Vec::new();
    let mut reference: Option<(&ResultSet, HashMap<&str, usize>)> = None;
    for set in sets {
        let Some(list) = &set.instances else {
            continue;
        };
        let map: HashMap<&str, usize> = list
            .iter()
            .map(|s| (s.id.as_str(), s.cascade_len))
            .collect();
        match &reference {
            None => reference = Some((set, map)),
            Some((first, first_map)) => {
                if let Some((id, len)) = map
                    .iter()
                    .find(|(id, len)| first_map.get(*id).is_some_and(|l| l != *len))
                {
                    return Err(ResultsError::Mismatch(format!(
                        "'{}' and '{}' are on different datasets: instance '{id}' has cascade length {} in one and {len} in the other; report them separately",
                        first.label, set.label, first_map[id]
                    )));
                }
                let a: BTreeSet<&str> = first_map.keys().copied().collect();
                let b: BTreeSet<&str> = map.keys().copied().collect();
                if a.is_disjoint(&b) {
                    return Err(ResultsError::Mismatch(format!(
                        "'{}' and '{}' have no instance in common (e.g. '{}' and '{}'): they are on different datasets; report them separately",
                        first.label,
                        set.label,
                        a.first().copied().unwrap_or(""),
                        b.first().copied().unwrap_or("")
                    )));
                }
                if a != b {
                    let only: Vec<&str> = a.symmetric_difference(&b).copied().collect();
                    warnings.push(format!(
                        "'{}' ({} instances) and '{}' ({}) cover different instances ({} differ: {}); their figures are not directly comparable",
                        first.label,
                        a.len(),
                        set.label,
                        b.len(),
                        only.len(),
                        named(&only)
                    ));
                }
            }
        }
    }
    let sizes: BTreeSet<usize> = sets.iter().map(|s| s.summary.overall.instances).collect();
    if sizes.len() > 1 && warnings.is_empty() {
        warnings.push(format!(
            "the results cover different numbers of instances ({}); their figures are not directly comparable",
            sizes
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(warnings)
}

/// Makes labels unique by appending " (2)", " (3)", ….
pub(crate) fn dedupe_labels(sets: &mut [ResultSet]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for set in sets.iter_mut() {
        let n = seen.entry(set.label.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            set.label = format!("{} ({n})", set.label);
        }
    }
}

/// Reads every `--results` argument, makes the labels unique, and checks the sets
/// against `dataset` (when given) or against each other. Returns the sets and the
/// warnings to list.
pub fn load_results(
    specs: &[String],
    dataset: Option<(&[Instance], &str)>,
) -> Result<(Vec<ResultSet>, Vec<String>), ResultsError> {
    let mut sets = Vec::new();
    let mut warnings = Vec::new();
    for spec in specs {
        let loaded = load(spec)?;
        warnings.extend(loaded.warnings);
        sets.push(loaded.set);
    }
    dedupe_labels(&mut sets);
    match dataset {
        Some((instances, name)) => {
            for set in &mut sets {
                warnings.extend(check_against(instances, set, name)?);
            }
        }
        None => warnings.extend(check_same_instances(&sets)?),
    }
    Ok((sets, warnings))
}

#[cfg(test)]
mod spec_tests {
    use super::*;

    /// Labels are free text: a model's name holds `/`.
    #[test]
    fn labels_hold_any_text_up_to_the_first_equals_sign() {
        let (label, paths) = split_spec("Qwen/Qwen3-8B=runs/x,runs/y");
        assert_eq!(label.as_deref(), Some("Qwen/Qwen3-8B"));
        assert_eq!(paths, [PathBuf::from("runs/x"), PathBuf::from("runs/y")]);
        assert_eq!(split_spec("a=b=c").0.as_deref(), Some("a"));
        assert_eq!(split_spec("=x").0, None);
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("a=b");
        std::fs::write(&odd, "").unwrap();
        let spec = odd.display().to_string();
        assert_eq!(
            split_spec(&spec),
            (None, vec![odd]),
            "an existing path is a path"
        );
    }
}
