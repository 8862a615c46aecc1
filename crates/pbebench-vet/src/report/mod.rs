//! The report of scored results (`docs/formats.md#the-report`): a leaderboard, SVG figures, a
//! logistic regression of pass on cascade length and the relation flags, and one self-contained
//! `index.html` that holds them all (inline SVG and CSS; no script, no network).

mod derivations;
mod figures;
mod html;
mod strategies;

pub use derivations::{ShownDerivation, Verdict, MAX_SHOWN};
pub use figures::Figure;
pub use strategies::StrategyRow;

use crate::audit::AuditFindings;
use crate::genstats::GenerationStats;
use crate::logit::{fit_logit, LogitFit};
use crate::results::ResultSet;
use pbebench::{Aggregate, Instance, RelationMode};
use pbebench_io::write_atomic;
use serde::Serialize;
use std::io;
use std::path::{Path, PathBuf};

/// Everything a report is built from.
#[derive(Debug, Clone, Default)]
pub struct ReportInput {
    /// Heading of the page.
    pub title: String,
    /// Scored results, one per solver or model (already checked).
    pub results: Vec<ResultSet>,
    /// Generation statistics files.
    pub generation: Vec<GenerationStats>,
    /// An audit to summarise, if one was run.
    pub audit: Option<AuditFindings>,
    /// The dataset, if given: only its relation mode is used (for predicted categories).
    pub dataset: Option<(String, Vec<Instance>)>,
    /// Warnings met while reading the inputs; shown at the top of the page.
    pub warnings: Vec<String>,
    /// Transcripts of a few episodes of interactive runs, linked from the page (the
    /// caller renders them, as `pbebench show` prints them; see
    /// [`ResultSet::episodes_to_show`]).
    pub transcripts: Vec<Transcript>,
    /// Results of the rule-reordering task, each in the page's reordering section.
    pub reorder: Vec<crate::ReorderSet>,
}

/// One episode's transcript, written beside the page as a text file and linked from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// The results set's label.
    pub label: String,
    /// The instance.
    pub instance_id: String,
    /// The sample (episode) index.
    pub sample: u32,
    /// The text.
    pub text: String,
}

impl Transcript {
    /// The file it is written to: `episode-K.txt`, K its position in the report.
    pub fn file(k: usize) -> String {
        format!("episode-{}.txt", k + 1)
    }
}

/// One row of the leaderboard: a results set's overall figures (its columns are
/// [`pbebench::COLUMNS`], as in every table) and its cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaderRow {
    /// Results label.
    pub label: String,
    /// The overall aggregate of the results.
    #[serde(flatten)]
    pub overall: Aggregate,
    /// Cost of the run, when known.
    pub cost: Option<f64>,
    /// The strategy the run names (`stepwise`, `feedback`), shown beside its label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// The row above it on the leaderboard has a best-of-K it cannot be told apart from:
    /// the 95% interval of their difference holds 0 (paired by instance when both have
    /// per-instance lines, [`crate::compare()`]; else their independent intervals).
    pub tied_with_above: bool,
}

/// The regression of one results set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    /// Results label.
    pub label: String,
    /// Instances left out because they have no category.
    pub uncategorised: usize,
    /// Predictor values whose instances all pass or all fail (e.g. "cascade_len = 2: all
    /// 26 pass"): the cause of separation when the fit reports it.
    pub pure: Vec<String>,
    /// The fit, or why there is none.
    pub fit: Result<LogitFit, String>,
}

/// A built report, ready to be written.
#[derive(Debug, Clone)]
pub struct Report {
    /// Heading.
    pub title: String,
    /// Leaderboard rows, best best-of-K first.
    pub leaderboard: Vec<LeaderRow>,
    /// Figures in page order.
    pub figures: Vec<Figure>,
    /// One regression per results set with per-instance scores.
    pub regressions: Vec<Regression>,
    /// Strategies at equal token cost (empty unless some run names its strategy).
    pub strategies: Vec<StrategyRow>,
    /// Warnings shown at the top.
    pub warnings: Vec<String>,
    /// A few instances' derivations by the gold and by an answer (needs the dataset and
    /// per-instance results).
    pub derivations: Vec<ShownDerivation>,
    /// Inputs, for the page's footer.
    pub sources: Vec<String>,
    input: ReportInput,
}

