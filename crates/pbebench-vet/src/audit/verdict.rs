//! The audit's verdict (issue 38): each instance flagged with its reasons, and set-level
//! gates with settable thresholds, so that the verdict covers what the audit measures.
//!
//! An instance is flagged when its gold fails, a dummy answer earns something on it, a
//! shortcut baseline resolves it, the identifiability panel finds a fitting answer that
//! is not equivalent to the gold (with the witness), its category label differs, it
//! repeats another instance, or every solver of a calibration panel of two or more
//! passes it. The gates turn the shares of some of these into a verdict: see
//! [`Thresholds`] and `docs/audit.md`.

use super::calibration::Outcome;
use crate::attack::Witness;
use pbebench::interval::{wilson, Interval};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Default of [`Thresholds::max_dummy`]: a dummy answer earns nothing anywhere.
pub const DEFAULT_MAX_DUMMY: f64 = 0.0;
/// Default of [`Thresholds::max_shortcut`].
pub const DEFAULT_MAX_SHORTCUT: f64 = 0.02;
/// Default of [`Thresholds::max_ambiguous`].
pub const DEFAULT_MAX_AMBIGUOUS: f64 = 0.05;
/// Default of [`Thresholds::max_collapsed`].
pub const DEFAULT_MAX_COLLAPSED: f64 = 0.8;

/// The set-level gates' thresholds: each is the largest share of instances allowed
/// (`--max-dummy`, `--max-shortcut`, `--max-ambiguous`, `--max-collapsed`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Share of instances on which a dummy answer (an empty response, the identity)
    /// passes or earns any reward.
    pub max_dummy: f64,
    /// Share of instances each shortcut baseline resolves (its answer reproduces every
    /// example the gold changes: the fractional score's "resolved").
    pub max_shortcut: f64,
    /// Share of the checked instances that are ambiguous (identifiability).
    pub max_ambiguous: f64,
    /// Share of the instances a calibration panel of two or more solvers scored that
    /// every solver passes, or none does: instances that do not tell the panel apart.
    pub max_collapsed: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            max_dummy: DEFAULT_MAX_DUMMY,
            max_shortcut: DEFAULT_MAX_SHORTCUT,
            max_ambiguous: DEFAULT_MAX_AMBIGUOUS,
            max_collapsed: DEFAULT_MAX_COLLAPSED,
        }
    }
}

/// Why an instance is flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The gold cascade does not reproduce an example (or the instance is malformed).
    GoldFails,
    /// An empty response or the identity passes, or earns reward.
    DummyPasses,
    /// A shortcut baseline resolves it (which one: [`Flag::baseline`]).
    Shortcut,
    /// A fitting answer is not equivalent to the gold ([`Flag::witness`]).
    Ambiguous,
    /// The stored category differs from the recomputed one, or the paper's relations and
    /// the exact ones give different categories.
    LabelDiffers,
    /// It repeats another instance (the same examples, or the same up to renaming).
    Duplicate,
    /// Every solver of the calibration panel (two or more) passes it.
    Trivial,
}

impl Reason {
    /// Every reason, in the order flags are listed.
    pub const ALL: [Reason; 7] = [
        Reason::GoldFails,
        Reason::DummyPasses,
        Reason::Shortcut,
        Reason::Ambiguous,
        Reason::LabelDiffers,
        Reason::Duplicate,
        Reason::Trivial,
    ];

    /// The name in `audit.json` and the text (`gold-fails`, …).
    pub fn name(self) -> &'static str {
        match self {
            Reason::GoldFails => "gold-fails",
            Reason::DummyPasses => "dummy-passes",
            Reason::Shortcut => "shortcut",
            Reason::Ambiguous => "ambiguous",
            Reason::LabelDiffers => "label-differs",
            Reason::Duplicate => "duplicate",
            Reason::Trivial => "trivial",
        }
    }
}

/// One reason an instance is flagged, and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flag {
    /// The reason.
    pub reason: Reason,
    /// What was found, in words.
    pub detail: String,
    /// For `shortcut`: the baseline that resolves it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// For `ambiguous`: the fitting answer, and the shortest input on which it and the
    /// gold differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<Witness>,
}

/// An instance and every reason it is flagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlaggedInstance {
    /// The instance.
    pub id: String,
    /// Its flags, in the order of [`Reason::ALL`].
    pub flags: Vec<Flag>,
}

