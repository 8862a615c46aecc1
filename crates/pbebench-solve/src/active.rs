//! Active learning: the built-in solver probing the sealed cascade (docs/interactive.md, issue 21).
//!
//! [`solve_probing`] receives a solver and an [`Oracle`], never an instance: what it can
//! learn of the hidden cascade comes from [`Oracle::task`] (the visible examples and the
//! limits) and [`Oracle::run_hidden`] (every input counted and recorded), so the gold is
//! out of its reach by its signature, not by convention.
//!
//! The loop, counterexample-guided:
//!
//! 1. Solve the examples known so far (the visible ones and every answered probe): the
//!    candidate C. (Giving the solver only the examples earlier candidates got wrong, and
//!    checking C against the rest, was tried: fewer examples guide the search worse, and
//!    Recovered@1 on the full preset's lengths 8–20 fell from 25 to 14 of 42.)
//! 2. Build rivals of C that fit the same examples and could be the hidden cascade as
//!    well: C without one rule, with two neighbouring rules swapped, with a context letter
//!    dropped from or added to one rule. Each rival that fits every known example is
//!    compared with C exactly ([`equiv::Reference::compare`]) over the strings of the
//!    task's alphabet up to its longest visible input or 6 letters, whichever is longer
//!    (the space Recovered@1 is graded over, [`InputSpace::of`]); where they differ, the
//!    shortest counterexample is an input whose hidden output tells them apart.
//! 3. Probe a batch of such inputs. When C got one of them wrong, go back to 1 with the
//!    answers as examples; else rivals are ruled out and the search for more goes on.
//! 4. When no rival is left, each pattern and each replacement of C's rules is probed
//!    alone: a context C's rule needs where the hidden rule has none shows, and so does a
//!    replacement that the hidden cascade rewrites further.
//! 5. Then inputs that hold every pair of letters of the alphabet (a de Bruijn sequence cut
//!    into pieces of the longest accepted probe: 10 inputs on Lite's 17 letters), or every
//!    letter where the pairs would take more than 16 inputs (2 on the full preset's 52).
//!    Where the oracle takes long probes (`--max-probe-len`), the pieces are short and
//!    packed instead (the full preset's pairs in 14 probes of 256 letters), so that a
//!    surprising piece makes a short example ([`pair_cover`]).
//!    A hidden rule of one or two letters whose pattern never shows in the visible inputs,
//!    because it only matches what an earlier rule wrote (`d → icg`, `cg → v`, answered
//!    by `d → iv`), is met for sure, where random inputs meet it by chance.
//! 6. Then the pieces of C's patterns alone (each pattern without its first and without
//!    its last letter) and each form a pattern passes through as C's other rules rewrite
//!    it, one rule at a time: where C folds two hidden rules into one (`Xw → s`,
//!    `sb → u` answered by `Xwb → u`), `Xw` shows the intermediate, and once `Xw → s` is
//!    learnt, `sb` the second rule. Then the pieces of those forms, and the patterns and
//!    forms with one of C's rewrites undone (a replacement put back to its pattern):
//!    where the hidden rule matches a string C never writes (gold `h → vJ`, `rvJ → Af`,
//!    `J → VK`, answered by `rh → Af`, `h → vVK`), `rh` becomes `rvVK`, and undone,
//!    `rvJ` ([`traces`]).
//! 7. Windows of the visible inputs that the hidden cascade changes are probed alone
//!    (three letters each): each shows what the rules do to one stretch without the rest
//!    of its input, which splits a change that C explains with one long rule into the
//!    hidden rules that made it.
//! 8. Then the budget left goes to focused inputs: random strings, each letter drawn from
//!    the letters of C's rules or from the whole alphabet, half and half, and among those
//!    from the letters that make a pair with the one before that no probe held yet.
//!    Packed (below), they are stretches as long as the longest visible input, several to
//!    a probe; else whole probes as long as the oracle accepts (32 letters on the
//!    presets).
//!    [`ActiveConfig::focused_rounds`] can stop the loop after rounds that hold no
//!    surprise, to save probes.
//!
//! Steps 2, 4 and 6 start again with every new candidate; steps 5 and 7 go on where they
//! were.
//! A hidden intermediate of three letters that C never writes and that no visible input
//! holds (`bzk → kjx`, `kjx → avh` answered by `bzk → avh`) stays out of reach: no probe
//! built from C or the examples holds `kjx`, and 50 random inputs of 32 letters hold one
//! given three-letter string with a chance of about a quarter on Lite. Such latent
//! intermediates bound what any prober can recover: `benches/solve/ceiling.py`.
//!
//! Short queries (the inputs of steps 2, 4, 6, 7 and 8) are **packed**: joined by a
//! separator letter that no rule of C touches ([`separator`]; preferably one no example
//! holds) into inputs as long as the oracle accepts, up to 2 a round (4 in step 8). The
//! budget counts inputs, so one probe asks what four to eight would. Where the output
//! splits at the separator as the input does, each piece is known with its part of the
//! output, and the solver learns from the short pieces; the probe whole checks each
//! answer, in case a hidden rule touches the separator after all. A surprise is then
//! short, which keeps re-solves fast: whole random inputs of 32 letters, every rule
//! acting at once, made re-solves on long cascades run out of time.
//!
//! A surprised candidate is first **mended** ([`mend`]): the rule an example of the last
//! round shows alone (a short input to its output) put in at some place, or one rival of
//! step 2; the first that fits every known example is the new candidate, without a solve.
//! Else the problem is solved again **from the candidate** ([`Solver::solve_from`]: the
//! beam solvers repair it locally for a third of the time before searching from
//! scratch).
//!
//! On the full preset's lengths 10–20 (36 instances, same seeds, budget and time),
//! Recovered@1 went from 11 to 17 with packing, to 18 with mending, and to 20 with
//! stretches in step 8 and warm re-solves (`benches/solve/probe.md`).
//!
//! Each candidate is simplified before it is used: rules dropped while the rest still fits
//! every known example (the hidden cascade wastes no rule, and answers that patch their
//! own side effects generalise worse).
//!
//! The answer is the last candidate found: it fits every visible example and every probe
//! made before it was found. A re-solve made while probes are left gets half the time
//! left; when it fails (the time ran out on the harder problem), the previous candidate
//! stays, the probing goes on (later probes may make the problem easier, say by showing a
//! hidden intermediate alone), and the problem is solved again after the next batch; the
//! last re-solve, with no probe left, gets all the time left.

use crate::{Budget, Problem, SolveOutcome, SolveStats, Solver, Status};
use pbebench::equiv::{self, InputSpace, Limits};
use pbebench::probe::{Oracle, Probe, Task};
use pbebench::{Cascade, Rule};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// How [`solve_probing`] spends its probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveConfig {
    /// Distinguishing inputs probed per round at most.
    pub batch: usize,
    /// Focused inputs per round once no rival is left.
    pub focused_batch: usize,
    /// Rounds of focused inputs in a row that C gets wholly right before the loop stops
    /// (`usize::MAX`: spend the whole budget).
    pub focused_rounds: usize,
    /// Letters per focused input when they are not packed; `None`: the longest input the
    /// oracle accepts.
    pub focused_len: Option<usize>,
    /// Length of the windows of changed visible inputs probed (0: none).
    pub window: usize,
    /// Rivals compared with the candidate per round at most (each comparison is exact and
    /// costs about a millisecond on the full preset).
    pub max_comparisons: usize,
    /// Probe each pattern and each replacement of the candidate's rules alone.
    pub isolate: bool,
    /// Probes at most that together hold every pair of letters of the alphabet (0: none;
    /// when more would be needed, probes that hold every letter) ([`pair_cover`]).
    pub max_pair_probes: usize,
    /// Short queries (distinguishing inputs, patterns, replacements, pieces, windows) put
    /// together into probes as long as the oracle accepts, joined by a separator letter
    /// that no rule seems to touch ([`separator`]): one probe then asks what several
    /// would, and the budget counts inputs, not letters.
    pub pack: bool,
    /// Mend a surprised candidate before solving anew ([`mend`]).
    pub mend: bool,
    /// Re-solve from the candidate ([`Solver::solve_from`]) rather than from scratch.
    pub warm_start: bool,
}

