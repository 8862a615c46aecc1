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
//!   si.count(sj)` (SPEC §3).
//!
//! Strings are compared as Unicode scalar values; lengths are counted in characters.

/// `feeds(si→ti, sj→·)` by the paper's formula.
pub fn feeds(si: &str, ti: &str, sj: &str) -> bool {
    if si == ti {
        return false;
    }
    let deletion = ti.is_empty() && sj.chars().count() > 1;
    let containment = !ti.is_empty() && sj.contains(ti) && !si.contains(ti);
    let subsumption = ti.contains(sj) && count(ti, sj) > count(si, sj);
    let completion = completes(ti, sj, si);
    deletion || containment || subsumption || completion
}

/// `bleeds(si→ti, sj→·)` by the paper's formula (Theorem 4: feeds with the first rule reversed).
pub fn bleeds(si: &str, ti: &str, sj: &str) -> bool {
    if si == ti {
        return false;
    }
    let deletion = si.is_empty() && sj.chars().count() > 1;
    let containment = !si.is_empty() && sj.contains(si) && count(ti, si) < 1;
    let subsumption = si.contains(sj) && count(ti, sj) < count(si, sj);
    let completion = completes(si, sj, ti);
    deletion || containment || subsumption || completion
}

/// Non-overlapping occurrences of `pattern` in `s`, like Python's `s.count(pattern)` for a
/// non-empty pattern (scanning left to right, resuming after each match).
fn count(s: &str, pattern: &str) -> usize {
    debug_assert!(!pattern.is_empty());
    s.matches(pattern).count()
}

/// Completion, left and right: some non-empty string that is a prefix of `written` and a
/// suffix of `pattern`, or a suffix of `written` and a prefix of `pattern` (whole strings
/// included), and that is not a substring of `status_quo`.
fn completes(written: &str, pattern: &str, status_quo: &str) -> bool {
    let left = (1..=written.len().min(pattern.len()))
        .filter(|&len| written.is_char_boundary(len))
        .map(|len| &written[..len])
        .filter(|overlap| pattern.ends_with(overlap));
    let right = (0..written.len())
        .filter(|&start| written.is_char_boundary(start))
        .map(|start| &written[start..])
        .filter(|overlap| overlap.len() <= pattern.len() && pattern.starts_with(overlap));
    left.chain(right)
        .any(|overlap| !status_quo.contains(overlap))
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
