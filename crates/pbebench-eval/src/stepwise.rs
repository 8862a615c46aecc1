//! Step-wise search (`--strategy stepwise`, `docs/strategies.md`): the cascade is built in
//! chunks. At each step the solver is asked for at most `step_rules` rules that bring the
//! current intermediate forms (the inputs after the rules chosen so far) closer to the
//! outputs; each of the K samples' chunk is applied to the current forms, the best is kept
//! ([`Select`]), and the next step starts from the forms it produced. After `steps` steps,
//! or as soon as every visible example is exactly right, the instance's answer is the
//! concatenation of the chosen chunks, scored like any other answer.
//!
//! Every step sample is committed to the run store as it completes, as a turn of the
//! instance's sample 0 (turn `step × K + candidate`), so a run killed mid-step resumes by
//! replaying the stored samples (sending nothing) and asks only for the missing ones: a
//! step's requests depend on nothing but the chunks chosen before it.

use crate::backend::Backend;
use crate::config::{ConfigError, Field, Problem};
use crate::control::Control;
use crate::sample::{Prices, Sample, Status, Usage};
use crate::store::TurnRow;
use pbebench::metrics::{char_distance, edit_sim_ratio, examples_reproduced};
use pbebench::pylit::{repr, repr_list};
use pbebench::{parse_response, BlockChoice, Cascade, Instance, RuleLimits};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// The parameters of a step-wise search; all of them change answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepwiseSpec {
    /// The most rules one step may add (`--step-rules`).
    pub step_rules: usize,
    /// The most steps (`--steps`).
    pub steps: u32,
    /// How the best of a step's samples is chosen (`--select`).
    pub select: Select,
}

/// How the best of a step's K samples is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Select {
    /// Soft pass: the share of visible examples exactly right after the chunk.
    #[default]
    SoftPass,
    /// The mean over visible examples of Edit_Sim against the original input
    /// (`1 − dist(form, output) / dist(input, output)`).
    EditSim,
}

impl FromStr for Select {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "soft-pass" => Ok(Select::SoftPass),
            "edit-sim" => Ok(Select::EditSim),
            _ => Err(format!(
                "'{s}' is not a selection criterion: use 'soft-pass' or 'edit-sim'"
            )),
        }
    }
}

impl fmt::Display for Select {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Select::SoftPass => "soft-pass",
            Select::EditSim => "edit-sim",
        })
    }
}

impl StepwiseSpec {
    /// The most rules a search can choose: `step_rules × steps`.
    pub fn max_cascade(&self) -> usize {
        self.step_rules.saturating_mul(self.steps as usize)
    }

    /// Refuses a search whose whole cascade could pass the rule cap of an instance (the
    /// one with the smallest `max_rules`), before anything is sent.
    pub(crate) fn check_cap(&self, instances: &[Instance]) -> Result<(), ConfigError> {
        let Some(tightest) = instances.iter().min_by_key(|i| i.max_rules) else {
            return Ok(());
        };
        if self.max_cascade() > tightest.max_rules {
            return Err(ConfigError {
                field: Field::StepRules,
                problem: Problem::OverRuleCap {
                    step_rules: self.step_rules,
                    steps: self.steps,
                    cap: tightest.max_rules,
                    instance: tightest.id.clone(),
                },
            });
        }
        Ok(())
    }
}

/// Where a search stands: the rules chosen so far and the forms they give.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct State {
    /// The step about to be taken (0-based).
    pub(crate) step: u32,
    /// The concatenation of the chosen chunks.
    pub(crate) chosen: Cascade,
    /// The visible inputs after `chosen`.
    pub(crate) forms: Vec<String>,
}

impl State {
    fn start(instance: &Instance) -> Self {
        State {
            step: 0,
            chosen: Cascade::identity(),
            forms: instance.inputs.clone(),
        }
    }

    /// True when the search is over: every visible example is right, or every step taken.
    fn done(&self, instance: &Instance, spec: &StepwiseSpec) -> bool {
        self.step >= spec.steps || self.forms == instance.outputs
    }
}

