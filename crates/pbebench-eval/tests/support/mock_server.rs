//! A small OpenAI-compatible HTTP/1.1 server on 127.0.0.1 for tests and benchmarks: it
//! serves scripted answers and injects faults (429 with Retry-After, 5xx, slow replies,
//! dropped connections, odd bodies). Loopback only; it stops when dropped.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct MockRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl MockRequest {
    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The first message's content of a chat request.
    pub fn prompt(&self) -> Option<String> {
        self.json()["messages"][0]["content"]
            .as_str()
            .map(str::to_owned)
    }

    /// The messages of a chat request.
    pub fn messages(&self) -> Vec<Value> {
        self.json()["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The turn of an episode this request asks for: how many assistant messages the
    /// conversation holds already.
    pub fn turn(&self) -> usize {
        self.messages()
            .iter()
            .filter(|m| m["role"] == "assistant")
            .count()
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// An HTTP response.
    Response {
        /// Status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// Body.
        body: String,
    },
    /// Waits, then gives the inner reply (beyond a client's timeout: a timeout).
    Slow(Duration, Box<Reply>),
    /// Closes the connection without answering.
    Drop,
}

impl Reply {
    /// A JSON response.
    pub fn json(status: u16, body: Value) -> Reply {
        Reply::Response {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    /// A chat completion with this message and finish reason, and a usage block.
    pub fn completion(content: Option<&str>, reasoning: Option<&str>, finish: &str) -> Reply {
        let completion_tokens =
            content.map_or(0, |c| c.len() / 4 + 1) + reasoning.map_or(0, |r| r.len() / 4 + 1);
        Reply::json(
            200,
            json!({
                "id": "cmpl-mock",
                "object": "chat.completion",
                "model": "mock",
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "reasoning_content": reasoning},
                    "finish_reason": finish,
                }],
                "usage": {
                    "prompt_tokens": 100,
                    "completion_tokens": completion_tokens,
                    "total_tokens": 100 + completion_tokens,
                    "completion_tokens_details": {"reasoning_tokens": reasoning.map_or(0, |r| r.len() / 4 + 1)},
                },
            }),
        )
    }

    /// A normal answer that reports these token counts.
    pub fn answer_with_usage(content: &str, prompt_tokens: u64, completion_tokens: u64) -> Reply {
        Reply::json(
            200,
            json!({
                "id": "cmpl-mock",
                "object": "chat.completion",
                "model": "mock",
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            }),
        )
    }

    /// A normal answer.
    pub fn answer(content: &str) -> Reply {
        Reply::completion(Some(content), None, "stop")
    }

    /// An assistant message with these tool calls (name, raw JSON arguments) and
    /// optional text; ids `call_K`.
    pub fn tool_calls(content: Option<&str>, calls: &[(&str, &str)]) -> Reply {
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(k, (name, arguments))| {
                json!({"id": format!("call_{k}"), "type": "function",
                       "function": {"name": name, "arguments": arguments}})
            })
            .collect();
        Reply::json(
            200,
            json!({
                "id": "cmpl-mock",
                "object": "chat.completion",
                "model": "mock",
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "tool_calls": calls},
                    "finish_reason": "tool_calls",
                }],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            }),
        )
    }

    /// 429 with `Retry-After: secs`.
    pub fn rate_limited(secs: u64) -> Reply {
        Reply::Response {
            status: 429,
            headers: vec![("Retry-After".into(), secs.to_string())],
            body: json!({"error": {"message": "rate limited"}}).to_string(),
        }
    }

    /// An error status with an OpenAI-style error body.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, json!({"error": {"message": message}}))
    }

    /// 200 with a body that is not JSON.
    pub fn malformed() -> Reply {
        Reply::Response {
            status: 200,
            headers: Vec::new(),
            body: "{\"choices\": [{\"message\": ".into(),
        }
    }

    /// The same reply, reporting `n` completion tokens.
    pub fn using(self, n: u64) -> Reply {
        match self {
            Reply::Response {
                status,
                headers,
                body,
            } => {
                let mut v: Value = serde_json::from_str(&body).unwrap();
                v["usage"]["completion_tokens"] = n.into();
                Reply::Response {
                    status,
                    headers,
                    body: v.to_string(),
                }
            }
            other => other,
        }
    }

    /// `slow` then `self`.
    pub fn after(self, delay: Duration) -> Reply {
        Reply::Slow(delay, Box::new(self))
    }
}

