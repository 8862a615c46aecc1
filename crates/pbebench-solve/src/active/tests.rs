//! Tests of the probing loop and its queries.

use super::mend::*;
use super::pack::*;
use super::queries::*;
use super::*;
use crate::{solve_dataset, solver_by_name, SolveJob, SolveProgress};
use pbebench::Rule;
use pbebench::{Instance, RelationMode};

fn instance(id: &str, gold: &[(&str, &str)], inputs: &[&str], alphabet: &str) -> Instance {
    let gold: Cascade = gold
        .iter()
        .map(|(a, b)| Rule::new(*a, *b).unwrap())
        .collect();
    let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
    Instance {
        id: id.into(),
        outputs: gold.apply_all(&inputs),
        inputs,
        cascade_len: gold.len(),
        cascade: Some(gold),
        category: None,
        relations_mode: RelationMode::default(),
        max_rules: 3,
        max_rule_len: 3,
        alphabet: alphabet.into(),
        heldout_inputs: Vec::new(),
        heldout_outputs: Vec::new(),
        interactions: Vec::new(),
        symbols: Default::default(),
    }
}

fn budget() -> Budget {
    Budget {
        time_limit: Duration::from_secs(20),
        max_nodes: Some(20_000),
    }
}

/// The visible examples show `a` only after `c`: "ca" → "cb" fits them as well as
/// "a" → "b". Static solving may keep either; probing tells them apart, and the answer
/// behaves as the gold on every input (checked exactly, with the gold, outside the
/// solver).
#[test]
fn probing_recovers_what_the_visible_examples_leave_open() {
    let inst = instance("t", &[("a", "b")], &["ca", "cca", "bc"], "abc");
    let solver = solver_by_name("beam").unwrap();
    let mut oracle = Oracle::new(&inst, 10).unwrap();
    let probed = solve_probing(
        solver.as_ref(),
        &mut oracle,
        &budget(),
        &ActiveConfig::default(),
    );
    assert!(probed.outcome.is_solved(), "{:?}", probed.outcome.status);
    let answer = probed.outcome.cascade.clone().unwrap();
    let (recovered, behaviour) = equiv::recovered_and_behaviour(&inst, &answer);
    assert_eq!(
        (recovered, behaviour),
        (Some(true), Some(1.0)),
        "{answer:?}"
    );
    // Every probe is within the budget and answered by the gold.
    assert!(!probed.probes.is_empty() && probed.probes.len() <= 10);
    let gold = inst.cascade.as_ref().unwrap();
    for p in &probed.probes {
        assert_eq!(p.output, gold.apply(&p.input));
    }
    assert_eq!(probed.probes, oracle.probes());
}

/// No probe past the budget, none outside the alphabet or longer than accepted, and
/// the same probes and answer on a second run.
#[test]
fn probes_respect_the_oracle_and_repeat_exactly() {
    let inst = instance(
        "u",
        &[("ab", "c"), ("cc", "a"), ("b", "bb")],
        &["abab", "cb", "aab", "bca"],
        "abc",
    );
    let solver = solver_by_name("beam").unwrap();
    let run = || {
        let mut oracle = Oracle::new(&inst, 7).unwrap();
        let cfg = ActiveConfig::default();
        solve_probing(solver.as_ref(), &mut oracle, &budget(), &cfg)
    };
    let (a, b) = (run(), run());
    assert_eq!(a.probes.len(), 7, "the default spends the budget");
    assert_eq!(a.probes, b.probes);
    assert_eq!(a.outcome.cascade, b.outcome.cascade);
    assert!(a
        .probes
        .iter()
        .all(|p| p.input.chars().all(|c| "abc".contains(c)) && p.input.chars().count() <= 32));
    // A budget of 0: the static answer, no probe.
    let mut oracle = Oracle::new(&inst, 0).unwrap();
    let none = solve_probing(
        solver.as_ref(),
        &mut oracle,
        &budget(),
        &ActiveConfig::default(),
    );
    assert!(none.probes.is_empty() && none.outcome.is_solved());
}

fn cascade(rules: &[(&str, &str)]) -> Cascade {
    Cascade::from_pairs(rules).unwrap()
}

