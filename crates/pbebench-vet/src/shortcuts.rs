//! Trivial solvers that earn reward without solving the task (identity, the best single
//! rule, a rule-per-example memoriser) and the checks of a cascade's stated length
//! (redundant gold rules, a much shorter cascade found by the built-in solver).

use pbebench::{metrics, Cascade, Instance, Rule};
#[cfg(feature = "results")]
use pbebench_solve::{Budget, Problem, Solver};
use serde::Serialize;

/// A trivial solver of the shortcut audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Baseline {
    /// The empty cascade (what an empty or unparsable answer scores as).
    Identity,
    /// The one rule that reproduces the most examples.
    SingleRule,
    /// One rule per changed example, memorising it as specifically as the side-length
    /// limit allows.
    Memoriser,
}

impl Baseline {
    /// Every baseline, in report order.
    pub const ALL: [Baseline; 3] = [
        Baseline::Identity,
        Baseline::SingleRule,
        Baseline::Memoriser,
    ];

    /// Short name (`identity`, `single-rule`, `memoriser`).
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Identity => "identity",
            Baseline::SingleRule => "single-rule",
            Baseline::Memoriser => "memoriser",
        }
    }

    /// One line on what it does.
    pub fn description(self) -> &'static str {
        match self {
            Baseline::Identity => "the empty cascade: changes nothing",
            Baseline::SingleRule => {
                "the single rule (sides ≤ max_rule_len) that reproduces the most examples"
            }
            Baseline::Memoriser => {
                "one rule per changed example (its most specific fix), up to max_rules"
            }
        }
    }

    /// The cascade this baseline answers for `instance`.
    pub fn cascade(self, instance: &Instance) -> Cascade {
        match self {
            Baseline::Identity => Cascade::identity(),
            Baseline::SingleRule => best_single_rule(instance),
            Baseline::Memoriser => memoriser(instance),
        }
    }
}

/// Every rule with sides of at most `max_len` characters that alone maps `input` to
/// `output` by changing it (none when they are equal).
///
/// Complete by construction: such a rule `replace(a, b)` must change `input`, so `a`
/// occurs in it; the text before the first occurrence is left alone, so `b` starts at that
/// position in `output`; and with `k` occurrences the lengths fix `|b| = |a| + (|o| − |i|)/k`.
/// Each substring `a` of `input` therefore determines at most one `b`.
pub fn rules_mapping(input: &str, output: &str, max_len: usize) -> Vec<Rule> {
    let mut found = Vec::new();
    if input == output {
        return found;
    }
    let chars: Vec<(usize, char)> = input.char_indices().collect();
    let out: Vec<char> = output.chars().collect();
    let (n, m) = (chars.len() as i64, out.len() as i64);
    for p in 0..chars.len() {
        for la in 1..=max_len.min(chars.len() - p) {
            let start = chars[p].0;
            let end = chars.get(p + la).map_or(input.len(), |c| c.0);
            let a = &input[start..end];
            if input.find(a) != Some(start) {
                continue;
            }
            let k = input.matches(a).count() as i64;
            if (m - n) % k != 0 {
                continue;
            }
            let lb = la as i64 + (m - n) / k;
            if lb < 0 || lb as usize > max_len || p as i64 + lb > m {
                continue;
            }
            let b: String = out[p..p + lb as usize].iter().collect();
            let Ok(rule) = Rule::new(a, b) else { continue };
            if !rule.is_identity() && rule.apply(input) == output && !found.contains(&rule) {
                found.push(rule);
            }
        }
    }
    found
}

/// The examples whose output differs from the input.
fn changed(instance: &Instance) -> impl Iterator<Item = (&String, &String)> {
    instance
        .inputs
        .iter()
        .zip(&instance.outputs)
        .filter(|(i, o)| i != o)
}

/// How a cascade does on the visible examples: (examples reproduced, total distance).
fn fit_of(instance: &Instance, cascade: &Cascade) -> (usize, usize) {
    let predicted = cascade.apply_all(&instance.inputs);
    (
        metrics::examples_reproduced(&instance.outputs, &predicted),
        metrics::total_char_distance(&predicted, &instance.outputs),
    )
}

