//! The report's figures, each an SVG with a title and a caption.

use super::ReportInput;
use crate::results::ResultSet;
use crate::svg::{BarChart, Heatmap, LineChart, Series, XAxis};
use pbebench::interval::{self, Interval};
use pbebench::{Category, Column, InstanceScore, RelationMode, Relations};
use std::collections::{BTreeMap, BTreeSet};

/// One figure of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// File stem of its SVG (unique within the report).
    pub file: String,
    /// Heading.
    pub title: String,
    /// What it shows and how to read it.
    pub caption: String,
    /// The standalone `<svg>` element.
    pub svg: String,
}

/// Every figure the inputs allow, and warnings about those they do not.
pub(super) fn all(input: &ReportInput, mode: RelationMode) -> (Vec<Figure>, Vec<String>) {
    let mut figures = Vec::new();
    let mut warnings = Vec::new();
    if !input.results.is_empty() {
        for (file, column) in [
            ("pass_by_length", Column::PASS_AT_1),
            ("recovered_by_length", Column::RECOVERED_AT_1),
            ("behaviour_by_length", Column::BEHAVIOUR),
            ("edit_sim_by_length", Column::EDIT_SIM),
        ] {
            let defined = (input.results.iter())
                .flat_map(|r| r.summary.by_cascade_len.values())
                .any(|a| (column.value)(a).is_some());
            if defined {
                figures.push(by_length(&input.results, file, &column));
            }
        }
        figures.push(survival(&input.results));
        for (k, r) in input.results.iter().enumerate() {
            if let Some(list) = &r.instances {
                figures.push(length_confusion(k, &r.label, list));
                if list.iter().any(|s| s.category.is_some()) {
                    figures.push(category_confusion(k, &r.label, list, mode));
                }
            }
        }
    }
    let interactive: Vec<&ResultSet> = (input.results.iter())
        .filter(|r| r.episodes.as_ref().is_some_and(|e| !e.is_empty()))
        .collect();
    if !interactive.is_empty() {
        figures.push(recovered_by_probes(&interactive));
        figures.push(behaviour_survival(&interactive));
    }
    if let Some(c) = input.audit.as_ref().and_then(|a| a.calibration.as_ref()) {
        figures.push(Figure {
            file: "calibration_histogram".into(),
            title: "Instance difficulty over the panel".into(),
            caption: format!(
                "Per-instance mean fractional score over the audit's panel ({}), in ten bins. \
                 {} instances every solver scores 0 on, {} every solver resolves, {} in the useful range [0.2, 0.8].",
                c.panel.join(", "),
                c.all_zero,
                c.all_one,
                c.in_useful_range
            ),
            svg: BarChart {
                title: "Per-instance mean score over the panel".into(),
                x_label: "mean fractional score over the panel".into(),
                y_label: "instances".into(),
                categories: c
                    .histogram
                    .iter()
                    .map(|b| format!("{:.1}–{:.1}", b.lo, b.hi))
                    .collect(),
                series: vec![(
                    "instances".into(),
                    c.histogram.iter().map(|b| Some(b.count as f64)).collect(),
                )],
                y: None,
                annotate: true,
            }
            .render(),
        });
    }
    if !input.generation.is_empty() {
        figures.push(kl_by_length(&input.generation));
        let with: Vec<_> = input
            .generation
            .iter()
            .filter(|g| g.patience.is_some())
            .collect();
        let without: Vec<String> = input
            .generation
            .iter()
            .filter(|g| g.patience.is_none())
            .map(|g| g.path.display().to_string())
            .collect();
        if !without.is_empty() {
            warnings.push(format!(
                "no patience recorded in {} (left out of the efficiency plot)",
                without.join(", ")
            ));
        }
        if !with.is_empty() {
            figures.push(efficiency(&with));
        }
    }
    (figures, warnings)
}

/// The interval of a figure as an error bar.
fn bar(i: Option<&Interval>) -> Option<(f64, f64)> {
    i.map(|i| (i.lo, i.hi))
}

