//! The options of `pbebench solve` for real data: a rule budget (`--max-rules N`,
//! `--rule-budget half`), a sweep over it with `--holdout`, and `--laws` (each answer as
//! sound laws, in IPA, beside its `replace` form, and the words no law explains). The
//! solving and the cross-validation are `pbebench_solve`'s; this sets the instances' rule
//! caps around them and prints.

use super::output::Checked;
use anyhow::{bail, Context};
use pbebench::dataset::MAX_RULES_LIMIT;
use pbebench::derivation::Derivation;
use pbebench::equiv::length_bound;
use pbebench::pylit::repr;
use pbebench::symbols::sound_law;
use pbebench::{parse_response, read_responses, BlockChoice, Instance, RelationMode, RuleLimits};
use pbebench_solve::{cross_validate, held_out, Budget, HoldoutRow, Solver};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A rule budget relative to the words a solver sees.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RuleBudget {
    /// Half as many rules as words seen (at least one): a solver can no longer patch
    /// every word with a rule of its own.
    Half,
}

/// The rule-budget options of `pbebench solve`.
#[derive(clap::Args, Default)]
pub struct BudgetArgs {
    /// Allow every instance at most N rules (instead of its own `max_rules`).
    #[arg(long, value_name = "N", conflicts_with = "rule_budget")]
    max_rules: Option<usize>,
    /// Allow every instance a number of rules relative to the words the solver sees
    /// (with --holdout: the words not held out).
    #[arg(long, value_enum, value_name = "BUDGET")]
    rule_budget: Option<RuleBudget>,
    /// With --holdout: cross-validate once per rule budget N1,N2,… (and `half`, if
    /// listed) and print held-out exact matches and Edit_Sim per budget and language;
    /// --out gets every row, with the budget as `rules_allowed`.
    #[arg(
        long,
        value_name = "N,…",
        value_delimiter = ',',
        requires = "holdout",
        conflicts_with_all = ["max_rules", "rule_budget"]
    )]
    sweep: Vec<String>,
    /// With --sweep: also draw the sweep as an SVG: held-out exact match against the rules
    /// allowed, one line per language with 95% Wilson intervals, each language's identity
    /// dashed.
    #[arg(long, value_name = "FILE.svg", requires = "sweep")]
    plot: Option<PathBuf>,
    /// Print each answer's rules as sound laws (`a > b / L _ R`, in IPA for a dataset
    /// read from CLDF) beside their `replace` form, and the words no rule explains.
    #[arg(long, conflicts_with = "holdout")]
    laws: bool,
}

/// One budget of a sweep.
#[derive(Clone, Copy)]
enum Allowed {
    Rules(usize),
    Relative(RuleBudget),
}

impl std::fmt::Display for Allowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Allowed::Rules(n) => write!(f, "{n}"),
            Allowed::Relative(RuleBudget::Half) => f.write_str("half"),
        }
    }
}

impl BudgetArgs {
    /// Whether `--laws` was given.
    pub fn laws(&self) -> bool {
        self.laws
    }

    /// The file `--plot` names, if any (an output to declare).
    pub fn plot(&self) -> Option<&Path> {
        self.plot.as_deref()
    }

    /// Whether `--sweep` was given.
    pub fn sweeps(&self) -> bool {
        !self.sweep.is_empty()
    }

    /// How many times each instance is solved: once per budget of `--sweep`, else once.
    pub fn runs(&self) -> usize {
        self.sweep.len().max(1)
    }

    /// The instances with the rule cap these options set (unchanged without them).
    /// `share`: the held-out share, whose words the solver does not see.
    pub fn apply(
        &self,
        instances: Vec<Instance>,
        share: Option<f64>,
    ) -> anyhow::Result<Vec<Instance>> {
        let allowed = match (self.max_rules, self.rule_budget) {
            (Some(n), _) => Allowed::Rules(checked_rules(n, "--max-rules")?),
            (None, Some(budget)) => Allowed::Relative(budget),
            (None, None) => return Ok(instances),
        };
        Ok(capped(instances, allowed, share))
    }
}

/// `n` as a rule cap: at least 1, at most the limit every instance has.
fn checked_rules(n: usize, flag: &str) -> anyhow::Result<usize> {
    if n == 0 || n > MAX_RULES_LIMIT {
        bail!("{flag} must be between 1 and {MAX_RULES_LIMIT}, not {n}");
    }
    Ok(n)
}

/// The instances with their rule cap set to `allowed`.
fn capped(mut instances: Vec<Instance>, allowed: Allowed, share: Option<f64>) -> Vec<Instance> {
    for inst in &mut instances {
        inst.max_rules = match allowed {
            Allowed::Rules(n) => n,
            Allowed::Relative(RuleBudget::Half) => {
                let seen = match share {
                    Some(share) => held_out(inst.inputs.len(), share)
                        .iter()
                        .filter(|held| !**held)
                        .count(),
                    None => inst.inputs.len(),
                };
                (seen / 2).max(1)
            }
        };
    }
    instances
}

/// The budgets of `--sweep`, in the order given.
fn sweep_budgets(sweep: &[String]) -> anyhow::Result<Vec<Allowed>> {
    sweep
        .iter()
        .map(|s| match s.trim() {
            "half" => Ok(Allowed::Relative(RuleBudget::Half)),
            n => {
                let n: usize = n.parse().with_context(|| {
                    format!("--sweep: '{n}' is no number of rules: give numbers (and half), comma-separated")
                })?;
                checked_rules(n, "--sweep").map(Allowed::Rules)
            }
        })
        .collect()
}

