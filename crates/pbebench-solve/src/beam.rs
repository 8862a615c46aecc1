//! The beam solver: a forward beam search over vectors of current strings.
//!
//! * Candidates at a state come from the examples still wrong ([`propose`]): windows of
//!   optimal alignments with context letters, exact one-rule fixes, and the first rule of
//!   a hidden two-rule chain.
//! * States are ranked by total Levenshtein distance to the targets, or by an estimate of
//!   the rules still needed (distinct alignment hunks); the default alternates the two,
//!   since they fail on different instances. States with equal string vectors are merged.
//! * A letter-count lower bound prunes states that cannot finish within the rule cap.
//! * Rounds widen the beam (1, 3, 9, …) until the budget ends; after each round the best
//!   final states go to local repair ([`repair`]), which gets as much time as the round.
//!   What is left of that time goes to iterated local search from the best state repair
//!   has reached: at the cap it is first squeezed ([`squeeze`]: a slot freed for the rule
//!   it misses), then repeatedly perturbed ([`perturb`]: a few rules dropped) and repaired.

use crate::encode::{apply_into, find, Encoded, FxHashMap, FxHashSet, FxHasher, Sym, SymRule};
use crate::lev::{distance, hunks, Hunk};
use crate::prior;
use crate::propose::propose;
use crate::repair::{perturb, repair, squeeze, Elite};
use crate::{Budget, Partial, Problem, SolveOutcome, SolveStats, Solver, Status};
use pbebench::Cascade;
use std::hash::Hasher;
use std::time::Instant;

/// Forward beam search with anytime widening (see the module documentation).
#[derive(Debug, Clone)]
pub struct BeamSolver {
    /// Beam width of the first round.
    pub initial_width: usize,
    /// Factor by which the width grows each round.
    pub growth: usize,
    /// Widest beam tried (memory grows with it); after that round the search gives up.
    pub max_width: usize,
    /// How states are ranked.
    pub ranking: Ranking,
}

/// What the beam keeps: the states closest to the targets by this measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// Total Levenshtein distance, then examples wrong, then estimated rules left.
    Distance,
    /// Estimated rules left (distinct alignment hunks), then total distance.
    Hunks,
    /// Both, in turn: each width is tried first by distance, then by hunks. The two
    /// fail on different instances, so together they solve more than either alone.
    Alternate,
}

impl Default for BeamSolver {
    fn default() -> Self {
        BeamSolver {
            initial_width: 1,
            growth: 3,
            max_width: 100_000,
            ranking: Ranking::Alternate,
        }
    }
}

