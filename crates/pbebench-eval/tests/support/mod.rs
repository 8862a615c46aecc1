//! Test helpers: small datasets with gold answers, the mock server, and run configs.
#![allow(dead_code)]

pub mod mock_server;

pub use mock_server::{MockRequest, MockServer, Reply};
use pbebench::{Cascade, Instance, RelationMode, Rule};
use pbebench_eval::template::Template;
use pbebench_eval::{
    BlockChoice, ChatParams, ChatSpec, EvalConfig, Prices, RetryPolicy, SolverSpec,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

const ALPHABET: &str = "abcdefghijkuvwxyz";

fn letter(n: usize) -> char {
    ALPHABET.as_bytes()[n % ALPHABET.len()] as char
}

/// `n` small instances with distinct examples (so each prompt names its instance) and a
/// one- or two-rule gold cascade.
pub fn instances(n: usize) -> Vec<Instance> {
    (0..n)
        .map(|i| {
            let inputs: Vec<String> = (0..4)
                .map(|k| {
                    let mut x = i * 4 + k;
                    let mut s = String::from("a");
                    loop {
                        s.push(letter(x));
                        x /= ALPHABET.len();
                        if x == 0 {
                            break;
                        }
                    }
                    s
                })
                .collect();
            let mut rules = vec![Rule::new("a", letter(i + 1).to_string()).unwrap()];
            if i % 2 == 0 {
                rules.push(Rule::new(letter(i + 1).to_string(), "k").unwrap());
            }
            let cascade = Cascade::new(rules);
            Instance {
                id: format!("inst-{i:03}"),
                outputs: cascade.apply_all(&inputs),
                inputs,
                cascade_len: cascade.len(),
                cascade: Some(cascade),
                category: None,
                relations_mode: RelationMode::default(),
                max_rules: 5,
                max_rule_len: 3,
                alphabet: ALPHABET.to_owned(),
                heldout_inputs: Vec::new(),
                heldout_outputs: Vec::new(),
                interactions: Vec::new(),
                symbols: Default::default(),
            }
        })
        .collect()
}

/// Writes `instances` as JSONL in `dir`.
pub fn write_dataset(dir: &Path, instances: &[Instance]) -> PathBuf {
    let path = dir.join("dataset.jsonl");
    let text: String = instances
        .iter()
        .map(|i| serde_json::to_string(i).unwrap() + "\n")
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// The gold cascade as a model would answer it (the released list-of-strings format).
pub fn gold_answer(instance: &Instance) -> String {
    let rules: Vec<String> = instance
        .cascade
        .as_ref()
        .unwrap()
        .rules()
        .iter()
        .map(|r| format!("\"replace('{}', '{}')\"", r.pattern(), r.replacement()))
        .collect();
    format!("Here it is.\n```python\n[{}]\n```\n", rules.join(", "))
}

/// Which instance a chat request is about, by its prompt.
pub struct PromptIndex(HashMap<String, usize>);

impl PromptIndex {
    /// Renders every instance's prompt with the default template.
    pub fn new(instances: &[Instance]) -> Self {
        let t = Template::load(None).unwrap();
        PromptIndex(
            instances
                .iter()
                .enumerate()
                .map(|(i, inst)| (t.render(inst), i))
                .collect(),
        )
    }

    /// The instance index of a request.
    pub fn of(&self, request: &MockRequest) -> usize {
        let prompt = request.prompt().expect("a chat request");
        *self.0.get(&prompt).expect("a prompt of the dataset")
    }
}

/// A mock that answers every instance with its gold cascade.
pub fn gold_server(instances: &[Instance]) -> MockServer {
    let index = PromptIndex::new(instances);
    let answers: Vec<String> = instances.iter().map(gold_answer).collect();
    MockServer::start(move |req| Reply::answer(&answers[index.of(req)]))
}

/// A chat run on `base_urls` with fast retries (10 ms backoff) and no progress output.
pub fn chat_config(dataset: &Path, run_dir: &Path, base_urls: &[String]) -> EvalConfig {
    EvalConfig {
        dataset: dataset.to_path_buf(),
        run_dir: run_dir.to_path_buf(),
        solver: SolverSpec::Chat(ChatSpec {
            base_urls: base_urls.to_vec(),
            api_key: None,
            params: ChatParams {
                model: "mock".into(),
                temperature: Some(0.6),
                top_p: None,
                max_tokens: Some(1000),
                reasoning_effort: None,
                extra_body: None,
            },
            template: None,
            timeout: Duration::from_secs(5),
            retry: RetryPolicy {
                max_retries: 3,
                base: Duration::from_millis(10),
                cap: Duration::from_millis(100),
            },
        }),
        samples: 1,
        concurrency: 4,
        prices: Prices::default(),
        max_cost: None,
        force_new: false,
        block: BlockChoice::Last,
        interactive: None,
        stepwise: None,
    }
}

/// An interactive chat run: budget 6 probes, 4 turns, the tools protocol.
pub fn interactive_config(dataset: &Path, run_dir: &Path, base_urls: &[String]) -> EvalConfig {
    let mut config = chat_config(dataset, run_dir, base_urls);
    config.interactive = Some(pbebench_eval::InteractiveSpec {
        probe_budget: 6,
        max_turns: 4,
        max_episode_tokens: None,
        tool_protocol: pbebench_eval::ToolProtocol::Tools,
        probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
        feedback: false,
    });
    config
}

/// Which instance an episode's request is about: the one whose example inputs its first
/// message lists.
pub fn episode_instance(instances: &[Instance], request: &MockRequest) -> usize {
    let first = request.messages()[0]["content"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    instances
        .iter()
        .position(|i| {
            first.contains(&format!(
                "Inputs:\n{}\n",
                pbebench::pylit::repr_list(&i.inputs)
            ))
        })
        .expect("a prompt of the dataset")
}

/// The gold cascade of an instance as a JSON list of rule strings.
pub fn gold_rules(instance: &Instance) -> String {
    let rules: Vec<String> = instance
        .cascade
        .as_ref()
        .unwrap()
        .rules()
        .iter()
        .map(|r| format!("replace('{}', '{}')", r.pattern(), r.replacement()))
        .collect();
    serde_json::to_string(&rules).unwrap()
}

/// The chat spec of a config, to change it.
pub fn chat(config: &mut EvalConfig) -> &mut ChatSpec {
    match &mut config.solver {
        SolverSpec::Chat(c) => c,
        SolverSpec::Command(_) => panic!("not a chat config"),
    }
}

/// Rows of `samples` in a run store: (instance_id, sample, status, attempts, completed_at).
pub fn stored_rows(run_dir: &Path) -> Vec<(String, u32, String, u32, String)> {
    // Read-write so that it can recover the WAL of a killed writer; it only reads.
    let conn = rusqlite::Connection::open(run_dir.join("run.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT instance_id, sample, status, attempts, completed_at FROM samples
             ORDER BY instance_id, sample",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}
