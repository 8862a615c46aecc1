//! Sound and complete feeding/bleeding over all strings.
//!
//! `feeds(si→ti, sj)` asks whether some string `s` without `sj` has `sj` in
//! `s.replace(si, ti)`; `bleeds` whether some `s` with `sj` loses it. No length bound is
//! sound (some shortest witnesses are 9 characters for rules of 3), so both are decided on a
//! finite automaton instead:
//!
//! * Python's `replace` is a left-to-right transducer whose only memory is the pending
//!   partial match: the longest suffix of the input read since the last match that is a
//!   proper prefix of `si`. That is the KMP automaton of `si`, where completing a match
//!   writes `ti` and returns to the start (matches do not overlap), a failed extension
//!   writes the characters that fall out of the pending prefix, and the end of the input
//!   writes the pending prefix verbatim.
//! * Occurrences of `sj` in the input and in the output are tracked by two copies of the
//!   KMP automaton of `sj`.
//! * Letters that occur in none of `si`, `ti`, `sj` behave identically, so the rules'
//!   letters plus one fresh letter are an alphabet that loses no witness (and a letter
//!   only of `ti` reads like the fresh one, so inputs need only the letters of `si`, `sj`).
//!
//! A breadth-first search of the product (at most `|si|·(|sj|+1)·|sj|` states) finds a
//! shortest witness or proves there is none.

/// ∃ s : sj ∉ s and sj ∈ (si→ti)(s).
///
/// `si` is a rule's pattern and must be non-empty (an empty `si` relates to nothing here);
/// `ti` may be empty. A rule that changes nothing (`si == ti`) feeds nothing.
pub fn feeds(si: &str, ti: &str, sj: &str) -> bool {
    search(Relation::Feeds, si, ti, sj, false).is_some()
}

/// ∃ s : sj ∈ s and sj ∉ (si→ti)(s).
///
/// Same conventions as [`feeds`]; a rule that changes nothing bleeds nothing.
pub fn bleeds(si: &str, ti: &str, sj: &str) -> bool {
    search(Relation::Bleeds, si, ti, sj, false).is_some()
}

/// A shortest `s` with `sj ∉ s` and `sj ∈ s.replace(si, ti)`, if [`feeds`] holds.
///
/// Letters outside the rules are written as one character that occurs in none of them.
/// Lets tests check every positive answer against the real `replace`.
pub fn feeding_witness(si: &str, ti: &str, sj: &str) -> Option<String> {
    search(Relation::Feeds, si, ti, sj, true)
}

/// A shortest `s` with `sj ∈ s` and `sj ∉ s.replace(si, ti)`, if [`bleeds`] holds.
pub fn bleeding_witness(si: &str, ti: &str, sj: &str) -> Option<String> {
    search(Relation::Bleeds, si, ti, sj, true)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    Feeds,
    Bleeds,
}

/// Sentinel for "not reached yet" in the parent table.
const UNSEEN: u32 = u32::MAX;

