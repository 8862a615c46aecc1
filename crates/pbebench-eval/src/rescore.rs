//! `--rescore`: every figure of a run recomputed from its store, without a request.

use crate::fingerprint::{names_dataset, sha256_file};
use crate::reorder::Loaded;
use crate::sample::Prices;
use crate::store::RunStore;
use crate::{EvalError, RunOutcome};
use pbebench::BlockChoice;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Recomputes every figure of a run from its stored responses, without a request, and
/// writes them to its `results.json`.
/// `dataset` overrides the path in the manifest (the file must be the same: its hash is
/// checked).
pub fn rescore(
    run_dir: &Path,
    dataset: Option<&Path>,
    block: BlockChoice,
    prices: Option<Prices>,
) -> Result<RunOutcome, EvalError> {
    let store = RunStore::open_existing(run_dir)?;
    let manifest = store.manifest()?.ok_or_else(|| {
        EvalError::Parameter(format!(
            "{}: the run store has no manifest; it was never started",
            run_dir.display()
        ))
    })?;
    let path = dataset.map_or_else(|| PathBuf::from(&manifest.dataset.path), Path::to_path_buf);
    // A file that is no dataset is not the one evaluated either (said before the reader's
    // complaint, unless its bytes are the very file the run read).
    let loaded = crate::reorder::load(&path);
    let same = match &loaded {
        Ok(loaded) => names_dataset(&manifest.dataset.sha256, &loaded.dataset.sha256, &path)?,
        Err(_) => sha256_file(&path)? == manifest.dataset.sha256,
    };
    if !same {
        return Err(EvalError::Parameter(format!(
            "{}: this is not the dataset the run evaluated (its SHA-256 differs from the manifest's {}); pass the original file with --dataset",
            path.display(),
            manifest.dataset.sha256
        )));
    }
    let Loaded {
        instances, task, ..
    } = loaded?;
    let stepwise = manifest.answer.get("stepwise").filter(|v| !v.is_null());
    // A step-wise search stores one answer per instance; its samples are per step.
    let k = match stepwise {
        Some(_) => 1,
        None => manifest
            .run
            .get("samples")
            .and_then(Value::as_u64)
            .unwrap_or(1) as u32,
    };
    let prices = prices.unwrap_or_else(|| Prices {
        input: manifest
            .run
            .get("price_in")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        output: manifest
            .run
            .get("price_out")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
    });
    let interactive = manifest
        .answer
        .get("interactive")
        .is_some_and(|v| !v.is_null());
    let strategy = match stepwise {
        Some(params) => Some(crate::Strategy {
            name: "stepwise".to_owned(),
            stepwise: Some(params.clone()),
        }),
        None => (manifest.answer["interactive"]["feedback"] == true).then(|| crate::Strategy {
            name: "feedback".to_owned(),
            stepwise: None,
        }),
    };
    let (results, interactive, reorder) =
        crate::runner::score_task(&task, &instances, &store, k, block, prices, interactive)?;
    RunOutcome {
        run_dir: run_dir.to_path_buf(),
        total: instances.len() * k as usize,
        added: 0,
        stopped: None,
        warnings: Vec::new(),
        results,
        interactive,
        reorder,
        strategy,
    }
    .written()
}
