//! Runs on a reordering set (`pbebench reorder`'s file, `docs/reorder.md`): the same run
//! as on a synthesis dataset (the store, resume, budget, workers and writer, the
//! results file), with the task's own request, answer and grade.
//!
//! A dataset is a reordering set when its first line has `scrambled` and `order`
//! ([`pbebench::reorder::is_reorder_line`], as `pbebench prompt` and `score` recognise
//! it). Each problem is asked with [`pbebench::reorder::reorder_prompt`] (a model) or
//! given as its public fields plus `scrambled` (a solver program, [`PublicProblem`]); an
//! answer is read with [`pbebench::reorder::parse_order`] and graded with
//! [`pbebench::reorder::score_order`], so a run scores exactly as `pbebench score` does
//! on the same responses. In interactive mode the solver has a `test_order` tool
//! (`episode`).

pub(crate) mod episode;

pub use episode::OrderEpisodes;

use crate::backend::Backend;
use crate::episode::InteractiveSpec;
use crate::fingerprint::dataset_ref;
use crate::sample::Prices;
use crate::scoring::{RunResults, Tally};
use crate::solver_cmd::PublicInstance;
use crate::store::{DatasetRef, RunStore};
use crate::{ConfigError, EvalConfig, EvalError, Field, Problem, SolverSpec};
use pbebench::dataset::DatasetError;
use pbebench::reorder::{
    is_reorder_line, read_reorder_lines, reorder_prompt, score_order_response,
    score_order_responses, summarize_orders, OrderInstanceScore, OrderSummary, ReorderInstance,
};
use pbebench::{BlockChoice, Cascade, Instance};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// What a run's samples answer: synthesis instances, or reordering problems (one per
/// instance of the run, in the same order).
pub(crate) enum Task {
    /// Find a cascade.
    Synthesis,
    /// Order the scrambled gold rules.
    Reorder(Vec<ReorderInstance>),
}

/// A run's dataset as read: its instances (a reordering problem's own instance), the
/// task, and the manifest's name for it.
pub(crate) struct Loaded {
    pub(crate) instances: Vec<Instance>,
    pub(crate) task: Task,
    pub(crate) dataset: DatasetRef,
}

/// Reads the dataset at `path`: a reordering set when its first non-blank line is a
/// reordering problem, else a synthesis dataset.
pub(crate) fn load(path: &Path) -> Result<Loaded, EvalError> {
    if !is_reorder_file(path)? {
        let instances = pbebench::dataset::read_dataset(path)?;
        let dataset = dataset_ref(path, &instances);
        return Ok(Loaded {
            instances,
            task: Task::Synthesis,
            dataset,
        });
    }
    let problems = read_set(path)?;
    let mut dataset = dataset_ref(path, &[]);
    dataset.sha256 = pbebench_io::dataset_fingerprint(&problems);
    dataset.instances = problems.len();
    Ok(Loaded {
        instances: problems.iter().map(|p| p.instance.clone()).collect(),
        task: Task::Reorder(problems),
        dataset,
    })
}

/// Whether the file's first non-blank line is a reordering problem.
fn is_reorder_file(path: &Path) -> Result<bool, EvalError> {
    let io = |error| {
        EvalError::from(DatasetError::Io {
            path: path.to_path_buf(),
            error,
        })
    };
    let input = pbebench_io::open_input(path).map_err(io)?;
    for line in input.lines() {
        let Ok(line) = line else {
            return Ok(false); // not text: the dataset reader names the problem
        };
        if !line.trim().is_empty() {
            return Ok(is_reorder_line(&line));
        }
    }
    Ok(false)
}

/// The problems of a reordering set; a bad line is an error naming it.
fn read_set(path: &Path) -> Result<Vec<ReorderInstance>, EvalError> {
    let text = pbebench_io::read_input_string(path).map_err(|error| DatasetError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let problems = read_reorder_lines(&text).map_err(|e| {
        EvalError::Parameter(format!(
            "{}:{}: {}; write the set again with `pbebench reorder`",
            path.display(),
            e.line,
            e.problem
        ))
    })?;
    if problems.is_empty() {
        return Err(EvalError::Parameter(format!(
            "{}: the reordering set has no problems",
            path.display()
        )));
    }
    Ok(problems)
}

/// What a solver program reads on stdin for a reordering problem: the instance's public
/// fields, as for synthesis ([`PublicInstance`]), and the rules to order.
#[derive(Debug, Serialize)]
pub struct PublicProblem<'a> {
    /// The instance's public fields.
    #[serde(flatten)]
    pub instance: PublicInstance<'a>,
    /// The gold rules in the scrambled order, as `[pattern, replacement]` pairs; the answer
    /// is a JSON array of indices into it.
    pub scrambled: &'a Cascade,
}

impl<'a> PublicProblem<'a> {
    /// The public part of `problem` (never its gold order).
    pub fn of(problem: &'a ReorderInstance) -> Self {
        PublicProblem {
            instance: PublicInstance::of(&problem.instance),
            scrambled: &problem.scrambled,
        }
    }

    /// One line of JSON, as written to the program's stdin.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("strings serialise")
    }
}

