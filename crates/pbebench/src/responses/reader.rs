//! Reading a responses file: one line at a time in any accepted spelling
//! ([`parse_response_line`]), or a whole file, a block of lines at a time in parallel
//! ([`read_responses`], [`read_responses_with`]). The common line `{"id", "responses"}` of
//! an instance of the dataset takes a shortcut: its responses are handed to the caller
//! where the JSON reader decoded them, without a copy or a JSON tree.

use super::{
    InstanceRef, LineError, Locator, ResponseCollector, ResponseRecord, Responses, ResponsesError,
};
use crate::instance::Instance;
use rayon::prelude::*;
use serde::Deserialize;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// Reads one line of a responses file, in any accepted format: `{"id", "response"}`,
/// `{"id", "sample", "response"}`, `{"id", "responses": […]}`, or the authors' result
/// record `{"input": {…, "index": N | "N_j"}, "outputs": […]}`. A response is a string,
/// `null` (empty: no answer), or a message object with `content` (or `text`); thinking
/// fields (`reasoning_content`, `chains_of_thought`) are never read.
pub fn parse_response_line(line: &str) -> Result<ResponseRecord, LineError> {
    match plain_response_line(line) {
        Some(record) => Ok(record),
        None => parse_response_line_generally(line),
    }
}

/// The common line `{"id": "…", "responses": ["…", …]}` (or `"response": "…"`) read
/// straight into its record, without building a JSON tree. `None` for any other line
/// (other fields, numbers, nulls, messages, duplicate keys, errors), which
/// [`parse_response_line_generally`] reads, deciding and wording errors as it always did.
fn plain_response_line(line: &str) -> Option<ResponseRecord> {
    if !line.trim_start().starts_with('{') {
        return None;
    }
    let plain = serde_json::from_str::<PlainLine>(line).ok()?;
    let responses = match (plain.response, plain.responses) {
        (Some(r), None) => vec![r],
        (None, Some(rs)) => rs,
        _ => return None,
    };
    Some(ResponseRecord {
        instance: InstanceRef::Id(plain.id),
        sample: None,
        responses,
        inputs: None,
    })
}

/// Whether `line` is read by the shortcut for common lines (for the writer's tests).
#[cfg(test)]
pub(super) fn takes_shortcut(line: &str) -> bool {
    plain_response_line(line).is_some()
}

/// [`parse_response_line`] through a JSON tree: every format, every error.
fn parse_response_line_generally(line: &str) -> Result<ResponseRecord, LineError> {
    let value: Value = serde_json::from_str(line).map_err(|e| {
        let message = e.to_string();
        let what = message
            .rfind(" at line ")
            .map_or(&message[..], |i| &message[..i]);
        LineError::MalformedJson {
            column: e.column(),
            what: what.to_owned(),
        }
    })?;
    let Value::Object(mut map) = value else {
        return Err(LineError::NotAnObject);
    };
    if let Some(id) = map.get("id") {
        let instance = InstanceRef::Id(id_text(id)?);
        let sample = match map.get("sample") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().ok_or(LineError::BadSample)? as usize),
        };
        let responses = match (map.remove("response"), map.remove("responses")) {
            (Some(r), None) => vec![response_text(r)?],
            (None, Some(Value::Array(rs))) => rs
                .into_iter()
                .map(response_text)
                .collect::<Result<_, _>>()?,
            (None, Some(_)) => return Err(LineError::ResponsesNotAList),
            (Some(_), Some(_)) => return Err(LineError::ResponseAndResponses),
            (None, None) => return Err(LineError::NoResponse),
        };
        if sample.is_some() && responses.len() != 1 {
            return Err(LineError::SampleOfSeveral);
        }
        return Ok(ResponseRecord {
            instance,
            sample,
            responses,
            inputs: None,
        });
    }
    if let Some(Value::Object(input)) = map.get("input") {
        let (instance, sample) = match (input.get("id"), input.get("index")) {
            (Some(id), _) => (InstanceRef::Id(id_text(id)?), None),
            (None, Some(Value::Number(n))) => (
                InstanceRef::Index(n.as_u64().ok_or(LineError::BadAuthorsIndex)? as usize),
                None,
            ),
            (None, Some(Value::String(s))) => parse_authors_index(s)?,
            _ => return Err(LineError::NoAuthorsIndex),
        };
        let inputs = authors_inputs(input.get("inputs"))?;
        let responses = match map.remove("outputs") {
            Some(Value::Array(rs)) => rs
                .into_iter()
                .map(response_text)
                .collect::<Result<_, _>>()?,
            _ => return Err(LineError::NoAuthorsOutputs),
        };
        return Ok(ResponseRecord {
            instance,
            sample,
            responses,
            inputs,
        });
    }
    Err(LineError::NoInstance)
}