impl Solver for BeamSolver {
    fn name(&self) -> &'static str {
        match self.ranking {
            Ranking::Alternate => "beam-v1",
            Ranking::Distance => "beam-distance",
            Ranking::Hunks => "beam-hunks",
        }
    }

    /// Local repair of `start` (the `repair` module, with kicks) for a third of the time; the
    /// search from scratch for the rest, when that finds no fit.
    fn search_from(
        &self,
        problem: &Problem,
        start: &Cascade,
        budget: &Budget,
        deadline: Instant,
    ) -> SolveOutcome {
        let enc = Encoded::new(problem);
        if let Some(rules) = enc.encode_rules(start) {
            let now = Instant::now();
            let until = now + deadline.saturating_duration_since(now) / 3;
            let mut stats = SolveStats::default();
            let mut elite = None;
            let mended = repair(
                &enc,
                rules,
                enc.max_rules,
                until,
                REPAIR_STEPS,
                &mut stats.candidates_scored,
                &mut elite,
            );
            if let Some(rules) = mended {
                return solved(&enc, rules, stats);
            }
            let mut outcome = self.search(problem, budget, deadline);
            outcome.stats.candidates_scored += stats.candidates_scored;
            return outcome;
        }
        self.search(problem, budget, deadline)
    }

    fn search(&self, problem: &Problem, budget: &Budget, deadline: Instant) -> SolveOutcome {
        let enc = Encoded::new(problem);
        let mut search = Search::new(&enc, budget, deadline, self.ranking);
        let mut width = self.initial_width.max(1);
        let mut elite: Option<Elite> = None;
        let mut seed = ILS_SEED;
        let mut squeezed: Option<(u32, usize)> = None;
        let status = loop {
            let second_half = self.ranking == Ranking::Alternate && search.stats.rounds % 2 == 1;
            search.ranking = match self.ranking {
                Ranking::Alternate if second_half => Ranking::Hunks,
                Ranking::Alternate => Ranking::Distance,
                r => r,
            };
            search.stats.rounds += 1;
            search.stats.max_width = width;
            let round_start = Instant::now();
            let scored_before = search.stats.candidates_scored;
            let round = search.beam(width);
            let allowance = RepairAllowance::after_round(
                budget,
                round_start,
                deadline,
                search.stats.candidates_scored,
                search.stats.candidates_scored - scored_before,
            );
            let repair_deadline = allowance.deadline;
            match round {
                Round::Found(rules) => return solved(&enc, rules, search.stats),
                Round::Stopped => {
                    search.stats.hit_limit = true;
                    break Status::LimitReached;
                }
                Round::Complete | Round::Failed => {}
            }
            let complete = matches!(round, Round::Complete);
            // True when the search's budget (noted as the limit hit) or this round's
            // repair time is spent.
            let spent = |search: &mut Search| {
                if search.out_of_budget() {
                    search.stats.hit_limit = true;
                    return true;
                }
                allowance.spent(search.stats.candidates_scored)
            };
            let repair_from = |rules, scored: &mut u64, elite: &mut Option<Elite>| {
                repair(
                    &enc,
                    rules,
                    enc.max_rules,
                    repair_deadline,
                    REPAIR_STEPS,
                    scored,
                    elite,
                )
            };
            for rules in std::mem::take(&mut search.near_misses) {
                if spent(&mut search) {
                    break;
                }
                if let Some(rules) =
                    repair_from(rules, &mut search.stats.candidates_scored, &mut elite)
                {
                    return solved(&enc, rules, search.stats);
                }
            }
            // Iterated local search for the rest of the repair time: drop a few rules of
            // the best state reached so far at random and repair again.
            while let Some((key, start)) = elite.as_ref().map(|e| (e.key, e.rules.clone())) {
                if spent(&mut search) {
                    break;
                }
                // A new elite at the cap is first squeezed (a slot freed for the rule it
                // misses); after that, perturbed.
                if squeezed.is_none_or(|k| key < k) && start.len() == enc.max_rules {
                    squeezed = Some(key);
                    if let Some(rules) = squeeze(
                        &enc,
                        start,
                        repair_deadline,
                        &mut search.stats.candidates_scored,
                        &mut elite,
                    ) {
                        return solved(&enc, rules, search.stats);
                    }
                    continue;
                }
                let k = 2 + (seed % 2) as usize;
                let start = perturb(&start, k, &mut seed);
                if let Some(rules) =
                    repair_from(start, &mut search.stats.candidates_scored, &mut elite)
                {
                    return solved(&enc, rules, search.stats);
                }
            }
            if search.stats.hit_limit {
                break Status::LimitReached;
            }
            if complete {
                break Status::Exhausted;
            }
            if self.ranking == Ranking::Alternate && !second_half {
                continue; // same width, other ranking
            }
            if width >= self.max_width {
                break Status::Exhausted;
            }
            width = width.saturating_mul(self.growth.max(2)).min(self.max_width);
        };
        search.unsolved(status, elite)
    }
}

/// The outcome of a solve that found `rules` (generalized before they are reported).
fn solved(enc: &Encoded, rules: Vec<SymRule>, stats: SolveStats) -> SolveOutcome {
    SolveOutcome {
        status: Status::Solved,
        cascade: Some(enc.cascade(&generalize(enc, rules))),
        partial: None,
        stats,
    }
}

/// How one beam round ended.
enum Round {
    Found(Vec<SymRule>),
    /// Budget exhausted.
    Stopped,
    /// No solution within this width.
    Failed,
    /// No solution, and the beam never had to drop a state: wider beams cannot help.
    Complete,
}

