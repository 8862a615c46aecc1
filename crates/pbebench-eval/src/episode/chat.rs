//! Episodes of a model behind chat-completions endpoints: the conversation grows by one
//! assistant message and its results per turn; each turn is handed to the writer as it
//! completes, and a resumed episode replays its stored turns (sending nothing) before it
//! asks for the next one.

use super::actions::{self, Action};
use super::{prompt, EndReason, Episode, InteractiveSpec, Outcome, ToolProtocol, Totals};
use crate::client::{ChatClient, ChatParams, SampleReply, ToolCall};
use crate::control::Control;
use crate::pricing::worst_cost;
use crate::sample::Prices;
use crate::store::TurnRow;
use pbebench::Instance;
use serde_json::{json, Value};

/// A model and how it is asked.
pub(crate) struct ChatEpisodes<'a> {
    pub(crate) client: &'a ChatClient,
    pub(crate) params: &'a ChatParams,
    pub(crate) spec: InteractiveSpec,
}

/// The conversation's first message.
fn first_messages(instance: &Instance, spec: &InteractiveSpec) -> Vec<Value> {
    let oracle = spec.oracle(instance);
    let text = match oracle {
        Ok(o) => prompt::render(o.task(), spec),
        Err(e) => e.to_string(),
    };
    vec![json!({"role": "user", "content": text})]
}

impl ChatEpisodes<'_> {
    fn tools(&self) -> Option<Value> {
        (self.spec.tool_protocol == ToolProtocol::Tools)
            .then(|| prompt::tool_definitions(&self.spec))
    }

    /// The first request of an episode on `instance` (stored in the `requests` table).
    pub(crate) fn first_request(&self, instance: &Instance) -> String {
        self.params
            .conversation_body(&first_messages(instance, &self.spec), self.tools().as_ref())
    }

    /// Runs (or resumes, after `stored`) the episode (`instance`, `sample`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        instance: &Instance,
        sample: u32,
        stored: &[TurnRow],
        ctl: &Control,
        prices: Prices,
        on_turn: &mut dyn FnMut(TurnRow),
    ) -> Result<Outcome, String> {
        let mut episode = Episode::new(instance, self.spec).map_err(|e| e.to_string())?;
        let mut messages = first_messages(instance, &self.spec);
        let tools = self.tools();
        let mut totals = Totals::default();
        for t in stored {
            respond(&mut episode, &t.assistant, self.spec.tool_protocol);
            messages.push(t.assistant.clone());
            messages.extend(t.results.iter().cloned());
            totals.add(t.latency_ms, t.attempts, t.endpoint.clone());
            episode.close_turn(t.usage);
        }
        while episode.ended().is_none() {
            let body = self.params.conversation_body(&messages, tools.as_ref());
            let worst = worst_cost(&body, self.params.max_output_tokens(), prices);
            let Some(reservation) = ctl.reserve(worst) else {
                return Ok(Outcome::Stopped);
            };
            let reply = self.client.sample(&body, ctl);
            ctl.settle(
                reservation,
                reply.as_ref().map_or(0.0, |r| r.usage.cost(prices)),
            );
            let Some(reply) = reply else {
                return Ok(Outcome::Stopped);
            };
            if !reply.status.is_answer() {
                return Ok(Outcome::Failed(reply.into_sample(&instance.id, sample)));
            }
            let turn = episode.turns();
            let assistant = assistant_message(&reply, turn);
            let results = respond(&mut episode, &assistant, self.spec.tool_protocol);
            let latency_ms = reply.latency.as_secs_f64() * 1e3;
            totals.add(latency_ms, reply.attempts, Some(reply.endpoint.clone()));
            on_turn(TurnRow {
                instance_id: instance.id.clone(),
                sample,
                turn,
                assistant: assistant.clone(),
                results: results.clone(),
                reasoning_content: reply.reasoning_content.clone(),
                finish_reason: reply.finish_reason.clone(),
                usage: reply.usage,
                latency_ms,
                attempts: reply.attempts,
                endpoint: Some(reply.endpoint.clone()),
            });
            messages.push(assistant);
            messages.extend(results);
            episode.close_turn(reply.usage);
        }
        Ok(Outcome::Ended(
            totals.sample(&episode, &instance.id, sample),
            episode.record(&instance.id, sample),
        ))
    }
}

/// The assistant message as it goes back into the conversation: its content (`""` for
/// none: llama.cpp's Python server refuses a null content) and its tool calls, each with
/// an id (`call_T_K` when the server gave none).
fn assistant_message(reply: &SampleReply, turn: u32) -> Value {
    let content = reply.content.clone().unwrap_or_default();
    let mut m = json!({"role": "assistant", "content": content});
    if !reply.tool_calls.is_empty() {
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .enumerate()
            .map(|(k, c)| {
                json!({
                    "id": c.id.clone().unwrap_or_else(|| format!("call_{turn}_{k}")),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                })
            })
            .collect();
        m["tool_calls"] = Value::from(calls);
    }
    m
}

/// Executes what an assistant message asks for and returns the messages that answer it
/// (none when it asks for nothing: its text is the answer, and the episode ends; in
/// feedback rounds, unless that answer gets examples wrong: then what it gets wrong).
fn respond(episode: &mut Episode, assistant: &Value, protocol: ToolProtocol) -> Vec<Value> {
    let text = assistant
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let answer = episode.note_text(text);
    let answered = |episode: &mut Episode| match episode.feedback_round(answer.clone()) {
        Some(message) => vec![json!({"role": "user", "content": message})],
        None => {
            episode.end(EndReason::Answer);
            Vec::new()
        }
    };
    match protocol {
        ToolProtocol::Tools => {
            let calls = ToolCall::all_of(assistant);
            if calls.is_empty() {
                return answered(episode);
            }
            calls
                .iter()
                .map(|c| {
                    let result = episode.act(actions::from_tool_call(&c.name, &c.arguments));
                    json!({
                        "role": "tool",
                        "tool_call_id": c.id.clone().unwrap_or_default(),
                        "content": result.to_string(),
                    })
                })
                .collect()
        }
        ToolProtocol::Text => {
            let blocks = actions::tool_blocks(text);
            if blocks.is_empty() {
                return answered(episode);
            }
            let results: Vec<String> = blocks
                .iter()
                .map(|(tag, body)| {
                    let action: Action = actions::from_block(tag, body);
                    format!("```result\n{}\n```", episode.act(action))
                })
                .collect();
            vec![json!({"role": "user", "content": results.join("\n")})]
        }
    }
}
