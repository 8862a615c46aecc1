//! A cascade as one left-to-right transducer over letter codes, with its states interned
//! and its steps cached.
//!
//! Python's `s.replace(a, b)` reads `s` once, left to right, and its only memory is the
//! pending partial match: the longest suffix of what it read since the last match that is
//! a proper prefix of `a` (the KMP automaton of `a`). Reading a letter either completes a
//! match (it writes `b`, nothing is pending) or writes the letters that fall out of the
//! pending prefix; the end of the input writes the pending prefix verbatim. A cascade is
//! a chain of these, each rule reading what the one before it writes, so its state is the
//! tuple of pending lengths (kept only for rules whose pattern has two or more letters: a
//! one-letter pattern never has anything pending). Rules with `a == b` change no string
//! and are left out.
//!
//! Letters are numbered locally: the machine's own letters (every letter of its rules)
//! first, then one code, [`Machine::fresh`], that every letter outside the patterns reads
//! as. Such a letter is part of no match, so every rule writes it straight through (after
//! flushing what is pending); in written text it appears as [`FRESH`], to be read as
//! whichever input letter it stands for.

use super::{Budget, Limit};
use crate::relations::exact::Kmp;
use crate::rule::Cascade;
use rustc_hash::FxHashMap;

/// Marks "no state" (after an overflow, or a side no longer tracked) and "not computed".
pub(super) const NONE: u32 = u32::MAX;
/// In written text: the input letter a fresh code stands for (no `char` has this value).
pub(super) const FRESH: u32 = u32::MAX;
/// The length of a step that wrote more letters than the machine's cap.
const OVERFLOW: u32 = u32::MAX;

/// What one step (one input letter) or the final flush wrote, and where it left the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Step {
    /// The state after the step ([`NONE`] for a flush or an overflow).
    pub next: u32,
    start: u32,
    len: u32,
}

/// Not computed yet.
const UNKNOWN: Step = Step {
    next: NONE,
    start: NONE,
    len: 0,
};

/// One rule over local codes: its pattern, replacement and KMP table (`|a|` rows), and
/// the letter sets [`settle`] reasons with.
struct Compiled {
    pattern: Box<[u32]>,
    replacement: Box<[u32]>,
    next: Box<[u32]>,
    /// For each pending length `q > 0`: the letters that would extend `pattern[..q]` or one
    /// of its borders (the only next letters that keep a pending letter in a match).
    extends: Box<[Letters]>,
    /// Every letter of the pattern and the replacement.
    letters: Letters,
}

/// A set of local codes (bit `c`), plus [`END`]: the end of the stream.
type Letters = u128;
/// The end of a stream, in a [`Letters`] set.
const END: Letters = 1 << 127;

/// The set holding `code`.
fn bit(code: u32) -> Letters {
    1 << code
}

impl Compiled {
    fn new(pattern: Box<[u32]>, replacement: Box<[u32]>, codes: usize) -> Self {
        let mut next = vec![0; pattern.len() * codes].into_boxed_slice();
        Kmp::build(&pattern, codes, &mut next);
        // border[q]: the longest proper border of pattern[..q], from the table: the state
        // pattern[1..q] leads to.
        let mut border = vec![0usize; pattern.len()];
        for q in 2..pattern.len() {
            border[q] = next[border[q - 1] * codes + pattern[q - 1] as usize] as usize;
        }
        let mut extends = vec![0; pattern.len()];
        for q in 1..pattern.len() {
            extends[q] = bit(pattern[q]) | if border[q] > 0 { extends[border[q]] } else { 0 };
        }
        let letters = (pattern.iter().chain(&replacement)).fold(0, |set, &c| set | bit(c));
        Compiled {
            pattern,
            replacement,
            next,
            letters,
            extends: extends.into(),
        }
    }
}

/// Reused buffers of a step: the pending length of every rule, the letters still to be
/// read by some rule (as `(rule, code)`, top first), what the last rule wrote, and the
/// key of the state reached.
#[derive(Default)]
struct Scratch {
    pending: Vec<u32>,
    stack: Vec<(u32, u32)>,
    out: Vec<u32>,
    /// A state key being looked up.
    key: Vec<u32>,
}