/// The common response line, as [`parse_response_line`] reads it first: a string id, and
/// a string `response` or a list of strings `responses` (`null` is refused, not absent).
/// The writer's [`super::ResponseLine`] is its first form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainLine {
    id: String,
    #[serde(default, deserialize_with = "present")]
    response: Option<String>,
    #[serde(default, deserialize_with = "present")]
    responses: Option<Vec<String>>,
}

/// A field that is there (absent fields are `None` by `default`), never `null`.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The example inputs an authors' record states in `input.inputs` (a list of strings, or
/// its Python repr as in the authors' hard files); `None` when it states none.
fn authors_inputs(inputs: Option<&Value>) -> Result<Option<Vec<String>>, LineError> {
    let bad = LineError::BadAuthorsInputs;
    match inputs {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or(bad.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(Value::String(repr)) => crate::pylit::parse_str_list(repr)
            .map(Some)
            .map_err(|_| bad),
        Some(_) => Err(bad),
    }
}

fn id_text(v: &Value) -> Result<String, LineError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(LineError::BadId),
    }
}

/// `"12_3"`: instance 12, sample 3 (the authors' runner with several samples).
fn parse_authors_index(s: &str) -> Result<(InstanceRef, Option<usize>), LineError> {
    let bad = || LineError::BadAuthorsIndexText(s.to_owned());
    let (i, j) = match s.split_once('_') {
        Some((i, j)) => (i, Some(j.parse::<usize>().map_err(|_| bad())?)),
        None => (s, None),
    };
    Ok((InstanceRef::Index(i.parse().map_err(|_| bad())?), j))
}

fn response_text(v: Value) -> Result<String, LineError> {
    match v {
        Value::String(s) => Ok(s),
        Value::Null => Ok(String::new()),
        Value::Object(mut m) => match m.remove("content").or_else(|| m.remove("text")) {
            Some(Value::String(s)) => Ok(s),
            Some(Value::Null) => Ok(String::new()),
            _ => Err(LineError::BadMessage),
        },
        _ => Err(LineError::BadResponse),
    }
}

/// Reads a responses file (JSONL, any format of [`parse_response_line`]) for `dataset`.
/// Malformed lines and bytes that are not UTF-8 are fatal (the first one, by line, is
/// reported); unknown ids and duplicates are counted in the result. Lines are parsed in
/// parallel, a block of the file at a time, so memory stays bounded.
pub fn read_responses(
    path: impl AsRef<Path>,
    dataset: &[Instance],
) -> Result<Responses, ResponsesError> {
    read_records(path.as_ref(), dataset, read_line)
}

/// [`read_responses`], each response turned into a `T` by `read(k, text)` (`k`: the
/// position of its instance in `dataset`) as soon as its line is read, in parallel, so
/// that the texts need not be kept: the same records, problems and errors. The responses
/// of a line for no instance of the dataset are only counted, not read.
pub fn read_responses_with<T: Default + Send>(
    path: impl AsRef<Path>,
    dataset: &[Instance],
    read: impl Fn(usize, &str) -> T + Sync,
) -> Result<Responses<T>, ResponsesError> {
    let locator = Locator::new(dataset);
    read_records(path.as_ref(), dataset, |bytes| {
        let common = CommonLine {
            locator: &locator,
            read: &read,
        };
        if let Some(record) = common.read(bytes) {
            return Ok(Some(record));
        }
        let Some(record) = read_line(bytes)? else {
            return Ok(None);
        };
        // Located here, as the collector will, since `read` needs the instance.
        Ok(Some(
            match locator.locate(&record.instance, record.inputs.as_deref()) {
                Ok(k) => ResponseRecord {
                    instance: InstanceRef::Id(dataset[k].id.clone()),
                    sample: record.sample,
                    responses: record.responses.iter().map(|r| read(k, r)).collect(),
                    inputs: None,
                },
                // For no instance: counted (with the reason) by the collector, not read.
                Err(_) => ResponseRecord {
                    instance: record.instance,
                    sample: record.sample,
                    responses: Vec::new(),
                    inputs: record.inputs,
                },
            },
        ))
    })
}