#[test]
fn de_bruijn_holds_every_word_once() {
    for (k, n) in [(1, 2), (3, 2), (17, 2), (4, 3)] {
        let seq = de_bruijn(k, n);
        assert_eq!(seq.len(), k.pow(n as u32));
        let cyclic: Vec<usize> = seq.iter().chain(&seq[..n - 1]).copied().collect();
        let words: HashSet<&[usize]> = cyclic.windows(n).collect();
        assert_eq!(words.len(), seq.len(), "k={k} n={n}");
    }
}

/// Lite's 17 letters: every pair of letters in 10 inputs of at most 32 letters; with
/// a cap below 10, every letter.
#[test]
fn pair_cover_holds_every_pair_within_the_probe_length() {
    let inst = instance(
        "t",
        &[("a", "b")],
        &["ca"],
        pbebench::dataset::LITE_ALPHABET,
    );
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let cover = pair_cover(&task, 12);
    assert!(!cover.packed);
    let probes = cover.pieces;
    assert_eq!(probes.len(), 10);
    assert!(probes
        .iter()
        .all(|p| p.chars().count() <= task.max_probe_len));
    assert_eq!(pairs_of(&probes).len(), 17 * 17);
    let letters = pair_cover(&task, 9);
    assert_eq!(letters.pieces, ["abcdefghijkuvwxyz"]);
    assert!(!letters.packed);
}

/// The pairs of `pieces`, each piece's own (none across pieces).
fn pairs_of(pieces: &[String]) -> HashSet<(char, char)> {
    pieces.iter().flat_map(|p| letter_pairs(p)).collect()
}

/// The full preset's 52 letters: with probes of 32, every letter in 2 inputs; with
/// probes of 256, every pair in 387 pieces of 8 letters, which pack 28 to a probe
/// (14 probes); allowed only 12 probes, 11 whole pieces of 256 letters.
#[test]
fn long_probes_cover_the_pairs_in_short_packed_pieces() {
    let alphabet = pbebench::dataset::FULL_ALPHABET;
    let inst = instance("t", &[("a", "b")], &["ca"], alphabet);
    let every_pair = alphabet.chars().count().pow(2);
    let short = Oracle::new(&inst, 50).unwrap().task().clone();
    let letters = pair_cover(&short, 16);
    assert_eq!(letters.pieces.len(), 2);
    assert_eq!(letters.pieces.concat(), alphabet);

    let long = Oracle::with_probe_len(&inst, 50, 256)
        .unwrap()
        .task()
        .clone();
    let cover = pair_cover(&long, 16);
    assert!(cover.packed);
    assert_eq!(cover.pieces.len(), 387);
    assert!(cover
        .pieces
        .iter()
        .all(|p| p.chars().count() <= PAIR_PIECE_LEN));
    assert_eq!(pairs_of(&cover.pieces).len(), every_pair);
    // Packed as a round packs them, 28 to a probe of at most 256 letters.
    let (probes, asked) = pack(&cover.pieces, '-', 256, usize::MAX);
    assert_eq!((probes.len(), asked.len()), (14, 387));
    assert!(probes.iter().all(|p| p.chars().count() <= 256));

    let whole = pair_cover(&long, 12);
    assert!(!whole.packed);
    assert_eq!(whole.pieces.len(), 11);
    assert_eq!(pairs_of(&whole.pieces).len(), every_pair);
}

/// Every letter of a focused input makes a pair with the letter before it that no
/// input held yet (the known ones, the ones drawn before, the input itself so far),
/// unless every pair starting with the letter before is held already.
#[test]
fn focused_inputs_hold_new_pairs_while_there_are_any() {
    let inst = instance("fp", &[("ab", "c")], &["ab", "ba"], "abcd");
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let known: HashSet<String> = ["aab".to_string(), "ccd".to_string()].into();
    let mut rng = SplitMix(7);
    // No rule letters, so every letter is drawn from the whole alphabet.
    let drawn = focused_inputs(&cascade(&[]), &task, &known, 6, 4, &mut rng);
    assert_eq!(drawn.len(), 6);
    let mut held: HashSet<(char, char)> = known.iter().flat_map(|s| letter_pairs(s)).collect();
    for s in &drawn {
        for (a, b) in letter_pairs(s) {
            let any_new = "abcd".chars().any(|c| !held.contains(&(a, c)));
            assert!(!held.contains(&(a, b)) || !any_new, "{s} in {drawn:?}");
            held.insert((a, b));
        }
    }
}

