//! Grouping the records of a responses file by instance: the authors' indices resolved,
//! unknown ids and repeats counted (the first occurrence wins).

use super::{InstanceRef, LineIssue, ResponseRecord, Responses};
use crate::instance::Instance;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

/// Groups response records by instance, resolving the authors' indices against `dataset`
/// and recording unknown ids and duplicates (the first occurrence wins).
#[derive(Debug)]
pub(crate) struct ResponseCollector<'a, T = String> {
    ids: HashSet<&'a str>,
    dataset: &'a [Instance],
    whole: HashMap<String, usize>,
    samples: HashMap<String, BTreeMap<usize, (usize, T)>>,
    out: Responses<T>,
}

impl<'a, T: Default> ResponseCollector<'a, T> {
    /// An empty collection for `dataset`.
    pub(crate) fn new(dataset: &'a [Instance]) -> Self {
        ResponseCollector {
            ids: dataset.iter().map(|i| i.id.as_str()).collect(),
            dataset,
            whole: HashMap::new(),
            samples: HashMap::new(),
            out: Responses {
                path: PathBuf::new(),
                by_id: HashMap::new(),
                unknown: Vec::new(),
                duplicates: Vec::new(),
            },
        }
    }

    /// Adds the record read from 1-based `line`.
    pub(crate) fn add(&mut self, line: usize, record: ResponseRecord<T>) {
        let id = match record.instance {
            InstanceRef::Id(id) => id,
            InstanceRef::Index(i) => match self.dataset.get(i) {
                Some(inst) => inst.id.clone(),
                None => {
                    self.out.unknown.push(LineIssue {
                        line,
                        id: format!("index {i}"),
                        message: format!(
                            "index {i} is past the dataset's {} instances",
                            self.dataset.len()
                        ),
                    });
                    return;
                }
            },
        };
        if !self.ids.contains(id.as_str()) {
            self.out.unknown.push(LineIssue {
                message: format!("id '{id}' is not in the dataset"),
                line,
                id,
            });
            return;
        }
        let first = self
            .whole
            .get(&id)
            .copied()
            .or_else(|| match record.sample {
                Some(j) => self
                    .samples
                    .get(&id)
                    .and_then(|m| m.get(&j))
                    .map(|(l, _)| *l),
                None => self
                    .samples
                    .get(&id)
                    .and_then(|m| m.values().map(|(l, _)| *l).min()),
            });
        if let Some(first) = first {
            let what = record
                .sample
                .map_or(String::new(), |j| format!(" sample {j}"));
            self.out.duplicates.push(LineIssue {
                message: format!("id '{id}'{what} was already given on line {first}"),
                line,
                id,
            });
            return;
        }
        match record.sample {
            Some(j) => {
                let text = record.responses.into_iter().next().unwrap_or_default();
                self.samples.entry(id).or_default().insert(j, (line, text));
            }
            None => {
                self.whole.insert(id.clone(), line);
                self.out.by_id.insert(id, record.responses);
            }
        }
    }

    /// The grouped responses.
    pub(crate) fn finish(mut self) -> Responses<T> {
        for (id, samples) in self.samples {
            self.out
                .by_id
                .insert(id, samples.into_values().map(|(_, t)| t).collect());
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(id: &str) -> Instance {
        serde_json::from_value(serde_json::json!({
            "id": id, "inputs": ["a"], "outputs": ["b"],
            "max_rules": 1, "max_rule_len": 1, "alphabet": "ab",
        }))
        .unwrap()
    }

    #[test]
    fn collector_counts_unknown_and_duplicates() {
        let dataset = vec![instance("a"), instance("b")];
        let mut c = ResponseCollector::new(&dataset);
        let rec = |i: InstanceRef, sample: Option<usize>, text: &str| ResponseRecord {
            instance: i,
            sample,
            responses: vec![text.to_owned()],
        };
        c.add(1, rec(InstanceRef::Id("a".into()), None, "1"));
        c.add(2, rec(InstanceRef::Id("a".into()), None, "2"));
        c.add(3, rec(InstanceRef::Id("zz".into()), None, "3"));
        c.add(4, rec(InstanceRef::Index(1), Some(1), "b1"));
        c.add(5, rec(InstanceRef::Index(1), Some(0), "b0"));
        c.add(6, rec(InstanceRef::Index(1), Some(1), "again"));
        c.add(7, rec(InstanceRef::Index(9), None, "x"));
        let r = c.finish();
        assert_eq!(r.by_id["a"], vec!["1"]);
        assert_eq!(r.by_id["b"], vec!["b0", "b1"]);
        let lines = |v: &[LineIssue]| v.iter().map(|i| i.line).collect::<Vec<_>>();
        assert_eq!(lines(&r.unknown), vec![3, 7]);
        assert_eq!(lines(&r.duplicates), vec![2, 6]);
        assert!(
            r.duplicates[1].message.contains("line 4"),
            "{:?}",
            r.duplicates
        );
    }
}
