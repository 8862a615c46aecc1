//! # pbebench
//!
//! Multi-step programming by examples over string-rewrite cascades (PBEBench): a hidden
//! cascade of Python `str.replace(a, b)` rules maps short inputs to outputs, and a solver
//! must recover *a* cascade that reproduces them. This crate is the core every other one
//! builds on; it computes and reads files, and writes none (output files are
//! `pbebench-io`'s).
//!
//! The stages, in the order the data flows (each arrow a file format a user can read):
//!
//! 1. **Rules and cascades** ([`Rule`], [`Cascade`], module [`rule`]): exactly CPython's
//!    `str.replace`, applied in order.
//! 2. **Relations** ([`Relations`], [`Category`], module [`relations`]): which rules feed
//!    or bleed which (the paper's formula or the exact classifier), and the `F B CF CB`
//!    category of a cascade.
//! 3. **Generation** (module [`generate`]): the paper's Algorithm 1 with its presets,
//!    deterministic under any thread count or shard split.
//!    → **instances** ([`Instance`]; module [`dataset`] reads ours and the authors' JSONL
//!    and writes ours ([`dataset::DatasetWriter`]), [`authors_line`] writes theirs;
//!    [`read_word_lists`] makes real sound-change data into instances;
//!    [`DatasetStats`] summarises a dataset).
//! 4. **Prompts** ([`PromptTemplate`]; the prompts file, [`PromptLine`]): the examples and
//!    the limits, in a template a user can replace.
//!    → **responses** ([`read_responses`] and [`ResponseLine`]: the responses file, ours
//!    and the authors' result records).
//! 5. **Parsing** ([`parse_response`]): a response's cascade, each rule checked against
//!    the instance's [`RuleLimits`]; thinking is never read.
//! 6. **Scoring** ([`score_instance`], [`score_dataset`], [`score_responses`]; the
//!    formulas in module [`metrics`]): Pass@1, best-of-K, Edit_Sim, Valid_Rate, pass@k
//!    and the vetted figures, aggregated into a [`Summary`] whose table is a `Display`;
//!    [`reward`] and [`Rewarder`] are the RL fast path.
//!    → **results** ([`Results`]: `results.json`; [`write_score_lines`] and
//!    [`read_score_lines`]: the per-instance lines).
//! 7. **Behaviour** (module [`equiv`]): whether two cascades give the same output on every
//!    input of an instance's input space, a shortest counterexample, and the exact
//!    probability that they agree; [`Cascade::apply_bounded`] applies an untrusted cascade
//!    within a length bound.
//! 8. **Rule reordering** (module [`reorder`]): the second task, the gold rules given in a
//!    scrambled order; the problems, their count of valid orders, their file and their
//!    grade.
//!
//! ```
//! use pbebench::{score_instance, Cascade, Instance, RelationMode, Relations, Rule, ScoreOptions};
//!
//! let gold = Cascade::new(vec![Rule::new("ab", "c")?, Rule::new("c", "d")?]);
//! assert_eq!(gold.apply("xab"), "xd");
//! let inputs = vec!["xab".to_owned(), "cc".to_owned()];
//! let instance = Instance {
//!     id: "demo".into(),
//!     outputs: gold.apply_all(&inputs),
//!     inputs,
//!     cascade_len: gold.len(),
//!     category: Some(Relations::of(&gold, RelationMode::Exact).category()),
//!     cascade: Some(gold),
//!     relations_mode: RelationMode::Exact,
//!     max_rules: 5,
//!     max_rule_len: 3,
//!     alphabet: "abcdx".into(),
//!     heldout_inputs: Vec::new(),
//!     heldout_outputs: Vec::new(),
//!     interactions: Vec::new(),
//!     symbols: Default::default(),
//! };
//! let answer = "Rule order matters.\n```python\n[\"replace('ab', 'c')\", \"replace('c', 'd')\"]\n```";
//! let score = score_instance(&instance, &[answer, "no idea"], &ScoreOptions::default());
//! assert!(score.pass);
//! assert_eq!(score.chosen, Some(0));
//! assert_eq!(score.samples[1].edit_sim, 0.0);
//! # Ok::<(), pbebench::RuleError>(())
//! ```
//!
//! # Examples
//!
//! **Generate** a dataset: the parameters of a preset with some of them overridden, and a
//! sink that takes each instance (a file writer, or here a vector). The same parameters
//! and seed give the same instances, whatever the thread count.
//!
//! ```
//! use pbebench::generate::{generate, Balance, Overrides, Preset};
//!
//! let params = Overrides {
//!     size: Some(4),
//!     balance: Some(Balance::Length),
//!     seed: Some(7),
//!     ..Overrides::default()
//! }
//! .apply(Preset::Lite)?;
//! let mut instances = Vec::new();
//! let stats = generate(&params, &(), &mut |instance| {
//!     instances.push(instance);
//!     Ok(())
//! })?;
//! assert_eq!((instances.len(), stats.accepted), (4, 4));
//! for instance in &instances {
//!     let gold = instance.cascade.as_ref().expect("generated instances have their gold");
//!     assert_eq!(gold.apply_all(&instance.inputs), instance.outputs);
//!     assert!((2..=5).contains(&gold.len()));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Equivalence**: whether two cascades give the same output on every input of a space,
//! decided exactly, with a shortest input on which they differ and the probability that
//! they agree.
//!
//! ```
//! use pbebench::equiv::{compare, InputSpace, Limits};
//! use pbebench::Cascade;
//!
//! let space = InputSpace::new("abc".chars(), 1, 4)?;
//! let gold = Cascade::from_pairs(&[("a", "b"), ("b", "c")])?;
//! // The same behaviour written otherwise: every "a" and "b" ends as "c".
//! let same = Cascade::from_pairs(&[("b", "c"), ("a", "c")])?;
//! assert!(compare(&gold, &same, &space, &Limits::default())?.equivalent());
//! // Without its first rule, an "a" stays as it is.
//! let shorter = Cascade::from_pairs(&[("b", "c")])?;
//! let found = compare(&gold, &shorter, &space, &Limits::default())?;
//! let counterexample = found.counterexample.expect("they differ");
//! assert_eq!(counterexample.input, "a");
//! assert!(found.agreement.to_f64() < 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **The oracle** of interactive mode: a solver runs the hidden cascade on inputs of its
//! choice (each counts against the probe budget), tests candidates against the visible
//! examples and what the probes showed, and its answer is graded as static scoring grades
//! it.
//!
//! ```
//! use pbebench::probe::{grade, Oracle};
//! use pbebench::{Cascade, Instance};
//!
//! let gold = Cascade::from_pairs(&[("ab", "c"), ("c", "d")])?;
//! let instance = Instance::from_gold("t0", &["xab", "ba"], gold, "abcdx");
//! let mut oracle = Oracle::new(&instance, 3)?;
//! let guess = Cascade::from_pairs(&[("ab", "d")])?;
//! assert!(oracle.test_cascade(&guess).all_pass()); // it fits the visible examples …
//! assert_eq!(oracle.run_hidden(&["cab", "a"])?, ["dd", "a"]);
//! assert_eq!(oracle.budget_left(), 1);
//! assert!(!oracle.test_cascade(&guess).all_pass()); // … but not the probe "cab"
//! let g = grade(&instance, &guess, oracle.probes());
//! assert!(g.pass && g.recovered == Some(false)); // it passes, yet differs from the gold
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// One measured exception, allowed where it is: `rule::byte_positions` calls SSE2
// intrinsics on x86-64.
#![deny(unsafe_code)]
#![warn(clippy::too_many_lines)]
#![warn(missing_docs)]