/// Gold `d → icg`, `cg → v`: the intermediate `cg` never shows in the visible
/// examples, and `d → iv` fits them. Some input of the pair cover holds `cg` and
/// tells the two apart; with it the probing solver recovers the gold.
#[test]
fn the_pair_cover_reveals_a_hidden_two_letter_intermediate() {
    let gold = [("b", "eu"), ("d", "icg"), ("cg", "v")];
    let inputs = ["fvbbdd", "cwi", "gvzf", "ekuz", "bhkjxg"];
    let mut inst = instance("cg", &gold, &inputs, pbebench::dataset::LITE_ALPHABET);
    inst.max_rules = 5;
    let answer = cascade(&[("b", "eu"), ("d", "iv")]);
    assert_eq!(answer.apply_all(&inst.inputs), inst.outputs);
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let gold = inst.cascade.clone().unwrap();
    let told = pair_cover(&task, 12)
        .pieces
        .iter()
        .filter(|p| gold.apply(p) != answer.apply(p))
        .count();
    assert!(told > 0);
    let solver = solver_by_name("beam").unwrap();
    let mut oracle = Oracle::new(&inst, 50).unwrap();
    let cfg = ActiveConfig::default();
    let probed = solve_probing(solver.as_ref(), &mut oracle, &budget(), &cfg);
    let found = probed.outcome.cascade.unwrap();
    assert_eq!(
        equiv::recovered_and_behaviour(&inst, &found).0,
        Some(true),
        "{found:?}"
    );
}

/// Gold `d → icg`, `cg → v`, answered by `d → iv`; the last round showed `cg` alone
/// (`v`): mending puts the learnt rule `cg → v` in, without a solve, and the result
/// fits every example. A local change (a context letter the candidate lacks) mends
/// too; an example no single change explains does not.
#[test]
fn a_surprised_candidate_is_mended_by_the_rule_it_learnt() {
    let inst = instance("t", &[("a", "b")], &["ca"], "abcdgiv");
    let mut task = Oracle::new(&inst, 50).unwrap().task().clone();
    task.max_rules = 3;
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let inputs = strings(&["dd", "ad", "cg"]);
    let outputs = strings(&["iviv", "aiv", "v"]);
    let candidate = cascade(&[("d", "iv")]);
    let later = Instant::now() + Duration::from_secs(10);
    let mended = mend(&candidate, &task, (&inputs, &outputs), 2, later).unwrap();
    assert_eq!(mended, cascade(&[("cg", "v"), ("d", "iv")]));
    // `a → b` fitted as `ca → cb`: `a` alone teaches `a → b`, and the simplification
    // that follows every new candidate drops the rule it made unneeded.
    let inputs = strings(&["ca", "cca", "a"]);
    let outputs = strings(&["cb", "ccb", "b"]);
    let candidate = cascade(&[("ca", "cb")]);
    let mended = mend(&candidate, &task, (&inputs, &outputs), 2, later).unwrap();
    assert_eq!(mended, cascade(&[("a", "b"), ("ca", "cb")]));
    let simpler = simplest(mended, &inputs, &outputs, Instant::now(), Duration::MAX);
    assert_eq!(simpler, cascade(&[("a", "b")]));
    // A context letter too many, once `a` alone is known but not as a rule (the cap
    // is full): a rival of step 2 drops it.
    task.max_rules = 1;
    let mended = mend(&candidate, &task, (&inputs, &outputs), 2, later).unwrap();
    assert_eq!(mended, cascade(&[("a", "b")]));
    // `dgd → ggg` is no rule (too long) and no local change gives it.
    let inputs = strings(&["dd", "dgd"]);
    let outputs = strings(&["iviv", "ggg"]);
    let candidate = cascade(&[("d", "iv")]);
    assert_eq!(mend(&candidate, &task, (&inputs, &outputs), 1, later), None);
}