/// One search state: the current strings and the rules that produced them.
#[derive(Clone)]
struct Node {
    strings: Vec<Sym>,
    /// Per example: distance to its target.
    dists: Vec<u32>,
    /// Per example: the hunks of its alignment with the target.
    hunks: Vec<Vec<Hunk>>,
    /// How many examples have each hunk (a rule can fix equal hunks at once).
    counts: FxHashMap<u64, u32>,
    /// Estimated rules still needed: the summed cost of the distinct hunks.
    h: u32,
    /// Total distance.
    total: u32,
    /// The prior cost of `rules`, in nats (only kept when ranking by the prior).
    cost: f64,
    rules: Vec<SymRule>,
}

/// The ranking of a state (smaller is better): estimated rules left, total distance,
/// examples wrong.
type Key = (u32, u32, u32);

/// A scored child: its key, parent index, candidate index.
type Child = (Key, u32, u32);

/// Scratch buffers for scoring.
#[derive(Default)]
struct Scratch {
    string: Sym,
    dp: Vec<u32>,
    hunks: Vec<Hunk>,
    adjust: Vec<(u64, u8, i32)>,
}

struct Search<'a> {
    enc: &'a Encoded,
    budget: &'a Budget,
    deadline: Instant,
    stats: SolveStats,
    /// Symbol -> occurs in some target.
    target_has: Vec<bool>,
    ranking: Ranking,
    /// The best states of the last level of the latest round, for repair.
    near_misses: Vec<Vec<SymRule>>,
    /// The unsolved state closest to the targets seen at the end of a round or of a
    /// repair (total distance, rules): the partial answer if nothing is solved.
    partial: Option<(u32, Vec<SymRule>)>,
    /// Rank by the prior instead ([`prior_fits`]): the estimated cost of one rule, in
    /// nats, by which the rules still needed (the hunks) are weighed.
    prior: Option<f64>,
}

/// Scale of the prior ranking's key: cost in thousandths of a nat.
const MILLI: f64 = 1000.0;

/// Cascades that fit the examples found by beam rounds of widths 1, 3, 9, … up to
/// `max_width`, each ranking its states by the prior cost so far ([`crate::prior`]) plus
/// the rules still needed (the hunk estimate) times the cheapest rule's cost; of the fits
/// of a level, the least costly is kept. Stops at `deadline` or after `max_nodes` states.
pub(crate) fn prior_fits(
    enc: &Encoded,
    max_width: usize,
    max_nodes: u64,
    deadline: Instant,
    stats: &mut SolveStats,
) -> Vec<Vec<SymRule>> {
    let budget = Budget {
        time_limit: std::time::Duration::MAX,
        max_nodes: Some(stats.nodes_expanded + max_nodes),
    };
    let root_letters = distinct_counts(&enc.inputs, 1)[1];
    let sigma = enc.allowed.iter().filter(|&&a| a).count().max(1) as f64;
    let cheapest = 2.0 * (enc.max_len.max(1) as f64).ln() + root_letters.ln() + sigma.ln();
    let mut search = Search {
        enc,
        budget: &budget,
        deadline,
        stats: std::mem::take(stats),
        target_has: presence(&enc.targets, enc.letters.len()),
        ranking: Ranking::Hunks,
        near_misses: Vec::new(),
        partial: None,
        prior: Some(cheapest),
    };
    let mut fits = Vec::new();
    let mut width = 1;
    while width <= max_width {
        match search.beam(width) {
            Round::Found(rules) => fits.push(rules),
            Round::Stopped | Round::Complete => break,
            Round::Failed => {}
        }
        width *= 3;
    }
    *stats = search.stats;
    fits
}

/// ln of the number of distinct substrings of each length `0..=max_len` of `strings`
/// (at least 1 each, so that the logarithm is defined).
fn distinct_counts(strings: &[Sym], max_len: usize) -> Vec<f64> {
    (0..=max_len)
        .map(|len| {
            let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
            for s in strings.iter().filter(|s| len > 0 && s.len() >= len) {
                seen.extend(s.windows(len));
            }
            seen.len().max(1) as f64
        })
        .collect()
}

/// How many of the best final states of a round are handed to local repair.
const NEAR_MISSES: usize = 8;
/// Seed of the perturbations of iterated local search (fixed: solves are reproducible
/// up to the wall clock).
const ILS_SEED: u64 = 0x5eed_1105;
/// Hill-climbing steps per near miss.
const REPAIR_STEPS: usize = 16;

