//! Cost of one uncached relation classification, `exact` against `paper` in the same
//! process (the plain substring checks of the authors' code, the reference):
//!
//!     cargo bench -p pbebench --bench classify
//!
//! Two sets of 10,000 random `(pattern, replacement, pattern)` triples of 1–3 letters:
//! generator-like ones over 17 letters (mostly unrelated) and ones over 3 letters (mostly
//! related). For each function it prints the CPU time per call (the best of five rounds:
//! the machine may be busy), how many triples it answered yes, and its ratio to the `paper`
//! function of the same relation. Only the ratios mean something across machines.

use pbebench::relations::{exact, paper};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// CPU time this thread has run, in seconds: the machine is shared, and wall-clock time
/// would count other processes' slices.
fn cpu() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn random_string(rng: &mut ChaCha8Rng, letters: &[char]) -> String {
    let len = rng.random_range(1..=3);
    (0..len)
        .map(|_| letters[rng.random_range(0..letters.len())])
        .collect()
}

type Classifier = fn(&str, &str, &str) -> bool;

/// The best time per call over five rounds, in µs, and how many triples are positive.
fn time(f: Classifier, triples: &[(String, String, String)]) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut yes = 0;
    for _ in 0..5 {
        let start = cpu();
        yes = triples
            .iter()
            .filter(|(si, ti, sj)| f(std::hint::black_box(si), ti, sj))
            .count();
        best = best.min((cpu() - start) * 1e6 / triples.len() as f64);
    }
    (best, yes)
}

fn main() {
    for alphabet in ["abcdefghijkuvwxyz", "abc"] {
        let letters: Vec<char> = alphabet.chars().collect();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let triples: Vec<(String, String, String)> = (0..10_000)
            .map(|_| {
                let si = random_string(&mut rng, &letters);
                let ti = random_string(&mut rng, &letters);
                (si, ti, random_string(&mut rng, &letters))
            })
            .collect();
        let relations: [(&str, Classifier, Classifier); 2] = [
            ("feeds", exact::feeds, paper::feeds),
            ("bleeds", exact::bleeds, paper::bleeds),
        ];
        for (relation, exact, paper) in relations {
            let (reference, paper_yes) = time(paper, &triples);
            let (t, exact_yes) = time(exact, &triples);
            println!(
                "{} letters, {relation}: paper {reference:.3} µs per call ({paper_yes} of {n} \
                 positive), exact {t:.3} µs ({exact_yes} positive), exact/paper {:.1}×",
                letters.len(),
                t / reference,
                n = triples.len(),
            );
        }
    }
}
