//! Grouping the records of a responses file by instance: each record located in the
//! dataset ([`Locator`]: by id, by the authors' index, and by the example inputs a record
//! carries), unknown ids and repeats counted (the first occurrence wins).

use super::{InstanceRef, LineIssue, ResponseRecord, Responses};
use crate::instance::Instance;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// Finds the instance of the dataset a response record is for.
///
/// A record names its instance by id, or (the authors' result records) by its position
/// in the dataset, which is all an authors' dataset has for an id; such a record also
/// carries the instance's example inputs. Those are checked: a record whose inputs are
/// not those of the instance it names is for the instance that has them (the same
/// results read against the dataset in another order), or, when no instance or several
/// have them, for none (counted as unknown, with the reason).
#[derive(Debug)]
pub(crate) struct Locator<'a> {
    dataset: &'a [Instance],
    position: HashMap<&'a str, usize>,
    by_inputs: HashMap<&'a [String], Vec<usize>>,
}

impl<'a> Locator<'a> {
    /// The locator of `dataset`'s instances.
    pub(crate) fn new(dataset: &'a [Instance]) -> Self {
        let mut by_inputs: HashMap<&[String], Vec<usize>> = HashMap::new();
        for (k, inst) in dataset.iter().enumerate() {
            by_inputs.entry(&inst.inputs).or_default().push(k);
        }
        Locator {
            dataset,
            position: dataset
                .iter()
                .enumerate()
                .map(|(k, inst)| (inst.id.as_str(), k))
                .collect(),
            by_inputs,
        }
    }

    /// The position of the instance with id `id`.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.position.get(id).copied()
    }

    /// The position in the dataset of the instance the record naming `instance` (and
    /// stating `inputs`, if it does) is for, or why there is none.
    pub(crate) fn locate(
        &self,
        instance: &InstanceRef,
        inputs: Option<&[String]>,
    ) -> Result<usize, String> {
        let named = match instance {
            InstanceRef::Id(id) => self.position(id),
            InstanceRef::Index(i) => Some(*i).filter(|i| *i < self.dataset.len()),
        };
        let Some(inputs) = inputs else {
            return named.ok_or_else(|| self.unknown(instance));
        };
        if let Some(k) = named.filter(|&k| self.dataset[k].inputs == inputs) {
            return Ok(k);
        }
        match self.by_inputs.get(inputs).map(Vec::as_slice) {
            Some(&[k]) => Ok(k),
            Some(several) => Err(format!(
                "its example inputs are those of {} instances ({}), none of them {}: cannot tell which it is for",
                several.len(),
                several
                    .iter()
                    .map(|&k| format!("'{}'", self.dataset[k].id))
                    .collect::<Vec<_>>()
                    .join(", "),
                describe(instance)
            )),
            None => Err(match named {
                Some(_) => format!(
                    "its example inputs are not those of {} nor of any instance of the dataset",
                    describe(instance)
                ),
                None => format!(
                    "{}, and no instance of the dataset has its example inputs",
                    self.unknown(instance)
                ),
            }),
        }
    }

    /// Why `instance` names no instance of the dataset.
    fn unknown(&self, instance: &InstanceRef) -> String {
        match instance {
            InstanceRef::Id(id) => format!("id '{id}' is not in the dataset"),
            InstanceRef::Index(i) => format!(
                "index {i} is past the dataset's {} instances",
                self.dataset.len()
            ),
        }
    }
}

/// How a record names its instance, for messages.
fn describe(instance: &InstanceRef) -> String {
    match instance {
        InstanceRef::Id(id) => format!("id '{id}'"),
        InstanceRef::Index(i) => format!("index {i}"),
    }
}

/// Groups response records by instance, locating each in `dataset` ([`Locator`]) and
/// recording unknown ids and duplicates (the first occurrence wins).
#[derive(Debug)]
pub(crate) struct ResponseCollector<'a, T = String> {
    locator: Locator<'a>,
    whole: HashMap<String, usize>,
    samples: HashMap<String, BTreeMap<usize, (usize, T)>>,
    out: Responses<T>,
}

impl<'a, T: Default> ResponseCollector<'a, T> {
    /// An empty collection for `dataset`.
    pub(crate) fn new(dataset: &'a [Instance]) -> Self {
        ResponseCollector {
            locator: Locator::new(dataset),
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
        let id = match self
            .locator
            .locate(&record.instance, record.inputs.as_deref())
        {
            Ok(k) => self.locator.dataset[k].id.clone(),
            Err(message) => {
                self.out.unknown.push(LineIssue {
                    line,
                    id: match &record.instance {
                        InstanceRef::Id(id) => id.clone(),
                        InstanceRef::Index(i) => format!("index {i}"),
                    },
                    message,
                });
                return;
            }
        };
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

    fn with_inputs(id: &str, inputs: &[&str]) -> Instance {
        let mut inst = instance(id);
        inst.inputs = inputs.iter().map(|s| s.to_string()).collect();
        inst.outputs = inst.inputs.clone();
        inst
    }

    /// The authors' records name their instance by position; their inputs say which it is.
    #[test]
    fn authors_records_are_located_by_their_inputs() {
        let dataset = vec![
            with_inputs("0", &["ab"]),
            with_inputs("1", &["cd"]),
            with_inputs("2", &["ef"]),
            with_inputs("3", &["ef"]),
        ];
        let locator = Locator::new(&dataset);
        let inputs = |s: &str| vec![s.to_owned()];
        let at = |i: usize, s: &str| locator.locate(&InstanceRef::Index(i), Some(&inputs(s)));
        assert_eq!(at(0, "ab"), Ok(0));
        assert_eq!(
            at(0, "cd"),
            Ok(1),
            "the same results, the dataset in another order"
        );
        assert_eq!(at(7, "cd"), Ok(1));
        assert_eq!(at(3, "ef"), Ok(3), "the index decides between equal inputs");
        let e = at(0, "ef").unwrap_err();
        assert!(
            e.contains("2 instances ('2', '3'), none of them index 0"),
            "{e}"
        );
        let e = at(1, "zz").unwrap_err();
        assert!(
            e.contains("not those of index 1 nor of any instance"),
            "{e}"
        );
        let e = at(9, "zz").unwrap_err();
        assert!(
            e.starts_with("index 9 is past the dataset's 4 instances, and no instance"),
            "{e}"
        );
        assert_eq!(locator.locate(&InstanceRef::Index(2), None), Ok(2));
        let id = InstanceRef::Id("1".into());
        assert_eq!(locator.locate(&id, Some(&inputs("ab"))), Ok(0));
    }

    #[test]
    fn collector_counts_unknown_and_duplicates() {
        let dataset = vec![instance("a"), instance("b")];
        let mut c = ResponseCollector::new(&dataset);
        let rec = |i: InstanceRef, sample: Option<usize>, text: &str| ResponseRecord {
            instance: i,
            sample,
            responses: vec![text.to_owned()],
            inputs: None,
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