/// Gold `c → d`, `b → c`, `a → b` (each letter one step on), answered by the same rules
/// in the opposite order, which take `a`, `b` and `c` all to `d`: no single change of
/// the answer fits once `a`, `b` and `c` are probed, but an order of its rules does.
#[test]
fn a_candidate_with_the_right_rules_in_the_wrong_order_is_reordered() {
    let inst = instance("t", &[("a", "b")], &["a"], "abcd");
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let inputs = strings(&["dd", "a", "b", "c", "cab"]);
    let outputs = strings(&["dd", "b", "c", "d", "dbc"]);
    let candidate = cascade(&[("a", "b"), ("b", "c"), ("c", "d")]);
    let later = Instant::now() + Duration::from_secs(10);
    assert_eq!(mend(&candidate, &task, (&inputs, &outputs), 1, later), None);
    let found = reorder(&candidate, &[], &task, (&inputs, &outputs), 1, later).unwrap();
    assert_eq!(found, cascade(&[("c", "d"), ("b", "c"), ("a", "b")]));
    // Without `c → d` in the pool (a candidate that never had it, and `c` not probed
    // alone), no order fits.
    let inputs = strings(&["dd", "a", "b", "cab"]);
    let outputs = strings(&["dd", "b", "c", "dbc"]);
    let fewer = cascade(&[("a", "b"), ("b", "c")]);
    assert_eq!(
        reorder(&fewer, &[], &task, (&inputs, &outputs), 1, later),
        None
    );
    // Rules of an earlier candidate join the pool.
    let seen = [Rule::new("c", "d").unwrap()];
    let found = reorder(&fewer, &seen, &task, (&inputs, &outputs), 1, later).unwrap();
    assert_eq!(found, cascade(&[("c", "d"), ("b", "c"), ("a", "b")]));
}

/// Queries are joined in order, each whole in one input of at most the length given,
/// into as many inputs as allowed; the ones left out are not reported as asked.
#[test]
fn packing_joins_whole_queries_within_the_length() {
    let q: Vec<String> = ["ab", "cde", "f", "ghij", "k"].map(String::from).into();
    let (probes, asked) = pack(&q, 'z', 8, 2);
    assert_eq!(probes, ["abzcdezf", "ghijzk"]);
    assert_eq!(asked, q);
    let (probes, asked) = pack(&q, 'z', 8, 1);
    assert_eq!(probes, ["abzcdezf"]);
    assert_eq!(asked, ["ab", "cde", "f"]);
    assert_eq!(pack(&q, 'z', 8, 0), (vec![], vec![]));
    // A query longer than an input is passed over.
    let (probes, asked) = pack(&["abcdefghi".into(), "x".into()], 'z', 8, 2);
    assert_eq!((probes, asked), (vec!["x".into()], vec!["x".to_string()]));
}

/// The separator touches no rule of the candidate: a letter no example holds first,
/// else the one the inputs hold most often; none when every letter is in a rule.
#[test]
fn the_separator_is_a_letter_no_rule_touches() {
    let inst = instance("t", &[("a", "b")], &["ca"], "abcde");
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let candidate = cascade(&[("a", "b")]);
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (inputs, outputs) = (strings(&["ca", "cdd", "d"]), strings(&["cb", "cdd", "d"]));
    assert_eq!(separator(&candidate, &task, &inputs, &outputs), Some('e'));
    let (inputs, outputs) = (strings(&["ca", "cdde", "d"]), strings(&["cb", "cdde", "d"]));
    assert_eq!(separator(&candidate, &task, &inputs, &outputs), Some('d'));
    let all = cascade(&[("ab", "c"), ("d", "e")]);
    assert_eq!(separator(&all, &task, &inputs, &outputs), None);
}

