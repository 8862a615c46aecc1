//! The alphabet as one-byte letter codes, and joined code strings: the examples of a
//! candidate are kept joined in one string of codes, separated by a code no letter has. A
//! rule's pattern cannot contain the separator, so replacing in the joined string is exactly
//! replacing in every example, and the whole cascade costs one substring scan per rule
//! instead of one per example.

use super::draws::Draws;

/// Separates examples in a joined string; generators reject alphabets containing it.
pub(super) const SEP: char = '\n';

/// The alphabet as one-byte letter codes, in which candidates are sampled.
///
/// Code c is the c-th letter of the alphabet in `char` order, so codes order like the
/// letters they stand for; [`SEP_CODE`] separates examples. Replacing, matching and
/// comparing codes is exactly doing so on the letters, as the map is one-to-one; letters
/// become text again only for the few candidates that are kept.
pub(super) struct Letters {
    /// The letter of each code.
    pub(super) by_code: Vec<char>,
    /// The code of each letter of the alphabet in the order given (the order draws use).
    /// (A full 256-entry table, so that a digit indexes it with no bounds check.)
    pub(super) of_draw: [u8; 256],
    /// The byte of each code (and [`SEP`] for [`SEP_CODE`]) when every letter is ASCII,
    /// so that codes become text by one lookup each; None otherwise.
    pub(super) ascii: Option<[u8; 256]>,
}

/// The code that separates examples in a joined code string: no letter has it, as
/// alphabets have at most 255 letters.
pub(super) const SEP_CODE: u8 = 0xFF;

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
    pub(super) fn code(&self, c: char) -> u8 {
        self.by_code
            .binary_search(&c)
            .expect("a letter of the alphabet") as u8
    }

    /// A letter drawn uniformly, as its code.
    #[inline]
    pub(super) fn draw(&self, rng: &mut Draws) -> u8 {
        // (`% 256` never changes the index; it lets the compiler drop the bounds check.)
        self.of_draw[rng.letter_index() % 256]
    }

    /// The codes of `text`, whose letters are all in the alphabet.
    pub(super) fn codes(&self, text: &str) -> Vec<u8> {
        text.chars().map(|c| self.code(c)).collect()
    }

    /// The text of `codes`, examples separated by [`SEP`].
    pub(super) fn text(&self, codes: &[u8]) -> String {
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
    pub(super) fn texts(&self, codes: &[u8]) -> Vec<String> {
        codes
            .split(|&c| c == SEP_CODE)
            .map(|example| self.text(example))
            .collect()
    }
}

/// A joined code string, `bytes[..len]`, followed by at least [`PAD`] bytes of slack (any
/// values), so that [`replace_padded`] can move its pieces a word at a time.
#[derive(Default)]
pub(super) struct Padded {
    pub(super) bytes: Vec<u8>,
    pub(super) len: usize,
}

impl Padded {
    /// `codes` with slack of letter code 0 (a test's strings must not match into it).
    #[cfg(test)]
    pub(super) fn of(codes: &[u8]) -> Self {
        let mut bytes = codes.to_vec();
        bytes.resize(codes.len() + super::bytes::PAD, 0);
        Padded {
            bytes,
            len: codes.len(),
        }
    }

    /// The string, without the slack.
    pub(super) fn codes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_keep_the_letters_and_their_order() {
        let letters = Letters::new(&['z', 'é', 'a', 'ʔ', 'b']);
        assert_eq!(letters.by_code, vec!['a', 'b', 'z', 'é', 'ʔ']);
        assert_eq!(letters.of_draw[..5], [2, 3, 0, 4, 1]);
        assert_eq!(letters.text(&[0, SEP_CODE, 4, 3]), "a\nʔé");
    }
}