/// The common line `{"id": "…", "responses": ["…", …]}` (or `"response": "…"`) of an
/// instance of the dataset, read in one pass: each response is handed to `read` where the
/// JSON reader decoded it, without a copy of its text. Any other line is left to the
/// general path.
struct CommonLine<'a, F> {
    locator: &'a Locator<'a>,
    read: &'a F,
}

impl<T, F: Fn(usize, &str) -> T> CommonLine<'_, F> {
    /// The line's record, or `None` when it is not a common line of a known instance
    /// (with exactly the keys `id`, then `response` or `responses`, and only strings).
    fn read(&self, bytes: &[u8]) -> Option<ResponseRecord<T>> {
        let text = std::str::from_utf8(bytes.trim_ascii_end()).ok()?;
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let mut json = serde_json::Deserializer::from_str(text);
        let record = serde::Deserializer::deserialize_map(&mut json, self).ok()?;
        json.end().ok()?;
        Some(record)
    }
}

/// The keys of a common line.
#[derive(PartialEq)]
enum LineKey {
    Id,
    Response,
    Responses,
    Other,
}

impl<'de> Deserialize<'de> for LineKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(match key.as_ref() {
            "id" => LineKey::Id,
            "response" => LineKey::Response,
            "responses" => LineKey::Responses,
            _ => LineKey::Other,
        })
    }
}

impl<'de, T, F: Fn(usize, &str) -> T> serde::de::Visitor<'de> for &CommonLine<'_, F> {
    type Value = ResponseRecord<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a response line")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let other = || serde::de::Error::custom("not a common line");
        if map.next_key::<LineKey>()? != Some(LineKey::Id) {
            return Err(other());
        }
        let id: String = map.next_value()?;
        let k = self.locator.position(&id).ok_or_else(other)?;
        let read = ReadResponses { k, read: self.read };
        let responses = match map.next_key::<LineKey>()? {
            Some(LineKey::Response) => vec![map.next_value_seed(ReadResponse(read))?],
            Some(LineKey::Responses) => map.next_value_seed(read)?,
            _ => return Err(other()),
        };
        if map.next_key::<LineKey>()?.is_some() {
            return Err(other());
        }
        Ok(ResponseRecord {
            instance: InstanceRef::Id(id),
            sample: None,
            responses,
            inputs: None,
        })
    }
}

/// A JSON list of response strings of the instance at `k`, each read by `read`.
struct ReadResponses<'a, F> {
    k: usize,
    read: &'a F,
}

impl<F> Clone for ReadResponses<'_, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for ReadResponses<'_, F> {}

/// One JSON response string, read by `read`.
struct ReadResponse<'a, F>(ReadResponses<'a, F>);

impl<'de, T, F: Fn(usize, &str) -> T> serde::de::DeserializeSeed<'de> for ReadResponses<'_, F> {
    type Value = Vec<T>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T, F: Fn(usize, &str) -> T> serde::de::Visitor<'de> for ReadResponses<'_, F> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of responses")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut readings = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(reading) = seq.next_element_seed(ReadResponse(self))? {
            readings.push(reading);
        }
        Ok(readings)
    }
}

impl<'de, T, F: Fn(usize, &str) -> T> serde::de::DeserializeSeed<'de> for ReadResponse<'_, F> {
    type Value = T;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, T, F: Fn(usize, &str) -> T> serde::de::Visitor<'de> for ReadResponse<'_, F> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a response string")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok((self.0.read)(self.0.k, text))
    }
}