/// How the intervals drawn were computed, for captions: the methods met, by name.
fn methods_text<'a>(intervals: impl Iterator<Item = &'a Interval>) -> String {
    let methods: BTreeSet<&str> = intervals
        .map(|i| match i.method {
            interval::Method::Wilson => "Wilson's score interval",
            _ => "the mean ± 1.96 standard errors of the per-instance values",
        })
        .collect();
    if methods.is_empty() {
        "none could be computed (fewer than two instances)".to_owned()
    } else {
        methods.into_iter().collect::<Vec<_>>().join("; ")
    }
}

/// The aggregate of `r` at gold cascade length `len`.
fn at<'a>(r: &'a ResultSet, len: &usize) -> Option<&'a pbebench::Aggregate> {
    r.summary.by_cascade_len.get(len)
}

/// One figure of `column` by gold cascade length, one series per results set, each point
/// with its 95% interval.
fn by_length(results: &[ResultSet], file: &str, column: &Column) -> Figure {
    let lengths: BTreeSet<usize> = results
        .iter()
        .flat_map(|r| r.summary.by_cascade_len.keys().copied())
        .collect();
    let lengths: Vec<usize> = lengths.into_iter().collect();
    let series: Vec<Series> = results
        .iter()
        .map(|r| Series {
            name: r.label.clone(),
            points: (lengths.iter().enumerate())
                .map(|(k, len)| (k as f64, at(r, len).and_then(|a| (column.value)(a))))
                .collect(),
            bars: (lengths.iter())
                .map(|len| bar(at(r, len).and_then(|a| a.interval(column))))
                .collect(),
        })
        .collect();
    let lowest = series
        .iter()
        .flat_map(|s| s.points.iter().filter_map(|p| p.1))
        .chain(
            series
                .iter()
                .flat_map(|s| s.bars.iter().flatten().map(|b| b.0)),
        )
        .fold(0.0f64, f64::min);
    let y_min = if lowest < 0.0 {
        (lowest * 5.0).floor() / 5.0
    } else {
        0.0
    };
    let counts: Vec<String> = lengths
        .iter()
        .map(|len| {
            let n = results
                .iter()
                .filter_map(|r| at(r, len))
                .map(|a| a.instances)
                .max()
                .unwrap_or(0);
            format!("{len}: {n}")
        })
        .collect();
    let methods = methods_text(
        (results.iter())
            .flat_map(|r| r.summary.by_cascade_len.values())
            .filter_map(|a| a.interval(column)),
    );
    let title = format!("{} by cascade length", column.header);
    Figure {
        file: file.to_owned(),
        title: title.clone(),
        caption: format!(
            "{}: {}, over the instances of each gold cascade length (instances per length: {}). \
             Bars: 95% intervals ({methods}); two points whose bars overlap may not differ.{}",
            column.header,
            column.meaning,
            counts.join(", "),
            if y_min < 0.0 {
                " Edit_Sim below 0 means the answers moved the strings further from the outputs than doing nothing."
            } else {
                ""
            }
        ),
        svg: LineChart {
            title,
            x_label: "gold cascade length".into(),
            y_label: column.header.to_owned(),
            x: XAxis::Categories(lengths.iter().map(|l| l.to_string()).collect()),
            y: (y_min, 1.0),
            series,
            step: false,
            annotate: false,
        }
        .render(),
    }
}

