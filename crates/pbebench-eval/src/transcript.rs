//! `pbebench show RUN --id ID`: one episode (or static sample) of a run, readably: the
//! first message, then every turn's text, tool calls and their results, then how it
//! ended. Read from the store alone.

use crate::store::{RunStore, TurnRow};
use crate::EvalError;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// The longest text shown of one message or result, in characters; the rest is elided.
const SHOWN: usize = 4000;

/// Whether the run is on a reordering set (its manifest says `"task": "reorder"`).
fn is_reorder_run(store: &RunStore) -> Result<bool, EvalError> {
    Ok((store.manifest()?).is_some_and(|m| m.answer["task"] == crate::REORDER_TASK))
}

/// The transcript of sample `sample` of instance `id` in the run at `run_dir`.
pub fn render(run_dir: &Path, id: &str, sample: u32) -> Result<String, EvalError> {
    let store = RunStore::open_existing(run_dir)?;
    let Some(request) = store.request(id)? else {
        return Err(EvalError::Parameter(format!(
            "{}: the run holds nothing for instance '{id}' (check --id; 'sqlite3 {} \"SELECT DISTINCT instance_id FROM samples\"' lists them)",
            run_dir.display(),
            RunStore::path_in(run_dir).display()
        )));
    };
    let mut out = String::new();
    let _ = writeln!(out, "instance {id} · sample {sample}\n");
    let request: Value = serde_json::from_str(&request).unwrap_or(Value::String(request));
    let first = request["messages"][0]["content"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| match &request {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    section(&mut out, "first message", &first);
    let turns = store.turns(id, sample)?;
    for t in &turns {
        turn(&mut out, t);
    }
    let episode = store
        .episodes()?
        .into_iter()
        .find(|e| e.instance_id == id && e.sample == sample);
    let stored = store
        .samples()?
        .into_iter()
        .find(|s| s.instance_id == id && s.sample == sample);
    match (episode, stored) {
        (Some(e), _) if is_reorder_run(&store)? => {
            let _ = writeln!(
                out,
                "── ended: {} after {} turns · {} orders tested · final order ({}) {}",
                e.end_reason, e.turns, e.tests, e.final_source, e.final_cascade
            );
        }
        (Some(e), _) => {
            let _ = writeln!(
                out,
                "── ended: {} after {} turns · {} probes · {} tests · final cascade ({}) {}",
                e.end_reason, e.turns, e.probes_used, e.tests, e.final_source, e.final_cascade
            );
        }
        // A static sample, or a step-wise search's answer (after its step samples).
        (None, Some(s)) if turns.is_empty() || s.status.is_answer() => {
            section(
                &mut out,
                &format!("answer ({})", s.status),
                s.content.as_deref().unwrap_or(""),
            );
            if let Some(e) = &s.error {
                let _ = writeln!(out, "error: {e}");
            }
        }
        (None, Some(s)) => {
            let _ = writeln!(
                out,
                "── unfinished: the last attempt ended in {} ({}); continuing the run resumes it here",
                s.status,
                s.error.as_deref().unwrap_or("")
            );
        }
        (None, None) => {
            let _ = writeln!(
                out,
                "── unfinished: {} turns stored; continuing the run resumes it here",
                turns.len()
            );
        }
    }
    Ok(out)
}

fn turn(out: &mut String, t: &TurnRow) {
    let tokens = match (t.usage.prompt_tokens, t.usage.completion_tokens) {
        (Some(p), Some(c)) => format!(" · {p} prompt + {c} completion tokens"),
        _ => String::new(),
    };
    let _ = writeln!(out, "── turn {}{tokens}", t.turn + 1);
    if let Some(r) = t
        .reasoning_content
        .as_deref()
        .filter(|r| !r.trim().is_empty())
    {
        section(out, "reasoning", r);
    }
    match t.assistant.get("content") {
        Some(Value::String(text)) if !text.trim().is_empty() => section(out, "assistant", text),
        _ => {}
    }
    if let Some(calls) = t.assistant.get("tool_calls").and_then(Value::as_array) {
        for c in calls {
            let f = &c["function"];
            let _ = writeln!(
                out,
                "  call {}({})",
                f["name"].as_str().unwrap_or("?"),
                f["arguments"].as_str().unwrap_or("")
            );
        }
    } else if t.assistant.get("content").is_none() {
        let _ = writeln!(out, "  solver: {}", t.assistant);
    }
    for r in &t.results {
        let text = r
            .get("content")
            .and_then(Value::as_str)
            .map_or_else(|| r.to_string(), str::to_owned);
        let _ = writeln!(out, "  → {}", elide(&text));
    }
    out.push('\n');
}

fn section(out: &mut String, title: &str, text: &str) {
    let _ = writeln!(out, "[{title}]\n{}\n", elide(text.trim_end()));
}

fn elide(text: &str) -> String {
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
        None => text.to_owned(),
    }
}