impl Task {
    /// Refuses what the task cannot use: a prompt template for a reordering set.
    pub(crate) fn check(&self, config: &EvalConfig) -> Result<(), EvalError> {
        if let (Task::Reorder(_), SolverSpec::Chat(chat)) = (self, &config.solver) {
            if chat.template.is_some() {
                return Err(ConfigError {
                    field: Field::Template,
                    problem: Problem::Unusable(
                        "is for synthesis prompts: a reordering set is asked with pbebench's \
                         own reordering prompt; leave it out"
                            .to_owned(),
                    ),
                }
                .into());
            }
        }
        if let (Task::Reorder(_), Some(name)) = (self, config.strategy()) {
            return Err(ConfigError {
                field: Field::Strategy,
                problem: Problem::Unusable(format!(
                    "{name} is for synthesis sets: a reordering set is asked for whole orders \
                     (with --interactive, test_order gives its feedback)"
                )),
            }
            .into());
        }
        Ok(())
    }

    /// The stored request of instance `i`: the request body, or the program's stdin; in
    /// interactive mode the first request of an episode.
    pub(crate) fn request(
        &self,
        backend: &Backend,
        i: usize,
        instance: &Instance,
        interactive: Option<InteractiveSpec>,
    ) -> String {
        let Task::Reorder(problems) = self else {
            return backend.request(instance, interactive);
        };
        let problem = &problems[i];
        match (backend, interactive) {
            (Backend::Chat { params, .. }, None) => params.body(&reorder_prompt(problem)),
            (Backend::Command(_), None) => PublicProblem::of(problem).to_json(),
            (Backend::Chat { params, .. }, Some(spec)) => {
                episode::first_request(params, &spec, problem)
            }
            (Backend::Command(_), Some(spec)) => episode::first_line(problem, &spec),
        }
    }

    /// Whether the answer `text` to instance `i` passes: reproduces every example (a
    /// cascade for synthesis, an order for reordering).
    pub(crate) fn passes(
        &self,
        i: usize,
        instance: &Instance,
        text: &str,
        block: BlockChoice,
    ) -> bool {
        match self {
            Task::Synthesis => crate::scoring::passes(instance, text, block),
            Task::Reorder(problems) => {
                score_order_response(&problems[i], text, block)
                    .score
                    .accurate
            }
        }
    }

    /// The answer parameters of the manifest, with the task's own: a reordering run is
    /// asked with the built-in reordering prompt.
    pub(crate) fn answer_params(&self, mut params: Value) -> Value {
        if let (Task::Reorder(_), Value::Object(m)) = (self, &mut params) {
            m.remove("prompt_template");
            m.insert("task".to_owned(), "reorder".into());
        }
        params
    }
}

/// The figures of a reordering run: each problem's graded answers, their summary (as
/// `pbebench score` prints it for a reordering set) and, in interactive mode, the
/// episodes'.
#[derive(Debug, Clone, PartialEq)]
pub struct ReorderResults {
    /// Accuracy, exact and valid rate, overall, by length and by category, with intervals.
    pub summary: OrderSummary,
    /// Each problem's answers graded, in dataset order (the run's `per-instance.jsonl`).
    pub instances: Vec<OrderInstanceScore>,
    /// The episodes' figures, in interactive mode.
    pub episodes: Option<OrderEpisodes>,
}

/// Grades the answered samples (index < `k`) of `problems` held in `store`, and gathers
/// the run's figures (statuses, tokens, cost, latency) as a synthesis run does. The
/// returned [`RunResults`] holds those figures; its synthesis scores are empty.
pub(crate) fn score_run(
    problems: &[ReorderInstance],
    store: &RunStore,
    k: u32,
    block: BlockChoice,
    prices: Prices,
    interactive: bool,
) -> Result<(RunResults, ReorderResults), EvalError> {
    let known: HashMap<&str, usize> = problems
        .iter()
        .enumerate()
        .map(|(i, p)| (p.instance.id.as_str(), i))
        .collect();
    let mut tally = Tally::default();
    let mut answers: HashMap<String, Vec<(u32, String)>> = HashMap::new();
    store.scan(|s| {
        if s.sample >= k || !known.contains_key(s.instance_id.as_str()) {
            return;
        }
        tally.add(&s, prices);
        if s.status.is_answer() {
            let text = s.content.unwrap_or_default();
            answers
                .entry(s.instance_id)
                .or_default()
                .push((s.sample, text));
        }
    })?;
    let by_id: HashMap<String, Vec<String>> = answers
        .into_iter()
        .map(|(id, mut texts)| {
            texts.sort_by_key(|(sample, _)| *sample);
            (id, texts.into_iter().map(|(_, t)| t).collect())
        })
        .collect();
    let instances = score_order_responses(problems, &by_id, block);
    let episodes = interactive
        .then(|| store.episodes())
        .transpose()?
        .map(|rows| OrderEpisodes::of(&rows, &known, problems.len() * k as usize, k));
    let options = pbebench::ScoreOptions {
        block,
        ..pbebench::ScoreOptions::default()
    };
    let empty = pbebench::Results::of(&[], &pbebench::Responses::<String>::default(), &options);
    let results = tally.into_results(problems.len() * k as usize, empty, Vec::new());
    Ok((
        results,
        ReorderResults {
            summary: summarize_orders(&instances),
            instances,
            episodes,
        },
    ))
}
