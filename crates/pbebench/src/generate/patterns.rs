//! The rules of an attempt: a pattern drawn from the current examples (uniform over their
//! distinct substrings, found without listing them, or as the published Lite file was
//! drawn: random strings until one occurs) and a random replacement.

use super::draws::Draws;
use super::letters::{Letters, Padded, SEP_CODE};
use super::sampler::{Sampler, Scratch};
use super::PatternDraw;
use crate::rule::{byte_positions, occurrences};
use rand::Rng;

/// Draws a rule `a → b` and appends `a` then `b` to `scratch.sides`, returning where `b`
/// starts: `a` as the sampler's [`PatternDraw`] says (by default |a| ~ Unif{s_min..s_max}
/// and `a` uniform over the *distinct* substrings of length |a| of the current examples),
/// |b| ~ Unif{s_min..s_max} and `b` uniform over Σ^|b|, resampled while it equals `a`.
/// None (and nothing appended) when no pattern is found (no example is |a| letters long).
/// With `b`'s start comes the set of `a`'s starts in the examples when it is known.
pub(super) fn draw_rule(
    sampler: &Sampler,
    rng: &mut Draws,
    scratch: &mut Scratch,
) -> Option<(usize, Option<u64>)> {
    let letters = &sampler.letters;
    let Scratch { joined, sides, .. } = scratch;
    let start = sides.len();
    let (b_len, starts) = match sampler.pattern_draw {
        PatternDraw::Substring => {
            let a_len = rng.rule_len();
            let b_len = rng.rule_len();
            let (from, to, starts) = distinct_window(rng, letters, joined, a_len)?;
            sides.extend_from_slice(&joined.codes()[from as usize..to as usize]);
            (b_len, starts)
        }
        PatternDraw::Published => {
            let starts = present_pattern(rng, letters, joined, sides)?;
            (rng.rule_len(), starts)
        }
    };
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

/// Draws of a pattern [`present_pattern`] makes before it gives the rule up. On the presets
/// a draw succeeds one time in a few (a present single letter is drawn one time in four on
/// lite), so the bound is never reached there; it only ends the search where no drawn
/// string can occur (sides of at least 3 letters over a large alphabet, say), and a rule
/// given up is dropped like one that changes nothing.
const PRESENT_PATTERN_DRAWS: u32 = 100_000;

/// [`PatternDraw::Published`]: appends to `sides` a pattern drawn as |a| ~
/// Unif{s_min..s_max} and `a` ~ Unif(Σ)^|a|, both drawn again until `a` occurs in the
/// joined examples, and returns the set of its starts as bits in strings of at most 64
/// codes (None in longer ones). So |a| = k with probability proportional to the share of
/// the |Σ|^k strings of length k that occur, and, given its length, `a` is uniform over
/// the distinct substrings of that length. None (and nothing appended) after
/// [`PRESENT_PATTERN_DRAWS`] draws.
fn present_pattern(
    rng: &mut Draws,
    letters: &Letters,
    joined: &Padded,
    sides: &mut Vec<u8>,
) -> Option<Option<u64>> {
    let codes = joined.codes();
    let start = sides.len();
    for _ in 0..PRESENT_PATTERN_DRAWS {
        sides.truncate(start);
        let len = rng.rule_len();
        for _ in 0..len {
            sides.push(letters.draw(rng));
        }
        let pattern = &sides[start..];
        if pattern.len() > codes.len() {
            continue;
        }
        if codes.len() <= 64 {
            let starts = occurrences(&joined.bytes, codes.len(), pattern);
            if starts != 0 {
                return Some(Some(starts));
            }
        } else if memchr::memmem::find(codes, pattern).is_some() {
            return Some(None);
        }
    }
    sides.truncate(start);
    None
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
pub(super) fn distinct_window(
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
    // In long strings, the counts of every window's text, made at the first count needed.
    let mut counts: Option<WindowCounts> = None;
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
        } else if codes.len() >= WindowCounts::FROM && k <= 8 {
            let counts = counts.get_or_insert_with(|| WindowCounts::of(codes, k));
            (counts.of_text(text), None)
        } else {
            (count_windows(codes, text), None)
        };
        if m == 1 || rng.random_range(0..m) == 0 {
            return Some((start as u32, (start + k) as u32, starts));
        }
    }
}

/// How many windows of a long string hold each text of `k` (at most 8) codes, counted in
/// one pass: [`distinct_window`] draws about windows / distinct texts windows before it
/// keeps one, and counting each by a scan made a rule cost O(n²) in the string's length n
/// (with 10,000 examples, ~100 scans of 50,000 codes per 2-letter pattern; `generate
/// --examples 20000` took 76 s). The counts are those of [`count_windows`], so the draws,
/// and the dataset, are the same.
struct WindowCounts {
    by_text: rustc_hash::FxHashMap<u64, u32>,
}

