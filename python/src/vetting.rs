//! `vet()`: one instance through the vetting loop of `pbebench vet` (the panel's attacks,
//! each fitting answer that differs from the gold adding its shortest counterexample), the
//! same as the command line gives for that instance, without the GIL.

use crate::convert::{self, to_py, Arg, Name};
use crate::pool;
use pbebench_vet::{vet_instance, Panel, VetField, VetOptions, DEFAULT_MAX_EXAMPLES};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Vet one instance: the panel of attackers (`pbebench vet`'s, by default) looks for an
/// answer that fits the visible examples but differs from the gold somewhere; each one
/// found adds its shortest counterexample as a visible example, until no attacker finds
/// one (the instance is kept) or the cap is reached (it is not).
///
/// instance: an instance dict with its gold cascade ('cascade').
/// max_examples: the most visible examples the instance may reach (default 12, as
///     `pbebench vet`; the full-vetted preset uses 70).
/// panel: the attackers, as `pbebench vet --panel` takes them (default: its default panel).
/// seed: the seed of the solvers' example orders.
///
/// Returns (vetted, reason): the vetted instance dict (the instance with the added
/// examples among its visible ones, and a 'repair' record of what was added and why) and
/// None, or None and why the instance is not kept (ambiguous at the cap, recovered by a
/// shortcut baseline, ...). The same instance and arguments give the same result. A
/// missing gold, a gold that fails its examples, or more visible examples than the cap
/// raise ValueError.
#[pyfunction]
#[pyo3(
    signature = (instance, max_examples = Arg::Default, panel = None, seed = Arg::Default),
    text_signature = "(instance, max_examples=12, panel=None, seed=0)"
)]
fn vet<'py>(
    py: Python<'py>,
    instance: &Bound<'py, PyAny>,
    max_examples: Arg<'py>,
    panel: Option<&Bound<'py, PyAny>>,
    seed: Arg<'py>,
) -> PyResult<Bound<'py, PyTuple>> {
    let arg = |arg| Name::arg("vet", arg);
    let inst = convert::instance(instance, arg("instance"))?;
    let max_examples = max_examples.or(DEFAULT_MAX_EXAMPLES, |v| {
        convert::count(v, arg("max_examples"))
    })?;
    let panel = match panel {
        None => Panel::default(),
        Some(text) => {
            let text = convert::string(text, arg("panel"))?;
            text.parse::<Panel>()
                .map_err(|e| PyValueError::new_err(format!("{}: {e}", arg("panel"))))?
        }
    };
    let seed = seed.or(0, |v| convert::count(v, arg("seed")))? as u64;
    let options = VetOptions {
        panel,
        max_examples,
        replacement_attempts: 0,
        seed,
        params: None,
    };
    let pool = pool()?;
    let outcome = py
        .detach(|| pool.install(|| vet_instance(&inst, &options)))
        .map_err(|e| {
            // The library names its options by field; here they are arguments of vet().
            let name = |field: VetField| match field {
                VetField::MaxExamples => "max_examples",
                VetField::ReplacementAttempts => "replacement_attempts",
            };
            PyValueError::new_err(format!("vet(): {}", e.message(name)))
        })?;
    let none = py.None().into_bound(py);
    match outcome {
        Ok(kept) => PyTuple::new(py, [to_py(py, &kept)?, none]),
        Err(why) => PyTuple::new(py, [none, why.into_pyobject(py)?.into_any()]),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(vet, m)?)?;
    Ok(())
}