mod alphabets;
mod authors;
pub mod cldf;
pub mod dataset;
pub mod derivation;
pub mod equiv;
pub mod generate;
mod instance;
mod instance_error;
pub mod interval;
mod limits;
pub mod metrics;
pub mod probe;
mod prompt;
pub mod pylit;
pub mod relations;
pub mod reorder;
mod response;
mod responses;
mod results;
pub mod rule;
mod score;
mod stats;
pub mod symbols;
mod wordlists;

pub use authors::{
    authors_limits, authors_line, AuthorsExport, AuthorsOptions, ExportError, ReplaceCallError,
};
pub use instance::{GoldCheck, Instance};
pub use interval::Interval;
pub use prompt::{
    default_prompt, ChatMessage, Placeholder, PromptLine, PromptTemplate, TemplateError,
    TemplateLoadError, TemplateProblem, AUTHORS_TEMPLATE, BUILT_IN_TEMPLATES, DEFAULT_TEMPLATE,
};
pub use relations::{Category, RelationMode, Relations};
pub use response::{
    code_blocks, parse_block, parse_response, render_answer, strip_thinking, Alphabet, BlockChoice,
    BlockError, ParsedResponse, ParsedRule, ResponseStatus, RuleLimits, RuleOutcome, RuleProblem,
};
pub use responses::{
    parse_response_line, read_responses, read_responses_with, InstanceRef, LineError, LineIssue,
    ResponseLine, ResponseRecord, Responses, ResponsesError,
};
pub use results::{
    read_score_lines, write_score_lines, Latency, Results, RunFigures, ScoreLineError,
    ScoreLineProblem, ScoreLines, Tokens,
};
pub use rule::{Cascade, Rule, RuleError, TooLong};
pub use score::{
    behaviour_rewards, figure, reward, score_dataset, score_instance, score_readings,
    score_responses, summarize, Aggregate, Column, GoldCounterexample, Grade, Grader,
    InstanceScore, PerInstance, PreparedInstance, ResponseReading, RewardScratch, Rewarder,
    SampleScore, ScoreOptions, Summary, BEST_OF_K_VETTED, COLUMNS,
};
pub use stats::{CategoryComparison, DatasetStats, InvalidLine};
pub use wordlists::{
    language_pairs, read_word_lists, word_list_instances, LanguagePair, WordListError,
    WordListOptions,
};

/// The instant `after` past `start`, or the latest instant that can be represented when
/// that lies beyond it: a deadline for a limit a caller gave, which may be any
/// [`Duration`](std::time::Duration) (`Instant + Duration` panics on overflow).
///
/// ```
/// use std::time::{Duration, Instant};
/// let now = Instant::now();
/// assert_eq!(pbebench::deadline(now, Duration::from_secs(1)), now + Duration::from_secs(1));
/// assert!(pbebench::deadline(now, Duration::MAX) > now + Duration::from_secs(1 << 40));
/// ```
pub fn deadline(start: std::time::Instant, after: std::time::Duration) -> std::time::Instant {
    if let Some(at) = start.checked_add(after) {
        return at;
    }
    // The largest sum that fits: add what fits, halving what does not.
    let (mut at, mut step) = (start, after);
    while !step.is_zero() {
        match at.checked_add(step) {
            Some(later) => at = later,
            None => step /= 2,
        }
    }
    at
}