/// The single rule that reproduces the most examples (then: the smallest total edit
/// distance, then the first in rule order), or the identity when no rule beats it.
///
/// Only rules that reproduce some changed example can beat the identity on examples
/// reproduced, and [`rules_mapping`] lists all of them, so the search is exhaustive in
/// that measure; ties are broken by Edit_Sim among those candidates.
pub fn best_single_rule(instance: &Instance) -> Cascade {
    let mut candidates: Vec<Rule> = changed(instance)
        .flat_map(|(i, o)| rules_mapping(i, o, instance.max_rule_len))
        .collect();
    candidates.sort();
    candidates.dedup();
    let identity = fit_of(instance, &Cascade::identity());
    let mut best: Option<(usize, usize, Rule)> = None;
    for rule in candidates {
        let (hits, dist) = fit_of(instance, &Cascade::new(vec![rule.clone()]));
        let better = match &best {
            None => true,
            Some((h, d, _)) => hits > *h || (hits == *h && dist < *d),
        };
        if better {
            best = Some((hits, dist, rule));
        }
    }
    match best {
        Some((hits, dist, rule))
            if (hits, std::cmp::Reverse(dist)) > (identity.0, std::cmp::Reverse(identity.1)) =>
        {
            Cascade::new(vec![rule])
        }
        _ => Cascade::identity(),
    }
}

/// One rule per changed example, in example order, each the most specific rule (longest
/// pattern, then longest replacement) that maps that example alone; at most `max_rules`.
/// Examples no single rule can fix are skipped.
pub fn memoriser(instance: &Instance) -> Cascade {
    let mut rules: Vec<Rule> = Vec::new();
    for (i, o) in changed(instance) {
        if rules.len() == instance.max_rules {
            break;
        }
        let best = rules_mapping(i, o, instance.max_rule_len)
            .into_iter()
            .max_by_key(|r| (r.pattern().chars().count(), r.replacement().chars().count()));
        if let Some(rule) = best {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    }
    Cascade::new(rules)
}

/// Gold rules that can be left out: without rule `k` the cascade still reproduces every
/// visible and held-out example (`all`), or every visible one (`visible`, a superset: the
/// visible examples do not pin those rules down).
#[cfg(feature = "results")]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Redundant {
    /// Rules whose removal changes no example at all.
    pub all: Vec<usize>,
    /// Rules whose removal changes no visible example.
    pub visible: Vec<usize>,
}

/// Which rules of the gold cascade are redundant (empty without a gold cascade).
#[cfg(feature = "results")]
pub fn redundant_gold_rules(instance: &Instance) -> Redundant {
    let mut out = Redundant::default();
    let Some(gold) = &instance.cascade else {
        return out;
    };
    for k in 0..gold.len() {
        let without: Cascade = gold
            .rules()
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .map(|(_, r)| r.clone())
            .collect();
        if without.reproduces(&instance.inputs, &instance.outputs) {
            out.visible.push(k);
            if without.reproduces(&instance.heldout_inputs, &instance.heldout_outputs) {
                out.all.push(k);
            }
        }
    }
    out
}