/// One set-level gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateVerdict {
    /// `gold`, `dummy`, `shortcut:<baseline>`, `ambiguous` or `collapse`.
    pub gate: String,
    /// The share measured; `None` when the gate could not be evaluated (it then passes,
    /// and `line` says why).
    pub value: Option<f64>,
    /// The largest share allowed.
    pub threshold: f64,
    /// Wilson's 95% interval of the share measured (`docs/statistics.md`): how far the
    /// set's share may be from what the same generator would give on another draw. The
    /// gate compares the share itself with the threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// `value ≤ threshold` (or not evaluated).
    pub passed: bool,
    /// The one line the audit says about it: what was measured, against what, and why
    /// it matters.
    pub line: String,
}

/// The verdict: the gates, and the flagged instances.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Every gate passed.
    pub passed: bool,
    /// The thresholds used.
    pub thresholds: Thresholds,
    /// The gates, in order: gold, dummy, each shortcut baseline, ambiguous, collapse.
    pub gates: Vec<GateVerdict>,
    /// Flags per reason (every reason listed, 0 included): an instance resolved by several
    /// shortcut baselines counts once per baseline under `shortcut`.
    pub flag_counts: BTreeMap<Reason, usize>,
    /// Every flagged instance, in dataset order, with all its reasons.
    pub flagged: Vec<FlaggedInstance>,
}

impl Verdict {
    /// The gates that failed.
    pub fn failed(&self) -> impl Iterator<Item = &GateVerdict> {
        self.gates.iter().filter(|g| !g.passed)
    }

    /// A short account of the failed gates, e.g. `ambiguous 96% > 5%; shortcut:memoriser
    /// 42% > 2%` (empty when every gate passed).
    pub fn failures_in_short(&self) -> String {
        let cells: Vec<String> = self
            .failed()
            .map(|g| {
                format!(
                    "{} {} > {}",
                    g.gate,
                    percent(g.value.unwrap_or(0.0)),
                    percent(g.threshold)
                )
            })
            .collect();
        cells.join("; ")
    }
}

/// A share as a percentage, with a decimal only where it matters (`96%`, `2.5%`, `0%`).
pub fn percent(share: f64) -> String {
    let p = 100.0 * share;
    if (p - p.round()).abs() < 0.05 {
        format!("{}%", p.round())
    } else {
        format!("{p:.1}%")
    }
}

/// A share's 95% interval in percent, as the audit prints it: `[1.1%, 13.5%]`.
pub fn percent_interval(i: &Interval) -> String {
    format!("[{}, {}]", percent(i.lo), percent(i.hi))
}

/// Every per-instance finding, in dataset order, gathered by [`super::audit`].
pub(super) struct Facts {
    /// What is wrong with the gold.
    pub gold: Vec<Option<String>>,
    /// What a dummy earns.
    pub dummy: Vec<Option<String>>,
    /// Per baseline (name), what it resolves.
    pub shortcuts: Vec<(String, Vec<Option<String>>)>,
    /// Instances the identifiability check gave a verdict on (`None`: not run).
    pub checked: Option<usize>,
    /// The witness of each ambiguous instance.
    pub ambiguous: Vec<Option<Witness>>,
    /// What differs in its labels.
    pub labels: Vec<Option<String>>,
    /// Which instance it repeats.
    pub duplicate: Vec<Option<String>>,
    /// Solvers of the calibration panel, and how they did on each instance.
    pub panel: usize,
    /// How the panel did on each instance.
    pub outcomes: Vec<Option<Outcome>>,
}