/// `ggg → g` fits where the gold has `ggx → x` (the visible `zggxh`): `ggg` alone
/// tells them apart, and the isolating probes hold it.
#[test]
fn isolating_probes_hold_each_pattern_and_replacement() {
    let inst = instance("t", &[("a", "b")], &["ca"], "abcghx");
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let candidate = cascade(&[("xh", "xx"), ("x", "ghc"), ("ggg", "g")]);
    let known: HashSet<String> = ["x".to_string()].into();
    let probes = isolating(&candidate, &task, &known, 8, false);
    assert_eq!(probes, ["xh", "ggg", "xx", "ghc", "g"]);
    assert_eq!(
        isolating(&candidate, &task, &known, 2, false),
        ["xh", "ggg"]
    );
    // The pieces of the patterns of three letters or more (`gg`, once), then the
    // forms of the patterns the other rules rewrite (`xh` by `x → ghc`) and their
    // pieces, then the patterns and forms with one rewrite undone (`ggg` with each `g`
    // put back to `ggg`; `ghch` with `ghc` put back to `x`, and apart from that, with
    // each `g` put back to `ggg`).
    assert_eq!(
        isolating(&candidate, &task, &known, 8, true),
        ["gg", "ghch", "ghc", "hch", "ggggggggg", "xh", "ggghch"]
    );
    let gold = cascade(&[("ggx", "x"), ("xh", "xx"), ("x", "ghc")]);
    assert_ne!(gold.apply("ggg"), candidate.apply("ggg"));
}

/// Gold `Xw → s`, `sb → u`, answered by `Xwb → u`: the piece `Xw` of the answer's
/// pattern, alone, shows the intermediate `s`.
#[test]
fn a_piece_of_a_folded_pattern_shows_the_intermediate() {
    let inst = instance("t", &[("a", "b")], &["ca"], "Xwbsu");
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let candidate = cascade(&[("Xwb", "u")]);
    let probes = isolating(&candidate, &task, &HashSet::new(), 8, true);
    assert_eq!(probes, ["Xw", "wb"]);
    let gold = cascade(&[("Xw", "s"), ("sb", "u")]);
    assert_eq!(gold.apply("Xwb"), candidate.apply("Xwb"));
    assert_eq!(
        (gold.apply("Xw"), candidate.apply("Xw")),
        ("s".into(), "Xw".into())
    );
    // Once `Xw → s` is learnt next to `Xwb → u`: `Xwb` rewritten by the rest, `sb`.
    let learnt = cascade(&[("Xwb", "u"), ("Xw", "s")]);
    let known: HashSet<String> = ["Xw".to_string(), "wb".to_string()].into();
    // (Then `sb` with `Xw → s` undone: `Xwb` again, unknown to this test.)
    assert_eq!(isolating(&learnt, &task, &known, 8, true), ["sb", "Xwb"]);
    assert_ne!(gold.apply("sb"), learnt.apply("sb"));
}

/// Two misses of the full preset (length 20 and 18): an intermediate form of a
/// pattern, and a form with a rewrite undone, hold the hidden rule's pattern, and the
/// hidden cascade rewrites them otherwise than the candidate.
#[test]
fn traced_and_undone_forms_hold_a_hidden_pattern() {
    let inst = instance("t", &[("a", "b")], &["ca"], "OjRXfMHrhvJAVK");
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let none = HashSet::new();
    // Gold `R → X`, `jX → f`, `Of → MH`, `f → ""`, answered by `OjR → MH` first:
    // `OjR` passes through `OjX` and `Of` before it ends as `O` (which no undone
    // rewrite turns back into `Of`: deletions are not undone).
    let gold = cascade(&[("R", "X"), ("jX", "f"), ("Of", "MH"), ("f", "")]);
    let candidate = cascade(&[("OjR", "MH"), ("R", "X"), ("jX", "f"), ("f", "")]);
    let probes = isolating(&candidate, &task, &none, 32, true);
    assert!(probes.iter().any(|p| p == "Of"), "{probes:?}");
    assert_ne!(gold.apply("Of"), candidate.apply("Of"));
    // Gold `h → vJ`, `rvJ → Af`, `J → VK`, answered by `rh → Af`, `J → VK`,
    // `h → vVK`: `rh` becomes `rvVK`, and with `J → VK` undone, `rvJ`.
    let gold = cascade(&[("h", "vJ"), ("rvJ", "Af"), ("J", "VK")]);
    let candidate = cascade(&[("rh", "Af"), ("J", "VK"), ("h", "vVK")]);
    assert_eq!(gold.apply("rh"), candidate.apply("rh"));
    let probes = isolating(&candidate, &task, &none, 32, true);
    assert!(probes.iter().any(|p| p == "rvJ"), "{probes:?}");
    assert_ne!(gold.apply("rvJ"), candidate.apply("rvJ"));
}

