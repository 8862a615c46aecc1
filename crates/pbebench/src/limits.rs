//! The limits on what one instance may hold. Every reader checks them when it reads a line
//! ([`Instance::problems`](crate::Instance::problems), run by
//! [`parse_instance`](crate::dataset::parse_instance), by the word-list readers and by the
//! Python bindings), so that a number in a file cannot make a command allocate, loop or
//! run for as long as it says: `max_rule_len: 18446744073709551615` once made `solve`
//! panic, and `100000000` one trivial instance take 1.5 GB. Each is far above what any
//! published or generated dataset holds (cascades of at most 30 rules, caps of 50 rules
//! and 5 characters, words of at most 20 letters, 50 examples; 10,000 held-out ones).

/// The largest `max_rules` (the rule cap solvers are given) an instance may state. The
/// solvers' searches and the prompts grow with it; the published sets use at most 50.
pub const MAX_RULES_LIMIT: usize = 1000;
/// The largest `max_rule_len` (the longest side a rule may have) an instance may state.
/// The solvers' tables and searches grow steeply with it (at 1000, one instance of 30
/// random examples held `solve` for over ten minutes and half a gigabyte); the published
/// sets use 3, word lists 5.
pub const MAX_RULE_LEN_LIMIT: usize = 32;
/// The most rules a gold cascade may have (`cascade_len` and `cascade`): the relations
/// of a cascade cost the square of its length, and checking the gold costs its length
/// times the examples' characters. The published sets' longest cascades have 30 rules.
pub const MAX_CASCADE_LEN: usize = 100;
/// The most visible examples an instance may have (`inputs`, `outputs`); a word list read
/// as one instance (`pbebench pairs --chunk 0`) is bound by it too. Held-out examples are
/// bound by [`crate::generate::MAX_HELDOUT`].
pub const MAX_EXAMPLES: usize = 10_000;
/// The longest string an instance may hold, in characters: its id, every example (visible
/// or held-out), every side of its gold's rules, and every string its gold writes on the
/// way from an input to its output. Scoring bounds an answer's strings by 16 times the
/// instance's longest ([`crate::equiv::length_bound`]), so this bounds them too.
pub const MAX_STRING_LEN: usize = 1000;
/// The most letters an `alphabet` may have: the solvers and the generator index letters by
/// one byte.
pub const MAX_ALPHABET_LEN: usize = 255;
