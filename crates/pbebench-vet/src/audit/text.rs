//! The audit as text: counts first, then a few examples of each finding.

use super::{percent, percent_interval, AuditFindings, Findings, Gate, Groups, BASELINE_COLUMNS};
use pbebench::interval::wilson;
use std::fmt::{self, Display, Formatter};

fn verdict(passed: bool) -> &'static str {
    if passed {
        "PASS"
    } else {
        "FAIL"
    }
}

fn examples(f: &mut Formatter<'_>, findings: &Findings) -> fmt::Result {
    for e in &findings.examples {
        writeln!(f, "      e.g. {}: {}", e.id, e.detail)?;
    }
    if findings.count > findings.examples.len() && !findings.examples.is_empty() {
        writeln!(
            f,
            "      … and {} more (all in audit.json counts; raise --examples to list more)",
            findings.count - findings.examples.len()
        )?;
    }
    Ok(())
}

fn gate(f: &mut Formatter<'_>, name: &str, g: &Gate, extra: &str) -> fmt::Result {
    writeln!(
        f,
        "  {name:<6} {}  {} checked, {} failed{}{extra}",
        verdict(g.passed),
        g.checked,
        g.failures.count,
        if g.skipped > 0 {
            format!(", {} skipped", g.skipped)
        } else {
            String::new()
        },
    )?;
    examples(f, &g.failures)
}

fn groups(f: &mut Formatter<'_>, name: &str, g: &Groups) -> fmt::Result {
    writeln!(
        f,
        "  {name:<26} {} group(s), {} extra instance(s)",
        g.groups, g.extra
    )?;
    for ids in &g.examples {
        writeln!(f, "      e.g. {}", ids.join(" = "))?;
    }
    Ok(())
}

fn count(f: &mut Formatter<'_>, name: &str, of: usize, findings: &Findings) -> fmt::Result {
    writeln!(f, "  {name:<26} {} of {of}", findings.count)?;
    examples(f, findings)
}

impl Display for AuditFindings {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.fmt_gates(f)?;
        self.fmt_verdict(f)?;
        self.fmt_shortcuts(f)?;
        self.fmt_stated_length(f)?;
        self.fmt_duplicates(f)?;
        self.fmt_labels(f)?;
        self.fmt_identifiability(f)?;
        self.fmt_calibration(f)?;
        self.fmt_warnings(f)?;
        Ok(())
    }
}

impl AuditFindings {
    /// The heading and the gates.
    fn fmt_gates(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let failed: Vec<&str> = match &self.verdict {
            Some(v) => v.failed().map(|g| g.gate.as_str()).collect(),
            None => [
                ("gold", self.gates.gold.passed),
                ("dummy", self.gates.dummy.passed),
            ]
            .iter()
            .filter(|(_, p)| !p)
            .map(|(n, _)| *n)
            .collect(),
        };
        writeln!(
            f,
            "audit of {}: {} instances — {}",
            self.dataset,
            self.instances,
            if failed.is_empty() {
                "every gate passed".to_owned()
            } else {
                format!("FAILED gate(s): {}", failed.join(", "))
            }
        )?;
        writeln!(f, "gates")?;
        gate(f, "gold", &self.gates.gold, "")?;
        writeln!(f, "      ({})", self.gates.gold.note)?;
        gate(f, "dummy", &self.gates.dummy, "")?;
        writeln!(
            f,
            "      note: the identity's mean fractional score (vetted mean reward) is {:.3} \
         (0 unless some gold changes no example: the score counts only the examples the \
         gold changes)",
            self.gates.identity_fractional_floor
        )?;
        Ok(())
    }

    /// The set-level gates, one line each, and the flagged instances by reason.
    fn fmt_verdict(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Some(v) = &self.verdict else {
            return Ok(());
        };
        writeln!(
            f,
            "verdict (thresholds: docs/audit.md; [lo, hi]: Wilson's 95% interval of the share)"
        )?;
        for g in &v.gates {
            let mark = match (g.value, g.passed) {
                (None, _) => "  -- ",
                (Some(_), true) => "PASS ",
                (Some(_), false) => "FAIL ",
            };
            writeln!(f, "  {mark} {}", g.line)?;
        }
        let counts: Vec<String> = v
            .flag_counts
            .iter()
            .map(|(r, n)| format!("{} {n}", r.name()))
            .collect();
        writeln!(
            f,
            "  flagged instances: {} of {} ({}; each with its reasons in audit.json)",
            v.flagged.len(),
            self.instances,
            counts.join(", ")
        )?;
        Ok(())
    }

