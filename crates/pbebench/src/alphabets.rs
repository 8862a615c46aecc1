//! The alphabets of the presets, and the alphabet a dataset without one is read with.

/// The alphabet of the Lite presets: a–k and u–z.
pub const LITE_ALPHABET: &str = "abcdefghijkuvwxyz";
/// The alphabet of the full presets: a–z and A–Z.
pub const FULL_ALPHABET: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The preset alphabet that covers every letter seen, else the sorted letters themselves.
pub fn infer_alphabet<'a>(strings: impl Iterator<Item = &'a str>) -> String {
    let mut seen: Vec<char> = strings.flat_map(str::chars).collect();
    seen.sort_unstable();
    seen.dedup();
    for preset in [LITE_ALPHABET, FULL_ALPHABET] {
        if seen.iter().all(|c| preset.contains(*c)) {
            return preset.to_owned();
        }
    }
    seen.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_preset_alphabet_that_covers_the_letters() {
        assert_eq!(infer_alphabet(["bad", "zu"].into_iter()), LITE_ALPHABET);
        assert_eq!(infer_alphabet(["bad", "Zu"].into_iter()), FULL_ALPHABET);
        assert_eq!(infer_alphabet(["cab", "é"].into_iter()), "abcé");
    }
}