/// A compiled cascade with its interned states and cached steps.
pub(super) struct Machine {
    letters: Vec<char>,
    /// Whether each letter occurs in a pattern (the others read like the fresh code).
    patterned: Vec<bool>,
    /// The codes the input may hold, for [`settle`] (`None`: too many letters to settle).
    inputs: Option<Letters>,
    rules: Vec<Compiled>,
    /// The rules whose pattern has two or more letters: the slots of a state key.
    memory: Vec<usize>,
    /// The most letters a step may write; one more is an overflow.
    cap: usize,
    ids: FxHashMap<Box<[u32]>, u32>,
    /// The state keys, `memory.len()` values each.
    keys: Vec<u32>,
    /// `steps[id * codes + code]`.
    steps: Vec<Step>,
    flushes: Vec<Step>,
    /// Every written text, as `char` values (and [`FRESH`]).
    texts: Vec<u32>,
    /// Values held in tables, keys and texts, against `max_stored`.
    stored: usize,
    max_stored: usize,
    scratch: Scratch,
}

impl Machine {
    /// Compiles `cascade` for inputs over `alphabet`. `cap` is the most letters one step may write before it counts
    /// as an overflow; `max_stored` bounds the values the machine may hold (its tables,
    /// state keys and written texts, 4 bytes each).
    pub fn new(
        cascade: &Cascade,
        alphabet: &[char],
        cap: usize,
        max_stored: usize,
    ) -> Result<Self, Limit> {
        let rules: Vec<_> = cascade
            .rules()
            .iter()
            .filter(|r| !r.is_identity())
            .collect();
        let mut letters: Vec<char> = (rules.iter())
            .flat_map(|r| r.pattern().chars().chain(r.replacement().chars()))
            .collect();
        letters.sort_unstable();
        letters.dedup();
        let codes = letters.len() + 1;
        let encode = |s: &str| -> Box<[u32]> {
            s.chars()
                .map(|c| letters.binary_search(&c).expect("a rule's letter") as u32)
                .collect()
        };
        let table_size: usize = rules
            .iter()
            .map(|r| r.pattern().chars().count() * codes)
            .sum();
        if table_size > max_stored {
            return Err(Limit::TooManyLetters { limit: max_stored });
        }
        let compiled: Vec<Compiled> = (rules.iter())
            .map(|r| Compiled::new(encode(r.pattern()), encode(r.replacement()), codes))
            .collect();
        // Sets of codes fit in 127 bits (and END) for all but huge alphabets, which go
        // without settling.
        let mut patterned = vec![false; letters.len()];
        for rule in &compiled {
            rule.pattern
                .iter()
                .for_each(|&c| patterned[c as usize] = true);
        }
        let code = |c: char| match letters.binary_search(&c) {
            Ok(k) if patterned[k] => k as u32,
            _ => letters.len() as u32,
        };
        let inputs = (codes < 127).then(|| alphabet.iter().fold(0, |set, &c| set | bit(code(c))));
        let memory = (0..compiled.len())
            .filter(|&k| compiled[k].pattern.len() > 1)
            .collect();
        let mut machine = Machine {
            letters,
            patterned,
            inputs,
            rules: compiled,
            memory,
            cap,
            ids: FxHashMap::default(),
            keys: Vec::new(),
            steps: Vec::new(),
            flushes: Vec::new(),
            texts: Vec::new(),
            stored: table_size,
            max_stored,
            scratch: Scratch::default(),
        };
        machine.scratch.pending = vec![0; machine.rules.len()];
        machine.intern()?; // the start: nothing pending anywhere, id 0
        Ok(machine)
    }

    /// The state before any input.
    pub fn start(&self) -> u32 {
        0
    }

    /// The code that stands for every character outside the machine's rules.
    pub fn fresh(&self) -> u32 {
        self.letters.len() as u32
    }

    /// The code `c` reads as.
    ///
    /// Every letter outside the patterns reads as the fresh code: no rule matches it, so
    /// each writes it straight through, and its step is the same whatever the letter
    /// (written as [`FRESH`]), computed once.
    pub fn code(&self, c: char) -> u32 {
        match self.letters.binary_search(&c) {
            Ok(k) if self.patterned[k] => k as u32,
            _ => self.fresh(),
        }
    }

    /// Whether `c` occurs in one of the machine's rules.
    pub fn uses(&self, c: char) -> bool {
        self.letters.binary_search(&c).is_ok()
    }

