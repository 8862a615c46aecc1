//! The report's figures, each an SVG with a title and a caption.

use super::ReportInput;
use crate::results::ResultSet;
use crate::svg::{BarChart, Heatmap, LineChart, Series, XAxis};
use pbebench::{Aggregate, InstanceScore};
use pbebench::{Category, RelationMode, Relations};
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
        figures.push(by_length(
            &input.results,
            "pass_by_length",
            "best-of-K by cascade length",
            "best-of-K",
            |a| a.best_of_k,
        ));
        figures.push(by_length(
            &input.results,
            "edit_sim_by_length",
            "Edit_Sim by cascade length",
            "Edit_Sim (character)",
            |a| a.edit_sim,
        ));
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

fn by_length(
    results: &[ResultSet],
    file: &str,
    title: &str,
    y_label: &str,
    value: fn(&Aggregate) -> f64,
) -> Figure {
    let lengths: BTreeSet<usize> = results
        .iter()
        .flat_map(|r| r.summary.by_cascade_len.keys().copied())
        .collect();
    let lengths: Vec<usize> = lengths.into_iter().collect();
    let series: Vec<Series> = results
        .iter()
        .map(|r| Series {
            name: r.label.clone(),
            points: lengths
                .iter()
                .enumerate()
                .map(|(k, len)| (k as f64, r.summary.by_cascade_len.get(len).map(value)))
                .collect(),
        })
        .collect();
    let lowest = series
        .iter()
        .flat_map(|s| s.points.iter().filter_map(|p| p.1))
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
                .filter_map(|r| r.summary.by_cascade_len.get(len))
                .map(|a| a.instances)
                .max()
                .unwrap_or(0);
            format!("{len}: {n}")
        })
        .collect();
    Figure {
        file: file.to_owned(),
        title: title.to_owned(),
        caption: format!(
            "{y_label} of the chosen sample, averaged over the instances of each gold cascade length \
             (instances per length: {}).{}",
            counts.join(", "),
            if y_min < 0.0 {
                " Edit_Sim below 0 means the answers moved the strings further from the outputs than doing nothing."
            } else {
                ""
            }
        ),
        svg: LineChart {
            title: title.to_owned(),
            x_label: "gold cascade length".into(),
            y_label: y_label.to_owned(),
            x: XAxis::Categories(lengths.iter().map(|l| l.to_string()).collect()),
            y: (y_min, 1.0),
            series,
            step: false,
            annotate: false,
        }
        .render(),
    }
}

/// Step points of the survival function `S(t) = share of instances with score ≥ t` for
/// drawing "horizontal, then vertical" from point to point over `t ∈ [0, 1]`.
pub fn survival_steps(scores: &[f64]) -> Vec<(f64, Option<f64>)> {
    if scores.is_empty() {
        return Vec::new();
    }
    let n = scores.len() as f64;
    let mut values: Vec<f64> = scores.iter().map(|s| s.clamp(0.0, 1.0)).collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    let share_at_least = |t: f64| scores.iter().filter(|s| **s >= t).count() as f64 / n;
    // S is constant on (v_{j−1}, v_j] at S(v_j); drop to S(v_{j+1}) just after v_j.
    let mut points = vec![(0.0, Some(share_at_least(values[0])))];
    for (j, v) in values.iter().enumerate() {
        let after = values.get(j + 1).map_or(0.0, |next| share_at_least(*next));
        points.push((*v, Some(after)));
    }
    if values.last() != Some(&1.0) {
        points.push((1.0, Some(0.0)));
    }
    points
}

