//! Fingerprints: the SHA-256 that identifies a dataset in a manifest, computed as the
//! journals of `pbebench solve` and `pbebench vet` compute it
//! ([`pbebench_io::dataset_fingerprint`], over the instances read). A manifest written
//! before that names its dataset by the SHA-256 of the file's bytes: that value is still
//! accepted for the same file, so runs started by an older pbebench continue and rescore.

use crate::store::DatasetRef;
use crate::EvalError;
use pbebench::dataset::DatasetError;
use pbebench::Instance;
use std::path::Path;

/// The manifest's name for the dataset read from `path` as `instances`.
pub(crate) fn dataset_ref(path: &Path, instances: &[Instance]) -> DatasetRef {
    DatasetRef {
        path: path.display().to_string(),
        sha256: pbebench_io::dataset_fingerprint(instances),
        instances: instances.len(),
    }
}

/// True when `stated` (a manifest's `dataset.sha256`) names the dataset `fingerprint`
/// read from `path`: it is that fingerprint, or, in a manifest of an older pbebench, the
/// SHA-256 of the file's bytes (read only when the fingerprint differs).
pub(crate) fn names_dataset(
    stated: &str,
    fingerprint: &str,
    path: &Path,
) -> Result<bool, EvalError> {
    Ok(stated == fingerprint || stated == sha256_file(path)?)
}

/// SHA-256 of a file's bytes, lowercase hex: how a manifest of an older pbebench named
/// its dataset.
pub(crate) fn sha256_file(path: &Path) -> Result<String, EvalError> {
    pbebench_io::sha256_file(path).map_err(|error| {
        DatasetError::Io {
            path: path.to_path_buf(),
            error,
        }
        .into()
    })
}

#[cfg(test)]
mod tests {
    use crate::{evaluate, rescore, BlockChoice, EvalConfig, Prices, SolverCommand, SolverSpec};
    use std::path::Path;
    use std::time::Duration;

    /// A run made by an older pbebench (`testdata/results-format-1/run`, whose manifest names
    /// its dataset by the file's bytes) is continued and rescored with that dataset, and
    /// then names it by its instances.
    #[test]
    fn a_run_of_an_older_version_continues() {
        let old = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/results-format-1");
        let dir = tempfile::tempdir().unwrap();
        let (dataset, run) = (dir.path().join("data.jsonl"), dir.path().join("run"));
        std::fs::copy(old.join("data.jsonl"), &dataset).unwrap();
        std::fs::create_dir(&run).unwrap();
        std::fs::copy(old.join("run/run.sqlite"), run.join("run.sqlite")).unwrap();
        let stated = |run: &Path| {
            let store = crate::store::RunStore::open_existing(run).unwrap();
            store.manifest().unwrap().unwrap().dataset.sha256
        };
        assert_eq!(stated(&run), pbebench_io::sha256_file(&dataset).unwrap());
        let again = rescore(&run, Some(&dataset), BlockChoice::Last, None).unwrap();
        assert_eq!(again.results.answered, 32);
        let config = EvalConfig {
            dataset: dataset.clone(),
            run_dir: run.clone(),
            solver: SolverSpec::Command(SolverCommand {
                command: "./solver.sh".to_owned(),
                timeout: Duration::from_secs(600),
            }),
            samples: 2,
            concurrency: 16,
            prices: Prices::default(),
            max_cost: None,
            force_new: false,
            block: BlockChoice::Last,
            interactive: None,
            stepwise: None,
        };
        let continued = evaluate(&config).unwrap();
        assert_eq!((continued.added, continued.total), (0, 32));
        let instances = pbebench::dataset::read_dataset(&dataset).unwrap();
        assert_eq!(stated(&run), pbebench_io::dataset_fingerprint(&instances));
        // Another file is refused, old manifest or new.
        std::fs::write(&dataset, "{}\n").unwrap();
        let err = rescore(&run, Some(&dataset), BlockChoice::Last, None).unwrap_err();
        assert!(
            err.to_string()
                .contains("not the dataset the run evaluated"),
            "{err}"
        );
    }
}