    /// How many states have been interned.
    #[cfg(test)]
    pub fn states(&self) -> usize {
        self.keys.len().checked_div(self.memory.len()).unwrap_or(1)
    }

    /// Reading the letter `code` in state `id`: what is written and the state after it.
    pub fn step(&mut self, id: u32, code: u32, budget: &mut Budget) -> Result<Step, Limit> {
        let at = id as usize * (self.letters.len() + 1) + code as usize;
        if self.steps[at] == UNKNOWN {
            self.steps[at] = self.compute(id, Some(code), budget)?;
        }
        Ok(self.steps[at])
    }

    /// The end of the input in state `id`: what the pending prefixes write.
    pub fn flush(&mut self, id: u32, budget: &mut Budget) -> Result<Step, Limit> {
        if self.flushes[id as usize] == UNKNOWN {
            self.flushes[id as usize] = self.compute(id, None, budget)?;
        }
        Ok(self.flushes[id as usize])
    }

    /// The letters `step` wrote (`char` values, [`FRESH`] for the input letter), or `None`
    /// when it wrote more than `cap` (or than the machine's own cap).
    pub fn written(&self, step: Step, cap: usize) -> Option<&[u32]> {
        let len = step.len as usize;
        (step.len != OVERFLOW && len <= cap)
            .then(|| &self.texts[step.start as usize..step.start as usize + len])
    }

    /// Runs one letter (or, for `None`, the end of the input) through the rules.
    fn compute(&mut self, id: u32, code: Option<u32>, budget: &mut Budget) -> Result<Step, Limit> {
        let (slots, codes) = (self.memory.len(), self.letters.len() + 1);
        let s = &mut self.scratch;
        s.pending.fill(0);
        for (slot, &rule) in self.memory.iter().enumerate() {
            s.pending[rule] = self.keys[id as usize * slots + slot];
        }
        s.out.clear();
        let chain = Chain {
            rules: &self.rules,
            codes,
            cap: self.cap,
        };
        let fits = match code {
            Some(c) => {
                s.stack.push((0, c));
                chain.drain(s, budget)?
                    && (self.inputs).map_or(Ok(true), |inputs| chain.settle(inputs, s, budget))?
            }
            None => chain.flush_all(s, budget)?,
        };
        if !fits {
            s.stack.clear();
            return Ok(Step {
                next: NONE,
                start: 0,
                len: OVERFLOW,
            });
        }
        let next = match code {
            Some(_) => self.intern()?,
            None => NONE,
        };
        let start = self.texts.len() as u32;
        let fresh = self.fresh();
        let letters = &self.letters;
        let out = &self.scratch.out;
        self.stored += out.len();
        if self.stored > self.max_stored {
            return Err(Limit::TooManyLetters {
                limit: self.max_stored,
            });
        }
        (self.texts).extend(out.iter().map(|&c| match c == fresh {
            true => FRESH,
            false => letters[c as usize] as u32,
        }));
        Ok(Step {
            next,
            start,
            len: out.len() as u32,
        })
    }

    /// The id of the state in `scratch.pending`, interning it (with room in the step
    /// tables) when it is new.
    fn intern(&mut self) -> Result<u32, Limit> {
        let s = &mut self.scratch;
        s.key.clear();
        s.key.extend(self.memory.iter().map(|&k| s.pending[k]));
        if let Some(&id) = self.ids.get(s.key.as_slice()) {
            return Ok(id);
        }
        let key = s.key.clone();
        let id = self.ids.len() as u32;
        let codes = self.letters.len() + 1;
        self.stored += key.len() + codes + 1;
        if self.stored > self.max_stored || id == NONE {
            return Err(Limit::TooManyLetters {
                limit: self.max_stored,
            });
        }
        self.keys.extend_from_slice(&key);
        self.ids.insert(key.into_boxed_slice(), id);
        self.steps.resize(self.steps.len() + codes, UNKNOWN);
        self.flushes.push(UNKNOWN);
        Ok(id)
    }
}

/// The compiled rules as one step runs them: how many codes their tables have, and the
/// most letters the step may write.
struct Chain<'a> {
    rules: &'a [Compiled],
    codes: usize,
    cap: usize,
}