/// The predictors of the regression, in order.
pub const PREDICTORS: [&str; 5] = [
    "cascade_len",
    "feeding",
    "bleeding",
    "counter_feeding",
    "counter_bleeding",
];

/// Builds the report.
pub fn build(mut input: ReportInput) -> Report {
    // One order everywhere (tables, legends, colours): best best-of-K first.
    input.results.sort_by(|a, b| {
        b.summary
            .overall
            .best_of_k
            .total_cmp(&a.summary.overall.best_of_k)
    });
    let mut warnings = input.warnings.clone();
    let mut leaderboard: Vec<LeaderRow> = input.results.iter().map(leader_row).collect();
    leaderboard.sort_by(|a, b| {
        (b.overall.best_of_k)
            .total_cmp(&a.overall.best_of_k)
            .then(b.overall.edit_sim.total_cmp(&a.overall.edit_sim))
    });
    mark_ties(&mut leaderboard, &input.results);
    let mode = input
        .dataset
        .as_ref()
        .and_then(|(_, d)| d.first())
        .map_or(RelationMode::Exact, |i| i.relations_mode);
    let summary_only: Vec<&str> = input
        .results
        .iter()
        .filter(|r| r.instances.is_none())
        .map(|r| r.label.as_str())
        .collect();
    if !summary_only.is_empty() {
        warnings.push(format!(
            "{} gave only a summary: survival curves use the 0.05 grid, and the confusion matrices and regression leave them out (give the per-instance file too)",
            summary_only.join(", ")
        ));
    }
    let (mut figures, figure_warnings) = figures::all(&input, mode);
    warnings.extend(figure_warnings);
    let strategies = strategies::rows(&input.results);
    figures.extend(strategies::figure(&strategies));
    let regressions = input
        .results
        .iter()
        .filter_map(|r| r.instances.as_ref().map(|list| regression(&r.label, list)))
        .collect();
    let mut sources: Vec<String> = input
        .results
        .iter()
        .map(|r| format!("{}: {}", r.label, r.sources_text()))
        .collect();
    sources.extend(
        input
            .generation
            .iter()
            .map(|g| format!("generation: {}", g.path.display())),
    );
    sources.extend(
        (input.reorder.iter()).map(|r| format!("{} (reordering): {}", r.label, r.sources_text())),
    );
    if let Some((name, _)) = &input.dataset {
        sources.push(format!("dataset: {name}"));
    }
    let derivations = derivations::pick(&input);
    Report {
        title: input.title.clone(),
        leaderboard,
        figures,
        regressions,
        strategies,
        warnings,
        derivations,
        sources,
        input,
    }
}

fn leader_row(r: &ResultSet) -> LeaderRow {
    LeaderRow {
        label: r.label.clone(),
        overall: r.summary.overall.clone(),
        cost: r.cost,
        strategy: r.strategy.clone(),
        tied_with_above: false,
    }
}

/// Marks each leaderboard row whose best-of-K cannot be told apart from the row above's
/// (a tie): the difference's 95% interval, paired where it can be, holds 0. Results of
/// different datasets, or without an interval, are not marked.
fn mark_ties(rows: &mut [LeaderRow], results: &[ResultSet]) {
    let set = |label: &str| results.iter().find(|r| r.label == label);
    for k in 1..rows.len() {
        let (Some(above), Some(here)) = (set(&rows[k - 1].label), set(&rows[k].label)) else {
            continue;
        };
        let Ok(comparison) = crate::compare::compare(above, here) else {
            continue;
        };
        rows[k].tied_with_above = (comparison.figures.iter())
            .find(|f| f.figure == pbebench::Column::BEST_OF_K.key)
            .and_then(|f| f.distinguishable())
            == Some(false);
    }
}

