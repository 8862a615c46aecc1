//! Interactive reordering (`eval --interactive` on a reordering set): each sample is an
//! episode in which the solver tests orders of the scrambled rules and submits one, run by
//! the same drivers as synthesis episodes (a model over tool calls or fenced blocks, a
//! solver program over JSON lines), under the same limits, store and resume.
//!
//! The tools:
//! - `test_order(order)`: the rules applied in that order to the visible inputs; the
//!   answer says how many examples it reproduces and, for each it gets wrong, the input,
//!   the expected output and the output it gives. Each order tested counts against
//!   `--probe-budget` (testing an order is what the solver learns from outside, as a probe
//!   is in synthesis); a test past the budget is refused and ends the episode, as a probe
//!   past it does.
//! - `submit(order)`: the final answer; it ends the episode.
//!
//! An order is read as an answer is ([`parse_order`]): one that is not a permutation of
//! the rules' numbers gets a message saying why (`index 5 is out of range 0..3`), is not
//! tested and costs nothing. What counts at the end is the last submitted order, else the
//! last tested one, else the last array the solver wrote, else none (an invalid answer);
//! it is stored as the episode's answer and graded as every answer is.

use super::PublicProblem;
use crate::backend::Backend;
use crate::control::Control;
use crate::episode::chat::ChatEpisodes;
use crate::episode::{Clock, EndReason, Game, InteractiveSpec, Outcome, ToolProtocol};
use crate::sample::Prices;
use crate::store::{EpisodeRow, TurnRow};
use pbebench::reorder::{parse_order, reorder_prompt, ReorderInstance};
use pbebench::BlockChoice;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// Tests an order.
pub(crate) const TEST_ORDER: &str = "test_order";
/// Ends the episode with an order.
pub(crate) const SUBMIT: &str = "submit";

/// The state of one reordering episode.
pub(crate) struct OrderEpisode<'a> {
    problem: &'a ReorderInstance,
    clock: Clock,
    budget: usize,
    tests: usize,
    submitted: Option<Vec<usize>>,
    tested: Option<Vec<usize>>,
    written: Option<Vec<usize>>,
}

/// What a solver asked for, read from a tool call, a block or a program line.
enum Ask {
    Test(Vec<usize>),
    Submit(Vec<usize>),
    Bad(String),
}

impl<'a> OrderEpisode<'a> {
    pub(crate) fn new(problem: &'a ReorderInstance, spec: InteractiveSpec) -> Self {
        OrderEpisode {
            problem,
            clock: Clock::new(spec),
            budget: spec.probe_budget,
            tests: 0,
            submitted: None,
            tested: None,
            written: None,
        }
    }

    fn rules(&self) -> usize {
        self.problem.scrambled.len()
    }

    /// The order given as `text` (an array, as an answer gives it) to `tool`.
    fn read(&self, tool: &str, text: &str) -> Ask {
        match parse_order(text, self.rules(), BlockChoice::Last) {
            Ok(order) if tool == SUBMIT => Ask::Submit(order),
            Ok(order) => Ask::Test(order),
            Err(problem) => Ask::Bad(format!(
                "{tool}: {problem}; an order is a JSON array of the rule numbers 0 to {}, each \
                 once, such as {}; nothing was done",
                self.rules().saturating_sub(1),
                example(self.rules())
            )),
        }
    }

    /// The order in a JSON value (an array, or an object holding one under `key`).
    fn read_value(&self, tool: &str, v: &Value, key: &str) -> Ask {
        match v.get(key).or(v.is_array().then_some(v)) {
            Some(order) if order.is_array() => self.read(tool, &order.to_string()),
            _ => Ask::Bad(format!(
                "{tool} takes {{\"{key}\": {}}}; nothing was done",
                example(self.rules())
            )),
        }
    }

    fn act(&mut self, ask: Ask) -> Value {
        if let Some(ignored) = self.clock.after_end() {
            return ignored;
        }
        match ask {
            Ask::Test(order) => self.test(order),
            Ask::Submit(order) => {
                self.submitted = Some(order);
                self.clock.end(EndReason::Submit);
                json!({"submitted": true})
            }
            Ask::Bad(message) => json!({"error": message, "tests_left": self.tests_left()}),
        }
    }

