//! A surprised candidate mended in place, and every candidate simplified, without a solve.

use super::queries::rivals;
use super::{bound, fits_all};
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