/// `--holdout SHARE --sweep N,…`: one cross-validation per budget, the rows (with their
/// budget) to `out`, and the table printed.
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    args: &BudgetArgs,
    instances: &[Instance],
    solver: &dyn Solver,
    budget: &Budget,
    threads: usize,
    share: f64,
    files: &Checked,
    out: &Path,
    on_done: impl Fn(usize) + Sync,
) -> anyhow::Result<String> {
    let budgets = sweep_budgets(&args.sweep)?;
    let mut runs: Vec<(Allowed, Vec<HoldoutRow>)> = Vec::new();
    for allowed in budgets {
        let capped = capped(instances.to_vec(), allowed, Some(share));
        let rows = cross_validate(&capped, solver, budget, threads, share, &on_done)
            .context("--holdout")?;
        runs.push((allowed, rows));
    }
    files.create(out)?.write(|w| {
        for (allowed, rows) in &runs {
            for row in rows {
                let mut value = serde_json::to_value(row)?;
                if let serde_json::Value::Object(map) = &mut value {
                    map.insert("rules_allowed".into(), allowed.to_string().into());
                }
                serde_json::to_writer(&mut *w, &value)?;
                std::io::Write::write_all(w, b"\n")?;
            }
        }
        Ok(())
    })?;
    if let Some(plot) = &args.plot {
        let labelled: Vec<(String, Vec<HoldoutRow>)> = (runs.iter())
            .map(|(allowed, rows)| (allowed.to_string(), rows.clone()))
            .collect();
        let svg = pbebench_vet::sweep_plot(&labelled, share);
        files.write(plot, svg.as_bytes())?;
    }
    Ok(sweep_table(&runs))
}

/// Per budget and language: held-out exact matches of the identity and of the answers,
/// held-out Edit_Sim, and the rules the answers used.
fn sweep_table(runs: &[(Allowed, Vec<HoldoutRow>)]) -> String {
    let mut t = String::from(
        "| rules allowed | language | words held out | exact: identity | exact: answer | words won / lost | Edit_Sim held out | rules used (mean) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (allowed, rows) in runs {
        let mut groups: BTreeMap<&str, Vec<&HoldoutRow>> = BTreeMap::new();
        for row in rows {
            groups.entry(&row.language).or_default().push(row);
        }
        let all: Vec<&HoldoutRow> = rows.iter().collect();
        for (name, rows) in groups.iter().map(|(n, r)| (*n, r)).chain([("all", &all)]) {
            let sum = |g: fn(&HoldoutRow) -> usize| rows.iter().map(|r| g(r)).sum::<usize>();
            let held = sum(|r| r.held);
            let pct = |k: usize| 100.0 * k as f64 / held.max(1) as f64;
            let _ = writeln!(
                t,
                "| {allowed} | {name} | {held} | {:.1}% | {:.1}% | {} / {} | {:.3} | {:.1} |",
                pct(sum(|r| r.held_identity_exact)),
                pct(sum(|r| r.held_answer_exact)),
                sum(|r| r.held_won),
                sum(|r| r.held_lost),
                pbebench::metrics::edit_sim_ratio(
                    sum(|r| r.held_answer_dist),
                    sum(|r| r.held_identity_dist)
                ),
                sum(|r| r.rules) as f64 / rows.len().max(1) as f64,
            );
        }
    }
    t
}

/// `--laws`: each instance's answer (read back from the responses just written) as sound
/// laws beside its `replace` form, then the words no rule explains.
pub fn laws(instances: &[Instance], responses: &Path) -> anyhow::Result<String> {
    let read = read_responses(responses, instances)?;
    let mut text = String::new();
    for inst in instances {
        let Some(response) = read.by_id.get(&inst.id).and_then(|r| r.first()) else {
            continue;
        };
        let cascade = parse_response(response, &RuleLimits::of(inst), BlockChoice::Last).cascade();
        let _ = writeln!(
            text,
            "{}: {} rule{} for {} words",
            inst.id,
            cascade.len(),
            if cascade.len() == 1 { "" } else { "s" },
            inst.inputs.len()
        );
        let show = |s: &str| inst.symbols.decode(s);
        let forms: Vec<String> = (cascade.rules().iter())
            .map(|r| {
                let (a, b) = (repr(&show(r.pattern())), repr(&show(r.replacement())));
                format!("replace({a}, {b})")
            })
            .collect();
        let width = forms.iter().map(|f| f.chars().count()).max().unwrap_or(0);
        for (k, (rule, form)) in cascade.rules().iter().zip(&forms).enumerate() {
            let pad = width - form.chars().count();
            let law = sound_law(rule, &inst.symbols);
            let _ = writeln!(text, "  {:>2}. {form}{}   {law}", k + 1, " ".repeat(pad));
        }
        let derivation = Derivation::new(
            &cascade,
            &inst.inputs,
            RelationMode::Exact,
            length_bound(inst),
        )
        .with_symbols(&inst.symbols)
        .with_expected(&inst.outputs);
        for line in derivation.irregular_text().lines() {
            let _ = writeln!(text, "  {line}");
        }
    }
    Ok(text)
}