/// The fewest candidate evaluations a round's repair may use under a node cap (about
/// what 20 ms of repair scores on this kind of machine).
const MIN_REPAIR_EVALUATIONS: u64 = 20_000;

/// How long the repair after a beam round may go on: as long as the round took (at least
/// 20 ms), so that half the time goes to widening and half to repairing. Under a node cap
/// (`Budget::max_nodes`) the allowance is counted in candidate evaluations instead (as
/// many as the round scored, at least [`MIN_REPAIR_EVALUATIONS`]), so that the answer is
/// a function of the problem and the budget, not of the machine's speed or load; the
/// overall deadline still holds.
struct RepairAllowance {
    /// The deadline repair calls are given.
    deadline: Instant,
    /// Under a node cap: the evaluation count at which the allowance is spent.
    evaluations: Option<u64>,
}

impl RepairAllowance {
    fn after_round(
        budget: &Budget,
        round_start: Instant,
        deadline: Instant,
        scored: u64,
        round_scored: u64,
    ) -> Self {
        if budget.max_nodes.is_some() {
            return RepairAllowance {
                deadline,
                evaluations: Some(scored + round_scored.max(MIN_REPAIR_EVALUATIONS)),
            };
        }
        let took = round_start
            .elapsed()
            .max(std::time::Duration::from_millis(20));
        RepairAllowance {
            deadline: (Instant::now() + took).min(deadline),
            evaluations: None,
        }
    }

    /// Whether the allowance is spent, `scored` evaluations in.
    fn spent(&self, scored: u64) -> bool {
        match self.evaluations {
            Some(limit) => scored >= limit || Instant::now() >= self.deadline,
            None => Instant::now() >= self.deadline,
        }
    }
}

impl<'a> Search<'a> {
    /// A search of `enc` within `budget` and `deadline`, nothing expanded yet.
    fn new(enc: &'a Encoded, budget: &'a Budget, deadline: Instant, ranking: Ranking) -> Self {
        Search {
            enc,
            budget,
            deadline,
            stats: SolveStats::default(),
            target_has: presence(&enc.targets, enc.letters.len()),
            ranking,
            near_misses: Vec::new(),
            partial: None,
            prior: None,
        }
    }

    /// The outcome of a search that found no fit: the closest state seen (the elite's,
    /// when closer) as the partial answer.
    fn unsolved(mut self, status: Status, elite: Option<Elite>) -> SolveOutcome {
        if let Some(e) = elite {
            self.offer_partial(e.key.0, &e.rules);
        }
        let enc = self.enc;
        SolveOutcome {
            status,
            cascade: None,
            partial: self.partial.map(|(_, rules)| Partial {
                cascade: enc.cascade(&rules),
                edit_sim: 0.0, // Solver::solve measures it with the core
            }),
            stats: self.stats,
        }
    }

    fn out_of_budget(&self) -> bool {
        Instant::now() >= self.deadline
            || self
                .budget
                .max_nodes
                .is_some_and(|cap| self.stats.nodes_expanded >= cap)
    }

    /// Keeps `rules` as the partial answer if it is closer to the targets (ties: fewer
    /// rules, then the first offered).
    fn offer_partial(&mut self, total: u32, rules: &[SymRule]) {
        let better = self
            .partial
            .as_ref()
            .is_none_or(|(t, r)| (total, rules.len()) < (*t, r.len()));
        if better {
            self.partial = Some((total, rules.to_vec()));
        }
    }

    /// Offers the closest state of `level` as the partial answer.
    fn offer_level(&mut self, level: &[Node]) {
        if let Some(n) = level.iter().min_by_key(|n| (n.total, n.rules.len())) {
            let rules = n.rules.clone();
            self.offer_partial(n.total, &rules);
        }
    }

