//! `pbebench eval --strategy`: the named strategies a run can use besides sampling K
//! answers (`docs/strategies.md`), declared once and turned into the configuration's
//! fields.

use anyhow::bail;
use pbebench_eval::{EvalConfig, Select, StepwiseSpec, Strategy};

/// A named strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Name {
    /// K independent answers per instance (the default).
    Sampling,
    /// Build the cascade in chunks: --step-rules S rules per step, --steps N steps, the
    /// best of --samples K kept at each step by --select.
    Stepwise,
    /// Feedback rounds: each answer is checked, and the model is told which examples it
    /// gets wrong and tries again, within --max-turns (interactive mode without probes).
    Feedback,
}

/// The strategy options of `pbebench eval`.
#[derive(clap::Args, Debug)]
pub struct StrategyArgs {
    /// The search strategy (sampling: K independent answers; stepwise: chunked search;
    /// feedback: feedback rounds) [default: sampling, or probing with --interactive]
    #[arg(long, value_name = "NAME", value_enum)]
    pub strategy: Option<Name>,

    /// With --strategy stepwise: the most rules one step may add.
    #[arg(long, value_name = "S", required_if_eq("strategy", "stepwise"))]
    pub step_rules: Option<usize>,

    /// With --strategy stepwise: the most steps (S × N may not pass any instance's
    /// max_rules).
    #[arg(long, value_name = "N", required_if_eq("strategy", "stepwise"))]
    pub steps: Option<u32>,

    /// With --strategy stepwise: how the best of a step's K samples is kept (soft-pass:
    /// the share of visible examples exactly right; edit-sim: their mean Edit_Sim).
    #[arg(long, value_name = "soft-pass|edit-sim")]
    pub select: Option<Select>,
}

impl StrategyArgs {
    /// Sets the configuration's strategy fields; refuses options of another strategy.
    pub fn apply(&self, config: &mut EvalConfig) -> anyhow::Result<()> {
        let name = self.strategy.unwrap_or(Name::Sampling);
        if name != Name::Stepwise {
            for (given, flag) in [
                (self.step_rules.is_some(), "--step-rules"),
                (self.steps.is_some(), "--steps"),
                (self.select.is_some(), "--select"),
            ] {
                if given {
                    bail!("{flag} applies to --strategy stepwise only; add --strategy stepwise");
                }
            }
        }
        match name {
            Name::Sampling => {}
            Name::Stepwise => {
                config.stepwise = Some(StepwiseSpec {
                    step_rules: self.step_rules.expect("clap requires --step-rules"),
                    steps: self.steps.expect("clap requires --steps"),
                    select: self.select.unwrap_or_default(),
                });
            }
            Name::Feedback => {
                let spec = config
                    .interactive
                    .as_mut()
                    .expect("--strategy feedback sets --interactive");
                if spec.probe_budget != 0 {
                    bail!(
                        "--strategy feedback gives no probes: drop --probe-budget {} (or use \
                         --interactive alone to probe)",
                        spec.probe_budget
                    );
                }
                spec.feedback = true;
            }
        }
        Ok(())
    }
}

/// The line under a run's table that names its strategy.
pub fn describe(strategy: &Strategy) -> String {
    let mut line = format!("strategy           {}", strategy.name);
    if let Some(p) = &strategy.stepwise {
        line.push_str(&format!(
            " · step rules {} · steps {} · samples per step {} · select {}",
            p["step_rules"],
            p["steps"],
            p["samples"],
            p["select"].as_str().unwrap_or("?")
        ));
    } else if strategy.name == "feedback" {
        line.push_str(" · each answer is checked, and the solver is told which examples it gets wrong and tries again");
    }
    line
}
