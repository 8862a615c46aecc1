//! `pbebench relations`: the feeding/bleeding matrix and category of a cascade.

use super::args::{Format, FormatArg};
use super::cascade_arg::read_cascade;
use pbebench::{RelationMode, Relations};
use std::process::ExitCode;

/// Arguments of `pbebench relations`.
#[derive(clap::Args)]
#[command(
    after_help = "Example: pbebench relations --cascade '[[\"a\",\"b\"],[\"b\",\"c\"]]' --format json",
    mut_arg("format", |a| a.help("text (a readable matrix) or json ({\"feeds\", \"bleeds\", \"category\"})"))
)]
pub struct Args {
    /// The cascade: a JSON array of [pattern, replacement] pairs, or @FILE holding one.
    #[arg(long)]
    cascade: String,
    /// exact (sound and complete) or paper (the published formula).
    #[arg(long, default_value = "exact")]
    mode: RelationMode,
    #[command(flatten)]
    format: FormatArg,
}

/// Runs `pbebench relations`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cascade = read_cascade(&args.cascade)?;
    let relations = Relations::of(&cascade, args.mode);
    let category = relations.category();
    match args.format.format {
        Format::Json => {
            let json = serde_json::json!({
                "feeds": relations.feeds,
                "bleeds": relations.bleeds,
                "category": category.to_string(),
            });
            println!("{json}");
        }
        Format::Text => {
            println!("rules ({} relations):", args.mode);
            for (k, rule) in cascade.rules().iter().enumerate() {
                println!("  {k}: {rule}");
            }
            println!("matrix (row i, column j: F = i feeds j, B = i bleeds j, . = neither):");
            let n = cascade.len();
            print!("     ");
            for j in 0..n {
                print!("{j:>4}");
            }
            println!();
            for i in 0..n {
                print!("  {i:>2} ");
                for j in 0..n {
                    let cell = match (relations.feeds[i][j], relations.bleeds[i][j]) {
                        _ if i == j => "-",
                        (true, true) => "FB",
                        (true, false) => "F",
                        (false, true) => "B",
                        (false, false) => ".",
                    };
                    print!("{cell:>4}");
                }
                println!();
            }
            println!("category {category} ({})", category.description());
        }
    }
    Ok(ExitCode::SUCCESS)
}
