//! Sampling one candidate instance (inputs and a cascade) and its held-out examples.
//!
//! The examples of a candidate are kept joined in one string of one-byte letter codes (see
//! [`Letters`]), separated by a code no letter has. A rule's pattern cannot contain the
//! separator, so replacing in the joined string is exactly replacing in every example, and
//! the whole cascade costs one substring scan per rule instead of one per example.

use super::{GenParams, Rejection};
use crate::relations::{
    by_shape, interaction_uncached, memo_miss_seconds, paper, wanted_uncached, with_memo, Category,
    RelationMode, Search, ShapeHead,
};
use crate::rule::{
    byte_positions, leftmost_disjoint, occurrences, replace_at, replace_bytes_noting,
    replace_padded, Cascade, Rule, PAD,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashSet;
use std::time::Instant;

/// Separates examples in a joined string; generators reject alphabets containing it.
const SEP: char = '\n';

/// What each random stream is used for: part of the stream's key.
#[derive(Clone, Copy)]
#[repr(u64)]
enum Purpose {
    Candidate = 1,
    Heldout = 2,
}

/// The random stream for one purpose of one attempt of one block of one seed: a
/// xoshiro256++ generator whose 256-bit state is [`spread`] from the four numbers.
///
/// Distinct keys give distinct states, so distinct attempts never share a stream, and
/// every state word depends on every key word, so neighbouring attempts' streams are
/// unrelated from their first draw. (A stream is set up in a few nanoseconds: a lite
/// attempt takes about a microsecond in all, and the keyed ChaCha8 stream used before
/// cost a tenth of it.) Always inlined: built in its caller's frame, the stream is not
/// copied out of a returned value (that copy was ~3% of a lite attempt).
#[inline(always)]
fn stream(seed: u64, block: u64, attempt: u64, purpose: Purpose, codes: DrawCodes) -> Draws {
    let mut state = [0u8; 32];
    for (k, word) in spread([seed, block, attempt, purpose as u64])
        .into_iter()
        .enumerate()
    {
        state[k * 8..k * 8 + 8].copy_from_slice(&word.to_le_bytes());
    }
    Draws::new(Xoshiro256PlusPlus::from_seed(state), codes)
}

/// A one-to-one map of four words to four words in which every output word depends on
/// every input word through a strong 64-bit mixer (SplitMix64's finaliser).
///
/// Two rounds of `w[k+1] ^= mix(w[k])` around the four words: each step is undone by
/// repeating it, so the whole map is a bijection (distinct keys, distinct states), and
/// after the first round the last word, after the second every word, has seen all four.
fn spread(mut w: [u64; 4]) -> [u64; 4] {
    for _ in 0..SPREAD_ROUNDS {
        for k in 0..4 {
            w[(k + 1) % 4] ^= mix(w[k]);
        }
    }
    w
}

const SPREAD_ROUNDS: usize = 2;

/// SplitMix64's output function: every output bit depends on every input bit.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random stream that also draws letters and lengths cheaply: one 64-bit word gives
/// several of them at once, as the base-n digits of a number uniform over [0, n^d) (see
/// [`LetterCode`]), so they stay exactly uniform and independent at about one multiply
/// each. Letters, input lengths and rule lengths each cut their own words.
pub(super) struct Draws {
    rng: Xoshiro256PlusPlus,
    letters: Digits,
    input_len: Digits,
    rule_len: Digits,
    /// The shortest input and rule lengths: the digits are added to them.
    least: (usize, usize),
}

/// How a [`Draws`] cuts its words, made once per run: the codes of the alphabet and of
/// the input and rule length ranges.
#[derive(Debug, Clone, Copy)]
pub(super) struct DrawCodes {
    letters: LetterCode,
    input_len: (usize, LetterCode),
    rule_len: (usize, LetterCode),
}

impl DrawCodes {
    /// The codes for validated parameters.
    pub(super) fn new(p: &GenParams) -> Self {
        let range = |(lo, hi): (usize, usize)| (lo, LetterCode::new(hi - lo + 1));
        DrawCodes {
            letters: LetterCode::new(p.alphabet.len()),
            input_len: range(p.input_len),
            rule_len: range(p.rule_len),
        }
    }
}

impl Draws {
    fn new(rng: Xoshiro256PlusPlus, codes: DrawCodes) -> Self {
        Draws {
            rng,
            letters: Digits::new(codes.letters),
            input_len: Digits::new(codes.input_len.1),
            rule_len: Digits::new(codes.rule_len.1),
            least: (codes.input_len.0, codes.rule_len.0),
        }
    }

    /// A letter of `alphabet` (the alphabet of the stream's codes), uniformly.
    #[inline]
    fn letter<T: Copy>(&mut self, alphabet: &[T]) -> T {
        debug_assert_eq!(alphabet.len() as u64, self.letters.code.n);
        alphabet[self.letter_index()]
    }

    /// An index in `0..n` for the stream's n-letter alphabet, uniformly; independent of
    /// every other draw.
    #[inline]
    fn letter_index(&mut self) -> usize {
        self.letters.next(&mut self.rng)
    }

    /// `len` (at most 8) letters drawn uniformly, mapped through `table` (the code of each
    /// draw index, as [`Letters`] keeps them), as the bytes of one word from the lowest:
    /// the same draws as `len` calls of [`Draws::letter_index`], with the digit state kept
    /// in registers.
    #[inline]
    fn letters_word(&mut self, len: usize, table: &[u8; 256]) -> u64 {
        debug_assert!(len <= 8);
        let digits = &mut self.letters;
        let (mut word, mut left) = (digits.word, digits.left);
        let mut out = 0u64;
        for i in 0..len {
            if left == 0 {
                word = digits.code.accept::<64>(&mut || self.rng.next_u64());
                left = digits.code.digits;
            }
            left -= 1;
            let (digit, rest) = digits.code.digit::<64>(word);
            word = rest;
            out |= (table[digit as usize % 256] as u64) << (8 * i);
        }
        (digits.word, digits.left) = (word, left);
        out
    }

    /// An input length, uniform over the parameters' range.
    #[inline]
    fn input_len(&mut self) -> usize {
        self.least.0 + self.input_len.next(&mut self.rng)
    }

    /// A rule side's length, uniform over the parameters' range.
    #[inline]
    fn rule_len(&mut self) -> usize {
        self.least.1 + self.rule_len.next(&mut self.rng)
    }
}

/// A supply of base-n digits cut from random words by a [`LetterCode`].
struct Digits {
    code: LetterCode,
    /// The digits not yet used, as a 64-bit fraction (see [`LetterCode::digit`]).
    word: u64,
    left: u32,
}

impl Digits {
    fn new(code: LetterCode) -> Self {
        Digits {
            code,
            word: 0,
            left: 0,
        }
    }

    /// The next digit, drawing a new word from `rng` when none is left.
    #[inline]
    fn next(&mut self, rng: &mut Xoshiro256PlusPlus) -> usize {
        if self.left == 0 {
            self.refill(rng);
        }
        self.left -= 1;
        let (digit, rest) = self.code.digit::<64>(self.word);
        self.word = rest;
        digit as usize
    }

    #[inline(never)]
    fn refill(&mut self, rng: &mut Xoshiro256PlusPlus) {
        self.word = self.code.accept::<64>(&mut || rng.next_u64());
        self.left = self.code.digits;
    }
}

/// How a word of `BITS` random bits is cut into d letters of an n-letter alphabet.
///
/// A word x is read as the fraction x / 2^BITS. Its d leading base-n digits (digit = ⌊x·n /
/// 2^BITS⌋, then x ← x·n mod 2^BITS, d times) are exactly the base-n digits of D = ⌊x·n^d /
/// 2^BITS⌋, since the remainder left after d steps is below 2^BITS. D is made exactly
/// uniform over [0, n^d) by Lemire's rejection: x is redrawn while x·n^d mod 2^BITS <
/// 2^BITS mod n^d, which leaves every value of D the same number of words. So the d
/// letters are uniform and independent. d is the largest with n^d ≤ 2^(BITS-6): a word is
/// redrawn less than once in 64.
#[derive(Debug, Clone, Copy)]
pub(super) struct LetterCode {
    n: u64,
    digits: u32,
    /// n^digits.
    span: u128,
    /// 2^BITS mod span: words x with x·span mod 2^BITS below it are redrawn.
    reject_below: u128,
}

impl LetterCode {
    /// The code for an alphabet of `n` letters.
    pub(super) fn new(n: usize) -> Self {
        Self::with_bits(n as u64, 64)
    }

    fn with_bits(n: u64, bits: u32) -> Self {
        assert!(n >= 1, "an alphabet has letters");
        let limit = 1u128 << (bits - 6);
        let (mut digits, mut span) = (0, 1u128);
        while digits < bits && span * n as u128 <= limit {
            digits += 1;
            span *= n as u128;
        }
        assert!(digits >= 1, "{n} letters do not fit in {bits} bits");
        let reject_below = (1u128 << bits) % span;
        LetterCode {
            n,
            digits,
            span,
            reject_below,
        }
    }

    /// A word of `BITS` bits (drawn by `next` until accepted) whose d digits are uniform.
    fn accept<const BITS: u32>(&self, next: &mut impl FnMut() -> u64) -> u64 {
        let mask = (1u128 << BITS) - 1;
        loop {
            let x = next() as u128 & mask;
            if (x * self.span) & mask >= self.reject_below {
                return x as u64;
            }
        }
    }

    /// The leading digit of `x` and the fraction that holds the rest.
    fn digit<const BITS: u32>(&self, x: u64) -> (u64, u64) {
        let product = x as u128 * self.n as u128;
        (
            (product >> BITS) as u64,
            (product & ((1u128 << BITS) - 1)) as u64,
        )
    }
}

impl RngCore for Draws {
    fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.rng.fill_bytes(dst)
    }
}

