//! The OpenAI-compatible chat-completions client: one request body per instance, spread
//! over one or more endpoints, retried on 429, 5xx, timeouts and dropped connections, and
//! every reply classified into a [`Sample`] (never a panic, whatever the server sends).

use crate::control::Control;
use crate::retry::{parse_retry_after, RetryPolicy};
use crate::sample::{Sample, Status, Usage};
use crate::Field;
use serde::Serialize;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};
use ureq::Agent;

/// The largest response body read, in bytes (4 MiB): eight times
/// [`crate::MAX_RESPONSE_BYTES`], room for an answer, a long reasoning trace beside it and
/// their JSON escaping. A larger body fails the sample (`http_error`, with that reason)
/// without a retry, so that a runaway server costs neither memory nor tokens twice.
const BODY_LIMIT: u64 = 8 * crate::sample::MAX_RESPONSE_BYTES as u64;
/// How much of an unexpected body an error message keeps.
const EXCERPT: usize = 300;

/// The sampling parameters sent with every request; all of them change answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatParams {
    /// `model`.
    pub model: String,
    /// `temperature`; the server's default when `None`.
    pub temperature: Option<f64>,
    /// `top_p`; the server's default when `None`.
    pub top_p: Option<f64>,
    /// `max_tokens`; the server's default when `None`.
    pub max_tokens: Option<u64>,
    /// `reasoning_effort` (`low`, `medium`, `high`) for models that take it.
    pub reasoning_effort: Option<String>,
    /// Further fields merged into the body as given (`--extra-body`), e.g.
    /// `{"max_completion_tokens": 8000}` or vLLM's `{"top_k": 20}`.
    pub extra_body: Option<serde_json::Map<String, Value>>,
}

impl ChatParams {
    /// The most tokens one answer may have, as the server will read the body: the largest
    /// of `max_tokens` and the extra body's `max_tokens` / `max_completion_tokens` (servers
    /// take one or the other); `None` when the body sets no bound.
    pub fn max_output_tokens(&self) -> Option<u64> {
        let extra = |key: &str| {
            self.extra_body
                .as_ref()
                .and_then(|b| b.get(key))
                .and_then(Value::as_u64)
        };
        let overridden = self
            .extra_body
            .as_ref()
            .is_some_and(|b| b.contains_key("max_tokens"));
        [
            if overridden {
                extra("max_tokens")
            } else {
                self.max_tokens
            },
            extra("max_completion_tokens"),
        ]
        .into_iter()
        .flatten()
        .max()
    }

    /// The request body for one prompt, as one user message.
    pub fn body(&self, prompt: &str) -> String {
        self.conversation_body(
            &[serde_json::json!({"role": "user", "content": prompt})],
            None,
        )
    }

    /// The request body for a conversation, with `tools` (chat-completions function
    /// definitions) when given; the extra body is merged last, so it may set
    /// `tool_choice`.
    pub fn conversation_body(&self, messages: &[Value], tools: Option<&Value>) -> String {
        let mut body = serde_json::Map::new();
        body.insert("model".into(), self.model.clone().into());
        body.insert("messages".into(), Value::from(messages.to_vec()));
        if let Some(tools) = tools {
            body.insert("tools".into(), tools.clone());
        }
        let mut put = |key: &str, value: Option<Value>| {
            if let Some(v) = value {
                body.insert(key.into(), v);
            }
        };
        put("temperature", self.temperature.map(Value::from));
        put("top_p", self.top_p.map(Value::from));
        put("max_tokens", self.max_tokens.map(Value::from));
        put(
            "reasoning_effort",
            self.reasoning_effort.clone().map(Value::from),
        );
        if let Some(extra) = &self.extra_body {
            body.extend(extra.clone());
        }
        Value::Object(body).to_string()
    }
}

/// A problem found before any sample is requested. Its text names the configuration's
/// fields by their path ([`Field::path`]); [`EndpointError::message`] names them as the
/// caller does.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.message(Field::path))]
pub enum EndpointError {
    /// A base URL ([`Field::BaseUrls`]) that is not an http(s) URL.
    BadUrl(String),
    /// Nothing answers at the endpoint.
    Unreachable {
        /// The URL tried.
        url: String,
        /// What the connection attempt said.
        error: String,
    },
    /// The endpoint refuses our credentials.
    Unauthorized {
        /// The URL tried.
        url: String,
        /// 401 or 403.
        status: u16,
    },
}