    fn tests_left(&self) -> usize {
        self.budget.saturating_sub(self.tests)
    }

    /// Which visible examples `order` gets wrong.
    fn test(&mut self, order: Vec<usize>) -> Value {
        if self.tests_left() == 0 {
            self.clock.end(EndReason::Budget);
            return json!({
                "error": format!("no test left: the budget of {} tests is spent; nothing was tested", self.budget),
                "tests_left": 0,
            });
        }
        self.tests += 1;
        let cascade = self
            .problem
            .ordered(&order)
            .expect("a permutation was read");
        let inst = &self.problem.instance;
        // Within the bound every reordering problem keeps its forms to: an order that
        // outgrows it is told so, and no such form is built.
        let bound = pbebench::reorder::FORM_BOUND;
        let got: Vec<Option<String>> = (inst.inputs.iter())
            .map(|input| cascade.apply_bounded(input, bound).ok())
            .collect();
        let wrong: Vec<Value> = (inst.inputs.iter().zip(&inst.outputs).zip(&got))
            .filter(|((_, expected), got)| got.as_ref() != Some(*expected))
            .map(|((input, expected), got)| {
                let got = got.clone().unwrap_or_else(|| {
                    format!("(a form longer than {bound} characters on the way)")
                });
                json!({"input": input, "expected": expected, "got": got})
            })
            .collect();
        self.tested = Some(order);
        json!({
            "checked": inst.inputs.len(),
            "passed": inst.inputs.len() - wrong.len(),
            "wrong": wrong,
            "tests_left": self.tests_left(),
        })
    }

    /// The order that counts, and where it came from.
    fn final_order(&self) -> Option<(&[usize], &'static str)> {
        [
            (&self.submitted, "submitted"),
            (&self.tested, "tested"),
            (&self.written, "text"),
        ]
        .into_iter()
        .find_map(|(order, source)| order.as_deref().map(|o| (o, source)))
    }
}

/// `[2, 0, 1]`-like: the numbers of `n` rules, reversed.
fn example(n: usize) -> String {
    format!("{:?}", (0..n.max(1)).rev().collect::<Vec<_>>())
}

impl Game for OrderEpisode<'_> {
    fn clock(&self) -> &Clock {
        &self.clock
    }
    fn clock_mut(&mut self) -> &mut Clock {
        &mut self.clock
    }
    fn note_text(&mut self, text: &str) {
        if let Ok(order) = parse_order(text, self.rules(), BlockChoice::Last) {
            self.written = Some(order);
        }
    }
    fn tool_call(&mut self, name: &str, arguments: &str) -> Value {
        let ask = match (name, serde_json::from_str::<Value>(arguments)) {
            (TEST_ORDER | SUBMIT, Ok(v)) => self.read_value(name, &v, "order"),
            (TEST_ORDER | SUBMIT, Err(e)) => Ask::Bad(format!(
                "the arguments of {name} are not valid JSON ({e}); nothing was done"
            )),
            (other, _) => Ask::Bad(unknown(other)),
        };
        self.act(ask)
    }
    fn tool_blocks<'t>(&self, text: &'t str) -> Vec<(&'t str, &'t str)> {
        crate::episode::actions::blocks_tagged(text, &[TEST_ORDER, SUBMIT])
    }
    fn block(&mut self, tag: &str, body: &str) -> Value {
        let ask = self.read(tag, body);
        self.act(ask)
    }
    fn program_line(&mut self, line: &str) -> Value {
        let ask = match serde_json::from_str::<Value>(line) {
            Err(e) => Ask::Bad(format!("not a JSON line ({e})")),
            Ok(v) if v.get("test").is_some() => self.read_value(TEST_ORDER, &v, "test"),
            Ok(v) if v.get("submit").is_some() => self.read_value(SUBMIT, &v, "submit"),
            Ok(_) => Ask::Bad(r#"expected {"test": order} or {"submit": order}"#.to_owned()),
        };
        self.act(ask)
    }
    fn answer_text(&self) -> String {
        self.final_order()
            .map_or_else(String::new, |(order, _)| format!("```json\n{order:?}\n```"))
    }
    fn record(&self, instance_id: &str, sample: u32) -> EpisodeRow {
        let (order, source) = self
            .final_order()
            .map_or((Value::Null, "none"), |(o, s)| (json!(o), s));
        EpisodeRow {
            instance_id: instance_id.to_owned(),
            sample,
            end_reason: (self.clock.ended().unwrap_or(EndReason::Exit).as_str()).to_owned(),
            final_source: source.to_owned(),
            final_cascade: order,
            probes: json!([]),
            probes_used: self.tests,
            tests: self.tests,
            turns: self.clock.turns(),
            usage: self.clock.usage(),
        }
    }
}