/// Breadth-first search of the product automaton. Returns a witness (as a string when
/// `spell` is set, else an empty string) or `None` when no string is one.
fn search(relation: Relation, si: &str, ti: &str, sj: &str, spell: bool) -> Option<String> {
    if si.is_empty() || sj.is_empty() || si == ti || disjoint(relation, si, ti, sj) {
        return None;
    }
    let letters = Letters::of(si, ti, sj);
    let k = letters.count();
    let (m, t, n) = (si.chars().count(), ti.chars().count(), sj.chars().count());
    // State (q, a, b): pending prefix length of si, input and output states for sj; the
    // input state n means "sj has occurred" (bleeding only: feeding inputs never hold sj).
    let states = m * (n + 1) * n;
    let index = |q: usize, a: usize, b: usize| (q * (n + 1) + a) * n + b;

    // One allocation for every table: the three encoded strings, two automata, and the
    // search's parent, letter and queue arrays.
    let mut arena = vec![0u32; m + t + n + (m + n) * k + 3 * states];
    let (si_code, rest) = arena.split_at_mut(m);
    let (ti_code, rest) = rest.split_at_mut(t);
    let (sj_code, rest) = rest.split_at_mut(n);
    let (rule_table, rest) = rest.split_at_mut(m * k);
    let (target_table, rest) = rest.split_at_mut(n * k);
    let (parent, rest) = rest.split_at_mut(states);
    let (via, queue) = rest.split_at_mut(states);
    letters.encode(si, si_code);
    letters.encode(ti, ti_code);
    letters.encode(sj, sj_code);
    let (si, ti) = (&*si_code, &*ti_code);
    let rule = Kmp::build(si, k, rule_table);
    let target = Kmp::build(sj_code, k, target_table);

    parent.fill(UNSEEN);
    parent[0] = 0; // the start: nothing pending, no part of sj read or written
    queue[0] = 0;
    let (mut head, mut tail) = (0, 1);
    while head < tail {
        let u = queue[head] as usize;
        head += 1;
        let (q, a, b) = (u / ((n + 1) * n), u / n % (n + 1), u % n);
        // at the end of the input the pending prefix is written verbatim
        let flushed = target.run(b, &si[..q]);
        let accepts_here = match relation {
            Relation::Feeds => flushed.is_none(),
            Relation::Bleeds => a == n && flushed.is_some(),
        };
        if accepts_here {
            return Some(spell_path(spell, &letters, parent, via, u, None));
        }
        for c in letters.input() {
            let a2 = if a == n { n } else { target.next(a, c) };
            if relation == Relation::Feeds && a2 == n {
                continue; // the input must not contain sj
            }
            let q2 = rule.next(q, c);
            let written = if q2 == m {
                target.run(b, ti) // a match: write ti, nothing pending
            } else if q2 == 0 {
                target
                    .run(b, &si[..q])
                    .and_then(|b| target.run(b, &[c as u32]))
            } else {
                target.run(b, &si[..q + 1 - q2]) // the part that left the pending prefix
            };
            let Some(b2) = written else {
                match relation {
                    Relation::Feeds => {
                        return Some(spell_path(spell, &letters, parent, via, u, Some(c)));
                    }
                    Relation::Bleeds => continue, // the output must not contain sj
                }
            };
            let v = index(q2 % m, a2, b2);
            if parent[v] == UNSEEN {
                parent[v] = u as u32;
                via[v] = c as u32;
                queue[tail] = v as u32;
                tail += 1;
            }
        }
    }
    None
}

/// Shortcuts for the common unrelated pair, sound without a search:
/// * feeding with a non-empty `ti`: the output is runs of untouched input separated by
///   copies of `ti`, so an occurrence of `sj` sharing no letter with `ti` lies inside one
///   run, and was in the input already;
/// * bleeding: an occurrence of `sj` sharing no letter with `si` overlaps no match, so it
///   is copied to the output unchanged.
fn disjoint(relation: Relation, si: &str, ti: &str, sj: &str) -> bool {
    let apart = |x: &str| sj.chars().all(|c| !x.contains(c));
    match relation {
        Relation::Feeds => !ti.is_empty() && apart(ti),
        Relation::Bleeds => apart(si),
    }
}

/// The input that leads from the start to state `u` (then `last`), or "" when not `spell`.
fn spell_path(
    spell: bool,
    letters: &Letters,
    parent: &[u32],
    via: &[u32],
    mut u: usize,
    last: Option<usize>,
) -> String {
    if !spell {
        return String::new();
    }
    let mut path: Vec<usize> = last.into_iter().collect();
    while u != 0 {
        path.push(via[u] as usize);
        u = parent[u] as usize;
    }
    path.iter().rev().map(|&c| letters.char_of(c)).collect()
}

/// The alphabet of the search: the distinct letters of `si` and `sj`, then those only in
/// `ti`, then one fresh letter that stands for every other character.
///
/// Only the first group and the fresh letter need to be read as input: a letter of `ti`
/// alone moves neither automaton and is written unchanged, exactly as the fresh one.
struct Letters {
    chars: Vec<char>,
    /// How many of `chars` occur in `si` or `sj`.
    core: usize,
}

impl Letters {
    fn of(si: &str, ti: &str, sj: &str) -> Self {
        let mut chars: Vec<char> = si.chars().chain(sj.chars()).collect();
        chars.sort_unstable();
        chars.dedup();
        let core = chars.len();
        for c in ti.chars() {
            if !chars.contains(&c) {
                chars.push(c);
            }
        }
        Letters { chars, core }
    }

    /// Number of letters including the fresh one.
    fn count(&self) -> usize {
        self.chars.len() + 1
    }

    /// The letters worth reading: those of `si` and `sj`, and the fresh one.
    fn input(&self) -> impl Iterator<Item = usize> {
        (0..self.core).chain(std::iter::once(self.chars.len()))
    }

    /// Writes the letter numbers of `s` (one of the rules) into `out`.
    fn encode(&self, s: &str, out: &mut [u32]) {
        for (slot, c) in out.iter_mut().zip(s.chars()) {
            let at = self.chars.iter().position(|&x| x == c);
            *slot = at.expect("letter of a rule") as u32;
        }
    }