/// The alphabet as one-byte letter codes, in which candidates are sampled.
///
/// Code c is the c-th letter of the alphabet in `char` order, so codes order like the
/// letters they stand for; [`SEP_CODE`] separates examples. Replacing, matching and
/// comparing codes is exactly doing so on the letters, as the map is one-to-one; letters
/// become text again only for the few candidates that are kept.
pub(super) struct Letters {
    /// The letter of each code.
    by_code: Vec<char>,
    /// The code of each letter of the alphabet in the order given (the order draws use).
    /// (A full 256-entry table, so that a digit indexes it with no bounds check.)
    of_draw: [u8; 256],
    /// The byte of each code (and [`SEP`] for [`SEP_CODE`]) when every letter is ASCII,
    /// so that codes become text by one lookup each; None otherwise.
    ascii: Option<[u8; 256]>,
}

/// The code that separates examples in a joined code string: no letter has it, as
/// alphabets have at most 255 letters.
const SEP_CODE: u8 = 0xFF;

impl Letters {
    /// The codes of `alphabet`, which has at most 255 distinct letters (checked when the
    /// parameters are validated).
    pub(super) fn new(alphabet: &[char]) -> Self {
        let mut by_code = alphabet.to_vec();
        by_code.sort_unstable();
        assert!(by_code.len() <= SEP_CODE as usize, "at most 255 letters");
        let ascii = by_code.iter().all(char::is_ascii).then(|| {
            let mut bytes = [0; 256];
            for (code, &c) in by_code.iter().enumerate() {
                bytes[code] = c as u8;
            }
            bytes[SEP_CODE as usize] = SEP as u8;
            bytes
        });
        let mut letters = Letters {
            by_code,
            of_draw: [SEP_CODE; 256],
            ascii,
        };
        for (k, &c) in alphabet.iter().enumerate() {
            letters.of_draw[k] = letters.code(c);
        }
        letters
    }

    /// The code of `c`, a letter of the alphabet.
    fn code(&self, c: char) -> u8 {
        self.by_code
            .binary_search(&c)
            .expect("a letter of the alphabet") as u8
    }

    /// A letter drawn uniformly, as its code.
    #[inline]
    fn draw(&self, rng: &mut Draws) -> u8 {
        // (`% 256` never changes the index; it lets the compiler drop the bounds check.)
        self.of_draw[rng.letter_index() % 256]
    }

    /// The codes of `text`, whose letters are all in the alphabet.
    fn codes(&self, text: &str) -> Vec<u8> {
        text.chars().map(|c| self.code(c)).collect()
    }

    /// The text of `codes`, examples separated by [`SEP`].
    fn text(&self, codes: &[u8]) -> String {
        if let Some(ascii) = &self.ascii {
            let bytes = codes.iter().map(|&c| ascii[c as usize]).collect();
            return String::from_utf8(bytes).expect("ASCII letters are UTF-8");
        }
        codes
            .iter()
            .map(|&c| match c {
                SEP_CODE => SEP,
                c => self.by_code[c as usize],
            })
            .collect()
    }

    /// The examples joined in `codes`, as separate texts.
    fn texts(&self, codes: &[u8]) -> Vec<String> {
        codes
            .split(|&c| c == SEP_CODE)
            .map(|example| self.text(example))
            .collect()
    }
}

/// What sampling needs of the parameters, made once per run: the letter codes and the
/// codes its random streams cut their words with.
pub(super) struct Sampler {
    pub letters: Letters,
    codes: DrawCodes,
}

impl Sampler {
    /// The sampler for validated parameters.
    pub(super) fn new(p: &GenParams) -> Self {
        Sampler {
            letters: Letters::new(&p.alphabet),
            codes: DrawCodes::new(p),
        }
    }
}

/// A sampled instance before acceptance.
pub(super) struct Candidate {
    /// The example inputs.
    pub inputs: Vec<String>,
    /// The example outputs.
    pub outputs: Vec<String>,
    pub cascade: Vec<Rule>,
    pub category: Category,
    /// The inputs and the cascade in letter codes, each part preceded by its length: two
    /// candidates have equal keys exactly when they are the same instance (the outputs
    /// follow from the inputs and the cascade).
    pub key: Box<[u8]>,
    /// How many examples each rule changes at the point it applies (as
    /// [`Instance::examples_changed_per_rule`](crate::Instance::examples_changed_per_rule)
    /// counts them).
    pub changed: Vec<usize>,
}

/// A kept rule of the attempt being sampled: `a` is `Scratch::sides[start..mid]` and `b`
/// is `sides[mid..end]`, as codes.
#[derive(Clone, Copy)]
struct SampledRule {
    start: u32,
    mid: u32,
    end: u32,
    /// The [`code_mask`]s of `a` and `b`.
    masks: (u64, u64),
}

/// A 64-bit set of the letters of `codes`, hashed into 64 buckets, as
/// [`letter_mask`](crate::rule::letter_mask) makes for text.
fn code_mask(codes: &[u8]) -> u64 {
    codes.iter().fold(0, |m, &c| m | 1 << (c % 64))
}

/// Reusable buffers of one worker. After [`sample_into`] they hold that attempt's sample,
/// so that the common case, a candidate rejected for its category, allocates nothing.
#[derive(Default)]
pub(super) struct Scratch {
    seen: InputKeys,
    /// The inputs, joined, as codes.
    inputs: Padded,
    /// The current strings, joined: the outputs once the cascade has run.
    joined: Padded,
    next: Padded,
    /// Both sides of every kept rule, back to back.
    sides: Vec<u8>,
    rules: Vec<SampledRule>,
    /// Each rule's part of the shape keys of its pairs, made when first needed (None
    /// inside: more than 3 letters a side).
    heads: Vec<Option<Option<ShapeHead>>>,
}

/// A joined code string, `bytes[..len]`, followed by at least [`PAD`] bytes of slack (any
/// values), so that [`replace_padded`] can move its pieces a word at a time.
#[derive(Default)]
struct Padded {
    bytes: Vec<u8>,
    len: usize,
}

impl Padded {
    /// `codes` with slack of letter code 0 (a test's strings must not match into it).
    #[cfg(test)]
    fn of(codes: &[u8]) -> Self {
        let mut bytes = codes.to_vec();
        bytes.resize(codes.len() + PAD, 0);
        Padded {
            bytes,
            len: codes.len(),
        }
    }

