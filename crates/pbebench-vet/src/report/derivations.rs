//! The report's derivations (issue 24): for a few instances, the derivation table of the
//! gold cascade beside that of a solver's answer, on the same words
//! ([`pbebench::derivation`]), so that a reader sees which rules the answer found, which
//! it replaced by a patchwork, and where the two part.
//!
//! The instances are picked from the per-instance results, best results set first:
//! first an answer that passes every visible example but is not the gold (the words then
//! end with its shortest counterexample, where the two behave differently), then a failed
//! answer, then a recovered one, then more of the first kind; each instance once.

use super::ReportInput;
use pbebench::derivation::Derivation;
use pbebench::equiv::length_bound;
use pbebench::{Instance, InstanceScore};
use std::collections::HashMap;

/// Instances shown at most.
pub const MAX_SHOWN: usize = 3;

/// Visible words shown per instance at most (the gold-changed ones first).
const MAX_WORDS: usize = 5;

/// Why an instance is shown: what the answer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It passes every visible example, but behaves differently from the gold.
    PassesNotRecovered,
    /// It fails some visible example.
    Fails,
    /// It is equivalent to the gold.
    Recovered,
}

impl Verdict {
    /// A sentence for the page.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::PassesNotRecovered => {
                "passes every visible example but is not the gold: the last word is its shortest counterexample"
            }
            Verdict::Fails => "fails some visible example (the expected row marks which)",
            Verdict::Recovered => "recovers the gold: it behaves the same on every input",
        }
    }

    fn of(score: &InstanceScore) -> Option<Verdict> {
        if score.missing {
            return None;
        }
        match (score.pass, score.recovered) {
            (true, Some(false)) => Some(Verdict::PassesNotRecovered),
            (false, _) => Some(Verdict::Fails),
            (true, Some(true)) => Some(Verdict::Recovered),
            (true, None) => None,
        }
    }
}

/// One instance shown: the gold's derivation and the answer's, on the same words, each
/// with the gold's outputs as the expected row.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownDerivation {
    /// The instance.
    pub instance_id: String,
    /// The results set whose answer is shown.
    pub label: String,
    /// What the answer did.
    pub verdict: Verdict,
    /// The gold cascade's derivation.
    pub gold: Derivation,
    /// The answer's derivation.
    pub answer: Derivation,
}

/// The derivations of the report: none without a dataset with gold cascades or without
/// per-instance results (see the module documentation for the choice).
pub(super) fn pick(input: &ReportInput) -> Vec<ShownDerivation> {
    let Some((_, dataset)) = &input.dataset else {
        return Vec::new();
    };
    let by_id: HashMap<&str, &Instance> = dataset
        .iter()
        .filter(|i| i.cascade.is_some())
        .map(|i| (i.id.as_str(), i))
        .collect();
    // (label, score, verdict) in results order, then instance order.
    let candidates: Vec<(&str, &InstanceScore, Verdict)> = input
        .results
        .iter()
        .filter_map(|r| r.instances.as_ref().map(|list| (r.label.as_str(), list)))
        .flat_map(|(label, list)| {
            list.iter()
                .filter(|s| by_id.contains_key(s.id.as_str()))
                .filter_map(move |s| Verdict::of(s).map(|v| (label, s, v)))
        })
        .collect();
    let order = [
        Verdict::PassesNotRecovered,
        Verdict::Fails,
        Verdict::Recovered,
        Verdict::PassesNotRecovered,
        Verdict::PassesNotRecovered,
    ];
    let mut shown: Vec<ShownDerivation> = Vec::new();
    for wanted in order {
        if shown.len() >= MAX_SHOWN {
            break;
        }
        let next = candidates
            .iter()
            .find(|(_, s, v)| *v == wanted && !shown.iter().any(|d| d.instance_id == s.id));
        if let Some((label, score, verdict)) = next {
            shown.push(derive(label, score, *verdict, by_id[score.id.as_str()]));
        }
    }
    shown
}

