//! The paper's feeding/bleeding formula (Appendix C, Eq. 1) as the authors' released
//! detector computes it. Reproduces the labels of the published snapshots.
//!
//! The released detector differs from the printed formula in ways that decide labels, and
//! this module follows the detector:
//! * a rule whose two sides are equal relates to nothing;
//! * `Substr`, `Pref` and `Suff` are *sets* of non-empty substrings, and `Pref`/`Suff`
//!   include the whole string (so `ti = sj` is a completion);
//! * subsumption compares non-overlapping occurrence counts (Python's `str.count`), which
//!   the printed `sj ∈ Substr(ti) \ Substr(si)` only approximates;
//! * bleeding is not literally `feeds(ti→si, sj)`: its deletion case tests `si = ε`, its
//!   containment case tests `ti.count(si) < 1`, and its subsumption case `ti.count(sj) <
//!   si.count(sj)` (`docs/semantics.md#two-classifiers`).
//!
//! Strings are compared as Unicode scalar values; lengths are counted in characters.

/// `feeds(si→ti, sj→·)` by the paper's formula.
pub fn feeds(si: &str, ti: &str, sj: &str) -> bool {
    on_letters(si, ti, sj, feeds_in, feeds_in)
}

/// `bleeds(si→ti, sj→·)` by the paper's formula (Theorem 4: feeds with the first rule reversed).
pub fn bleeds(si: &str, ti: &str, sj: &str) -> bool {
    on_letters(si, ti, sj, bleeds_in, bleeds_in)
}

/// `relation(si, ti, sj)` over letters: bytes when all three are ASCII (a byte is then a
/// letter), else `char`s.
fn on_letters(
    si: &str,
    ti: &str,
    sj: &str,
    bytes: fn(&[u8], &[u8], &[u8]) -> bool,
    chars: fn(&[char], &[char], &[char]) -> bool,
) -> bool {
    if si.is_ascii() && ti.is_ascii() && sj.is_ascii() {
        return bytes(si.as_bytes(), ti.as_bytes(), sj.as_bytes());
    }
    let [si, ti, sj] = [si, ti, sj].map(|s| s.chars().collect::<Vec<char>>());
    chars(&si, &ti, &sj)
}

/// [`feeds`] over any letters, one slice element a letter (the generator's letter codes,
/// for instance).
pub(crate) fn feeds_in<T: Eq>(si: &[T], ti: &[T], sj: &[T]) -> bool {
    if si == ti {
        return false;
    }
    // The four cases, cheapest first, each tried only while the others failed.
    let deletion = || ti.is_empty() && sj.len() > 1;
    let containment = || !ti.is_empty() && contains(sj, ti) && !contains(si, ti);
    let subsumption = || contains(ti, sj) && count(ti, sj) > count(si, sj);
    let completion = || completes(ti, sj, si);
    deletion() || containment() || subsumption() || completion()
}

/// [`bleeds`] over any letters.
pub(crate) fn bleeds_in<T: Eq>(si: &[T], ti: &[T], sj: &[T]) -> bool {
    if si == ti {
        return false;
    }
    let deletion = || si.is_empty() && sj.len() > 1;
    let containment = || !si.is_empty() && contains(sj, si) && count(ti, si) < 1;
    let subsumption = || contains(si, sj) && count(ti, sj) < count(si, sj);
    let completion = || completes(si, sj, ti);
    deletion() || containment() || subsumption() || completion()
}

/// Whether `a` and `b` are the same letters (compared one by one: the sides are a few
/// letters long, shorter than a call to `memcmp` is worth).
fn same<T: Eq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Whether `part` occurs in `s` (the empty string occurs everywhere, as in Python).
fn contains<T: Eq>(s: &[T], part: &[T]) -> bool {
    part.len() <= s.len() && (0..=s.len() - part.len()).any(|at| same(&s[at..][..part.len()], part))
}

/// Non-overlapping occurrences of `pattern` in `s`, like Python's `s.count(pattern)`
/// (scanning left to right, resuming after each match; `len + 1` for the empty pattern).
fn count<T: Eq>(s: &[T], pattern: &[T]) -> usize {
    if pattern.is_empty() {
        return s.len() + 1;
    }
    let (mut found, mut at) = (0, 0);
    while at + pattern.len() <= s.len() {
        if same(&s[at..][..pattern.len()], pattern) {
            found += 1;
            at += pattern.len();
        } else {
            at += 1;
        }
    }
    found
}

/// Completion, left and right: some non-empty string that is a prefix of `written` and a
/// suffix of `pattern`, or a suffix of `written` and a prefix of `pattern` (whole strings
/// included), and that is not a substring of `status_quo`.
fn completes<T: Eq>(written: &[T], pattern: &[T], status_quo: &[T]) -> bool {
    let left = (1..=written.len().min(pattern.len())).any(|len| {
        let overlap = &written[..len];
        same(&pattern[pattern.len() - len..], overlap) && !contains(status_quo, overlap)
    });
    left || (0..written.len()).any(|start| {
        let overlap = &written[start..];
        overlap.len() <= pattern.len()
            && same(&pattern[..overlap.len()], overlap)
            && !contains(status_quo, overlap)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_rules_relate_to_nothing() {
        assert!(!feeds("a", "a", "a"));
        assert!(!bleeds("ab", "ab", "b"));
    }

    #[test]
    fn deletion_feeds_longer_patterns_only() {
        assert!(feeds("a", "", "aa"), "the formula says a→ε feeds aa");
        assert!(!feeds("a", "", "b"));
        assert!(!feeds("a", "", "é"));
        assert!(feeds("a", "", "éa"));
    }

    #[test]
    fn each_feeding_case_fires() {
        // containment: b is inside cbd and not inside a
        assert!(feeds("a", "b", "cbd"));
        assert!(!feeds("ab", "b", "cbd"));
        // subsumption: xyx holds two x where a holds none
        assert!(feeds("a", "xyx", "x"));
        // subsumption by counts: "aa" in "aaa" once (non-overlapping), in "aaaa" twice
        assert!(feeds("aaa", "aaaa", "aa"));
        assert!(!feeds("aaaa", "aaa", "aa"));
        // completion left (prefix of ti = suffix of sj) and right
        assert!(feeds("z", "bc", "ab"));
        assert!(feeds("z", "cb", "ba"));
        assert!(!feeds("z", "c", "ab"));
    }

    #[test]
    fn each_bleeding_case_fires() {
        // containment: a inside ab, and ti holds no a
        assert!(bleeds("a", "x", "ab"));
        assert!(!bleeds("a", "xa", "ab"));
        // subsumption: ab holds one b, ti none
        assert!(bleeds("ab", "x", "b"));
        assert!(!bleeds("ab", "xb", "b"));
        // completion of si with sj, not explained by ti
        assert!(bleeds("ab", "x", "bc"));
        assert!(!bleeds("ab", "b", "bc"));
    }

    #[test]
    fn the_formula_misses_some_feeding() {
        // bab → cbb creates bb, but no case of the formula fires.
        assert!(!feeds("ba", "cb", "bb"));
    }

    #[test]
    fn non_ascii_overlaps_respect_char_boundaries() {
        assert!(feeds("x", "éa", "bé"));
        assert!(!feeds("x", "é", "ʔ"));
        assert!(feeds("x", "ʔ", "ʔː"));
    }
}
