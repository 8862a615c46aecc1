//! # pbebench-vet
//!
//! Vetting and reporting for pbebench (`docs/vetting.md` and `docs/formats.md#the-report`, after
//! ProgramBench Vetted), the last stages of the data flow:
//!
//! - **audit** ([`audit()`](fn@audit) → [`AuditFindings`], module [`audit`](mod@audit)): of a
//!   dataset, with
//!   gold and dummy gates, the shortcut baselines ([`Baseline`]), stated lengths,
//!   duplicates, labels and, given scored results of a panel of solvers, calibration. Its
//!   `Display` is the text `pbebench audit` prints, its JSON `audit.json`.
//! - **results** ([`load_results`] → [`ResultSet`]): the scored results the audit and the
//!   report read (`results.json` and the per-instance lines, through `pbebench::Results`),
//!   checked against the dataset ([`check_against`]) or against each other.
//! - **compare** ([`compare()`](fn@compare) → [`Comparison`]): two results on one
//!   dataset, each figure's difference with a paired 95% interval.
//! - **report** (module [`report`], [`Report`]): a leaderboard, SVG figures, a logistic
//!   regression of pass on difficulty ([`fit_logit`]) and one self-contained
//!   `index.html`, from results, the generator's statistics ([`GenerationStats`]) and an
//!   audit.
//! - **identifiability and vetting** ([`run_panel`] with a [`Panel`] of attackers,
//!   [`vet_dataset`]): whether the visible examples pin the gold's behaviour down, and the
//!   judge-and-doctor loop that adds counterexamples until they do (issue 20).
//! - **demo** ([`run_demo`]): generate a small Lite set and vet it, then solve, score,
//!   audit and report both, Pass@1 beside Recovered@1 with intervals.
//!
//! ```
//! use pbebench_vet::{audit, AuditOptions};
//!
//! // An instance whose outputs equal its inputs: every answer, even none, passes it.
//! let line = r#"{"id": "no-op", "inputs": ["ab"], "outputs": ["ab"], "cascade": [["c", "d"]],
//!     "cascade_len": 1, "max_rules": 5, "max_rule_len": 3, "alphabet": "abcd"}"#;
//! let dataset = vec![pbebench::dataset::parse_instance(line, 0)?];
//! let options = AuditOptions { solver: None, ..AuditOptions::default() };
//! let findings = audit(&dataset, "one.jsonl", &[], &options, &|_stage: &str| {});
//! assert!(!findings.passed, "the dummy gate fails");
//! assert_eq!(findings.gates.dummy.failures.examples[0].id, "no-op");
//! assert!(findings.to_string().contains("FAILED gate(s): dummy"));
//! # Ok::<(), pbebench::dataset::InstanceError>(())
//! ```
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::too_many_lines)]

mod attack;
#[cfg(feature = "results")]
pub mod audit;
#[cfg(feature = "results")]
mod compare;
#[cfg(feature = "results")]
mod demo;
mod genstats;
#[cfg(feature = "results")]
mod logit;
#[cfg(feature = "results")]
mod reorder_results;
#[cfg(feature = "results")]
pub mod report;
#[cfg(feature = "results")]
mod results;
mod shortcuts;
#[cfg(feature = "results")]
mod svg;
#[cfg(feature = "results")]
mod sweep;
mod vet;

pub use attack::{
    run_panel, Attacker, Panel, PanelError, PanelVerdict, Witness, DEFAULT_PANEL, MAX_NODES,
};
#[cfg(feature = "results")]
pub use audit::{audit, AuditFindings, AuditOptions, AuditProgress, SolverCheck};
#[cfg(feature = "results")]
pub use compare::{compare, Comparison, FigureDifference};
#[cfg(feature = "results")]
pub use demo::{run_demo, DemoError, DemoOptions, DemoRow, DemoSet, DemoSummary, Rate};
pub use genstats::{GenStatsError, GenerationStats, VettedStatsFile};
#[cfg(feature = "results")]
pub use logit::{fit_logit, LogitError, LogitFit};
#[cfg(feature = "results")]
pub use reorder_results::{is_reorder_spec, load_reorder_results, ReorderSet};
#[cfg(feature = "results")]
pub use report::{Report, ReportInput};
#[cfg(feature = "results")]
pub use results::{check_against, check_same_instances, load_results, ResultSet, ResultsError};
pub use shortcuts::Baseline;
#[cfg(feature = "results")]
pub use sweep::sweep_plot;
pub use vet::{
    infer_params, vet_dataset, vet_instance, AddedExample, DroppedSlot, Repair, Replacement,
    VetCounts, VetError, VetField, VetJob, VetOptions, VetProgress, VetSummary, VettedInstance,
    DEFAULT_MAX_EXAMPLES, FULL_VETTED_REPLACEMENT_ATTEMPTS, MAX_EXAMPLES_LIMIT,
    REPLACEMENT_ATTEMPTS, REPLACEMENT_ATTEMPTS_LIMIT,
};