    /// The string, without the slack.
    fn codes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl SampledRule {
    /// The rule's pattern and replacement, as codes, from the sides of all rules.
    fn sides(self, sides: &[u8]) -> (&[u8], &[u8]) {
        (
            &sides[self.start as usize..self.mid as usize],
            &sides[self.mid as usize..self.end as usize],
        )
    }
}

impl Scratch {
    /// The sample left by [`sample_into`] as an owned candidate of `category`.
    pub fn candidate(&self, letters: &Letters, category: Category) -> Candidate {
        let inputs = self.inputs.codes();
        let mut key =
            Vec::with_capacity(inputs.len() + self.sides.len() + 4 + 8 * self.rules.len());
        let mut part = |codes: &[u8]| {
            key.extend_from_slice(&(codes.len() as u32).to_le_bytes());
            key.extend_from_slice(codes);
        };
        part(inputs);
        let cascade = self
            .rules
            .iter()
            .map(|r| {
                let (a, b) = r.sides(&self.sides);
                part(a);
                part(b);
                Rule::new(letters.text(a), letters.text(b))
                    .expect("sampled patterns are never empty")
            })
            .collect();
        Candidate {
            inputs: letters.texts(inputs),
            outputs: letters.texts(self.joined.codes()),
            cascade,
            category,
            key: key.into_boxed_slice(),
            changed: self.changed_per_rule(),
        }
    }

    /// How many examples each kept rule changes: the rules that fire on each input, as
    /// the held-out examples find them ([`RuleSets::of_pool`], the cascade run once over
    /// the joined inputs), counted per rule.
    fn changed_per_rule(&self) -> Vec<usize> {
        let rules: Vec<_> = (self.rules.iter())
            .map(|rule| Some(rule.sides(&self.sides)))
            .collect();
        let inputs = self.inputs.codes();
        let examples = inputs.iter().filter(|&&c| c == SEP_CODE).count() + 1;
        let fired = RuleSets::of_pool(&rules, inputs, examples);
        (0..rules.len())
            .map(|r| (0..examples).filter(|&input| fired.has(input, r)).count())
            .collect()
    }
}

/// Categories whose quota was already full when a batch of attempts began: still full for
/// every attempt of the batch before patience runs out, as quotas only shrink then. An
/// attempt whose cascade is certain to fall in one of them is rejected as soon as that is
/// certain, often before its cascade is complete (the category is found as the cascade
/// grows, and adding rules can only add flags); the block accepts exactly what it would
/// have accepted otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FullCategories {
    /// Bit c: category c is full.
    full: u16,
    /// Bit s: every category with all the flags of s is full.
    hopeless: u16,
}

impl FullCategories {
    /// The full categories are the set bits of `full` (bit c for category index c).
    pub(super) fn new(full: u16) -> Self {
        let hopeless = (0..16usize)
            .filter(|&set| {
                (0..16)
                    .filter(|c| c & set == set)
                    .all(|c| full & 1 << c != 0)
            })
            .fold(0, |bits, set| bits | 1 << set);
        FullCategories { full, hopeless }
    }

    /// True when `category` is full.
    fn contains(self, category: Category) -> bool {
        self.full & 1 << category.index() != 0
    }

    /// True when every category that has all the flags of `set` is full.
    #[inline]
    fn all_with(self, set: Category) -> bool {
        self.hopeless & 1 << set.index() != 0
    }
}

/// Attempts whose classification is timed: one in this many. The classification of those
/// is replayed once it is over, timed as one stretch (timing each step as the cascade grows
/// would mostly time the clock), and scaled up; the rare, slow memo misses are timed on
/// every attempt instead (see [`memo_miss_seconds`]), which keeps the estimate's variance
/// low. (Prime, so that the timed attempts fall evenly on every place in a batch. With 16,
/// which times the same four places of every 64-attempt batch, a full run read 9.4%;
/// with 61 it reads 10%, as a profile does.)
const CLASSIFY_TIMING_STRIDE: u64 = 61;

/// What an attempt needs to know of its block: its key (for the random streams), the
/// cascade lengths it draws from, and whether a cascade must keep its drawn length (else
/// it must keep at least the shortest one).
#[derive(Clone, Copy)]
pub(super) struct BlockShape<'a> {
    pub key: u64,
    pub lengths: &'a [usize],
    pub exact_length: bool,
}

/// Samples attempt `attempt` of a block into `scratch`: ℓ from the block's lengths,
/// distinct inputs, then rules whose pattern is a substring present at that point,
/// classifying the cascade as it grows; stops as soon as the attempt is certain to be
/// rejected. [`Scratch::candidate`] then gives the sample. Also returns an estimate of
/// the seconds spent classifying ([`CLASSIFY_TIMING_STRIDE`]).
pub(super) fn sample_into(
    p: &GenParams,
    sampler: &Sampler,
    block: BlockShape,
    attempt: u64,
    full: FullCategories,
    scratch: &mut Scratch,
) -> (Result<Category, Rejection>, f64) {
    let misses_before = memo_miss_seconds();
    let outcome = sample_attempt(p, sampler, block, attempt, full, scratch);
    let mut seconds = memo_miss_seconds() - misses_before;
    if attempt.is_multiple_of(CLASSIFY_TIMING_STRIDE) {
        // Decisions that bypass the memo (sides of over 3 letters) were timed above, so
        // the replay leaves them out; it finds every other shape in the memo.
        let clock = Instant::now();
        let bypassed = memo_miss_seconds();
        scratch.heads.clear();
        let mut search = Search::default();
        for _ in 0..scratch.rules.len() {
            if classify_newest(p.relations, &sampler.letters, scratch, &mut search, full) {
                break;
            }
        }
        let replay = clock.elapsed().as_secs_f64() - (memo_miss_seconds() - bypassed);
        seconds += replay.max(0.0) * CLASSIFY_TIMING_STRIDE as f64;
    }
    (outcome, seconds)
}

/// [`sample_into`] without the timing.
fn sample_attempt(
    p: &GenParams,
    sampler: &Sampler,
    block: BlockShape,
    attempt: u64,
    full: FullCategories,
    scratch: &mut Scratch,
) -> Result<Category, Rejection> {
    let BlockShape {
        key: block,
        lengths,
        exact_length,
    } = block;
    let letters = &sampler.letters;
    let mut rng = stream(p.seed, block, attempt, Purpose::Candidate, sampler.codes);
    let target = lengths[rng.random_range(0..lengths.len())];
    sample_joined_inputs(p, sampler, &mut rng, scratch);
    scratch.joined.bytes.clone_from(&scratch.inputs.bytes);
    scratch.joined.len = scratch.inputs.len;
    scratch.sides.clear();
    scratch.rules.clear();
    scratch.heads.clear();
    let min_len = if exact_length { target } else { lengths[0] };
    // The category is found as the cascade grows (see Search), so that an attempt whose
    // category is already certain to be full stops there.
    let mut search = Search::default();
    for step in 0..target {
        if scratch.rules.len() + (target - step) < min_len {
            // Too few steps are left to reach the shortest length.
            return Err(Rejection::TooShort);
        }
        let start = scratch.sides.len();
        let Some((mid, starts)) = sample_rule(sampler, &mut rng, scratch) else {
            continue;
        };
        let Scratch {
            sides,
            joined,
            next,
            rules,
            ..
        } = scratch;
        let (a, b) = (&sides[start..mid], &sides[mid..]);
        // Rules that change nothing at the point they apply are dropped (Algorithm 1).
        let replaced = match starts {
            // The pattern's starts, known from its draw: the replace need not search.
            Some(starts) => {
                let matches = leftmost_disjoint(starts, a.len());
                Some(replace_at(
                    &joined.bytes,
                    joined.len,
                    matches,
                    a.len(),
                    b,
                    &mut next.bytes,
                ))
            }
            None => replace_padded(&joined.bytes, joined.len, a, b, &mut next.bytes),
        };
        let Some(len) = replaced else {
            sides.truncate(start);
            continue;
        };
        next.len = len;
        std::mem::swap(joined, next);
        rules.push(SampledRule {
            start: start as u32,
            mid: mid as u32,
            end: sides.len() as u32,
            masks: (code_mask(a), code_mask(b)),
        });
        if classify_newest(p.relations, letters, scratch, &mut search, full) {
            return Err(Rejection::QuotaFull);
        }
    }
    if scratch.rules.len() < min_len {
        return Err(Rejection::TooShort);
    }
    if scratch.joined.codes() == scratch.inputs.codes() {
        return Err(Rejection::OutputsEqualInputs);
    }
    let category = search.category();
    if full.contains(category) {
        return Err(Rejection::QuotaFull);
    }
    Ok(category)
}

