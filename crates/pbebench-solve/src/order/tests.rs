//! The order search against brute force: every sequence of distinct rules of small random
//! pools, replayed with CPython's `str.replace` semantics of the core.

use super::order;
use crate::encode::{Sym, SymRule};
use pbebench::{Cascade, Rule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// Letters `a`, `b`, `c`, … as symbols 0, 1, 2, …
fn sym(s: &str) -> Sym {
    s.bytes().map(|c| c - b'a').collect()
}

fn text(s: &[u8]) -> String {
    s.iter().map(|&c| char::from(b'a' + c)).collect()
}

fn cascade(rules: &[SymRule]) -> Cascade {
    (rules.iter())
        .map(|r| Rule::new(text(&r.a), text(&r.b)).unwrap())
        .collect()
}

fn fits(rules: &[SymRule], inputs: &[Sym], targets: &[Sym]) -> bool {
    let c = cascade(rules);
    (inputs.iter().zip(targets)).all(|(i, t)| c.apply(&text(i)) == text(t))
}

/// Whether some sequence of distinct rules of `pool`, at most `cap` long, fits.
fn brute_force(pool: &[SymRule], inputs: &[Sym], targets: &[Sym], cap: usize) -> bool {
    fn extend(
        pool: &[SymRule],
        seq: &mut Vec<SymRule>,
        used: &mut Vec<bool>,
        io: (&[Sym], &[Sym]),
        cap: usize,
    ) -> bool {
        if fits(seq, io.0, io.1) {
            return true;
        }
        if seq.len() == cap {
            return false;
        }
        for k in 0..pool.len() {
            if used[k] {
                continue;
            }
            used[k] = true;
            seq.push(pool[k].clone());
            let found = extend(pool, seq, used, io, cap);
            seq.pop();
            used[k] = false;
            if found {
                return true;
            }
        }
        false
    }
    let mut used = vec![false; pool.len()];
    extend(pool, &mut Vec::new(), &mut used, (inputs, targets), cap)
}

fn random_string(rng: &mut ChaCha8Rng, letters: u8, len: std::ops::RangeInclusive<usize>) -> Sym {
    let n = rng.random_range(len);
    (0..n).map(|_| rng.random_range(0..letters)).collect()
}

#[test]
fn finds_a_fit_exactly_when_brute_force_does() {
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let far = Instant::now() + Duration::from_secs(3600);
    let (mut fitted, mut unfit) = (0, 0);
    for _ in 0..400 {
        let letters = rng.random_range(2..=4);
        let pool: Vec<SymRule> = (0..rng.random_range(1..=5))
            .map(|_| SymRule {
                a: random_string(&mut rng, letters, 1..=2),
                // Deletions too: they are what breaks commutation.
                b: random_string(&mut rng, letters, 0..=2),
            })
            .collect();
        let inputs: Vec<Sym> = (0..rng.random_range(1..=4))
            .map(|_| random_string(&mut rng, letters, 1..=6))
            .collect();
        // Targets from a random sequence of the pool half the time, else from another
        // pool's, so that both answers are tested.
        let hidden: Vec<SymRule> = if rng.random_bool(0.5) {
            (pool.iter())
                .filter(|_| rng.random_bool(0.7))
                .cloned()
                .rev()
                .collect()
        } else {
            (0..3)
                .map(|_| SymRule {
                    a: random_string(&mut rng, letters, 1..=2),
                    b: random_string(&mut rng, letters, 0..=2),
                })
                .collect()
        };
        let c = cascade(&hidden);
        let targets: Vec<Sym> = (inputs.iter()).map(|i| sym(&c.apply(&text(i)))).collect();
        let cap = rng.random_range(1..=pool.len());
        let expected = brute_force(&pool, &inputs, &targets, cap);
        let (found, _) = order(&pool, &inputs, &targets, cap, u64::MAX, far);
        assert_eq!(
            found.is_some(),
            expected,
            "pool {pool:?} inputs {inputs:?} cap {cap}"
        );
        if let Some(seq) = found {
            assert!(seq.len() <= cap && fits(&seq, &inputs, &targets));
            fitted += 1;
        } else {
            unfit += 1;
        }
    }
    assert!(fitted > 50 && unfit > 50, "{fitted} fitted, {unfit} not");
}

#[test]
fn orders_a_shuffled_cascade_of_twelve_rules() {
    let rules = [
        ("ab", "c"),
        ("c", "dd"),
        ("da", "e"),
        ("eb", "a"),
        ("ba", "f"),
        ("fd", "b"),
        ("ad", "g"),
        ("gg", "h"),
        ("hb", "ae"),
        ("ea", "i"),
        ("di", "j"),
        ("jf", "bb"),
    ];
    let hidden: Vec<SymRule> = (rules.iter())
        .map(|(a, b)| SymRule {
            a: sym(a),
            b: sym(b),
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let inputs: Vec<Sym> = (0..60).map(|_| random_string(&mut rng, 7, 2..=8)).collect();
    let c = cascade(&hidden);
    let targets: Vec<Sym> = inputs.iter().map(|i| sym(&c.apply(&text(i)))).collect();
    let mut pool = hidden.clone();
    pool.reverse();
    pool.rotate_left(5);
    let far = Instant::now() + Duration::from_secs(3600);
    let (found, _) = order(&pool, &inputs, &targets, 12, 10_000_000, far);
    let found = found.expect("an order fits");
    assert!(fits(&found, &inputs, &targets));
}

#[test]
fn stops_at_the_node_budget_and_the_deadline() {
    // `ab` to `ba`: no order of `a → b`, `b → a` does it, which the letters alone do not
    // show; one rule application is not enough to find out, four are.
    let pool = vec![
        SymRule {
            a: sym("a"),
            b: sym("b"),
        },
        SymRule {
            a: sym("b"),
            b: sym("a"),
        },
    ];
    let far = Instant::now() + Duration::from_secs(3600);
    let (ab, ba) = ([sym("ab")], [sym("ba")]);
    assert_eq!(order(&pool, &ab, &ba, 2, 1, far), (None, 1));
    assert_eq!(order(&pool, &ab, &ba, 2, u64::MAX, far), (None, 4));
    // A deadline already passed stops the walk before its first rule.
    assert_eq!(
        order(&pool, &ab, &ba, 2, u64::MAX, Instant::now()),
        (None, 0)
    );
    let (found, nodes) = order(&pool[..1], &[sym("a")], &[sym("b")], 1, 1, far);
    assert_eq!((found, nodes), (Some(pool[..1].to_vec()), 1));
}

#[test]
fn intermediate_strings_stay_bounded() {
    // Twelve doublings would take 100 letters to 409,600 (and `aaa → b` keeps the letter
    // `b` of the target within reach, so nothing else ends a branch early); past 256
    // letters (sixteen times the target, at least 256) a branch ends, so the walk gives
    // up within a few hundred applications, where unbounded it walks tens of thousands.
    let mut pool = vec![
        SymRule {
            a: sym("a"),
            b: sym("aa")
        };
        12
    ];
    pool.push(SymRule {
        a: sym("aaa"),
        b: sym("b"),
    });
    let far = Instant::now() + Duration::from_secs(3600);
    let input = [sym(&"a".repeat(100))];
    let (found, nodes) = order(&pool, &input, &[sym("b")], 13, u64::MAX, far);
    assert_eq!(found, None);
    assert!(nodes < 1000, "{nodes} rule applications");
}

/// The authors' published length-10 file (64 cascades of 10 rules, 50 examples each):
/// every gold, its rules shuffled, is put back in an order that fits, within a node
/// budget.
#[test]
fn orders_every_shuffled_published_cascade_of_ten_rules() {
    use crate::encode::Encoded;
    use crate::Problem;
    let path = pbebench_testdata::path("adaptive_balanced_64_hard_50_inputs_10_cascade_bbr.jsonl");
    let instances = pbebench::dataset::read_dataset(&path).unwrap();
    assert_eq!(instances.len(), 64);
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let far = Instant::now() + Duration::from_secs(3600);
    for inst in &instances {
        let gold = inst.cascade.as_ref().unwrap();
        let problem = Problem::new(
            inst.inputs.clone(),
            inst.outputs.clone(),
            gold.len(),
            inst.max_rule_len,
            &inst.alphabet,
        )
        .unwrap();
        let enc = Encoded::new(&problem);
        let mut pool = enc.encode_rules(gold).unwrap();
        for k in (1..pool.len()).rev() {
            pool.swap(k, rng.random_range(0..=k));
        }
        let (found, nodes) = order(&pool, &enc.inputs, &enc.targets, gold.len(), 100_000, far);
        let found =
            found.unwrap_or_else(|| panic!("{}: no order in {nodes} applications", inst.id));
        assert!(
            enc.cascade(&found).reproduces(&inst.inputs, &inst.outputs),
            "{}",
            inst.id
        );
    }
}