impl Default for ActiveConfig {
    /// 8 distinguishing inputs (or isolating ones, or windows) a round, at most 300
    /// comparisons a round; the patterns and replacements alone; the pair cover (at most
    /// 16 inputs, 4 a round, or 2 a round when packed); windows of 3 letters; then
    /// focused inputs 4 at a time, as long as the oracle accepts, until the budget is
    /// spent.
    fn default() -> Self {
        ActiveConfig {
            batch: 8,
            focused_batch: 4,
            focused_rounds: usize::MAX,
            focused_len: None,
            window: 3,
            max_comparisons: 300,
            isolate: true,
            max_pair_probes: 16,
            pack: true,
            mend: true,
            warm_start: true,
        }
    }
}

/// What [`solve_probing`] found and spent.
#[derive(Debug, Clone, PartialEq)]
pub struct Probed {
    /// The answer, verified against the visible examples and the limits (as
    /// [`Solver::solve`] verifies), with the effort of every solve summed.
    pub outcome: SolveOutcome,
    /// Every probe, in order.
    pub probes: Vec<Probe>,
    /// Solves run (the first one included).
    pub solves: u32,
}

/// Solves the task of `oracle` with `solver`, probing the hidden cascade as the module
/// documentation describes. `budget.time_limit` bounds the whole loop; a node cap, if
/// any, holds per solve.
pub fn solve_probing(
    solver: &dyn Solver,
    oracle: &mut Oracle,
    budget: &Budget,
    config: &ActiveConfig,
) -> Probed {
    let start = Instant::now();
    let task = oracle.task().clone();
    let visible = problem_of(&task, task.inputs.clone(), task.outputs.clone());
    let mut inputs = task.inputs.clone();
    let mut outputs = task.outputs.clone();
    let mut known: HashSet<String> = inputs.iter().cloned().collect();
    // Which known examples the solver is given: all but packed probes whole, which check
    // each answer instead (their pieces are given), and join the solver's examples when
    // an answer gets them wrong.
    let mut solved_with: Vec<bool> = vec![true; inputs.len()];
    let space = space_of(&task);
    let mut rng = SplitMix(seed_of(&task.id));
    let mut stats = SolveStats::default();
    let mut answer: Option<Cascade> = None;
    let mut last_status = Status::Exhausted;
    let mut solves = 0;
    let mut need_solve = true;
    // The candidate fails some known example (its re-solve ran out of time).
    let mut stale = false;
    let mut quiet_focused = 0;
    let windows = windows_of(&task, config.window);
    let pairs = pair_cover(&task, config.max_pair_probes);
    // Where the examples of the last round begin.
    let mut new_from = inputs.len();
    loop {
        // A candidate surprised by the last round is first mended in place, when one
        // learnt rule or one local change makes it fit again; only else solved anew.
        if need_solve && config.mend {
            let deadline = pbebench::deadline(start, budget.time_limit);
            let mended = (answer.as_ref())
                .and_then(|c| mend(c, &task, (&inputs, &outputs), new_from, deadline));
            if let Some(mended) = mended {
                answer = Some(simplest(
                    mended,
                    &inputs,
                    &outputs,
                    start,
                    budget.time_limit,
                ));
                stale = false;
                need_solve = false;
            }
        }
        if need_solve {
            let Some(left) = budget.time_limit.checked_sub(start.elapsed()) else {
                break;
            };
            let (some_in, some_out): (Vec<String>, Vec<String>) = (inputs.iter().cloned())
                .zip(outputs.iter().cloned())
                .zip(&solved_with)
                .filter_map(|(io, &used)| used.then_some(io))
                .unzip();
            let Some(problem) = problem_of(&task, some_in, some_out) else {
                break;
            };
            // A re-solve with probes left gets half the time left: when it fails, the
            // probes still to come may make the problem easier (a hidden intermediate
            // met alone), and the next re-solve gets its chance.
            let share = if answer.is_none() || oracle.budget_left() == 0 {
                left
            } else {
                left / 2
            };
            let share = Budget {
                time_limit: share.max(Duration::from_millis(1)),
                max_nodes: budget.max_nodes,
            };
            // Started from the candidate, which fitted all but the last round's examples.
            let outcome = match &answer {
                Some(c) if config.warm_start => solver.solve_from(&problem, c, &share),
                _ => solver.solve(&problem, &share),
            };
            solves += 1;
            add_stats(&mut stats, &outcome.stats);
            last_status = outcome.status.clone();
            match outcome.cascade {
                Some(found) if outcome.status == Status::Solved => {
                    // Known examples the answer gets wrong join the solver's, and the
                    // problem is solved again.
                    let limit = bound(&outputs, "");
                    let mut wrong = false;
                    for (k, used) in solved_with.iter_mut().enumerate() {
                        if !*used
                            && found.apply_bounded(&inputs[k], limit).as_deref()
                                != Ok(outputs[k].as_str())
                        {
                            *used = true;
                            wrong = true;
                        }
                    }
                    if wrong {
                        continue;
                    }
                    answer = Some(simplest(found, &inputs, &outputs, start, budget.time_limit));
                    stale = false;
                }
                // The harder problem was not solved: the previous candidate stays, and
                // is solved again after the next probes, if any are left.
                _ if answer.is_some() && oracle.budget_left() > 0 => stale = true,
                _ => break,
            }
        }
        let Some(candidate) = answer.as_ref() else {
            break;
        };
        if oracle.budget_left() == 0 || start.elapsed() >= budget.time_limit {
            break;
        }
        // Packed, a round asks for four times the queries, in two probes at most.
        let sep = if config.pack {
            separator(candidate, &task, &inputs, &outputs)
        } else {
            None
        };
        let want = if sep.is_some() {
            4 * config.batch
        } else {
            config.batch
        };
        let mut queries = space.as_ref().map_or_else(Vec::new, |space| {
            let io = (inputs.as_slice(), outputs.as_slice());
            distinguishing(candidate, &task, io, space, &known, config, want)
        });
        if queries.is_empty() && config.isolate {
            queries = isolating(candidate, &task, &known, want, false);
        }
        if queries.is_empty() {
            // Short pieces go as many to a round as the packed probes hold; they wait for a
            // round with a separator.
            let take = match (pairs.packed, sep) {
                (false, _) => config.focused_batch,
                (true, Some(_)) => usize::MAX,
                (true, None) => 0,
            };
            queries = (pairs.pieces.iter())
                .filter(|w| !known.contains(*w))
                .take(take)
                .cloned()
                .collect();
        }
        if queries.is_empty() && config.isolate {
            queries = isolating(candidate, &task, &known, want, true);
        }
        if queries.is_empty() {
            queries = (windows.iter())
                .filter(|w| !known.contains(*w))
                .take(want)
                .cloned()
                .collect();
        }
        let focused = queries.is_empty();
        if focused {
            if quiet_focused >= config.focused_rounds {
                break;
            }
            // Packed, random stretches as long as the longest visible input (at least 3
            // letters): where one surprises, the example the solver learns from is that
            // short, not a whole input of 32 letters with every rule acting at once.
            let (count, len) = match sep {
                Some(_) => {
                    let longest = task.inputs.iter().map(|s| s.chars().count()).max();
                    (8 * config.focused_batch, longest.unwrap_or(3).clamp(3, 6))
                }
                None => (
                    config.focused_batch,
                    config.focused_len.unwrap_or(task.max_probe_len),
                ),
            };
            queries = focused_inputs(candidate, &task, &known, count, len, &mut rng);
            if queries.is_empty() {
                break;
            }
        }
        let (queries, asked) = match sep {
            Some(sep) => {
                let probes = if focused {
                    config.focused_batch
                } else {
                    PACKED_PROBES
                };
                pack(
                    &queries,
                    sep,
                    task.max_probe_len,
                    probes.min(oracle.budget_left()),
                )
            }
            _ => {
                queries.truncate(oracle.budget_left());
                (queries.clone(), queries)
            }
        };
        let Ok(answers) = oracle.run_hidden(&queries) else {
            break;
        };
        let surprised = queries
            .iter()
            .zip(&answers)
            .any(|(i, o)| candidate.apply_bounded(i, bound(&outputs, o)).as_deref() != Ok(o));
        if focused {
            quiet_focused = if surprised { 0 } else { quiet_focused + 1 };
        }
        need_solve = surprised || stale;
        known.extend(asked);
        new_from = inputs.len();
        for (i, o) in queries.into_iter().zip(answers) {
            known.insert(i.clone());
            // A packed probe is also known as its pieces, each with its part of the output,
            // when the output splits as the input does (the probe whole stays, in case a
            // hidden rule touches the separator after all).
            let pieces = sep.and_then(|sep| split(&i, &o, sep));
            let whole_given = pieces.is_none();
            for (i, o) in pieces.into_iter().flatten() {
                if !inputs.contains(&i) {
                    inputs.push(i);
                    outputs.push(o);
                    solved_with.push(true);
                }
            }
            inputs.push(i);
            outputs.push(o);
            solved_with.push(whole_given);
        }
    }
    stats.elapsed = start.elapsed();
    let outcome = match (answer, visible) {
        (Some(cascade), Some(visible)) => match visible.check(&cascade) {
            Ok(()) => SolveOutcome {
                status: Status::Solved,
                cascade: Some(cascade),
                partial: None,
                stats,
            },
            Err(why) => SolveOutcome {
                status: Status::Rejected(why),
                cascade: None,
                partial: None,
                stats,
            },
        },
        _ => SolveOutcome {
            status: match last_status {
                Status::Solved => Status::Exhausted,
                other => other,
            },
            cascade: None,
            partial: None,
            stats,
        },
    };
    Probed {
        outcome,
        probes: oracle.probes().to_vec(),
        solves,
    }
}