/// Adds the newest rule of `scratch` to the `search` for its cascade's category; true
/// when the category is now certain to be one of the `full` ones.
fn classify_newest(
    mode: RelationMode,
    letters: &Letters,
    scratch: &mut Scratch,
    search: &mut Search,
    full: FullCategories,
) -> bool {
    let Scratch {
        sides,
        rules,
        heads,
        ..
    } = scratch;
    let masks = |k: usize| rules[k].masks;
    let give_up = |set| full.all_with(set);
    if mode == RelationMode::Paper {
        // The formula on a few letters costs less than finding its shape in the memo; it
        // reads letters as they are, and codes are letters one-to-one.
        return search.push(
            masks,
            |i, j, want| {
                let (si, ti) = rules[i].sides(sides);
                let sj = rules[j].sides(sides).0;
                (
                    want.feeds && paper::feeds_in(si, ti, sj),
                    want.bleeds && paper::bleeds_in(si, ti, sj),
                )
            },
            give_up,
        );
    }
    heads.resize(rules.len(), None);
    with_memo(|memo| {
        search.push(
            masks,
            |i, j, want| {
                let (si, ti) = rules[i].sides(sides);
                let sj = rules[j].sides(sides).0;
                let texts = || [si, ti, sj].map(|codes| letters.text(codes));
                let head = *heads[i].get_or_insert_with(|| ShapeHead::of(si, ti));
                match head.and_then(|head| head.key(sj)) {
                    Some(shape) => by_shape(memo, mode, shape, || {
                        let [si, ti, sj] = texts();
                        interaction_uncached(mode, &si, &ti, &sj)
                    }),
                    None => {
                        let [si, ti, sj] = texts();
                        wanted_uncached(mode, want, &si, &ti, &sj)
                    }
                }
            },
            give_up,
        )
    })
}

/// The keys ([`input_key`]) of an attempt's inputs so far, for the distinctness check.
///
/// A 4096-bit filter indexed by a hash of the key answers "not seen" for almost every new
/// input with one bit test; only when its bit is already set are the keys compared. Past
/// [`InputKeys::FILTERED`] inputs the filter would fill up, so a hash set takes over.
struct InputKeys {
    filter: [u64; 64],
    keys: Vec<u64>,
    set: FxHashSet<u64>,
}

impl Default for InputKeys {
    fn default() -> Self {
        InputKeys {
            filter: [0; 64],
            keys: Vec::new(),
            set: FxHashSet::default(),
        }
    }
}

impl InputKeys {
    const FILTERED: usize = 256;

    /// Empties the set. Only the filter words the keys set are zeroed: an attempt has a
    /// few inputs, and zeroing all 64 words cost more than drawing them.
    fn clear(&mut self) {
        for &key in &self.keys {
            self.filter[Self::slot(key).0] = 0;
        }
        self.keys.clear();
        if !self.set.is_empty() {
            self.set.clear();
        }
    }

    /// The filter word and bit of `key`.
    #[inline]
    fn slot(key: u64) -> (usize, u64) {
        let bit = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize;
        (bit / 64 % 64, 1 << (bit % 64))
    }

    /// Adds `key`; false when it was already there.
    #[inline]
    fn insert(&mut self, key: u64) -> bool {
        if self.keys.len() >= Self::FILTERED {
            if self.set.is_empty() {
                self.set.extend(self.keys.iter().copied());
            }
            return self.set.insert(key) && {
                self.keys.push(key);
                true
            };
        }
        let (word, mask) = Self::slot(key);
        if self.filter[word] & mask != 0 && self.keys.contains(&key) {
            return false;
        }
        self.filter[word] |= mask;
        self.keys.push(key);
        true
    }
}

/// An identity for an input: its bytes and length when it is at most 7 bytes long (exact;
/// the top bit is then clear), else a hash with the top bit set (a collision only costs a
/// redraw).
fn input_key(s: &[u8]) -> u64 {
    if s.len() <= 7 {
        return s
            .iter()
            .enumerate()
            .fold((s.len() as u64) << 56, |key, (i, &b)| {
                key | (b as u64) << (8 * i)
            });
    }
    use std::hash::BuildHasher;
    1 << 63 | rustc_hash::FxBuildHasher.hash_one(s)
}

/// The visible inputs of an attempt, distinct, each of length ~ Unif{l_min..l_max} with
/// letters ~ Unif(Σ), joined in codes into `scratch.inputs`.
fn sample_joined_inputs(p: &GenParams, sampler: &Sampler, rng: &mut Draws, scratch: &mut Scratch) {
    let Scratch {
        seen,
        inputs: padded,
        ..
    } = scratch;
    let of_draw = &sampler.letters.of_draw;
    seen.clear();
    // Written in place into room for the longest inputs (and slack past them, at least a
    // word), so that no write checks for growth; a rejected duplicate is simply
    // overwritten.
    let inputs = &mut padded.bytes;
    inputs.clear();
    inputs.resize(p.examples * (p.input_len.1 + 1) + PAD, SEP_CODE);
    let mut end = 0;
    let mut count = 0;
    while count < p.examples {
        let start = end + (count > 0) as usize;
        let len = rng.input_len();
        let key = if len <= 7 {
            // Letters go into one word, which is also the input's key (see input_key),
            // written out with one 8-byte copy (the separator before it goes in once the
            // input is kept).
            let word = rng.letters_word(len, of_draw);
            inputs[start..start + 8].copy_from_slice(&word.to_le_bytes());
            word | (len as u64) << 56
        } else {
            for code in &mut inputs[start..start + len] {
                *code = sampler.letters.draw(rng);
            }
            input_key(&inputs[start..start + len])
        };
        debug_assert_eq!(key, input_key(&inputs[start..start + len]));
        if seen.insert(key) {
            if count > 0 {
                inputs[end] = SEP_CODE;
            }
            end = start + len;
            count += 1;
        }
    }
    padded.len = end;
}

/// `count` distinct random inputs, drawn as [`sample_joined_inputs`] draws them, none of
/// whose [`input_key`]s is in `taken`: joined, and where each starts. Their keys are added
/// to `taken`.
fn sample_pool(
    p: &GenParams,
    letters: &Letters,
    rng: &mut Draws,
    count: usize,
    taken: &mut FxHashSet<u64>,
) -> (Vec<u8>, Vec<usize>) {
    let mut joined = Vec::with_capacity(count * (p.input_len.1 + 1) + 8);
    let mut starts = Vec::with_capacity(count);
    while starts.len() < count {
        let before = joined.len();
        if !starts.is_empty() {
            joined.push(SEP_CODE);
        }
        let start = joined.len();
        let len = rng.input_len();
        let key = if len <= 7 {
            // The same draws as letter by letter (see Draws::letters_word), and the key.
            let word = rng.letters_word(len, &letters.of_draw);
            joined.extend_from_slice(&word.to_le_bytes()[..len]);
            word | (len as u64) << 56
        } else {
            for _ in 0..len {
                joined.push(letters.draw(rng));
            }
            input_key(&joined[start..])
        };
        debug_assert_eq!(key, input_key(&joined[start..]));
        if taken.insert(key) {
            starts.push(start);
        } else {
            joined.truncate(before);
        }
    }
    (joined, starts)
}

/// Draws a rule `a → b` and appends `a` then `b` to `scratch.sides`, returning where `b`
/// starts: |a|, |b| ~ Unif{s_min..s_max}; `a` uniform over the *distinct* substrings of
/// length |a| of the current examples; `b` uniform over Σ^|b|, resampled while it equals
/// `a`. None (and nothing appended) when no example is |a| letters long. With `b`'s start
/// comes the set of `a`'s starts in the examples when [`distinct_window`] knows it.
fn sample_rule(
    sampler: &Sampler,
    rng: &mut Draws,
    scratch: &mut Scratch,
) -> Option<(usize, Option<u64>)> {
    let letters = &sampler.letters;
    let a_len = rng.rule_len();
    let b_len = rng.rule_len();
    let Scratch { joined, sides, .. } = scratch;
    let (from, to, starts) = distinct_window(rng, letters, joined, a_len)?;
    let start = sides.len();
    sides.extend_from_slice(&joined.codes()[from as usize..to as usize]);
    let mid = sides.len();
    loop {
        sides.truncate(mid);
        for _ in 0..b_len {
            sides.push(letters.draw(rng));
        }
        if sides[mid..] != sides[start..mid] {
            return Some((mid, starts));
        }
    }
}