/// The survival function `S(t)` of scores given per instance, each instance weighing one:
/// `S(t) = (1/N) Σ_j` (share of instance j's scores ≥ t), so that with one sample per
/// instance it is the share of instances scoring at least `t`, and with several it is
/// per sample as Pass@1 is (its value at 1 is the resolved rate, its area the mean
/// reward). Returns the series named `name` of step points for drawing "horizontal, then
/// vertical" over `t ∈ [0, 1]`, ending at `S(1)` (the resolved rate, not a drop to 0 at
/// 1), with each point's 95% interval ([`interval::rate`] over the instances' shares).
pub fn survival_curve(name: &str, per_instance: &[Vec<f64>]) -> Series {
    let per_instance: Vec<Vec<f64>> = (per_instance.iter())
        .filter(|scores| !scores.is_empty())
        .map(|scores| scores.iter().map(|s| s.clamp(0.0, 1.0)).collect())
        .collect();
    if per_instance.is_empty() {
        return Series::new(name, Vec::new());
    }
    let mut values: Vec<f64> = per_instance.iter().flatten().copied().collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    let at = |t: f64| -> (f64, Option<(f64, f64)>) {
        let shares: Vec<f64> = (per_instance.iter())
            .map(|scores| scores.iter().filter(|s| **s >= t).count() as f64 / scores.len() as f64)
            .collect();
        let unanimous = shares.iter().all(|v| *v == 0.0 || *v == 1.0);
        let value = shares.iter().sum::<f64>() / shares.len() as f64;
        (value, bar(interval::rate(&shares, unanimous).as_ref()))
    };
    // S is constant on (v_{j−1}, v_j] at S(v_j); it drops to S(v_{j+1}) just after v_j,
    // and to 0 after the highest value unless that is 1, where the curve ends.
    let mut points = Vec::new();
    let mut bars = Vec::new();
    let mut push = |x: f64, (y, b): (f64, Option<(f64, f64)>)| {
        points.push((x, Some(y)));
        bars.push(b);
    };
    push(0.0, at(values[0]));
    for (j, v) in values.iter().enumerate() {
        match values.get(j + 1) {
            Some(next) => push(*v, at(*next)),
            None if *v >= 1.0 => push(1.0, at(1.0)),
            None => {
                push(*v, at(f64::INFINITY));
                push(1.0, at(f64::INFINITY));
            }
        }
    }
    Series {
        name: name.to_owned(),
        points,
        bars,
    }
}

/// The fractional scores of every sample of an instance (its one score when it has no
/// sample line).
fn sample_scores(s: &InstanceScore) -> Vec<f64> {
    if s.samples.is_empty() {
        vec![s.score]
    } else {
        s.samples.iter().map(|x| x.score).collect()
    }
}

fn survival(results: &[ResultSet]) -> Figure {
    let series = results
        .iter()
        .map(|r| match &r.instances {
            Some(list) => survival_curve(
                &r.label,
                &list.iter().map(sample_scores).collect::<Vec<_>>(),
            ),
            None => Series::new(
                r.label.clone(),
                (r.summary.overall.survival.iter())
                    .map(|p| (p.threshold, Some(p.share)))
                    .collect(),
            ),
        })
        .collect();
    Figure {
        file: "survival".into(),
        title: "Survival of the fractional score".into(),
        caption: "Share of samples whose fractional score (share of the examples the gold changes \
             that are reproduced exactly) is at least each threshold, each instance weighing \
             one. The curve ends at its value at 1.0, the resolved rate; the area under it is \
             the mean reward. Shaded: the 95% interval at each threshold (Wilson's where every \
             instance's samples agree, else clustered by instance). A results set given only \
             as a summary is drawn from its 0.05 grid, of the chosen samples, without a band."
            .into(),
        svg: LineChart {
            title: "Survival of the fractional score".into(),
            x_label: "fractional score threshold t".into(),
            y_label: "share of samples with score ≥ t".into(),
            x: XAxis::Linear { min: 0.0, max: 1.0 },
            y: (0.0, 1.0),
            series,
            step: true,
            annotate: false,
        }
        .render(),
    }
}