/// Four misses that spent their 50 probes on random inputs (three of the full preset,
/// lengths 16 and 18, and one of Lite), in miniature: the candidate fits every example
/// and differs from the hidden cascade only on strings around its own rules, of each
/// kind `neighbours` asks.
#[test]
fn neighbours_hold_the_strings_a_swapped_folded_or_widened_rule_gets_wrong() {
    let inst = instance("t", &[("a", "b")], &["ca"], "ACFGIJKLTVWYZabhjklnqrsuvwxz");
    let task = Oracle::new(&inst, 50).unwrap().task().clone();
    let none = HashSet::new();
    // Gold `JJA → GI` before `sG → aCC`, `aCC → Fu`; the candidate has `sG → Fu` first:
    // `JJA` writes the `G` that ends `sG`, so `s` then `JJA`.
    let gold = cascade(&[("JJA", "GI"), ("sG", "aCC"), ("aCC", "Fu")]);
    let candidate = cascade(&[("sG", "Fu"), ("JJA", "GI")]);
    let probes = neighbours(&candidate, &task, &none);
    assert_eq!(probes[0], "sJJA");
    assert_ne!(gold.apply("sJJA"), candidate.apply("sJJA"));
    // Gold `bzk → kjx`, `kjx → avh`, answered by `kjx → bzk`, `bzk → avh` (Lite): the
    // two patterns overlap in `k`.
    let gold = cascade(&[("bzk", "kjx"), ("kjx", "avh")]);
    let candidate = cascade(&[("kjx", "bzk"), ("bzk", "avh")]);
    let probes = neighbours(&candidate, &task, &none);
    assert_eq!(probes[..2], ["kjxjx", "bzkjx"]);
    assert_ne!(gold.apply("bzkjx"), candidate.apply("bzkjx"));
    // Gold `wF → rl`, `lq → kY`, `rl → CG`, answered by `wF → CG`, `lq → kY`: `wF`
    // with a letter after it.
    let gold = cascade(&[("wF", "rl"), ("lq", "kY"), ("rl", "CG")]);
    let candidate = cascade(&[("wF", "CG"), ("lq", "kY")]);
    let probes = neighbours(&candidate, &task, &none);
    assert!(probes.iter().any(|p| p == "wFq"), "{probes:?}");
    assert_ne!(gold.apply("wFq"), candidate.apply("wFq"));
    // Gold `K → W`, `Z → VlW`, `WaT → An`, `VlW → L`, answered by `ZaT → VlAn`, `K → W`,
    // `Z → L`: `ZaT` with another first letter.
    let gold = cascade(&[("K", "W"), ("Z", "VlW"), ("WaT", "An"), ("VlW", "L")]);
    let candidate = cascade(&[("ZaT", "VlAn"), ("K", "W"), ("Z", "L")]);
    let probes = neighbours(&candidate, &task, &none);
    assert!(probes.iter().any(|p| p == "KaT"), "{probes:?}");
    assert_ne!(gold.apply("KaT"), candidate.apply("KaT"));
    // Each string once, none known, none longer than a probe or off the alphabet.
    let known: HashSet<String> = probes[..3].iter().cloned().collect();
    let again = neighbours(&candidate, &task, &known);
    assert_eq!(again, probes[3..]);
    assert!(again
        .iter()
        .all(|p| p.chars().count() <= task.max_probe_len
            && p.chars().all(|c| task.alphabet.contains(c))));
    let unique: HashSet<&String> = again.iter().collect();
    assert_eq!(unique.len(), again.len());
}