/// A window of `k` letters of one example (a range of the joined codes), uniform over the
/// distinct texts of such windows, and, in strings of at most 64 codes, every start of
/// its text as bits ([`occurrences`]); None when no example has `k` letters.
///
/// Without listing the windows: a window is drawn as a random start, redrawn while it
/// crosses an example boundary (so it is uniform over the windows), and kept with
/// probability 1/m, where m is how many windows hold the same text (the popcount of its
/// starts, or a scan in longer strings): each distinct text is then equally likely, with
/// no set built. Expected draws: windows / distinct texts (about 2 on the presets).
/// Single letters are drawn straight from the set of letters present.
fn distinct_window(
    rng: &mut Draws,
    letters: &Letters,
    joined: &Padded,
    k: usize,
) -> Option<(u32, u32, Option<u64>)> {
    let codes = joined.codes();
    let as_bits = codes.len() <= 64;
    if k == 0 || codes.len() < k {
        return None;
    }
    if k == 1 {
        let present = letters_present(codes, letters);
        let count: u32 = present.iter().map(|w| w.count_ones()).sum();
        if count == 0 {
            return None;
        }
        let mut skip = rng.random_range(0..count);
        let letter = (0..4)
            .find_map(|w| {
                let ones = present[w].count_ones();
                if skip >= ones {
                    skip -= ones;
                    return None;
                }
                let mut rest = present[w];
                for _ in 0..skip {
                    rest &= rest - 1;
                }
                Some(64 * w as u32 + rest.trailing_zeros())
            })
            .expect("fewer letters skipped than present") as u8;
        if as_bits {
            let starts = byte_positions(&joined.bytes, codes.len(), letter);
            let at = starts.trailing_zeros();
            return Some((at, at + 1, Some(starts)));
        }
        let at = memchr::memchr(letter, codes).expect("the letter is present");
        return Some((at as u32, at as u32 + 1, None));
    }
    let mut misses = 0u32;
    loop {
        let start = rng.random_range(0..=codes.len() - k);
        let text = &codes[start..start + k];
        if text.contains(&SEP_CODE) {
            // After a run of misses, check that some example is k letters long at all
            // (cheap enough only when rare), or no draw would ever succeed.
            misses += 1;
            if misses == 64 && !codes.split(|&b| b == SEP_CODE).any(|e| e.len() >= k) {
                return None;
            }
            continue;
        }
        // (A window fits in the string, so in a short one k is at most 64, as
        // `occurrences` needs.)
        let (m, starts) = if as_bits {
            let starts = occurrences(&joined.bytes, codes.len(), text);
            (starts.count_ones() as usize, Some(starts))
        } else {
            (count_windows(codes, text), None)
        };
        if m == 1 || rng.random_range(0..m) == 0 {
            return Some((start as u32, (start + k) as u32, starts));
        }
    }
}

/// The set of letter codes in `codes` (the separator left out), as four 64-bit words.
fn letters_present(codes: &[u8], letters: &Letters) -> [u64; 4] {
    if letters.by_code.len() <= 63 {
        // The common case, alphabets of up to 63 letters: one word (the separator lands on
        // bit 63, which no letter has), built as four, one per byte of each 4-byte chunk,
        // so that the shifts do not wait on each other.
        let mut chunks = codes.chunks_exact(4);
        let mut sets = chunks.by_ref().fold([0u64; 4], |mut sets, chunk| {
            for (set, &c) in sets.iter_mut().zip(chunk) {
                *set |= 1 << (c & 63);
            }
            sets
        });
        for &c in chunks.remainder() {
            sets[0] |= 1 << (c & 63);
        }
        let set = sets[0] | sets[1] | sets[2] | sets[3];
        return [set & !(1 << 63), 0, 0, 0];
    }
    let mut set = [0u64; 4];
    for &c in codes.iter().filter(|&&c| c != SEP_CODE) {
        set[c as usize / 64] |= 1 << (c % 64);
    }
    set
}

/// How many windows of `bytes` (overlapping ones included) hold `text`, for strings too
/// long for [`occurrences`]: find the first letter with SIMD (memchr) and check the rest,
/// as matches are rare.
#[inline(never)]
fn count_windows(bytes: &[u8], text: &[u8]) -> usize {
    let (&first, tail) = text.split_first().expect("windows are never empty");
    let fits = |at: usize| bytes.len() - at > tail.len();
    let rest_matches = |at: usize| tail.iter().zip(&bytes[at + 1..]).all(|(t, b)| t == b);
    memchr::memchr_iter(first, bytes)
        .filter(|&at| fits(at) && rest_matches(at))
        .count()
}

/// `h` held-out inputs (distinct from the visible ones and each other) and their outputs,
/// chosen greedily from a pool of fresh inputs so that every rule of the cascade fires on
/// at least one where the pool allows. Drawn from the attempt's own held-out stream.
pub(super) fn sample_heldout(
    p: &GenParams,
    sampler: &Sampler,
    block: u64,
    attempt: u64,
    visible: &[String],
    cascade: &Cascade,
) -> (Vec<String>, Vec<String>) {
    if p.heldout == 0 {
        return (Vec::new(), Vec::new());
    }
    let letters = &sampler.letters;
    let mut rng = stream(p.seed, block, attempt, Purpose::Heldout, sampler.codes);
    let distinct_inputs: f64 = (p.input_len.0..=p.input_len.1)
        .map(|l| (p.alphabet.len() as f64).powi(l as i32))
        .sum();
    let available = (distinct_inputs - visible.len() as f64).max(0.0);
    let pool_size = (p.heldout * 20).max(400).min(available as usize);
    // Room for the splices too, so that the set never grows.
    let mut taken = FxHashSet::with_capacity_and_hasher(
        visible.len() + pool_size + cascade.len(),
        Default::default(),
    );
    let visible_codes: Vec<Vec<u8>> = visible.iter().map(|s| letters.codes(s)).collect();
    taken.extend(visible_codes.iter().map(|codes| input_key(codes)));
    let (pool_codes, starts) = sample_pool(p, letters, &mut rng, pool_size, &mut taken);
    let pool: Vec<&[u8]> = (starts.iter().enumerate())
        .map(|(k, &start)| {
            let end = starts.get(k + 1).map_or(pool_codes.len(), |&next| next - 1);
            &pool_codes[start..end]
        })
        .collect();
    // For each pool input, the set of rules that fire on it along the cascade.
    let rules = coded_rules(cascade, letters);
    let fired = RuleSets::of_pool(&rules, &pool_codes, pool.len());
    let mut covered = RuleSets::new(1, cascade.len());
    let mut chosen: Vec<usize> = Vec::new();
    // Greedy cover: the input that fires the most rules not yet covered, the first drawn
    // among equals. Only inputs that fire some rule can gain, and a chosen one gains
    // nothing more, so neither the others nor the chosen need looking at.
    let firing: Vec<usize> = (0..pool.len()).filter(|&k| fired.any(k)).collect();
    while chosen.len() < p.heldout.min(pool.len()) {
        let gain = |k: usize| fired.count_new(k, &covered);
        let best = (firing.iter().copied()).max_by_key(|&k| (gain(k), std::cmp::Reverse(k)));
        match best {
            Some(k) if gain(k) > 0 => {
                covered.add(0, fired.rules(k));
                chosen.push(k);
            }
            _ => break,
        }
    }
    // Rules no pool input reaches: splice a window of a visible input on which the rule
    // fires into random letters, keeping the input length in range.
    let mut spliced: Vec<String> = Vec::new();
    let visible_fired = RuleSets::of_pool(&rules, &visible_codes.join(&SEP_CODE), visible.len());
    for rule in 0..cascade.len() {
        if covered.has(0, rule) || chosen.len() >= p.heldout {
            continue;
        }
        let sources: Vec<&String> = (visible.iter().enumerate())
            .filter(|&(k, _)| visible_fired.has(k, rule))
            .map(|(_, v)| v)
            .collect();
        if sources.is_empty() {
            continue;
        }
        for _ in 0..200 {
            let source: Vec<char> = sources[rng.random_range(0..sources.len())]
                .chars()
                .collect();
            let len = rng.input_len();
            let from = rng.random_range(0..source.len());
            let to = rng.random_range(from + 1..=source.len().min(from + len));
            let pad = len - (to - from);
            let before = rng.random_range(0..=pad);
            let mut s: String = (0..before).map(|_| rng.letter(&p.alphabet)).collect();
            s.extend(&source[from..to]);
            s.extend((0..pad - before).map(|_| rng.letter(&p.alphabet)));
            let codes = letters.codes(&s);
            let key = input_key(&codes);
            if taken.contains(&key) {
                continue; // a visible input or one of the pool already
            }
            let fired = RuleSets::of_pool(&rules, &codes, 1);
            if fired.has(0, rule) {
                covered.add(0, fired.rules(0));
                chosen.push(pool.len() + spliced.len());
                taken.insert(key);
                spliced.push(s);
                break;
            }
        }
    }
    // Fill up with the rest of the pool in draw order.
    let total = pool.len() + spliced.len();
    for k in 0..total {
        if chosen.len() >= p.heldout.min(total) {
            break;
        }
        if !chosen.contains(&k) {
            chosen.push(k);
        }
    }
    let inputs: Vec<String> = chosen
        .iter()
        .map(|&k| match pool.get(k) {
            Some(codes) => letters.text(codes),
            None => spliced[k - pool.len()].clone(),
        })
        .collect();
    let outputs = cascade.apply_all(&inputs);
    (inputs, outputs)
}