fn length_confusion(k: usize, label: &str, list: &[InstanceScore]) -> Figure {
    let gold: BTreeSet<usize> = list.iter().map(|s| s.cascade_len).collect();
    let gold: Vec<usize> = gold.into_iter().collect();
    let widest = list.iter().map(|s| s.cascade.len()).max().unwrap_or(0);
    let mut cells = vec![vec![0u64; widest + 1]; gold.len()];
    for s in list {
        let row = gold.binary_search(&s.cascade_len).expect("collected above");
        cells[row][s.cascade.len()] += 1;
    }
    let exact = list
        .iter()
        .filter(|s| s.cascade.len() == s.cascade_len)
        .count();
    let passing_shorter = list
        .iter()
        .filter(|s| s.pass && s.cascade.len() < s.cascade_len)
        .count();
    Figure {
        file: format!("confusion_length_{k}"),
        title: format!("Predicted vs gold cascade length — {label}"),
        caption: format!(
            "Rows: gold cascade length; columns: rules in the chosen answer (its valid rules; 0 for no \
             answer). Colour is the share of the row. {exact} of {} answers have the gold length; \
             {passing_shorter} pass with fewer rules than the gold cascade.",
            list.len()
        ),
        svg: Heatmap {
            title: format!("Cascade length: {label}"),
            x_label: "predicted length (rules in the answer)".into(),
            y_label: "gold cascade length".into(),
            x_labels: (0..=widest).map(|l| l.to_string()).collect(),
            y_labels: gold.iter().map(|l| l.to_string()).collect(),
            cells,
        }
        .render(),
    }
}

fn category_confusion(k: usize, label: &str, list: &[InstanceScore], mode: RelationMode) -> Figure {
    let mut cells = vec![vec![0u64; 16]; 16];
    let mut same = 0;
    let mut n = 0;
    for s in list {
        let Some(gold) = s.category else { continue };
        let predicted: Category = Relations::of(&s.cascade, mode).category();
        cells[gold.index()][predicted.index()] += 1;
        n += 1;
        same += usize::from(gold == predicted);
    }
    let labels: Vec<String> = Category::ALL.iter().map(|c| c.to_string()).collect();
    Figure {
        file: format!("confusion_category_{k}"),
        title: format!("Predicted vs gold category — {label}"),
        caption: format!(
            "Rows: gold category (bits F B CF CB); columns: the category of the chosen answer's \
             cascade under {mode} relations. Colour is the share of the row. {same} of {n} answers \
             have the gold category."
        ),
        svg: Heatmap {
            title: format!("Relation category: {label}"),
            x_label: "predicted category (F B CF CB)".into(),
            y_label: "gold category (F B CF CB)".into(),
            x_labels: labels.clone(),
            y_labels: labels,
            cells,
        }
        .render(),
    }
}

fn generation_name(g: &crate::genstats::GenerationStats) -> String {
    match g.patience {
        Some(p) => format!("{} (patience {p})", g.name.as_deref().unwrap_or(&g.label)),
        None => g.label.clone(),
    }
}

fn kl_by_length(generation: &[crate::genstats::GenerationStats]) -> Figure {
    let lengths: BTreeSet<usize> = generation
        .iter()
        .flat_map(|g| g.kl_by_length.keys().copied())
        .collect();
    let mut categories: Vec<String> = lengths.iter().map(|l| l.to_string()).collect();
    categories.push("all".into());
    let series = generation
        .iter()
        .map(|g| {
            let mut v: Vec<Option<f64>> = lengths
                .iter()
                .map(|l| g.kl_by_length.get(l).copied())
                .collect();
            v.push(Some(g.kl_overall).filter(|x| x.is_finite()));
            (generation_name(g), v)
        })
        .collect();
    Figure {
        file: "kl_by_length".into(),
        title: "Category balance by cascade length".into(),
        caption: "KL divergence D(U ‖ Q) of the accepted instances' category distribution Q from \
                  uniform over the 16 categories, with add-one smoothing; 0 is perfect balance, \
                  ln 16 ≈ 2.77 is everything in one category (before smoothing)."
            .into(),
        svg: BarChart {
            title: "Category balance (KL from uniform) by length".into(),
            x_label: "cascade length".into(),
            y_label: "KL divergence (nats)".into(),
            categories,
            series,
            y: None,
            annotate: generation.len() <= 2,
        }
        .render(),
    }
}