type Handler = dyn Fn(&MockRequest) -> Reply + Send + Sync;

/// The running server.
pub struct MockServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    chat_requests: Arc<AtomicUsize>,
    accept: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Starts a server on a free loopback port: `handler` answers chat completions,
    /// `GET …/models` lists the model `mock`, anything else is 404.
    pub fn start(handler: impl Fn(&MockRequest) -> Reply + Send + Sync + 'static) -> MockServer {
        let models = Reply::json(
            200,
            json!({"object": "list", "data": [{"id": "mock", "object": "model"}]}),
        );
        Self::start_with(models, handler)
    }

    /// Like [`MockServer::start`], with `models` as the answer to `GET …/models`.
    pub fn start_with(
        models: Reply,
        handler: impl Fn(&MockRequest) -> Reply + Send + Sync + 'static,
    ) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let chat_requests = Arc::new(AtomicUsize::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let models = Arc::new(models);
        let accept = {
            let (stop, chat_requests) = (stop.clone(), chat_requests.clone());
            thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (handler, models, stop, chat_requests) = (
                        handler.clone(),
                        models.clone(),
                        stop.clone(),
                        chat_requests.clone(),
                    );
                    thread::spawn(move || serve(conn, &*handler, &models, &stop, &chat_requests));
                }
            })
        };
        MockServer {
            addr,
            stop,
            chat_requests,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// How many chat-completion requests arrived.
    pub fn chat_requests(&self) -> usize {
        self.chat_requests.load(Ordering::SeqCst)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(self.addr); // wakes the accept loop
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// Serves one keep-alive connection until the client closes it or the server stops.
fn serve(
    conn: TcpStream,
    handler: &Handler,
    models: &Reply,
    stop: &AtomicBool,
    chat_requests: &AtomicUsize,
) {
    let _ = conn.set_nodelay(true);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(write_half) = conn.try_clone() else {
        return;
    };
    let mut writer = write_half;
    let mut reader = BufReader::new(conn);
    while !stop.load(Ordering::Relaxed) {
        let Some(request) = read_request(&mut reader) else {
            return;
        };
        let close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let is_chat = request.method == "POST" && request.path.ends_with("/chat/completions");
        if is_chat {
            chat_requests.fetch_add(1, Ordering::SeqCst);
        }
        let mut reply = if is_chat {
            handler(&request)
        } else if request.method == "GET" && request.path.ends_with("/models") {
            models.clone()
        } else {
            Reply::error(404, "not found")
        };
        loop {
            match reply {
                Reply::Slow(d, inner) => {
                    thread::sleep(d);
                    reply = *inner;
                }
                Reply::Drop => {
                    let _ = writer.shutdown(Shutdown::Both);
                    return;
                }
                Reply::Response {
                    status,
                    headers,
                    body,
                } => {
                    let mut head = format!(
                        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                        reason(status),
                        body.len()
                    );
                    for (k, v) in &headers {
                        head.push_str(&format!("{k}: {v}\r\n"));
                    }
                    head.push_str(if close {
                        "Connection: close\r\n\r\n"
                    } else {
                        "\r\n"
                    });
                    if writer.write_all(head.as_bytes()).is_err()
                        || writer.write_all(body.as_bytes()).is_err()
                    {
                        return;
                    }
                    break;
                }
            }
        }
        if close {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<MockRequest> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_owned());
        if k == "content-length" {
            length = v.parse().ok()?;
        }
        headers.push((k, v));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(MockRequest {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}
