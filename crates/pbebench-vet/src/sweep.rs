//! The plot of `pbebench solve --holdout SHARE --sweep N,…`: held-out exact match against
//! the rules allowed, one line per language with its 95% Wilson interval over the held-out
//! words, and each language's identity (the words whose proto-form already equals the
//! reflex) as a dashed reference line. A line under its dashed line does worse than
//! changing nothing.

use crate::svg::{LineChart, Overlay, Series, XAxis};
use pbebench::interval::wilson;
use pbebench_solve::HoldoutRow;
use std::collections::BTreeMap;

/// Exact matches and words held out, summed over a language's instances.
#[derive(Default, Clone, Copy)]
struct Tally {
    exact: usize,
    identity: usize,
    held: usize,
}

/// The sweep as a standalone SVG: `runs` are the budgets in the order swept (their label,
/// e.g. `4` or `half`) with the cross-validation rows of each; `share` is the held-out
/// share, named in the title.
pub fn sweep_plot(runs: &[(String, Vec<HoldoutRow>)], share: f64) -> String {
    let mut per: BTreeMap<&str, Vec<Tally>> = BTreeMap::new();
    for (k, (_, rows)) in runs.iter().enumerate() {
        for row in rows {
            let tallies = per
                .entry(&row.language)
                .or_insert_with(|| vec![Tally::default(); runs.len()]);
            let t = &mut tallies[k];
            t.exact += row.held_answer_exact;
            t.identity += row.held_identity_exact;
            t.held += row.held;
        }
    }
    let percent = |x: f64| 100.0 * x;
    let mut series = Vec::new();
    let mut levels = Vec::new();
    for (language, tallies) in &per {
        let intervals: Vec<_> = tallies.iter().map(|t| wilson(t.exact, t.held)).collect();
        series.push(Series {
            name: (*language).to_owned(),
            points: (intervals.iter().enumerate())
                .map(|(k, i)| (k as f64, i.map(|i| percent(i.mean))))
                .collect(),
            bars: (intervals.iter())
                .map(|i| i.map(|i| (percent(i.lo), percent(i.hi))))
                .collect(),
        });
        // The same words are held out at every budget; pooled, in case they were not.
        let (identity, held) = tallies
            .iter()
            .fold((0, 0), |(e, h), t| (e + t.identity, h + t.held));
        levels.push((held > 0).then(|| percent(identity as f64 / held as f64)));
    }
    let overlay = Overlay {
        reference: Some(("identity (dashed)".to_owned(), levels)),
    };
    LineChart {
        title: format!(
            "Held-out exact match by rules allowed ({:.0}% of words held out)",
            percent(share)
        ),
        x_label: "rules allowed".to_owned(),
        y_label: "held-out exact match (%), 95% Wilson interval".to_owned(),
        x: XAxis::Categories(runs.iter().map(|(label, _)| label.clone()).collect()),
        y: (0.0, 100.0),
        series,
        step: false,
        annotate: false,
    }
    .render_with(&overlay)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(language: &str, held: usize, identity: usize, exact: usize) -> HoldoutRow {
        HoldoutRow {
            id: format!("{language}-0"),
            language: language.to_owned(),
            train: 4 * held,
            held,
            solved: true,
            rules: 2,
            train_identity_dist: 0,
            train_answer_dist: 0,
            held_identity_dist: held - identity,
            held_answer_dist: held - exact,
            held_identity_exact: identity,
            held_answer_exact: exact,
            held_won: exact.saturating_sub(identity),
            held_lost: identity.saturating_sub(exact),
        }
    }

    #[test]
    fn sweep_plot_draws_a_line_per_language_with_bars_and_the_identity() {
        let runs = vec![
            (
                "1".to_owned(),
                vec![row("tongan", 10, 4, 3), row("maori", 8, 2, 5)],
            ),
            (
                "half".to_owned(),
                vec![row("tongan", 10, 4, 6), row("maori", 8, 2, 8)],
            ),
        ];
        let svg = sweep_plot(&runs, 0.2);
        // Two lines and four error bars; two dashed levels and the dashed legend entry.
        assert_eq!(svg.matches("<path").count(), 2 + 4, "{svg}");
        assert_eq!(svg.matches("stroke-dasharray").count(), 2 + 1);
        insta::assert_snapshot!(svg.replace("><", ">\n<"));
    }
}