/// A cascade next to `candidate` that fits every known example, if one is found before
/// `deadline`: `candidate` with a rule learnt from an example of the last round that it
/// gets wrong (that example's input to its output, when short enough to be a rule: the
/// pattern of a hidden rule probed alone) put in at some place, else one of the rivals of
/// step 2. The examples from `new_from` on, the last round's, are checked first, so most
/// tries end at the first example.
fn mend(
    candidate: &Cascade,
    task: &Task,
    (inputs, outputs): (&[String], &[String]),
    new_from: usize,
    deadline: Instant,
) -> Option<Cascade> {
    let limit = bound(outputs, "");
    let right = |c: &Cascade, k: usize| {
        c.apply_bounded(&inputs[k], limit).as_deref() == Ok(outputs[k].as_str())
    };
    let order: Vec<usize> = (new_from..inputs.len()).chain(0..new_from).collect();
    let short = |s: &str| s.chars().count() <= task.max_rule_len;
    let learnt: Vec<Rule> = (new_from..inputs.len())
        .filter(|&k| !right(candidate, k) && short(&inputs[k]) && short(&outputs[k]))
        .filter_map(|k| Rule::new(inputs[k].as_str(), outputs[k].as_str()).ok())
        .collect();
    let rules = candidate.rules();
    let room = rules.len() < task.max_rules;
    let inserted = learnt.iter().filter(|_| room).flat_map(|rule| {
        (0..=rules.len()).map(move |at| {
            let mut v = rules.to_vec();
            v.insert(at, rule.clone());
            Cascade::new(v)
        })
    });
    for (tried, c) in inserted.chain(rivals(candidate, task)).enumerate() {
        if tried % 64 == 0 && Instant::now() >= deadline {
            return None;
        }
        if order.iter().all(|&k| right(&c, k)) {
            return Some(c);
        }
    }
    None
}

/// `cascade` with rules dropped while it still fits every example: first rules whose
/// removal alone keeps the fit, then rules that can go once another one is moved. The
/// hidden cascade wastes no rule (each changes an example), so among fitting answers the
/// shorter ones are likelier to behave as it does; and probes answered by a rule that
/// only patches another rule's side effect leave such detours behind.
fn simplest(
    cascade: Cascade,
    inputs: &[String],
    outputs: &[String],
    start: Instant,
    limit: Duration,
) -> Cascade {
    let max_len = bound(outputs, "");
    let fits = |rules: &[Rule]| {
        let c = Cascade::new(rules.to_vec());
        (inputs.iter().zip(outputs))
            .all(|(i, o)| c.apply_bounded(i, max_len).as_deref() == Ok(o.as_str()))
    };
    let mut rules = cascade.rules().to_vec();
    'again: loop {
        for k in (0..rules.len()).rev() {
            let mut fewer = rules.clone();
            fewer.remove(k);
            if fits(&fewer) {
                rules = fewer;
                continue 'again;
            }
        }
        // A move that lets some rule go (n² × n fits: only for short cascades).
        if rules.len() <= 8 {
            for k in 0..rules.len() {
                for j in (0..rules.len()).filter(|&j| j != k) {
                    if start.elapsed() >= limit {
                        break 'again;
                    }
                    let mut moved = rules.clone();
                    let rule = moved.remove(k);
                    moved.insert(j, rule);
                    for d in 0..moved.len() {
                        let mut fewer = moved.clone();
                        fewer.remove(d);
                        if fits(&fewer) {
                            rules = fewer;
                            continue 'again;
                        }
                    }
                }
            }
        }
        break;
    }
    Cascade::new(rules)
}

/// The problem of the task's limits over these examples.
fn problem_of(task: &Task, inputs: Vec<String>, outputs: Vec<String>) -> Option<Problem> {
    Problem::new(
        inputs,
        outputs,
        task.max_rules,
        task.max_rule_len,
        &task.alphabet,
    )
    .ok()
}

/// Where candidates are told apart: the strings over the task's alphabet from one letter
/// up to its longest visible input or the presets' longest input (6), whichever is
/// longer (at most the longest probe accepted), so that it holds the space Recovered@1
/// grades over ([`InputSpace::of`]). `None` without an alphabet.
fn space_of(task: &Task) -> Option<InputSpace> {
    let longest = task.inputs.iter().map(|s| s.chars().count()).max()?;
    let max = longest
        .max(equiv::PRESET_INPUT_LEN.1)
        .clamp(1, task.max_probe_len.max(1))
        .min(equiv::MAX_INPUT_LEN);
    InputSpace::new(task.alphabet.chars(), 1, max).ok()
}

/// The bound on our own candidates' intermediate strings: sixteen times the longest
/// output seen, at least 256 characters.
fn bound(outputs: &[String], extra: &str) -> usize {
    let longest = (outputs.iter().map(String::as_str))
        .chain([extra])
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(0);
    (16 * longest).max(256)
}

/// Inputs on which rivals of `candidate` that fit every known example differ from it, at
/// most `count`, none of them known already.
fn distinguishing(
    candidate: &Cascade,
    task: &Task,
    (inputs, outputs): (&[String], &[String]),
    space: &InputSpace,
    known: &HashSet<String>,
    config: &ActiveConfig,
    count: usize,
) -> Vec<String> {
    let max_len = bound(outputs, "");
    let fits = |rival: &Cascade| {
        inputs
            .iter()
            .zip(outputs)
            .all(|(i, o)| rival.apply_bounded(i, max_len).as_deref() == Ok(o.as_str()))
    };
    let mut reference = equiv::Reference::new(candidate, space, &Limits::default());
    let mut found: Vec<String> = Vec::new();
    let mut compared = 0;
    for rival in rivals(candidate, task) {
        if found.len() >= count || compared >= config.max_comparisons {
            break;
        }
        if !fits(&rival) {
            continue;
        }
        compared += 1;
        let counterexample = match reference.compare(&rival) {
            Ok(c) => c.counterexample,
            Err(undecided) => undecided.counterexample,
        };
        if let Some(c) = counterexample {
            if !known.contains(&c.input) && !found.contains(&c.input) {
                found.push(c.input);
            }
        }
    }
    found
}