/// One sample's chunk, as applied to the current forms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// The rules read (at most `step_rules`, each valid for the instance); empty when the
    /// answer does not parse.
    pub(crate) chunk: Cascade,
    /// The forms after the chunk.
    pub(crate) forms: Vec<String>,
    /// Soft pass of `forms`.
    pub(crate) soft_pass: f64,
    /// Mean Edit_Sim of `forms`.
    pub(crate) edit_sim: f64,
}

impl Candidate {
    /// Reads a sample's answer as a chunk (through the shared parser, limited to
    /// `step_rules` rules valid for the instance) and applies it to `forms`.
    pub(crate) fn read(
        instance: &Instance,
        spec: &StepwiseSpec,
        forms: &[String],
        text: &str,
    ) -> Self {
        let limits = RuleLimits::new(spec.step_rules, instance.max_rule_len, &instance.alphabet);
        let parsed = parse_response(text, &limits, BlockChoice::Last);
        let chunk = if parsed.is_parsed() {
            parsed.cascade()
        } else {
            Cascade::identity()
        };
        // A model's chunk is untrusted: its strings may not outgrow the bound that scoring
        // puts on the whole cascade (16 times the instance's longest string, at least 256).
        // A chunk that would is read as no chunk, as one that does not parse.
        let bound = pbebench::equiv::length_bound(instance);
        let applied: Option<Vec<String>> = (forms.iter())
            .map(|f| chunk.apply_bounded(f, bound).ok())
            .collect();
        let (chunk, forms) = match applied {
            Some(applied) => (chunk, applied),
            None => (Cascade::identity(), forms.to_vec()),
        };
        let n = instance.outputs.len().max(1) as f64;
        let soft_pass = examples_reproduced(&instance.outputs, &forms) as f64 / n;
        let edit_sim = (instance.inputs.iter())
            .zip(&instance.outputs)
            .zip(&forms)
            .map(|((i, o), f)| edit_sim_ratio(char_distance(f, o), char_distance(i, o)))
            .sum::<f64>()
            / n;
        Candidate {
            chunk,
            forms,
            soft_pass,
            edit_sim,
        }
    }

    /// The criterion's score, then the other one's.
    fn scores(&self, select: Select) -> (f64, f64) {
        match select {
            Select::SoftPass => (self.soft_pass, self.edit_sim),
            Select::EditSim => (self.edit_sim, self.soft_pass),
        }
    }
}

/// The index of the best candidate: the highest score by `select`; on a tie the higher
/// score by the other criterion, then the shorter chunk, then the lower sample index.
pub(crate) fn best(candidates: &[Candidate], select: Select) -> usize {
    let better = |a: &Candidate, b: &Candidate| -> Ordering {
        let ((a1, a2), (b1, b2)) = (a.scores(select), b.scores(select));
        a1.total_cmp(&b1)
            .then(a2.total_cmp(&b2))
            .then(b.chunk.len().cmp(&a.chunk.len()))
    };
    let mut best = 0;
    for (i, c) in candidates.iter().enumerate().skip(1) {
        if better(c, &candidates[best]) == Ordering::Greater {
            best = i;
        }
    }
    best
}

/// A cascade as a Python list of rule strings, as prompts write it.
fn rule_list(cascade: &Cascade) -> String {
    let calls: Vec<String> = cascade
        .rules()
        .iter()
        .map(|r| format!("replace({}, {})", repr(r.pattern()), repr(r.replacement())))
        .collect();
    repr_list(&calls)
}