impl EndpointError {
    /// The refusal, with every field it mentions named by `name`.
    pub fn message(&self, name: impl Fn(Field) -> &'static str) -> String {
        let urls = name(Field::BaseUrls);
        match self {
            EndpointError::BadUrl(url) => format!(
                "{urls} '{url}' is not an http:// or https:// URL (for vLLM: http://localhost:8000/v1)"
            ),
            EndpointError::Unreachable { url, error } => format!(
                "cannot reach {url}: {error}. Is the server running? (vLLM: 'vllm serve MODEL --port 8000', then {urls} http://localhost:8000/v1)"
            ),
            EndpointError::Unauthorized { url, status } => format!(
                "{url} answered HTTP {status}: the API key is missing or wrong (check {})",
                name(Field::ApiKey)
            ),
        }
    }
}

struct Endpoint {
    base_url: String,
    chat_url: String,
    agent: Agent,
}

/// Sends chat-completion requests to one or more endpoints, round robin.
pub struct ChatClient {
    endpoints: Vec<Endpoint>,
    api_key: Option<String>,
    retry: RetryPolicy,
    next: AtomicUsize,
}

impl ChatClient {
    /// A client for `base_urls` (each like `http://localhost:8000/v1`), with a per-attempt
    /// `timeout` and connection pools sized for `concurrency` requests at once.
    pub fn new(
        base_urls: &[String],
        api_key: Option<String>,
        timeout: Duration,
        retry: RetryPolicy,
        concurrency: usize,
    ) -> Result<Self, EndpointError> {
        let endpoints = base_urls
            .iter()
            .map(|url| {
                let base = url.trim_end_matches('/').to_owned();
                let host = host_of(&base).ok_or_else(|| EndpointError::BadUrl(url.clone()))?;
                let mut config = Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(timeout))
                    .max_idle_connections(concurrency.max(10))
                    .max_idle_connections_per_host(concurrency.max(3))
                    .user_agent(concat!("pbebench/", env!("CARGO_PKG_VERSION")));
                if is_loopback(host) {
                    // A local server is never reached through a proxy from the environment.
                    config = config.proxy(None);
                }
                Ok(Endpoint {
                    chat_url: format!("{base}/chat/completions"),
                    base_url: base,
                    agent: config.build().into(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ChatClient {
            endpoints,
            api_key,
            retry,
            next: AtomicUsize::new(0),
        })
    }

    /// Checks every endpoint once (`GET /models`) before the run, so that a server that
    /// is down or a wrong key is one clear error rather than thousands of failed samples.
    /// Returns warnings (a model the endpoint does not list, a URL without `/v1`).
    pub fn preflight(&self, model: &str) -> Result<Vec<String>, EndpointError> {
        let mut warnings = Vec::new();
        for ep in &self.endpoints {
            let url = format!("{}/models", ep.base_url);
            let mut request = ep
                .agent
                .get(&url)
                .config()
                .timeout_global(Some(Duration::from_secs(10)))
                .build();
            if let Some(key) = &self.api_key {
                request = request.header("Authorization", format!("Bearer {key}"));
            }
            let mut response = request.call().map_err(|e| EndpointError::Unreachable {
                url: url.clone(),
                error: e.to_string(),
            })?;
            let status = response.status().as_u16();
            match status {
                401 | 403 => return Err(EndpointError::Unauthorized { url, status }),
                404 if !ep.base_url.ends_with("/v1") => warnings.push(format!(
                    "{url} answered 404; OpenAI-compatible servers usually live under /v1 (try the base URL {}/v1)",
                    ep.base_url
                )),
                200 => {
                    let body = response
                        .body_mut()
                        .with_config()
                        .limit(BODY_LIMIT)
                        .read_to_string()
                        .unwrap_or_default();
                    if let Some(served) = served_models(&body) {
                        if !served.iter().any(|m| m == model) {
                            warnings.push(format!(
                                "{} does not list model '{model}' (it serves: {})",
                                ep.base_url,
                                served.join(", ")
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(warnings)
    }

    /// Requests one sample, retrying as the policy says. `None` when the run was stopped
    /// before an answer arrived (the sample stays pending).
    pub fn sample(&self, body: &str, ctl: &Control) -> Option<SampleReply> {
        let start = Instant::now();
        // Round robin over endpoints; each retry moves on to the next one, so a sample is
        // never stuck on a replica that is down.
        let first = self.next.fetch_add(1, Ordering::Relaxed);
        let mut attempt = 0;
        loop {
            attempt += 1;
            if ctl.stopped() {
                return None;
            }
            let ep = &self.endpoints[(first + attempt as usize - 1) % self.endpoints.len()];
            let t0 = Instant::now();
            let outcome = self.attempt(ep, body);
            let latency = t0.elapsed();
            let mut reply = match outcome {
                Attempt::Answer(reply) => reply,
                Attempt::Retry { reply, retry_after } if attempt <= self.retry.max_retries => {
                    let _ = reply;
                    if !ctl.sleep(self.retry.delay(attempt, retry_after)) {
                        return None;
                    }
                    continue;
                }
                Attempt::Retry { reply, .. } => reply,
            };
            reply.latency = latency;
            reply.elapsed = start.elapsed();
            reply.attempts = attempt;
            reply.endpoint = ep.base_url.clone();
            return Some(reply);
        }
    }

    fn attempt(&self, ep: &Endpoint, body: &str) -> Attempt {
        let mut request = ep.agent.post(&ep.chat_url);
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = match request
            .content_type("application/json")
            .send(body.as_bytes())
        {
            Ok(r) => r,
            Err(e) => return transport_failure(e),
        };
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let text = match response
            .body_mut()
            .with_config()
            .limit(BODY_LIMIT)
            .read_to_string()
        {
            Ok(t) => t,
            Err(ureq::Error::BodyExceedsLimit(_)) => {
                return Attempt::Answer(SampleReply::failed(
                    Status::HttpError,
                    Some(status),
                    format!(
                        "the response body is larger than {} MiB, more than a response may \
                         have; it was not read",
                        BODY_LIMIT >> 20
                    ),
                ))
            }
            Err(e) => return transport_failure(e),
        };
        classify(status, &text, retry_after)
    }
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// `id`, which the tool's result must name; `None` when the server gave none.
    pub id: Option<String>,
    /// `function.name`.
    pub name: String,
    /// `function.arguments`: JSON text as the model wrote it (possibly malformed).
    pub arguments: String,
}

impl ToolCall {
    /// The tool calls of a message (`message.tool_calls`); an entry without a function
    /// name is kept with the name `""`, and arguments given as an object are written out.
    pub fn all_of(message: &Value) -> Vec<ToolCall> {
        let Some(calls) = message.get("tool_calls").and_then(Value::as_array) else {
            return Vec::new();
        };
        calls
            .iter()
            .map(|c| {
                let function = c.get("function").unwrap_or(&Value::Null);
                ToolCall {
                    id: c.get("id").and_then(Value::as_str).map(str::to_owned),
                    name: function
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    arguments: match function.get("arguments") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    },
                }
            })
            .collect()
    }
}

/// What one request produced, before it becomes a stored [`Sample`].
#[derive(Debug, Clone, PartialEq)]
pub struct SampleReply {
    /// How it ended.
    pub status: Status,
    /// `message.content`.
    pub content: Option<String>,
    /// `message.reasoning_content` (or `message.reasoning`).
    pub reasoning_content: Option<String>,
    /// `finish_reason`.
    pub finish_reason: Option<String>,
    /// `message.tool_calls`, in order.
    pub tool_calls: Vec<ToolCall>,
    /// `usage`.
    pub usage: Usage,
    /// HTTP status of the last attempt.
    pub http_status: Option<u16>,
    /// What went wrong, when something did.
    pub error: Option<String>,
    /// Wall time of the last attempt.
    pub latency: Duration,
    /// Wall time of all attempts and backoff.
    pub elapsed: Duration,
    /// Attempts made.
    pub attempts: u32,
    /// Base URL of the last attempt.
    pub endpoint: String,
}

impl SampleReply {
    fn failed(status: Status, http_status: Option<u16>, error: String) -> Self {
        SampleReply {
            status,
            content: None,
            reasoning_content: None,
            finish_reason: None,
            tool_calls: Vec::new(),
            usage: Usage::default(),
            http_status,
            error: Some(error),
            latency: Duration::ZERO,
            elapsed: Duration::ZERO,
            attempts: 0,
            endpoint: String::new(),
        }
    }

    /// The stored sample for (instance, sample index).
    pub fn into_sample(self, instance_id: &str, sample: u32) -> Sample {
        Sample {
            instance_id: instance_id.to_owned(),
            sample,
            status: self.status,
            content: self.content,
            reasoning_content: self.reasoning_content,
            finish_reason: self.finish_reason,
            usage: self.usage,
            latency_ms: self.latency.as_secs_f64() * 1e3,
            elapsed_ms: self.elapsed.as_secs_f64() * 1e3,
            attempts: self.attempts,
            endpoint: Some(self.endpoint),
            http_status: self.http_status,
            error: self.error,
        }
    }
}

enum Attempt {
    /// Final: an answer, or a failure that retrying cannot fix (400, 404, …).
    Answer(SampleReply),
    /// Worth retrying; `reply` is what is stored when no retry is left.
    Retry {
        reply: SampleReply,
        retry_after: Option<Duration>,
    },
}

fn transport_failure(e: ureq::Error) -> Attempt {
    let status = if matches!(e, ureq::Error::Timeout(_)) {
        Status::Timeout
    } else {
        Status::HttpError
    };
    Attempt::Retry {
        reply: SampleReply::failed(status, None, e.to_string()),
        retry_after: None,
    }
}

fn retry_after(headers: &ureq::http::HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|ms| Duration::try_from_secs_f64(ms / 1e3).ok())
    {
        // (A value no duration can hold, 1e300, is ignored as one that is no number.)
        return Some(ms);
    }
    headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()))
}

/// Statuses a later attempt may fix: timeouts, conflicts, rate limits, server errors.
fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 425 | 429) || (500..600).contains(&status)
}

/// Classifies one HTTP reply (pure, so every case is unit-tested).
fn classify(status: u16, body: &str, retry_after: Option<Duration>) -> Attempt {
    if !(200..300).contains(&status) {
        let reply = SampleReply::failed(
            Status::HttpError,
            Some(status),
            format!("HTTP {status}: {}", error_message(body)),
        );
        return if is_retryable(status) {
            Attempt::Retry { reply, retry_after }
        } else {
            Attempt::Answer(reply)
        };
    }
    match parse_completion(body) {
        Completion::Usable(mut reply) => {
            reply.http_status = Some(status);
            Attempt::Answer(reply)
        }
        // A 200 that holds no completion is a broken server or proxy, not the model's
        // answer: retried like a 5xx, and stored as `http_error` (so a continued run
        // requests it again) when no retry is left.
        Completion::Broken(mut reply) => {
            reply.http_status = Some(status);
            Attempt::Retry { reply, retry_after }
        }
    }
}

/// The `error.message` of an error body, else its start.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            let e = v.get("error")?;
            e.get("message")
                .and_then(Value::as_str)
                .or(e.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| excerpt(body))
}

/// What a 2xx body holds.
enum Completion {
    /// A completion: the model's answer, however poor.
    Usable(SampleReply),
    /// No completion at all: an `http_error` reply with the reason.
    Broken(SampleReply),
}

/// Reads a 2xx chat-completion body. Broken when it holds no completion at all:
/// malformed JSON, an `error` object, no choices, or a message with no content,
/// reasoning, refusal or tool call. A completion that is a poor answer (cut at the token
/// limit, refused, empty text) is usable: it is the model's.
fn parse_completion(body: &str) -> Completion {
    let broken = |why: String| SampleReply::failed(Status::HttpError, None, why);
    let v: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => {
            return Completion::Broken(broken(format!(
                "malformed response body ({e}): {}",
                excerpt(body)
            )))
        }
    };
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Completion::Broken(broken(format!(
            "the endpoint returned an error: {}",
            excerpt(&err.to_string())
        )));
    }
    let usage = parse_usage(v.get("usage"));
    let Some(choice) = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        let mut r = broken("the response has no choices".to_owned());
        r.usage = usage;
        return Completion::Broken(r);
    };
    let message = choice.get("message").unwrap_or(&Value::Null);
    let content = text_of(message.get("content"));
    let reasoning_content =
        text_of(message.get("reasoning_content")).or_else(|| text_of(message.get("reasoning")));
    let refusal = text_of(message.get("refusal"));
    let finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let tool_calls = ToolCall::all_of(message);
    let has_tool_calls = !tool_calls.is_empty();
    if content.is_none()
        && reasoning_content.is_none()
        && refusal.is_none()
        && !has_tool_calls
        && !matches!(finish_reason.as_deref(), Some("length" | "content_filter"))
    {
        let mut r = broken(format!(
            "the response's message is empty (no content, finish_reason {}): {}",
            finish_reason.as_deref().unwrap_or("absent"),
            excerpt(body)
        ));
        r.usage = usage;
        return Completion::Broken(r);
    }
    let (status, error) = match finish_reason.as_deref() {
        Some("length") => (
            Status::Truncated,
            Some("the answer reached the token limit (finish_reason length)".to_owned()),
        ),
        Some("content_filter") => (
            Status::Refused,
            Some("stopped by a content filter (finish_reason content_filter)".to_owned()),
        ),
        _ if refusal.is_some() && content.is_none() => (
            Status::Refused,
            refusal.as_ref().map(|r| format!("refusal: {}", excerpt(r))),
        ),
        _ if has_tool_calls => (Status::Ok, None),
        _ if content.as_deref().is_none_or(|c| c.trim().is_empty()) => (
            Status::Invalid,
            Some(format!(
                "no content in the message (finish_reason {})",
                finish_reason.as_deref().unwrap_or("absent")
            )),
        ),
        _ => (Status::Ok, None),
    };
    Completion::Usable(SampleReply {
        status,
        content,
        reasoning_content,
        finish_reason,
        tool_calls,
        usage,
        http_status: None,
        error,
        latency: Duration::ZERO,
        elapsed: Duration::ZERO,
        attempts: 0,
        endpoint: String::new(),
    })
}

