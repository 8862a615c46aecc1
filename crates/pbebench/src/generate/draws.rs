//! The random streams of the generator: one per purpose of each attempt, keyed so that
//! any attempt can be drawn again alone, and cutting letters and lengths from their words
//! exactly uniformly.

use super::GenParams;
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What each random stream is used for: part of the stream's key.
#[derive(Clone, Copy)]
#[repr(u64)]
pub(super) enum Purpose {
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
pub(super) fn stream(
    seed: u64,
    block: u64,
    attempt: u64,
    purpose: Purpose,
    codes: DrawCodes,
) -> Draws {
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
pub(super) fn spread(mut w: [u64; 4]) -> [u64; 4] {
    for _ in 0..SPREAD_ROUNDS {
        for k in 0..4 {
            w[(k + 1) % 4] ^= mix(w[k]);
        }
    }
    w
}

pub(super) const SPREAD_ROUNDS: usize = 2;

/// SplitMix64's output function: every output bit depends on every input bit.
pub(super) fn mix(x: u64) -> u64 {
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
    pub(super) rng: Xoshiro256PlusPlus,
    pub(super) letters: Digits,
    pub(super) input_len: Digits,
    pub(super) rule_len: Digits,
    /// The shortest input and rule lengths: the digits are added to them.
    pub(super) least: (usize, usize),
}

/// How a [`Draws`] cuts its words, made once per run: the codes of the alphabet and of
/// the input and rule length ranges.
#[derive(Debug, Clone, Copy)]
pub(super) struct DrawCodes {
    pub(super) letters: LetterCode,
    pub(super) input_len: (usize, LetterCode),
    pub(super) rule_len: (usize, LetterCode),
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
    pub(super) fn new(rng: Xoshiro256PlusPlus, codes: DrawCodes) -> Self {
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
    pub(super) fn letter<T: Copy>(&mut self, alphabet: &[T]) -> T {
        debug_assert_eq!(alphabet.len() as u64, self.letters.code.n);
        alphabet[self.letter_index()]
    }

    /// An index in `0..n` for the stream's n-letter alphabet, uniformly; independent of
    /// every other draw.
    #[inline]
    pub(super) fn letter_index(&mut self) -> usize {
        self.letters.next(&mut self.rng)
    }

    /// `len` (at most 8) letters drawn uniformly, mapped through `table` (the code of each
    /// draw index, as [`Letters`] keeps them), as the bytes of one word from the lowest:
    /// the same draws as `len` calls of [`Draws::letter_index`], with the digit state kept
    /// in registers.
    #[inline]
    pub(super) fn letters_word(&mut self, len: usize, table: &[u8; 256]) -> u64 {
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
    pub(super) fn input_len(&mut self) -> usize {
        self.least.0 + self.input_len.next(&mut self.rng)
    }

    /// A rule side's length, uniform over the parameters' range.
    #[inline]
    pub(super) fn rule_len(&mut self) -> usize {
        self.least.1 + self.rule_len.next(&mut self.rng)
    }
}

/// A supply of base-n digits cut from random words by a [`LetterCode`].
pub(super) struct Digits {
    pub(super) code: LetterCode,
    /// The digits not yet used, as a 64-bit fraction (see [`LetterCode::digit`]).
    pub(super) word: u64,
    pub(super) left: u32,
}

impl Digits {
    pub(super) fn new(code: LetterCode) -> Self {
        Digits {
            code,
            word: 0,
            left: 0,
        }
    }

    /// The next digit, drawing a new word from `rng` when none is left.
    #[inline]
    pub(super) fn next(&mut self, rng: &mut Xoshiro256PlusPlus) -> usize {
        if self.left == 0 {
            self.refill(rng);
        }
        self.left -= 1;
        let (digit, rest) = self.code.digit::<64>(self.word);
        self.word = rest;
        digit as usize
    }

    #[inline(never)]
    pub(super) fn refill(&mut self, rng: &mut Xoshiro256PlusPlus) {
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
    pub(super) n: u64,
    pub(super) digits: u32,
    /// n^digits.
    pub(super) span: u128,
    /// 2^BITS mod span: words x with x·span mod 2^BITS below it are redrawn.
    pub(super) reject_below: u128,
}

impl LetterCode {
    /// The code for an alphabet of `n` letters.
    pub(super) fn new(n: usize) -> Self {
        Self::with_bits(n as u64, 64)
    }

    pub(super) fn with_bits(n: u64, bits: u32) -> Self {
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
    pub(super) fn accept<const BITS: u32>(&self, next: &mut impl FnMut() -> u64) -> u64 {
        let mask = (1u128 << BITS) - 1;
        loop {
            let x = next() as u128 & mask;
            if (x * self.span) & mask >= self.reject_below {
                return x as u64;
            }
        }
    }

    /// The leading digit of `x` and the fraction that holds the rest.
    pub(super) fn digit<const BITS: u32>(&self, x: u64) -> (u64, u64) {
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

#[cfg(test)]
/// Codes for `letters` letters, inputs of 2 to 6 letters and rule sides of 1 to 3.
pub(super) fn test_codes(letters: usize) -> DrawCodes {
    DrawCodes {
        letters: LetterCode::new(letters),
        input_len: (2, LetterCode::new(5)),
        rule_len: (1, LetterCode::new(3)),
    }
}

#[cfg(test)]
mod tests {
    use super::test_codes;
    use super::*;
    use rand::Rng;

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