#[test]
fn simplest_drops_rules_that_patch_each_other() {
    let c: Cascade = [("a", "b"), ("b", "a"), ("a", "c")]
        .iter()
        .map(|(a, b)| Rule::new(*a, *b).unwrap())
        .collect();
    // "a" → "c", "ab" → "cc": the first rule only feeds the second, which undoes it;
    // without it, b → a, a → c still fits, and no single rule does.
    let inputs = vec!["a".to_string(), "ab".to_string()];
    let outputs: Vec<String> = inputs.iter().map(|s| c.apply(s)).collect();
    let s = simplest(c, &inputs, &outputs, Instant::now(), Duration::from_secs(5));
    let rule = |a: &str, b: &str| Rule::new(a, b).unwrap();
    assert_eq!(s.rules(), &[rule("b", "a"), rule("a", "c")]);
}

struct Quiet;

impl SolveProgress for Quiet {
    fn done(&self, _: usize, _: usize, _: usize) {}
}

/// `solve_dataset` with a probe budget: the probes are in the statistics lines, and
/// one thread or two give the same responses and probes.
#[test]
fn a_probing_run_records_its_probes_whatever_the_threads() {
    let insts = vec![
        instance("p", &[("a", "b")], &["ca", "cca", "bc"], "abc"),
        instance("q", &[("ab", "c"), ("c", "a")], &["abb", "cab"], "abc"),
        instance("r", &[("b", "ca")], &["bb", "ab"], "abc"),
    ];
    let solver = solver_by_name("beam").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: usize, probe_len: usize| {
        let (out, stats) = (
            dir.path().join(format!("r{threads}-{probe_len}.jsonl")),
            dir.path().join(format!("s{threads}-{probe_len}.jsonl")),
        );
        let job = SolveJob {
            solver: solver.as_ref(),
            budget: budget(),
            threads,
            out: &out,
            stats: Some(&stats),
            fresh: true,
            probe_budget: Some(6),
            probe_len,
        };
        solve_dataset(&insts, &job, &Quiet).unwrap();
        let stats: Vec<serde_json::Value> = std::fs::read_to_string(&stats)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (std::fs::read_to_string(&out).unwrap(), stats)
    };
    let (one, stats_one) = run(1, pbebench::probe::DEFAULT_PROBE_LEN);
    let (two, stats_two) = run(2, pbebench::probe::DEFAULT_PROBE_LEN);
    assert_eq!(one, two);
    // Longer probes: as deterministic, and the packed rounds use the length.
    let (long_one, long_stats) = run(1, 200);
    let (long_two, long_stats_two) = run(2, 200);
    assert_eq!(long_one, long_two);
    for (a, b) in long_stats.iter().zip(&long_stats_two) {
        assert_eq!(a["probes"], b["probes"]);
    }
    let longest = |stats: &[serde_json::Value]| {
        (stats.iter())
            .flat_map(|s| s["probes"].as_array().unwrap())
            .map(|p| p["input"].as_str().unwrap().chars().count())
            .max()
            .unwrap()
    };
    assert!(longest(&stats_one) <= 32);
    assert!(longest(&long_stats) > 32);
    for (a, b) in stats_one.iter().zip(&stats_two) {
        assert_eq!(a["probes"], b["probes"]);
        assert_eq!(a["probes_used"], 6);
        assert_eq!(a["probes"].as_array().unwrap().len(), 6);
        assert_eq!(a["recovered"], b["recovered"]);
    }
    assert_eq!(stats_one[0]["recovered"], true);
    // Real data has no hidden cascade: refused before any work.
    let mut real = insts.clone();
    real[1].cascade = None;
    let job = SolveJob {
        solver: solver.as_ref(),
        budget: budget(),
        threads: 1,
        out: &dir.path().join("x.jsonl"),
        stats: None,
        fresh: true,
        probe_budget: Some(6),
        probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
    };
    let err = solve_dataset(&real, &job, &Quiet).unwrap_err();
    assert!(
        err.to_string()
            .contains("probe_budget: instance q has no gold"),
        "{err}"
    );
    assert!(!dir.path().join("x.jsonl").exists());
}
