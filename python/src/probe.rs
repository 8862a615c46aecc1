//! `pbebench.Oracle`: the core's sealed oracle of interactive mode
//! ([`pbebench::probe::Oracle`]), so that a Python harness (the inspect_ai tools) applies
//! the budget rules of `pbebench eval --interactive` by the same code.

use crate::convert::{self, to_py, Arg, Name};
use pbebench::probe::{grade, Oracle, OracleError, Refusal, DEFAULT_PROBE_LEN};
use pbebench::{parse_block, Cascade, Instance, Rule};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

create_exception!(
    pbebench,
    ProbeRefused,
    PyValueError,
    "A run_hidden call the oracle refused (no input, a letter outside the alphabet, an input too long, an output past the length bound); nothing was run and no budget was spent. The message is meant for the solver."
);
create_exception!(
    pbebench,
    OverBudget,
    ProbeRefused,
    "A run_hidden call with more inputs than the probe budget has left (refused whole); interactive mode ends the episode on it."
);

/// The hidden cascade of an instance, sealed: it runs inputs of a solver's choice and
/// tests candidate cascades, and never returns the cascade (the rules of
/// `pbebench eval --interactive`, docs/interactive.md).
///
/// instance: a dict in pbebench's instance schema with a gold cascade.
/// probe_budget: the probe inputs a solver may run in all.
/// max_probe_len: the longest probe input accepted (1 to 4096; `pbebench eval
///     --max-probe-len`).
///
/// Probe inputs may have up to max(max_probe_len, 2 × the longest visible input)
/// characters, and every intermediate string is bounded (length_bound), so a cascade that
/// grows without bound fails instead of exhausting memory. Raises ValueError for an
/// instance without a gold cascade (real data cannot be probed).
#[pyclass(module = "pbebench", name = "Oracle")]
pub struct PyOracle {
    oracle: Oracle,
    instance: Instance,
}