fn unknown(name: &str) -> String {
    format!("unknown tool '{name}'; the tools are {TEST_ORDER} and {SUBMIT}")
}

/// The first message of an episode: the reordering prompt, then the tools and limits.
fn first_messages(problem: &ReorderInstance, spec: &InteractiveSpec) -> Vec<Value> {
    let eg = example(problem.scrambled.len());
    let how = match spec.tool_protocol {
        ToolProtocol::Tools => format!(
            "You have two tools:\n\
             - {TEST_ORDER}(order): applies the rules in that order to the inputs above and tells you which examples it gets wrong: the input, the expected output and the output it gives. Each order you test counts against your budget of {budget} tests.\n\
             - {SUBMIT}(order): your final answer; it ends the task.\n\
             An order is a JSON array of the rule numbers, such as {eg}.",
            budget = spec.probe_budget,
        ),
        ToolProtocol::Text => format!(
            "You can use two tools by writing a fenced block whose language is the tool's name; the results come back in the next message, one ```result block per tool block, in order.\n\
             - ```{TEST_ORDER}\n{eg}\n```\n  applies the rules in that order to the inputs above and tells you which examples it gets wrong: the input, the expected output and the output it gives. Each order you test counts against your budget of {budget} tests.\n\
             - ```{SUBMIT}\n{eg}\n```\n  your final answer; it ends the task.",
            budget = spec.probe_budget,
        ),
    };
    let text = format!(
        "{}\n{how}\n\nYou have at most {turns} turns. If you run out of turns or tests, your last submitted order counts, else the last one you tested, else the last JSON array you wrote.\n",
        reorder_prompt(problem),
        turns = spec.max_turns,
    );
    vec![json!({"role": "user", "content": text})]
}

/// The chat-completions tool definitions of the tools protocol.
fn tool_definitions() -> Value {
    let order = json!({
        "type": "object",
        "properties": {"order": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "the rule numbers in the order the rules apply, each once",
        }},
        "required": ["order"],
    });
    let function = |name: &str, description: &str| {
        json!({"type": "function", "function": {
            "name": name, "description": description, "parameters": order,
        }})
    };
    json!([
        function(
            TEST_ORDER,
            "Apply the rules in this order to the visible inputs: which examples it gets wrong. Each test counts against the budget.",
        ),
        function(SUBMIT, "Submit your final order; this ends the task."),
    ])
}

fn tools(spec: &InteractiveSpec) -> Option<Value> {
    (spec.tool_protocol == ToolProtocol::Tools).then(tool_definitions)
}

/// The first request of an episode of a model (stored in the `requests` table).
pub(crate) fn first_request(
    params: &crate::client::ChatParams,
    spec: &InteractiveSpec,
    problem: &ReorderInstance,
) -> String {
    params.conversation_body(&first_messages(problem, spec), tools(spec).as_ref())
}

/// The first line written to a solver program: the problem as a static run gives it
/// ([`PublicProblem`]) with the test budget, and the turn limit.
pub(crate) fn first_line(problem: &ReorderInstance, spec: &InteractiveSpec) -> String {
    let mut task = serde_json::to_value(PublicProblem::of(problem)).expect("a problem serialises");
    task["test_budget"] = json!(spec.probe_budget);
    json!({"task": task, "max_turns": spec.max_turns}).to_string()
}