/// The records of a responses file, each line's read by `read` (`None` for a blank line),
/// grouped by [`ResponseCollector`]. The file is read a block at a time, and the block's
/// lines are read in parallel.
fn read_records<T: Default + Send>(
    path: &Path,
    dataset: &[Instance],
    read: impl Fn(&[u8]) -> Result<Option<ResponseRecord<T>>, LineError> + Sync,
) -> Result<Responses<T>, ResponsesError> {
    const BLOCK: u64 = 4 << 20;
    let io_err = |source| ResponsesError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = pbebench_io::open_input(path).map_err(io_err)?;
    let mut collector = ResponseCollector::new(dataset);
    let mut buf: Vec<u8> = Vec::new();
    let mut line = 0;
    loop {
        let eof = (&mut file)
            .take(BLOCK)
            .read_to_end(&mut buf)
            .map_err(io_err)?
            == 0;
        // The complete lines of the block; a line longer than a block waits for the next.
        let end = if eof {
            buf.len()
        } else {
            memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1)
        };
        let mut lines: Vec<(usize, &[u8])> = Vec::new();
        let mut rest = &buf[..end];
        while !rest.is_empty() {
            let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            line += 1;
            lines.push((line, &rest[..len]));
            rest = &rest[len..];
        }
        let records: Vec<Result<Option<ResponseRecord<T>>, ResponsesError>> = lines
            .par_iter()
            .map(|&(line, bytes)| {
                read(bytes).map_err(|error| ResponsesError::Line {
                    path: path.to_path_buf(),
                    line,
                    error,
                })
            })
            .collect();
        for ((line, _), record) in lines.iter().zip(records) {
            if let Some(record) = record? {
                collector.add(*line, record);
            }
        }
        buf.drain(..end);
        if eof {
            break;
        }
    }
    let mut responses = collector.finish();
    responses.path = path.to_path_buf();
    if responses.by_id.is_empty() && responses.unknown.is_empty() {
        return Err(ResponsesError::Empty {
            path: path.to_path_buf(),
        });
    }
    if let (true, Some(first)) = (responses.by_id.is_empty(), responses.unknown.first()) {
        return Err(ResponsesError::NoneMatch {
            path: path.to_path_buf(),
            lines: responses.unknown.len(),
            first_line: first.line,
            first: first.message.clone(),
        });
    }
    Ok(responses)
}

