//! Speed of the exact equivalence engine on full-preset pairs, against brute force.
//!
//!     cargo bench -p pbebench --bench equiv -- DATASET [--check N] [--sample N]
//!
//! DATASET is a JSONL dataset with gold cascades (`pbebench generate --preset full`); each
//! gold is paired with answers a solver plausibly gives (itself, the identity, two swaps of
//! adjacent rules, a dropped rule, a perturbed replacement, a perturbed pattern, an
//! appended rule). For every pair (see README.md for what each figure means):
//!
//! * the engine decides the pair over the instance's space (its alphabet, lengths 2..=6),
//!   with the reference prepared once per instance (as grading does) and, separately,
//!   prepared afresh for the pair;
//! * brute force is *timed on a sample*: `--sample` strings (default 2000) drawn from the
//!   letter-class-reduced space are applied with both cascades (`Cascade::apply`) and
//!   compared, and the time per string is multiplied by the number of strings of the
//!   reduced space (and, for the plain brute force, of the full space). Enumerating the
//!   whole reduced space (~10⁸–10¹⁰ strings for 52 letters) per pair is not feasible;
//! * on `--check` pairs (default 64) brute force enumerates the whole reduced space of
//!   lengths 2..=3 and its exact figures must equal the engine's on that space.

use pbebench::dataset::read_dataset;
use pbebench::equiv::{compare, InputSpace, Limits, Ratio, Reference};
use pbebench::{Cascade, Rule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// CPU time this thread has run, in seconds: the machine is shared, and wall-clock time
/// would count other processes' slices.
fn cpu() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// A stopwatch of CPU time.
struct Clock(f64);

impl Clock {
    fn start() -> Self {
        Clock(cpu())
    }

    fn seconds(&self) -> f64 {
        cpu() - self.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let value = |name: &str, default: usize| {
        (args.iter().position(|a| a == name))
            .map(|k| args[k + 1].parse().expect("a number"))
            .unwrap_or(default)
    };
    let path = args
        .iter()
        .find(|a| !a.starts_with("--") && a.parse::<usize>().is_err());
    let path = path.expect("usage: equiv DATASET [--check N] [--sample N]");
    let (checks, sample) = (value("--check", 64), value("--sample", 2000));
    let instances = read_dataset(path).expect("a dataset");
    let limits = Limits::default();
    let mut rng = ChaCha8Rng::seed_from_u64(0xe9_0001);
    let mut pairs = Vec::new();
    for instance in &instances {
        let Some(gold) = &instance.cascade else {
            continue;
        };
        let alphabet: Vec<char> = instance.alphabet.chars().collect();
        let answers = answers(gold, &alphabet, &mut rng);
        pairs.push((gold.clone(), alphabet, answers));
    }
    let n_pairs: usize = pairs.iter().map(|p| p.2.len()).sum();
    println!("{} instances, {n_pairs} pairs, lengths 2..=6", pairs.len());

    // The engine, as grading runs it: one prepared reference per instance.
    let mut graded = Vec::new();
    let mut prepare = Vec::new();
    let mut verdicts = (0, 0, 0);
    let started = Clock::start();
    for (gold, alphabet, answers) in &pairs {
        let space = InputSpace::new(alphabet.iter().copied(), 2, 6).unwrap();
        let t = Clock::start();
        let mut reference = Reference::new(gold, &space, &limits);
        prepare.push(t.seconds());
        for answer in answers {
            let t = Clock::start();
            let result = reference.compare(answer);
            graded.push(t.seconds());
            match result {
                Ok(c) if c.equivalent() => verdicts.0 += 1,
                Ok(_) => verdicts.1 += 1,
                Err(_) => verdicts.2 += 1,
            }
        }
    }
    let total = started.seconds();
    println!(
        "verdicts: {} equivalent, {} not, {} undecided",
        verdicts.0, verdicts.1, verdicts.2
    );
    report(
        "engine, compare (reference prepared once per instance)",
        &mut graded,
    );
    report("engine, preparing a reference (per instance)", &mut prepare);
    let per_pair = total / n_pairs as f64;
    println!(
        "engine, everything: {total:.3} s for {n_pairs} pairs = {:.3} ms per pair; grading 1216 × 32 \
         answers at this rate: {:.2} s on one core, {:.2} s on two",
        per_pair * 1e3,
        per_pair * 1216.0 * 32.0,
        per_pair * 1216.0 * 32.0 / 2.0
    );

    // The engine with nothing shared, and brute force timed on a sample, pair by pair.
    let mut fresh = Vec::new();
    let (mut reduced_ratio, mut full_ratio) = (Vec::new(), Vec::new());
    for (gold, alphabet, answers) in &pairs {
        let space = InputSpace::new(alphabet.iter().copied(), 2, 6).unwrap();
        for answer in answers {
            let t = Clock::start();
            let _ = compare(gold, answer, &space, &limits);
            let engine = t.seconds();
            fresh.push(engine);
            let classes = Classes::of(gold, answer, alphabet);
            let per_string = brute_time_per_string(gold, answer, &classes, sample, &mut rng);
            reduced_ratio.push(per_string * classes.strings(2, 6) as f64 / engine);
            full_ratio.push(per_string * Classes::full(alphabet).strings(2, 6) as f64 / engine);
        }
    }
    report("engine, compare with a fresh reference", &mut fresh);
    ratios(
        "brute force with letter classes (estimated) / engine",
        &mut reduced_ratio,
    );
    ratios(
        "plain brute force, 52 letters (estimated) / engine",
        &mut full_ratio,
    );

    check(&pairs, checks);
}

/// Answers to `gold`: itself, the identity, two swaps of neighbours, a dropped rule, a
/// perturbed replacement, a perturbed pattern, and an appended rule.
fn answers(gold: &Cascade, alphabet: &[char], rng: &mut ChaCha8Rng) -> Vec<Cascade> {
    let rules = gold.rules();
    let n = rules.len();
    let letter = |rng: &mut ChaCha8Rng| alphabet[rng.random_range(0..alphabet.len())];
    let mut out = vec![gold.clone(), Cascade::identity()];
    for _ in 0..2 {
        let mut r = rules.to_vec();
        let k = rng.random_range(0..n - 1);
        r.swap(k, k + 1);
        out.push(Cascade::new(r));
    }
    let mut r = rules.to_vec();
    r.remove(rng.random_range(0..n));
    out.push(Cascade::new(r));
    for side in [1, 0] {
        let mut r = rules.to_vec();
        let k = rng.random_range(0..n);
        let (mut a, mut b): (Vec<char>, Vec<char>) = (
            r[k].pattern().chars().collect(),
            r[k].replacement().chars().collect(),
        );
        let target = if side == 1 { &mut b } else { &mut a };
        let at = rng.random_range(0..target.len());
        target[at] = letter(rng);
        r[k] = Rule::new(a.iter().collect::<String>(), b.iter().collect::<String>()).unwrap();
        out.push(Cascade::new(r));
    }
    let mut r = rules.to_vec();
    let a: String = (0..rng.random_range(1..=3)).map(|_| letter(rng)).collect();
    let b: String = (0..rng.random_range(1..=3)).map(|_| letter(rng)).collect();
    r.push(Rule::new(a, b).unwrap());
    out.push(Cascade::new(r));
    out
}

/// The letter classes of a pair over an alphabet: each used letter alone, the others
/// as one letter standing for `unused` of them.
struct Classes {
    letters: Vec<char>,
    weights: Vec<u128>,
}

impl Classes {
    fn of(a: &Cascade, b: &Cascade, alphabet: &[char]) -> Self {
        let used = |c: char| {
            (a.rules().iter().chain(b.rules()))
                .any(|r| r.pattern().contains(c) || r.replacement().contains(c))
        };
        let unused = alphabet.iter().filter(|&&c| !used(c)).count() as u128;
        let mut classes = Classes {
            letters: Vec::new(),
            weights: Vec::new(),
        };
        let mut class_seen = false;
        for &c in alphabet {
            let weight = if used(c) {
                1
            } else if !class_seen {
                class_seen = true;
                unused
            } else {
                continue;
            };
            classes.letters.push(c);
            classes.weights.push(weight);
        }
        classes
    }

    fn full(alphabet: &[char]) -> Self {
        Classes {
            letters: alphabet.to_vec(),
            weights: vec![1; alphabet.len()],
        }
    }

    /// Strings the brute force enumerates over these letters.
    fn strings(&self, lo: usize, hi: usize) -> u128 {
        (lo..=hi)
            .map(|l| (self.letters.len() as u128).pow(l as u32))
            .sum()
    }
}

/// Seconds per string of brute force (both cascades applied, outputs and input compared),
/// timed over `n` strings drawn from the reduced space as its enumeration would meet them.
fn brute_time_per_string(
    a: &Cascade,
    b: &Cascade,
    classes: &Classes,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> f64 {
    let r = classes.letters.len() as f64;
    let strings: Vec<String> = (0..n)
        .map(|_| {
            // lengths as often as the enumeration holds them
            let total: f64 = (2..=6).map(|l| r.powi(l)).sum();
            let mut pick = rng.random::<f64>() * total;
            let mut len = 6;
            for l in 2..=6 {
                pick -= r.powi(l);
                if pick <= 0.0 {
                    len = l as usize;
                    break;
                }
            }
            (0..len)
                .map(|_| classes.letters[rng.random_range(0..classes.letters.len())])
                .collect()
        })
        .collect();
    let t = Clock::start();
    let mut tally = (0u128, 0u128);
    for s in &strings {
        let (oa, ob) = (a.apply(s), b.apply(s));
        tally.0 += (oa == ob) as u128;
        tally.1 += (oa != *s) as u128;
    }
    std::hint::black_box(tally);
    t.seconds() / n as f64
}

/// Exact brute force over the reduced space, lengths 2..=3, against the engine on the same
/// space, for `n` pairs spread over the dataset; prints the measured ratio too.
fn check(pairs: &[(Cascade, Vec<char>, Vec<Cascade>)], n: usize) {
    let all: Vec<_> = (pairs.iter())
        .flat_map(|(g, al, answers)| answers.iter().map(move |b| (g, al, b)))
        .collect();
    if n == 0 || all.is_empty() {
        return;
    }
    let step = (all.len() / n).max(1);
    let (mut engine, mut brute) = (0.0, 0.0);
    let mut checked = 0;
    for &(gold, alphabet, answer) in all.iter().step_by(step).take(n) {
        let space = InputSpace::new(alphabet.iter().copied(), 2, 3).unwrap();
        let t = Clock::start();
        let found = compare(gold, answer, &space, &Limits::default()).expect("decided");
        engine += t.seconds();
        let t = Clock::start();
        let counted = brute_force(gold, answer, &Classes::of(gold, answer, alphabet), 2, 3);
        brute += t.seconds();
        let got = (found.agreement, found.changed_agreement, found.equivalent());
        assert_eq!(got, counted, "{} vs {}", gold.to_json(), answer.to_json());
        checked += 1;
    }
    println!(
        "exact check, lengths 2..=3, reduced brute force over the whole space: {checked} pairs \
         agree; brute force {brute:.3} s, engine {engine:.4} s, ratio {:.0}×",
        brute / engine
    );
}

/// Agreement, changed agreement and equivalence by enumerating every reduced string of
/// lengths `lo..=hi`, each weighing its class sizes.
fn brute_force(
    a: &Cascade,
    b: &Cascade,
    classes: &Classes,
    lo: usize,
    hi: usize,
) -> (Ratio, Option<Ratio>, bool) {
    let k: u128 = classes.weights.iter().sum();
    let r = classes.letters.len();
    let (mut agree, mut changed, mut agree_changed) = (0u128, 0u128, 0u128);
    for len in lo..=hi {
        for mut code in 0..r.pow(len as u32) {
            let (mut s, mut weight) = (String::new(), k.pow((hi - len) as u32));
            for _ in 0..len {
                s.push(classes.letters[code % r]);
                weight *= classes.weights[code % r];
                code /= r;
            }
            let (oa, ob) = (a.apply(&s), b.apply(&s));
            if oa == ob {
                agree += weight;
            }
            if oa != s {
                changed += weight;
                if oa == ob {
                    agree_changed += weight;
                }
            }
        }
    }
    let everything = (hi - lo + 1) as u128 * k.pow(hi as u32);
    let equivalent = agree == everything;
    let changed_agreement = (changed > 0).then(|| Ratio::new(agree_changed, changed));
    (Ratio::new(agree, everything), changed_agreement, equivalent)
}

/// Median, p95 and max of `times` (seconds), in ms.
fn report(label: &str, times: &mut [f64]) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize] * 1e3;
    println!(
        "{label}: median {:.3} ms, p95 {:.3} ms, max {:.3} ms ({} runs)",
        at(0.5),
        at(0.95),
        at(1.0),
        times.len()
    );
}

/// Median and p5 (the worst 5%) of `ratios`, and their geometric mean.
fn ratios(label: &str, ratios: &mut [f64]) {
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    println!(
        "{label}: median {:.0}×, p5 {:.0}×, min {:.0}×, geometric mean {geo:.0}×",
        at(0.5),
        at(0.05),
        at(0.0)
    );
}
