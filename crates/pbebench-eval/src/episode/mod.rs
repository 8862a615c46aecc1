//! Interactive mode (`docs/interactive.md`, issue 21): each (instance, sample) is an **episode** in
//! which the solver probes the hidden cascade through a [`pbebench::probe::Oracle`],
//! tests candidates, and submits one.
//!
//! An episode ends on `submit`, on a message without any tool call (a model that answers
//! in plain text), at the turn limit, at the token limit, or when the solver asks for
//! more probes than its budget has left. What counts then is the last submitted cascade,
//! else the last tested one, else the last ```` ```python ```` block the solver wrote,
//! else nothing (the identity).
//!
//! The drivers: `chat` (a model, over chat-completions tool calls or fenced blocks) and
//! `program` (a solver program over JSON lines). Both turn what the solver says into
//! actions executed here, so every kind of solver meets the same tools.

pub(crate) mod actions;
pub(crate) mod chat;
pub mod grade;
pub(crate) mod program;
pub(crate) mod prompt;

use crate::sample::{Sample, Status, Usage};
use crate::store::EpisodeRow;
use actions::Action;
use pbebench::probe::{Oracle, OracleError, Refusal};
use pbebench::{parse_response, BlockChoice, RuleLimits};
use pbebench::{Cascade, Instance};
use serde_json::{json, Value};
use std::fmt;
use std::str::FromStr;

/// The parameters of interactive mode; all of them change answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InteractiveSpec {
    /// Probe inputs per episode (`--probe-budget`).
    pub probe_budget: usize,
    /// Turns per episode (`--max-turns`): model replies, or program messages.
    pub max_turns: u32,
    /// Completion tokens per episode, reasoning included (`--max-episode-tokens`).
    pub max_episode_tokens: Option<u64>,
    /// How a model calls the tools (`--tool-protocol`).
    pub tool_protocol: ToolProtocol,
    /// The longest probe input (`--max-probe-len`, [`Oracle::with_probe_len`]), by
    /// default [`pbebench::probe::DEFAULT_PROBE_LEN`].
    pub probe_len: usize,
    /// Feedback rounds (`--strategy feedback`): a model's answer given without a tool
    /// call is tested, and while it gets examples wrong the model is told which and asked
    /// again, within the turn limit (instead of the answer ending the episode).
    pub feedback: bool,
}

impl InteractiveSpec {
    /// The oracle of `instance` under these parameters.
    pub(crate) fn oracle(&self, instance: &Instance) -> Result<Oracle, OracleError> {
        Oracle::with_probe_len(instance, self.probe_budget, self.probe_len)
    }
}

/// How a model calls the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolProtocol {
    /// Chat-completions `tools` / `tool_calls`.
    #[default]
    Tools,
    /// Fenced blocks tagged with the tool's name, for servers without tool calling.
    Text,
}

impl FromStr for ToolProtocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "tools" => Ok(ToolProtocol::Tools),
            "text" => Ok(ToolProtocol::Text),
            _ => Err(format!(
                "'{s}' is not a tool protocol: use 'tools' or 'text'"
            )),
        }
    }
}

impl fmt::Display for ToolProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToolProtocol::Tools => "tools",
            ToolProtocol::Text => "text",
        })
    }
}

/// Why an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndReason {
    /// The solver submitted.
    Submit,
    /// A model's message had no tool call: its text is its answer.
    Answer,
    /// `--max-turns` turns were taken.
    Turns,
    /// `--max-episode-tokens` were generated.
    Tokens,
    /// The solver asked for more probes than were left.
    Budget,
    /// A solver program ended (or closed its output) without submitting.
    Exit,
}

impl EndReason {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EndReason::Submit => "submit",
            EndReason::Answer => "answer",
            EndReason::Turns => "turns",
            EndReason::Tokens => "tokens",
            EndReason::Budget => "budget",
            EndReason::Exit => "exit",
        }
    }
}