/// Flags the instances and judges the gates.
pub(super) fn judge(ids: &[&str], facts: Facts, thresholds: Thresholds) -> Verdict {
    let n = ids.len();
    let mut flags: Vec<Vec<Flag>> = vec![Vec::new(); n];
    let plain = |reason, detail: &String| Flag {
        reason,
        detail: detail.clone(),
        baseline: None,
        witness: None,
    };
    for k in 0..n {
        let f = &mut flags[k];
        if let Some(d) = &facts.gold[k] {
            f.push(plain(Reason::GoldFails, d));
        }
        if let Some(d) = &facts.dummy[k] {
            f.push(plain(Reason::DummyPasses, d));
        }
        for (name, resolved) in &facts.shortcuts {
            if let Some(d) = &resolved[k] {
                f.push(Flag {
                    baseline: Some(name.clone()),
                    ..plain(Reason::Shortcut, d)
                });
            }
        }
        if let Some(w) = &facts.ambiguous[k] {
            let out = |o: &Option<String>| {
                o.as_ref()
                    .map_or("(too long)".to_owned(), |s| format!("{s:?}"))
            };
            f.push(Flag {
                witness: Some(w.clone()),
                ..plain(
                    Reason::Ambiguous,
                    &format!(
                        "{} found {}, which fits every visible example; on {:?} the gold gives {}, it gives {}",
                        w.attacker,
                        w.found.to_json(),
                        w.counterexample,
                        out(&w.gold_output),
                        out(&w.found_output)
                    ),
                )
            });
        }
        if let Some(d) = &facts.labels[k] {
            f.push(plain(Reason::LabelDiffers, d));
        }
        if let Some(d) = &facts.duplicate[k] {
            f.push(plain(Reason::Duplicate, d));
        }
        if facts.panel >= 2 && facts.outcomes[k].is_some_and(|o| o.all) {
            f.push(plain(
                Reason::Trivial,
                &format!(
                    "every one of the {} solvers of the panel passes it",
                    facts.panel
                ),
            ));
        }
    }
    let mut flag_counts: BTreeMap<Reason, usize> = Reason::ALL.iter().map(|r| (*r, 0)).collect();
    for f in flags.iter().flatten() {
        *flag_counts.entry(f.reason).or_default() += 1;
    }
    let gates = gates(n, &facts, &thresholds);
    Verdict {
        passed: gates.iter().all(|g| g.passed),
        thresholds,
        gates,
        flag_counts,
        flagged: ids
            .iter()
            .zip(flags)
            .filter(|(_, f)| !f.is_empty())
            .map(|(id, flags)| FlaggedInstance {
                id: (*id).to_owned(),
                flags,
            })
            .collect(),
    }
}

/// A gate on `count` of `of` instances against `threshold`; `what` says what was counted.
fn gate(
    name: &str,
    count: usize,
    of: usize,
    threshold: f64,
    flag: &str,
    what: &str,
) -> GateVerdict {
    let value = if of == 0 {
        0.0
    } else {
        count as f64 / of as f64
    };
    let passed = value <= threshold + 1e-12;
    let interval = wilson(count, of);
    GateVerdict {
        gate: name.to_owned(),
        value: Some(value),
        threshold,
        interval,
        passed,
        line: format!(
            "{name}: {} ({count} of {of}){} {what}; {} {} allowed ({flag})",
            percent(value),
            interval.map_or_else(String::new, |i| format!(" {}", percent_interval(&i))),
            if passed {
                "within the"
            } else {
                "more than the"
            },
            percent(threshold),
        ),
    }
}

fn count(v: &[Option<impl Sized>]) -> usize {
    v.iter().filter(|x| x.is_some()).count()
}

fn gates(n: usize, facts: &Facts, t: &Thresholds) -> Vec<GateVerdict> {
    let mut out = vec![
        gate(
            "gold",
            count(&facts.gold),
            n,
            0.0,
            "fixed: a gold that fails is a broken instance",
            "of the instances have a gold cascade that does not reproduce its examples",
        ),
        gate(
            "dummy",
            count(&facts.dummy),
            n,
            t.max_dummy,
            "--max-dummy",
            "of the instances give an empty answer or the identity a pass or some reward",
        ),
    ];
    for (name, resolved) in &facts.shortcuts {
        out.push(gate(
            &format!("shortcut:{name}"),
            count(resolved),
            n,
            t.max_shortcut,
            "--max-shortcut",
            &format!("of the instances are resolved by the {name} baseline, which does not solve the task"),
        ));
    }
    out.push(match facts.checked {
        Some(checked) => gate(
            "ambiguous",
            count(&facts.ambiguous),
            checked,
            t.max_ambiguous,
            "--max-ambiguous",
            "of the checked instances have a fitting answer that is not equivalent to the gold, so a pass does not mean the behaviour was found",
        ),
        None => not_evaluated(
            "ambiguous",
            t.max_ambiguous,
            "not evaluated (--panel none): whether a pass means the behaviour was found is unknown",
        ),
    });
    let scored: Vec<Outcome> = facts.outcomes.iter().flatten().copied().collect();
    out.push(if facts.panel >= 2 {
        let all = scored.iter().filter(|o| o.all).count();
        let none = scored.iter().filter(|o| o.none).count();
        let mut g = gate(
            "collapse",
            all + none,
            scored.len(),
            t.max_collapsed,
            "--max-collapsed",
            &format!(
                "of the scored instances do not tell the {} solvers apart ({all} passed by every one, {none} by none)",
                facts.panel
            ),
        );
        if scored.is_empty() {
            g = not_evaluated("collapse", t.max_collapsed, "not evaluated: the panel scored no instance");
        }
        g
    } else {
        not_evaluated(
            "collapse",
            t.max_collapsed,
            &format!(
                "not evaluated: calibration needs scored results of at least 2 solvers (--results), {} given",
                facts.panel
            ),
        )
    });
    out
}