/// The two derivations of one instance.
fn derive(
    label: &str,
    score: &InstanceScore,
    verdict: Verdict,
    inst: &Instance,
) -> ShownDerivation {
    let gold_cascade = inst.cascade.as_ref().expect("picked instances have a gold");
    let mut words = words_of(inst);
    let counterexample = score
        .chosen
        .and_then(|k| score.samples.get(k))
        .and_then(|s| s.counterexample.as_ref());
    if let Some(ce) = counterexample {
        if !words.contains(&ce.input) {
            words.push(ce.input.clone());
        }
    }
    let bound = length_bound(inst);
    let mode = inst.relations_mode;
    let gold = Derivation::new(gold_cascade, &words, mode, bound);
    let expected: Option<Vec<String>> = (0..words.len())
        .map(|w| gold.output(w).map(str::to_owned))
        .collect();
    let answer = Derivation::new(&score.cascade, &words, mode, bound);
    let (gold, answer) = match expected {
        Some(e) => (gold.with_expected(&e), answer.with_expected(&e)),
        None => (gold, answer),
    };
    ShownDerivation {
        instance_id: inst.id.clone(),
        label: label.to_owned(),
        verdict,
        gold,
        answer,
    }
}

/// Up to [`MAX_WORDS`] visible inputs: those the gold changes first, in file order, then
/// unchanged ones when fewer than three are changed.
fn words_of(inst: &Instance) -> Vec<String> {
    let pairs = || inst.inputs.iter().zip(&inst.outputs);
    let mut words: Vec<String> = pairs()
        .filter(|(i, o)| i != o)
        .map(|(i, _)| i.clone())
        .take(MAX_WORDS)
        .collect();
    for (i, _) in pairs().filter(|(i, o)| i == o) {
        if words.len() >= 3.min(inst.inputs.len()) {
            break;
        }
        words.push(i.clone());
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ResultSet;
    use pbebench::{score_instance, Cascade, Rule, ScoreOptions};

    fn rules(rs: &[(&str, &str)]) -> Cascade {
        rs.iter().map(|(a, b)| Rule::new(*a, *b).unwrap()).collect()
    }

    fn instance(id: &str, inputs: &[&str], gold: &[(&str, &str)]) -> Instance {
        Instance {
            max_rules: 3,
            max_rule_len: 3,
            ..Instance::from_gold(id, inputs, rules(gold), "abcd")
        }
    }

    /// Three instances answered three ways: a fit that is not the gold, a miss and the
    /// gold itself; each is shown once, in that order, with the counterexample as the
    /// last word of the first.
    #[test]
    fn the_picks_are_a_patchwork_a_miss_and_a_recovery() {
        // Gold a -> b, b -> c: "ab" -> "cc". The answer ab -> cc fits "ab" but leaves
        // "aa" alone (the shortest input graded is 2 letters), where the gold writes "cc".
        let fit = instance("fit", &["ab", "dd"], &[("a", "b"), ("b", "c")]);
        let miss = instance("miss", &["ad", "dd"], &[("a", "c")]);
        let same = instance("same", &["bd", "dd"], &[("b", "a")]);
        let answers = [
            (&fit, "```\nreplace('ab', 'cc')\n```"),
            (&miss, "```\nreplace('a', 'b')\n```"),
            (&same, "```\nreplace('b', 'a')\n```"),
        ];
        let scores = answers
            .iter()
            .map(|(inst, text)| score_instance(inst, &[*text], &ScoreOptions::default()))
            .collect();
        let input = ReportInput {
            results: vec![ResultSet::from_instances("solver", scores)],
            dataset: Some(("d.jsonl".into(), vec![fit, miss, same])),
            ..Default::default()
        };
        let shown = pick(&input);
        let ids: Vec<(&str, Verdict)> = shown
            .iter()
            .map(|d| (d.instance_id.as_str(), d.verdict))
            .collect();
        assert_eq!(
            ids,
            [
                ("fit", Verdict::PassesNotRecovered),
                ("miss", Verdict::Fails),
                ("same", Verdict::Recovered)
            ]
        );
        // The patchwork's table: its one rule leaves the counterexample "aa" unchanged,
        // and the expected row (the gold's outputs) marks it.
        let text = shown[0].answer.to_string();
        assert!(
            text.starts_with("rule        sound law   ab   dd   aa"),
            "{text}"
        );
        assert!(
            text.contains("expected                cc   dd  ≠cc"),
            "{text}"
        );
        assert_eq!(shown[0].gold.output(2), Some("cc"));
        assert!(shown[0].gold.to_string().contains("feeds 2"));
        // The miss: "ad" -> "bd", expected "cd".
        assert!(shown[1].answer.to_string().contains("≠cd"));
        // Without a dataset there is nothing to show.
        let bare = ReportInput {
            dataset: None,
            ..input
        };
        assert!(pick(&bare).is_empty());
    }
}