/// One line's record; `None` for a blank line.
fn read_line(bytes: &[u8]) -> Result<Option<ResponseRecord>, LineError> {
    let text = std::str::from_utf8(bytes.trim_ascii_end()).map_err(|e| LineError::NotUtf8 {
        byte: e.valid_up_to() + 1,
    })?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_response_line(text).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn response_lines_in_every_format() {
        let r = parse_response_line(r#"{"id": "a", "response": "x"}"#).unwrap();
        assert_eq!(r.instance, InstanceRef::Id("a".into()));
        assert_eq!(r.responses, vec!["x"]);
        let r = parse_response_line(
            r#"{"id": 7, "responses": ["x", null, {"content": "y", "reasoning_content": "z"}]}"#,
        )
        .unwrap();
        assert_eq!(r.instance, InstanceRef::Id("7".into()));
        assert_eq!(r.responses, vec!["x", "", "y"]);
        let r = parse_response_line(r#"{"input": {"inputs": [], "index": 3}, "outputs": ["x"], "chains_of_thought": ["t"]}"#).unwrap();
        assert_eq!(r.instance, InstanceRef::Index(3));
        let r = parse_response_line(r#"{"input": {"index": "3_5"}, "outputs": ["x"]}"#).unwrap();
        assert_eq!((r.instance, r.sample), (InstanceRef::Index(3), Some(5)));
        for (bad, error) in [
            (
                "{",
                LineError::MalformedJson {
                    column: 1,
                    what: "EOF while parsing an object".into(),
                },
            ),
            ("[]", LineError::NotAnObject),
            (r#"{"id": "a"}"#, LineError::NoResponse),
            (r#"{"id": [1], "response": "x"}"#, LineError::BadId),
            (r#"{"id": "a", "response": 3}"#, LineError::BadResponse),
            (
                r#"{"id": "a", "response": "x", "responses": []}"#,
                LineError::ResponseAndResponses,
            ),
            (
                r#"{"input": {"index": "x_1"}, "outputs": []}"#,
                LineError::BadAuthorsIndexText("x_1".into()),
            ),
            (r#"{"response": "x"}"#, LineError::NoInstance),
        ] {
            assert_eq!(parse_response_line(bad), Err(error), "{bad}");
        }
    }

    /// JSON values a response line may hold, well-formed or not.
    fn json_value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(r#""x""#.to_owned()),
            Just(r#""a\n```python\n[\"replace('a', 'b')\"]\n```""#.to_owned()),
            Just("null".to_owned()),
            Just("7".to_owned()),
            Just(r#"{"content": "y"}"#.to_owned()),
            Just(r#"{"index": "3_1"}"#.to_owned()),
            Just("[]".to_owned()),
            Just(r#"["x", "y"]"#.to_owned()),
            Just(r#"["x", null]"#.to_owned()),
            Just(r#"["x", 3]"#.to_owned()),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Where the shortcut for common lines answers, the JSON tree reads the same.
        #[test]
        fn plain_lines_read_as_generally(
            fields in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "id", "id", "response", "responses", "responses", "sample", "input",
                        "outputs", "other",
                    ]),
                    json_value(),
                ),
                0..4,
            ),
            array in proptest::prelude::any::<bool>(),
        ) {
            let line = if array {
                format!("[{}]", fields.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(", "))
            } else {
                let fields: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
                format!(" {{{}}}", fields.join(", "))
            };
            if let Some(record) = plain_response_line(&line) {
                proptest::prop_assert_eq!(Ok(record), parse_response_line_generally(&line), "{}", line);
            }
        }
    }

    #[test]
    fn common_lines_take_the_shortcut() {
        for line in [
            r#"{"id": "a", "response": "x"}"#,
            r#"{"id": "a", "responses": ["x\ny", ""]}"#,
        ] {
            let record = plain_response_line(line);
            assert!(record.is_some(), "{line}");
            assert_eq!(record.map(Ok), Some(parse_response_line_generally(line)));
        }
        for line in [
            r#"{"id": "a", "response": null, "responses": ["x"]}"#,
            r#"{"id": "a", "id": "b", "response": "x"}"#,
            r#"["a", "x"]"#,
        ] {
            assert_eq!(plain_response_line(line), None, "{line}");
        }
    }

    fn instances(inputs: &[&str]) -> Vec<Instance> {
        inputs
            .iter()
            .enumerate()
            .map(|(k, input)| {
                serde_json::from_value(serde_json::json!({
                    "id": k.to_string(), "inputs": [input], "outputs": ["x"],
                    "max_rules": 1, "max_rule_len": 1, "alphabet": "abx",
                }))
                .unwrap()
            })
            .collect()
    }

    /// The authors' records state their instance's inputs (a list or its Python repr):
    /// read against the dataset in another order, each still goes to its instance, in
    /// both readers (the one that keeps texts and the one that reads them as they come).
    #[test]
    fn authors_records_go_to_the_instance_with_their_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"input": {"inputs": ["a"], "index": 0}, "outputs": ["for a"]}"#,
                "\n",
                r#"{"input": {"inputs": "['b']", "index": 1}, "outputs": ["for b"]}"#,
                "\n",
            ),
        )
        .unwrap();
        let reversed = instances(&["b", "a"]);
        let read = read_responses(&path, &reversed).unwrap();
        assert_eq!(read.by_id["1"], ["for a"]);
        assert_eq!(read.by_id["0"], ["for b"]);
        let with = read_responses_with(&path, &reversed, |k, text| format!("{k}:{text}")).unwrap();
        assert_eq!(with.by_id["1"], ["1:for a"]);
        assert_eq!(with.by_id["0"], ["0:for b"]);
        std::fs::write(
            &path,
            r#"{"input": {"inputs": 3, "index": 0}, "outputs": []}"#,
        )
        .unwrap();
        let e = read_responses(&path, &reversed).unwrap_err().to_string();
        assert!(
            e.contains(":1: the authors' 'input.inputs' must be a list"),
            "{e}"
        );
    }

    /// A file not one line of which is for the dataset is refused (as the report and the
    /// audit refuse such results); an empty file is only unanswered.
    #[test]
    fn responses_to_another_dataset_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(
            &path,
            "\n{\"id\": \"zz\", \"response\": \"x\"}\n{\"id\": \"yy\", \"response\": \"x\"}\n",
        )
        .unwrap();
        let dataset = instances(&["a"]);
        for e in [
            read_responses(&path, &dataset).unwrap_err(),
            read_responses_with(&path, &dataset, |_, t| t.len()).unwrap_err(),
        ] {
            assert!(
                matches!(
                    e,
                    ResponsesError::NoneMatch {
                        lines: 2,
                        first_line: 2,
                        ..
                    }
                ),
                "{e}"
            );
            assert!(e.to_string().ends_with("r.jsonl: none of its 2 response line(s) is for an instance of the dataset (line 2: id 'zz' is not in the dataset): are these responses to another dataset?"), "{e}");
        }
    }

    /// An empty or blank responses file is an error naming it, not a table of zeros.
    #[test]
    fn an_empty_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let dataset = instances(&["a"]);
        for text in ["", "\n\n  \n"] {
            let path = dir.path().join("empty.jsonl");
            std::fs::write(&path, text).unwrap();
            for e in [
                read_responses(&path, &dataset).unwrap_err(),
                read_responses_with(&path, &dataset, |_, t| t.len()).unwrap_err(),
            ] {
                assert!(
                    matches!(&e, ResponsesError::Empty { path: p } if *p == path),
                    "{e}"
                );
                assert!(e.to_string().contains("holds no response line"), "{e}");
            }
        }
    }
}