fn efficiency(with: &[&crate::genstats::GenerationStats]) -> Figure {
    let patiences: Vec<u64> = with
        .iter()
        .filter_map(|g| g.patience)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut groups: BTreeMap<String, Vec<&crate::genstats::GenerationStats>> = BTreeMap::new();
    for g in with {
        groups
            .entry(g.name.clone().unwrap_or_else(|| g.label.clone()))
            .or_default()
            .push(g);
    }
    let series: Vec<Series> = groups
        .iter()
        .map(|(name, gs)| {
            let at = |p: &u64| gs.iter().find(|g| g.patience == Some(*p));
            Series {
                name: name.clone(),
                points: (patiences.iter().enumerate())
                    .map(|(k, p)| (k as f64, at(p).map(|g| g.efficiency * 100.0)))
                    .collect(),
                bars: (patiences.iter())
                    .map(|p| {
                        let g = at(p)?;
                        let w = interval::wilson(
                            usize::try_from(g.accepted).ok()?,
                            usize::try_from(g.attempts).ok()?,
                        )?;
                        Some((w.lo * 100.0, w.hi * 100.0))
                    })
                    .collect(),
            }
        })
        .collect();
    let top = (series.iter())
        .flat_map(|s| s.bars.iter().flatten().map(|b| b.1))
        .chain(with.iter().map(|g| g.efficiency * 100.0))
        .fold(0.0, f64::max);
    let rows: Vec<String> = with
        .iter()
        .map(|g| {
            format!(
                "patience {}: {} accepted of {} attempts",
                g.patience.unwrap_or(0),
                g.accepted,
                g.attempts
            )
        })
        .collect();
    Figure {
        file: "efficiency_vs_patience".into(),
        title: "Generation efficiency vs patience".into(),
        caption: format!(
            "Accepted instances per attempt (%) as the patience τ (attempts during which category \
             quotas are enforced) grows; more patience buys balance with attempts. Bars: Wilson's \
             95% interval of the share accepted. {}.",
            rows.join("; ")
        ),
        svg: LineChart {
            title: "Generation efficiency vs patience".into(),
            x_label: "patience τ (attempts with quotas enforced)".into(),
            y_label: "efficiency (% of attempts accepted)".into(),
            x: XAxis::Categories(patiences.iter().map(|p| p.to_string()).collect()),
            y: (
                0.0,
                if top > 0.0 {
                    (top * 1.15).min(100.0).max(top)
                } else {
                    1.0
                },
            ),
            series,
            step: false,
            annotate: true,
        }
        .render(),
    }
}

/// The bins of probes used: 0, then 1–5, 6–10, … up to the most any episode used.
fn probe_bins(most: usize) -> Vec<(usize, usize)> {
    let mut bins = vec![(0, 0)];
    let mut lo = 1;
    while lo <= most {
        bins.push((lo, lo + 4));
        lo += 5;
    }
    bins
}

/// The per-instance shares of `episodes` meeting `hit` (episodes where it is `None` left
/// out), each instance weighing one, and their 95% interval ([`interval::rate`]):
/// episodes of one instance are not independent.
fn clustered_share(
    episodes: &[&pbebench_eval::EpisodeGrade],
    hit: impl Fn(&pbebench_eval::EpisodeGrade) -> Option<bool>,
) -> (Option<f64>, Option<(f64, f64)>) {
    let mut by_instance: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for e in episodes {
        if let Some(h) = hit(e) {
            let c = by_instance.entry(e.instance_id.as_str()).or_default();
            c.0 += 1;
            c.1 += usize::from(h);
        }
    }
    let shares: Vec<f64> = (by_instance.values())
        .map(|(n, hits)| *hits as f64 / *n as f64)
        .collect();
    if shares.is_empty() {
        return (None, None);
    }
    let unanimous = shares.iter().all(|v| *v == 0.0 || *v == 1.0);
    let share = shares.iter().sum::<f64>() / shares.len() as f64;
    (
        Some(share),
        bar(interval::rate(&shares, unanimous).as_ref()),
    )
}