/// The rules of `cascade` in the codes of `letters`, None for a rule whose two sides are
/// equal.
fn coded_rules(cascade: &Cascade, letters: &Letters) -> Vec<Option<(Vec<u8>, Vec<u8>)>> {
    (cascade.rules().iter())
        .map(|rule| {
            (!rule.is_identity()).then(|| {
                (
                    letters.codes(rule.pattern()),
                    letters.codes(rule.replacement()),
                )
            })
        })
        .collect()
}

/// A set of rule indices for each of a number of inputs, as bits.
struct RuleSets {
    /// 64-bit words per set.
    words: usize,
    bits: Vec<u64>,
}

impl RuleSets {
    /// `sets` empty sets of rules of a cascade of `rules` rules.
    fn new(sets: usize, rules: usize) -> Self {
        let words = rules.div_ceil(64).max(1);
        RuleSets {
            words,
            bits: vec![0; sets * words],
        }
    }

    /// For each of the `count` inputs joined in `pool`, the rules (from [`coded_rules`])
    /// that fire on it as the cascade runs: each rule is applied once to the whole joined
    /// pool, and each match it replaces is charged to the input it lies in (found by
    /// counting separators since the previous match). A rule fires on an input exactly when
    /// its pattern occurs there, which is when it has a match there.
    fn of_pool<R: AsRef<[u8]>>(rules: &[Option<(R, R)>], pool: &[u8], count: usize) -> Self {
        let mut sets = RuleSets::new(count, rules.len());
        let (mut cur, mut next) = (pool.to_vec(), Vec::new());
        for (r, rule) in rules.iter().enumerate() {
            let Some((a, b)) = rule else {
                continue; // an identity fires on nothing (Rule::fires_on)
            };
            let (mut input, mut counted_to) = (0, 0);
            let changed = replace_bytes_noting(&cur, a.as_ref(), b.as_ref(), &mut next, |at| {
                input += cur[counted_to..at]
                    .iter()
                    .filter(|&&c| c == SEP_CODE)
                    .count();
                counted_to = at;
                sets.set(input, r);
            });
            if changed {
                std::mem::swap(&mut cur, &mut next);
            }
        }
        sets
    }

    fn set(&mut self, set: usize, rule: usize) {
        self.bits[set * self.words + rule / 64] |= 1 << (rule % 64);
    }

    fn has(&self, set: usize, rule: usize) -> bool {
        self.bits[set * self.words + rule / 64] & 1 << (rule % 64) != 0
    }

    /// Whether set `set` holds any rule.
    fn any(&self, set: usize) -> bool {
        self.rules(set).iter().any(|&word| word != 0)
    }

    /// The words of set `set`.
    fn rules(&self, set: usize) -> &[u64] {
        &self.bits[set * self.words..(set + 1) * self.words]
    }

    /// Adds the rules in `rules` (words as [`RuleSets::rules`] gives) to set `set`.
    fn add(&mut self, set: usize, rules: &[u64]) {
        for (word, &add) in self.bits[set * self.words..].iter_mut().zip(rules) {
            *word |= add;
        }
    }

    /// How many rules of set `set` are not in the single set of `other`.
    fn count_new(&self, set: usize, other: &RuleSets) -> u32 {
        self.rules(set)
            .iter()
            .zip(other.rules(0))
            .map(|(&mine, &theirs)| (mine & !theirs).count_ones())
            .sum()
    }
}

