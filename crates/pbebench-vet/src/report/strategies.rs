//! Strategies at equal token cost: when a results set is an evaluation run with a named
//! strategy (`stepwise`, `feedback`), the report compares every run that counts its
//! tokens by Pass@1 against the tokens it spent per instance (a table and a figure), so
//! that a step-wise search, feedback rounds, probing and sampling K answers are weighed
//! at the same cost.

use super::Figure;
use crate::results::ResultSet;
use crate::svg::{escape, LineChart, Series, XAxis};
use serde::Serialize;
use std::fmt::Write as _;

/// One results set in the comparison of strategies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrategyRow {
    /// Results label.
    pub label: String,
    /// `sampling`, `probing`, `stepwise` or `feedback` ([`ResultSet::strategy_name`]).
    pub strategy: String,
    /// Instances scored.
    pub instances: usize,
    /// Samples per instance, as the run stored them (a step-wise search stores one).
    pub samples: usize,
    /// Pass@1.
    pub pass_at_1: Option<f64>,
    /// Best-of-K.
    pub best_of_k: f64,
    /// Prompt and completion tokens per instance (every sample, step or turn of it);
    /// `None` when the run counted none (a solver program reports no tokens).
    pub tokens_per_instance: Option<f64>,
    /// Completion tokens per instance (reasoning included), when counted.
    pub completion_tokens_per_instance: Option<f64>,
}

/// The rows, fewest tokens per instance first; none unless some run names its strategy.
pub(super) fn rows(results: &[ResultSet]) -> Vec<StrategyRow> {
    if !results
        .iter()
        .any(|r| r.strategy.is_some() && r.tokens.is_some())
    {
        return Vec::new();
    }
    let mut rows: Vec<StrategyRow> = results
        .iter()
        .filter_map(|r| {
            let tokens = r.tokens?;
            let o = &r.summary.overall;
            let n = o.instances.max(1) as f64;
            let counted = tokens.prompt + tokens.completion > 0;
            Some(StrategyRow {
                label: r.label.clone(),
                strategy: r.strategy_name().to_owned(),
                instances: o.instances,
                samples: o.samples,
                pass_at_1: o.pass_at_1,
                best_of_k: o.best_of_k,
                tokens_per_instance: counted
                    .then(|| (tokens.prompt + tokens.completion) as f64 / n),
                completion_tokens_per_instance: counted.then(|| tokens.completion as f64 / n),
            })
        })
        .collect();
    // Fewest tokens first, runs that counted none last.
    let key = |r: &StrategyRow| r.tokens_per_instance.unwrap_or(f64::INFINITY);
    rows.sort_by(|a, b| key(a).total_cmp(&key(b)));
    rows
}

/// Pass@1 against tokens per instance, one point per results set that counted tokens;
/// `None` when none did.
pub(super) fn figure(rows: &[StrategyRow]) -> Option<Figure> {
    let points: Vec<(&StrategyRow, f64)> = rows
        .iter()
        .filter_map(|r| Some((r, r.tokens_per_instance?)))
        .collect();
    if points.is_empty() {
        return None;
    }
    let most = points.iter().map(|(_, t)| *t).fold(0.0, f64::max);
    let series = points
        .iter()
        .map(|(r, t)| {
            Series::new(
                format!("{} ({})", r.label, r.strategy),
                vec![(*t, r.pass_at_1)],
            )
        })
        .collect();
    Some(Figure {
        file: "strategies_by_tokens".into(),
        title: "Pass@1 against tokens per instance".into(),
        caption: "Each evaluation run that counts its tokens, named by its strategy: Pass@1 \
                  against the prompt and completion tokens it spent per instance (every \
                  sample, step or turn). A strategy above and to the left of another does \
                  better at less cost."
            .into(),
        svg: LineChart {
            title: "Pass@1 against tokens per instance".into(),
            x_label: "tokens per instance (prompt + completion)".into(),
            y_label: "Pass@1".into(),
            x: XAxis::Linear {
                min: 0.0,
                max: if most > 0.0 { most * 1.1 } else { 1.0 },
            },
            y: (0.0, 1.0),
            series,
            step: false,
            annotate: true,
        }
        .render(),
    })
}

/// Tokens per instance for the table: `–` when not counted.
fn tokens(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |t| format!("{t:.0}"))
}