    fn root(&self) -> Node {
        let strings = self.enc.inputs.clone();
        let mut dists = Vec::with_capacity(strings.len());
        let mut all_hunks = Vec::with_capacity(strings.len());
        let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
        let mut h = 0;
        let mut dp = Vec::new();
        for (s, t) in strings.iter().zip(&self.enc.targets) {
            let mut hs = Vec::new();
            dists.push(hunks(s, t, self.enc.max_len, &mut dp, &mut hs));
            for &(sig, cost) in &hs {
                let c = counts.entry(sig).or_insert(0);
                if *c == 0 {
                    h += u32::from(cost);
                }
                *c += 1;
            }
            all_hunks.push(hs);
        }
        Node {
            total: dists.iter().sum(),
            strings,
            dists,
            hunks: all_hunks,
            counts,
            h,
            cost: 0.0,
            rules: Vec::new(),
        }
    }

    fn beam(&mut self, width: usize) -> Round {
        let root = self.root();
        if root.total == 0 {
            return Round::Found(Vec::new());
        }
        let max_rules = self.enc.max_rules;
        let mut seen: FxHashSet<u64> = FxHashSet::default();
        seen.insert(state_hash(&root.strings));
        let mut level = vec![root];
        let mut dropped = false;
        for depth in 0..max_rules {
            let remaining_after = max_rules - depth - 1;
            let mut children: Vec<Child> = Vec::new();
            // Ranking by the prior: the least costly fit of this level.
            let mut found: Option<(u32, Vec<SymRule>)> = None;
            let mut candidates: Vec<Vec<SymRule>> = Vec::with_capacity(level.len());
            let mut scratch = Scratch::default();
            for (ni, node) in level.iter().enumerate() {
                if self.out_of_budget() {
                    self.offer_level(&level);
                    return Round::Stopped;
                }
                self.stats.nodes_expanded += 1;
                let cands = propose(self.enc, &node.strings, &node.dists);
                let occ = Occurrences::new(&node.strings, self.enc.letters.len());
                let wrong0 = node.dists.iter().filter(|&&d| d > 0).count() as i64;
                let ln_n = self.prior.map(|_| {
                    let counts = distinct_counts(&node.strings, self.enc.max_len);
                    counts.iter().map(|n| n.ln()).collect::<Vec<f64>>()
                });
                for (ci, cand) in cands.iter().enumerate() {
                    self.stats.candidates_scored += 1;
                    let mut key = self.score(node, wrong0, &occ, cand, &mut scratch);
                    if let (Some(per_rule), Some(ln_n)) = (self.prior, &ln_n) {
                        // f = cost so far + this rule's + the rules still needed.
                        let f = node.cost
                            + prior::rule_cost_with(self.enc, ln_n, cand)
                            + f64::from(key.0) * per_rule;
                        key = ((f * MILLI) as u32, key.1, key.2);
                        if key.1 == 0 {
                            let better = found.as_ref().is_none_or(|(k, _)| key.0 < *k);
                            if better {
                                let mut rules = node.rules.clone();
                                rules.push(cand.clone());
                                found = Some((key.0, rules));
                            }
                            continue;
                        }
                    }
                    let solved = match self.ranking {
                        Ranking::Hunks => key.1 == 0,
                        _ => key.0 == 0,
                    };
                    if solved {
                        let mut rules = node.rules.clone();
                        rules.push(cand.clone());
                        return Round::Found(rules);
                    }
                    if remaining_after > 0 {
                        children.push((key, ni as u32, ci as u32));
                    }
                }
                candidates.push(cands);
                // Keep memory bounded by the width: only the best children can enter.
                let keep = width.saturating_mul(2).max(1024);
                if children.len() > 4 * keep {
                    children.select_nth_unstable(keep);
                    children.truncate(keep);
                    dropped = true;
                }
            }
            if let Some((_, rules)) = found {
                return Round::Found(rules);
            }
            if self.out_of_budget() {
                self.offer_level(&level);
                return Round::Stopped;
            }
            children.sort_unstable();
            let mut next = Vec::with_capacity(width.min(children.len()));
            for (made, &(_, ni, ci)) in children.iter().enumerate() {
                if next.len() >= width {
                    dropped = true;
                    break;
                }
                if made % 256 == 255 && self.out_of_budget() {
                    self.offer_level(&level);
                    return Round::Stopped;
                }
                let parent = &level[ni as usize];
                let rule = &candidates[ni as usize][ci as usize];
                let child = self.apply(parent, rule);
                if self.lower_bound(&child.strings) > remaining_after {
                    continue;
                }
                if seen.insert(state_hash(&child.strings)) {
                    next.push(child);
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        self.offer_level(&level);
        self.near_misses = level
            .iter()
            .take(NEAR_MISSES)
            .map(|n| n.rules.clone())
            .collect();
        if dropped {
            Round::Failed
        } else {
            Round::Complete
        }
    }

    /// The key of the state `rule` leads to from `node`.
    fn score(
        &self,
        node: &Node,
        wrong0: i64,
        occ: &Occurrences,
        rule: &SymRule,
        scratch: &mut Scratch,
    ) -> Key {
        let mut total = node.total as i64;
        let mut wrong = wrong0;
        let ranking = self.ranking;
        scratch.adjust.clear();
        occ.for_each_candidate(&rule.a, |k| {
            let s = &node.strings[k];
            if find(s, &rule.a).is_none() {
                return;
            }
            apply_into(s, &rule.a, &rule.b, &mut scratch.string);
            if ranking != Ranking::Hunks {
                // The hunk estimate is not used for ranking: skip the alignments.
                let d = distance(&scratch.string, &self.enc.targets[k]);
                total += d as i64 - node.dists[k] as i64;
                wrong += i64::from(d > 0) - i64::from(node.dists[k] > 0);
                return;
            }
            let d = hunks(
                &scratch.string,
                &self.enc.targets[k],
                self.enc.max_len,
                &mut scratch.dp,
                &mut scratch.hunks,
            );
            total += d as i64 - node.dists[k] as i64;
            wrong += i64::from(d > 0) - i64::from(node.dists[k] > 0);
            for &(sig, cost) in &node.hunks[k] {
                adjust(&mut scratch.adjust, sig, cost, -1);
            }
            for &(sig, cost) in &scratch.hunks {
                adjust(&mut scratch.adjust, sig, cost, 1);
            }
        });
        let mut h = node.h as i64;
        for &(sig, cost, delta) in &scratch.adjust {
            let before = node.counts.get(&sig).copied().unwrap_or(0) as i64;
            let after = before + delta as i64;
            if before > 0 && after == 0 {
                h -= cost as i64;
            } else if before == 0 && after > 0 {
                h += cost as i64;
            }
        }
        let (h, total, wrong) = (h as u32, total as u32, wrong as u32);
        match self.ranking {
            Ranking::Hunks => (h, total, wrong),
            _ => (total, wrong, h),
        }
    }

    fn apply(&self, parent: &Node, rule: &SymRule) -> Node {
        let mut child = parent.clone();
        let mut scratch = Vec::new();
        let mut dp = Vec::new();
        for (k, s) in child.strings.iter_mut().enumerate() {
            if apply_into(s, &rule.a, &rule.b, &mut scratch) {
                std::mem::swap(s, &mut scratch);
                if self.ranking != Ranking::Hunks {
                    let d = distance(s, &self.enc.targets[k]);
                    child.total = child.total - child.dists[k] + d;
                    child.dists[k] = d;
                    continue;
                }
                for &(sig, cost) in &child.hunks[k] {
                    let c = child.counts.get_mut(&sig).expect("counted");
                    *c -= 1;
                    if *c == 0 {
                        child.h -= u32::from(cost);
                        child.counts.remove(&sig);
                    }
                }
                let mut hs = Vec::new();
                let d = hunks(s, &self.enc.targets[k], self.enc.max_len, &mut dp, &mut hs);
                for &(sig, cost) in &hs {
                    let c = child.counts.entry(sig).or_insert(0);
                    if *c == 0 {
                        child.h += u32::from(cost);
                    }
                    *c += 1;
                }
                child.hunks[k] = hs;
                child.total = child.total - child.dists[k] + d;
                child.dists[k] = d;
            }
        }
        if self.prior.is_some() {
            let ln_n: Vec<f64> = (distinct_counts(&parent.strings, self.enc.max_len).iter())
                .map(|n| n.ln())
                .collect();
            child.cost += prior::rule_cost_with(self.enc, &ln_n, rule);
        }
        child.rules.push(rule.clone());
        child
    }

    /// A lower bound on the rules still needed: every letter present now but in no target
    /// must occur in some rule's pattern, every letter in a target but absent now in some
    /// rule's replacement, and a side holds at most `max_len` letters.
    fn lower_bound(&self, strings: &[Sym]) -> usize {
        let now = presence(strings, self.enc.letters.len());
        let extra = now
            .iter()
            .zip(&self.target_has)
            .filter(|&(&n, &t)| n && !t)
            .count();
        let missing = now
            .iter()
            .zip(&self.target_has)
            .filter(|&(&n, &t)| !n && t)
            .count();
        extra.max(missing).div_ceil(self.enc.max_len)
    }
}

/// For each symbol, a bitset of the examples whose current string contains it.
struct Occurrences {
    words: usize,
    bits: Vec<u64>,
}

impl Occurrences {
    fn new(strings: &[Sym], symbols: usize) -> Self {
        let words = strings.len().div_ceil(64);
        let mut bits = vec![0u64; words * symbols];
        for (k, s) in strings.iter().enumerate() {
            for &c in s {
                bits[c as usize * words + k / 64] |= 1 << (k % 64);
            }
        }
        Occurrences { words, bits }
    }

    /// Calls `f` on every example that contains all symbols of `pattern`.
    fn for_each_candidate(&self, pattern: &[u8], mut f: impl FnMut(usize)) {
        for w in 0..self.words {
            let mut m = u64::MAX;
            for &c in pattern {
                m &= self.bits[c as usize * self.words + w];
            }
            while m != 0 {
                let b = m.trailing_zeros() as usize;
                f(w * 64 + b);
                m &= m - 1;
            }
        }
    }
}

/// Drops context letters (a letter shared by the start, or the end, of both sides) from
/// each rule while the cascade still reproduces every example: the search often finds
/// `abc -> adc` where `b -> d` does the same job, and the shorter rule is more likely to
/// be the general one (it does better on held-out examples).
fn generalize(enc: &Encoded, mut rules: Vec<SymRule>) -> Vec<SymRule> {
    let reproduces = |rules: &[SymRule]| {
        let mut scratch = Vec::new();
        enc.inputs.iter().zip(&enc.targets).all(|(input, target)| {
            let mut cur = input.clone();
            for r in rules {
                if apply_into(&cur, &r.a, &r.b, &mut scratch) {
                    std::mem::swap(&mut cur, &mut scratch);
                }
            }
            &cur == target
        })
    };
    for i in 0..rules.len() {
        loop {
            let r = &rules[i];
            let mut shorter = Vec::new();
            if r.a.len() > 1 && !r.b.is_empty() && r.a[0] == r.b[0] {
                shorter.push(SymRule {
                    a: r.a[1..].to_vec(),
                    b: r.b[1..].to_vec(),
                });
            }
            if r.a.len() > 1 && !r.b.is_empty() && r.a.last() == r.b.last() {
                let (na, nb) = (r.a.len() - 1, r.b.len() - 1);
                shorter.push(SymRule {
                    a: r.a[..na].to_vec(),
                    b: r.b[..nb].to_vec(),
                });
            }
            let original = rules[i].clone();
            let mut improved = false;
            for cand in shorter {
                if cand.a == cand.b {
                    continue;
                }
                rules[i] = cand;
                if reproduces(&rules) {
                    improved = true;
                    break;
                }
                rules[i] = original.clone();
            }
            if !improved {
                break;
            }
        }
    }
    rules
}

/// Adds `delta` to the pending count change of hunk `sig`.
fn adjust(list: &mut Vec<(u64, u8, i32)>, sig: u64, cost: u8, delta: i32) {
    if let Some(entry) = list.iter_mut().find(|e| e.0 == sig) {
        entry.2 += delta;
    } else {
        list.push((sig, cost, delta));
    }
}

fn presence(strings: &[Sym], symbols: usize) -> Vec<bool> {
    let mut has = vec![false; symbols];
    for s in strings {
        for &c in s {
            has[c as usize] = true;
        }
    }
    has
}

fn state_hash(strings: &[Sym]) -> u64 {
    let mut h = FxHasher::default();
    for s in strings {
        h.write(s);
        h.write_u8(0xff);
    }
    h.finish()
}