/// The prompt of one step: the task, the rules chosen so far, and the original inputs,
/// current forms and outputs, in the style of the default template.
pub(crate) fn prompt(instance: &Instance, spec: &StepwiseSpec, state: &State) -> String {
    let chosen = if state.chosen.is_empty() {
        "none yet: the current forms are the inputs".to_owned()
    } else {
        rule_list(&state.chosen)
    };
    format!(
        "Each output string below was produced from the input string above it by a hidden program: a sequence of rewrite rules applied one after another. Every rule is a call of Python's `replace`: replace(A, B) turns every occurrence of A into B, scanning from left to right without overlaps, and text it has just inserted is not scanned again. Since each rule works on the result of the rules before it, their order matters.\n\n\
         We are building such a sequence a few rules at a time. The rules chosen so far turn each input into its current form, listed below. This is step {step} of at most {steps}: give the next rules, at most {step_rules} of them, that applied to the current forms (after the rules chosen so far) bring them closer to the outputs, all of them exactly if you can. Later steps may add more rules after yours.\n\n\
         Rules chosen so far:\n{chosen}\n\n\
         Your answer must respect these restrictions:\n\
         1. Every rule is written as the string \"replace(A, B)\", where A and B are Python string literals.\n\
         2. A has at least 1 and at most {len} characters. B has at most {len} characters and may be empty (\"\").\n\
         3. Give no more than {step_rules} rules in this step.\n\
         4. Use nothing but Python's `replace`: no other functions, modules, loops or conditions.\n\
         5. A and B may only contain these characters: {alphabet}\n\
         6. Give only the new rules, as a Python list of rule strings in the order they apply, inside a single ```python Markdown code block, for example:\n\
         ```python\n[\"replace('ab', 'c')\", \"replace('c', '')\"]\n```\n\n\
         Inputs:\n{inputs}\n\nCurrent forms:\n{forms}\n\nOutputs:\n{outputs}\n",
        step = state.step + 1,
        steps = spec.steps,
        step_rules = spec.step_rules,
        len = instance.max_rule_len,
        alphabet = instance.alphabet,
        inputs = repr_list(&instance.inputs),
        forms = repr_list(&state.forms),
        outputs = repr_list(&instance.outputs),
    )
}

/// What a solver program reads for one step: the instance's public fields with the
/// current forms as `inputs` and `step_rules` as `max_rules` (so a program that solves
/// instances solves a step as one), and the search's own fields beside them.
fn program_stdin(instance: &Instance, spec: &StepwiseSpec, state: &State) -> String {
    json!({
        "id": instance.id,
        "inputs": state.forms,
        "outputs": instance.outputs,
        "max_rules": spec.step_rules,
        "max_rule_len": instance.max_rule_len,
        "alphabet": instance.alphabet,
        "original_inputs": instance.inputs,
        "chosen": state.chosen,
        "step": state.step,
        "steps": spec.steps,
    })
    .to_string()
}

/// The request of one step: the chat request body, or the program's stdin.
pub(crate) fn request(
    backend: &Backend,
    instance: &Instance,
    spec: &StepwiseSpec,
    state: &State,
) -> String {
    match backend {
        Backend::Chat { params, .. } => params.body(&prompt(instance, spec, state)),
        Backend::Command(_) => program_stdin(instance, spec, state),
    }
}

/// The stored request of an instance: its first step's.
pub(crate) fn first_request(backend: &Backend, instance: &Instance, spec: &StepwiseSpec) -> String {
    request(backend, instance, spec, &State::start(instance))
}

/// How one instance's search ended.
#[allow(clippy::large_enum_variant)] // one per instance, moved once
pub(crate) enum Outcome {
    /// The instance's sample: the final cascade, or a step sample's failure to answer
    /// (the search stays unfinished, and a continued run resumes it).
    Sample(Sample),
    /// The run stopped first.
    Stopped,
}

/// Tokens, latency and attempts over a search's step samples.
#[derive(Default)]
struct Totals {
    usage: Usage,
    latency_ms: f64,
    attempts: u32,
    endpoint: Option<String>,
}

