//! `pbebench equiv`: exact behavioural equivalence of two cascades over an input space.

use super::args::{alphabet, Format, FormatArg};
use super::cascade_arg::read_cascade;
use anyhow::Context;
use pbebench::equiv::{self, Comparison, Counterexample, InputSpace, Limits, Output, Ratio};
use pbebench::generate::parse_range;
use std::process::ExitCode;

/// The exit code of a comparison that ran into one of the engine's limits.
const UNDECIDED: u8 = 3;

/// Arguments of `pbebench equiv`.
#[derive(clap::Args)]
#[command(after_help = "\
Compares the second cascade (the answer) with the first (the reference, e.g. the gold) on \
every input of the space: all strings over --alphabet with a length in --input-len, drawn \
with a uniform length, then uniform letters. Everything is counted exactly, not sampled.

Prints whether they are equivalent; if not, a shortest counterexample (the first of its \
length in the alphabet's order) and both outputs; the agreement (the probability that \
both give the same output) and the changed agreement (the same, among inputs the \
reference changes; null when it changes none).

JSON: {\"equivalent\": bool, \"counterexample\": str|null, \"outputs\": [str, str]|null, \
\"agreement\": float, \"changed_agreement\": float|null}; an output longer than the \
engine's limit (1024 characters) is null inside \"outputs\".

Letters of the cascades need not be in the alphabet: inputs never hold them, but a rule \
may write one and a later rule match it.

Exit codes: 0 when decided (equivalent or not), 2 on bad input (a malformed cascade, an \
empty or repeated alphabet, an empty length range), 3 when the engine ran into one of \
its bounds (both cascades write outputs over 1024 characters, too many states, too much \
work) and the verdict is undecided: one line on standard error says which.

Example: pbebench equiv --cascade '[[\"ab\",\"c\"]]' --cascade '[[\"a\",\"c\"],[\"cb\",\"c\"]]' \
--alphabet abc --input-len 2..6")]
pub struct Args {
    /// A cascade (JSON array of [pattern, replacement] pairs, or @FILE); give it twice:
    /// the reference first, then the answer.
    #[arg(long, num_args = 1, required = true)]
    cascade: Vec<String>,
    /// The input letters, in the order that orders counterexamples: letters and ranges
    /// (`a-ku-z`), or `lite` / `full`.
    #[arg(long, value_parser = alphabet)]
    alphabet: String,
    /// Input lengths, inclusive: `2..6`, `2-6` or one number.
    #[arg(long, default_value = "2..6", value_parser = parse_range)]
    input_len: (usize, usize),
    #[command(flatten)]
    format: FormatArg,
}

/// Runs `pbebench equiv`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let [reference, answer] = args.cascade.as_slice() else {
        anyhow::bail!(
            "--cascade: give exactly two cascades (the reference, then the answer), not {}",
            args.cascade.len()
        );
    };
    let (reference, answer) = (read_cascade(reference)?, read_cascade(answer)?);
    let letters: Vec<char> = args.alphabet.chars().collect();
    let (min, max) = args.input_len;
    let space = InputSpace::new(letters, min, max).context("--alphabet / --input-len")?;
    match equiv::compare(&reference, &answer, &space, &Limits::default()) {
        Ok(found) => {
            match args.format.format {
                Format::Json => println!("{}", json(&found)),
                Format::Text => print!("{}", text(&found, &space)),
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(undecided) => {
            let found = match &undecided.counterexample {
                Some(c) => format!(" (they are not equivalent: they differ on {:?})", c.input),
                None => String::new(),
            };
            eprintln!("undecided: {}{found}", undecided.limit);
            Ok(ExitCode::from(UNDECIDED))
        }
    }
}

/// The JSON object of the help text, its fields in that order.
#[derive(serde::Serialize)]
struct Json<'a> {
    equivalent: bool,
    counterexample: Option<&'a str>,
    outputs: Option<[Option<&'a str>; 2]>,
    agreement: f64,
    changed_agreement: Option<f64>,
}

fn json(found: &Comparison) -> String {
    let c = found.counterexample.as_ref();
    let json = Json {
        equivalent: found.equivalent(),
        counterexample: c.map(|c| c.input.as_str()),
        outputs: c.map(|c| [c.reference.text(), c.answer.text()]),
        agreement: found.agreement.to_f64(),
        changed_agreement: found.changed_agreement.map(Ratio::to_f64),
    };
    serde_json::to_string(&json).expect("a comparison always serialises")
}

/// The readable form.
fn text(found: &Comparison, space: &InputSpace) -> String {
    let lengths = format!("{}..={}", space.min_len(), space.max_len());
    let mut out = match &found.counterexample {
        None => format!(
            "equivalent: yes, on all {} inputs of length {lengths} over {} letters\n",
            space.strings(),
            space.alphabet().len()
        ),
        Some(c) => counterexample(c),
    };
    out += &format!("agreement:         {}\n", ratio(found.agreement));
    out += &match found.changed_agreement {
        Some(r) => format!("changed agreement: {}\n", ratio(r)),
        None => "changed agreement: undefined (the reference changes no input)\n".to_owned(),
    };
    out
}

/// "not equivalent" with the counterexample and both outputs.
fn counterexample(c: &Counterexample) -> String {
    let output = |o: &Output| match o {
        Output::Text(s) => format!("{s:?}"),
        Output::TooLong { limit } => format!("(longer than {limit} characters)"),
    };
    format!(
        "equivalent: no\ncounterexample: {:?} ({} characters)\n  reference: {}\n  answer:    {}\n",
        c.input,
        c.input.chars().count(),
        output(&c.reference),
        output(&c.answer)
    )
}

/// A probability as a decimal and as the exact fraction.
fn ratio(r: Ratio) -> String {
    format!("{:.6} ({r})", r.to_f64())
}
