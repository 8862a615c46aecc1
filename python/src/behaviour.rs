//! `reward(..., kind="behaviour")`: the behavioural reward, the core's
//! [`pbebench::behaviour_rewards`] (the `behaviour` of scoring), per distinct instance, in
//! parallel without the GIL.

use crate::convert::{self, Name};
use crate::pool;
use pbebench::{behaviour_rewards, Instance};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyMapping};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// The behavioural reward of each of `texts` against its instance (`instances`, named
/// `name`: one dict for all, or one per text, the `k`th named `item_name(k)`). Each
/// distinct instance (the same object, or equal content) prepares its gold once and grades
/// its responses together. An undecided comparison, or a gold that changes no input,
/// counts as 0.0 (see `reward`'s docstring): trainers need a float.
pub fn rewards<'n>(
    py: Python<'_>,
    instances: &Bound<'_, PyAny>,
    name: Name<'n>,
    item_name: &dyn Fn(usize) -> Name<'n>,
    texts: &[&str],
) -> PyResult<Vec<f64>> {
    let mut distinct: Vec<Instance> = Vec::new();
    let mut by_content: FxHashMap<String, usize> = FxHashMap::default();
    let mut by_object: FxHashMap<usize, usize> = FxHashMap::default();
    let mut read = |item: &Bound<'_, PyAny>, name: Name<'_>| -> PyResult<usize> {
        // The list keeps its items alive, so an address names one object during the call.
        let address = item.as_ptr() as usize;
        if let Some(&k) = by_object.get(&address) {
            return Ok(k);
        }
        let instance = convert::instance(item, name)?;
        if instance.cascade.is_none() {
            return Err(PyValueError::new_err(format!(
                "{name}: no gold cascade ('cascade'): kind=\"behaviour\" compares the answer \
                 with it"
            )));
        }
        let key = serde_json::to_string(&instance).expect("instances serialise");
        let k = *by_content.entry(key).or_insert_with(|| {
            distinct.push(instance);
            distinct.len() - 1
        });
        by_object.insert(address, k);
        Ok(k)
    };
    let which: Vec<usize> = if instances.cast::<PyMapping>().is_ok() {
        vec![read(instances, name)?; texts.len()]
    } else {
        let list = instances.cast_exact::<PyList>().ok();
        let items: Vec<Bound<'_, PyAny>> = match list {
            Some(list) => list.iter().collect(),
            None => convert::items(instances, name, "instance dicts (or one dict)")?,
        };
        if items.len() != texts.len() {
            let rows = matches!(item_name(0), Name::Row(..));
            return Err(crate::count_mismatch(name, items.len(), texts.len(), rows));
        }
        items
            .iter()
            .enumerate()
            .map(|(k, item)| read(item, item_name(k)))
            .collect::<PyResult<_>>()?
    };
    // The responses of each distinct instance, in order.
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); distinct.len()];
    for (k, &i) in which.iter().enumerate() {
        groups[i].push(k);
    }
    let pool = pool()?;
    Ok(py.detach(|| {
        pool.install(|| {
            let graded: Vec<Vec<Option<f64>>> = (groups.par_iter().zip(&distinct))
                .map(|(ks, instance)| {
                    let given: Vec<&str> = ks.iter().map(|&k| texts[k]).collect();
                    behaviour_rewards(instance, &given).expect("every instance has a gold")
                })
                .collect();
            let mut rewards = vec![0.0; texts.len()];
            for (ks, values) in groups.iter().zip(graded) {
                for (&k, value) in ks.iter().zip(values) {
                    rewards[k] = value.unwrap_or(0.0);
                }
            }
            rewards
        })
    }))
}
