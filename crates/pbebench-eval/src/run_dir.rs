//! Opening a run directory: a run made with the same dataset and answer parameters is
//! continued; one made with others is refused, with the list of differences, or moved
//! aside with `--force-new`.

use crate::fingerprint::names_dataset;
use crate::progress::EvalProgress;
use crate::store::{DatasetRef, RunStore};
use crate::{EvalConfig, EvalError};
use serde_json::Value;

/// Opens the run store, checking that an existing run was made with the same dataset and
/// answer parameters; with `--force-new` a different run is moved aside instead. A run
/// with no sample yet may always be re-parameterised.
pub(crate) fn open_run(
    config: &EvalConfig,
    dataset: &DatasetRef,
    answer: &Value,
    progress: &dyn EvalProgress,
) -> Result<RunStore, EvalError> {
    let dir = &config.run_dir;
    let store = RunStore::open(dir)?;
    let Some(old) = store.manifest()? else {
        return Ok(store);
    };
    let mut differences = Vec::new();
    if !names_dataset(&old.dataset.sha256, &dataset.sha256, &config.dataset)? {
        differences.push(format!(
            "  dataset: {} (sha256 {}…) vs {} (sha256 {}…)",
            old.dataset.path,
            &old.dataset.sha256[..12.min(old.dataset.sha256.len())],
            dataset.path,
            &dataset.sha256[..12]
        ));
    }
    differences.extend(value_differences(&old.answer, answer));
    // Stored turns (of episodes, or a search's step samples) were answered under the old
    // parameters too.
    if differences.is_empty() || (store.samples()?.is_empty() && !store.has_turns()?) {
        return Ok(store);
    }
    if !config.force_new {
        return Err(EvalError::Mismatch {
            dir: dir.clone(),
            differences: differences.join("\n"),
        });
    }
    drop(store);
    let moved = RunStore::archive(dir)?;
    progress.moved_aside(&moved);
    Ok(RunStore::open(dir)?)
}

/// "  key: old vs new" for every top-level key whose value differs.
fn value_differences(old: &Value, new: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let (o, n) = (
        old.as_object().unwrap_or(&empty),
        new.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = o.keys().chain(n.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (a, b) = (
                o.get(k).unwrap_or(&Value::Null),
                n.get(k).unwrap_or(&Value::Null),
            );
            (a != b).then(|| format!("  {k}: the run has {a}, this command asks for {b}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_each_parameter() {
        let d = value_differences(
            &json!({"model": "a", "temperature": 0.6, "top_p": null}),
            &json!({"model": "a", "temperature": 0.7, "seed": 1}),
        );
        assert_eq!(
            d,
            vec![
                "  seed: the run has null, this command asks for 1",
                "  temperature: the run has 0.6, this command asks for 0.7",
            ]
        );
    }
}
