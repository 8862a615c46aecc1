//! Sound and complete feeding/bleeding over all strings.

/// ∃ s : sj ∉ s and sj ∈ (si→ti)(s).
pub fn feeds(si: &str, ti: &str, sj: &str) -> bool {
    let _ = (si, ti, sj);
    false // TODO(relations helper): implement
}

/// ∃ s : sj ∈ s and sj ∉ (si→ti)(s).
pub fn bleeds(si: &str, ti: &str, sj: &str) -> bool {
    let _ = (si, ti, sj);
    false // TODO(relations helper): implement
}