impl Chain<'_> {
    /// Feeds every letter on the stack to its rule, depth first (so in order), until the
    /// stack is empty; what the last rule writes goes to `out`. Returns false as soon as
    /// `out` would hold more than `cap` letters.
    fn drain(&self, s: &mut Scratch, budget: &mut Budget) -> Result<bool, Limit> {
        while let Some((k, c)) = s.stack.pop() {
            budget.spend(1)?;
            let Some(rule) = self.rules.get(k as usize) else {
                if s.out.len() == self.cap {
                    return Ok(false);
                }
                s.out.push(c);
                continue;
            };
            let q = s.pending[k as usize] as usize;
            let q2 = rule.next[q * self.codes + c as usize] as usize;
            let then = k + 1;
            if q2 == rule.pattern.len() {
                // a match: the replacement is written, nothing is pending
                s.pending[k as usize] = 0;
                s.stack
                    .extend(rule.replacement.iter().rev().map(|&d| (then, d)));
            } else {
                // the letters that fall out of the pending prefix `pattern[..q] + c`
                s.pending[k as usize] = q2 as u32;
                let written = q + 1 - q2;
                if written > q {
                    s.stack.push((then, c));
                }
                let kept = written.min(q);
                s.stack
                    .extend(rule.pattern[..kept].iter().rev().map(|&d| (then, d)));
            }
        }
        Ok(true)
    }

    /// Rule `k` writes its pending prefix, which the rules after it read at once.
    fn write_pending(&self, k: usize, s: &mut Scratch, budget: &mut Budget) -> Result<bool, Limit> {
        let q = std::mem::take(&mut s.pending[k]) as usize;
        let then = k as u32 + 1;
        s.stack
            .extend(self.rules[k].pattern[..q].iter().rev().map(|&d| (then, d)));
        self.drain(s, budget)
    }

    /// Writes out, early, every pending prefix that can no longer be part of a match, so that
    /// states that differ only in such letters become one (without it, a letter held by one
    /// rule keeps every later rule's pending letters waiting, and the states multiply with the
    /// input length). Returns false on an overflow.
    ///
    /// Going down the rules, `first` over-approximates the letters the rule may read next
    /// (and [`END`]), `ever` those it may read at any time: the input's letters to the first
    /// rule; a rule with something pending next writes the pending prefix's first letter or
    /// its replacement's (a failed match writes the former, a match the latter), and one with
    /// nothing pending writes what it reads, or its replacement when that starts a match.
    /// When no letter of `first` extends a rule's pending prefix or one of its borders, no
    /// pending letter will be in a match: the rule will write them all, unchanged and before
    /// anything else it reads, so writing them now gives the same output.
    fn settle(&self, inputs: Letters, s: &mut Scratch, budget: &mut Budget) -> Result<bool, Limit> {
        // Past the last rule with something pending there is nothing to settle (writing a
        // prefix out may give a later rule something pending: `last` follows).
        let last_pending = |s: &Scratch| s.pending.iter().rposition(|&q| q > 0);
        let Some(mut last) = last_pending(s) else {
            return Ok(true);
        };
        let (mut first, mut ever) = (inputs | END, inputs);
        let mut k = 0;
        while k <= last {
            let rule = &self.rules[k];
            let q = s.pending[k] as usize;
            if q > 0 && first & rule.extends[q] == 0 {
                if !self.write_pending(k, s, budget)? {
                    return Ok(false);
                }
                last = last.max(last_pending(s).unwrap_or(0));
            }
            let after_match = match rule.replacement.first() {
                Some(&c) => bit(c),
                None => ever | END,
            };
            let starts = bit(rule.pattern[0]);
            first = if s.pending[k] > 0 {
                starts | after_match
            } else if first & starts != 0 {
                first | after_match
            } else {
                first
            };
            ever |= rule.letters;
            k += 1;
        }
        Ok(true)
    }

    /// The end of the input: each rule in turn writes its pending prefix, which the rules
    /// after it read before they reach their own end. Returns false on an overflow.
    fn flush_all(&self, s: &mut Scratch, budget: &mut Budget) -> Result<bool, Limit> {
        for k in 0..self.rules.len() {
            if !self.write_pending(k, s, budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every letter the tests' inputs use.
    const ALL: [char; 10] = ['a', 'b', 'c', 'd', 'x', 'y', 'z', 'ʔ', 'ː', 'é'];

    fn cascade(rules: &[(&str, &str)]) -> Cascade {
        Cascade::from_pairs(rules).unwrap()
    }

    /// Runs `s` through the machine letter by letter, then flushes.
    fn run(m: &mut Machine, s: &str) -> String {
        let mut budget = Budget::new(1 << 20);
        let mut id = m.start();
        let mut out = String::new();
        let mut put = |m: &Machine, step: Step, input: char| {
            let text = m.written(step, usize::MAX).expect("no overflow");
            out.extend(text.iter().map(|&c| match c {
                FRESH => input,
                c => char::from_u32(c).unwrap(),
            }));
        };
        for ch in s.chars() {
            let step = m.step(id, m.code(ch), &mut budget).unwrap();
            put(m, step, ch);
            id = step.next;
        }
        let step = m.flush(id, &mut budget).unwrap();
        put(m, step, '?');
        out
    }

    #[test]
    fn steps_are_python_replace() {
        type Case = (
            &'static [(&'static str, &'static str)],
            &'static [&'static str],
        );
        let cases: &[Case] = &[
            (&[("aa", "b")], &["aaa", "aaaa", "abaa", "", "xaax"]),
            (&[("aab", "x")], &["aaab", "aab", "aaaab", "aa"]),
            (
                &[("aba", ""), ("b", "aba")],
                &["ababab", "abab", "bbb", "zz"],
            ),
            (&[("a", "aa"), ("aa", "a")], &["a", "aaa", "bab"]),
            (&[("ʔa", "ː"), ("ːː", "é")], &["ʔaʔa", "ʔʔaa", "éʔ"]),
            (&[("x", "x"), ("xy", "yx")], &["xxyy", "xyxy"]),
        ];
        for &(rules, inputs) in cases {
            let c = cascade(rules);
            let mut m = Machine::new(&c, &ALL, usize::MAX, 1 << 20).unwrap();
            for s in inputs {
                assert_eq!(run(&mut m, s), c.apply(s), "{rules:?} on {s:?}");
            }
        }
    }

    #[test]
    fn identity_rules_and_one_letter_patterns_hold_no_state() {
        let c = cascade(&[("a", "b"), ("c", "c"), ("b", "dd")]);
        let mut m = Machine::new(&c, &ALL, usize::MAX, 1 << 20).unwrap();
        assert_eq!(run(&mut m, "abcab"), c.apply("abcab"));
        assert_eq!(m.states(), 1);
        assert!(!m.uses('x') && m.uses('d'));
    }

    #[test]
    fn a_step_longer_than_the_cap_overflows_without_writing_it() {
        let c = cascade(&vec![("a", "aaa"); 20]);
        let mut m = Machine::new(&c, &ALL, 100, 1 << 20).unwrap();
        let mut budget = Budget::new(1 << 20);
        let step = m.step(m.start(), m.code('a'), &mut budget).unwrap();
        assert_eq!(m.written(step, usize::MAX), None);
        // it stopped soon after the cap: a few letters per rule past 100, not 3^20
        assert!(budget.spent() < 100 * 3 * 21, "{}", budget.spent());
        let step = m.step(m.start(), m.code('b'), &mut budget).unwrap();
        assert_eq!(m.written(step, usize::MAX), Some(&[FRESH][..]));
    }

    #[test]
    fn fresh_letters_are_written_as_the_input_letter() {
        let c = cascade(&[("ab", "c")]);
        let mut m = Machine::new(&c, &ALL, usize::MAX, 1 << 20).unwrap();
        let mut budget = Budget::new(1 << 20);
        let after_a = m.step(m.start(), m.code('a'), &mut budget).unwrap();
        let step = m.step(after_a.next, m.fresh(), &mut budget).unwrap();
        assert_eq!(m.written(step, 5), Some(&['a' as u32, FRESH][..]));
        assert_eq!(step.next, m.start());
    }

    #[test]
    fn tables_beyond_the_stored_limit_are_refused() {
        let c = cascade(&[("abcde", "fghij")]);
        assert_eq!(
            Machine::new(&c, &ALL, 10, 20).err(),
            Some(Limit::TooManyLetters { limit: 20 })
        );
    }
}