#[pymethods]
impl PyOracle {
    #[new]
    #[pyo3(
        signature = (instance, probe_budget, max_probe_len = Arg::Default),
        text_signature = "(instance, probe_budget, max_probe_len=32)"
    )]
    fn new(
        instance: &Bound<'_, PyAny>,
        probe_budget: &Bound<'_, PyAny>,
        max_probe_len: Arg<'_>,
    ) -> PyResult<Self> {
        let arg = |arg| Name::arg("Oracle", arg);
        let instance = convert::instance(instance, arg("instance"))?;
        let budget = convert::count(probe_budget, arg("probe_budget"))?;
        let len = max_probe_len.or(DEFAULT_PROBE_LEN, |v| {
            convert::count(v, arg("max_probe_len"))
        })?;
        let oracle = Oracle::with_probe_len(&instance, budget, len).map_err(|e| {
            let name = match e {
                OracleError::ProbeLen(_) => "max_probe_len",
                OracleError::NoGold(_) => "instance",
            };
            PyValueError::new_err(format!("{}: {e}", arg(name)))
        })?;
        Ok(PyOracle { oracle, instance })
    }

    /// What a solver may see: {"id", "inputs", "outputs", "max_rules", "max_rule_len",
    /// "alphabet", "probe_budget", "max_probe_len"}; never the gold or the held-out examples.
    #[getter]
    fn task<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.oracle.task())
    }

    /// Runs the hidden cascade on inputs (a list of strings) and returns their outputs.
    /// Every input counts against the budget, a repeated one too. A call with an input
    /// outside the alphabet or too long raises ProbeRefused, one asking for more inputs
    /// than are left raises OverBudget; a refused call runs nothing and costs nothing.
    fn run_hidden(&mut self, inputs: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let inputs = convert::strings(inputs, Name::arg("Oracle.run_hidden", "inputs"))?;
        self.oracle
            .run_hidden(&inputs)
            .map_err(|refusal| match refusal {
                Refusal::OverBudget { .. } => OverBudget::new_err(refusal.to_string()),
                other => ProbeRefused::new_err(other.to_string()),
            })
    }

    /// Which of the visible examples and the probed inputs a candidate gets wrong:
    /// {"checked", "passed", "wrong": [{"input", "expected", "got"}], "rule_problems"}.
    /// Rules that break the instance's limits are left out (and listed), as in scoring.
    ///
    /// cascade: a list of rule strings ("replace('ab', 'c')"), a list of [pattern,
    ///     replacement] pairs, or the text of a Python list of either. Unreadable rules
    ///     raise ValueError (nothing is tested).
    fn test_cascade<'py>(
        &mut self,
        py: Python<'py>,
        cascade: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let cascade = candidate(cascade, Name::arg("Oracle.test_cascade", "cascade"))?;
        let feedback = self.oracle.test_cascade(&cascade);
        let mut value = serde_json::json!(feedback);
        value["all_pass"] = feedback.all_pass().into();
        to_py(py, &value)
    }

    /// How a final cascade does, as `pbebench eval --interactive` grades an episode and
    /// `pbebench score` scores the same cascade written as an answer (one grading path):
    /// {"pass": it reproduces every visible example, "heldout_pass": it reproduces every
    /// held-out example whose input was not probed (None when none is left),
    /// "heldout_unprobed", "heldout_excluded", "recovered" and "behaviour" (over the
    /// instance's input space, as score() grades them), "rules_left_out"}. Rules past
    /// max_rules or breaking a limit of the instance are left out, as scoring leaves them
    /// out. cascade: as for test_cascade.
    fn grade<'py>(
        &self,
        py: Python<'py>,
        cascade: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let cascade = candidate(cascade, Name::arg("Oracle.grade", "cascade"))?;
        let g = grade(&self.instance, &cascade, self.oracle.probes());
        let value = serde_json::json!({
            "pass": g.pass,
            "heldout_pass": g.heldout_pass,
            "heldout_unprobed": g.heldout_unprobed,
            "heldout_excluded": g.heldout_excluded,
            "recovered": g.recovered,
            "behaviour": g.behaviour,
            "rules_left_out": g.rules_left_out,
        });
        to_py(py, &value)
    }

    /// A candidate cascade as test_cascade and grade read it: a list of [pattern,
    /// replacement] pairs. Raises ValueError for unreadable rules.
    #[staticmethod]
    fn read_cascade<'py>(
        py: Python<'py>,
        cascade: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &candidate(cascade, Name::arg("Oracle.read_cascade", "cascade"))?,
        )
    }

    /// Every probe answered so far, in order: [{"input", "output"}].
    #[getter]
    fn probes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.oracle.probes())
    }

    /// Probe inputs used.
    #[getter]
    fn probes_used(&self) -> usize {
        self.oracle.probes_used()
    }

    /// Probe inputs left.
    #[getter]
    fn budget_left(&self) -> usize {
        self.oracle.budget_left()
    }

    /// Candidates tested so far.
    #[getter]
    fn tests_run(&self) -> usize {
        self.oracle.tests_run()
    }

    /// The longest intermediate string allowed when a cascade is applied, in bytes.
    #[getter]
    fn length_bound(&self) -> usize {
        self.oracle.length_bound()
    }

    fn __repr__(&self) -> String {
        let task = self.oracle.task();
        format!(
            "Oracle(id={:?}, probes_used={}, budget_left={}, tests_run={})",
            task.id,
            self.oracle.probes_used(),
            self.oracle.budget_left(),
            self.oracle.tests_run()
        )
    }
}

/// A candidate cascade as a solver gives it: rule strings, pairs, or the text of a list.
fn candidate(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<Cascade> {
    if let Ok(text) = obj.cast::<PyString>() {
        return cascade_of_text(&text.to_cow()?, name);
    }
    let list = obj.cast::<PyList>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a list of rule strings such as [\"replace('ab', 'c')\"] or of [pattern, replacement] pairs, not {}",
            convert::type_name(obj)
        ))
    })?;
    if list.iter().all(|item| item.is_instance_of::<PyString>()) {
        let rules = convert::strings(obj, name)?;
        let text = serde_json::to_string(&rules).expect("strings serialise");
        return cascade_of_text(&text, name);
    }
    convert::cascade(obj, name)
}

/// The rules of a Python list literal (of rule strings or pairs); `[]` is the identity.
fn cascade_of_text(text: &str, name: Name<'_>) -> PyResult<Cascade> {
    let body = text.trim();
    if body
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim()
        .is_empty()
    {
        return Ok(Cascade::identity());
    }
    let rules = parse_block(body).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
    rules
        .into_iter()
        .enumerate()
        .map(|(k, rule)| {
            let name = Name::Index(&name, k);
            let (a, b) = rule.map_err(|p| PyValueError::new_err(format!("{name}: {p}")))?;
            Rule::new(a, b).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
        })
        .collect::<PyResult<Vec<Rule>>>()
        .map(Cascade::new)
}

/// Registers the oracle and its exceptions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyOracle>()?;
    m.add("ProbeRefused", m.py().get_type::<ProbeRefused>())?;
    m.add("OverBudget", m.py().get_type::<OverBudget>())?;
    m.add("DEFAULT_PROBE_LEN", DEFAULT_PROBE_LEN)?;
    Ok(())
}