/// A message field as text: a string, or the text parts of a content array.
fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let text: String = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            Some(text)
        }
        _ => None,
    }
}

fn parse_usage(v: Option<&Value>) -> Usage {
    let get = |path: &[&str]| {
        path.iter()
            .try_fold(v?, |v, key| v.get(key))
            .and_then(Value::as_u64)
    };
    Usage {
        prompt_tokens: get(&["prompt_tokens"]),
        completion_tokens: get(&["completion_tokens"]),
        reasoning_tokens: get(&["completion_tokens_details", "reasoning_tokens"]),
    }
}

/// The model ids of a `/models` listing.
fn served_models(body: &str) -> Option<Vec<String>> {
    let v: Value = serde_json::from_str(body).ok()?;
    let ids = v
        .get("data")?
        .as_array()?
        .iter()
        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect();
    Some(ids)
}

/// The first characters of `s`, for error messages.
fn excerpt(s: &str) -> String {
    match s.char_indices().nth(EXCERPT) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

/// The host of an `http://` or `https://` URL.
fn host_of(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty()).then_some(host)
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(a: Attempt) -> SampleReply {
        match a {
            Attempt::Answer(r) => r,
            Attempt::Retry { .. } => panic!("expected a final answer"),
        }
    }

    #[test]
    fn a_normal_completion() {
        let r = answer(classify(
            200,
            r#"{"choices":[{"message":{"content":"```python\n[]\n```","reasoning_content":"hmm"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":12,"completion_tokens":30,"completion_tokens_details":{"reasoning_tokens":20}}}"#,
            None,
        ));
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.content.as_deref(), Some("```python\n[]\n```"));
        assert_eq!(r.reasoning_content.as_deref(), Some("hmm"));
        assert_eq!(r.usage.prompt_tokens, Some(12));
        assert_eq!(r.usage.reasoning_tokens, Some(20));
        assert_eq!(r.http_status, Some(200));
    }

    fn retried(a: Attempt) -> SampleReply {
        match a {
            Attempt::Retry { reply, .. } => reply,
            Attempt::Answer(r) => panic!("expected a retry, got {r:?}"),
        }
    }

    /// Issue 23, item 7: a 200 that holds no completion is a broken server or proxy; it
    /// is retried, and stored as a transport failure when no retry is left.
    #[test]
    fn broken_bodies_are_retried_poor_answers_are_kept() {
        let r = retried(classify(200, "{\"choices\": [", None));
        assert_eq!(r.status, Status::HttpError);
        assert_eq!(r.http_status, Some(200));
        assert!(r.error.unwrap().contains("malformed"));
        let r = retried(classify(
            200,
            r#"{"choices":[],"usage":{"prompt_tokens":3}}"#,
            None,
        ));
        assert_eq!(r.status, Status::HttpError);
        assert_eq!(r.usage.prompt_tokens, Some(3));
        let r = retried(classify(200, r#"{"error":{"message":"boom"}}"#, None));
        assert!(r.error.unwrap().contains("boom"));
        retried(classify(200, "[1,2]", None));
        let r = retried(classify(
            200,
            r#"{"choices":[{"message":{"content":null},"finish_reason":"stop"}]}"#,
            None,
        ));
        assert!(r.error.unwrap().contains("empty"), "null content");
        retried(classify(
            200,
            r#"{"choices":[{"finish_reason":"stop"}]}"#,
            None,
        ));

        // The model's own poor answers are answers.
        let r = answer(classify(
            200,
            r#"{"choices":[{"message":{"content":null,"reasoning_content":"long thought"},"finish_reason":"length"}]}"#,
            None,
        ));
        assert_eq!(r.status, Status::Truncated);
        assert_eq!(r.reasoning_content.as_deref(), Some("long thought"));
        let r = answer(classify(
            200,
            r#"{"choices":[{"message":{"content":null,"reasoning":"x"},"finish_reason":"stop"}]}"#,
            None,
        ));
        assert_eq!(r.status, Status::Invalid);
        assert_eq!(r.reasoning_content.as_deref(), Some("x"));
        let r = answer(classify(
            200,
            r#"{"choices":[{"message":{"content":""},"finish_reason":"stop"}]}"#,
            None,
        ));
        assert_eq!(r.status, Status::Invalid);
        let r = answer(classify(
            200,
            r#"{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}"#,
            None,
        ));
        assert_eq!(r.status, Status::Refused);
        let r = answer(classify(
            200,
            r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"stop"}]}"#,
            None,
        ));
        assert_eq!(r.content.as_deref(), Some("ab"));
    }

    #[test]
    fn error_statuses_retry_or_not() {
        let ra = Some(Duration::from_secs(2));
        match classify(429, r#"{"error":{"message":"slow down"}}"#, ra) {
            Attempt::Retry { reply, retry_after } => {
                assert_eq!(retry_after, ra);
                assert_eq!(reply.http_status, Some(429));
                assert!(reply.error.unwrap().contains("slow down"));
            }
            Attempt::Answer(_) => panic!("429 is retried"),
        }
        assert!(matches!(classify(503, "", None), Attempt::Retry { .. }));
        let r = answer(classify(
            400,
            r#"{"error":{"message":"context too long"}}"#,
            None,
        ));
        assert_eq!(r.status, Status::HttpError);
        assert_eq!(r.error.as_deref(), Some("HTTP 400: context too long"));
    }

    #[test]
    fn bodies_carry_every_parameter_given() {
        let mut p = ChatParams {
            model: "m".into(),
            temperature: Some(0.6),
            top_p: None,
            max_tokens: Some(100),
            reasoning_effort: Some("high".into()),
            extra_body: None,
        };
        let v: Value = serde_json::from_str(&p.body("hi")).unwrap();
        assert_eq!(v["messages"][0]["content"], "hi");
        assert_eq!(v["temperature"], 0.6);
        assert!(v.get("top_p").is_none());
        assert_eq!(v["reasoning_effort"], "high");
        p.extra_body = Some(serde_json::from_str(r#"{"top_k": 20, "max_tokens": 5}"#).unwrap());
        let v: Value = serde_json::from_str(&p.body("hi")).unwrap();
        assert_eq!(v["top_k"], 20);
        assert_eq!(v["max_tokens"], 5);
    }

    #[test]
    fn the_answer_bound_is_what_the_server_reads() {
        let mut p = ChatParams {
            model: "m".into(),
            temperature: None,
            top_p: None,
            max_tokens: None,
            reasoning_effort: None,
            extra_body: None,
        };
        assert_eq!(p.max_output_tokens(), None);
        p.max_tokens = Some(100);
        assert_eq!(p.max_output_tokens(), Some(100));
        let extra = |json: &str| Some(serde_json::from_str(json).unwrap());
        p.extra_body = extra(r#"{"max_tokens": 50}"#); // merged last: the body says 50
        assert_eq!(p.max_output_tokens(), Some(50));
        p.extra_body = extra(r#"{"max_completion_tokens": 32000}"#);
        assert_eq!(p.max_output_tokens(), Some(32000));
        p.extra_body = extra(r#"{"max_tokens": null}"#);
        assert_eq!(p.max_output_tokens(), None);
    }

    #[test]
    fn urls_and_hosts() {
        assert_eq!(host_of("http://localhost:8000/v1"), Some("localhost"));
        assert_eq!(
            host_of("https://api.example.com/v1"),
            Some("api.example.com")
        );
        assert_eq!(host_of("http://[::1]:80/v1"), Some("::1"));
        assert_eq!(host_of("http://u:p@127.0.0.1:9/v1"), Some("127.0.0.1"));
        assert_eq!(host_of("localhost:8000"), None);
        assert!(is_loopback("127.0.0.2") && is_loopback("::1") && !is_loopback("10.0.0.1"));
        assert_eq!(excerpt(&"é".repeat(400)).chars().count(), EXCERPT + 1);
    }
}