/// Recovered@1 of the episodes in each bin of probes used, per interactive run, each
/// instance weighing one, with its 95% interval: the series named `name`.
pub fn recovered_by_probes_points(
    name: &str,
    episodes: &[pbebench_eval::EpisodeGrade],
    bins: &[(usize, usize)],
) -> Series {
    let (points, bars) = bins
        .iter()
        .enumerate()
        .map(|(k, (lo, hi))| {
            let in_bin: Vec<&pbebench_eval::EpisodeGrade> = (episodes.iter())
                .filter(|e| (*lo..=*hi).contains(&e.probes_used))
                .collect();
            let (share, bar) = clustered_share(&in_bin, |e| e.recovered);
            ((k as f64, share), bar)
        })
        .unzip();
    Series {
        name: name.to_owned(),
        points,
        bars,
    }
}

fn recovered_by_probes(results: &[&ResultSet]) -> Figure {
    let episodes = |r: &ResultSet| r.episodes.clone().unwrap_or_default();
    let most = (results.iter())
        .flat_map(|r| episodes(r).into_iter().map(|e| e.probes_used))
        .max()
        .unwrap_or(0);
    let bins = probe_bins(most);
    let label = |(lo, hi): &(usize, usize)| {
        if lo == hi {
            lo.to_string()
        } else {
            format!("{lo}–{hi}")
        }
    };
    let counts: Vec<String> = (results.iter())
        .map(|r| {
            let list = episodes(r);
            let per_bin: Vec<String> = (bins.iter())
                .map(|(lo, hi)| {
                    let n = (list.iter())
                        .filter(|e| (*lo..=*hi).contains(&e.probes_used))
                        .count();
                    format!("{}: {n}", label(&(*lo, *hi)))
                })
                .collect();
            format!("{} ({})", r.label, per_bin.join(", "))
        })
        .collect();
    let title = "Recovered@1 against probes used";
    Figure {
        file: "recovered_by_probes".into(),
        title: title.into(),
        caption: format!(
            "Interactive runs: the share of episodes whose final cascade is equivalent to the gold \
             on the instance's whole input space, among the episodes that used each number of \
             probes, each instance weighing one (episodes per bin: {}). Bars: 95% intervals \
             (Wilson's where each instance's episodes agree, else clustered by instance). A \
             point is missing where a bin has no graded episode.",
            counts.join("; ")
        ),
        svg: LineChart {
            title: title.into(),
            x_label: "probe inputs used in the episode".into(),
            y_label: "Recovered@1".into(),
            x: XAxis::Categories(bins.iter().map(label).collect()),
            y: (0.0, 1.0),
            series: (results.iter())
                .map(|r| recovered_by_probes_points(&r.label, &episodes(r), &bins))
                .collect(),
            step: false,
            annotate: true,
        }
        .render(),
    }
}