/// Cascades near `candidate`, in the order they are tried: one rule dropped, one rule
/// moved to another place, a context letter dropped from a rule (from both sides, when they
/// share it), a context letter added to a rule (on both sides), for every letter.
fn rivals<'a>(candidate: &'a Cascade, task: &'a Task) -> impl Iterator<Item = Cascade> + 'a {
    let rules = candidate.rules();
    let n = rules.len();
    let with = move |k: usize, rule: Option<Rule>| {
        let mut v = rules.to_vec();
        match rule {
            Some(r) => v[k] = r,
            None => {
                v.remove(k);
            }
        }
        Cascade::new(v)
    };
    let dropped = (0..n).map(move |k| with(k, None));
    let moved = (0..n).flat_map(move |k| {
        (0..n).filter(move |&j| j != k).map(move |j| {
            let mut v = rules.to_vec();
            let rule = v.remove(k);
            v.insert(j, rule);
            Cascade::new(v)
        })
    });
    let shrunk = (0..n).flat_map(move |k| {
        let (p, r) = (rules[k].pattern(), rules[k].replacement());
        let mut out = Vec::new();
        if let (Some(a), Some(b)) = (p.chars().next(), r.chars().next()) {
            if a == b && p.len() > a.len_utf8() {
                out.extend(Rule::new(&p[a.len_utf8()..], &r[b.len_utf8()..]).ok());
            }
        }
        if let (Some(a), Some(b)) = (p.chars().next_back(), r.chars().next_back()) {
            if a == b && p.len() > a.len_utf8() {
                let rule = Rule::new(&p[..p.len() - a.len_utf8()], &r[..r.len() - b.len_utf8()]);
                out.extend(rule.ok());
            }
        }
        out.into_iter().map(move |rule| with(k, Some(rule)))
    });
    let limit = task.max_rule_len;
    let grown = (0..n).flat_map(move |k| {
        let (p, r) = (rules[k].pattern(), rules[k].replacement());
        let fits = p.chars().count() < limit && r.chars().count() < limit;
        task.alphabet
            .chars()
            .filter(move |_| fits)
            .flat_map(move |x| {
                [
                    Rule::new(format!("{x}{p}"), format!("{x}{r}")),
                    Rule::new(format!("{p}{x}"), format!("{r}{x}")),
                ]
            })
            .filter_map(Result::ok)
            .map(move |rule| with(k, Some(rule)))
    });
    dropped.chain(moved).chain(shrunk).chain(grown)
}

/// Probes a packed round takes at most ([`ActiveConfig::pack`]).
const PACKED_PROBES: usize = 2;

/// The letter that joins packed queries: one that no rule of `candidate` reads or writes,
/// preferably one that no known example holds (no hidden rule has shown it either), else
/// the one the known inputs hold most often (seen often and never rewritten by the
/// candidate). `None` when every letter is in some rule of the candidate. A hidden rule
/// that does touch it makes a packed probe surprising, and the re-solve learns from it as
/// from any example.
fn separator(
    candidate: &Cascade,
    task: &Task,
    inputs: &[String],
    outputs: &[String],
) -> Option<char> {
    let ruled: HashSet<char> = (candidate.rules().iter())
        .flat_map(|r| r.pattern().chars().chain(r.replacement().chars()))
        .collect();
    let mut count = std::collections::BTreeMap::new();
    for c in task.alphabet.chars().filter(|c| !ruled.contains(c)) {
        count.insert(c, 0usize);
    }
    let mut unseen: HashSet<char> = count.keys().copied().collect();
    for s in inputs.iter().chain(outputs) {
        for c in s.chars() {
            unseen.remove(&c);
        }
    }
    for s in inputs {
        for c in s.chars() {
            if let Some(n) = count.get_mut(&c) {
                *n += 1;
            }
        }
    }
    if let Some(c) = task.alphabet.chars().find(|c| unseen.contains(c)) {
        return Some(c);
    }
    // The most frequent; the first in the alphabet's order among equals.
    let best = count.values().copied().max()?;
    task.alphabet.chars().find(|c| count.get(c) == Some(&best))
}

/// The pieces of a packed probe with their outputs: `input` and `output` cut at `sep`,
/// when both hold it as often (at least once). `None` else.
fn split(input: &str, output: &str, sep: char) -> Option<Vec<(String, String)>> {
    let ins: Vec<&str> = input.split(sep).collect();
    let outs: Vec<&str> = output.split(sep).collect();
    (ins.len() > 1 && ins.len() == outs.len()).then(|| {
        (ins.into_iter().zip(outs))
            .map(|(i, o)| (i.to_string(), o.to_string()))
            .collect()
    })
}

/// `queries` joined by `sep` into at most `probes` inputs of at most `max_len` letters,
/// in order, each query whole in one input: the inputs, and the queries they hold.
fn pack(
    queries: &[String],
    sep: char,
    max_len: usize,
    probes: usize,
) -> (Vec<String>, Vec<String>) {
    let mut out: Vec<String> = Vec::new();
    let mut asked = Vec::new();
    if probes == 0 {
        return (out, asked);
    }
    let mut current = String::new();
    let mut len = 0;
    for q in queries {
        let n = q.chars().count();
        if n > max_len {
            continue;
        }
        if len > 0 && len + 1 + n > max_len {
            if out.len() + 1 >= probes {
                break;
            }
            out.push(std::mem::take(&mut current));
            len = 0;
        }
        if len > 0 {
            current.push(sep);
            len += 1;
        }
        current.push_str(q);
        len += n;
        asked.push(q.clone());
    }
    if len > 0 && out.len() < probes {
        out.push(current);
    }
    (out, asked)
}