/// Runs (or resumes after `stored`) one episode on `problem`; `Err` when the solver cannot
/// run at all.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    backend: &Backend,
    spec: InteractiveSpec,
    problem: &ReorderInstance,
    sample: u32,
    stored: &[TurnRow],
    ctl: &Control,
    prices: Prices,
    on_turn: &mut dyn FnMut(TurnRow),
) -> Result<Outcome, String> {
    let episode = OrderEpisode::new(problem, spec);
    let at = (problem.instance.id.as_str(), sample);
    match backend {
        Backend::Chat { client, params, .. } => ChatEpisodes {
            client,
            params,
            spec,
        }
        .play(
            episode,
            first_messages(problem, &spec),
            tools(&spec),
            at,
            stored,
            ctl,
            prices,
            on_turn,
        ),
        Backend::Command(cmd) => {
            crate::episode::program::play(cmd, episode, &first_line(problem, &spec), at, on_turn)
        }
    }
}

/// The figures of a reordering run's episodes (their answers are graded with every other
/// answer, in the run's summary). Means are over the ended episodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderEpisodes {
    /// Instances × K.
    pub expected: usize,
    /// Episodes ended.
    pub episodes: usize,
    /// Mean orders tested per episode.
    pub mean_tests: f64,
    /// Mean turns per episode.
    pub mean_turns: f64,
    /// Episodes by end reason (`submit`, `answer`, `turns`, `tokens`, `budget`, `exit`).
    pub end_reasons: BTreeMap<String, usize>,
    /// Episodes by where their final order came from (`submitted`, `tested`, `text`,
    /// `none`).
    pub final_sources: BTreeMap<String, usize>,
}

impl OrderEpisodes {
    /// The figures of the stored episodes (sample index < `k`) of the problems `known`.
    pub(crate) fn of(
        rows: &[EpisodeRow],
        known: &HashMap<&str, usize>,
        expected: usize,
        k: u32,
    ) -> Self {
        let rows: Vec<&EpisodeRow> = (rows.iter())
            .filter(|r| r.sample < k && known.contains_key(r.instance_id.as_str()))
            .collect();
        let mean = |f: &dyn Fn(&EpisodeRow) -> f64| {
            if rows.is_empty() {
                0.0
            } else {
                rows.iter().map(|r| f(r)).sum::<f64>() / rows.len() as f64
            }
        };
        let tally = |key: &dyn Fn(&EpisodeRow) -> &str| {
            let mut m = BTreeMap::new();
            for r in &rows {
                *m.entry(key(r).to_owned()).or_insert(0) += 1;
            }
            m
        };
        OrderEpisodes {
            expected,
            episodes: rows.len(),
            mean_tests: mean(&|r| r.tests as f64),
            mean_turns: mean(&|r| f64::from(r.turns)),
            end_reasons: tally(&|r| r.end_reason.as_str()),
            final_sources: tally(&|r| r.final_source.as_str()),
        }
    }
}

