//! `pbebench inspect`: validate a dataset (ours or the authors' format) and summarise it.

use anyhow::Context;
use pbebench::dataset::{DatasetError, DatasetReader};
use pbebench::generate::kl_from_uniform;
use pbebench::{Category, RelationMode, Relations};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `pbebench inspect`.
#[derive(clap::Args)]
#[command(
    after_help = "Exits 1 when some line is invalid (each is listed with its number and reason), 2 when the file \
cannot be read."
)]
pub struct Args {
    /// The dataset (JSONL).
    file: PathBuf,
    /// Also count instances whose category differs between the paper and exact classifiers.
    #[arg(long)]
    compare_relations: bool,
    /// Print the summary as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// What `inspect` found.
#[derive(Debug, Default, Serialize)]
struct Summary {
    file: String,
    instances: usize,
    invalid: Vec<Invalid>,
    by_cascade_length: BTreeMap<usize, usize>,
    by_category: BTreeMap<String, usize>,
    examples_per_instance: BTreeMap<usize, usize>,
    input_length: BTreeMap<usize, usize>,
    kl_from_uniform: f64,
    mean_examples_changed_per_rule: f64,
    with_heldout: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    relations_compared: Option<RelationComparison>,
}

#[derive(Debug, Serialize)]
struct Invalid {
    line: usize,
    reason: String,
}

#[derive(Debug, Default, Serialize)]
struct RelationComparison {
    compared: usize,
    differ: usize,
    examples: Vec<String>,
}

/// Runs `pbebench inspect`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut reader = DatasetReader::open(&args.file).map_err(anyhow::Error::from)?;
    let mut s = Summary {
        file: args.file.display().to_string(),
        ..Summary::default()
    };
    let mut ids = HashSet::new();
    let mut counts = [0u64; 16];
    let (mut rules, mut changed) = (0usize, 0usize);
    let mut cmp = args.compare_relations.then(RelationComparison::default);
    while let Some(item) = reader.next() {
        let inst = match item {
            Ok(inst) => inst,
            Err(DatasetError::Line { line, message, .. }) => {
                s.invalid.push(Invalid {
                    line,
                    reason: message,
                });
                continue;
            }
            Err(e) => return Err(e).context("reading the dataset"),
        };
        let line = reader.line();
        let mut problems = inst.problems();
        if !ids.insert(inst.id.clone()) {
            problems.push(format!("duplicate id '{}'", inst.id));
        }
        if let (Some(cascade), Some(stated)) = (&inst.cascade, inst.category) {
            let computed = Relations::of(cascade, inst.relations_mode).category();
            if computed != stated {
                problems.push(format!(
                    "category is {stated} but the cascade's {} relations give {computed}",
                    inst.relations_mode
                ));
            }
        }
        if !problems.is_empty() {
            s.invalid.push(Invalid {
                line,
                reason: problems.join("; "),
            });
            continue;
        }
        s.instances += 1;
        *s.by_cascade_length.entry(inst.cascade_len).or_default() += 1;
        *s.examples_per_instance
            .entry(inst.inputs.len())
            .or_default() += 1;
        for input in &inst.inputs {
            *s.input_length.entry(input.chars().count()).or_default() += 1;
        }
        if let Some(c) = inst.category {
            *s.by_category.entry(c.to_string()).or_default() += 1;
            counts[c.index()] += 1;
        }
        if !inst.heldout_inputs.is_empty() {
            s.with_heldout += 1;
        }
        let per_rule = inst.examples_changed_per_rule();
        rules += per_rule.len();
        changed += per_rule.iter().sum::<usize>();
        if let (Some(cmp), Some(cascade)) = (cmp.as_mut(), &inst.cascade) {
            let paper = Relations::of(cascade, RelationMode::Paper).category();
            let exact = Relations::of(cascade, RelationMode::Exact).category();
            cmp.compared += 1;
            if paper != exact {
                cmp.differ += 1;
                if cmp.examples.len() < 5 {
                    cmp.examples
                        .push(format!("{}: paper {paper}, exact {exact}", inst.id));
                }
            }
        }
    }
    s.kl_from_uniform = kl_from_uniform(&counts);
    s.mean_examples_changed_per_rule = if rules == 0 {
        0.0
    } else {
        changed as f64 / rules as f64
    };
    s.relations_compared = cmp;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print_text(&s);
    }
    // A file without a single instance is no dataset, even with no bad line.
    Ok(if s.invalid.is_empty() && s.instances > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_text(s: &Summary) {
    println!(
        "{}: {} valid instances, {} invalid lines",
        s.file,
        s.instances,
        s.invalid.len()
    );
    let join = |m: &BTreeMap<usize, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k}:{v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if s.instances == 0 {
        println!("  no valid instance: nothing to summarise");
        print_invalid(s);
        return;
    }
    println!("  by cascade length: {}", join(&s.by_cascade_length));
    println!(
        "  examples per instance: {}",
        join(&s.examples_per_instance)
    );
    println!("  input length (chars): {}", join(&s.input_length));
    println!("  by category (F B CF CB):");
    for c in Category::ALL {
        let n = s.by_category.get(&c.to_string()).copied().unwrap_or(0);
        println!("    {c} {n:>6}  {}", c.description());
    }
    println!(
        "  KL divergence of categories from uniform: {:.4}",
        s.kl_from_uniform
    );
    println!(
        "  mean examples changed per rule: {:.3}",
        s.mean_examples_changed_per_rule
    );
    println!("  instances with held-out examples: {}", s.with_heldout);
    if let Some(cmp) = &s.relations_compared {
        println!(
            "  categories differing between paper and exact relations: {} of {}",
            cmp.differ, cmp.compared
        );
        for e in &cmp.examples {
            println!("    {e}");
        }
    }
    print_invalid(s);
}

fn print_invalid(s: &Summary) {
    for inv in &s.invalid {
        println!("  line {}: {}", inv.line, inv.reason);
    }
}
