//! Packing: short queries joined by a separator letter into probes as long as the oracle
//! accepts ([`super::ActiveConfig::pack`]), and the answers cut back into pieces.

use pbebench::probe::Task;
use pbebench::Cascade;
use std::collections::HashSet;

/// Probes a packed round takes at most ([`super::ActiveConfig::pack`]).
pub(super) const PACKED_PROBES: usize = 2;

/// The letter that joins packed queries: one that no rule of `candidate` reads or writes,
/// preferably one that no known example holds (no hidden rule has shown it either), else
/// the one the known inputs hold most often (seen often and never rewritten by the
/// candidate). `None` when every letter is in some rule of the candidate. A hidden rule
/// that does touch it makes a packed probe surprising, and the re-solve learns from it as
/// from any example.
pub(super) fn separator(
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
pub(super) fn split(input: &str, output: &str, sep: char) -> Option<Vec<(String, String)>> {
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
pub(super) fn pack(
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