impl fmt::Display for OrderEpisodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counts = |m: &BTreeMap<String, usize>| {
            (m.iter().map(|(k, v)| format!("{k} {v}")))
                .collect::<Vec<_>>()
                .join(" · ")
        };
        writeln!(
            f,
            "interactive        {}/{} episodes ended",
            self.episodes, self.expected
        )?;
        writeln!(
            f,
            "  per episode      {:.1} orders tested · {:.1} turns",
            self.mean_tests, self.mean_turns
        )?;
        writeln!(f, "  ended by         {}", counts(&self.end_reasons))?;
        write!(f, "  final order      {}", counts(&self.final_sources))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::reorder::reorder_instance;
    use pbebench::{Cascade, Instance};

    fn problem() -> ReorderInstance {
        let gold = Cascade::from_pairs(&[("ab", "c"), ("c", "d"), ("d", "e")]).unwrap();
        reorder_instance(
            &Instance::from_gold("t", &["ab", "c", "d"], gold, "abcde"),
            3,
        )
        .unwrap()
    }

    fn spec(budget: usize) -> InteractiveSpec {
        InteractiveSpec {
            probe_budget: budget,
            max_turns: 5,
            max_episode_tokens: None,
            tool_protocol: ToolProtocol::Tools,
            probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
            feedback: false,
        }
    }

    #[test]
    fn a_test_says_which_examples_an_order_gets_wrong() {
        let p = problem();
        let mut e = OrderEpisode::new(&p, spec(2));
        let gold = serde_json::to_string(&json!({"order": p.order})).unwrap();
        let fb = e.tool_call(TEST_ORDER, &gold);
        assert_eq!(
            (fb["passed"].clone(), fb["checked"].clone()),
            (json!(3), json!(3))
        );
        assert_eq!(fb["tests_left"], 1);
        let reversed: Vec<usize> = p.order.iter().rev().copied().collect();
        let fb = e.tool_call(TEST_ORDER, &json!({ "order": reversed }).to_string());
        let wrong = fb["wrong"].as_array().unwrap();
        assert!(!wrong.is_empty(), "{fb}");
        for w in wrong {
            assert_ne!(w["expected"], w["got"]);
            assert!(w["input"].is_string());
        }
        assert_eq!(e.final_order().unwrap(), (&reversed[..], "tested"));
        // The budget is spent: the next test is refused and ends the episode.
        let fb = e.tool_call(TEST_ORDER, &gold);
        assert!(
            fb["error"].as_str().unwrap().contains("budget of 2"),
            "{fb}"
        );
        assert_eq!(e.clock().ended(), Some(EndReason::Budget));
        assert_eq!(e.record("t", 0).tests, 2);
    }

    #[test]
    fn an_order_whose_forms_explode_is_told_so() {
        // Forty doublings of "a": 2^40 characters, never built.
        let mut p = problem();
        let n = 40;
        p.scrambled = Cascade::new(vec![pbebench::Rule::new("a", "aa").unwrap(); n]);
        p.order = (0..n).collect();
        p.instance.inputs = vec!["a".into()];
        p.instance.outputs = vec!["b".into()];
        let mut e = OrderEpisode::new(&p, spec(2));
        let fb = e.tool_call(TEST_ORDER, &json!({ "order": p.order }).to_string());
        assert_eq!(fb["passed"], 0, "{fb}");
        let got = fb["wrong"][0]["got"].as_str().unwrap();
        assert!(got.contains("longer than 65536 characters"), "{got}");
    }

    #[test]
    fn invalid_orders_get_a_message_and_cost_nothing() {
        let p = problem();
        let mut e = OrderEpisode::new(&p, spec(1));
        for (args, says) in [
            (r#"{"order": [0, 0, 1]}"#, "index 0 is repeated"),
            (r#"{"order": [0, 1, 7]}"#, "out of range 0..3"),
            (r#"{"order": [0, 1]}"#, "2 indices for 3 rules"),
            (r#"{"order": [-1, 0, 1]}"#, "not an index"),
            (r#"{"order": "first"}"#, "test_order takes"),
            (r#"{"order": [0, 1"#, "not valid JSON"),
            ("[]", "0 indices for 3 rules"),
        ] {
            let fb = e.tool_call(TEST_ORDER, args);
            let error = fb["error"].as_str().unwrap_or_default();
            assert!(error.contains(says), "{args}: {fb}");
            assert_eq!(fb["tests_left"], 1, "{args}");
        }
        let fb = e.tool_call("run_hidden", "{}");
        assert!(fb["error"].as_str().unwrap().contains("unknown tool"));
        assert_eq!(e.clock().ended(), None);
        assert_eq!(e.answer_text(), "");
        // A submitted order counts over a written one; a bad submit does not end.
        e.note_text("I think [2, 1, 0].");
        assert_eq!(e.final_order().unwrap().1, "text");
        assert!(e.program_line(r#"{"submit": [9, 9, 9]}"#)["error"].is_string());
        assert_eq!(e.clock().ended(), None);
        let order = format!("{:?}", p.order);
        e.block(SUBMIT, &format!("\n{order}\n"));
        assert_eq!(e.clock().ended(), Some(EndReason::Submit));
        assert_eq!(e.answer_text(), format!("```json\n{order}\n```"));
        assert!(e.tool_call(TEST_ORDER, "[0, 1, 2]")["error"]
            .as_str()
            .unwrap()
            .contains("ended"));
    }
}