/// The distinct windows of `len` letters of the visible inputs that the hidden cascade
/// changes (the whole input when shorter), each input's in order, the inputs in order.
/// Probed alone, a window shows what the rules do to that stretch without the rest of
/// the input, which splits a change the candidate explains with one long rule into the
/// hidden rules that made it.
fn windows_of(task: &Task, len: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if len == 0 {
        return out;
    }
    for (input, output) in task.inputs.iter().zip(&task.outputs) {
        if input == output {
            continue;
        }
        let chars: Vec<char> = input.chars().collect();
        let n = len.min(chars.len());
        for w in chars.windows(n) {
            let w: String = w.iter().collect();
            if w != *input && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// The patterns and the replacements of `candidate`'s rules, each alone, none known yet,
/// at most `count`. Alone, a pattern shows whether the hidden cascade rewrites it as the
/// candidate does without the example around it (a context the candidate's rule needs
/// where the hidden one has none, or the reverse), and a replacement whether the hidden
/// cascade rewrites it further, or a rule that stands in for two hidden ones whose order
/// differs (`ggg → g` fitted where the hidden cascade has `ggx → x`: `ggg` alone tells).
///
/// With `parts`, the pieces of the patterns instead: each pattern without its first and
/// without its last letter (of two letters at least). Where the candidate folded two
/// hidden rules into one (`Xw → s`, `sb → u` answered by `Xwb → u`), the pattern of the
/// first one is such a piece, and alone it shows the intermediate (`Xw` gives `s`).
/// Then each pattern as the candidate's other rules rewrite it: once the candidate has
/// learnt `Xw → s` and kept `Xwb → u`, `sb` shows the second hidden rule.
fn isolating(
    candidate: &Cascade,
    task: &Task,
    known: &HashSet<String>,
    count: usize,
    parts: bool,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let fits = |s: &str| {
        !s.is_empty()
            && s.chars().count() <= task.max_probe_len
            && s.chars().all(|c| task.alphabet.contains(c))
    };
    let rules = candidate.rules();
    let (forms, undone) = if parts {
        traces(rules, task.max_probe_len)
    } else {
        (Vec::new(), Vec::new())
    };
    let strings: Vec<&str> = if parts {
        (rules.iter().map(Rule::pattern))
            .filter(|p| p.chars().count() >= 3)
            .flat_map(pieces)
            .chain(forms.iter().map(String::as_str))
            .chain(
                (forms.iter())
                    .filter(|f| f.chars().count() >= 3)
                    .flat_map(|f| pieces(f)),
            )
            .chain(undone.iter().map(String::as_str))
            .collect()
    } else {
        (rules.iter().map(Rule::pattern))
            .chain(rules.iter().map(Rule::replacement))
            .collect()
    };
    for s in strings {
        if out.len() >= count {
            break;
        }
        if fits(s) && !known.contains(s) && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

/// `p` without its last letter and without its first.
fn pieces(p: &str) -> [&str; 2] {
    let first = p.chars().next().map_or(0, char::len_utf8);
    let last = p.chars().next_back().map_or(0, char::len_utf8);
    [&p[..p.len() - last], &p[first..]]
}

/// Each rule's pattern as the other rules of `rules` rewrite it, one rule at a time: every
/// form it passes through (at most `max_len` letters), in order; then each such form, and
/// each pattern, with one rule's rewriting undone (that rule's replacement, wherever it
/// occurs, put back to its pattern), one string for each rule whose replacement occurs.
///
/// Where the candidate answers two hidden rules with one that holds a context (gold
/// `jX → f`, `Of → MH`, answered by `OjR → MH` next to `R → X`, `jX → f`), an
/// intermediate form (`OjX`, then `Of`) holds the hidden rule's pattern; where the hidden
/// rule matches a string the candidate never writes (gold `h → vJ`, `rvJ → Af`, `J → VK`,
/// answered by `rh → Af`, `h → vVK`), undoing a rewrite does (`rvVK` to `rvJ`).
fn traces(rules: &[Rule], max_len: usize) -> (Vec<String>, Vec<String>) {
    let mut forms: Vec<String> = Vec::new();
    for (k, rule) in rules.iter().enumerate() {
        let mut s = rule.pattern().to_string();
        for (j, other) in rules.iter().enumerate() {
            if j == k {
                continue;
            }
            let next = other.apply(&s);
            if next == s {
                continue;
            }
            if next.is_empty() || next.chars().count() > max_len {
                break;
            }
            forms.push(next.clone());
            s = next;
        }
    }
    let mut undone: Vec<String> = Vec::new();
    let patterns = rules.iter().map(Rule::pattern);
    for f in patterns.chain(forms.iter().map(String::as_str)) {
        for r in rules {
            if !r.replacement().is_empty() && r.replacement() != r.pattern() {
                let u = f.replace(r.replacement(), r.pattern());
                if u != f && u.chars().count() <= max_len {
                    undone.push(u);
                }
            }
        }
    }
    (forms, undone)
}

/// Letters per piece of a packed pair cover ([`pair_cover`]).
const PAIR_PIECE_LEN: usize = 8;

/// Inputs that together hold every pair of letters of the task's alphabet: a de Bruijn
/// sequence of order 2 cut into pieces that overlap by one letter.
struct PairCover {
    /// The inputs, in order.
    pieces: Vec<String>,
    /// The pieces are short, to be packed several to a probe.
    packed: bool,
}

/// The pair cover of the task's alphabet in at most `max` probes:
///
/// * where the oracle accepts probes that hold four pieces of [`PAIR_PIECE_LEN`] letters
///   or more, short pieces to be packed (the full preset's 52 letters with probes of 256:
///   387 pieces in 14 probes). A surprising piece is a short example, where a whole probe
///   of 256 letters, every rule acting on it at once, made the re-solves slow;
/// * else pieces of the longest accepted length (Lite's 17 letters: 10 inputs of 32);
/// * else inputs that hold every letter (the full preset's 52 letters with probes of 32,
///   whose pairs would need 88 inputs: 2).
///
/// A rule of one or two letters (else of one) whose pattern never shows in the visible
/// inputs (it only matches what an earlier rule wrote) is met for sure, where random
/// inputs meet it by chance.
fn pair_cover(task: &Task, max: usize) -> PairCover {
    let none = PairCover {
        pieces: Vec::new(),
        packed: false,
    };
    let letters: Vec<char> = task.alphabet.chars().collect();
    let len = task.max_probe_len;
    if max == 0 || letters.is_empty() || len < 2 {
        return none;
    }
    let mut seq: Vec<char> = de_bruijn(letters.len(), 2)
        .into_iter()
        .map(|i| letters[i])
        .collect();
    // Cyclic: the first letter again closes the last pair.
    seq.push(seq[0]);
    let cut = |piece: usize| -> Vec<String> {
        let pieces = (seq.len() - 1).div_ceil(piece - 1);
        (0..pieces)
            .map(|p| {
                let from = p * (piece - 1);
                seq[from..(from + piece).min(seq.len())].iter().collect()
            })
            .collect()
    };
    // Pieces joined by a separator: PAIR_PIECE_LEN + 1 letters each.
    let per_probe = (len + 1) / (PAIR_PIECE_LEN + 1);
    if per_probe >= 4 {
        let pieces = cut(PAIR_PIECE_LEN);
        if pieces.len().div_ceil(per_probe) <= max {
            return PairCover {
                pieces,
                packed: true,
            };
        }
    }
    if (seq.len() - 1).div_ceil(len - 1) <= max {
        return PairCover {
            pieces: cut(len),
            packed: false,
        };
    }
    // Every letter at least, in as few inputs.
    PairCover {
        pieces: letters.chunks(len).map(|c| c.iter().collect()).collect(),
        packed: false,
    }
}

/// A de Bruijn sequence over `k` symbols of order `n` (each of the kⁿ words of length `n`
/// occurs once, cyclically): the concatenation of the Lyndon words whose length divides
/// `n`, in lexicographic order.
fn de_bruijn(k: usize, n: usize) -> Vec<usize> {
    fn db(t: usize, p: usize, k: usize, n: usize, a: &mut Vec<usize>, out: &mut Vec<usize>) {
        if t > n {
            if n.is_multiple_of(p) {
                out.extend_from_slice(&a[1..=p]);
            }
        } else {
            a[t] = a[t - p];
            db(t + 1, p, k, n, a, out);
            for j in a[t - p] + 1..k {
                a[t] = j;
                db(t + 1, t, k, n, a, out);
            }
        }
    }
    let mut out = Vec::new();
    if k == 0 || n == 0 {
        return out;
    }
    let mut a = vec![0; n + 1];
    db(1, 1, k, n, &mut a, &mut out);
    out
}

/// Up to `count` new inputs of `len` letters (at most the longest the oracle accepts),
/// each letter drawn from the letters of `candidate`'s rules (half the time, when it has
/// any) or from the whole alphabet; among those, from the letters that make a pair with
/// the letter before it that no known or drawn input holds yet, when there are any. A
/// hidden intermediate of two letters that nothing observable names (`cg → Xl`, then
/// `Xl → NX`) is met only by an input that holds it, so the inputs hold as many new pairs
/// as they can.
fn focused_inputs(
    candidate: &Cascade,
    task: &Task,
    known: &HashSet<String>,
    count: usize,
    len: usize,
    rng: &mut SplitMix,
) -> Vec<String> {
    let alphabet: Vec<char> = task.alphabet.chars().collect();
    if alphabet.is_empty() {
        return Vec::new();
    }
    let mut used: Vec<char> = (candidate.rules().iter())
        .flat_map(|r| r.pattern().chars().chain(r.replacement().chars()))
        .filter(|c| alphabet.contains(c))
        .collect();
    used.sort_unstable();
    used.dedup();
    let mut held: HashSet<(char, char)> = known.iter().flat_map(|s| letter_pairs(s)).collect();
    let len = len.clamp(1, task.max_probe_len.max(1));
    let mut out: Vec<String> = Vec::new();
    for _ in 0..count * 8 {
        if out.len() >= count {
            break;
        }
        let mut s = String::new();
        let mut last: Option<char> = None;
        let mut mine: Vec<(char, char)> = Vec::new();
        for _ in 0..len {
            let from = if !used.is_empty() && rng.below(2) == 0 {
                &used
            } else {
                &alphabet
            };
            let new: Vec<char> = last.map_or_else(Vec::new, |last| {
                (from.iter().copied())
                    .filter(|&c| !held.contains(&(last, c)) && !mine.contains(&(last, c)))
                    .collect()
            });
            let pool = if new.is_empty() { from } else { &new };
            let c = pool[rng.below(pool.len() as u64) as usize];
            mine.extend(last.map(|last| (last, c)));
            s.push(c);
            last = Some(c);
        }
        if !known.contains(&s) && !out.contains(&s) {
            held.extend(mine);
            out.push(s);
        }
    }
    out
}

/// The pairs of neighbouring letters of `s`, in order.
fn letter_pairs(s: &str) -> impl Iterator<Item = (char, char)> + '_ {
    s.chars().zip(s.chars().skip(1))
}

fn add_stats(total: &mut SolveStats, one: &SolveStats) {
    total.nodes_expanded += one.nodes_expanded;
    total.candidates_scored += one.candidates_scored;
    total.hit_limit |= one.hit_limit;
    total.rounds += one.rounds;
    total.max_width = total.max_width.max(one.max_width);
}

/// The seed of a task's focused inputs: FNV-1a of its id, so that a run gives the same
/// probes whatever the thread count.
fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64: a small deterministic generator.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is below 2⁻⁵⁰ for small `n`).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{solve_dataset, solver_by_name, SolveJob, SolveProgress};
    use pbebench::{Instance, RelationMode};

    fn instance(id: &str, gold: &[(&str, &str)], inputs: &[&str], alphabet: &str) -> Instance {
        let gold: Cascade = gold
            .iter()
            .map(|(a, b)| Rule::new(*a, *b).unwrap())
            .collect();
        let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
        Instance {
            id: id.into(),
            outputs: gold.apply_all(&inputs),
            inputs,
            cascade_len: gold.len(),
            cascade: Some(gold),
            category: None,
            relations_mode: RelationMode::default(),
            max_rules: 3,
            max_rule_len: 3,
            alphabet: alphabet.into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    fn budget() -> Budget {
        Budget {
            time_limit: Duration::from_secs(20),
            max_nodes: Some(20_000),
        }
    }

    /// The visible examples show `a` only after `c`: "ca" → "cb" fits them as well as
    /// "a" → "b". Static solving may keep either; probing tells them apart, and the answer
    /// behaves as the gold on every input (checked exactly, with the gold, outside the
    /// solver).
    #[test]
    fn probing_recovers_what_the_visible_examples_leave_open() {
        let inst = instance("t", &[("a", "b")], &["ca", "cca", "bc"], "abc");
        let solver = solver_by_name("beam").unwrap();
        let mut oracle = Oracle::new(&inst, 10).unwrap();
        let probed = solve_probing(
            solver.as_ref(),
            &mut oracle,
            &budget(),
            &ActiveConfig::default(),
        );
        assert!(probed.outcome.is_solved(), "{:?}", probed.outcome.status);
        let answer = probed.outcome.cascade.clone().unwrap();
        let (recovered, behaviour) = equiv::recovered_and_behaviour(&inst, &answer);
        assert_eq!(
            (recovered, behaviour),
            (Some(true), Some(1.0)),
            "{answer:?}"
        );
        // Every probe is within the budget and answered by the gold.
        assert!(!probed.probes.is_empty() && probed.probes.len() <= 10);
        let gold = inst.cascade.as_ref().unwrap();
        for p in &probed.probes {
            assert_eq!(p.output, gold.apply(&p.input));
        }
        assert_eq!(probed.probes, oracle.probes());
    }

    /// No probe past the budget, none outside the alphabet or longer than accepted, and
    /// the same probes and answer on a second run.
    #[test]
    fn probes_respect_the_oracle_and_repeat_exactly() {
        let inst = instance(
            "u",
            &[("ab", "c"), ("cc", "a"), ("b", "bb")],
            &["abab", "cb", "aab", "bca"],
            "abc",
        );
        let solver = solver_by_name("beam").unwrap();
        let run = || {
            let mut oracle = Oracle::new(&inst, 7).unwrap();
            let cfg = ActiveConfig::default();
            solve_probing(solver.as_ref(), &mut oracle, &budget(), &cfg)
        };
        let (a, b) = (run(), run());
        assert_eq!(a.probes.len(), 7, "the default spends the budget");
        assert_eq!(a.probes, b.probes);
        assert_eq!(a.outcome.cascade, b.outcome.cascade);
        assert!(a
            .probes
            .iter()
            .all(|p| p.input.chars().all(|c| "abc".contains(c)) && p.input.chars().count() <= 32));
        // A budget of 0: the static answer, no probe.
        let mut oracle = Oracle::new(&inst, 0).unwrap();
        let none = solve_probing(
            solver.as_ref(),
            &mut oracle,
            &budget(),
            &ActiveConfig::default(),
        );
        assert!(none.probes.is_empty() && none.outcome.is_solved());
    }

    fn cascade(rules: &[(&str, &str)]) -> Cascade {
        Cascade::from_pairs(rules).unwrap()
    }

    #[test]
    fn de_bruijn_holds_every_word_once() {
        for (k, n) in [(1, 2), (3, 2), (17, 2), (4, 3)] {
            let seq = de_bruijn(k, n);
            assert_eq!(seq.len(), k.pow(n as u32));
            let cyclic: Vec<usize> = seq.iter().chain(&seq[..n - 1]).copied().collect();
            let words: HashSet<&[usize]> = cyclic.windows(n).collect();
            assert_eq!(words.len(), seq.len(), "k={k} n={n}");
        }
    }

    /// Lite's 17 letters: every pair of letters in 10 inputs of at most 32 letters; with
    /// a cap below 10, every letter.
    #[test]
    fn pair_cover_holds_every_pair_within_the_probe_length() {
        let inst = instance(
            "t",
            &[("a", "b")],
            &["ca"],
            pbebench::dataset::LITE_ALPHABET,
        );
        let task = Oracle::new(&inst, 50).unwrap().task().clone();
        let cover = pair_cover(&task, 12);
        assert!(!cover.packed);
        let probes = cover.pieces;
        assert_eq!(probes.len(), 10);
        assert!(probes
            .iter()
            .all(|p| p.chars().count() <= task.max_probe_len));
        assert_eq!(pairs_of(&probes).len(), 17 * 17);
        let letters = pair_cover(&task, 9);
        assert_eq!(letters.pieces, ["abcdefghijkuvwxyz"]);
        assert!(!letters.packed);
    }

    /// The pairs of `pieces`, each piece's own (none across pieces).
    fn pairs_of(pieces: &[String]) -> HashSet<(char, char)> {
        pieces.iter().flat_map(|p| letter_pairs(p)).collect()
    }

    /// The full preset's 52 letters: with probes of 32, every letter in 2 inputs; with
    /// probes of 256, every pair in 387 pieces of 8 letters, which pack 28 to a probe
    /// (14 probes); allowed only 12 probes, 11 whole pieces of 256 letters.
    #[test]
    fn long_probes_cover_the_pairs_in_short_packed_pieces() {
        let alphabet = pbebench::dataset::FULL_ALPHABET;
        let inst = instance("t", &[("a", "b")], &["ca"], alphabet);
        let every_pair = alphabet.chars().count().pow(2);
        let short = Oracle::new(&inst, 50).unwrap().task().clone();
        let letters = pair_cover(&short, 16);
        assert_eq!(letters.pieces.len(), 2);
        assert_eq!(letters.pieces.concat(), alphabet);

        let long = Oracle::with_probe_len(&inst, 50, 256)
            .unwrap()
            .task()
            .clone();
        let cover = pair_cover(&long, 16);
        assert!(cover.packed);
        assert_eq!(cover.pieces.len(), 387);
        assert!(cover
            .pieces
            .iter()
            .all(|p| p.chars().count() <= PAIR_PIECE_LEN));
        assert_eq!(pairs_of(&cover.pieces).len(), every_pair);
        // Packed as a round packs them, 28 to a probe of at most 256 letters.
        let (probes, asked) = pack(&cover.pieces, '-', 256, usize::MAX);
        assert_eq!((probes.len(), asked.len()), (14, 387));
        assert!(probes.iter().all(|p| p.chars().count() <= 256));

        let whole = pair_cover(&long, 12);
        assert!(!whole.packed);
        assert_eq!(whole.pieces.len(), 11);
        assert_eq!(pairs_of(&whole.pieces).len(), every_pair);
    }

    /// Every letter of a focused input makes a pair with the letter before it that no
    /// input held yet (the known ones, the ones drawn before, the input itself so far),
    /// unless every pair starting with the letter before is held already.
    #[test]
    fn focused_inputs_hold_new_pairs_while_there_are_any() {
        let inst = instance("fp", &[("ab", "c")], &["ab", "ba"], "abcd");
        let task = Oracle::new(&inst, 50).unwrap().task().clone();
        let known: HashSet<String> = ["aab".to_string(), "ccd".to_string()].into();
        let mut rng = SplitMix(7);
        // No rule letters, so every letter is drawn from the whole alphabet.
        let drawn = focused_inputs(&cascade(&[]), &task, &known, 6, 4, &mut rng);
        assert_eq!(drawn.len(), 6);
        let mut held: HashSet<(char, char)> = known.iter().flat_map(|s| letter_pairs(s)).collect();
        for s in &drawn {
            for (a, b) in letter_pairs(s) {
                let any_new = "abcd".chars().any(|c| !held.contains(&(a, c)));
                assert!(!held.contains(&(a, b)) || !any_new, "{s} in {drawn:?}");
                held.insert((a, b));
            }
        }
    }

    /// Gold `d → icg`, `cg → v`: the intermediate `cg` never shows in the visible
    /// examples, and `d → iv` fits them. Some input of the pair cover holds `cg` and
    /// tells the two apart; with it the probing solver recovers the gold.
    #[test]
    fn the_pair_cover_reveals_a_hidden_two_letter_intermediate() {
        let gold = [("b", "eu"), ("d", "icg"), ("cg", "v")];
        let inputs = ["fvbbdd", "cwi", "gvzf", "ekuz", "bhkjxg"];
        let mut inst = instance("cg", &gold, &inputs, pbebench::dataset::LITE_ALPHABET);
        inst.max_rules = 5;
        let answer = cascade(&[("b", "eu"), ("d", "iv")]);
        assert_eq!(answer.apply_all(&inst.inputs), inst.outputs);
        let task = Oracle::new(&inst, 50).unwrap().task().clone();
        let gold = inst.cascade.clone().unwrap();
        let told = pair_cover(&task, 12)
            .pieces
            .iter()
            .filter(|p| gold.apply(p) != answer.apply(p))
            .count();
        assert!(told > 0);
        let solver = solver_by_name("beam").unwrap();
        let mut oracle = Oracle::new(&inst, 50).unwrap();
        let cfg = ActiveConfig::default();
        let probed = solve_probing(solver.as_ref(), &mut oracle, &budget(), &cfg);
        let found = probed.outcome.cascade.unwrap();
        assert_eq!(
            equiv::recovered_and_behaviour(&inst, &found).0,
            Some(true),
            "{found:?}"
        );
    }

    /// Gold `d → icg`, `cg → v`, answered by `d → iv`; the last round showed `cg` alone
    /// (`v`): mending puts the learnt rule `cg → v` in, without a solve, and the result
    /// fits every example. A local change (a context letter the candidate lacks) mends
    /// too; an example no single change explains does not.
    #[test]
    fn a_surprised_candidate_is_mended_by_the_rule_it_learnt() {
        let inst = instance("t", &[("a", "b")], &["ca"], "abcdgiv");
        let mut task = Oracle::new(&inst, 50).unwrap().task().clone();
        task.max_rules = 3;
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let inputs = strings(&["dd", "ad", "cg"]);
        let outputs = strings(&["iviv", "aiv", "v"]);
        let candidate = cascade(&[("d", "iv")]);
        let later = Instant::now() + Duration::from_secs(10);
        let mended = mend(&candidate, &task, (&inputs, &outputs), 2, later).unwrap();
        assert_eq!(mended, cascade(&[("cg", "v"), ("d", "iv")]));
        // `a → b` fitted as `ca → cb`: `a` alone teaches `a → b`, and the simplification
        // that follows every new candidate drops the rule it made unneeded.
        let inputs = strings(&["ca", "cca", "a"]);
        let outputs = strings(&["cb", "ccb", "b"]);
        let candidate = cascade(&[("ca", "cb")]);
        let mended = mend(&candidate, &task, (&inputs, &outputs), 2, later).unwrap();
        assert_eq!(mended, cascade(&[("a", "b"), ("ca", "cb")]));
        let simpler = simplest(mended, &inputs, &outputs, Instant::now(), Duration::MAX);
        assert_eq!(simpler, cascade(&[("a", "b")]));
        // A context letter too many, once `a` alone is known but not as a rule (the cap
        // is full): a rival of step 2 drops it.
        task.max_rules = 1;
        let mended = mend(&candidate, &task, (&inputs, &outputs), 2, later).unwrap();
        assert_eq!(mended, cascade(&[("a", "b")]));
        // `dgd → ggg` is no rule (too long) and no local change gives it.
        let inputs = strings(&["dd", "dgd"]);
        let outputs = strings(&["iviv", "ggg"]);
        let candidate = cascade(&[("d", "iv")]);
        assert_eq!(mend(&candidate, &task, (&inputs, &outputs), 1, later), None);
    }

    /// Queries are joined in order, each whole in one input of at most the length given,
    /// into as many inputs as allowed; the ones left out are not reported as asked.
    #[test]
    fn packing_joins_whole_queries_within_the_length() {
        let q: Vec<String> = ["ab", "cde", "f", "ghij", "k"].map(String::from).into();
        let (probes, asked) = pack(&q, 'z', 8, 2);
        assert_eq!(probes, ["abzcdezf", "ghijzk"]);
        assert_eq!(asked, q);
        let (probes, asked) = pack(&q, 'z', 8, 1);
        assert_eq!(probes, ["abzcdezf"]);
        assert_eq!(asked, ["ab", "cde", "f"]);
        assert_eq!(pack(&q, 'z', 8, 0), (vec![], vec![]));
        // A query longer than an input is passed over.
        let (probes, asked) = pack(&["abcdefghi".into(), "x".into()], 'z', 8, 2);
        assert_eq!((probes, asked), (vec!["x".into()], vec!["x".to_string()]));
    }

    /// The separator touches no rule of the candidate: a letter no example holds first,
    /// else the one the inputs hold most often; none when every letter is in a rule.
    #[test]
    fn the_separator_is_a_letter_no_rule_touches() {
        let inst = instance("t", &[("a", "b")], &["ca"], "abcde");
        let task = Oracle::new(&inst, 50).unwrap().task().clone();
        let candidate = cascade(&[("a", "b")]);
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (inputs, outputs) = (strings(&["ca", "cdd", "d"]), strings(&["cb", "cdd", "d"]));
        assert_eq!(separator(&candidate, &task, &inputs, &outputs), Some('e'));
        let (inputs, outputs) = (strings(&["ca", "cdde", "d"]), strings(&["cb", "cdde", "d"]));
        assert_eq!(separator(&candidate, &task, &inputs, &outputs), Some('d'));
        let all = cascade(&[("ab", "c"), ("d", "e")]);
        assert_eq!(separator(&all, &task, &inputs, &outputs), None);
    }

    /// `ggg → g` fits where the gold has `ggx → x` (the visible `zggxh`): `ggg` alone
    /// tells them apart, and the isolating probes hold it.
    #[test]
    fn isolating_probes_hold_each_pattern_and_replacement() {
        let inst = instance("t", &[("a", "b")], &["ca"], "abcghx");
        let task = Oracle::new(&inst, 50).unwrap().task().clone();
        let candidate = cascade(&[("xh", "xx"), ("x", "ghc"), ("ggg", "g")]);
        let known: HashSet<String> = ["x".to_string()].into();
        let probes = isolating(&candidate, &task, &known, 8, false);
        assert_eq!(probes, ["xh", "ggg", "xx", "ghc", "g"]);
        assert_eq!(
            isolating(&candidate, &task, &known, 2, false),
            ["xh", "ggg"]
        );
        // The pieces of the patterns of three letters or more (`gg`, once), then the
        // forms of the patterns the other rules rewrite (`xh` by `x → ghc`) and their
        // pieces, then the patterns and forms with one rewrite undone (`ggg` with each `g`
        // put back to `ggg`; `ghch` with `ghc` put back to `x`, and apart from that, with
        // each `g` put back to `ggg`).
        assert_eq!(
            isolating(&candidate, &task, &known, 8, true),
            ["gg", "ghch", "ghc", "hch", "ggggggggg", "xh", "ggghch"]
        );
        let gold = cascade(&[("ggx", "x"), ("xh", "xx"), ("x", "ghc")]);
        assert_ne!(gold.apply("ggg"), candidate.apply("ggg"));
    }

    /// Gold `Xw → s`, `sb → u`, answered by `Xwb → u`: the piece `Xw` of the answer's
    /// pattern, alone, shows the intermediate `s`.
    #[test]
    fn a_piece_of_a_folded_pattern_shows_the_intermediate() {
        let inst = instance("t", &[("a", "b")], &["ca"], "Xwbsu");
        let task = Oracle::new(&inst, 50).unwrap().task().clone();
        let candidate = cascade(&[("Xwb", "u")]);
        let probes = isolating(&candidate, &task, &HashSet::new(), 8, true);
        assert_eq!(probes, ["Xw", "wb"]);
        let gold = cascade(&[("Xw", "s"), ("sb", "u")]);
        assert_eq!(gold.apply("Xwb"), candidate.apply("Xwb"));
        assert_eq!(
            (gold.apply("Xw"), candidate.apply("Xw")),
            ("s".into(), "Xw".into())
        );
        // Once `Xw → s` is learnt next to `Xwb → u`: `Xwb` rewritten by the rest, `sb`.
        let learnt = cascade(&[("Xwb", "u"), ("Xw", "s")]);
        let known: HashSet<String> = ["Xw".to_string(), "wb".to_string()].into();
        // (Then `sb` with `Xw → s` undone: `Xwb` again, unknown to this test.)
        assert_eq!(isolating(&learnt, &task, &known, 8, true), ["sb", "Xwb"]);
        assert_ne!(gold.apply("sb"), learnt.apply("sb"));
    }

    /// Two misses of the full preset (length 20 and 18): an intermediate form of a
    /// pattern, and a form with a rewrite undone, hold the hidden rule's pattern, and the
    /// hidden cascade rewrites them otherwise than the candidate.
    #[test]
    fn traced_and_undone_forms_hold_a_hidden_pattern() {
        let inst = instance("t", &[("a", "b")], &["ca"], "OjRXfMHrhvJAVK");
        let task = Oracle::new(&inst, 50).unwrap().task().clone();
        let none = HashSet::new();
        // Gold `R → X`, `jX → f`, `Of → MH`, `f → ""`, answered by `OjR → MH` first:
        // `OjR` passes through `OjX` and `Of` before it ends as `O` (which no undone
        // rewrite turns back into `Of`: deletions are not undone).
        let gold = cascade(&[("R", "X"), ("jX", "f"), ("Of", "MH"), ("f", "")]);
        let candidate = cascade(&[("OjR", "MH"), ("R", "X"), ("jX", "f"), ("f", "")]);
        let probes = isolating(&candidate, &task, &none, 32, true);
        assert!(probes.iter().any(|p| p == "Of"), "{probes:?}");
        assert_ne!(gold.apply("Of"), candidate.apply("Of"));
        // Gold `h → vJ`, `rvJ → Af`, `J → VK`, answered by `rh → Af`, `J → VK`,
        // `h → vVK`: `rh` becomes `rvVK`, and with `J → VK` undone, `rvJ`.
        let gold = cascade(&[("h", "vJ"), ("rvJ", "Af"), ("J", "VK")]);
        let candidate = cascade(&[("rh", "Af"), ("J", "VK"), ("h", "vVK")]);
        assert_eq!(gold.apply("rh"), candidate.apply("rh"));
        let probes = isolating(&candidate, &task, &none, 32, true);
        assert!(probes.iter().any(|p| p == "rvJ"), "{probes:?}");
        assert_ne!(gold.apply("rvJ"), candidate.apply("rvJ"));
    }

    #[test]
    fn simplest_drops_rules_that_patch_each_other() {
        let c: Cascade = [("a", "b"), ("b", "a"), ("a", "c")]
            .iter()
            .map(|(a, b)| Rule::new(*a, *b).unwrap())
            .collect();
        // "a" → "c", "ab" → "cc": the first rule only feeds the second, which undoes it;
        // without it, b → a, a → c still fits, and no single rule does.
        let inputs = vec!["a".to_string(), "ab".to_string()];
        let outputs: Vec<String> = inputs.iter().map(|s| c.apply(s)).collect();
        let s = simplest(c, &inputs, &outputs, Instant::now(), Duration::from_secs(5));
        let rule = |a: &str, b: &str| Rule::new(a, b).unwrap();
        assert_eq!(s.rules(), &[rule("b", "a"), rule("a", "c")]);
    }

    struct Quiet;

    impl SolveProgress for Quiet {
        fn done(&self, _: usize, _: usize, _: usize) {}
    }

    /// `solve_dataset` with a probe budget: the probes are in the statistics lines, and
    /// one thread or two give the same responses and probes.
    #[test]
    fn a_probing_run_records_its_probes_whatever_the_threads() {
        let insts = vec![
            instance("p", &[("a", "b")], &["ca", "cca", "bc"], "abc"),
            instance("q", &[("ab", "c"), ("c", "a")], &["abb", "cab"], "abc"),
            instance("r", &[("b", "ca")], &["bb", "ab"], "abc"),
        ];
        let solver = solver_by_name("beam").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let run = |threads: usize, probe_len: usize| {
            let (out, stats) = (
                dir.path().join(format!("r{threads}-{probe_len}.jsonl")),
                dir.path().join(format!("s{threads}-{probe_len}.jsonl")),
            );
            let job = SolveJob {
                solver: solver.as_ref(),
                budget: budget(),
                threads,
                out: &out,
                stats: Some(&stats),
                fresh: true,
                probe_budget: Some(6),
                probe_len,
            };
            solve_dataset(&insts, &job, &Quiet).unwrap();
            let stats: Vec<serde_json::Value> = std::fs::read_to_string(&stats)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            (std::fs::read_to_string(&out).unwrap(), stats)
        };
        let (one, stats_one) = run(1, pbebench::probe::DEFAULT_PROBE_LEN);
        let (two, stats_two) = run(2, pbebench::probe::DEFAULT_PROBE_LEN);
        assert_eq!(one, two);
        // Longer probes: as deterministic, and the packed rounds use the length.
        let (long_one, long_stats) = run(1, 200);
        let (long_two, long_stats_two) = run(2, 200);
        assert_eq!(long_one, long_two);
        for (a, b) in long_stats.iter().zip(&long_stats_two) {
            assert_eq!(a["probes"], b["probes"]);
        }
        let longest = |stats: &[serde_json::Value]| {
            (stats.iter())
                .flat_map(|s| s["probes"].as_array().unwrap())
                .map(|p| p["input"].as_str().unwrap().chars().count())
                .max()
                .unwrap()
        };
        assert!(longest(&stats_one) <= 32);
        assert!(longest(&long_stats) > 32);
        for (a, b) in stats_one.iter().zip(&stats_two) {
            assert_eq!(a["probes"], b["probes"]);
            assert_eq!(a["probes_used"], 6);
            assert_eq!(a["probes"].as_array().unwrap().len(), 6);
            assert_eq!(a["recovered"], b["recovered"]);
        }
        assert_eq!(stats_one[0]["recovered"], true);
        // Real data has no hidden cascade: refused before any work.
        let mut real = insts.clone();
        real[1].cascade = None;
        let job = SolveJob {
            solver: solver.as_ref(),
            budget: budget(),
            threads: 1,
            out: &dir.path().join("x.jsonl"),
            stats: None,
            fresh: true,
            probe_budget: Some(6),
            probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
        };
        let err = solve_dataset(&real, &job, &Quiet).unwrap_err();
        assert!(
            err.to_string()
                .contains("--probe-budget: instance q has no gold"),
            "{err}"
        );
        assert!(!dir.path().join("x.jsonl").exists());
    }
}