    /// The shortcut baselines and what they pass.
    fn fmt_shortcuts(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "shortcuts (what trivial solvers earn; figure±standard error, docs/statistics.md)"
        )?;
        // Wide enough for `0.438±0.124`.
        let width = |c: &pbebench::Column| c.width().max(11);
        write!(f, "  {:<12}", "baseline")?;
        for c in BASELINE_COLUMNS {
            write!(f, " {:>w$}", c.header, w = width(&c))?;
        }
        writeln!(f)?;
        for b in &self.shortcuts.baselines {
            write!(f, "  {:<12}", b.name)?;
            for (c, cell) in BASELINE_COLUMNS.iter().zip(b.cells_with_se()) {
                write!(f, " {:>w$}", cell, w = width(c))?;
            }
            writeln!(f, "   {} passed", b.passed.count)?;
        }
        for b in &self.shortcuts.baselines {
            if !b.passed.examples.is_empty() {
                writeln!(f, "    {} passes:", b.name)?;
                examples(f, &b.passed)?;
            }
        }
        Ok(())
    }

    /// Redundant rules and much shorter cascades.
    fn fmt_stated_length(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let s = &self.shortcuts.stated_length;
        writeln!(
            f,
            "stated length ({} instances with a gold cascade)",
            s.checked
        )?;
        count(f, "redundant gold rules", s.checked, &s.redundant_rules)?;
        count(f, "rules only held-out needs", s.checked, &s.unpinned_rules)?;
        if s.sources.is_empty() {
            writeln!(
                f,
                "  shorter cascades: not searched (--no-solver and no results)"
            )?;
        } else {
            writeln!(f, "  shorter cascades from: {}", s.sources.join("; "))?;
            writeln!(
                f,
                "  {:<26} {} of {} solved; {} with ≤ {:.0}% of the stated rules",
                "much shorter",
                s.solved,
                s.checked,
                s.much_shorter.count,
                s.ratio * 100.0
            )?;
            examples(f, &s.much_shorter)?;
            for (stated, found) in &s.shortest_by_stated {
                let cells: Vec<String> = found.iter().map(|(l, n)| format!("{l}: {n}")).collect();
                writeln!(
                    f,
                    "      stated {stated:>2} → shortest found {{{}}}",
                    cells.join(", ")
                )?;
            }
        }
        Ok(())
    }

    /// Identical and renamed instances, repeated examples.
    fn fmt_duplicates(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let d = &self.duplicates;
        writeln!(f, "duplicates")?;
        groups(f, "identical instances", &d.identical)?;
        groups(f, "equal up to renaming", &d.renamed)?;
        count(f, "repeated examples", self.instances, &d.repeated_examples)?;
        count(
            f,
            "held-out repeats visible",
            self.instances,
            &d.heldout_repeats_visible,
        )?;
        count(
            f,
            "contradictory examples",
            self.instances,
            &d.contradictory,
        )?;
        Ok(())
    }

    /// Paper against exact categories, stale labels.
    fn fmt_labels(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let l = &self.labels;
        writeln!(f, "labels ({} instances with a gold cascade)", l.checked)?;
        count(f, "paper ≠ exact category", l.checked, &l.paper_vs_exact)?;
        if !l.by_flag.is_empty() {
            let flags: Vec<String> = l.by_flag.iter().map(|(k, n)| format!("{k} {n}")).collect();
            writeln!(f, "      by flag: {}", flags.join(", "))?;
        }
        count(
            f,
            "stored label ≠ recomputed",
            l.checked,
            &l.stored_mismatch,
        )?;
        if l.unlabelled > 0 {
            writeln!(f, "  {:<26} {}", "unlabelled", l.unlabelled)?;
        }
        Ok(())
    }

    /// Ambiguous instances: shares by length and category, and a few witnesses.
    fn fmt_identifiability(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Some(id) = &self.identifiability else {
            return writeln!(f, "identifiability: not checked (--panel none)");
        };
        let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
        // Wilson's 95% interval of `n` of `of`, in percent (empty when `of` is 0).
        let ci = |n: usize, of: usize| {
            wilson(n, of).map_or_else(String::new, |i| format!(" {}", percent_interval(&i)))
        };
        writeln!(
            f,
            "identifiability (panel: {}; seed {}; {} instances with a gold cascade{})",
            id.panel,
            id.seed,
            id.checked,
            if id.skipped > 0 {
                format!(", {} skipped", id.skipped)
            } else {
                String::new()
            }
        )?;
        writeln!(
            f,
            "  {:<26} {} of {} ({:.1}%{}): a passing answer behaves differently from the gold",
            "ambiguous",
            id.ambiguous,
            id.checked,
            pct(id.ambiguous, id.checked),
            ci(id.ambiguous, id.checked)
        )?;
        for (name, n) in [
            ("recovered by a shortcut", id.trivial),
            ("undecided (bounds)", id.undecided),
            ("no passing answer", id.unanswered),
        ] {
            if n > 0 {
                writeln!(f, "  {name:<26} {n}")?;
            }
        }
        if !id.panel.contains(',') {
            // One attacker: its pass rate, and how often its passing answer recovers the gold.
            let passed = id.checked - id.unanswered;
            let recovered = passed - id.ambiguous - id.undecided;
            writeln!(
                f,
                "  {:<26} Pass@1 {:.1}%{}, Recovered@1 {:.1}%{} (gap {:.1} points{})",
                "the one attacker",
                pct(passed, id.checked),
                ci(passed, id.checked),
                pct(recovered, id.checked),
                ci(recovered, id.checked),
                pct(id.ambiguous + id.undecided, id.checked),
                // The gap is a difference of two rates: its interval in points too.
                wilson(id.ambiguous + id.undecided, id.checked).map_or_else(String::new, |i| {
                    format!(" [{:.1}, {:.1}]", 100.0 * i.lo, 100.0 * i.hi)
                }),
            )?;
        }
        let cells = |shares: Vec<(String, super::Share)>| -> String {
            let cells: Vec<String> = shares
                .iter()
                .map(|(k, s)| {
                    format!(
                        "{k}: {}/{} ({}{})",
                        s.ambiguous,
                        s.instances,
                        percent(s.rate()),
                        ci(s.ambiguous, s.instances)
                    )
                })
                .collect();
            cells.join(", ")
        };
        let by_length = id
            .by_length
            .iter()
            .map(|(k, s)| (k.to_string(), *s))
            .collect();
        writeln!(f, "  by length    {}", cells(by_length))?;
        if id.by_length.len() > 1 {
            writeln!(
                f,
                "  by length group {}{}",
                cells(id.by_length_group()),
                if id.panel.contains(',') {
                    ""
                } else {
                    " (with one attacker: its Pass@1 − Recovered@1 there)"
                }
            )?;
        }
        let by_category = id
            .by_category
            .iter()
            .map(|(k, s)| (k.clone(), *s))
            .collect();
        writeln!(f, "  by category  {}", cells(by_category))?;
        for e in &id.examples {
            let w = &e.witness;
            let out = |o: &Option<String>| {
                o.as_ref()
                    .map_or("(too long)".to_owned(), |s| format!("{s:?}"))
            };
            writeln!(
                f,
                "      e.g. {}: gold {}; {} found {}; on {:?} gold gives {}, found {}",
                e.id,
                e.gold.to_json(),
                w.attacker,
                w.found.to_json(),
                w.counterexample,
                out(&w.gold_output),
                out(&w.found_output)
            )?;
        }
        if id.ambiguous > id.examples.len() && !id.examples.is_empty() {
            writeln!(
                f,
                "      … and {} more (raise --examples to list more)",
                id.ambiguous - id.examples.len()
            )?;
        }
        Ok(())
    }

    /// Calibration over the panel, when results were given.
    fn fmt_calibration(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.calibration {
            None => writeln!(
                f,
                "calibration: no results given (--results R … from several solvers)"
            )?,
            Some(c) => {
                writeln!(
                    f,
                    "calibration (panel: {}; {} instances scored)",
                    c.panel.join(", "),
                    c.instances
                )?;
                let bars: Vec<String> = c
                    .histogram
                    .iter()
                    .map(|b| format!("{:.1}–{:.1}: {}", b.lo, b.hi, b.count))
                    .collect();
                writeln!(f, "  mean score histogram   {}", bars.join("  "))?;
                writeln!(
                    f,
                    "  every solver 0: {}   every solver 1: {}   in [0.2, 0.8]: {}",
                    c.all_zero, c.all_one, c.in_useful_range
                )?;
                let mut flagged: std::collections::BTreeMap<(&str, &str), Vec<String>> =
                    std::collections::BTreeMap::new();
                for s in &c.slices {
                    if let Some(flag) = &s.flag {
                        flagged
                            .entry((s.kind.as_str(), flag.as_str()))
                            .or_default()
                            .push(format!("{} (n={})", s.key, s.instances));
                    }
                }
                writeln!(
                f,
                "  collapsed slices (≥ {:.0}% of the slice solved by every solver, or by none; slices of ≥ {} instances):{}",
                c.collapse * 100.0,
                super::calibration::MIN_SLICE,
                if flagged.is_empty() { " none" } else { "" }
            )?;
                for ((kind, flag), keys) in &flagged {
                    writeln!(f, "      {flag:<12} {kind} {}", keys.join(", "))?;
                }
            }
        }
        Ok(())
    }

    /// The problems of the inputs that were not fatal.
    fn fmt_warnings(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if !self.warnings.is_empty() {
            writeln!(f, "warnings")?;
            for w in &self.warnings {
                writeln!(f, "  {w}")?;
            }
        }
        Ok(())
    }
}
