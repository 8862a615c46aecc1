//! A surprised candidate mended in place, and every candidate simplified, without a solve.

use super::queries::rivals;
use super::{bound, fits_all, problem_of};
use crate::encode::{Encoded, SymRule};
use pbebench::probe::Task;
use pbebench::{Cascade, Rule};
use std::time::{Duration, Instant};

/// A cascade next to `candidate` that fits every known example, if one is found before
/// `deadline`: `candidate` with a rule learnt from an example of the last round that it
/// gets wrong (that example's input to its output, when short enough to be a rule: the
/// pattern of a hidden rule probed alone) put in at some place, else one of the rivals of
/// step 2. The examples from `new_from` on, the last round's, are checked first, so most
/// tries end at the first example.
pub(super) fn mend(
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
    let learnt = learnt(candidate, task, (inputs, outputs), new_from);
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

/// The rules the examples from `new_from` on show and `candidate` lacks: the input of one
/// it gets wrong to its output, when both are short enough to be a rule (the pattern of a
/// hidden rule probed alone).
fn learnt(
    candidate: &Cascade,
    task: &Task,
    (inputs, outputs): (&[String], &[String]),
    new_from: usize,
) -> Vec<Rule> {
    let limit = bound(outputs, "");
    let short = |s: &str| s.chars().count() <= task.max_rule_len;
    (new_from..inputs.len())
        .filter(|&k| short(&inputs[k]) && short(&outputs[k]))
        .filter(|&k| candidate.apply_bounded(&inputs[k], limit).as_deref() != Ok(&outputs[k]))
        .filter_map(|k| Rule::new(inputs[k].as_str(), outputs[k].as_str()).ok())
        .collect()
}

/// Rule applications (each to every known example) the order search of [`reorder`] may
/// spend.
const REORDER_NODES: u64 = 50_000;

/// A cascade that fits every known example, found by the exact order search
/// ([`crate::order`]) over a pool of rules: `candidate`'s, in its order (the first
/// sequence tried), the rules the last round showed ([`learnt`]), then those of earlier
/// candidates (`seen`). A candidate that holds most of the hidden rules, some in the
/// wrong order and patched by others, is what a re-solve fails to repair.
pub(super) fn reorder(
    candidate: &Cascade,
    seen: &[Rule],
    task: &Task,
    io: (&[String], &[String]),
    new_from: usize,
    deadline: Instant,
) -> Option<Cascade> {
    let problem = problem_of(task, io.0.to_vec(), io.1.to_vec())?;
    let enc = Encoded::new(&problem);
    let mut pool: Vec<SymRule> = Vec::new();
    let rules = (candidate.rules().iter().cloned())
        .chain(learnt(candidate, task, io, new_from))
        .chain(seen.iter().cloned());
    for sym in rules.filter_map(|rule| enc.encode_rule(&rule)) {
        if !pool.contains(&sym) && pool.len() < 64 {
            pool.push(sym);
        }
    }
    let found = crate::order::order(
        &pool,
        &enc.inputs,
        &enc.targets,
        task.max_rules,
        REORDER_NODES,
        deadline,
    )
    .0?;
    let found = enc.cascade(&found);
    fits_all(&found, io.0, io.1).then_some(found)
}

/// `cascade` with rules dropped while it still fits every example: first rules whose
/// removal alone keeps the fit, then rules that can go once another one is moved. The
/// hidden cascade wastes no rule (each changes an example), so among fitting answers the
/// shorter ones are likelier to behave as it does; and probes answered by a rule that
/// only patches another rule's side effect leave such detours behind.
pub(super) fn simplest(
    cascade: Cascade,
    inputs: &[String],
    outputs: &[String],
    start: Instant,
    limit: Duration,
) -> Cascade {
    let fits = |rules: &[Rule]| fits_all(&Cascade::new(rules.to_vec()), inputs, outputs);
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