fn survival(results: &[ResultSet]) -> Figure {
    let series = results
        .iter()
        .map(|r| Series {
            name: r.label.clone(),
            points: match &r.instances {
                Some(list) => survival_steps(&list.iter().map(|s| s.score).collect::<Vec<_>>()),
                None => r
                    .summary
                    .overall
                    .survival
                    .iter()
                    .map(|p| (p.threshold, Some(p.share)))
                    .collect(),
            },
        })
        .collect();
    Figure {
        file: "survival".into(),
        title: "Survival of the fractional score".into(),
        caption:
            "Share of instances whose fractional score (share of the examples the gold changes \
                  that are reproduced exactly) \
                  is at least each threshold. The curve's value at 1.0 is the resolved rate; the \
                  area under it is the mean reward."
                .into(),
        svg: LineChart {
            title: "Survival of the fractional score".into(),
            x_label: "fractional score threshold t".into(),
            y_label: "share of instances with score ≥ t".into(),
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
        .map(|(name, gs)| Series {
            name: name.clone(),
            points: patiences
                .iter()
                .enumerate()
                .map(|(k, p)| {
                    (
                        k as f64,
                        gs.iter()
                            .find(|g| g.patience == Some(*p))
                            .map(|g| g.efficiency * 100.0),
                    )
                })
                .collect(),
        })
        .collect();
    let top = with
        .iter()
        .map(|g| g.efficiency * 100.0)
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
             quotas are enforced) grows; more patience buys balance with attempts. {}.",
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

/// Recovered@1 of the episodes in each bin of probes used, per interactive run.
pub fn recovered_by_probes_points(
    episodes: &[pbebench_eval::EpisodeGrade],
    bins: &[(usize, usize)],
) -> Vec<(f64, Option<f64>)> {
    bins.iter()
        .enumerate()
        .map(|(k, (lo, hi))| {
            let graded: Vec<bool> = (episodes.iter())
                .filter(|e| (*lo..=*hi).contains(&e.probes_used))
                .filter_map(|e| e.recovered)
                .collect();
            let share = (!graded.is_empty())
                .then(|| graded.iter().filter(|r| **r).count() as f64 / graded.len() as f64);
            (k as f64, share)
        })
        .collect()
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
             probes (episodes per bin: {}). A point is missing where a bin has no graded episode.",
            counts.join("; ")
        ),
        svg: LineChart {
            title: title.into(),
            x_label: "probe inputs used in the episode".into(),
            y_label: "Recovered@1".into(),
            x: XAxis::Categories(bins.iter().map(label).collect()),
            y: (0.0, 1.0),
            series: (results.iter())
                .map(|r| Series {
                    name: r.label.clone(),
                    points: recovered_by_probes_points(&episodes(r), &bins),
                })
                .collect(),
            step: false,
            annotate: true,
        }
        .render(),
    }
}

fn behaviour_survival(results: &[&ResultSet]) -> Figure {
    let scores = |r: &ResultSet| -> Vec<f64> {
        (r.episodes.iter().flatten())
            .filter_map(|e| e.behaviour)
            .collect()
    };
    let counts: Vec<String> = (results.iter())
        .map(|r| format!("{}: {}", r.label, scores(r).len()))
        .collect();
    let title = "Survival of the behaviour score";
    Figure {
        file: "behaviour_survival".into(),
        title: title.into(),
        caption: format!(
            "Interactive runs: the share of episodes whose behaviour score (agreement with the \
             gold on the inputs the gold changes, exact over the input space) is at least each \
             threshold; the value at 1.0 is the share that behaves as the gold wherever it \
             changes an input. Episodes with a score: {}.",
            counts.join(", ")
        ),
        svg: LineChart {
            title: title.into(),
            x_label: "behaviour threshold t".into(),
            y_label: "share of episodes with behaviour ≥ t".into(),
            x: XAxis::Linear { min: 0.0, max: 1.0 },
            y: (0.0, 1.0),
            series: (results.iter())
                .map(|r| Series {
                    name: r.label.clone(),
                    points: survival_steps(&scores(r)),
                })
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

    #[test]
    fn survival_steps_follow_the_definition() {
        // Scores 0, 0.4, 0.4, 1: S(t) = 1 for t ≤ 0, 3/4 on (0, 0.4], 1/4 on (0.4, 1].
        let p = survival_steps(&[0.0, 0.4, 1.0, 0.4]);
        assert_eq!(
            p,
            vec![
                (0.0, Some(1.0)),
                (0.0, Some(0.75)),
                (0.4, Some(0.25)),
                (1.0, Some(0.0))
            ]
        );
        // No instance at 1: the curve reaches 0 before the end and stays there.
        let p = survival_steps(&[0.5]);
        assert_eq!(
            p,
            vec![(0.0, Some(1.0)), (0.5, Some(0.0)), (1.0, Some(0.0))]
        );
        assert!(survival_steps(&[]).is_empty());
    }

    #[test]
    fn recovered_by_probes_counts_each_bin() {
        assert_eq!(probe_bins(0), vec![(0, 0)]);
        assert_eq!(probe_bins(11), vec![(0, 0), (1, 5), (6, 10), (11, 15)]);
        let e = |probes_used, recovered| pbebench_eval::EpisodeGrade {
            instance_id: "i".into(),
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
        // Bin 0: one of two recovered; 1–5: none graded; 6–10: two of three (one
        // undecided, left out).
        let list = [
            e(0, Some(true)),
            e(0, Some(false)),
            e(3, None),
            e(6, Some(true)),
            e(10, Some(true)),
            e(7, Some(false)),
        ];
        assert_eq!(
            recovered_by_probes_points(&list, &probe_bins(10)),
            vec![(0.0, Some(0.5)), (1.0, None), (2.0, Some(2.0 / 3.0))]
        );
    }
}
