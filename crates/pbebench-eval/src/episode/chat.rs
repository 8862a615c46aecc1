//! Episodes of a model behind chat-completions endpoints: the conversation grows by one
//! assistant message and its results per turn; each turn is handed to the writer as it
//! completes, and a resumed episode replays its stored turns (sending nothing) before it
//! asks for the next one.

use super::{prompt, EndReason, Episode, Game, InteractiveSpec, Outcome, ToolProtocol, Totals};
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
        let episode = Episode::new(instance, self.spec).map_err(|e| e.to_string())?;
        let first = first_messages(instance, &self.spec);
        let at = (instance.id.as_str(), sample);
        self.play(
            episode,
            first,
            self.tools(),
            at,
            stored,
            ctl,
            prices,
            on_turn,
        )
    }

    /// Runs (or resumes, after `stored`) the episode `game` of (`instance id`, `sample`)
    /// from the conversation's `messages`, with `tools` sent in every request: one turn
    /// per reply, each handed to `on_turn`, until the game ends.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn play<G: Game>(
        &self,
        mut episode: G,
        mut messages: Vec<Value>,
        tools: Option<Value>,
        (instance_id, sample): (&str, u32),
        stored: &[TurnRow],
        ctl: &Control,
        prices: Prices,
        on_turn: &mut dyn FnMut(TurnRow),
    ) -> Result<Outcome, String> {
        let mut totals = Totals::default();
        for t in stored {
            respond(&mut episode, &t.assistant, self.spec.tool_protocol);
            messages.push(t.assistant.clone());
            messages.extend(t.results.iter().cloned());
            totals.add(t.latency_ms, t.attempts, t.endpoint.clone());
            episode.clock_mut().close_turn(t.usage);
        }
        while episode.clock().ended().is_none() {
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
                return Ok(Outcome::Failed(reply.into_sample(instance_id, sample)));
            }
            let turn = episode.clock().turns();
            let assistant = assistant_message(&reply, turn);
            let results = respond(&mut episode, &assistant, self.spec.tool_protocol);
            let latency_ms = reply.latency.as_secs_f64() * 1e3;
            totals.add(latency_ms, reply.attempts, Some(reply.endpoint.clone()));
            on_turn(TurnRow {
                instance_id: instance_id.to_owned(),
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
            episode.clock_mut().close_turn(reply.usage);
        }
        Ok(Outcome::Ended(
            totals.sample(&episode, instance_id, sample),
            episode.record(instance_id, sample),
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
fn respond(episode: &mut impl Game, assistant: &Value, protocol: ToolProtocol) -> Vec<Value> {
    let text = assistant
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    episode.note_text(text);
    match protocol {
        ToolProtocol::Tools => {
            let calls = ToolCall::all_of(assistant);
            if calls.is_empty() {
                return answered(episode, text);
            }
            calls
                .iter()
                .map(|c| {
                    let result = episode.tool_call(&c.name, &c.arguments);
                    json!({
                        "role": "tool",
                        "tool_call_id": c.id.clone().unwrap_or_default(),
                        "content": result.to_string(),
                    })
                })
                .collect()
        }
        ToolProtocol::Text => {
            let blocks = episode.tool_blocks(text);
            if blocks.is_empty() {
                return answered(episode, text);
            }
            let results: Vec<String> = blocks
                .iter()
                .map(|(tag, body)| format!("```result\n{}\n```", episode.block(tag, body)))
                .collect();
            vec![json!({"role": "user", "content": results.join("\n")})]
        }
    }
}

/// The episode's answer to a text that asks for no tool: a feedback round's message when
/// the game holds one ([`Game::feedback_on`]), else none, and the episode ends.
fn answered(episode: &mut impl Game, text: &str) -> Vec<Value> {
    match episode.feedback_on(text) {
        Some(message) => vec![json!({"role": "user", "content": message})],
        None => {
            episode.clock_mut().end(EndReason::Answer);
            Vec::new()
        }
    }
}