fn behaviour_survival(results: &[&ResultSet]) -> Figure {
    // Each instance's episodes' scores, in instance order.
    let scores = |r: &ResultSet| -> Vec<Vec<f64>> {
        let mut by_instance: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for e in r.episodes.iter().flatten() {
            if let Some(b) = e.behaviour {
                by_instance
                    .entry(e.instance_id.as_str())
                    .or_default()
                    .push(b);
            }
        }
        by_instance.into_values().collect()
    };
    let counts: Vec<String> = (results.iter())
        .map(|r| {
            format!(
                "{}: {}",
                r.label,
                scores(r).iter().map(Vec::len).sum::<usize>()
            )
        })
        .collect();
    let title = "Survival of the behaviour score";
    Figure {
        file: "behaviour_survival".into(),
        title: title.into(),
        caption: format!(
            "Interactive runs: the share of episodes whose behaviour score (agreement with the \
             gold on the inputs the gold changes, exact over the input space) is at least each \
             threshold, each instance weighing one; the curve ends at its value at 1.0, the share \
             that behaves as the gold wherever it changes an input. Shaded: the 95% interval \
             at each threshold, clustered by instance. Episodes with a score: {}.",
            counts.join(", ")
        ),
        svg: LineChart {
            title: title.into(),
            x_label: "behaviour threshold t".into(),
            y_label: "share of episodes with behaviour ≥ t".into(),
            x: XAxis::Linear { min: 0.0, max: 1.0 },
            y: (0.0, 1.0),
            series: (results.iter())
                .map(|r| survival_curve(&r.label, &scores(r)))
                .collect(),
            step: true,
            annotate: false,
        }
        .render(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(curve: &Series) -> Vec<(f64, f64)> {
        curve.points.iter().map(|(x, y)| (*x, y.unwrap())).collect()
    }

    #[test]
    fn survival_follows_the_definition_and_ends_at_the_resolved_rate() {
        // Scores 0, 0.4, 0.4, 1: S(t) = 1 for t ≤ 0, 3/4 on (0, 0.4], 1/4 on (0.4, 1].
        // The curve ends at S(1) = 1/4, the resolved rate, not in a drop to 0 at 1.
        let one = |v: &[f64]| v.iter().map(|x| vec![*x]).collect::<Vec<_>>();
        let curve = survival_curve("s", &one(&[0.0, 0.4, 1.0, 0.4]));
        assert_eq!(
            points(&curve),
            vec![(0.0, 1.0), (0.0, 0.75), (0.4, 0.25), (1.0, 0.25)]
        );
        // Each point's band is Wilson's interval of its share of the four instances.
        let wilson = |k| interval::wilson(k, 4).map(|w| (w.lo, w.hi));
        assert_eq!(curve.bars, vec![wilson(4), wilson(3), wilson(1), wilson(1)]);
        // No instance at 1: the curve drops to 0 after the highest score and stays there.
        let curve = survival_curve("s", &one(&[0.5]));
        assert_eq!(points(&curve), vec![(0.0, 1.0), (0.5, 0.0), (1.0, 0.0)]);
        assert!(survival_curve("s", &[]).points.is_empty());
    }

    #[test]
    fn survival_with_several_samples_is_per_sample_and_clustered() {
        // Instance a: samples 1 and 0; instance b: 1 and 1. S(1) = (1/2 + 1)/2 = 0.75, the
        // per-sample resolved rate (best-of-K would say 1).
        let curve = survival_curve("s", &[vec![1.0, 0.0], vec![1.0, 1.0]]);
        assert_eq!(points(&curve), vec![(0.0, 1.0), (0.0, 0.75), (1.0, 0.75)]);
        let clustered = interval::clustered(&[0.5, 1.0]).map(|i| (i.lo, i.hi));
        assert_eq!(curve.bars[2], clustered);
    }

    #[test]
    fn recovered_by_probes_counts_each_bin() {
        assert_eq!(probe_bins(0), vec![(0, 0)]);
        assert_eq!(probe_bins(11), vec![(0, 0), (1, 5), (6, 10), (11, 15)]);
        let e = |id: &str, probes_used, recovered| pbebench_eval::EpisodeGrade {
            instance_id: id.into(),
            sample: 0,
            end_reason: "submit".into(),
            final_source: "submitted".into(),
            final_cascade: pbebench::Cascade::default(),
            probes_used,
            tests: 0,
            turns: 1,
            prompt_tokens: 0,
            completion_tokens: 0,
            cost: 0.0,
            pass: false,
            heldout_pass: None,
            heldout_unprobed: 0,
            heldout_excluded: 0,
            recovered,
            behaviour: None,
        };
        // Bin 0: one of two instances recovered; 1–5: none graded; 6–10: instance c's two
        // episodes (one recovered) weigh as much as instance d's one (recovered), an
        // undecided one left out: (1/2 + 1) / 2.
        let list = [
            e("a", 0, Some(true)),
            e("b", 0, Some(false)),
            e("a", 3, None),
            e("c", 6, Some(true)),
            e("c", 10, Some(false)),
            e("d", 7, Some(true)),
        ];
        let series = recovered_by_probes_points("r", &list, &probe_bins(10));
        assert_eq!(
            series.points,
            vec![(0.0, Some(0.5)), (1.0, None), (2.0, Some(0.75))]
        );
        let w = interval::wilson(1, 2).unwrap();
        let c = interval::clustered(&[0.5, 1.0]).unwrap();
        assert_eq!(
            series.bars,
            vec![Some((w.lo, w.hi)), None, Some((c.lo, c.hi))]
        );
    }
}