/// What a solver plays against in an episode: the synthesis tools ([`Episode`]) or the
/// reordering tools (`crate::reorder::episode`). The drivers (`chat`, `program`) run
/// either, so every task meets the same turns, limits, storage and resume.
pub(crate) trait Game {
    /// The turns, tokens and end of the episode.
    fn clock(&self) -> &Clock;
    /// [`Game::clock`], to change.
    fn clock_mut(&mut self) -> &mut Clock;
    /// Notes the solver's text (where a fallback answer may be).
    fn note_text(&mut self, text: &str);
    /// A feedback round on a text that calls no tool (`--strategy feedback`): what the
    /// solver is told its answer gets wrong, or `None` when the episode ends on it (no
    /// feedback rounds in this game, or an answer that is right or absent).
    fn feedback_on(&mut self, _text: &str) -> Option<String> {
        None
    }
    /// Executes a chat-completions tool call; returns what the solver is told.
    fn tool_call(&mut self, name: &str, arguments: &str) -> Value;
    /// The fenced blocks of `text` tagged with a tool's name, as (tag, body), in order.
    fn tool_blocks<'t>(&self, text: &'t str) -> Vec<(&'t str, &'t str)>;
    /// Executes a fenced block of the text protocol.
    fn block(&mut self, tag: &str, body: &str) -> Value;
    /// Executes a line of a solver program.
    fn program_line(&mut self, line: &str) -> Value;
    /// The answer text stored as the episode's sample.
    fn answer_text(&self) -> String;
    /// The record of the ended episode.
    fn record(&self, instance_id: &str, sample: u32) -> EpisodeRow;
}

/// The turns and tokens of an episode, and why it ended, under its limits.
pub(crate) struct Clock {
    spec: InteractiveSpec,
    turns: u32,
    usage: Usage,
    ended: Option<EndReason>,
}

impl Clock {
    /// A new episode's clock.
    pub(crate) fn new(spec: InteractiveSpec) -> Self {
        Clock {
            spec,
            turns: 0,
            usage: Usage::default(),
            ended: None,
        }
    }

    /// Turns taken so far.
    pub(crate) fn turns(&self) -> u32 {
        self.turns
    }

    /// Why the episode ended, once it has.
    pub(crate) fn ended(&self) -> Option<EndReason> {
        self.ended
    }

    /// Ends the episode (the first reason stays).
    pub(crate) fn end(&mut self, reason: EndReason) {
        self.ended.get_or_insert(reason);
    }

    /// Tokens over the turns so far.
    pub(crate) fn usage(&self) -> Usage {
        self.usage
    }

    /// What the solver is told when it acts after the end.
    pub(crate) fn after_end(&self) -> Option<Value> {
        self.ended.map(|reason| {
            json!({"error": format!("ignored: the episode has ended ({})", reason.as_str())})
        })
    }

    /// Closes a turn that used `usage`; ends the episode at the turn or token limit.
    pub(crate) fn close_turn(&mut self, usage: Usage) {
        self.turns += 1;
        let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        self.usage = Usage {
            prompt_tokens: add(self.usage.prompt_tokens, usage.prompt_tokens),
            completion_tokens: add(self.usage.completion_tokens, usage.completion_tokens),
            reasoning_tokens: add(self.usage.reasoning_tokens, usage.reasoning_tokens),
        };
        if self.turns >= self.spec.max_turns {
            self.end(EndReason::Turns);
        }
        if let Some(max) = self.spec.max_episode_tokens {
            if self.usage.completion_tokens.unwrap_or(0) >= max {
                self.end(EndReason::Tokens);
            }
        }
    }
}

/// The state of one episode: the oracle, the candidates seen, the turns and tokens.
pub(crate) struct Episode {
    oracle: Oracle,
    clock: Clock,
    submitted: Option<Cascade>,
    tested: Option<Cascade>,
    code_block: Option<Cascade>,
}

impl Game for Episode {
    fn clock(&self) -> &Clock {
        &self.clock
    }
    fn clock_mut(&mut self) -> &mut Clock {
        &mut self.clock
    }
    fn note_text(&mut self, text: &str) {
        Episode::note_text(self, text);
    }
    fn feedback_on(&mut self, text: &str) -> Option<String> {
        let answer = Episode::note_text(self, text);
        self.feedback_round(answer)
    }
    fn tool_call(&mut self, name: &str, arguments: &str) -> Value {
        self.act(actions::from_tool_call(name, arguments))
    }
    fn tool_blocks<'t>(&self, text: &'t str) -> Vec<(&'t str, &'t str)> {
        actions::tool_blocks(text)
    }
    fn block(&mut self, tag: &str, body: &str) -> Value {
        self.act(actions::from_block(tag, body))
    }
    fn program_line(&mut self, line: &str) -> Value {
        self.act(actions::from_program_line(line))
    }
    fn answer_text(&self) -> String {
        Episode::answer_text(self)
    }
    fn record(&self, instance_id: &str, sample: u32) -> EpisodeRow {
        Episode::record(self, instance_id, sample)
    }
}

impl Episode {
    /// A new episode on `instance`.
    pub(crate) fn new(instance: &Instance, spec: InteractiveSpec) -> Result<Self, OracleError> {
        Ok(Episode {
            oracle: spec.oracle(instance)?,
            clock: Clock::new(spec),
            submitted: None,
            tested: None,
            code_block: None,
        })
    }