impl Totals {
    fn add(&mut self, usage: Usage, latency_ms: f64, attempts: u32, endpoint: Option<String>) {
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        self.usage = Usage {
            prompt_tokens: add(self.usage.prompt_tokens, usage.prompt_tokens),
            completion_tokens: add(self.usage.completion_tokens, usage.completion_tokens),
            reasoning_tokens: add(self.usage.reasoning_tokens, usage.reasoning_tokens),
        };
        self.latency_ms += latency_ms;
        self.attempts += attempts;
        self.endpoint = endpoint.or(self.endpoint.take());
    }
}

/// One instance's search: the run's parameters and what it needs to ask.
pub(crate) struct Search<'a> {
    pub(crate) backend: &'a Backend,
    pub(crate) spec: StepwiseSpec,
    /// Samples per step (K).
    pub(crate) samples: u32,
    pub(crate) ctl: &'a Control,
    pub(crate) prices: Prices,
}

impl Search<'_> {
    /// Runs (or resumes after `stored`) the search of `instance`, handing every completed
    /// step sample to `on_turn`; `Err` when the solver cannot run at all.
    pub(crate) fn run(
        &self,
        instance: &Instance,
        stored: &[TurnRow],
        on_turn: &mut dyn FnMut(TurnRow),
    ) -> Result<Outcome, String> {
        let k = self.samples.max(1);
        let mut state = State::start(instance);
        let mut totals = Totals::default();
        for t in stored {
            totals.add(t.usage, t.latency_ms, t.attempts, t.endpoint.clone());
        }
        while !state.done(instance, &self.spec) {
            let request = request(self.backend, instance, &self.spec, &state);
            let mut candidates = Vec::with_capacity(k as usize);
            for j in 0..k {
                let turn = state.step * k + j;
                let text = match stored.iter().find(|t| t.turn == turn) {
                    Some(t) => t.assistant["content"].as_str().unwrap_or("").to_owned(),
                    None => {
                        let Some(reservation) = self
                            .ctl
                            .reserve(self.backend.worst_cost(&request, self.prices))
                        else {
                            return Ok(Outcome::Stopped);
                        };
                        let result = self.backend.sample(&request, &instance.id, 0, self.ctl);
                        let cost = match &result {
                            Ok(Some(s)) => s.usage.cost(self.prices),
                            _ => 0.0,
                        };
                        self.ctl.settle(reservation, cost);
                        let sample = match result? {
                            Some(sample) => sample,
                            None => return Ok(Outcome::Stopped),
                        };
                        if !sample.status.is_answer() {
                            return Ok(Outcome::Sample(sample));
                        }
                        let text = sample.response_text().to_owned();
                        let candidate = Candidate::read(instance, &self.spec, &state.forms, &text);
                        totals.add(
                            sample.usage,
                            sample.latency_ms,
                            sample.attempts,
                            sample.endpoint.clone(),
                        );
                        on_turn(turn_row(&sample, turn, state.step, j, &candidate));
                        text
                    }
                };
                candidates.push(Candidate::read(instance, &self.spec, &state.forms, &text));
            }
            let chosen = candidates.swap_remove(best(&candidates, self.spec.select));
            state.chosen = state
                .chosen
                .rules()
                .iter()
                .chain(chosen.chunk.rules())
                .cloned()
                .collect();
            state.forms = chosen.forms;
            state.step += 1;
        }
        Ok(Outcome::Sample(final_sample(instance, &state, &totals)))
    }
}

/// The stored turn of one step sample: its text, and the chunk as it was read.
fn turn_row(sample: &Sample, turn: u32, step: u32, candidate: u32, read: &Candidate) -> TurnRow {
    TurnRow {
        instance_id: sample.instance_id.clone(),
        sample: 0,
        turn,
        assistant: json!({"role": "assistant", "content": sample.response_text()}),
        results: vec![json!({
            "step": step,
            "candidate": candidate,
            "chunk": read.chunk,
            "soft_pass": read.soft_pass,
            "edit_sim": read.edit_sim,
        })],
        reasoning_content: sample.reasoning_content.clone(),
        finish_reason: sample.finish_reason.clone(),
        usage: sample.usage,
        latency_ms: sample.latency_ms,
        attempts: sample.attempts,
        endpoint: sample.endpoint.clone(),
    }
}