/// Fits pass ~ cascade length + the four relation flags over one results set.
pub fn regression(label: &str, list: &[pbebench::InstanceScore]) -> Regression {
    let mut rows = Vec::new();
    let mut y = Vec::new();
    let mut uncategorised = 0;
    for s in list {
        let Some(c) = s.category else {
            uncategorised += 1;
            continue;
        };
        let flag = |b: bool| f64::from(u8::from(b));
        rows.push(vec![
            s.cascade_len as f64,
            flag(c.feeding()),
            flag(c.bleeding()),
            flag(c.counter_feeding()),
            flag(c.counter_bleeding()),
        ]);
        y.push(s.pass);
    }
    Regression {
        label: label.to_owned(),
        uncategorised,
        pure: pure_values(&rows, &y),
        fit: fit_logit(&PREDICTORS, &rows, &y).map_err(|e| e.to_string()),
    }
}

/// For each predictor and each of its values, whether all its instances pass or all fail
/// (listed only when the outcome varies overall).
fn pure_values(rows: &[Vec<f64>], y: &[bool]) -> Vec<String> {
    let mut out = Vec::new();
    if y.iter().all(|v| *v) || y.iter().all(|v| !*v) {
        return out;
    }
    for (j, name) in PREDICTORS.iter().enumerate() {
        let mut groups: std::collections::BTreeMap<i64, (usize, usize)> = Default::default();
        for (row, pass) in rows.iter().zip(y) {
            let g = groups.entry(row[j].round() as i64).or_default();
            g.0 += 1;
            g.1 += usize::from(*pass);
        }
        for (value, (n, passed)) in groups {
            if passed == n {
                out.push(format!("{name} = {value}: all {n} pass"));
            } else if passed == 0 {
                out.push(format!("{name} = {value}: all {n} fail"));
            }
        }
    }
    out
}

impl Report {
    /// The page as HTML.
    pub fn html(&self) -> String {
        html::page(self)
    }

    /// The leaderboard as a Markdown table.
    pub fn leaderboard_markdown(&self) -> String {
        html::leaderboard_markdown(&self.leaderboard)
    }

    /// The files [`Report::write`] writes into its directory: one SVG per figure,
    /// `leaderboard.md`, `report.json` and `index.html`, in that order, then one
    /// `episode-K.txt` per transcript.
    pub fn file_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .figures
            .iter()
            .map(|fig| format!("{}.svg", fig.file))
            .collect();
        names.extend(["leaderboard.md", "report.json", "index.html"].map(String::from));
        names.extend((0..self.input.transcripts.len()).map(Transcript::file));
        names
    }

    /// The transcripts linked from the page.
    pub fn transcripts(&self) -> &[Transcript] {
        &self.input.transcripts
    }

    /// Writes the files of [`Report::file_names`] into `dir` (created if needed), each
    /// atomically; returns the paths written.
    pub fn write(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut json = serde_json::json!({
            "title": self.title,
            "leaderboard": self.leaderboard,
            "regressions": self.regressions,
            "figures": self.figures.iter().map(|f| serde_json::json!({
                "file": format!("{}.svg", f.file), "title": f.title, "caption": f.caption,
            })).collect::<Vec<_>>(),
            "derivations": self.derivations.iter().map(|d| serde_json::json!({
                "instance_id": d.instance_id, "label": d.label, "verdict": d.verdict.text(),
            })).collect::<Vec<_>>(),
            "warnings": self.warnings,
            "sources": self.sources,
        });
        if !self.input.reorder.is_empty() {
            json["reordering"] = serde_json::json!(self
                .input
                .reorder
                .iter()
                .map(|r| serde_json::json!({
                    "label": r.label, "cost": r.cost, "summary": r.summary,
                }))
                .collect::<Vec<_>>());
        }
        if !self.strategies.is_empty() {
            json["strategies"] = serde_json::json!(self.strategies);
        }
        let contents: Vec<Vec<u8>> = self
            .figures
            .iter()
            .map(|fig| fig.svg.clone().into_bytes())
            .chain([
                self.leaderboard_markdown().into_bytes(),
                (serde_json::to_string_pretty(&json).expect("serialisable") + "\n").into_bytes(),
                self.html().into_bytes(),
            ])
            .chain(
                self.input
                    .transcripts
                    .iter()
                    .map(|t| t.text.clone().into_bytes()),
            )
            .collect();
        let mut written = Vec::new();
        for (name, bytes) in self.file_names().iter().zip(&contents) {
            let p = dir.join(name);
            write_atomic(&p, bytes)?;
            written.push(p);
        }
        Ok(written)
    }
}
