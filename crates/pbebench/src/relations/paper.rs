//! The paper's feeding/bleeding formula (Appendix C, Eq. 1) as the authors' released
//! detector computes it. Reproduces the labels of the published snapshots.

/// `feeds(si→ti, sj→·)` by the paper's formula.
pub fn feeds(si: &str, ti: &str, sj: &str) -> bool {
    let _ = (si, ti, sj);
    false // TODO(relations helper): implement
}

/// `bleeds(si→ti, sj→·)` by the paper's formula (Theorem 4: feeds with the first rule reversed).
pub fn bleeds(si: &str, ti: &str, sj: &str) -> bool {
    let _ = (si, ti, sj);
    false // TODO(relations helper): implement
}