    /// Why the episode ended, once it has.
    pub(crate) fn ended(&self) -> Option<EndReason> {
        self.clock.ended()
    }

    /// Ends the episode (the first reason stays).
    pub(crate) fn end(&mut self, reason: EndReason) {
        self.clock.end(reason);
    }

    /// Executes one action; returns what the solver is told, as JSON.
    pub(crate) fn act(&mut self, action: Action) -> Value {
        if let Some(ignored) = self.clock.after_end() {
            return ignored;
        }
        match action {
            Action::Probe(inputs) => match self.oracle.run_hidden(&inputs) {
                Ok(outputs) => {
                    json!({"outputs": outputs, "budget_left": self.oracle.budget_left()})
                }
                Err(refusal) => {
                    if matches!(refusal, Refusal::OverBudget { .. }) {
                        self.end(EndReason::Budget);
                    }
                    json!({"error": refusal.to_string(), "budget_left": self.oracle.budget_left()})
                }
            },
            Action::Test(cascade) => {
                let feedback = self.oracle.test_cascade(&cascade);
                self.tested = Some(cascade);
                serde_json::to_value(feedback).expect("feedback serialises")
            }
            Action::Submit(cascade) => {
                let rules = cascade.len();
                self.submitted = Some(cascade);
                self.end(EndReason::Submit);
                json!({"submitted": true, "rules": rules})
            }
            Action::Bad(message) => json!({"error": message}),
        }
    }

    /// Notes the solver's text: its last ```` ```python ```` block is the fallback answer.
    /// Returns the block's cascade, when the text holds one.
    pub(crate) fn note_text(&mut self, text: &str) -> Option<Cascade> {
        let parsed = parse_response(text, &RuleLimits::unlimited(), BlockChoice::Last);
        if parsed.is_parsed() {
            self.code_block = Some(parsed.cascade());
        }
        parsed.is_parsed().then(|| parsed.cascade())
    }

    /// A feedback round (`--strategy feedback`) on an answer given without a tool call:
    /// the answer's cascade is tested; when it reproduces every example the episode ends,
    /// otherwise the message that tells the solver what it got wrong and asks again.
    /// `None` (the episode ends with the answer) outside feedback rounds, or when the
    /// answer holds no cascade.
    pub(crate) fn feedback_round(&mut self, answer: Option<Cascade>) -> Option<String> {
        let cascade = answer.filter(|_| self.clock.spec.feedback)?;
        let feedback = self.act(Action::Test(cascade));
        if feedback["wrong"].as_array().is_none_or(Vec::is_empty) {
            return None;
        }
        Some(format!(
            "Your cascade does not reproduce every example; what it gets wrong:\n{feedback}\n\
             Try again: write the corrected cascade in a ```python block."
        ))
    }

    /// The cascade that counts, and where it came from.
    pub(crate) fn final_cascade(&self) -> (Cascade, &'static str) {
        if let Some(c) = &self.submitted {
            (c.clone(), "submitted")
        } else if let Some(c) = &self.tested {
            (c.clone(), "tested")
        } else if let Some(c) = &self.code_block {
            (c.clone(), "code_block")
        } else {
            (Cascade::identity(), "none")
        }
    }

    /// The record of the ended episode.
    pub(crate) fn record(&self, instance_id: &str, sample: u32) -> EpisodeRow {
        let (cascade, source) = self.final_cascade();
        EpisodeRow {
            instance_id: instance_id.to_owned(),
            sample,
            end_reason: self.ended().unwrap_or(EndReason::Exit).as_str().to_owned(),
            final_source: source.to_owned(),
            final_cascade: serde_json::to_value(&cascade).expect("a cascade serialises"),
            probes: serde_json::to_value(self.oracle.probes()).expect("probes serialise"),
            probes_used: self.oracle.probes_used(),
            tests: self.oracle.tests_run(),
            turns: self.clock.turns(),
            usage: self.clock.usage(),
        }
    }

    /// The answer text stored as the episode's sample, scored by the shared path: the
    /// final cascade in the released format, or nothing when there is none.
    pub(crate) fn answer_text(&self) -> String {
        match self.final_cascade() {
            (_, "none") => String::new(),
            (cascade, _) => pbebench::render_answer(&cascade),
        }
    }
}

/// How an episode's run ended.
#[allow(clippy::large_enum_variant)] // one per episode, moved once
pub(crate) enum Outcome {
    /// The episode ended: its sample (the final answer) and its record.
    Ended(Sample, EpisodeRow),
    /// A turn failed after every retry: the sample records the failure and the episode
    /// stays unfinished (a continued run resumes it).
    Failed(Sample),
    /// The run stopped first.
    Stopped,
}