/// The instance's stored sample: the concatenation of the chosen chunks as an answer,
/// with the tokens of every step sample.
fn final_sample(instance: &Instance, state: &State, totals: &Totals) -> Sample {
    let solved = state.forms == instance.outputs;
    Sample {
        instance_id: instance.id.clone(),
        sample: 0,
        status: Status::Ok,
        content: Some(pbebench::render_answer(&state.chosen)),
        reasoning_content: None,
        finish_reason: Some(if solved { "solved" } else { "steps" }.to_owned()),
        usage: totals.usage,
        latency_ms: totals.latency_ms,
        elapsed_ms: totals.latency_ms,
        attempts: totals.attempts,
        endpoint: totals.endpoint.clone(),
        http_status: None,
        error: None,
    }
}

/// The strategy's parameters as the manifest and the results file record them.
pub(crate) fn describe(spec: &StepwiseSpec, samples: u32) -> Value {
    json!({
        "step_rules": spec.step_rules,
        "steps": spec.steps,
        "samples": samples,
        "select": spec.select.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::{RelationMode, Rule};

    fn instance() -> Instance {
        let gold = Cascade::new(vec![
            Rule::new("a", "b").unwrap(),
            Rule::new("bb", "c").unwrap(),
        ]);
        let inputs: Vec<String> = vec!["ab".into(), "ca".into(), "aac".into(), "c".into()];
        Instance {
            id: "s".into(),
            outputs: gold.apply_all(&inputs),
            inputs,
            cascade_len: 2,
            cascade: Some(gold),
            category: None,
            relations_mode: RelationMode::default(),
            max_rules: 4,
            max_rule_len: 2,
            alphabet: "abc".into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    fn spec(select: Select) -> StepwiseSpec {
        StepwiseSpec {
            step_rules: 2,
            steps: 2,
            select,
        }
    }

    fn answer(rules: &[(&str, &str)]) -> String {
        pbebench::render_answer(&Cascade::from_pairs(rules).unwrap())
    }

    #[test]
    fn a_chunk_is_read_applied_and_scored() {
        let inst = instance();
        let c = Candidate::read(
            &inst,
            &spec(Select::SoftPass),
            &inst.inputs,
            &answer(&[("a", "b")]),
        );
        assert_eq!(c.forms, vec!["bb", "cb", "bbc", "c"]);
        // outputs: "c", "cb", "cc", "c": two right of four.
        assert_eq!(c.soft_pass, 0.5);
        // Per example Edit_Sim against the input: 1 − 2/2, 1, 1 − 2/2, 1 (degenerate, right).
        assert_eq!(c.edit_sim, 0.5);
    }

    #[test]
    fn a_malformed_or_overlong_chunk_is_read_as_far_as_the_limits_go() {
        let inst = instance();
        let s = spec(Select::SoftPass);
        let bad = Candidate::read(&inst, &s, &inst.inputs, "no code here, sorry");
        assert!(bad.chunk.is_empty());
        assert_eq!(bad.forms, inst.inputs);
        let long = Candidate::read(
            &inst,
            &s,
            &inst.inputs,
            &answer(&[("a", "b"), ("bb", "c"), ("c", "")]),
        );
        assert_eq!(long.chunk.len(), 2, "rules past --step-rules are left out");
        assert_eq!(long.soft_pass, 1.0);
        let outside = Candidate::read(&inst, &s, &inst.inputs, &answer(&[("z", "b")]));
        assert!(outside.chunk.is_empty(), "a letter outside the alphabet");
    }

    #[test]
    fn a_chunk_whose_strings_explode_is_read_as_no_chunk() {
        let inst = Instance {
            max_rules: 20,
            ..instance()
        };
        let s = StepwiseSpec {
            step_rules: 10,
            steps: 2,
            select: Select::SoftPass,
        };
        // Ten doublings of every "a": "aac" would reach 2,049 characters, past the bound
        // of 256; nothing that long is built.
        let doubling = answer(&[("a", "aa"); 10]);
        let c = Candidate::read(&inst, &s, &inst.inputs, &doubling);
        assert!(c.chunk.is_empty(), "{:?}", c.chunk);
        assert_eq!(c.forms, inst.inputs);
        // Within the bound, the same rules are a chunk like any other.
        let three = Candidate::read(&inst, &s, &inst.inputs, &answer(&[("a", "aa"); 3]));
        assert_eq!(three.chunk.len(), 3);
        assert_eq!(three.forms[2], "aaaaaaaaaaaaaaaac");
    }

    #[test]
    fn the_best_sample_wins_and_ties_go_to_the_other_criterion_then_the_shorter_then_the_first() {
        let inst = instance();
        let s = spec(Select::SoftPass);
        let read =
            |rules: &[(&str, &str)]| Candidate::read(&inst, &s, &inst.inputs, &answer(rules));
        let none = read(&[]); // soft pass 1/4, Edit_Sim (0 + 0 + 0 + 1) / 4
        let half = read(&[("a", "b")]); // 2/4
        assert_eq!(best(&[none.clone(), half.clone()], Select::SoftPass), 1);
        // "ab", "ca", "bc", "c": soft pass 1/4 as doing nothing, Edit_Sim (0 + 0 + ½ + 1) / 4.
        let closer = read(&[("aa", "b")]);
        assert_eq!((none.soft_pass, closer.soft_pass), (0.25, 0.25));
        assert_eq!((none.edit_sim, closer.edit_sim), (0.25, 0.375));
        assert_eq!(best(&[none.clone(), closer.clone()], Select::SoftPass), 1);
        assert_eq!(best(&[closer.clone(), half.clone()], Select::EditSim), 1);
        let padded = read(&[("a", "b"), ("c", "c")]);
        assert_eq!(
            (padded.soft_pass, padded.edit_sim),
            (half.soft_pass, half.edit_sim)
        );
        assert_eq!(
            best(&[padded.clone(), half.clone()], Select::SoftPass),
            1,
            "shorter"
        );
        assert_eq!(
            best(&[half.clone(), half.clone()], Select::EditSim),
            0,
            "first"
        );
    }

    #[test]
    fn the_cap_is_checked_on_the_tightest_instance() {
        let mut tight = instance();
        tight.id = "tight".into();
        tight.max_rules = 3;
        let s = spec(Select::EditSim);
        assert!(s.check_cap(&[instance()]).is_ok());
        let e = s.check_cap(&[instance(), tight]).unwrap_err();
        assert_eq!(e.field, Field::StepRules);
        assert_eq!(
            e.problem,
            Problem::OverRuleCap {
                step_rules: 2,
                steps: 2,
                cap: 3,
                instance: "tight".into()
            }
        );
    }

    #[test]
    fn the_prompt_shows_the_forms_and_the_rules_so_far() {
        let inst = instance();
        let s = spec(Select::SoftPass);
        let mut state = State::start(&inst);
        let first = prompt(&inst, &s, &state);
        assert!(first.contains("step 1 of at most 2"), "{first}");
        assert!(first.contains("none yet"));
        state.step = 1;
        state.chosen = Cascade::from_pairs(&[("a", "b")]).unwrap();
        state.forms = state.chosen.apply_all(&inst.inputs);
        let second = prompt(&inst, &s, &state);
        assert!(
            second.contains("Rules chosen so far:\n[\"replace('a', 'b')\"]"),
            "{second}"
        );
        assert!(
            second.contains("Current forms:\n['bb', 'cb', 'bbc', 'c']"),
            "{second}"
        );
    }

    #[test]
    fn selection_names_round_trip() {
        for s in [Select::SoftPass, Select::EditSim] {
            assert_eq!(s.to_string().parse::<Select>().unwrap(), s);
        }
        assert!("best".parse::<Select>().unwrap_err().contains("soft-pass"));
    }
}
