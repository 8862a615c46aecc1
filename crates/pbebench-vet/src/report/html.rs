//! The self-contained HTML page: inline CSS and SVG, no script, no external resource.

use super::{LeaderRow, Regression, Report};
use crate::audit::{AuditFindings, Calibration, Findings, BASELINE_COLUMNS};
use crate::svg::escape;
use pbebench::{figure, Column, COLUMNS};
use std::fmt::Write as _;

const CSS: &str = r#"
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0; color: #1a1a1a; background: #fafafa; }
main { max-width: 1400px; box-sizing: border-box; margin: 0 auto; padding: 24px 32px 48px; background: #ffffff; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.25em; margin: 36px 0 10px; border-bottom: 2px solid #0072B2; padding-bottom: 4px; }
h3 { font-size: 1.05em; margin: 22px 0 8px; }
p.sub { color: #555555; margin: 0 0 16px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.92em; display: block; max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #d0d0d0; padding: 4px 9px; text-align: right; }
th { background: #eef3f8; }
td.l, th.l { text-align: left; }
#leaderboard td.l { white-space: nowrap; }
tr:nth-child(even) td { background: #f7f9fb; }
#leaderboard th.g { text-align: center; background: #dde7f1; }
span.ci { display: block; font-size: 0.82em; color: #555555; white-space: nowrap; }
details { margin: 0 0 16px; }
summary { cursor: pointer; color: #0072B2; }
div.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); gap: 0 28px; }
figure { margin: 18px 0 28px; min-width: 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #e4e4e4; }
figcaption { color: #444444; font-size: 0.9em; max-width: 760px; margin-top: 6px; }
.warn { background: #fff6dd; border: 1px solid #e6c65c; padding: 8px 14px; margin: 12px 0; }
.pass { color: #0b7a3b; font-weight: bold; }
.fail { color: #b00020; font-weight: bold; }
ul.ex { margin: 2px 0 10px; font-size: 0.88em; color: #333333; }
code { font-size: 0.92em; }
footer { margin-top: 36px; font-size: 0.85em; color: #666666; }
"#;

fn cost(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |c| format!("{c:.4}"))
}

/// The whole page.
pub(super) fn page(r: &Report) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{t}</title>\n<style>{CSS}{dstyle}</style>\n</head>\n<body>\n<main>\n<h1>{t}</h1>\n<p class=\"sub\">pbebench {v} · {n} result set(s) · {f} figure(s)</p>\n",
        t = escape(&r.title),
        dstyle = pbebench::derivation::HTML_STYLE,
        v = env!("CARGO_PKG_VERSION"),
        n = r.leaderboard.len() + r.input.reorder.len(),
        f = r.figures.len(),
    );
    if !r.warnings.is_empty() {
        h.push_str("<div class=\"warn\"><strong>Warnings</strong><ul>");
        for w in &r.warnings {
            let _ = write!(h, "<li>{}</li>", escape(w));
        }
        h.push_str("</ul></div>\n");
    }
    // Reordering results alone have no leaderboard of synthesis figures to show.
    if !r.leaderboard.is_empty() || r.input.reorder.is_empty() {
        h.push_str("<h2>Leaderboard</h2>\n");
        leaderboard(&mut h, &r.leaderboard);
        super::strategies::html(&mut h, &r.strategies);
        by_length_table(&mut h, r);
    }
    reordering(&mut h, &r.input.reorder);
    if !r.figures.is_empty() {
        h.push_str("<h2>Figures</h2>\n<div class=\"figures\">\n");
        for fig in &r.figures {
            let _ = write!(
                h,
                "<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
                fig.svg,
                escape(&fig.caption)
            );
        }
        h.push_str("</div>\n");
    }
    if !r.transcripts().is_empty() {
        h.push_str("<h2>Episodes</h2>\n<p>A few episodes of the interactive runs, as <code>pbebench show RUN --id ID --sample K</code> prints them: every message, tool call and result.</p>\n<ul>\n");
        for (k, t) in r.transcripts().iter().enumerate() {
            let _ = writeln!(
                h,
                "<li><a href=\"{}\">{} · {} · sample {}</a></li>",
                super::Transcript::file(k),
                escape(&t.label),
                escape(&t.instance_id),
                t.sample
            );
        }
        h.push_str("</ul>\n");
    }
    derivations(&mut h, &r.derivations);
    if !r.regressions.is_empty() {
        h.push_str("<h2>What makes an instance hard? Logistic regression</h2>\n<p>Pass (chosen answer) regressed on the gold cascade length and the four relation flags of the gold category, fitted by Newton's method (IRLS); standard errors from the inverse information, Wald z and two-sided normal p-values, as statsmodels' <code>Logit</code> reports them. Coefficients are log-odds per unit.</p>\n");
        for reg in &r.regressions {
            regression(&mut h, reg);
        }
    }
    if let Some(a) = &r.input.audit {
        audit(&mut h, a);
    }
    if !r.input.generation.is_empty() {
        h.push_str("<h2>Generation</h2>\n<table><tr><th class=\"l\">statistics</th><th>patience</th><th>attempts</th><th>accepted</th><th>efficiency</th><th>KL overall</th><th>seconds</th></tr>\n");
        for g in &r.input.generation {
            let _ = writeln!(
                h,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td><td>{}</td><td>{}</td></tr>",
                escape(&g.path.display().to_string()),
                g.patience.map_or("–".to_owned(), |p| p.to_string()),
                g.attempts,
                g.accepted,
                g.efficiency,
                if g.kl_overall.is_finite() { format!("{:.4}", g.kl_overall) } else { "–".into() },
                g.seconds.map_or("–".to_owned(), |s| format!("{s:.2}")),
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str("<footer><p>Inputs:</p><ul>");
    for s in &r.sources {
        let _ = write!(h, "<li><code>{}</code></li>", escape(s));
    }
    h.push_str("</ul><p>Self-contained: no scripts, no network. Every figure is also saved as an SVG file beside this page, and the tables as report.json and leaderboard.md.</p></footer>\n</main>\n</body>\n</html>\n");
    h
}

/// The derivations section (nothing when there are none).
fn derivations(h: &mut String, shown: &[super::ShownDerivation]) {
    if shown.is_empty() {
        return;
    }
    h.push_str("<h2>Derivations</h2>\n<p>A few instances as a historical linguist would write them (<code>pbebench derive --dataset D --id ID</code>): one row per rule, one column per word, each cell the form after that rule, the cells it changed highlighted, and each rule's feeding and bleeding relations named. The gold cascade comes first, then the answer; the expected row holds the gold's outputs and marks the answer's misses.</p>\n");
    for d in shown {
        let _ = writeln!(
            h,
            "<h3><code>{}</code> · {}: {}</h3>\n<p>Gold</p>\n{}<p>Answer of {}</p>\n{}",
            escape(&d.instance_id),
            escape(&d.label),
            escape(d.verdict.text()),
            d.gold.to_html_table(),
            escape(&d.label),
            d.answer.to_html_table(),
        );
    }
}

/// The leaderboard's headers: the results, their size, every figure of
/// [`pbebench::COLUMNS`], and the cost.
fn headers() -> Vec<&'static str> {
    let mut headers = vec!["results", "instances", "samples"];
    headers.extend(COLUMNS.iter().map(|c| c.header));
    headers.push("cost");
    headers
}

/// The results' label, marked `≈` when tied with the row above.
fn label(row: &LeaderRow) -> String {
    let mut label = row.label.clone();
    if let Some(strategy) = &row.strategy {
        label.push_str(&format!(" · {strategy}"));
    }
    if row.tied_with_above {
        label.push_str(" ≈");
    }
    label
}

fn cells(row: &LeaderRow) -> Vec<String> {
    let o = &row.overall;
    let mut cells = vec![label(row), o.instances.to_string(), o.samples.to_string()];
    cells.extend(COLUMNS.iter().map(|c| match o.interval(c) {
        Some(i) => format!("{} {}", c.cell(o), i.bounds()),
        None => c.cell(o),
    }));
    cells.push(cost(row.cost));
    cells
}

/// The page's leaderboard shows these groups of columns; the other columns of
/// [`COLUMNS`] are folded below it (so that a new column lands there without an edit
/// here, and the table fits a 1400-pixel page).
const GROUPS: [(&str, &[Column]); 3] = [
    (
        "fits the examples",
        &[Column::PASS_AT_1, Column::BEST_OF_K, Column::EDIT_SIM],
    ),
    (
        "recovers the rule",
        &[Column::RECOVERED_AT_1, Column::BEHAVIOUR],
    ),
    (
        "vetted reward, per sample",
        &[Column::MEAN_REWARD, Column::RESOLVED],
    ),
];

/// The columns of [`COLUMNS`] in no group of [`GROUPS`], in their order.
fn folded() -> Vec<Column> {
    let grouped = |c: &Column| {
        GROUPS
            .iter()
            .any(|(_, cs)| cs.iter().any(|g| g.key == c.key))
    };
    COLUMNS.iter().filter(|c| !grouped(c)).copied().collect()
}

/// A figure's cell on the page: the figure, and its 95% interval on a line below.
fn figure_cell(c: &Column, o: &pbebench::Aggregate) -> String {
    match o.interval(c) {
        Some(i) => format!(
            "<td>{}<span class=\"ci\">{}</span></td>",
            c.cell(o),
            i.bounds()
        ),
        None => format!("<td>{}</td>", c.cell(o)),
    }
}

/// What each figure is, from [`pbebench::COLUMNS`], and how its interval and a tie are
/// read.
fn legend() -> String {
    let mut items: Vec<String> = COLUMNS
        .iter()
        .map(|c| format!("{}: {}.", c.header, c.meaning))
        .collect();
    items.push(
        "[lo, hi]: the 95% interval (Wilson's where each instance gives one 0/1 outcome, \
         else the mean ± 1.96 standard errors of the per-instance means). ≈: a best-of-K \
         that cannot be told apart from the row above's (the 95% interval of the \
         difference, paired by instance where both have per-instance lines, holds 0)."
            .to_owned(),
    );
    format!(
        "<details><summary>What the columns mean</summary><p>{}</p></details>\n",
        escape(&items.join(" "))
    )
}

fn leaderboard(h: &mut String, rows: &[LeaderRow]) {
    h.push_str("<table id=\"leaderboard\">\n<tr><th class=\"l\" rowspan=\"2\">results</th><th rowspan=\"2\">instances</th><th rowspan=\"2\">samples</th>");
    for (name, columns) in GROUPS {
        let _ = write!(
            h,
            "<th class=\"g\" colspan=\"{}\">{}</th>",
            columns.len(),
            escape(name)
        );
    }
    h.push_str("<th rowspan=\"2\">cost</th></tr>\n<tr>");
    for c in GROUPS.iter().flat_map(|(_, cs)| cs.iter()) {
        let _ = write!(h, "<th>{}</th>", escape(c.header));
    }
    h.push_str("</tr>\n");
    for row in rows {
        let o = &row.overall;
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td>",
            escape(&label(row)),
            o.instances,
            o.samples
        );
        for c in GROUPS.iter().flat_map(|(_, cs)| cs.iter()) {
            h.push_str(&figure_cell(c, o));
        }
        let _ = writeln!(h, "<td>{}</td></tr>", cost(row.cost));
    }
    h.push_str("</table>\n");
    let more = folded();
    if !more.is_empty() {
        let names: Vec<&str> = more.iter().map(|c| c.header).collect();
        let _ = write!(
            h,
            "<details><summary>More columns: {}</summary>\n<table id=\"leaderboard-more\">\n<tr><th class=\"l\">results</th>",
            escape(&names.join(", "))
        );
        for c in &more {
            let _ = write!(h, "<th>{}</th>", escape(c.header));
        }
        h.push_str("</tr>\n");
        for row in rows {
            let _ = write!(h, "<tr><td class=\"l\">{}</td>", escape(&label(row)));
            for c in &more {
                h.push_str(&figure_cell(c, &row.overall));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n</details>\n");
    }
    h.push_str(&legend());
}

/// The leaderboard as Markdown.
pub(super) fn leaderboard_markdown(rows: &[LeaderRow]) -> String {
    let mut s = format!(
        "| {} |\n|{}\n",
        headers().join(" | "),
        "---|".repeat(headers().len())
    );
    for row in rows {
        let _ = writeln!(s, "| {} |", cells(row).join(" | "));
    }
    s.push_str(
        "\n[lo, hi]: 95% interval. ≈: best-of-K cannot be told apart from the row above's \
         (the 95% interval of the difference holds 0).\n",
    );
    s
}

fn by_length_table(h: &mut String, r: &Report) {
    let results = &r.input.results;
    let lengths: std::collections::BTreeSet<usize> = results
        .iter()
        .flat_map(|x| x.summary.by_cascade_len.keys().copied())
        .collect();
    if lengths.is_empty() {
        return;
    }
    h.push_str("<h3>Pass@1 / Recovered@1 by gold cascade length (± one standard error)</h3>\n<table><tr><th class=\"l\">results</th>");
    for l in &lengths {
        let _ = write!(h, "<th>{l}</th>");
    }
    h.push_str("</tr>\n");
    for x in results {
        let _ = write!(h, "<tr><td class=\"l\">{}</td>", escape(&x.label));
        for l in &lengths {
            match x.summary.by_cascade_len.get(l) {
                Some(a) => {
                    let _ = write!(
                        h,
                        "<td>{} / {}</td>",
                        Column::PASS_AT_1.cell_with_se(a),
                        Column::RECOVERED_AT_1.cell_with_se(a)
                    );
                }
                None => h.push_str("<td>–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// The reordering section (nothing without reordering results): per results set, its
/// rates overall and by gold cascade length, each with its 95% interval.
fn reordering(h: &mut String, sets: &[crate::ReorderSet]) {
    if sets.is_empty() {
        return;
    }
    h.push_str("<h2>Rule reordering</h2>\n<p>The solver is given the gold rules in a scrambled order and returns an order. Accuracy: the order reproduces every example; exact: it is the gold order; valid: it is a permutation of the rules' numbers. A problem without an answer counts as a failure.</p>\n<table id=\"reordering\">\n<tr><th class=\"l\">results</th><th class=\"l\">group</th><th>problems</th><th>answered</th><th>accuracy</th><th>exact</th><th>valid</th><th>cost</th></tr>\n");
    for set in sets {
        let rows = (set.summary.rows.iter())
            .filter(|row| row.group == "all" || row.group.starts_with("length "));
        for (k, row) in rows.enumerate() {
            let _ = write!(
                h,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>",
                if k == 0 {
                    escape(&set.label)
                } else {
                    String::new()
                },
                escape(&row.group),
                row.n,
                row.answered
            );
            for rate in [&row.accuracy, &row.exact, &row.valid] {
                h.push_str(&match rate {
                    Some(i) => format!(
                        "<td>{}<span class=\"ci\">{}</span></td>",
                        figure(Some(i.mean)),
                        i.bounds()
                    ),
                    None => "<td>–</td>".to_owned(),
                });
            }
            let _ = writeln!(
                h,
                "<td>{}</td></tr>",
                if k == 0 {
                    cost(set.cost)
                } else {
                    String::new()
                }
            );
        }
    }
    h.push_str("</table>\n<p>[lo, hi]: the 95% interval (Wilson's where each problem gives one 0/1 outcome, else the mean ± 1.96 standard errors of the per-problem means).</p>\n");
}

fn regression(h: &mut String, reg: &Regression) {
    let _ = writeln!(h, "<h3>{}</h3>", escape(&reg.label));
    match &reg.fit {
        Err(why) => {
            let _ = writeln!(h, "<p>No fit: {}.</p>", escape(why));
        }
        Ok(f) if f.separation || !f.converged => {
            let _ = writeln!(
                h,
                "<p>No reliable estimates: the outcome is (quasi-)separated, so the maximum-likelihood coefficients diverge ({} iterations{}; n = {}, {} pass){}. The pass rates by length above tell the story instead; the diverging values are kept in report.json.</p>",
                f.iterations,
                if f.converged { "" } else { ", not converged" },
                f.n,
                f.positives,
                if reg.pure.is_empty() {
                    String::new()
                } else {
                    format!(
                        ". Predictor values with a single outcome: {}",
                        escape(&reg.pure.iter().take(6).cloned().collect::<Vec<_>>().join("; "))
                    )
                }
            );
        }
        Ok(f) => {
            h.push_str("<table><tr><th class=\"l\">term</th><th>coef</th><th>std err</th><th>z</th><th>P&gt;|z|</th></tr>\n");
            for k in 0..f.names.len() {
                let _ = writeln!(
                    h,
                    "<tr><td class=\"l\">{}</td><td>{:.4}</td><td>{:.4}</td><td>{:.3}</td><td>{}</td></tr>",
                    escape(&f.names[k]),
                    f.coef[k],
                    f.std_err[k],
                    f.z[k],
                    if f.p_value[k] < 1e-4 { format!("{:.1e}", f.p_value[k]) } else { format!("{:.4}", f.p_value[k]) }
                );
            }
            h.push_str("</table>\n");
            let mut notes = vec![format!(
                "n = {} ({} pass), log-likelihood {:.3}, pseudo-R² {:.3}, {} iterations{}",
                f.n,
                f.positives,
                f.log_likelihood,
                f.pseudo_r2,
                f.iterations,
                if f.converged {
                    ""
                } else {
                    " (did not converge)"
                }
            )];
            if !f.dropped.is_empty() {
                notes.push(format!("constant, left out: {}", f.dropped.join(", ")));
            }
            if reg.uncategorised > 0 {
                notes.push(format!(
                    "{} instances without a category left out",
                    reg.uncategorised
                ));
            }
            let _ = writeln!(h, "<p>{}.</p>", escape(&notes.join("; ")));
        }
    }
}

fn findings(h: &mut String, f: &Findings) {
    if f.examples.is_empty() {
        return;
    }
    h.push_str("<ul class=\"ex\">");
    for e in &f.examples {
        let _ = write!(
            h,
            "<li><code>{}</code>: {}</li>",
            escape(&e.id),
            escape(&e.detail)
        );
    }
    if f.count > f.examples.len() {
        let _ = write!(h, "<li>… and {} more</li>", f.count - f.examples.len());
    }
    h.push_str("</ul>\n");
}

fn audit(h: &mut String, a: &AuditFindings) {
    let _ = writeln!(
        h,
        "<h2>Audit of the dataset</h2>\n<p><code>{}</code>, {} instances: {}</p>",
        escape(&a.dataset),
        a.instances,
        if a.passed {
            "<span class=\"pass\">every gate passed</span>"
        } else {
            "<span class=\"fail\">a gate failed</span>"
        }
    );
    if let Some(v) = &a.verdict {
        audit_verdict(h, v, a.instances);
    }
    h.push_str(
        "<table><tr><th class=\"l\">gate</th><th>result</th><th>checked</th><th>failed</th></tr>\n",
    );
    for (name, g) in [
        (
            "gold: the hidden cascade reproduces every example",
            &a.gates.gold,
        ),
        (
            "dummy: empty answer / identity solve nothing, zero reward",
            &a.gates.dummy,
        ),
    ] {
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            if g.passed { "pass" } else { "fail" },
            if g.passed { "PASS" } else { "FAIL" },
            g.checked,
            g.failures.count
        );
    }
    h.push_str("</table>\n");
    findings(h, &a.gates.gold.failures);
    findings(h, &a.gates.dummy.failures);
    let _ = writeln!(
        h,
        "<p>The identity's mean fractional score is {:.3}: the vetted mean reward credits examples the gold cascade leaves unchanged, so this is its skill-free floor (Edit_Sim and the RL reward give the identity 0).</p>",
        a.gates.identity_fractional_floor
    );
    audit_shortcuts(h, a);
    audit_findings(h, a);
    if let Some(c) = &a.calibration {
        audit_calibration(h, c);
    }
}

/// The verdict's gates, one row each, and the flagged instances by reason.
fn audit_verdict(h: &mut String, v: &crate::audit::Verdict, instances: usize) {
    h.push_str(
        "<table><tr><th class=\"l\">verdict gate</th><th>result</th><th>share</th><th>allowed</th><th class=\"l\">what was measured</th></tr>\n",
    );
    for g in &v.gates {
        let (class, result) = match (g.value, g.passed) {
            (None, _) => ("", "not evaluated"),
            (Some(_), true) => ("pass", "PASS"),
            (Some(_), false) => ("fail", "FAIL"),
        };
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"{class}\">{result}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            escape(&g.gate),
            g.value.map_or_else(|| "–".to_owned(), crate::audit::percent),
            crate::audit::percent(g.threshold),
            escape(&g.line)
        );
    }
    h.push_str("</table>\n");
    let counts: Vec<String> = v
        .flag_counts
        .iter()
        .map(|(r, n)| format!("{} {n}", r.name()))
        .collect();
    let _ = writeln!(
        h,
        "<p>Flagged instances: {} of {instances} ({}); each with its reasons in <code>audit.json</code>.</p>",
        v.flagged.len(),
        escape(&counts.join(", "))
    );
}

/// The shortcut baselines' table.
fn audit_shortcuts(h: &mut String, a: &AuditFindings) {
    h.push_str("<h3>Shortcuts</h3>\n<table><tr><th class=\"l\">trivial solver</th>");
    for c in BASELINE_COLUMNS {
        let _ = write!(h, "<th>{}</th>", c.header);
    }
    h.push_str("</tr>\n");
    for b in &a.shortcuts.baselines {
        let _ = write!(
            h,
            "<tr><td class=\"l\">{} — {}</td>",
            escape(&b.name),
            escape(&b.description)
        );
        for (c, v) in BASELINE_COLUMNS.iter().zip(b.figures()) {
            match b.intervals.get(c.key) {
                Some(i) => {
                    let _ = write!(
                        h,
                        "<td>{}<span class=\"ci\">{}</span></td>",
                        figure(v),
                        i.bounds()
                    );
                }
                None => {
                    let _ = write!(h, "<td>{}</td>", figure(v));
                }
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// The findings' table, then their examples.
fn audit_findings(h: &mut String, a: &AuditFindings) {
    let s = &a.shortcuts.stated_length;
    let d = &a.duplicates;
    let l = &a.labels;
    h.push_str("<h3>Findings</h3>\n<table><tr><th class=\"l\">check</th><th>instances</th></tr>\n");
    let rows: Vec<(String, String, Option<&Findings>)> = vec![
        (
            "gold rules that change no example".into(),
            format!("{} of {}", s.redundant_rules.count, s.checked),
            Some(&s.redundant_rules),
        ),
        (
            "gold rules only held-out examples need".into(),
            format!("{} of {}", s.unpinned_rules.count, s.checked),
            Some(&s.unpinned_rules),
        ),
        (
            format!(
                "shortest found cascade ≤ {:.0}% of the stated length",
                s.ratio * 100.0
            ),
            format!("{} of {} solved", s.much_shorter.count, s.solved),
            Some(&s.much_shorter),
        ),
        (
            "identical instances (extra copies)".into(),
            d.identical.extra.to_string(),
            None,
        ),
        (
            "equal up to renaming the alphabet (extra copies)".into(),
            d.renamed.extra.to_string(),
            None,
        ),
        (
            "repeated examples inside an instance".into(),
            d.repeated_examples.count.to_string(),
            Some(&d.repeated_examples),
        ),
        (
            "held-out example repeats a visible one".into(),
            d.heldout_repeats_visible.count.to_string(),
            Some(&d.heldout_repeats_visible),
        ),
        (
            "contradictory examples".into(),
            d.contradictory.count.to_string(),
            Some(&d.contradictory),
        ),
        (
            "category differs between paper and exact relations".into(),
            format!("{} of {}", l.paper_vs_exact.count, l.checked),
            Some(&l.paper_vs_exact),
        ),
        (
            "stored category differs from recomputation".into(),
            l.stored_mismatch.count.to_string(),
            Some(&l.stored_mismatch),
        ),
    ];
    for (name, value, _) in &rows {
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td></tr>",
            escape(name),
            escape(value)
        );
    }
    h.push_str("</table>\n");
    for (name, _, f) in &rows {
        if let Some(f) = f {
            if !f.examples.is_empty() {
                let _ = writeln!(h, "<p>{}:</p>", escape(name));
                findings(h, f);
            }
        }
    }
}

/// The calibration over the panel.
fn audit_calibration(h: &mut String, c: &Calibration) {
    let flagged: Vec<String> = c
        .slices
        .iter()
        .filter_map(|s| {
            s.flag
                .as_ref()
                .map(|f| format!("{} {} ({f}, n = {})", s.kind, s.key, s.instances))
        })
        .collect();
    let _ = writeln!(
        h,
        "<h3>Calibration</h3>\n<p>Panel: {}. Slices where ≥ {:.0}% of instances are solved by every solver or by none: {}.</p>",
        escape(&c.panel.join(", ")),
        c.collapse * 100.0,
        if flagged.is_empty() { "none".to_owned() } else { escape(&flagged.join("; ")) }
    );
    h.push_str("<table><tr><th class=\"l\">slice</th><th>instances</th><th>mean score</th><th>solved by all</th><th>solved by none</th><th class=\"l\">flag</th></tr>\n");
    for s in &c.slices {
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{} {}</td><td>{}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td class=\"l\">{}</td></tr>",
            escape(&s.kind), escape(&s.key), s.instances, s.mean_score, s.solved_by_all, s.solved_by_none,
            s.flag.as_deref().unwrap_or("")
        );
    }
    h.push_str("</table>\n");
}