/// The section of the page (nothing without rows).
pub(super) fn html(h: &mut String, rows: &[StrategyRow]) {
    if rows.is_empty() {
        return;
    }
    h.push_str("<h2>Strategies at equal token cost</h2>\n<p>Every evaluation run that counts its tokens, by strategy (sampling: K independent answers; probing: interactive mode; stepwise: the chunked search; feedback: feedback rounds), fewest tokens per instance first. Tokens count every sample, step and turn; a solver program reports none (–).</p>\n<table id=\"strategies\">\n<tr><th class=\"l\">results</th><th class=\"l\">strategy</th><th>instances</th><th>samples</th><th>Pass@1</th><th>best-of-K</th><th>tokens per instance</th><th>completion tokens per instance</th></tr>\n");
    for r in rows {
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td></tr>",
            escape(&r.label),
            escape(&r.strategy),
            r.instances,
            r.samples,
            r.pass_at_1.map_or("–".to_owned(), |p| format!("{p:.3}")),
            r.best_of_k,
            tokens(r.tokens_per_instance),
            tokens(r.completion_tokens_per_instance),
        );
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{build, ReportInput};
    use pbebench::{score_instance, Cascade, Instance, RelationMode, ScoreOptions, Tokens};

    fn instance(id: &str) -> Instance {
        let gold = Cascade::from_pairs(&[("ab", "c")]).unwrap();
        let inputs = vec!["xab".to_owned(), "abab".to_owned()];
        Instance {
            id: id.into(),
            outputs: gold.apply_all(&inputs),
            inputs,
            cascade_len: 1,
            cascade: Some(gold),
            category: None,
            relations_mode: RelationMode::default(),
            max_rules: 3,
            max_rule_len: 2,
            alphabet: "abcx".into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    /// Four instances, `passes` of them answered right, with `tokens` in all.
    fn run(label: &str, strategy: Option<&str>, passes: usize, tokens: u64) -> ResultSet {
        let scores = (0..4)
            .map(|k| {
                let answer = if k < passes {
                    "```python\n[\"replace('ab', 'c')\"]\n```"
                } else {
                    "no"
                };
                score_instance(
                    &instance(&format!("i{k}")),
                    &[answer],
                    &ScoreOptions::default(),
                )
            })
            .collect();
        let mut set = ResultSet::from_instances(label, scores);
        set.strategy = strategy.map(str::to_owned);
        set.tokens = Some(Tokens {
            prompt: tokens / 2,
            completion: tokens / 2,
            reasoning: 0,
        });
        set
    }

    #[test]
    fn strategies_are_compared_by_tokens_per_instance_once_a_run_names_one() {
        let sampling = run("k8", None, 2, 8000);
        let stepwise = run("steps", Some("stepwise"), 3, 4000);
        let mut scored = run("scored", None, 1, 0);
        scored.tokens = None; // `pbebench score` output: no run figures
        assert!(
            rows(&[sampling.clone(), scored.clone()]).is_empty(),
            "no named strategy"
        );
        let rows = rows(&[sampling.clone(), stepwise.clone(), scored.clone()]);
        let shown: Vec<(&str, &str, Option<f64>, Option<f64>)> = rows
            .iter()
            .map(|r| {
                (
                    r.label.as_str(),
                    r.strategy.as_str(),
                    r.tokens_per_instance,
                    r.pass_at_1,
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("steps", "stepwise", Some(1000.0), Some(0.75)),
                ("k8", "sampling", Some(2000.0), Some(0.5))
            ]
        );
        let program = run("program", Some("feedback"), 4, 0); // reports no tokens
        let with_program = super::rows(&[program, stepwise.clone()]);
        assert_eq!(with_program[1].tokens_per_instance, None, "last");
        assert_eq!(figure(&with_program[1..]), None);

        let report = build(ReportInput {
            title: "t".into(),
            results: vec![sampling, stepwise, scored],
            ..ReportInput::default()
        });
        assert_eq!(report.strategies, rows);
        assert!(report
            .figures
            .iter()
            .any(|f| f.file == "strategies_by_tokens"));
        let html = report.html();
        assert!(html.contains("<h2>Strategies at equal token cost</h2>"));
        assert!(
            html.contains("<td class=\"l\">steps · stepwise</td>"),
            "the leaderboard names it"
        );
        let md = report.leaderboard_markdown();
        assert!(md.contains("| steps · stepwise |"), "{md}");
        let dir = tempfile::tempdir().unwrap();
        report.write(dir.path()).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
                .unwrap();
        assert_eq!(json["strategies"][0]["strategy"], "stepwise");
        assert_eq!(json["leaderboard"][0]["strategy"], "stepwise");
        assert!(json["leaderboard"][1].get("strategy").is_none());
    }
}