/// Latency, attempts and endpoint over an episode's turns.
#[derive(Default)]
pub(crate) struct Totals {
    latency_ms: f64,
    attempts: u32,
    endpoint: Option<String>,
}

impl Totals {
    pub(crate) fn add(&mut self, latency_ms: f64, attempts: u32, endpoint: Option<String>) {
        self.latency_ms += latency_ms;
        self.attempts += attempts;
        self.endpoint = endpoint.or(self.endpoint.take());
    }

    /// The stored sample of an ended episode: its final answer, scored by the shared path.
    pub(crate) fn sample(&self, episode: &impl Game, instance_id: &str, sample: u32) -> Sample {
        Sample {
            instance_id: instance_id.to_owned(),
            sample,
            status: Status::Ok,
            content: Some(episode.answer_text()),
            reasoning_content: None,
            finish_reason: episode.clock().ended().map(|r| r.as_str().to_owned()),
            usage: episode.clock().usage(),
            latency_ms: self.latency_ms,
            elapsed_ms: self.latency_ms,
            attempts: self.attempts,
            endpoint: self.endpoint.clone(),
            http_status: None,
            error: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::{RelationMode, Rule};

    pub(crate) fn instance() -> Instance {
        let gold = Cascade::new(vec![Rule::new("a", "b").unwrap()]);
        let inputs: Vec<String> = vec!["ab".into(), "ca".into()];
        Instance {
            id: "e".into(),
            outputs: gold.apply_all(&inputs),
            inputs,
            cascade_len: 1,
            cascade: Some(gold),
            category: None,
            relations_mode: RelationMode::default(),
            max_rules: 3,
            max_rule_len: 2,
            alphabet: "abc".into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    fn spec() -> InteractiveSpec {
        InteractiveSpec {
            probe_budget: 3,
            max_turns: 4,
            max_episode_tokens: Some(100),
            tool_protocol: ToolProtocol::Tools,
            probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
            feedback: false,
        }
    }

    fn cascade(a: &str, b: &str) -> Cascade {
        Cascade::new(vec![Rule::new(a, b).unwrap()])
    }

    #[test]
    fn the_last_submitted_else_tested_else_code_block_counts() {
        let mut e = Episode::new(&instance(), spec()).unwrap();
        assert_eq!(e.final_cascade().1, "none");
        assert_eq!(e.answer_text(), "");
        e.note_text("maybe\n```python\n[\"replace('c', 'a')\"]\n```");
        assert_eq!(e.final_cascade(), (cascade("c", "a"), "code_block"));
        let fb = e.act(Action::Test(cascade("a", "c")));
        assert_eq!(fb["passed"], 0);
        assert_eq!(e.final_cascade(), (cascade("a", "c"), "tested"));
        e.act(Action::Submit(cascade("a", "b")));
        assert_eq!(e.ended(), Some(EndReason::Submit));
        assert_eq!(e.final_cascade(), (cascade("a", "b"), "submitted"));
        let after = e.act(Action::Probe(vec!["a".into()]));
        assert!(after["error"].as_str().unwrap().contains("ended"));
        assert!(e.answer_text().contains("replace('a', 'b')"));
    }

    #[test]
    fn limits_end_the_episode() {
        let mut e = Episode::new(&instance(), spec()).unwrap();
        assert_eq!(
            e.act(Action::Probe(vec!["aa".into(), "c".into()]))["outputs"],
            json!(["bb", "c"])
        );
        let refused = e.act(Action::Probe(vec!["a".into(), "b".into()]));
        assert!(
            refused["error"].as_str().unwrap().contains("only 1"),
            "{refused}"
        );
        assert_eq!(e.ended(), Some(EndReason::Budget));

        let mut e = Episode::new(&instance(), spec()).unwrap();
        let bad = e.act(Action::Probe(vec!["z".into()]));
        assert!(bad["error"].as_str().unwrap().contains("alphabet"));
        assert_eq!(e.ended(), None, "a bad input is only an error");
        for _ in 0..3 {
            e.clock.close_turn(Usage::default());
        }
        assert_eq!(e.ended(), None);
        e.clock.close_turn(Usage::default());
        assert_eq!(e.ended(), Some(EndReason::Turns));

        let mut e = Episode::new(&instance(), spec()).unwrap();
        e.clock.close_turn(Usage {
            prompt_tokens: Some(10),
            completion_tokens: Some(100),
            reasoning_tokens: None,
        });
        assert_eq!(e.ended(), Some(EndReason::Tokens));
        let row = e.record("e", 0);
        assert_eq!(row.end_reason, "tokens");
        assert_eq!(row.final_source, "none");
        assert_eq!(row.turns, 1);
    }
}