    /// The character of letter `c`; the fresh letter is the first char in none of the rules.
    fn char_of(&self, c: usize) -> char {
        self.chars.get(c).copied().unwrap_or_else(|| {
            ('a'..)
                .find(|x| !self.chars.contains(x))
                .expect("some char is unused")
        })
    }
}

/// The KMP automaton of a pattern: state `q` is the length of the longest suffix of the
/// text read that is a prefix of the pattern; reaching the pattern's length is a match.
/// (The equivalence engine builds its rules' tables with it too.)
pub(crate) struct Kmp<'a> {
    letters: usize,
    len: usize,
    next: &'a [u32],
}

impl<'a> Kmp<'a> {
    /// Fills `table` (`pattern.len() × letters`) with the automaton of a non-empty pattern.
    pub(crate) fn build(pattern: &[u32], letters: usize, table: &'a mut [u32]) -> Self {
        let len = pattern.len();
        table[pattern[0] as usize] = 1;
        let mut restart = 0; // the state the text would be in without its first letter
        for q in 1..len {
            let (done, row) = table.split_at_mut(q * letters);
            row[..letters].copy_from_slice(&done[restart * letters..(restart + 1) * letters]);
            row[pattern[q] as usize] = q as u32 + 1;
            restart = done[restart * letters + pattern[q] as usize] as usize;
        }
        Kmp {
            letters,
            len,
            next: table,
        }
    }

    /// The state after reading letter `c` in state `q` (`q` below the pattern length).
    fn next(&self, q: usize, c: usize) -> usize {
        self.next[q * self.letters + c] as usize
    }

    /// Reads `text` from state `q`: the final state, or `None` if a match completes.
    fn run(&self, mut q: usize, text: &[u32]) -> Option<usize> {
        for &c in text {
            q = self.next(q, c as usize);
            if q == self.len {
                return None;
            }
        }
        Some(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verify_feeding(si: &str, ti: &str, sj: &str, w: &str) -> bool {
        !w.contains(sj) && w.replace(si, ti).contains(sj)
    }

    fn verify_bleeding(si: &str, ti: &str, sj: &str, w: &str) -> bool {
        w.contains(sj) && !w.replace(si, ti).contains(sj)
    }

    #[test]
    fn spec_examples() {
        assert!(!feeds("a", "", "aa"));
        assert_eq!(feeding_witness("ba", "cb", "bb").as_deref(), Some("bab"));
        let w = feeding_witness("aba", "", "abb").unwrap();
        assert_eq!(w.chars().count(), 9);
        assert!(verify_feeding("aba", "", "abb", &w), "{w}");
    }

    #[test]
    fn identity_and_degenerate_rules_relate_to_nothing() {
        assert!(!feeds("ab", "ab", "b") && !bleeds("ab", "ab", "b"));
        assert!(!feeds("", "x", "x") && !bleeds("a", "b", ""));
    }

    #[test]
    fn simple_relations() {
        assert!(bleeds("a", "b", "a"));
        assert!(feeds("a", "b", "b") && !bleeds("a", "b", "b"));
        assert!(!feeds("a", "b", "c") && !bleeds("a", "b", "c"));
        // a→ε cannot create aa but can destroy it
        assert!(bleeds("a", "", "aa"));
        // deletion joins neighbours: xay → xy
        assert_eq!(feeding_witness("a", "", "xy").as_deref(), Some("xay"));
    }

    #[test]
    fn pending_prefix_is_flushed_and_failed_matches_rescan() {
        // "aaab".replace("aab", "x") == "ax": the failed start is written, the scan resumes
        let w = feeding_witness("aab", "x", "ax").unwrap();
        assert!(verify_feeding("aab", "x", "ax", &w), "{w}");
        // "aba".replace("ab", "a") == "aa" only because the pending "a" is written at the end
        assert_eq!(feeding_witness("ab", "a", "aa").as_deref(), Some("aba"));
        // dropping the pending prefix would make "a" a witness
        assert!(!bleeds("aa", "a", "a"));
    }

    #[test]
    fn witnesses_spell_multi_byte_letters() {
        let w = bleeding_witness("ʔa", "ː", "ʔ").unwrap();
        assert!(verify_bleeding("ʔa", "ː", "ʔ", &w), "{w}");
        let w = feeding_witness("é", "", "ab").unwrap();
        assert_eq!(w, "aéb");
    }

    #[test]
    fn letters_put_pattern_letters_first_and_a_fresh_one_last() {
        let letters = Letters::of("ba", "cx", "ad");
        assert_eq!(letters.chars, ['a', 'b', 'd', 'c', 'x']);
        assert_eq!(letters.input().collect::<Vec<_>>(), [0, 1, 2, 5]);
        assert_eq!(letters.char_of(5), 'e');
    }
}