/// The shortest cascade `solver` finds for `instance`: a first solve under the instance's
/// limits, then solves capped at one rule fewer than the best so far, until one fails.
/// `None` when the first solve fails or the instance cannot be posed.
#[cfg(feature = "results")]
pub fn shortest_found(
    instance: &Instance,
    solver: &dyn Solver,
    budget: &Budget,
) -> Option<Cascade> {
    let problem = Problem::from_instance(instance).ok()?;
    let mut best = solver.solve(&problem, budget).cascade?;
    while best.len() > 1 {
        let Ok(tighter) = Problem::new(
            instance.inputs.clone(),
            instance.outputs.clone(),
            best.len() - 1,
            instance.max_rule_len,
            &instance.alphabet,
        ) else {
            break;
        };
        match solver.solve(&tighter, budget).cascade {
            Some(c) if c.len() < best.len() => best = c,
            _ => break,
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::RelationMode;

    fn r(a: &str, b: &str) -> Rule {
        Rule::new(a, b).unwrap()
    }

    fn instance(inputs: &[&str], gold: &[(&str, &str)], heldout: &[&str]) -> Instance {
        let cascade = Cascade::new(gold.iter().map(|(a, b)| r(a, b)).collect());
        Instance {
            id: "t".into(),
            outputs: inputs.iter().map(|i| cascade.apply(i)).collect(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            cascade_len: cascade.len(),
            heldout_outputs: heldout.iter().map(|i| cascade.apply(i)).collect(),
            heldout_inputs: heldout.iter().map(|s| s.to_string()).collect(),
            cascade: Some(cascade),
            category: None,
            relations_mode: RelationMode::Exact,
            max_rules: 5,
            max_rule_len: 3,
            alphabet: "abcdefghijkuvwxyz".into(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    /// Every rule over `letters` with sides ≤ `max_len` (patterns non-empty).
    fn all_rules(letters: &[char], max_len: usize) -> Vec<Rule> {
        let mut words = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..max_len {
            let next: Vec<String> = frontier
                .iter()
                .flat_map(|w| letters.iter().map(move |c| format!("{w}{c}")))
                .collect();
            words.extend(next.iter().cloned());
            frontier = next;
        }
        let mut rules = Vec::new();
        for a in words.iter().filter(|w| !w.is_empty()) {
            for b in &words {
                rules.push(r(a, b));
            }
        }
        rules
    }

    #[test]
    fn rules_mapping_matches_brute_force() {
        let letters = ['a', 'b', 'c'];
        let every = all_rules(&letters, 2);
        let pairs = [
            ("abcab", "acab"),
            ("aaa", "ba"),
            ("abab", "cc"),
            ("cab", "cbab"),
            ("abc", "abc"),
            ("ba", ""),
            ("abca", "bbcb"),
        ];
        for (i, o) in pairs {
            let mut want: Vec<Rule> = every
                .iter()
                .filter(|rule| rule.fires_on(i) && rule.apply(i) == o)
                .cloned()
                .collect();
            let mut got = rules_mapping(i, o, 2);
            want.sort();
            got.sort();
            assert_eq!(got, want, "{i} → {o}");
        }
        assert_eq!(rules_mapping("é", "e", 1), vec![r("é", "e")]);
    }

    #[test]
    fn best_single_rule_is_optimal_by_brute_force() {
        let inst = instance(
            &["abc", "cab", "bbb", "kk"],
            &[("b", "x"), ("xc", "y")],
            &[],
        );
        let got = best_single_rule(&inst);
        let letters: Vec<char> = "abcxyk".chars().collect();
        let best_hits = all_rules(&letters, 2)
            .into_iter()
            .map(|rule| fit_of(&inst, &Cascade::new(vec![rule])).0)
            .max()
            .unwrap();
        assert_eq!(fit_of(&inst, &got).0, best_hits);
        assert_eq!(got.len(), 1);
        // Nothing beats the identity when every fix breaks as much as it mends.
        let mut stubborn = instance(&["a", "a"], &[], &[]);
        stubborn.outputs = vec!["b".into(), "a".into()];
        assert!(best_single_rule(&stubborn).is_empty());
    }

    #[test]
    fn memoriser_fixes_examples_one_by_one() {
        let inst = instance(
            &["abc", "kuv", "xyz", "aaa"],
            &[("b", "k"), ("u", "w")],
            &[],
        );
        let c = memoriser(&inst);
        assert_eq!(c.len(), 2);
        assert_eq!(c.rules()[0], r("abc", "akc"), "longest context first");
        assert!(c.reproduces(&inst.inputs, &inst.outputs));
    }

    #[test]
    #[cfg(feature = "results")]
    fn redundant_rules_are_found() {
        // Rule 1 (z→y) never fires on the visible inputs, but does on the held-out one.
        let inst = instance(&["ab", "ba"], &[("a", "c"), ("z", "y")], &["z"]);
        let red = redundant_gold_rules(&inst);
        assert_eq!(red.visible, vec![1]);
        assert!(red.all.is_empty());
        let inst = instance(&["ab", "ba"], &[("a", "c"), ("z", "y")], &["b"]);
        assert_eq!(redundant_gold_rules(&inst).all, vec![1]);
    }

    #[test]
    fn response_text_round_trips_through_the_scorer() {
        let mut inst = instance(&["ab", "b'a"], &[("a", "c"), ("'", "")], &[]);
        inst.alphabet.push('\'');
        let text = pbebench::render_answer(inst.cascade.as_ref().unwrap());
        let s = pbebench::score_instance(&inst, &[text], &Default::default());
        assert!(s.pass, "{s:?}");
    }

    #[test]
    #[cfg(feature = "results")]
    fn shortest_found_beats_a_padded_gold() {
        // Gold a→b, b→c has a one-rule equivalent on these examples: a→c (no b in inputs).
        let inst = instance(&["xa", "ax", "aa"], &[("a", "b"), ("b", "c")], &[]);
        let solver = pbebench_solve::default_solver();
        let budget = Budget::time(std::time::Duration::from_secs(5));
        let found = shortest_found(&inst, solver.as_ref(), &budget).unwrap();
        assert_eq!(found.len(), 1);
        assert!(found.reproduces(&inst.inputs, &inst.outputs));
    }
}