fn not_evaluated(name: &str, threshold: f64, why: &str) -> GateVerdict {
    GateVerdict {
        gate: name.to_owned(),
        value: None,
        threshold,
        interval: None,
        passed: true,
        line: format!("{name}: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(n: usize) -> Facts {
        Facts {
            gold: vec![None; n],
            dummy: vec![None; n],
            shortcuts: vec![("memoriser".to_owned(), vec![None; n])],
            checked: Some(n),
            ambiguous: vec![None; n],
            labels: vec![None; n],
            duplicate: vec![None; n],
            panel: 0,
            outcomes: vec![None; n],
        }
    }

    #[test]
    fn a_share_above_its_threshold_fails_its_gate_and_says_why() {
        let ids: Vec<String> = (0..50).map(|k| format!("i{k}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let mut f = facts(50);
        // 1 of 50 is 2%: at the threshold, which passes; 2 of 50 fails.
        f.shortcuts[0].1[3] = Some("memoriser resolves it".into());
        let v = judge(&ids, f, Thresholds::default());
        assert!(v.passed, "{v:?}");
        assert_eq!(v.flag_counts[&Reason::Shortcut], 1);
        assert_eq!(v.flagged[0].id, "i3");
        assert_eq!(v.flagged[0].flags[0].baseline.as_deref(), Some("memoriser"));

        let mut f = facts(50);
        f.shortcuts[0].1[3] = Some("x".into());
        f.shortcuts[0].1[4] = Some("x".into());
        let v = judge(&ids, f, Thresholds::default());
        assert!(!v.passed);
        let failed: Vec<&GateVerdict> = v.failed().collect();
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].gate, "shortcut:memoriser");
        assert_eq!(failed[0].value, Some(0.04));
        assert!(
            failed[0]
                .line
                .starts_with("shortcut:memoriser: 4% (2 of 50) [1.1%, 13.5%] of the")
                && failed[0]
                    .line
                    .contains("more than the 2% allowed (--max-shortcut)"),
            "{}",
            failed[0].line
        );
        assert_eq!(v.failures_in_short(), "shortcut:memoriser 4% > 2%");
        // A looser threshold lets it pass.
        let mut f = facts(50);
        f.shortcuts[0].1[3] = Some("x".into());
        f.shortcuts[0].1[4] = Some("x".into());
        let loose = Thresholds {
            max_shortcut: 0.05,
            ..Thresholds::default()
        };
        assert!(judge(&ids, f, loose).passed);
    }

    #[test]
    fn collapse_needs_two_solvers_and_counts_all_and_none() {
        let ids = ["a", "b", "c", "d", "e"];
        let both = |all, none| Some(Outcome { all, none });
        let mut f = facts(5);
        f.outcomes = vec![
            both(true, false),
            both(true, false),
            both(false, true),
            both(false, true),
            both(false, false),
        ];
        f.panel = 1;
        let v = judge(&ids, f, Thresholds::default());
        let collapse = v.gates.iter().find(|g| g.gate == "collapse").unwrap();
        assert_eq!((collapse.value, collapse.passed), (None, true));
        assert!(
            collapse.line.contains("at least 2 solvers"),
            "{}",
            collapse.line
        );
        assert_eq!(
            v.flag_counts[&Reason::Trivial],
            0,
            "one solver flags nothing trivial"
        );

        let mut f = facts(5);
        f.outcomes = vec![
            both(true, false),
            both(true, false),
            both(false, true),
            both(false, true),
            both(false, false),
        ];
        f.panel = 2;
        let v = judge(&ids, f, Thresholds::default());
        let collapse = v.gates.iter().find(|g| g.gate == "collapse").unwrap();
        assert_eq!(collapse.value, Some(0.8));
        assert!(collapse.passed, "80% is the default's limit");
        assert_eq!(v.flag_counts[&Reason::Trivial], 2);
        assert!(v
            .flagged
            .iter()
            .all(|i| i.flags[0].reason == Reason::Trivial));
    }

    #[test]
    fn an_unchecked_identifiability_does_not_fail_and_says_so() {
        let mut f = facts(2);
        f.checked = None;
        let v = judge(&["a", "b"], f, Thresholds::default());
        let g = v.gates.iter().find(|g| g.gate == "ambiguous").unwrap();
        assert_eq!((g.value, g.passed), (None, true));
        assert!(g.line.contains("--panel none"), "{}", g.line);
    }

    #[test]
    fn percentages_keep_a_decimal_only_where_it_matters() {
        assert_eq!(percent(0.96), "96%");
        assert_eq!(percent(0.025), "2.5%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(123.0 / 128.0), "96.1%");
    }
}
