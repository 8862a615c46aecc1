//! `pbebench parse`: the cascade one response (on stdin) yields, with each rule's validity.

use anyhow::Context;
use pbebench::{parse_response, Alphabet, BlockChoice, RuleLimits};
use std::io::Read;
use std::process::ExitCode;

/// Arguments of `pbebench parse`.
#[derive(clap::Args)]
pub struct Args {
    /// Keep only the first N rules (default: all).
    #[arg(long, value_name = "N")]
    max_rules: Option<usize>,
    /// A rule side longer than N characters is invalid (default: no limit).
    #[arg(long, value_name = "N")]
    max_rule_len: Option<usize>,
    /// Letters rules may use: letters and ranges (`a-ku-z`), or `lite` / `full` [default:
    /// any]
    #[arg(long, value_name = "LETTERS", value_parser = super::args::alphabet)]
    alphabet: Option<String>,
    /// Which fenced code block holds the answer.
    #[arg(long, default_value_t = BlockChoice::Last)]
    block: BlockChoice,
}

/// Runs `pbebench parse`: prints the parse as JSON (status, cascade, rules with problems).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("stdin: cannot read")?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "stdin: not valid UTF-8 (byte {}); convert the response to UTF-8 first",
            e.utf8_error().valid_up_to() + 1
        )
    })?;
    let limits = RuleLimits {
        max_rules: args.max_rules.unwrap_or(usize::MAX),
        max_rule_len: args.max_rule_len.unwrap_or(usize::MAX),
        alphabet: args.alphabet.as_deref().map(Alphabet::new),
    };
    let parsed = parse_response(&text, &limits, args.block);
    let mut value = serde_json::to_value(&parsed)?;
    value["valid"] = parsed.is_valid().into();
    value["cascade"] = serde_json::to_value(parsed.cascade())?;
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(ExitCode::SUCCESS)
}