impl WindowCounts {
    /// Strings of this many codes and more are counted in one pass; shorter ones, where a
    /// rule draws a few windows, are scanned per window.
    const FROM: usize = 2048;

    /// The counts of the windows of `k` codes of `codes`.
    fn of(codes: &[u8], k: usize) -> Self {
        let mut by_text = rustc_hash::FxHashMap::default();
        for window in codes.windows(k) {
            *by_text.entry(Self::key(window)).or_insert(0) += 1;
        }
        WindowCounts { by_text }
    }

    /// How many windows hold `text`.
    fn of_text(&self, text: &[u8]) -> usize {
        self.by_text.get(&Self::key(text)).copied().unwrap_or(0) as usize
    }

    /// A text of at most 8 codes as one number (all texts counted have the same length).
    fn key(text: &[u8]) -> u64 {
        text.iter().fold(0, |key, &c| key << 8 | c as u64)
    }
}

/// The set of letter codes in `codes` (the separator left out), as four 64-bit words.
pub(super) fn letters_present(codes: &[u8], letters: &Letters) -> [u64; 4] {
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
pub(super) fn count_windows(bytes: &[u8], text: &[u8]) -> usize {
    let (&first, tail) = text.split_first().expect("windows are never empty");
    let fits = |at: usize| bytes.len() - at > tail.len();
    let rest_matches = |at: usize| tail.iter().zip(&bytes[at + 1..]).all(|(t, b)| t == b);
    memchr::memchr_iter(first, bytes)
        .filter(|&at| fits(at) && rest_matches(at))
        .count()
}

#[cfg(test)]
mod tests {
    use super::super::letters::SEP;
    use super::*;
    use crate::generate::draws::test_codes;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

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
    }

    /// The published draw: |a| = k with probability proportional to the share of the
    /// strings of length k that occur, and given k, each distinct substring equally likely.
    /// On "ab|ba" over {a, b} with |a| ~ Unif{1..3}: both letters occur (share 1), both
    /// 2-letter strings of the four (share 1/2), no 3-letter one, so 2/3 of the patterns are
    /// single letters, and "ab" and "ba" are equally likely.
    #[test]
    fn published_patterns_are_random_strings_that_occur() {
        let (letters, codes) = coded("ab\nba");
        let draws = super::super::draws::DrawCodes::new(&{
            let mut p = crate::generate::Preset::Lite.params();
            p.alphabet = vec!['a', 'b'];
            p
        });
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(12), draws);
        let joined = Padded::of(&codes);
        let mut seen = std::collections::BTreeMap::<String, usize>::new();
        let n = 30_000;
        for _ in 0..n {
            let mut sides = vec![9];
            let starts = present_pattern(&mut rng, &letters, &joined, &mut sides).unwrap();
            let pattern = &sides[1..];
            let expected = (codes.windows(pattern.len()).enumerate())
                .filter(|(_, w)| *w == pattern)
                .fold(0u64, |set, (at, _)| set | 1 << at);
            assert_eq!(starts, Some(expected));
            *seen.entry(letters.text(pattern)).or_default() += 1;
        }
        let share = |s: &str| seen.get(s).copied().unwrap_or(0) as f64 / n as f64;
        assert_eq!(seen.len(), 4, "{seen:?}");
        // Expected 1/3 each for "a" and "b", 1/6 each for "ab" and "ba".
        for (text, expected) in [
            ("a", 1.0 / 3.0),
            ("b", 1.0 / 3.0),
            ("ab", 1.0 / 6.0),
            ("ba", 1.0 / 6.0),
        ] {
            assert!((share(text) - expected).abs() < 0.015, "{text}: {seen:?}");
        }
    }

    /// Where no drawn string can occur, the draw gives up instead of looping for ever.
    #[test]
    fn published_patterns_give_up_where_none_can_occur() {
        let (letters, codes) = coded("a");
        let mut p = crate::generate::Preset::Lite.params();
        p.alphabet = vec!['a', 'b'];
        p.rule_len = (2, 3);
        let draws = super::super::draws::DrawCodes::new(&p);
        let mut rng = Draws::new(Xoshiro256PlusPlus::seed_from_u64(1), draws);
        let mut sides = vec![7];
        assert_eq!(
            present_pattern(&mut rng, &letters, &Padded::of(&codes), &mut sides),
            None
        );
        assert_eq!(sides, [7]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The one-pass counts of long strings are the scan's counts.
        #[test]
        fn window_counts_in_one_pass_are_scan_counts(
            codes in joined_codes(3, 300),
            text in proptest::collection::vec(0u8..3, 1..9),
        ) {
            proptest::prop_assume!(text.len() <= codes.len());
            let counts = WindowCounts::of(&codes, text.len());
            proptest::prop_assert_eq!(counts.of_text(&text), count_windows(&codes, &text));
        }
    }
}