/// Indices of the rules that change `s` as the cascade runs over it, found on the text
/// itself: the reference the tests hold [`RuleSets::of_pool`] to.
#[cfg(test)]
pub(super) fn rules_fired(cascade: &Cascade, s: &str) -> Vec<usize> {
    let (mut cur, mut next) = (s.to_owned(), String::new());
    let mut fired = Vec::new();
    for (k, rule) in cascade.rules().iter().enumerate() {
        if rule.apply_into(&cur, &mut next) {
            std::mem::swap(&mut cur, &mut next);
            fired.push(k);
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes for `letters` letters, inputs of 2 to 6 letters and rule sides of 1 to 3.
    fn test_codes(letters: usize) -> DrawCodes {
        DrawCodes {
            letters: LetterCode::new(letters),
            input_len: (2, LetterCode::new(5)),
            rule_len: (1, LetterCode::new(3)),
        }
    }

    /// `text` (examples separated by newlines) in the codes of an alphabet of its letters.
    fn coded(text: &str) -> (Letters, Vec<u8>) {
        let mut alphabet: Vec<char> = text.chars().filter(|&c| c != SEP).collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        let letters = Letters::new(&alphabet);
        let codes = text
            .chars()
            .map(|c| match c {
                SEP => SEP_CODE,
                c => alphabet.binary_search(&c).unwrap() as u8,
            })
            .collect();
        (letters, codes)
    }

    /// Every window of `k` letters inside one example, as text, in order.
    fn window_texts(joined: &str, k: usize) -> Vec<String> {
        let mut out = Vec::new();
        for example in joined.split(SEP) {
            let letters: Vec<char> = example.chars().collect();
            out.extend(letters.windows(k).map(|w| w.iter().collect::<String>()));
        }
        out
    }

    /// Share of draws that give `wanted`, the rarest of two distinct substrings.
    fn share_of(joined: &str, k: usize, wanted: &str) -> f64 {
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(7), test_codes(1));
        let (letters, codes) = coded(joined);
        let n = 20_000;
        let hits = (0..n)
            .filter(|_| {
                let (s, e, _) =
                    distinct_window(&mut rng, &letters, &Padded::of(&codes), k).unwrap();
                letters.text(&codes[s as usize..e as usize]) == wanted
            })
            .count();
        hits as f64 / n as f64
    }

    #[test]
    fn distinct_substrings_are_uniform() {
        // "a" has 8 windows, "b" one: a plain window draw would pick "b" 1 time in 9.
        for (joined, k, wanted) in [
            ("aaaa\naaaab", 1, "b"),
            ("aaaaaa\naab", 2, "ab"),
            ("aaaaaaaa\naaaab", 4, "aaab"),
            ("éééé\néééét", 1, "t"),
            ("éééééé\néét", 2, "ét"),
            ("éééééééé\nééééb", 4, "éééb"),
        ] {
            let share = share_of(joined, k, wanted);
            assert!((share - 0.5).abs() < 0.02, "share of {wanted:?} is {share}");
        }
    }

    /// Single letters over an alphabet of more than 63 letters (the four-word letter set):
    /// each letter present is about equally likely, whatever its code.
    #[test]
    fn single_letters_are_uniform_over_large_alphabets() {
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(9), test_codes(1));
        let alphabet: Vec<char> = ('\u{100}'..).take(255).collect();
        let letters = Letters::new(&alphabet);
        let codes = [0, 0, 0, 70, SEP_CODE, 130, 130, 254, 63];
        let mut seen = std::collections::BTreeMap::new();
        for _ in 0..30_000 {
            let (s, e, _) = distinct_window(&mut rng, &letters, &Padded::of(&codes), 1).unwrap();
            assert_eq!(e, s + 1);
            *seen.entry(codes[s as usize]).or_insert(0) += 1;
        }
        assert_eq!(
            seen.keys().copied().collect::<Vec<u8>>(),
            vec![0, 63, 70, 130, 254]
        );
        // 6000 expected each; 5500-6500 is over 6 standard deviations either side.
        assert!(
            seen.values().all(|&n| (5500..=6500).contains(&n)),
            "{seen:?}"
        );
    }

    #[test]
    fn windows_that_do_not_fit_are_never_drawn() {
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(3), test_codes(1));
        for joined in ["ab\nc", "éb\nc"] {
            let (letters, codes) = coded(joined);
            assert_eq!(
                distinct_window(&mut rng, &letters, &Padded::of(&codes), 3),
                None,
                "{joined:?}"
            );
        }
        for joined in ["ab\nc\nxyz", "ab\nc\nxyé"] {
            let (letters, codes) = coded(joined);
            let allowed = window_texts(joined, 2);
            for _ in 0..200 {
                let (s, e, _) =
                    distinct_window(&mut rng, &letters, &Padded::of(&codes), 2).unwrap();
                let text = letters.text(&codes[s as usize..e as usize]);
                assert!(allowed.contains(&text), "{text}");
            }
        }
    }

    #[test]
    fn window_counts_match_the_window_list() {
        let text = "abcab\nb\ncabca\nxy\naaaa";
        let (letters, joined) = coded(text);
        for k in 1..=4 {
            let texts = window_texts(text, k);
            for window in joined.windows(k).filter(|w| !w.contains(&SEP_CODE)) {
                let expected = texts.iter().filter(|t| **t == letters.text(window)).count();
                assert_eq!(count_windows(&joined, window), expected, "{window:?}");
            }
        }
    }

    /// Joined codes over `letters` letters, a fifth of them separators.
    fn joined_codes(
        letters: u8,
        most: usize,
    ) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop::collection::vec(prop_oneof![4 => 0..letters, 1 => Just(SEP_CODE)], 0..most)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The scan count (strings too long for bit sets) against a plain count, on strings
        /// of any length over three letters and the separator, where windows overlap and
        /// repeat often.
        #[test]
        fn window_counts_are_plain_counts(
            codes in joined_codes(3, 100),
            text in proptest::collection::vec(0u8..3, 1..10),
        ) {
            let expected = codes.windows(text.len()).filter(|w| *w == &text[..]).count();
            proptest::prop_assert_eq!(count_windows(&codes, &text), expected);
        }

        /// A drawn window comes with the starts of its text (strings of at most 64 codes)
        /// exactly: every window holding the same text, and no other.
        #[test]
        fn drawn_windows_know_where_their_text_starts(
            codes in joined_codes(3, 65),
            k in 1usize..10,
            seed in 0u64..1000,
        ) {
            let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(seed), test_codes(3));
            let letters = Letters::new(&['a', 'b', 'c']);
            if let Some((s, e, starts)) =
                distinct_window(&mut rng, &letters, &Padded::of(&codes), k)
            {
                let text = &codes[s as usize..e as usize];
                let expected = (codes.windows(k).enumerate())
                    .filter(|(_, w)| w == &text)
                    .fold(0u64, |set, (at, _)| set | 1 << at);
                proptest::prop_assert_eq!(starts, (codes.len() <= 64).then_some(expected));
            }
        }

        /// The letters present, for every remainder of the four-byte chunks.
        #[test]
        fn letters_present_is_the_set_of_codes(codes in joined_codes(52, 40)) {
            let alphabet: Vec<char> = ('\u{100}'..).take(52).collect();
            let expected = codes
                .iter()
                .filter(|&&c| c != SEP_CODE)
                .fold(0u64, |set, &c| set | 1 << c);
            let present = letters_present(&codes, &Letters::new(&alphabet));
            proptest::prop_assert_eq!(present, [expected, 0, 0, 0]);
        }

        /// The rules that fire on each input of a joined pool, found by running the cascade
        /// once over the pool, are those found by running it over each input alone.
        #[test]
        fn pool_rule_sets_are_per_input_rule_sets(
            inputs in proptest::collection::vec("[abc]{0,7}", 0..30),
            rules in proptest::collection::vec(("[abc]{1,3}", "[abc]{0,3}"), 1..70),
        ) {
            let letters = Letters::new(&['a', 'b', 'c']);
            let cascade = Cascade::new(
                rules.into_iter().map(|(a, b)| Rule::new(a, b).unwrap()).collect(),
            );
            let coded: Vec<Vec<u8>> = inputs.iter().map(|s| letters.codes(s)).collect();
            let pool = coded.join(&SEP_CODE);
            let sets = RuleSets::of_pool(&coded_rules(&cascade, &letters), &pool, inputs.len());
            for (k, input) in inputs.iter().enumerate() {
                let expected = rules_fired(&cascade, input);
                let got: Vec<usize> = (0..cascade.len()).filter(|&r| sets.has(k, r)).collect();
                proptest::prop_assert_eq!(got, expected, "input {}", input);
            }
        }
    }

    #[test]
    fn codes_keep_the_letters_and_their_order() {
        let letters = Letters::new(&['z', 'é', 'a', 'ʔ', 'b']);
        assert_eq!(letters.by_code, vec!['a', 'b', 'z', 'é', 'ʔ']);
        assert_eq!(letters.of_draw[..5], [2, 3, 0, 4, 1]);
        assert_eq!(letters.text(&[0, SEP_CODE, 4, 3]), "a\nʔé");
    }

    /// An attempt that stops early because its category is certain to be full is one that
    /// finishing would also reject, and every other attempt gives the same sample as when
    /// no category is full: lite and full-preset shapes, both classifiers, several sets of
    /// full categories.
    #[test]
    fn stopping_early_rejects_only_what_finishing_rejects() {
        use crate::generate::Preset;
        for (preset, lengths, exact_length) in [
            (Preset::Lite, vec![2, 3, 4, 5], false),
            (Preset::Full, vec![9], true),
        ] {
            for mode in [RelationMode::Paper, RelationMode::Exact] {
                let mut p = preset.params();
                p.relations = mode;
                let sampler = Sampler::new(&p);
                let (mut open, mut closed) = (Scratch::default(), Scratch::default());
                let (mut stopped, mut feeding) = (0, 0);
                for (n, full) in [0b0110_1001_1111_0000u16, 0xFFFE, 0x7FFF, 0x00FF]
                    .into_iter()
                    .enumerate()
                {
                    let full = FullCategories::new(full);
                    for attempt in 0..400 {
                        let block = BlockShape {
                            key: n as u64,
                            lengths: &lengths,
                            exact_length,
                        };
                        let sample = |full, scratch: &mut Scratch| {
                            let outcome =
                                sample_into(&p, &sampler, block, attempt, full, scratch).0;
                            outcome.map(|c| scratch.candidate(&sampler.letters, c))
                        };
                        let whole = sample(FullCategories::default(), &mut open);
                        let kept = sample(full, &mut closed);
                        match (whole, kept) {
                            (Ok(whole), Ok(kept)) => {
                                assert!(!full.contains(whole.category));
                                let cascade = Cascade::new(whole.cascade.clone());
                                assert_eq!(
                                    whole.category,
                                    crate::relations::Relations::of(&cascade, mode).category()
                                );
                                feeding += whole.category.feeding() as usize;
                                assert_eq!(whole.category, kept.category);
                                assert_eq!(
                                    (&whole.inputs, &whole.outputs),
                                    (&kept.inputs, &kept.outputs)
                                );
                                assert_eq!(whole.key, kept.key);
                                // Each rule's count of changed examples, input by input.
                                let mut changed = vec![0; cascade.len()];
                                for input in &whole.inputs {
                                    for k in rules_fired(&cascade, input) {
                                        changed[k] += 1;
                                    }
                                }
                                assert_eq!(whole.changed, changed);
                                assert_eq!(whole.cascade, kept.cascade);
                            }
                            (Ok(whole), Err(why)) => {
                                assert!(full.contains(whole.category), "{why:?}");
                                assert_eq!(why, Rejection::QuotaFull);
                                stopped += 1;
                            }
                            (Err(why), Ok(_)) => {
                                panic!("accepted only when quotas are full: {why:?}")
                            }
                            (Err(_), Err(_)) => {}
                        }
                    }
                }
                assert!(
                    stopped > 100,
                    "{preset:?} {mode:?}: only {stopped} attempts hit a full quota"
                );
                assert!(
                    feeding > 10,
                    "{preset:?} {mode:?}: only {feeding} kept with feeding"
                );
            }
        }
    }

    #[test]
    fn full_categories_answer_for_every_category_with_the_flags() {
        let cat = |s: &str| s.parse::<Category>().unwrap();
        // 1100, 1101, 1110 and 1111 full: hopeless once F and B are known.
        let full = FullCategories::new(0b1111 << 12);
        assert!(full.all_with(cat("1100")));
        assert!(full.all_with(cat("1110")));
        assert!(!full.all_with(cat("1000")));
        assert!(!full.all_with(cat("0100")));
        assert!(!FullCategories::default().all_with(cat("1111")));
        assert!(FullCategories::new(u16::MAX).all_with(cat("0000")));
    }

    /// Every accepted word of 12 bits, cut into digits: each d-tuple of letters must come
    /// from the same number of words (exact uniformity and independence), for alphabets
    /// of several sizes, including powers of two and one letter.
    #[test]
    fn letter_digits_are_exactly_uniform_over_all_words() {
        for n in [1u64, 2, 3, 5, 7, 8, 17] {
            let code = LetterCode::with_bits(n, 12);
            let mut counts = std::collections::HashMap::<Vec<u64>, usize>::new();
            for word in 0..1u64 << 12 {
                let mut once = Some(word);
                let mut next = || once.take().unwrap_or(u64::MAX);
                let x = code.accept::<12>(&mut next);
                if once.is_some() || x != word {
                    continue; // rejected: accept() went on to the next word
                }
                let mut x = x;
                let tuple = (0..code.digits)
                    .map(|_| {
                        let (d, rest) = code.digit::<12>(x);
                        x = rest;
                        assert!(d < n);
                        d
                    })
                    .collect();
                *counts.entry(tuple).or_default() += 1;
            }
            assert_eq!(
                counts.len() as u128,
                code.span,
                "n = {n}: every tuple occurs"
            );
            let first = *counts.values().next().unwrap();
            assert!(counts.values().all(|&c| c == first), "n = {n}: {counts:?}");
            assert!(
                first as u128 * code.span >= (1 << 12) * 63 / 64,
                "n = {n}: too many words rejected"
            );
        }
    }

    #[test]
    fn letters_cover_the_alphabet_evenly() {
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(5), test_codes(52));
        let mut seen = [0usize; 52];
        for _ in 0..20_000 {
            seen[rng.letter_index()] += 1;
        }
        // Expected 384.6 each; 250–520 is more than 6 standard deviations either side.
        assert!(seen.iter().all(|&c| (250..=520).contains(&c)), "{seen:?}");
    }

    /// A word of letters is the same draws as letter by letter, across word refills.
    #[test]
    fn letter_words_are_the_same_draws_as_single_letters() {
        let table: [u8; 256] = std::array::from_fn(|c| 200u8.wrapping_sub(c as u8));
        let (mut words, mut singles) = (
            Draws::new(Xoshiro256PlusPlus::seed_from_u64(4), test_codes(52)),
            Draws::new(Xoshiro256PlusPlus::seed_from_u64(4), test_codes(52)),
        );
        for round in 0..500 {
            let len = round % 9;
            let word = words.letters_word(len, &table);
            let expected = (0..len).fold(0u64, |w, i| {
                w | (table[singles.letter_index()] as u64) << (8 * i)
            });
            assert_eq!(word, expected, "round {round}");
        }
    }

    /// Lengths cover their ranges evenly, ranges of one length included.
    #[test]
    fn lengths_cover_their_ranges_evenly() {
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(6), test_codes(3));
        let (mut inputs, mut rules) = ([0usize; 7], [0usize; 4]);
        for _ in 0..30_000 {
            inputs[rng.input_len()] += 1;
            rules[rng.rule_len()] += 1;
        }
        // Expected 6000 and 10000; the bounds are over 6 standard deviations away.
        assert_eq!(inputs[..2], [0, 0]);
        assert!(
            inputs[2..].iter().all(|&c| (5500..=6500).contains(&c)),
            "{inputs:?}"
        );
        assert_eq!(rules[0], 0);
        assert!(
            rules[1..].iter().all(|&c| (9400..=10600).contains(&c)),
            "{rules:?}"
        );
        let one = DrawCodes {
            input_len: (4, LetterCode::new(1)),
            ..test_codes(3)
        };
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(6), one);
        assert!((0..100).all(|_| rng.input_len() == 4));
    }

    /// The filtered key set answers like a hash set, below and past the filter's limit,
    /// also on keys that collide in the filter (few distinct values, so bits repeat).
    #[test]
    fn input_keys_behave_as_a_set() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut keys = InputKeys::default();
        for (round, spread) in [(0, 50u64), (1, 5000), (2, 300), (3, 1 << 40)] {
            keys.clear();
            let mut reference = std::collections::HashSet::new();
            for _ in 0..600 {
                let key = rng.random_range(0..spread);
                assert_eq!(keys.insert(key), reference.insert(key), "round {round}");
            }
        }
    }

    #[test]
    fn keys_identify_strings() {
        let key = |s: &str| input_key(s.as_bytes());
        assert_ne!(key("ab"), key("ba"));
        assert_ne!(key("a"), key("a\u{0}"));
        assert_ne!(key("é"), key("e"));
        assert_eq!(key("ʔaː"), key("ʔaː"));
        assert_ne!(key("abcdefg"), key("abcdefh"));
        assert_ne!(key("abcdefgh"), key("abcdefgi"));
        assert_eq!(key("abcdefgh"), key("abcdefgh"));
    }

    /// `spread` is one-to-one (undoing its steps in reverse gives the key back) and every
    /// state word changes when any one bit of the key does.
    #[test]
    fn spread_is_a_bijection_that_mixes_every_word() {
        let unspread = |mut w: [u64; 4]| {
            for _ in 0..SPREAD_ROUNDS {
                for k in (0..4).rev() {
                    w[(k + 1) % 4] ^= mix(w[k]);
                }
            }
            w
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for round in 0..2000 {
            let key: [u64; 4] = if round < 4 {
                let mut key = [0; 4];
                key[round] = 1;
                key
            } else {
                std::array::from_fn(|_| rng.random())
            };
            let state = spread(key);
            assert_eq!(unspread(state), key);
            let bit = rng.random_range(0..256);
            let mut other = key;
            other[bit / 64] ^= 1 << (bit % 64);
            let changed = spread(other);
            assert!((0..4).all(|k| changed[k] != state[k]), "{key:?} bit {bit}");
        }
    }

    #[test]
    fn streams_differ_by_every_key_part() {
        let draw = |s, b, a, p| stream(s, b, a, p, test_codes(2)).random::<u64>();
        let base = draw(1, 2, 3, Purpose::Candidate);
        assert_ne!(base, draw(0, 2, 3, Purpose::Candidate));
        assert_ne!(base, draw(1, 0, 3, Purpose::Candidate));
        assert_ne!(base, draw(1, 2, 0, Purpose::Candidate));
        assert_ne!(base, draw(1, 2, 3, Purpose::Heldout));
        assert_eq!(base, draw(1, 2, 3, Purpose::Candidate));
    }
}
